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

test('planCache keeps each batch size; releaseMemory gives them back', async () => {
  const model = await kiln.Model.load(modelPath);
  const session = model.createSession({ planCache: 4 });
  const images = digitSamples().slice(0, 3).map(({ file }) => kiln.decodeTensor(fs.readFileSync(file)));
  const three = new Float32Array(3 * 64);
  images.forEach((t, i) => three.set(t.data, i * 64));
  const feeds = [{ image: images[0] }, { image: { type: 'float32', dims: [3, 1, 8, 8], data: three } }];
  const first = [];
  for (const i of [0, 1, 0, 1]) {
    const { logits } = await session.run(feeds[i]);
    if (first.length < 2) first.push(logits);
    else assert.deepEqual(logits, first[i], `batch ${i}: a kept plan gives other logits`);
  }
  assert.deepEqual(first.map((l) => l.dims), [[1, 10], [3, 10]]);
  const info = session.cacheInfo();
  assert.equal(info.plansKept, 2, JSON.stringify(info));
  assert.equal(info.plansBuilt, 2, JSON.stringify(info));
  assert.equal(typeof info.arenaBytes, 'number');
  assert.ok(info.arenaBytes > 0, JSON.stringify(info));

  session.releaseMemory();
  const released = session.cacheInfo();
  assert.equal(released.plansKept, 0, JSON.stringify(released));
  assert.equal(released.arenaBytes, 0, JSON.stringify(released));
  assert.equal(released.plansBuilt, 2, JSON.stringify(released));
  // The inputs stay bound: a run without feeds plans again for the batch of 3.
  assert.deepEqual((await session.run({})).logits, first[1]);
  assert.deepEqual(session.runSync(feeds[0]).logits, first[0]);
  const again = session.cacheInfo();
  assert.equal(again.plansKept, 2, JSON.stringify(again));
  assert.equal(again.plansBuilt, 4, JSON.stringify(again));
  assert.ok(again.arenaBytes > 0);

  for (const bad of [0, 1025, 2.5, '4', -1]) {
    assert.throws(() => model.createSession({ planCache: bad }),
      (e) => e instanceof kiln.KilnError && e.code === 1 &&
        /planCache must be an integer from 1 to 1024/.test(e.message), `planCache ${bad}`);
  }
  assert.equal(model.createSession({ planCache: 1024 }).cacheInfo().plansKept, 0);

  // digits' initializers: 15,272 bytes of float32.
  const mem = model.memoryInfo();
  assert.ok(mem.weightBytes > 10 * 256 * 4, JSON.stringify(mem));
  assert.ok(mem.sharedPreparedBytes >= 0, JSON.stringify(mem));
  assert.ok(mem.givenBackBytes >= 0, JSON.stringify(mem));
  console.log(`digits: cacheInfo ${JSON.stringify(info)}, memoryInfo ${JSON.stringify(mem)}`);
  session.dispose();
  assert.throws(() => session.cacheInfo(), (e) => e.code === 9 && /disposed/.test(e.message));
  model.dispose();
  assert.throws(() => model.memoryInfo(), (e) => e.code === 9 && /disposed/.test(e.message));
});
