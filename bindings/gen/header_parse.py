"""Parses capi/kiln.h into the same shapes the spec uses.

Only what the public header contains is understood: numeric `#define KILN_*`
lines, `typedef struct kiln_x kiln_x;` lines and `KILN_API` prototypes. The
parser is deliberately strict: a prototype it cannot split into return type,
name and arguments raises ValueError naming the text, so a header change the
checks do not understand fails loudly instead of being skipped.
"""
import re

_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_DEFINE = re.compile(r"^\s*#\s*define\s+(KILN_[A-Z0-9_]+)\s+(-?\d+)\b")
_HANDLE = re.compile(r"typedef\s+struct\s+(kiln_\w+)\s+(kiln_\w+)\s*;")
_PROTO = re.compile(r"KILN_API\s+([^;]*?)\b(kiln_\w+)\s*\(([^)]*)\)\s*;", re.S)
_ARG = re.compile(r"^(.*?)(\w+)$")


def normalize_type(text):
    """'const  kiln_model*' -> 'const kiln_model *' (one space, '*' apart)."""
    text = re.sub(r"\s*\*\s*", " * ", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text.replace("* *", "**")


def _split_arg(text):
    text = " ".join(text.split())
    match = _ARG.match(text)
    if not match or not match.group(1).strip():
        raise ValueError("cannot split argument into type and name: %r" % text)
    return {"name": match.group(2), "type": normalize_type(match.group(1))}


def parse_header(text):
    """Returns {"defines": {name: value}, "handles": [name], "functions": [
    {"name", "returns", "args": [{"name", "type"}]}]} in header order."""
    defines = {}
    for line in text.splitlines():
        match = _DEFINE.match(line)
        if match:
            if match.group(1) in defines:
                raise ValueError("%s defined twice" % match.group(1))
            defines[match.group(1)] = int(match.group(2))
    code = _COMMENT.sub(" ", text)
    handles = []
    for match in _HANDLE.finditer(code):
        if match.group(1) != match.group(2):
            raise ValueError("typedef struct %s %s: tag and name differ" % match.groups())
        handles.append(match.group(1))
    functions = []
    # Every "KILN_API" outside the macro definitions must start a prototype.
    uses = [m.start() for m in re.finditer(r"\bKILN_API\s+(?!__)", code)
            if not code[max(0, m.start() - 20):m.start()].rstrip().endswith("define")]
    for match in _PROTO.finditer(code):
        args_text = " ".join(match.group(3).split())
        args = [] if args_text in ("void", "") else [_split_arg(a) for a in args_text.split(",")]
        functions.append({"name": match.group(2), "returns": normalize_type(match.group(1)),
                          "args": args})
    if len(uses) != len(functions):
        raise ValueError("found %d KILN_API declarations but parsed %d prototypes"
                         % (len(uses), len(functions)))
    return {"defines": defines, "handles": handles, "functions": functions}


def parse_header_file(path):
    with open(path, encoding="utf-8") as handle:
        return parse_header(handle.read())
