// Errors from the engine arrive as KilnError with the C status code, its
// name and the engine's message; misuse of the JS API is refused clearly.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kiln, sourceDir } from './support.mjs';

const modelPath = path.join(sourceDir, 'examples/digits/digits.onnx');
const image = (dims = [1, 1, 8, 8]) => ({ type: 'float32', dims, data: new Float32Array(dims.reduce((a, b) => a * b, 1)) });

function rejectsWith(code, status, pattern) {
  return (e) => {
    assert.ok(e instanceof kiln.KilnError, `not a KilnError: ${e}`);
    assert.ok(e instanceof Error);
    assert.equal(e.code, code, e.message);
    assert.equal(e.status, status);
    assert.match(e.message, pattern);
    return true;
  };
}

test('calls before init() fail with a clear message', () => {
  assert.throws(() => kiln.imageToTensor(new Uint8Array(4), { width: 1, height: 1, outWidth: 1, outHeight: 1 }),
    rejectsWith(9, 'wrong call order', /init\(\)/));
  assert.throws(() => kiln.decodeTensor(new Uint8Array(1)), rejectsWith(9, 'wrong call order', /init\(\)/));
});

test('corrupt and missing models', async () => {
  await kiln.init();
  await assert.rejects(kiln.Model.load(new Uint8Array([8, 7, 0xff, 0xff, 0xff])), rejectsWith(4, 'invalid model', /./));
  await assert.rejects(kiln.Model.load('/nonexistent/model.onnx'), rejectsWith(3, 'i/o error', /nonexistent\/model.onnx/));
  await assert.rejects(kiln.Model.load(42), rejectsWith(1, 'invalid argument', /source/));
});

test('bad feeds', async () => {
  const model = await kiln.Model.load(modelPath);
  const session = model.createSession();
  await assert.rejects(session.run({ image: image([1, 1, 7, 8]) }), rejectsWith(6, 'shape mismatch', /image/));
  await assert.rejects(session.run({ image: { type: 'int32', dims: [1, 1, 8, 8], data: new Int32Array(64) } }),
    rejectsWith(7, 'dtype mismatch', /image/));
  await assert.rejects(session.run({ nosuch: image() }), rejectsWith(8, 'not found', /nosuch/));
  await assert.rejects(session.run({ image: { type: 'complex', dims: [1], data: new Float32Array(1) } }),
    rejectsWith(1, 'invalid argument', /unknown tensor type/));
  await assert.rejects(session.run({ image: { dims: [1, 1, 8, 8], data: new Float32Array(63) } }),
    rejectsWith(1, 'invalid argument', /./));
  await assert.rejects(session.run(null), rejectsWith(1, 'invalid argument', /feeds/));
  await assert.rejects(session.run({ image: { type: 'float32', dims: [1, 1, 8, 8.5], data: new Float32Array(68) } }),
    rejectsWith(1, 'invalid argument', /dims/));
  model.dispose();
});

test('running before every input is bound', async () => {
  const model = await kiln.Model.load(modelPath);
  const session = model.createSession();
  await assert.rejects(session.run({}), rejectsWith(1, 'invalid argument',
    exactly("Session.run: input 'image' (float32, shape ?x1x8x8) is missing from the feeds")));
  // A good run afterwards still works.
  const out = await session.run({ image: image() });
  assert.deepEqual(out.logits.dims, [1, 10]);
  model.dispose();
});

test('disposed sessions and models', async () => {
  const model = await kiln.Model.load(modelPath);
  const session = model.createSession();
  model.dispose(); // disposes the session too
  await assert.rejects(session.run({ image: image() }), rejectsWith(9, 'wrong call order', /disposed/));
  assert.throws(() => model.createSession(), rejectsWith(9, 'wrong call order', /disposed/));
});

test('imageToTensor argument errors', async () => {
  await kiln.init();
  const px = new Uint8Array(2 * 2 * 3);
  const base = { width: 2, height: 2, channels: 3, outWidth: 2, outHeight: 2, outChannels: 3 };
  assert.throws(() => kiln.imageToTensor(px, { ...base, channels: 2 }), rejectsWith(1, 'invalid argument', /channels is 2/));
  assert.throws(() => kiln.imageToTensor(px, { ...base, outChannels: 4 }), rejectsWith(1, 'invalid argument', /out_channels is 4/));
  assert.throws(() => kiln.imageToTensor(px, { ...base, std: [1, 0, 1] }), rejectsWith(1, 'invalid argument', /std\[1\] is 0/));
  assert.throws(() => kiln.imageToTensor(px, { ...base, mean: [0, 0] }), rejectsWith(1, 'invalid argument', /mean needs 3/));
  assert.throws(() => kiln.imageToTensor(px.subarray(1), base), rejectsWith(1, 'invalid argument', /too few/));
  assert.throws(() => kiln.imageToTensor(new Float32Array(12), base), rejectsWith(1, 'invalid argument', /Uint8Array/));
  assert.throws(() => kiln.imageToTensor(px, { ...base, outWidth: 0 }), rejectsWith(1, 'invalid argument', /outWidth/));
});

// The texts of the mistakes users commonly make: the C library's words
// (tests/test_error_texts.c) and the Node binding's.
test('error texts name the file, the input, the dtype and the element count', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiln-wasm-texts-'));
  const missing = path.join(dir, 'nope.onnx');
  await assert.rejects(kiln.Model.load(missing), rejectsWith(3, 'i/o error',
    exactly(`cannot open '${missing}': No such file or directory`)));
  const notes = path.join(dir, 'notes.txt');
  fs.writeFileSync(notes, 'this is not an ONNX model\n');
  await assert.rejects(kiln.Model.load(notes), rejectsWith(4, 'invalid model',
    startsWith(`'${notes}' is not a valid ONNX model: `)));
  const good = fs.readFileSync(modelPath);
  await assert.rejects(kiln.Model.load(good.subarray(0, good.length >> 1)),
    rejectsWith(4, 'invalid model', startsWith('the model bytes are not a valid ONNX model: ')));
  const sample = path.join(sourceDir, 'examples/digits/samples/digit_12_label_2.pb');
  await assert.rejects(kiln.Model.load(sample), rejectsWith(4, 'invalid model',
    exactly(`'${sample}' is an ONNX tensor file, not a model`)));
  await assert.rejects(kiln.Model.load(fs.readFileSync(sample)), rejectsWith(4, 'invalid model',
    exactly('the model bytes are an ONNX tensor, not a model')));
  const unsupported = path.join(sourceDir, 'tests/data/models/unsupported_op.onnx');
  await assert.rejects(kiln.Model.load(unsupported), rejectsWith(5, 'unsupported',
    /^unsupported op \w+ \(domain '[\w.]*', opset \d+\) at node '/));
  fs.rmSync(dir, { recursive: true });

  const model = await kiln.Model.load(modelPath);
  const session = model.createSession();
  await assert.rejects(session.run({ imgae: image() }), rejectsWith(8, 'not found',
    exactly("Session.run: unknown input 'imgae'; the model's inputs are: 'image'")));
  await assert.rejects(session.run({ image: { type: 'float64', dims: [1, 1, 8, 8], data: new Float64Array(64) } }),
    rejectsWith(7, 'dtype mismatch', exactly("input 'image' expects float32, got float64")));
  await assert.rejects(session.run({ image: { type: 'float32', dims: [1, 1, 8, 8], data: new Float32Array(10) } }),
    rejectsWith(1, 'invalid argument', exactly("input 'image': 10 float32 elements given, the shape 1x1x8x8 needs 64")));
  await assert.rejects(session.run({ image: image([1, 1, 8, 9]) }), rejectsWith(6, 'shape mismatch',
    exactly("input 'image' expects shape ?x1x8x8, got 1x1x8x9 (dim 3 must be 8)")));
  await assert.rejects(session.run({ image: image([8, 8]) }), rejectsWith(6, 'shape mismatch',
    exactly("input 'image' expects shape ?x1x8x8 (rank 4), got 8x8 (rank 2)")));
  model.dispose();
});

function exactly(text) {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
}

function startsWith(text) {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.`);
}
