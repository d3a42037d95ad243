'use strict';
// kiln-runtime: ONNX inference in Node with Kiln. The same API as Kiln's
// WebAssembly module (wasm/js/kiln.mjs), so code moves between the two.

const { native } = require('./native.js');
const { STATUS } = require('./constants_gen.js');
const { KilnError, kilnError } = require('./errors.js');
const { Model } = require('./model.js');
const { Session } = require('./session.js');
const { DTYPES } = require('./tensor.js');
const { decodeTensor, encodeTensor } = require('./tensor_io.js');
const { imageToTensor, decodeImage } = require('./image.js');
const settings = require('./settings.js');

/** How the engine runs: filled in by init(). */
const env = {
  initialized: false,
  build: 'native',
  version: native.kiln_version(),
  threads: 1,
  requestedThreads: 1,
  threadsFallback: false,
  fallbackReason: '',
};

// Natively there is nothing to load (the web build fetches its .wasm here);
// options.threads becomes the default for Model.load.
async function init(options = {}) {
  if (options.threads !== undefined) {
    if (!Number.isInteger(options.threads) || options.threads < 1) {
      throw kilnError(STATUS.INVALID_ARGUMENT, 'init: threads must be an integer >= 1');
    }
    settings.threads = options.threads;
  }
  Object.assign(env, { initialized: true, threads: settings.threads,
    requestedThreads: settings.threads });
}

/** The engine's release version ("0.1.0"). */
function version() {
  return env.version;
}

module.exports = {
  init, env, version, Model, Session, KilnError, imageToTensor, decodeImage, decodeTensor,
  encodeTensor, DTYPES,
};
