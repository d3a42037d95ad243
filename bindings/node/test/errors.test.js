'use strict';
// Bad input gives a KilnError carrying the C status code, its name and the
// library's message; never a crash.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { kiln, SOURCE_DIR, DIGITS_MODEL, digitSamples, tempDir } = require('./helpers.js');

const { KilnError } = kiln;
const CODES = { INVALID_ARGUMENT: 1, IO: 3, INVALID_MODEL: 4, UNSUPPORTED: 5, SHAPE: 6, DTYPE: 7,
  NOT_FOUND: 8, STATE: 9, BUFFER_TOO_SMALL: 12 };

function isKilnError(code, pattern) {
  return (err) => {
    assert.ok(err instanceof KilnError, `expected a KilnError, got ${err}`);
    assert.ok(err instanceof Error);
    assert.equal(err.code, code, `code ${err.code} (${err.status}): ${err.message}`);
    assert.equal(typeof err.status, 'string');
    assert.ok(err.status.length > 0);
    if (pattern) assert.match(err.message, pattern);
    return true;
  };
}

test('a missing model file is an IO error', async () => {
  await assert.rejects(kiln.Model.load('/nonexistent/model.onnx'), isKilnError(CODES.IO));
});

test('a corrupt model is INVALID_MODEL, from a file and from bytes', async () => {
  const dir = tempDir('kiln-node-bad-');
  const bad = path.join(dir, 'bad.onnx');
  const good = fs.readFileSync(DIGITS_MODEL);
  fs.writeFileSync(bad, good.subarray(0, good.length >> 1)); // truncated
  await assert.rejects(kiln.Model.load(bad), isKilnError(CODES.INVALID_MODEL));
  await assert.rejects(kiln.Model.load(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0x0f, 1, 2])),
    isKilnError(CODES.INVALID_MODEL));
  fs.rmSync(dir, { recursive: true });
});

test('an unsupported op fails the load naming the op', async () => {
  const model = path.join(SOURCE_DIR, 'tests', 'data', 'models', 'unsupported_op.onnx');
  await assert.rejects(kiln.Model.load(model), isKilnError(CODES.UNSUPPORTED));
});

test('a bad source or option is INVALID_ARGUMENT', async () => {
  await assert.rejects(kiln.Model.load(42), isKilnError(CODES.INVALID_ARGUMENT));
  await assert.rejects(kiln.Model.load(DIGITS_MODEL, { threads: 0 }),
    isKilnError(CODES.INVALID_ARGUMENT));
  await assert.rejects(kiln.Model.load(DIGITS_MODEL, { optimize: 7 }),
    isKilnError(CODES.INVALID_ARGUMENT));
});

test('feeds: wrong dtype, wrong shape, unknown and missing inputs', async () => {
  const model = await kiln.Model.load(DIGITS_MODEL);
  const session = model.createSession();
  const image = digitSamples()[0].tensor;
  // Wrong element type for the model (C checks it).
  await assert.rejects(session.run({ image: { type: 'float64', dims: [1, 1, 8, 8],
    data: new Float64Array(64) } }), isKilnError(CODES.DTYPE));
  // A type that does not match its data (checked in JS).
  await assert.rejects(session.run({ image: { type: 'float32', dims: [1, 1, 8, 8],
    data: new Int32Array(64) } }), isKilnError(CODES.DTYPE, /Float32Array/));
  // Wrong static dim.
  await assert.rejects(session.run({ image: { type: 'float32', dims: [1, 1, 8, 9],
    data: new Float32Array(72) } }), isKilnError(CODES.SHAPE));
  // Data size that does not match the dims.
  await assert.rejects(session.run({ image: { type: 'float32', dims: [1, 1, 8, 8],
    data: new Float32Array(63) } }), (err) => err instanceof KilnError &&
      [CODES.INVALID_ARGUMENT, CODES.SHAPE].includes(err.code));
  // Unknown input name.
  await assert.rejects(session.run({ image, nope: image }), isKilnError(CODES.NOT_FOUND, /nope/));
  // Missing input.
  await assert.rejects(session.run({}), isKilnError(CODES.INVALID_ARGUMENT, /image/));
  // Unknown type name.
  await assert.rejects(session.run({ image: { ...image, type: 'float33' } }),
    isKilnError(CODES.INVALID_ARGUMENT));
  // After all that the session still runs.
  const out = await session.run({ image });
  assert.deepEqual(out.logits.dims, [1, 10]);
  model.dispose();
});

// The texts of the mistakes users commonly make: the C library's words
// (tests/test_error_texts.c), with JavaScript's dtype names.
test('error texts name the file, the input, the dtype and the element count', async () => {
  const dir = tempDir('kiln-node-texts-');
  const missing = path.join(dir, 'nope.onnx');
  await assert.rejects(kiln.Model.load(missing), isKilnError(CODES.IO,
    exactly(`cannot open '${missing}': No such file or directory`)));
  const notes = path.join(dir, 'notes.txt');
  fs.writeFileSync(notes, 'this is not an ONNX model\n');
  await assert.rejects(kiln.Model.load(notes), isKilnError(CODES.INVALID_MODEL,
    startsWith(`'${notes}' is not a valid ONNX model: `)));
  const good = fs.readFileSync(DIGITS_MODEL);
  const half = path.join(dir, 'half.onnx');
  fs.writeFileSync(half, good.subarray(0, good.length >> 1));
  await assert.rejects(kiln.Model.load(half), isKilnError(CODES.INVALID_MODEL,
    startsWith(`'${half}' is not a valid ONNX model: `)));
  await assert.rejects(kiln.Model.load(good.subarray(0, good.length >> 1)),
    isKilnError(CODES.INVALID_MODEL, startsWith('the model bytes are not a valid ONNX model: ')));
  const sample = digitSamples()[0].file;
  await assert.rejects(kiln.Model.load(sample), isKilnError(CODES.INVALID_MODEL,
    exactly(`'${sample}' is an ONNX tensor file, not a model`)));
  const unsupported = path.join(SOURCE_DIR, 'tests', 'data', 'models', 'unsupported_op.onnx');
  await assert.rejects(kiln.Model.load(unsupported), isKilnError(CODES.UNSUPPORTED,
    /^unsupported op \w+ \(domain '[\w.]*', opset \d+\) at node '/));
  fs.rmSync(dir, { recursive: true });

  const model = await kiln.Model.load(DIGITS_MODEL);
  const session = model.createSession();
  const image = digitSamples()[0].tensor;
  await assert.rejects(session.run({ imgae: image }), isKilnError(CODES.NOT_FOUND,
    exactly("Session.run: unknown input 'imgae'; the model's inputs are: 'image'")));
  await assert.rejects(session.run({}), isKilnError(CODES.INVALID_ARGUMENT,
    exactly("Session.run: input 'image' (float32, shape ?x1x8x8) is missing from the feeds")));
  await assert.rejects(session.run({ image: { type: 'float64', dims: [1, 1, 8, 8],
    data: new Float64Array(64) } }), isKilnError(CODES.DTYPE,
    exactly("input 'image' expects float32, got float64")));
  await assert.rejects(session.run({ image: { type: 'float32', dims: [1, 1, 8, 8],
    data: new Float32Array(10) } }), isKilnError(CODES.INVALID_ARGUMENT,
    exactly("input 'image': 10 float32 elements given, the shape 1x1x8x8 needs 64")));
  await assert.rejects(session.run({ image: { type: 'float32', dims: [1, 1, 8, 9],
    data: new Float32Array(72) } }), isKilnError(CODES.SHAPE,
    exactly("input 'image' expects shape ?x1x8x8, got 1x1x8x9 (dim 3 must be 8)")));
  await assert.rejects(session.run({ image: { type: 'float32', dims: [8, 8],
    data: new Float32Array(64) } }), isKilnError(CODES.SHAPE,
    exactly("input 'image' expects shape ?x1x8x8 (rank 4), got 8x8 (rank 2)")));
  model.dispose();
});

function exactly(text) {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
}

function startsWith(text) {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.`);
}

test('disposed sessions and models refuse work; dispose twice is fine', async () => {
  const model = await kiln.Model.load(DIGITS_MODEL);
  const session = model.createSession();
  const image = digitSamples()[0].tensor;
  session.dispose();
  session.dispose();
  await assert.rejects(session.run({ image }), isKilnError(CODES.STATE));
  const other = model.createSession();
  model.dispose(); // disposes `other` too, as in the WebAssembly module
  model.dispose();
  await assert.rejects(other.run({ image }), isKilnError(CODES.STATE));
  assert.throws(() => model.createSession(), isKilnError(CODES.STATE));
});

test('dispose while a run is in flight: the run finishes, queued runs reject', async () => {
  const model = await kiln.Model.load(DIGITS_MODEL);
  const session = model.createSession();
  const image = digitSamples()[0].tensor;
  const first = session.run({ image });
  const queued = session.run({ image });
  session.dispose();
  const out = await first;
  assert.deepEqual(out.logits.dims, [1, 10]);
  await assert.rejects(queued, isKilnError(CODES.STATE));
  model.dispose();
});

test('the native glue refuses destroyed and foreign handles', async () => {
  const { native } = require('../lib/native.js');
  const options = native.kiln_options_create();
  native.kiln_options_destroy(options);
  assert.throws(() => native.kiln_options_set_int(options, 1, 2),
    isKilnError(CODES.INVALID_ARGUMENT, /already destroyed/));
  assert.throws(() => native.kiln_options_set_int({}, 1, 2),
    isKilnError(CODES.INVALID_ARGUMENT, /kiln_options handle/));
  const runtime = native.kiln_runtime_create(null);
  assert.throws(() => native.kiln_options_set_int(runtime, 1, 2),
    isKilnError(CODES.INVALID_ARGUMENT, /not a kiln_runtime/));
  assert.throws(() => native.kiln_options_set_int(null, 1, 2), isKilnError(CODES.INVALID_ARGUMENT));
  native.kiln_runtime_destroy(runtime);
  // Errors from the async variants reject with a KilnError read on the worker thread.
  await assert.rejects(native.kiln_model_load_file_async(null, DIGITS_MODEL, null),
    isKilnError(CODES.INVALID_ARGUMENT));
  assert.throws(() => native.kiln_status_name('x'), isKilnError(CODES.INVALID_ARGUMENT, /integer/));
});

test('the ABI check names both versions', () => {
  const { checkAbi } = require('../lib/native.js');
  assert.doesNotThrow(() => checkAbi(1, 1));
  assert.throws(() => checkAbi(2, 1), (err) => err instanceof KilnError &&
    /ABI version 2/.test(err.message) && /ABI version 1/.test(err.message));
});
