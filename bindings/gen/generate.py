"""Writes the bindings' generated files from capi/kiln_api.json.

    generate.py            write every emitter's files (only those that changed)
    generate.py --check    write nothing; exit 1 listing stale or missing files
    generate.py --list     print each emitter and the paths it owns

Every bindings/gen/emit_*.py module is imported in name order; each exposes
outputs(spec) -> {path relative to the repository root: full file text}.
The paths must stay inside the repository, and no two emitters may claim the
same path. See README.md.
"""
import argparse
import glob
import importlib.util
import os
import sys

GEN_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, GEN_DIR)
import spec as kspec  # noqa: E402


class GenerateError(Exception):
    pass


def load_emitters(gen_dir=GEN_DIR):
    """[(name, module)] for every emit_*.py, sorted by file name."""
    emitters = []
    for path in sorted(glob.glob(os.path.join(gen_dir, "emit_*.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        module_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(module_spec)
        try:
            module_spec.loader.exec_module(module)
        except Exception as err:  # an emitter's own bug: name it
            raise GenerateError("%s: import failed: %s: %s" % (name, type(err).__name__, err))
        if not callable(getattr(module, "outputs", None)):
            raise GenerateError("%s has no outputs(spec) function" % name)
        emitters.append((name, module))
    return emitters


def _check_path(emitter, path):
    if not isinstance(path, str) or not path or os.path.isabs(path) or "\\" in path:
        raise GenerateError("%s: bad output path %r (want a relative path)" % (emitter, path))
    norm = os.path.normpath(path)
    if norm != path or norm.startswith(".."):
        raise GenerateError("%s: output path %r is not a normalized path inside the "
                            "repository" % (emitter, path))


def collect(api, emitters):
    """{path: (emitter, text)} from every emitter, checked."""
    files = {}
    for name, module in emitters:
        try:
            produced = module.outputs(api)
        except Exception as err:
            raise GenerateError("%s: outputs() failed: %s: %s" % (name, type(err).__name__, err))
        if not isinstance(produced, dict):
            raise GenerateError("%s: outputs() must return a dict" % name)
        for path, text in produced.items():
            _check_path(name, path)
            if not isinstance(text, str):
                raise GenerateError("%s: text for %s is not a string" % (name, path))
            if path in files:
                raise GenerateError("%s and %s both write %s" % (files[path][0], name, path))
            files[path] = (name, text)
    return files


def _read(path):
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def main(argv):
    parser = argparse.ArgumentParser(description="Generate the bindings' glue from the API spec.")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="fail if any file is stale")
    mode.add_argument("--list", action="store_true", help="list emitters and their files")
    parser.add_argument("--root", default=kspec.REPO_ROOT,
                        help="repository root to write into or check (default: this checkout)")
    args = parser.parse_args(argv[1:])
    try:
        api = kspec.load()
        emitters = load_emitters()
        files = collect(api, emitters)
    except (kspec.SpecError, GenerateError, OSError) as err:
        print("generate.py: %s" % err)
        return 1
    if args.list:
        for name, _ in emitters:
            print(name)
            for path in sorted(p for p, (owner, _) in files.items() if owner == name):
                print("  " + path)
        return 0
    stale = []
    for path in sorted(files):
        owner, text = files[path]
        target = os.path.join(args.root, path)
        current = _read(target)
        if current == text:
            continue
        if args.check:
            stale.append("%s (%s, by %s)" % (path, "missing" if current is None else "stale", owner))
            continue
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        with open(target, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        print("wrote %s" % path)
    if stale:
        print("generated files differ from what %s produce now:"
              % ", ".join(name for name, _ in emitters))
        for line in stale:
            print("  " + line)
        print("run: /usr/bin/python3 bindings/gen/generate.py")
        return 1
    if args.check:
        print("%d generated files from %d emitters are current" % (len(files), len(emitters)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
