#!/bin/bash
# Assembles the kiln-web npm package from the WebAssembly builds and packs
# it (npm pack): the JS API (wasm/js), the single-threaded engine and the
# threads engine, each with its relaxed-SIMD variant.
#
#   packaging/npm-web/pack.sh BUILD_WASM BUILD_WASM_MT OUTDIR
#
# BUILD_WASM and BUILD_WASM_MT are wasm/build.sh's two build folders.
# Writes OUTDIR/kiln-web-VERSION.tgz and leaves the unpacked package in
# OUTDIR/kiln-web.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
st=$1 mt=$2 out=$3

for f in "$st/kiln-core.mjs" "$st/kiln-core.wasm" "$mt/kiln-core-mt.mjs" "$mt/kiln-core-mt.wasm" \
         "$mt/kiln-core-mt.worker.js"; do
  [[ -f $f ]] || { echo "pack.sh: $f is missing: run wasm/build.sh first" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$out/kiln-web
rm -rf "$stage"
mkdir -p "$stage"
cp "$here/package.json" "$here/README.md" "$stage/"
cp "$src"/wasm/js/*.mjs "$src"/wasm/js/*.d.ts "$stage/"
cp "$st/kiln-core.mjs" "$st/kiln-core.wasm" "$stage/"
cp "$mt/kiln-core-mt.mjs" "$mt/kiln-core-mt.wasm" "$mt/kiln-core-mt.worker.js" "$stage/"
# The relaxed-SIMD engines, where built (KILN_WASM_RELAXED_SIMD): kiln.mjs
# loads one where the browser runs Relaxed SIMD, else the plain one.
for f in "$st/kiln-core-relaxed.mjs" "$st/kiln-core-relaxed.wasm" \
         "$mt/kiln-core-mt-relaxed.mjs" "$mt/kiln-core-mt-relaxed.wasm"; do
  if [[ -f $f ]]; then cp "$f" "$stage/"; else echo "pack.sh: note: no $f (built without relaxed SIMD)"; fi
done
(cd "$stage" && npm pack --pack-destination "$out" --ignore-scripts --loglevel=warn)
ls -l "$out"/kiln-web-*.tgz
