"""Emits tests/abi_ffi/kiln_api_table.h: the spec as a C table (functions,
argument types and roles, constants) for the libffi ABI test, which builds
every call's ffi types from it instead of from hand-written prototypes."""

OUTPUT = "tests/abi_ffi/kiln_api_table.h"


def _c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def outputs(spec):
    max_args = max(len(fn["args"]) for fn in spec["functions"])
    lines = [
        "/* Generated from capi/kiln_api.json by bindings/gen/emit_c_table.py; do not edit.",
        " * Regenerate: /usr/bin/python3 bindings/gen/generate.py */",
        "#ifndef KILN_API_TABLE_H",
        "#define KILN_API_TABLE_H",
        "",
        "#include <stdint.h>",
        "",
        "#define KILN_API_TABLE_MAX_ARGS %d" % max_args,
        "",
        "typedef struct {",
        "    const char *name;",
        "    const char *type; /* exact C type text from the spec */",
        "    const char *role; /* argument role (bindings/gen/README.md) */",
        "    int nullable;",
        "} kiln_api_arg;",
        "",
        "typedef struct {",
        "    const char *name;",
        "    const char *returns;",
        "    const char *result; /* status, value, length, static_string, none */",
        "    const char *kind;   /* create, destroy, method, function */",
        "    int n_args;",
        "    kiln_api_arg args[KILN_API_TABLE_MAX_ARGS];",
        "} kiln_api_function;",
        "",
        "typedef struct {",
        "    const char *name;",
        "    const char *group;",
        "    int64_t value;",
        "} kiln_api_constant;",
        "",
        "static const kiln_api_function kiln_api_functions[] = {",
    ]
    for fn in spec["functions"]:
        args = ", ".join("{%s, %s, %s, %d}" % (_c_string(a["name"]), _c_string(a["type"]),
                                               _c_string(a["role"]), 1 if a.get("nullable") else 0)
                         for a in fn["args"])
        lines.append("    {%s, %s, %s, %s, %d, {%s}}," % (
            _c_string(fn["name"]), _c_string(fn["returns"]), _c_string(fn["result"]),
            _c_string(fn["kind"]), len(fn["args"]), args or "{0}"))
    lines += ["};", "", "static const kiln_api_constant kiln_api_constants[] = {"]
    for const in spec["constants"]:
        lines.append("    {%s, %s, %d}," % (_c_string(const["name"]), _c_string(const["group"]),
                                             const["value"]))
    lines += ["};", "", "#endif", ""]
    return {OUTPUT: "\n".join(lines)}
