'use strict';
// npm's prepack hook. A plain `npm pack` in bindings/node would otherwise
// succeed without the native module, and the installed package would then
// fail at require time. pack.sh stages the built module first (and packs with
// --ignore-scripts, so this check never runs there).
const fs = require('fs');
const path = require('path');

const nativeDir = path.join(__dirname, '..', 'native');
const missing = ['kiln_node.node', 'libkiln.so.0']
  .filter((name) => !fs.existsSync(path.join(nativeDir, name)));
if (missing.length > 0) {
  console.error(
    `kiln-runtime: cannot pack without the native module (missing native/${missing.join(', native/')}).\n` +
    'Build it and pack with the script that adds it:\n' +
    '  cmake -S . -B build && cmake --build build --target kiln_node\n' +
    '  bindings/node/pack.sh build/bindings/node/native .');
  process.exit(1);
}
