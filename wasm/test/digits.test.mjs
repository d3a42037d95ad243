// The digits model (examples/digits) classifies its 20 held-out samples,
// one at a time and as one batch; model metadata reads back.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { kiln, sourceDir, argmax, digitSamples } from './support.mjs';

const modelPath = path.join(sourceDir, 'examples/digits/digits.onnx');

test('init reports a single-threaded engine', async () => {
  await kiln.init();
  assert.equal(kiln.env.initialized, true);
  assert.equal(kiln.env.build, 'single');
  assert.equal(kiln.env.threads, 1);
  assert.equal(kiln.env.threadsFallback, false);
  assert.match(kiln.version(), /^\d+\.\d+\.\d+$/);
});

test('model inputs and outputs', async () => {
  const model = await kiln.Model.load(modelPath);
  assert.deepEqual(model.inputs, [{ name: 'image', type: 'float32', dims: [null, 1, 8, 8] }]);
  assert.deepEqual(model.outputs, [{ name: 'logits', type: 'float32', dims: [null, 10] }]);
  model.dispose();
  model.dispose(); // twice is harmless
});

test('every sample is classified correctly, one by one', async () => {
  const model = await kiln.Model.load(fs.readFileSync(modelPath)); // from bytes
  const session = model.createSession();
  const samples = digitSamples();
  assert.equal(samples.length, 20);
  let right = 0;
  for (const { file, label } of samples) {
    const image = kiln.decodeTensor(fs.readFileSync(file));
    assert.equal(image.name, 'image');
    assert.deepEqual(image.dims, [1, 1, 8, 8]);
    const { logits } = await session.run({ image });
    assert.deepEqual(logits.dims, [1, 10]);
    assert.ok(logits.data instanceof Float32Array);
    if (argmax(logits.data) === label) right++;
  }
  console.log(`digits: ${right}/${samples.length} right`);
  assert.equal(right, samples.length);
  session.dispose();
  model.dispose();
});

test('one batch of 20 gives the same logits as single runs', async () => {
  const model = await kiln.Model.load(new URL(`file://${modelPath}`));
  const session = model.createSession();
  const samples = digitSamples();
  const batch = new Float32Array(20 * 64);
  const single = [];
  for (const [i, { file }] of samples.entries()) {
    const image = kiln.decodeTensor(fs.readFileSync(file));
    batch.set(image.data, i * 64);
    single.push((await session.run({ image })).logits.data);
  }
  const { logits } = await session.run({ image: { type: 'float32', dims: [20, 1, 8, 8], data: batch } });
  assert.deepEqual(logits.dims, [20, 10]);
  for (let i = 0; i < 20; i++) {
    assert.equal(argmax(logits.data.subarray(10 * i, 10 * i + 10)), samples[i].label);
    for (let k = 0; k < 10; k++)
      assert.ok(Math.abs(logits.data[10 * i + k] - single[i][k]) <= 1e-5 * Math.max(1, Math.abs(single[i][k])));
  }
  model.dispose();
});

test('tensors encode and decode through TensorProto bytes', async () => {
  await kiln.init();
  const t = { type: 'int64', dims: [2, 2], data: new BigInt64Array([1n, -2n, 3n, 1n << 40n]) };
  const back = kiln.decodeTensor(kiln.encodeTensor(t, 'x'));
  assert.equal(back.name, 'x');
  assert.equal(back.type, 'int64');
  assert.deepEqual(back.dims, [2, 2]);
  assert.deepEqual([...back.data], [1n, -2n, 3n, 1n << 40n]);
});
