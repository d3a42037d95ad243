'use strict';
// Device memory through the generated glue: addresses are BigInts (64 bits
// do not fit a Number). No device runs here (the engine's test double is
// linked into the C suites only, tests/test_device_io.c), so this checks
// the glue's marshalling and the refusals on a cpu session.

const test = require('node:test');
const assert = require('node:assert/strict');
const { kiln, DIGITS_MODEL } = require('./helpers.js');
const { native } = require('../lib/native.js');

const UNSUPPORTED = 5;
const INVALID_ARGUMENT = 1;

function isKilnError(code, pattern) {
  return (err) => {
    assert.ok(err instanceof kiln.KilnError, `expected a KilnError, got ${err}`);
    assert.equal(err.code, code, `code ${err.code}: ${err.message}`);
    if (pattern) assert.match(err.message, pattern);
    return true;
  };
}

test('device addresses are BigInts; a cpu session refuses device memory', () => {
  const rt = native.kiln_runtime_create(null);
  const model = native.kiln_model_load_file(rt, DIGITS_MODEL, null);
  const session = native.kiln_session_create(model, null);
  try {
    assert.throws(() => native.kiln_session_set_input_device(session, 'image', 1, [1, 1, 8, 8],
      0x10000n, 256), isKilnError(UNSUPPORTED,
      /input 'image': the session runs on cpu; set KILN_SOPT_DEVICE/));
    assert.throws(() => native.kiln_session_bind_output_device(session, 0, 0x10000n, 40),
      isKilnError(UNSUPPORTED, /output '.*': the session runs on cpu/));
    assert.throws(() => native.kiln_session_bind_output_device(session, 0, 65536, 40),
      isKilnError(INVALID_ARGUMENT, /must be a device address \(a BigInt\)/));
    assert.throws(() => native.kiln_session_device_stream(session),
      isKilnError(UNSUPPORTED, /the session runs on cpu/));
  } finally {
    native.kiln_session_destroy(session);
    native.kiln_model_destroy(model);
    native.kiln_runtime_destroy(rt);
  }
});
