"""Loads, validates and queries capi/kiln_api.json, the machine-readable
description of Kiln's public C API that the bindings are generated from.

Stdlib only; run with /usr/bin/python3. bindings/gen/README.md documents the
format and every argument role. Typical use in an emitter:

    import spec as kspec
    api = kspec.load()                      # validated; raises SpecError
    for fn in kspec.functions(api, object="kiln_model"):
        kspec.camel(fn["method"])           # input_name -> InputName
"""
import json
import os
import re

REPO_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SPEC_PATH = os.path.join(REPO_ROOT, "capi", "kiln_api.json")
FORMAT_VERSION = 1


class SpecError(ValueError):
    """The spec file breaks the format; the message names the place."""


CONSTANT_GROUPS = ("abi", "status", "dtype", "kind", "option", "string_option",
                   "input_flag", "image_flag", "calib_method", "calib_tensor", "precision")
RESULTS = {"status": "int32_t", "value": "int32_t", "length": "int32_t",
           "static_string": "const char *", "none": "void"}
KINDS = ("create", "destroy", "method", "function")

# The closed vocabulary of argument roles: role -> (C types allowed, dir,
# links naming other arguments of the same function, optional keys).
# A link's value is the name of the companion argument; "of" is a list.
_HANDLE_TYPE = re.compile(r"^(const )?(kiln_[a-z]+) \*$")
_HANDLE_OUT_TYPE = re.compile(r"^(kiln_[a-z]+) \*\*$")
ROLES = {
    "handle":       (None, "in", (), ("handle", "nullable")),
    "handle_out":   (None, "out", (), ("handle",)),
    "scalar":       (("int32_t", "size_t"), "in", (), ("enum", "flags")),
    "scalar_out":   (("int32_t *", "int64_t *"), "out", (), ("enum", "boolean")),
    "cstring":      (("const char *",), "in", (), ("nullable",)),
    "strbuf":       (("char *",), "out", ("cap",), ("needed", "binary")),
    "strcap":       (("int32_t",), "in", ("of",), ()),
    "needed":       (("int32_t *",), "out", ("of",), ()),
    "dims_in":      (("const int64_t *",), "in", ("count",), ()),
    "rank":         (("int32_t",), "in", ("of",), ()),
    "dims_out":     (("int64_t *",), "out", ("cap", "count"), ()),
    "dims_cap":     (("int32_t",), "in", ("of",), ()),
    "rank_out":     (("int32_t *",), "out", ("of",), ()),
    "bytes_in":     (("const void *",), "in", ("size",), ("lifetime",)),
    "nbytes":       (("size_t",), "in", ("of",), ()),
    "bytes_out":    (("void *",), "out", ("cap", "needed"), ()),
    "bytes_cap":    (("size_t",), "in", ("of",), ()),
    "bytes_needed": (("size_t *",), "out", ("of",), ("nullable",)),
    "view_out":     (("const void **",), "out", ("size",), ("valid",)),
    "nbytes_out":   (("size_t *",), "out", ("of",), ()),
    "floats_in":    (("const float *",), "in", ("count",), ("nullable",)),
    "floats_out":   (("float *",), "out", ("size",), ()),
    "pixels_in":    (("const uint8_t *",), "in", ("width", "height", "stride", "channels"), ()),
    # Memory on the session's device (a CUDA pointer): the library never
    # reads it on the host, so a binding passes it as an integer address,
    # and its byte size as a plain size_t scalar (nothing to derive it from).
    "device_ptr":   (("const void *", "void *"), "in", (), ("nullable", "lifetime")),
    "device_ptr_out": (("void **",), "out", (), ()),
}
# Roles whose companion must carry one of these roles (checks the links).
_LINK_ROLES = {
    ("strbuf", "cap"): "strcap", ("strbuf", "needed"): "needed",
    ("dims_in", "count"): "rank", ("dims_out", "cap"): "dims_cap",
    ("dims_out", "count"): "rank_out", ("bytes_in", "size"): "nbytes",
    ("bytes_out", "cap"): "bytes_cap", ("bytes_out", "needed"): "bytes_needed",
    ("view_out", "size"): "nbytes_out", ("floats_in", "count"): "scalar",
    ("floats_out", "size"): "nbytes", ("pixels_in", "width"): "scalar",
    ("pixels_in", "height"): "scalar", ("pixels_in", "stride"): "scalar",
    ("pixels_in", "channels"): "scalar",
}
_COMMON_ARG_KEYS = ("name", "type", "dir", "role", "doc")
_LIFETIMES = ("call", "borrowed")
_VALIDITY = ("until_next_run", "until_destroy")


def _fail(where, message):
    raise SpecError("%s: %s" % (where, message))


def _check_keys(where, obj, required, optional=()):
    if not isinstance(obj, dict):
        _fail(where, "expected an object")
    for key in required:
        if key not in obj:
            _fail(where, "missing key %r" % key)
    for key in obj:
        if key not in required and key not in optional:
            _fail(where, "unknown key %r" % key)


def _validate_arg(fn, arg, by_name, handle_names, groups):
    where = "%s(%s)" % (fn["name"], arg.get("name", "?"))
    role = arg.get("role")
    if role not in ROLES:
        _fail(where, "unknown role %r (roles: %s)" % (role, ", ".join(sorted(ROLES))))
    types, direction, links, optional = ROLES[role]
    _check_keys(where, arg, ("name", "type", "dir", "role") + links,
                _COMMON_ARG_KEYS + optional)
    if arg["dir"] != direction:
        _fail(where, "role %s has dir %r, not %r" % (role, direction, arg["dir"]))
    if role == "handle":
        match = _HANDLE_TYPE.match(arg["type"])
        if not match or match.group(2) != arg.get("handle") or arg["handle"] not in handle_names:
            _fail(where, "handle type %r does not match handle %r" % (arg["type"], arg.get("handle")))
    elif role == "handle_out":
        match = _HANDLE_OUT_TYPE.match(arg["type"])
        if not match or match.group(1) != arg.get("handle") or arg["handle"] not in handle_names:
            _fail(where, "handle_out type %r does not match handle %r" % (arg["type"], arg.get("handle")))
    elif arg["type"] not in types:
        _fail(where, "role %s takes %s, not %r" % (role, " or ".join(types), arg["type"]))
    if "enum" in arg and arg["enum"] not in groups:
        _fail(where, "enum %r is not a constant group" % arg["enum"])
    if arg.get("lifetime", "call") not in _LIFETIMES:
        _fail(where, "lifetime must be one of %s" % (_LIFETIMES,))
    if role == "view_out" and arg.get("valid") not in _VALIDITY:
        _fail(where, "view_out needs valid: one of %s" % (_VALIDITY,))
    for link in links:
        targets = arg[link] if isinstance(arg[link], list) else [arg[link]]
        if link == "of" and not isinstance(arg[link], list):
            _fail(where, "'of' must be a list of argument names")
        for target in targets:
            if target not in by_name:
                _fail(where, "%s names %r, which is not an argument" % (link, target))
            want = _LINK_ROLES.get((role, link))
            if want and by_name[target]["role"] != want:
                _fail(where, "%s %r must have role %s" % (link, target, want))
            if link == "of" and role not in ("strcap", "needed", "rank", "dims_cap", "rank_out",
                                             "nbytes", "bytes_cap", "bytes_needed", "nbytes_out"):
                _fail(where, "unexpected 'of'")
            if link == "of":
                # The primary must point back at this companion.
                primary = by_name[target]
                if arg["name"] not in [primary.get(k) for k in ("cap", "needed", "count", "size")]:
                    _fail(where, "%r does not link back to %r" % (target, arg["name"]))


def validate(spec):
    """Raises SpecError naming the first problem; returns spec."""
    _check_keys("spec", spec, ("format_version", "library", "header", "constants",
                               "handles", "functions"), ("doc",))
    if spec["format_version"] != FORMAT_VERSION:
        _fail("spec", "format_version %r; this reader knows %d"
              % (spec["format_version"], FORMAT_VERSION))
    seen = set()
    for const in spec["constants"]:
        where = "constant %s" % const.get("name", "?")
        _check_keys(where, const, ("name", "value", "group", "short", "doc"))
        if const["name"] in seen:
            _fail(where, "listed twice")
        seen.add(const["name"])
        if not const["name"].startswith("KILN_") or not const["name"].endswith(const["short"]):
            _fail(where, "short name %r is not the end of the name" % const["short"])
        if const["group"] not in CONSTANT_GROUPS:
            _fail(where, "unknown group %r" % const["group"])
        if not isinstance(const["value"], int) or isinstance(const["value"], bool):
            _fail(where, "value must be an integer")
    groups = {c["group"] for c in spec["constants"]}
    handle_names = set()
    for handle in spec["handles"]:
        _check_keys("handle %s" % handle.get("name", "?"), handle, ("name", "destroy", "doc"))
        handle_names.add(handle["name"])
    fn_names = set()
    for fn in spec["functions"]:
        where = fn.get("name", "?")
        _check_keys(where, fn, ("name", "returns", "status", "result", "kind", "object",
                                "method", "section", "doc", "args"))
        if fn["name"] in fn_names:
            _fail(where, "listed twice")
        fn_names.add(fn["name"])
        if RESULTS.get(fn["result"]) != fn["returns"]:
            _fail(where, "result %r does not go with return type %r" % (fn["result"], fn["returns"]))
        if fn["status"] != (fn["result"] == "status"):
            _fail(where, "status must be true exactly when result is 'status'")
        if fn["kind"] not in KINDS:
            _fail(where, "kind must be one of %s" % (KINDS,))
        if fn["object"] is not None and fn["object"] not in handle_names:
            _fail(where, "object %r is not a handle" % fn["object"])
        prefix = (fn["object"] or "kiln") + "_"
        if fn["name"] != prefix + fn["method"]:
            _fail(where, "name is not %r + method %r" % (prefix, fn["method"]))
        if not fn["doc"] or "\n" in fn["doc"]:
            _fail(where, "doc must be one non-empty line")
        by_name = {}
        for arg in fn["args"]:
            if arg.get("name") in by_name:
                _fail(where, "argument %r twice" % arg.get("name"))
            by_name[arg.get("name")] = arg
        for arg in fn["args"]:
            _validate_arg(fn, arg, by_name, handle_names, groups)
    for handle in spec["handles"]:
        destroy = function(spec, handle["destroy"], required=False)
        if (destroy is None or destroy["kind"] != "destroy" or destroy["returns"] != "void"
                or [a["role"] for a in destroy["args"]] != ["handle"]
                or destroy["args"][0]["handle"] != handle["name"]):
            _fail("handle %s" % handle["name"], "destroy %r must be a void function taking "
                  "only that handle" % handle["destroy"])
    return spec


def load(path=SPEC_PATH):
    """Reads and validates the spec; raises SpecError (or OSError)."""
    with open(path, encoding="utf-8") as handle:
        try:
            spec = json.load(handle)
        except ValueError as err:
            raise SpecError("%s: not valid JSON: %s" % (path, err))
    return validate(spec)


# ---- queries ----

def functions(spec, object=None, kind=None, section=None):
    """Functions in header order, optionally filtered."""
    return [fn for fn in spec["functions"]
            if (object is None or fn["object"] == object)
            and (kind is None or fn["kind"] == kind)
            and (section is None or fn["section"] == section)]


def function(spec, name, required=True):
    for fn in spec["functions"]:
        if fn["name"] == name:
            return fn
    if required:
        raise KeyError(name)
    return None


def constants(spec, group=None):
    return [c for c in spec["constants"] if group is None or c["group"] == group]


def arg(fn, name):
    for candidate in fn["args"]:
        if candidate["name"] == name:
            return candidate
    raise KeyError("%s has no argument %r" % (fn["name"], name))


def args_with_role(fn, *roles):
    return [a for a in fn["args"] if a["role"] in roles]


def is_companion(argument):
    """True for arguments a binding fills in itself (capacities, lengths,
    counts written back): they disappear from idiomatic signatures."""
    return argument["role"] in ("strcap", "needed", "rank", "dims_cap", "rank_out", "nbytes",
                                "bytes_cap", "bytes_needed", "nbytes_out")


# ---- names ----

def words(name):
    """'kiln_model_input_name' -> ['kiln', 'model', 'input', 'name']."""
    return [w for w in name.split("_") if w]


def camel(name):
    """input_name -> InputName (Go exported names, Java/JS class names)."""
    return "".join(w[:1].upper() + w[1:] for w in words(name))


def lower_camel(name):
    """input_name -> inputName (Java and JavaScript methods)."""
    text = camel(name)
    return text[:1].lower() + text[1:]


def type_name(handle):
    """kiln_session -> Session."""
    return camel(handle[len("kiln_"):] if handle.startswith("kiln_") else handle)


def constant_camel(const):
    """KILN_ERR_INVALID_ARGUMENT (short INVALID_ARGUMENT) -> InvalidArgument."""
    return camel(const["short"].lower())
