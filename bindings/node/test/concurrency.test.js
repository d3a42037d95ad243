'use strict';
// 4 worker_threads, each loading the digits model and doing 1,000 runs at
// once: every output bit-identical to the single-threaded reference, and the
// process's RSS does not grow by more than 30 MiB over the rounds.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { kiln, DIGITS_MODEL, digitSamples } = require('./helpers.js');

const WORKERS = 4;
const RUNS = 1000;
const MAX_GROWTH_MIB = 30;

function round(samples, references, runs) {
  return Promise.all(Array.from({ length: WORKERS }, () => new Promise((resolve, reject) => {
    const worker = new Worker(path.join(__dirname, 'workers', 'digits_worker.js'), {
      workerData: { modelPath: DIGITS_MODEL, samples, references, runs } });
    let result = null;
    worker.on('message', (m) => { result = m; });
    worker.on('error', reject);
    worker.on('exit', () => (result ? resolve(result) : reject(new Error('worker died'))));
  })));
}

const mib = (bytes) => (bytes / 1048576).toFixed(1);

test(`${WORKERS} workers x ${RUNS} digits runs: right outputs, flat RSS`, async () => {
  const samples = digitSamples().map((s) => s.tensor.data);
  const model = await kiln.Model.load(DIGITS_MODEL);
  const session = model.createSession();
  const references = [];
  for (const data of samples) {
    references.push((await session.run({ image: { type: 'float32', dims: [1, 1, 8, 8], data } }))
      .logits.data);
  }
  model.dispose();

  // A short round first, so start-up costs (worker isolates, code caches,
  // malloc arenas) are in the baseline.
  for (const r of await round(samples, references, 50)) assert.equal(r.mismatches, 0, r.error);
  global.gc?.();
  const before = process.memoryUsage().rss;
  const start = process.hrtime.bigint();
  const results = await round(samples, references, RUNS);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  global.gc?.();
  const after = process.memoryUsage().rss;
  for (const r of results) {
    assert.equal(r.error, undefined, r.error);
    assert.equal(r.runs, RUNS);
    assert.equal(r.mismatches, 0, 'a run gave different bits from the reference');
  }
  const growth = after - before;
  console.log(`concurrency: ${WORKERS}x${RUNS} runs in ${seconds.toFixed(2)} s, all outputs ` +
    `bit-identical; RSS before ${mib(before)} MiB, after ${mib(after)} MiB, ` +
    `growth ${mib(growth)} MiB (limit ${MAX_GROWTH_MIB})`);
  if (process.env.KILN_NODE_PRELOAD) { // run.sh under a sanitizer build
    console.log('concurrency: RSS limit not checked: AddressSanitizer keeps freed memory');
    return;
  }
  assert.ok(growth <= MAX_GROWTH_MIB * 1048576, `RSS grew by ${mib(growth)} MiB`);
});
