#!/bin/sh
# build_wheel.sh BUILD_DIR OUT_DIR: builds a kiln wheel that bundles
# BUILD_DIR's libkiln.so (installable with `pip install --no-index WHEEL`),
# offline: pip wheel --no-deps --no-build-isolation --no-index, with the
# setuptools and wheel of $PYTHON (default /usr/bin/python3 when it exists,
# else python3). The source tree is copied to a temporary folder first, so
# nothing is written into it. Prints the wheel's path last.
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUT_DIR" >&2
  exit 2
fi
build=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${PYTHON:-}" ]; then
  if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
fi
lib=
for name in libkiln.so libkiln.so.0; do
  if [ -e "$build/$name" ]; then lib=$build/$name; break; fi
done
if [ -z "$lib" ]; then
  echo "build_wheel.sh: no libkiln.so in $build (build the 'kiln' target first)" >&2
  exit 1
fi
stage=$(mktemp -d "${TMPDIR:-/tmp}/kiln-wheel.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/src/kiln" "$out"
cp "$here/pyproject.toml" "$here/setup.py" "$here/README.md" "$stage/src/"
cp "$here"/kiln/*.py "$here/kiln/py.typed" "$stage/src/kiln/"
cp -L "$lib" "$stage/src/kiln/libkiln.so"
out_abs=$(cd "$out" && pwd)
"$PYTHON" -m pip wheel --no-deps --no-build-isolation --no-index --disable-pip-version-check \
  -q -w "$stage/dist" "$stage/src"
wheel=$(ls "$stage"/dist/kiln-*.whl)
cp "$wheel" "$out_abs/"
echo "$out_abs/$(basename "$wheel")"
