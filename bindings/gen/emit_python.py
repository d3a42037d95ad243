"""Python binding glue from capi/kiln_api.json.

Writes bindings/python/kiln/_capi_gen.py, the ctypes layer of the Python
binding (bindings/python/kiln/):

  - the spec's constants as enum classes (Status, DType, Kind, Option,
    StringOption, InputFlag, ImageFlag) and ABI_VERSION, checked against
    kiln_abi_version() when the library loads;
  - one opaque ctypes.Structure per handle type (pointers to them are the
    handles) and HANDLE_DESTROY, each handle's destroy function;
  - SIGNATURES: every C function's ctypes restype and argtypes, applied to a
    loaded CDLL by bind(lib); STATUS_FUNCTIONS, those returning a status.

C types map one to one, except that the data pointers (`const void *`,
`void *`, `const uint8_t *`, `const float *`, `float *`) are c_void_p, so
the hand-written layer can pass a NumPy array's address (an int) directly.
A C type this table does not know fails the generation, naming it.
"""
import spec as kspec

OUTPUT = "bindings/python/kiln/_capi_gen.py"

# Constant group -> (Python class, enum base).
GROUPS = {
    "status": ("Status", "enum.IntEnum"),
    "dtype": ("DType", "enum.IntEnum"),
    "kind": ("Kind", "enum.IntEnum"),
    "option": ("Option", "enum.IntEnum"),
    "string_option": ("StringOption", "enum.IntEnum"),
    "input_flag": ("InputFlag", "enum.IntFlag"),
    "image_flag": ("ImageFlag", "enum.IntFlag"),
    "calib_method": ("CalibMethod", "enum.IntEnum"),
    "calib_tensor": ("CalibTensor", "enum.IntEnum"),
    "precision": ("Precision", "enum.IntEnum"),
}
# C type text -> ctypes expression (handle types are handled separately).
CTYPES = {
    "int32_t": "ctypes.c_int32",
    "size_t": "ctypes.c_size_t",
    "int32_t *": "ctypes.POINTER(ctypes.c_int32)",
    "int64_t *": "ctypes.POINTER(ctypes.c_int64)",
    "size_t *": "ctypes.POINTER(ctypes.c_size_t)",
    "const int64_t *": "ctypes.POINTER(ctypes.c_int64)",
    "const char *": "ctypes.c_char_p",
    "char *": "ctypes.POINTER(ctypes.c_char)",
    "const void *": "ctypes.c_void_p",
    "void *": "ctypes.c_void_p",
    "const void **": "ctypes.POINTER(ctypes.c_void_p)",
    "void **": "ctypes.POINTER(ctypes.c_void_p)",
    "const uint8_t *": "ctypes.c_void_p",
    "const float *": "ctypes.c_void_p",
    "float *": "ctypes.c_void_p",
}
RESTYPES = {"int32_t": "ctypes.c_int32", "void": "None", "const char *": "ctypes.c_char_p"}


class EmitError(ValueError):
    pass


def _ctype(fn, ctype, handles):
    text = ctype
    stars = 0
    while text.endswith(" *") or text.endswith("*"):
        text = text[:-1].rstrip()
        stars += 1
    base = text[len("const "):] if text.startswith("const ") else text
    if base in handles and stars in (1, 2):
        expr = "ctypes.POINTER(%s)" % base
        return "ctypes.POINTER(%s)" % expr if stars == 2 else expr
    if ctype in CTYPES:
        return CTYPES[ctype]
    raise EmitError("%s: C type %r has no ctypes mapping; teach bindings/gen/emit_python.py"
                    % (fn["name"], ctype))


def _comment(text):
    return text.replace("\n", " ")


def emit(spec):
    handles = [h["name"] for h in spec["handles"]]
    abi = kspec.constants(spec, "abi")
    if len(abi) != 1:
        raise EmitError("the spec must have exactly one constant in group 'abi'")
    lines = [
        "# Generated from capi/kiln_api.json by bindings/gen/emit_python.py: do not edit.",
        "# Regenerate with: /usr/bin/python3 bindings/gen/generate.py",
        '"""ctypes prototypes and constants of the Kiln C API (capi/kiln.h)."""',
        "import ctypes",
        "import enum",
        "from typing import Dict, FrozenSet, List, Optional, Tuple",
        "",
        "# %s" % _comment(abi[0]["doc"]),
        "ABI_VERSION = %d" % abi[0]["value"],
        "",
    ]
    for group, (cls, base) in GROUPS.items():
        members = kspec.constants(spec, group)
        lines += ["", "class %s(%s):" % (cls, base)]
        if not members:
            lines.append("    pass")
        for const in members:
            lines.append("    %s = %d  # %s: %s" % (const["short"], const["value"], const["name"],
                                                    _comment(const["doc"])))
        lines.append("")
    known = set(GROUPS) | {"abi"}
    for const in spec["constants"]:
        if const["group"] not in known:
            raise EmitError("constant group %r has no Python class" % const["group"])
    lines += ["", "# ---- handles: opaque structs; a handle is a pointer to one ----", ""]
    for handle in spec["handles"]:
        lines += ["", "class %s(ctypes.Structure):" % handle["name"],
                  '    """%s"""' % _comment(handle["doc"]).replace('"""', "'''"), ""]
    lines += ["", "# Each handle type's destroy function (it accepts NULL).",
              "HANDLE_DESTROY: Dict[str, str] = {"]
    lines += ['    "%s": "%s",' % (h["name"], h["destroy"]) for h in spec["handles"]]
    lines += ["}", ""]
    lines += ["# C function -> (restype, argtypes), in header order. bind() applies them.",
              "SIGNATURES: Dict[str, Tuple[Optional[type], List[type]]] = {"]
    for fn in spec["functions"]:
        if fn["returns"] not in RESTYPES:
            raise EmitError("%s: return type %r has no ctypes mapping" % (fn["name"], fn["returns"]))
        lines.append("    # %s(%s): %s" % (fn["name"], ", ".join(a["name"] for a in fn["args"]),
                                            _comment(fn["doc"])))
        args = [_ctype(fn, a["type"], handles) for a in fn["args"]]
        lines.append('    "%s": (%s, [' % (fn["name"], RESTYPES[fn["returns"]]))
        for a, expr in zip(fn["args"], args):
            lines.append("        %s,  # %s %s (%s)" % (expr, a["type"], a["name"], a["role"]))
        lines.append("    ]),")
    lines += ["}", ""]
    lines += ["# Functions whose int32_t result is a status code (KILN_OK or KILN_ERR_*).",
              "STATUS_FUNCTIONS: FrozenSet[str] = frozenset(["]
    lines += ['    "%s",' % fn["name"] for fn in spec["functions"] if fn["status"]]
    lines += ["])", "", ""]
    lines += ["def bind(lib: ctypes.CDLL) -> ctypes.CDLL:",
              '    """Sets restype and argtypes of every Kiln function on lib; returns lib.',
              "",
              "    Raises AttributeError naming a function the library lacks.",
              '    """',
              "    for name, (restype, argtypes) in SIGNATURES.items():",
              "        function = getattr(lib, name)",
              "        function.restype = restype",
              "        function.argtypes = argtypes",
              "    return lib",
              ""]
    return "\n".join(lines)


def outputs(spec):
    return {OUTPUT: emit(spec)}


if __name__ == "__main__":
    import os
    for path, text in outputs(kspec.load()).items():
        with open(os.path.join(kspec.REPO_ROOT, path), "w", encoding="utf-8") as handle:
            handle.write(text)
        print("wrote", path)
