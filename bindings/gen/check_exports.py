"""Test api_spec_matches_library: the built libkiln.so exports exactly the
spec's functions.

Usage: check_exports.py LIBKILN_SO [--nm NM]

Reads `nm -D --defined-only` and compares its defined dynamic symbols with
the spec's function names: a function the spec lists but the library lacks
breaks every binding at load; an extra exported symbol is ABI nobody
described. Version-node symbols (type A, e.g. KILN_0 from capi/kiln.map)
are not functions and are ignored. Exit 0 when the sets are equal.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spec as kspec  # noqa: E402


def exported_symbols(nm_output):
    """{name: type letter} of the defined dynamic symbols, version nodes
    left out."""
    symbols = {}
    for line in nm_output.splitlines():
        parts = line.split()
        if len(parts) != 3:
            continue
        _, kind, name = parts
        name = name.split("@", 1)[0]
        if kind == "A":
            continue
        symbols[name] = kind
    return symbols


def differences(function_names, symbols):
    out = []
    for name in function_names:
        if name not in symbols:
            out.append("%s is in the spec but libkiln.so does not export it" % name)
        elif symbols[name] not in ("T", "W", "i"):
            out.append("%s is exported as a '%s' symbol, not a function" % (name, symbols[name]))
    for name in sorted(symbols):
        if name not in function_names:
            out.append("libkiln.so exports %s ('%s'), which the spec does not list"
                       % (name, symbols[name]))
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("library")
    parser.add_argument("--nm", default="nm")
    args = parser.parse_args(argv[1:])
    try:
        api = kspec.load()
        text = subprocess.run([args.nm, "-D", "--defined-only", args.library], check=True,
                              capture_output=True, text=True).stdout
    except (kspec.SpecError, OSError, subprocess.CalledProcessError) as err:
        print("error: %s" % err)
        return 1
    names = [fn["name"] for fn in api["functions"]]
    symbols = exported_symbols(text)
    found = differences(names, symbols)
    # The comparison itself must notice a missing and an extra symbol.
    probe = dict(symbols)
    probe.pop(names[0], None)
    probe["kiln_not_in_spec"] = "T"
    caught = differences(names, probe)
    if not any(names[0] in d for d in caught) or not any("kiln_not_in_spec" in d for d in caught):
        found.append("internal: the comparison missed a planted difference")
    for line in found:
        print("mismatch: " + line)
    if not found:
        print("%s exports exactly the %d functions of the spec" % (args.library, len(names)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
