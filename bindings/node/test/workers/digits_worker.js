'use strict';
// One worker of concurrency.test.js: loads the digits model itself and runs
// `runs` samples round-robin, checking each output against the reference
// bits the main thread computed; posts {runs, mismatches}.

const { parentPort, workerData } = require('node:worker_threads');
const kiln = require('../../lib/index.js');

async function main() {
  const { modelPath, samples, references, runs } = workerData;
  const model = await kiln.Model.load(modelPath);
  const session = model.createSession();
  let mismatches = 0;
  for (let i = 0; i < runs; i++) {
    const k = i % samples.length;
    const out = await session.run({ image: { type: 'float32', dims: [1, 1, 8, 8],
      data: samples[k] } });
    const got = Buffer.from(out.logits.data.buffer);
    if (!got.equals(Buffer.from(references[k].buffer))) mismatches++;
  }
  session.dispose();
  model.dispose();
  parentPort.postMessage({ runs, mismatches });
}

main().catch((err) => parentPort.postMessage({ error: `${err.code} ${err.message}` }));
