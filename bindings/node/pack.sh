#!/bin/sh
# pack.sh NATIVE_DIR [OUT_DIR]
#
# Builds the npm tarball kiln-runtime-VERSION.tgz in OUT_DIR (default: the
# current folder) and prints its path. NATIVE_DIR is the build's native/
# folder (BUILD/bindings/node/native) holding kiln_node.node and
# libkiln.so.0; the module finds the library next to itself (rpath
# $ORIGIN), so the package installs and runs offline, with no compiler and
# no download. libkiln's own system dependencies (libc, libm, and oneDNN's
# libdnnl/libgomp when it was built with oneDNN) must be on the target.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
native=${1:?usage: pack.sh NATIVE_DIR [OUT_DIR]}
out=${2:-$PWD}
for f in kiln_node.node libkiln.so.0; do
  if [ ! -f "$native/$f" ]; then
    echo "pack.sh: $native/$f is missing; build the kiln_node target first" >&2
    exit 1
  fi
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
cache=$(mktemp -d)
trap 'rm -rf "$stage" "$cache"' EXIT
mkdir -p "$stage/lib" "$stage/native"
cp "$here/package.json" "$here/index.d.ts" "$here/README.md" "$stage/"
cp "$here"/lib/*.js "$here"/lib/*.mjs "$stage/lib/"
cp "$native/kiln_node.node" "$native/libkiln.so.0" "$stage/native/"
name=$(cd "$stage" && npm pack --offline --ignore-scripts --silent --cache "$cache" \
  --pack-destination "$out")
echo "$out/$name"
