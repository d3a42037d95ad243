"""Test api_spec_matches_header: capi/kiln_api.json and capi/kiln.h agree.

Compares every numeric #define KILN_* (name and value), the handle typedefs
and every KILN_API prototype (name, return type, argument names, types and
order, and the order of functions) and prints each difference. Exit 0 when
they agree, 1 otherwise. --self-test additionally proves the comparison
catches typical drifts by mutating the header text in memory.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import header_parse  # noqa: E402
import spec as kspec  # noqa: E402


def differences(api, header):
    """Lists human-readable differences between a spec and a parsed header."""
    out = []
    spec_defines = {c["name"]: c["value"] for c in api["constants"]}
    for name, value in header["defines"].items():
        if name not in spec_defines:
            out.append("#define %s %d is in the header but not in the spec" % (name, value))
        elif spec_defines[name] != value:
            out.append("%s: header says %d, spec says %d" % (name, value, spec_defines[name]))
    for name in spec_defines:
        if name not in header["defines"]:
            out.append("constant %s is in the spec but not defined in the header" % name)

    spec_handles = [h["name"] for h in api["handles"]]
    for name in header["handles"]:
        if name not in spec_handles:
            out.append("handle type %s is in the header but not in the spec" % name)
    for name in spec_handles:
        if name not in header["handles"]:
            out.append("handle %s is in the spec but not typedef'd in the header" % name)

    spec_fns = {f["name"]: f for f in api["functions"]}
    header_fns = {f["name"]: f for f in header["functions"]}
    for name, hfn in header_fns.items():
        sfn = spec_fns.get(name)
        if sfn is None:
            out.append("function %s is in the header but not in the spec" % name)
            continue
        if sfn["returns"] != hfn["returns"]:
            out.append("%s returns %r in the header, %r in the spec"
                       % (name, hfn["returns"], sfn["returns"]))
        hargs = [(a["type"], a["name"]) for a in hfn["args"]]
        sargs = [(a["type"], a["name"]) for a in sfn["args"]]
        if len(hargs) != len(sargs):
            out.append("%s takes %d arguments in the header, %d in the spec"
                       % (name, len(hargs), len(sargs)))
        for i, (h, s) in enumerate(zip(hargs, sargs)):
            if h != s:
                out.append("%s argument %d: header '%s %s', spec '%s %s'"
                           % (name, i + 1, h[0], h[1], s[0], s[1]))
    for name in spec_fns:
        if name not in header_fns:
            out.append("function %s is in the spec but not declared in the header" % name)
    common_h = [n for n in header_fns if n in spec_fns]
    common_s = [n for n in spec_fns if n in header_fns]
    if common_h != common_s:
        first = next(i for i, (a, b) in enumerate(zip(common_h, common_s)) if a != b)
        out.append("functions are in a different order from position %d: header has %s, "
                   "spec has %s" % (first + 1, common_h[first], common_s[first]))
    return out


# Each mutation of the header text must be reported (and name the function
# or constant involved); guards against a check that silently passes.
_MUTATIONS = [
    ("#define KILN_ERR_SHAPE 6", "#define KILN_ERR_SHAPE 66", "KILN_ERR_SHAPE"),
    ("#define KILN_OPT_PROFILE 8", "#define KILN_OPT_PROFILE 8\n#define KILN_OPT_EXTRA 9",
     "KILN_OPT_EXTRA"),
    ("int32_t kiln_session_run(kiln_session *session);",
     "int32_t kiln_session_run(kiln_session *session);\n"
     "KILN_API int32_t kiln_session_extra(kiln_session *session);", "kiln_session_extra"),
    ("KILN_API int32_t kiln_session_cancel(kiln_session *session);", "", "kiln_session_cancel"),
    ("int32_t cap, int32_t *rank);", "int32_t capacity, int32_t *rank);", "capacity"),
    ("kiln_model_input_index(const kiln_model *model", "kiln_model_input_index(kiln_model *model",
     "kiln_model_input_index"),
    ("kiln_session_output_copy(const kiln_session *session, int32_t index,\n"
     "                                          void *buf, size_t cap, size_t *needed)",
     "kiln_session_output_copy(const kiln_session *session, int32_t index,\n"
     "                                          void *buf, int32_t cap, size_t *needed)",
     "kiln_session_output_copy"),
    ("const float *mean,\n                                      const float *std",
     "const float *std,\n                                      const float *mean",
     "kiln_image_to_tensor"),
    ("KILN_API const char *kiln_version(void);", "KILN_API char *kiln_version(void);",
     "kiln_version"),
]


def self_test(api, text):
    failures = 0
    for old, new, must_name in _MUTATIONS:
        if old not in text:
            print("self-test: header no longer contains %r; update _MUTATIONS" % old)
            failures += 1
            continue
        found = differences(api, header_parse.parse_header(text.replace(old, new, 1)))
        if not any(must_name in d for d in found):
            print("self-test: changing %r to %r was not reported (got %s)" % (old, new, found))
            failures += 1
    print("self-test: %d of %d header mutations detected"
          % (len(_MUTATIONS) - failures, len(_MUTATIONS)))
    mutations = _spec_mutations(api)
    rejected = 0
    for description, mutated in mutations:
        try:
            kspec.validate(mutated)
            print("self-test: the spec validator accepted a spec with: %s" % description)
        except kspec.SpecError:
            rejected += 1
    print("self-test: %d of %d invalid specs rejected" % (rejected, len(mutations)))
    return failures == 0 and rejected == len(mutations)


def _spec_mutations(api):
    """(description, mutated copy) pairs the validator must reject."""
    import copy

    def mutate(description, change):
        clone = copy.deepcopy(api)
        change(clone)
        return description, clone

    def fn(clone, name):
        return kspec.function(clone, name)

    return [
        mutate("unknown role", lambda s: fn(s, "kiln_session_run")["args"][0].update(role="blob")),
        mutate("role with the wrong C type",
               lambda s: fn(s, "kiln_model_input_name")["args"][3].update(type="size_t")),
        mutate("link to a missing argument",
               lambda s: fn(s, "kiln_model_input_name")["args"][2].update(cap="capacity")),
        mutate("companion that does not link back",
               lambda s: fn(s, "kiln_model_node_op")["args"][6].update(of=["index"])),
        mutate("status flag on a non-status result",
               lambda s: fn(s, "kiln_last_error").update(status=True)),
        mutate("enum naming no constant group",
               lambda s: fn(s, "kiln_options_set_int")["args"][1].update(enum="colour")),
        mutate("handle without its destroy function",
               lambda s: s["functions"].remove(fn(s, "kiln_tensor_destroy"))),
    ]


def main(argv):
    header_path = os.path.join(kspec.REPO_ROOT, "capi", "kiln.h")
    try:
        api = kspec.load()
        with open(header_path, encoding="utf-8") as handle:
            text = handle.read()
        header = header_parse.parse_header(text)
    except (kspec.SpecError, ValueError, OSError) as err:
        print("error: %s" % err)
        return 1
    found = differences(api, header)
    for line in found:
        print("mismatch: " + line)
    ok = not found
    if ok:
        print("capi/kiln_api.json matches capi/kiln.h: %d constants, %d handles, %d functions"
              % (len(header["defines"]), len(header["handles"]), len(header["functions"])))
    if "--self-test" in argv[1:]:
        ok = self_test(api, text) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
