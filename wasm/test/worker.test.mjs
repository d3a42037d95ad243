// createWorkerSession: the digits model in a worker (a Node worker thread
// here, a Web Worker in browsers) answers with the same results as a
// session on this thread, and errors cross back as KilnError.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { kiln, sourceDir, argmax, digitSamples } from './support.mjs';

const modelPath = path.join(sourceDir, 'examples/digits/digits.onnx');

test('runs in a worker and matches this thread', async () => {
  await kiln.init();
  const remote = await kiln.createWorkerSession(modelPath);
  assert.equal(remote.inputs[0].name, 'image');
  assert.equal(remote.env.build, 'single');
  const model = await kiln.Model.load(modelPath);
  const local = model.createSession();
  // Several requests in flight at once come back in order, each to its caller.
  const samples = digitSamples().slice(0, 8);
  const images = samples.map(({ file }) => kiln.decodeTensor(fs.readFileSync(file)));
  const results = await Promise.all(images.map((image) => remote.run({ image })));
  for (const [i, { logits }] of results.entries()) {
    assert.equal(argmax(logits.data), samples[i].label);
    const want = (await local.run({ image: images[i] })).logits.data;
    assert.deepEqual(Array.from(logits.data), Array.from(want));
  }
  await assert.rejects(remote.run({ image: { type: 'float32', dims: [1, 1, 2, 2], data: new Float32Array(4) } }),
    (e) => e instanceof kiln.KilnError && e.code === 6 && e.status === 'shape mismatch');
  await remote.dispose();
  await assert.rejects(remote.run({ image: images[0] }), /disposed/);
  model.dispose();
});

test('a model that fails to load rejects and stops the worker', async () => {
  await assert.rejects(kiln.createWorkerSession(new Uint8Array([1, 2, 3])),
    (e) => e instanceof kiln.KilnError && e.code === 4);
});
