'use strict';
// The JS API's shape (the same as the WebAssembly module's) and the
// generated glue: every C function of capi/kiln_api.json is callable.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { kiln, SOURCE_DIR, DIGITS_MODEL } = require('./helpers.js');
const { native } = require('../lib/native.js');

const spec = JSON.parse(fs.readFileSync(path.join(SOURCE_DIR, 'capi', 'kiln_api.json'), 'utf8'));

test('exports: the web API plus nothing surprising', async () => {
  for (const name of ['init', 'Model', 'Session', 'KilnError', 'imageToTensor', 'decodeTensor',
    'encodeTensor', 'version', 'env', 'DTYPES']) {
    assert.ok(name in kiln, `missing export ${name}`);
  }
  await kiln.init();
  assert.equal(kiln.env.initialized, true);
  assert.match(kiln.version(), /^\d+\.\d+\.\d+/);
  const esm = await import('../lib/index.mjs');
  assert.equal(esm.Model, kiln.Model);
  assert.equal(esm.default, kiln);
  assert.equal(kiln.DTYPES[1].name, 'float32');
  assert.equal(kiln.DTYPES[7].array, BigInt64Array);
});

test('every C function in the spec is exported by the glue (status ones also _async)', () => {
  assert.ok(spec.functions.length > 50);
  for (const fn of spec.functions) {
    assert.equal(typeof native[fn.name], 'function', `${fn.name} is not exported`);
    assert.equal(typeof native[`${fn.name}_async`], fn.result === 'status' ? 'function' : 'undefined',
      `${fn.name}_async`);
  }
  const abi = spec.constants.find((c) => c.name === 'KILN_ABI_VERSION').value;
  assert.equal(native.kiln_abi_version(), abi);
  assert.equal(native._spec_abi_version, abi);
});

test('model metadata: names, types, dims with null for dynamic dims', async () => {
  const model = await kiln.Model.load(DIGITS_MODEL);
  assert.deepEqual(model.inputs, [{ name: 'image', type: 'float32', dims: [null, 1, 8, 8] }]);
  assert.deepEqual(model.outputs, [{ name: 'logits', type: 'float32', dims: [null, 10] }]);
  const session = model.createSession();
  assert.equal(session.inputs, model.inputs);
  model.dispose();
});

test('glue: two-call strings and shapes grow past their first buffers', () => {
  const longName = 'n'.repeat(1000);
  const dims = [1, 1, 1, 1, 1, 2, 1, 1]; // rank 8 > the glue's first 6
  const data = new Float32Array([1.5, -2]);
  const bytes = native.kiln_tensor_encode(longName, 1, dims, data, null);
  assert.ok(bytes instanceof Uint8Array && bytes.length > 1008);
  const handle = native.kiln_tensor_decode(bytes);
  assert.equal(native.kiln_tensor_name(handle), longName);
  assert.deepEqual(native.kiln_tensor_info(handle), { dtype: 1, dims });
  const raw = native.kiln_tensor_data(handle);
  assert.ok(raw instanceof ArrayBuffer);
  assert.deepEqual(new Float32Array(raw), data);
  native.kiln_tensor_destroy(handle);
  // A caller buffer that is too small is an error, and says what it needed.
  assert.throws(() => native.kiln_tensor_encode('x', 1, [2], data, new Uint8Array(4)),
    (err) => err.code === 12);
  const exact = new Uint8Array(native.kiln_tensor_encode('x', 1, [2], data, null).length);
  assert.equal(native.kiln_tensor_encode('x', 1, [2], data, exact), exact.length);
  assert.equal(native.kiln_last_error().length > 0, true); // the failure above, on this thread
});

test('tensors: encodeTensor and decodeTensor round trip every JS type', () => {
  const cases = [
    { type: 'float32', dims: [2], data: new Float32Array([1, -0]) },
    { type: 'int64', dims: [2], data: new BigInt64Array([-(2n ** 62n), 7n]) },
    { type: 'uint8', dims: [1, 3], data: new Uint8Array([0, 128, 255]) },
    { type: 'bool', dims: [2], data: new Uint8Array([1, 0]) },
    { type: 'float64', dims: [], data: new Float64Array([Math.PI]) },
    { type: 'float16', dims: [1], data: new Uint16Array([0x3c00]) },
    { type: 'int4', dims: [3], data: new Uint8Array([0x21, 0x0f]) },
  ];
  for (const t of cases) {
    const back = kiln.decodeTensor(kiln.encodeTensor(t, 'x'));
    assert.equal(back.name, 'x');
    assert.equal(back.type, t.type);
    assert.deepEqual(back.dims, t.dims);
    assert.deepEqual(back.data, t.data);
  }
  // The type may be left out (taken from the array) and data may be a plain array.
  const implied = kiln.decodeTensor(kiln.encodeTensor({ dims: [2], data: new Int32Array([3, 4]) }));
  assert.equal(implied.type, 'int32');
  const fromArray = kiln.decodeTensor(kiln.encodeTensor({ type: 'int64', dims: [2], data: [5, 6] }));
  assert.deepEqual(fromArray.data, new BigInt64Array([5n, 6n]));
});

test('runs of one session are queued, runs of two sessions overlap', async () => {
  const model = await kiln.Model.load(DIGITS_MODEL, { threads: 2 });
  const a = model.createSession();
  const b = model.createSession();
  const feed = (v) => ({ image: { type: 'float32', dims: [1, 1, 8, 8], data: new Float32Array(64).fill(v) } });
  const refs = [0, 0.25, 0.5, 0.75, 1].map((v) => a.runSync(feed(v)).logits.data);
  const runs = [];
  for (let i = 0; i < 50; i++) runs.push([i % 5, (i % 2 ? a : b).run(feed((i % 5) / 4))]);
  for (const [k, p] of runs) assert.deepEqual((await p).logits.data, refs[k]);
  model.dispose();
});
