"""Go binding glue: writes bindings/go/capi_gen.go (parts 1 and 2 below) and
bindings/go/methods_gen.go (part 3 and the constants) from capi/kiln_api.json.

All of it is derived from the spec:

1. The cgo preamble: one C shim per status-returning function. The shim
   calls the function and, when it fails, copies kiln_last_error() into a
   malloc'd buffer inside the same cgo call. Go moves goroutines between OS
   threads between cgo calls, and the message is thread-local, so reading it
   in a second cgo call could read another thread's message.
2. One thin Go wrapper per C function (cModelInputName, ...), taking cgo
   types and returning `error` (an *Error) for status functions. The
   hand-written layer (runtime.go, model.go, session.go, ...) is built on these.
3. Exported Go methods on Model and Session for every method whose argument
   roles map onto Go values (scalars, enums, strings, two-call strings,
   shapes), unless the hand-written layer provides that method itself
   (HANDWRITTEN). A new C function of that shape reaches Go users with no
   hand-written code; one with other roles still gets its thin wrapper.
   The constants (status sentinels, dtypes, kinds, option keys, flags) and the
   ABI version checked at load come from the spec as well.
"""
import spec as kspec

WRAPPERS_OUTPUT = "bindings/go/capi_gen.go"
METHODS_OUTPUT = "bindings/go/methods_gen.go"
HEADER = ("// Code generated from capi/kiln_api.json by bindings/gen/emit_go.py. DO NOT EDIT.\n"
          "// Regenerate with: /usr/bin/python3 bindings/gen/generate.py\n")

# Methods whose exported Go face is hand-written (a richer signature than the
# roles alone give, e.g. typed slices, copied inputs, cached descriptions).
HANDWRITTEN = {
    "kiln_session_set_input", "kiln_session_set_input_at", "kiln_session_run",
    "kiln_session_cancel", "kiln_session_output_info", "kiln_session_output_copy",
    "kiln_session_output_view", "kiln_session_set_input_value", "kiln_session_output_value",
}
# Go receivers for the handle types the idiomatic layer wraps.
RECEIVERS = {"kiln_model": ("m", "Model"), "kiln_session": ("s", "Session")}
# Go types of enum groups; other groups are plain int32.
ENUM_TYPES = {"dtype": "DType", "kind": "Kind"}
# Exported Go names of the constant groups (prefix + camel of the short name).
CONST_PREFIX = {"dtype": "DType", "kind": "Kind", "option": "Opt",
                "string_option": "StringOpt", "input_flag": "Input", "image_flag": "Image",
                "calib_method": "Calib", "calib_tensor": "CalibTensor",
                "precision": "Precision"}
# Go spells initialisms in one case.
INITIALISMS = {"Io": "IO", "Dtype": "DType", "Bgr": "BGR", "Dnnl": "DNNL", "Mb": "MB"}
GO_KEYWORDS = {"break", "case", "chan", "const", "continue", "default", "defer", "else",
               "fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map",
               "package", "range", "return", "select", "struct", "switch", "type", "var"}
# Roles the exported methods can marshal (the companions come along).
METHOD_ROLES = {"handle", "scalar", "scalar_out", "cstring", "strbuf", "strcap", "needed",
                "dims_out", "dims_cap", "rank_out"}


def go_name(text):
    name = kspec.camel(text.lower())
    for wrong, right in INITIALISMS.items():
        name = name.replace(wrong, right)
    return name


def ident(name):
    """A C argument name usable as a Go identifier."""
    return name + "_" if name in GO_KEYWORDS else name


def cgo_type(c_type):
    """The cgo spelling of a C argument type ('const int64_t *' -> '*C.int64_t')."""
    base = c_type.replace("const ", "").strip()
    stars = base.count("*")
    base = base.replace("*", "").strip()
    if base == "void":
        return "*" * (stars - 1) + "unsafe.Pointer"
    return "*" * stars + "C." + base


def wrapper_name(fn):
    return "c" + kspec.camel(fn["name"][len("kiln_"):])


def doc_comment(name, fn, indent=""):
    return "%s// %s wraps %s: %s" % (indent, name, fn["name"], fn["doc"])


# ---- part 1: C shims ----

# cgo asks pkg-config for kiln's flags: the kiln.pc that `cmake --install`
# writes (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig), or the build tree's
# BUILD/packaging/build-tree/kiln.pc for the in-repo tests.
PREAMBLE = """\
#cgo pkg-config: kiln
#include <stdlib.h>
#include <kiln.h>

// A status and, on failure, the thread's error message (malloc'd; the Go
// side frees it).
typedef struct {
    int32_t status;
    char *message;
} kilngo_status;

static kilngo_status kilngo_capture(int32_t status) {
    kilngo_status r = {status, NULL};
    if (status != KILN_OK) {
        int32_t length = kiln_last_error(NULL, 0);
        r.message = malloc((size_t)length + 1);
        if (r.message) kiln_last_error(r.message, length + 1);
    }
    return r;
}
"""


def c_shim(fn):
    params = ", ".join(c_param(a) for a in fn["args"]) or "void"
    call = ", ".join(a["name"] for a in fn["args"])
    return "static kilngo_status kilngo_%s(%s) {\n    return kilngo_capture(%s(%s));\n}\n" % (
        fn["name"][len("kiln_"):], params, fn["name"], call)


def c_param(arg):
    c_type = arg["type"]
    return "%s%s%s" % (c_type, "" if c_type.endswith("*") else " ", arg["name"])


# ---- part 2: thin wrappers ----

def thin_wrapper(fn):
    params = ", ".join("%s %s" % (ident(a["name"]), cgo_type(a["type"])) for a in fn["args"])
    names = ", ".join(ident(a["name"]) for a in fn["args"])
    name = wrapper_name(fn)
    lines = [doc_comment(name, fn)]
    if fn["status"]:
        lines.append("func %s(%s) error {" % (name, params))
        lines.append("\treturn statusError(%s, C.kilngo_%s(%s))" % (
            quote(fn["name"]), fn["name"][len("kiln_"):], names))
    elif fn["result"] == "none":
        lines.append("func %s(%s) {" % (name, params))
        lines.append("\tC.%s(%s)" % (fn["name"], names))
    else:
        result = {"value": "C.int32_t", "length": "C.int32_t", "static_string": "*C.char"}
        lines.append("func %s(%s) %s {" % (name, params, result[fn["result"]]))
        lines.append("\treturn C.%s(%s)" % (fn["name"], names))
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---- part 3: exported methods ----

def method_supported(fn):
    return (fn["kind"] == "method" and fn["object"] in RECEIVERS and fn["status"]
            and fn["name"] not in HANDWRITTEN
            and all(a["role"] in METHOD_ROLES for a in fn["args"])
            and not any(a.get("binary") for a in fn["args"]))


def go_value_type(arg):
    if arg.get("boolean"):
        return "bool"
    if arg["role"] == "dims_out":
        return "[]int64"
    if arg["role"] in ("cstring", "strbuf"):
        return "string"
    if arg.get("enum") in ENUM_TYPES:
        return ENUM_TYPES[arg["enum"]]
    if arg["type"] in ("int64_t *",):
        return "int64"
    return "int32"


def exported_method(fn):
    recv, type_name = RECEIVERS[fn["object"]]
    name = go_name(fn["method"])
    args = fn["args"][1:]
    params = [a for a in args if a["role"] in ("scalar", "cstring")]
    results = [a for a in args if a["role"] in ("scalar_out", "strbuf", "dims_out")]
    sig_params = ", ".join("%s %s" % (ident(kspec.lower_camel(a["name"])), go_value_type(a))
                           for a in params)
    if results:  # named results document what each value is
        sig_results = "(%s)" % ", ".join(
            ["%s %s" % (ident(kspec.lower_camel(a["name"])), go_value_type(a)) for a in results]
            + ["err error"])
    else:
        sig_results = "error"
    body = ["h, err := %s.enter(%s)" % (recv, quote(fn["name"]))]
    zero_return = "return " + ", ".join([zero(a) for a in results] + ["err"])
    body += ["if err != nil {", "\t" + zero_return, "}", "defer %s.leave()" % recv]
    call_args = {fn["args"][0]["name"]: "h"}
    for a in params:
        local = ident(kspec.lower_camel(a["name"]))
        if a["role"] == "cstring":
            body.append("c%s := C.CString(%s)" % (kspec.camel(a["name"]), local))
            body.append("defer C.free(unsafe.Pointer(c%s))" % kspec.camel(a["name"]))
            call_args[a["name"]] = "c" + kspec.camel(a["name"])
        else:
            call_args[a["name"]] = "%s(%s)" % (cgo_type(a["type"]), local)
    for a in args:
        if a["role"] in ("scalar_out", "needed", "rank_out"):
            body.append("var out%s %s" % (kspec.camel(a["name"]), cgo_type(a["type"])[1:]))
            call_args[a["name"]] = "&out" + kspec.camel(a["name"])
    strbufs = [a for a in args if a["role"] == "strbuf"]
    dims = [a for a in args if a["role"] == "dims_out"]
    first, second = dict(call_args), dict(call_args)
    for a in strbufs:  # two-call pattern: sizes first, then the bytes
        first[a["name"]], first[a["cap"]] = "nil", "0"
        buf = "buf" + kspec.camel(a["name"])
        second[a["name"]] = "(*C.char)(unsafe.Pointer(&%s[0]))" % buf
        second[a["cap"]] = "C.int32_t(len(%s))" % buf
    for a in dims:  # shapes: the rank first, then the dims
        first[a["name"]], first[a["cap"]] = "nil", "0"
        buf = "buf" + kspec.camel(a["name"])
        second[a["name"]] = "&%s[0]" % buf
        second[a["cap"]] = "C.int32_t(len(%s))" % buf
    wrapper = wrapper_name(fn)
    order = [a["name"] for a in fn["args"]]
    if strbufs or dims:
        body.append("err = %s(%s)" % (wrapper, ", ".join(first[n] for n in order)))
        body.append("if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {")
        body += ["\t" + zero_return, "}"]
        for a in strbufs:
            body.append("buf%s := make([]byte, maxInt(int(out%s), 1))" % (
                kspec.camel(a["name"]), kspec.camel(a["needed"])))
        for a in dims:
            body.append("buf%s := make([]C.int64_t, maxInt(int(out%s), 1))" % (
                kspec.camel(a["name"]), kspec.camel(a["count"])))
    body.append("err = %s(%s)" % (wrapper, ", ".join(second[n] for n in order)))
    values = []
    for a in results:
        if a["role"] == "strbuf":
            values.append("cBufString(buf%s)" % kspec.camel(a["name"]))
        elif a["role"] == "dims_out":
            values.append("dimsOrNil(buf%s, out%s)" % (kspec.camel(a["name"]),
                                                       kspec.camel(a["count"])))
        elif a.get("boolean"):
            values.append("out%s != 0" % kspec.camel(a["name"]))
        else:
            values.append("%s(out%s)" % (go_value_type(a), kspec.camel(a["name"])))
    body.append("return " + ", ".join(values + ["err"]))
    lines = [doc_comment(name, fn), "func (%s *%s) %s(%s) %s {" % (
        recv, type_name, name, sig_params, sig_results)]
    lines += ["\t" + line for line in body]
    lines.append("}")
    return "\n".join(lines) + "\n"


def zero(arg):
    value_type = go_value_type(arg)
    return {"string": '""', "bool": "false", "[]int64": "nil"}.get(value_type, "0")


def quote(text):
    return '"%s"' % text


# ---- constants ----

# The element-type constants Go code uses are the hand-written ones in
# bindings/go/dtype.go (Float32, Int64, Float8E4M3FN, ...: the names DType's
# String prints). The generated DTypeXxx names are kept only so that code
# written against them compiles; they are deprecated aliases of these. A dtype
# added to the spec must be added here and in dtype.go.
GO_DTYPE_NAMES = {
    "FLOAT": "Float32", "DOUBLE": "Float64", "FLOAT16": "Float16", "BFLOAT16": "BFloat16",
    "INT8": "Int8", "INT16": "Int16", "INT32": "Int32", "INT64": "Int64",
    "UINT8": "Uint8", "UINT16": "Uint16", "UINT32": "Uint32", "UINT64": "Uint64",
    "BOOL": "Bool", "STRING": "String",
    "FLOAT8E4M3FN": "Float8E4M3FN", "FLOAT8E4M3FNUZ": "Float8E4M3FNUZ",
    "FLOAT8E5M2": "Float8E5M2", "FLOAT8E5M2FNUZ": "Float8E5M2FNUZ", "FLOAT8E8M0": "Float8E8M0",
    "UINT4": "Uint4", "INT4": "Int4", "FLOAT4E2M1": "Float4E2M1", "UINT2": "Uint2", "INT2": "Int2",
}


def deprecated_dtype_block(consts):
    lines = ["// Deprecated element-type names, kept so that existing code compiles;",
             "// use the constants of dtype.go (Float32, Int64, ...).", "const ("]
    for c in consts:
        if c["short"] not in GO_DTYPE_NAMES:
            raise SystemExit("emit_go.py: dtype %s has no Go name in GO_DTYPE_NAMES (add it "
                             "there and to bindings/go/dtype.go)" % c["name"])
        canonical = GO_DTYPE_NAMES[c["short"]]
        lines.append("\t// Deprecated: use %s (%s)." % (canonical, c["doc"]))
        lines.append("\tDType%s = %s" % (go_name(c["short"]), canonical))
    lines.append(")")
    return "\n".join(lines) + "\n"


def const_block(title, go_type, consts, prefix):
    rows = [("%s%s" % (prefix, go_name(c["short"])), c["value"], c["doc"]) for c in consts]
    lines = ["// %s" % title, "const ("]
    for name, value, doc in rows:
        lines.append("\t// %s: %s" % (name, doc))
        lines.append("\t%s %s= %d" % (name, (go_type + " ") if go_type else "", value))
    lines.append(")")
    return "\n".join(lines) + "\n"


def constants_section(api):
    parts = []
    abi = kspec.constants(api, "abi")[0]
    parts.append("// specABIVersion is the ABI version of the spec these wrappers were\n"
                 "// generated from; CheckABI compares it with kiln_abi_version().\n"
                 "const specABIVersion = %d\n" % abi["value"])
    statuses = [c for c in kspec.constants(api, "status") if c["value"] != 0]
    lines = ["// Sentinels for errors.Is, one per status code.", "var ("]
    for c in statuses:
        lines.append("\t// Err%s: %s" % (go_name(c["short"]), c["doc"]))
        lines.append("\tErr%s = sentinel(%d)" % (go_name(c["short"]), c["value"]))
    lines.append(")")
    parts.append("\n".join(lines) + "\n")
    titles = {"dtype": ("Element types (ONNX TensorProto.DataType numbers).", "DType"),
              "kind": ("What a model input or output holds.", "Kind"),
              "option": ("Integer option keys (IntOption).", "int32"),
              "string_option": ("String option keys.", "int32"),
              "input_flag": ("Flags for binding inputs.", "int32"),
              "image_flag": ("Flags for image conversion.", "int32"),
              "calib_method": ("Calibration methods (OptCalibMethod).", "int32"),
              "calib_tensor": ("Calibration report line kinds.", "int32"),
              "precision": ("Float arithmetic (OptPrecision).", "int32")}
    for group, prefix in CONST_PREFIX.items():
        consts = kspec.constants(api, group)
        if group == "dtype":
            parts.append(deprecated_dtype_block(consts))
        elif consts:
            title, go_type = titles[group]
            parts.append(const_block(title, go_type, consts, prefix))
    return parts


def outputs(api):
    status_fns = [fn for fn in api["functions"] if fn["status"]]
    preamble = PREAMBLE + "\n" + "\n".join(c_shim(fn) for fn in status_fns)
    preamble_lines = "\n".join(("// " + line).rstrip() for line in preamble.rstrip().split("\n"))
    wrappers = [HEADER, "package kiln\n", preamble_lines + "\nimport \"C\"\n",
                "import \"unsafe\"\n", STATUS_ERROR]
    wrappers += [thin_wrapper(fn) for fn in api["functions"]]
    methods = [HEADER, "package kiln\n",
               "// #include <stdlib.h>\n// #include <kiln.h>\nimport \"C\"\n",
               "import \"unsafe\"\n"]
    methods += constants_section(api)
    methods += [exported_method(fn) for fn in api["functions"] if method_supported(fn)]
    return {WRAPPERS_OUTPUT: "\n".join(wrappers), METHODS_OUTPUT: "\n".join(methods)}


STATUS_ERROR = """\
// statusError turns a shim's result into nil or an *Error, freeing the
// message the shim copied.
func statusError(op string, r C.kilngo_status) error {
\tif r.status == C.KILN_OK {
\t\treturn nil
\t}
\tmessage := ""
\tif r.message != nil {
\t\tmessage = C.GoString(r.message)
\t\tC.free(unsafe.Pointer(r.message))
\t}
\tcode := int32(r.status)
\treturn &Error{Code: code, Status: statusName(code), Message: message, Op: op}
}
"""
