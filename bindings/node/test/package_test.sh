#!/bin/sh
# package_test.sh WORK_DIR: packs kiln-runtime with pack.sh, installs the
# tarball into an empty folder with `npm install --offline`, and classifies a
# digit from there (ES module and CommonJS entries, outside the build tree).
# Skips (77) without node or npm; ctest passes KILN_NODE_ADDON and friends.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=${1:?usage: package_test.sh WORK_DIR}
node=${KILN_NODE_EXE:-node}
npm=${KILN_NPM_EXE:-npm}
for tool in "$node" "$npm"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: $tool is not installed (Debian packages nodejs and npm)"
    exit 77
  fi
done
if [ ! -f "${KILN_NODE_INCLUDE:-/usr/include/node}/node_api.h" ]; then
  echo "SKIP: Node-API headers (/usr/include/node/node_api.h) are missing"
  exit 77
fi
if [ ! -f "${KILN_NODE_ADDON:-}" ]; then
  echo "FAIL: the native module was not built (KILN_NODE_ADDON=${KILN_NODE_ADDON:-unset})"
  exit 1
fi
src=${KILN_SOURCE_DIR:-$here/../../..}
rm -rf "$work"
mkdir -p "$work/app"
tarball=$(sh "$here/../pack.sh" "$(dirname "$KILN_NODE_ADDON")" "$work")
echo "packed: $tarball ($(wc -c < "$tarball") bytes)"
tar -tzf "$tarball" | sort
cd "$work/app"
echo '{ "name": "kiln-package-check", "version": "1.0.0", "private": true }' > package.json
"$npm" install --offline --no-audit --no-fund --ignore-scripts --cache "$work/npm-cache" \
  "$tarball"
# From here on nothing points into the build tree.
unset KILN_NODE_ADDON LD_LIBRARY_PATH
cat > check.mjs <<JS
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { init, Model, decodeTensor, KilnError } from 'kiln-runtime';
const cjs = createRequire(import.meta.url)('kiln-runtime');
if (cjs.Model !== Model) throw new Error('CommonJS and ES module entries differ');
await init();
const model = await Model.load('$src/examples/digits/digits.onnx');
const session = model.createSession();
const image = decodeTensor(fs.readFileSync('$src/examples/digits/samples/digit_00_label_5.pb'));
const { logits } = await session.run({ image });
const predicted = logits.data.indexOf(Math.max(...logits.data));
console.log('installed kiln-runtime classifies digit_00_label_5.pb as', predicted);
if (predicted !== 5) process.exit(1);
try {
  await Model.load('/nonexistent.onnx');
  process.exit(1);
} catch (err) {
  if (!(err instanceof KilnError)) throw err;
}
model.dispose();
JS
"$node" check.mjs
test -f node_modules/kiln-runtime/index.d.ts
echo "node_package: OK"
