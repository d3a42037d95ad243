'use strict';
// Loads the native module (kiln_node.node, next to libkiln.so.0 in native/)
// and checks that the library speaks the ABI the glue was generated for.

const path = require('node:path');
const constants = require('./constants_gen.js');
const { KilnError } = require('./errors.js');

// KILN_NODE_ADDON points at a build tree's module (tests, development).
const addonPath = process.env.KILN_NODE_ADDON ||
  path.join(__dirname, '..', 'native', 'kiln_node.node');

// Throws unless the library's ABI version is the one the glue was generated
// for; the message says what to do about it.
function checkAbi(libraryVersion, bindingVersion) {
  if (libraryVersion !== bindingVersion) {
    throw new KilnError(
      `kiln-runtime: the Kiln library has ABI version ${libraryVersion} but this binding was ` +
      `generated for ABI version ${bindingVersion}; use a libkiln and a kiln-runtime package ` +
      `from the same release (native module: ${addonPath})`,
      constants.STATUS.UNSUPPORTED, 'unsupported');
  }
}

let native;
try {
  native = require(addonPath);
} catch (err) {
  throw new Error(`kiln-runtime: cannot load the native module ${addonPath}: ${err.message}`);
}
checkAbi(native._spec_abi_version, constants.ABI_VERSION);
checkAbi(native.kiln_abi_version(), constants.ABI_VERSION);
native._set_error_class(KilnError);

module.exports = { native, addonPath, checkAbi };
