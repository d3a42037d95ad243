'use strict';
// The digits model through Node equals the C API (kiln run) bit for bit on
// every bundled sample, and classifies them all right.

const test = require('node:test');
const assert = require('node:assert/strict');
const { kiln, DIGITS_MODEL, digitSamples, cliRun, firstBitDifference } = require('./helpers.js');

test('digits: every sample equals kiln run bit for bit and is classified right', async () => {
  const model = await kiln.Model.load(DIGITS_MODEL);
  const session = model.createSession();
  const samples = digitSamples();
  assert.equal(samples.length, 20);
  let right = 0;
  for (const s of samples) {
    const out = await session.run({ image: s.tensor });
    const logits = out.logits;
    assert.equal(logits.type, 'float32');
    assert.deepEqual(logits.dims, [1, 10]);
    const [reference] = cliRun(DIGITS_MODEL, [s.file]);
    assert.deepEqual(reference.dims, logits.dims);
    assert.equal(firstBitDifference(logits.data, reference.data), -1,
      `${s.file}: Node and C outputs differ`);
    const predicted = logits.data.indexOf(Math.max(...logits.data));
    if (predicted === s.label) right++;
  }
  console.log(`digits: ${right}/${samples.length} right, all bit-identical to kiln run`);
  assert.equal(right, 20);
  session.dispose();
  model.dispose();
});

// A batch may be blocked differently from a single sample by the GEMM, so
// the sums can round differently: close, not bit-equal.
test('digits: a batch of 20 in one run matches the single runs', async () => {
  const model = await kiln.Model.load(DIGITS_MODEL);
  const session = model.createSession();
  const samples = digitSamples();
  const batch = new Float32Array(20 * 64);
  samples.forEach((s, i) => batch.set(s.tensor.data, i * 64));
  const out = await session.run({ image: { type: 'float32', dims: [20, 1, 8, 8], data: batch } });
  assert.deepEqual(out.logits.dims, [20, 10]);
  for (let i = 0; i < 20; i++) {
    const single = session.runSync({ image: samples[i].tensor }).logits.data;
    const batched = out.logits.data.subarray(i * 10, i * 10 + 10);
    const scale = Math.max(...single.map(Math.abs));
    const worst = Math.max(...batched.map((v, k) => Math.abs(v - single[k])));
    assert.ok(worst <= 1e-5 * scale, `sample ${i}: max|diff| ${worst} vs max|ref| ${scale}`);
  }
  model.dispose();
});

test('digits: loading from bytes gives the same model', async () => {
  const fs = require('node:fs');
  const bytes = fs.readFileSync(DIGITS_MODEL);
  const fromFile = await kiln.Model.load(DIGITS_MODEL);
  const fromBytes = await kiln.Model.load(new Uint8Array(bytes));
  const fromBuffer = await kiln.Model.load(bytes.buffer.slice(bytes.byteOffset,
    bytes.byteOffset + bytes.byteLength));
  assert.deepEqual(fromBytes.inputs, fromFile.inputs);
  assert.deepEqual(fromBuffer.outputs, fromFile.outputs);
  const feed = { image: digitSamples()[3].tensor };
  const a = await fromFile.createSession().run(feed);
  const b = await fromBytes.createSession().run(feed);
  assert.equal(firstBitDifference(a.logits.data, b.logits.data), -1);
  for (const m of [fromFile, fromBytes, fromBuffer]) m.dispose();
});

// The plan cache (createSession's planCache): two batch sizes are planned
// once each and kept; releaseMemory gives both back and the next runs plan
// again with the same results. The model's weights are reported too.
test('digits: planCache keeps each batch size; releaseMemory gives them back', async () => {
  const model = await kiln.Model.load(DIGITS_MODEL);
  const session = model.createSession({ planCache: 4 });
  const samples = digitSamples();
  const three = new Float32Array(3 * 64);
  samples.slice(0, 3).forEach((s, i) => three.set(s.tensor.data, i * 64));
  const feeds = [{ image: samples[0].tensor },
    { image: { type: 'float32', dims: [3, 1, 8, 8], data: three } }];
  const first = [];
  for (const i of [0, 1, 0, 1]) {
    const { logits } = await session.run(feeds[i]);
    if (first.length < 2) first.push(logits);
    else assert.equal(firstBitDifference(logits.data, first[i].data), -1, `batch ${i}: a kept plan differs`);
  }
  assert.deepEqual(first.map((l) => l.dims), [[1, 10], [3, 10]]);
  const info = session.cacheInfo();
  assert.equal(info.plansKept, 2, JSON.stringify(info));
  assert.equal(info.plansBuilt, 2, JSON.stringify(info));
  assert.equal(typeof info.arenaBytes, 'number');
  assert.ok(info.arenaBytes > 0, JSON.stringify(info));

  // Not while a run is in flight (the first run of a new shape goes to the pool).
  session.releaseMemory();
  const running = session.run(feeds[0]);
  assert.throws(() => session.cacheInfo(), (e) => e.code === 9 && /in flight/.test(e.message));
  assert.throws(() => session.releaseMemory(), (e) => e.code === 9 && /in flight/.test(e.message));
  await running;
  session.releaseMemory();
  const released = session.cacheInfo();
  assert.equal(released.plansKept, 0, JSON.stringify(released));
  assert.equal(released.arenaBytes, 0, JSON.stringify(released));
  assert.equal(released.plansBuilt, 3, JSON.stringify(released));
  for (const i of [0, 1]) {
    const { logits } = session.runSync(feeds[i]);
    assert.deepEqual(logits.dims, first[i].dims);
    assert.equal(firstBitDifference(logits.data, first[i].data), -1, `batch ${i}: differs after releaseMemory`);
  }
  const again = session.cacheInfo();
  assert.equal(again.plansKept, 2, JSON.stringify(again));
  assert.equal(again.plansBuilt, 5, JSON.stringify(again));
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
