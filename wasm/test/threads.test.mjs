// Asking for threads where the threads build cannot run (Node; a page
// without cross-origin isolation) falls back to one thread, says so in
// env and warns once on the console, and still runs models.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { kiln, sourceDir } from './support.mjs';

test('threads fall back to one thread with a warning', async () => {
  const warnings = [];
  const warn = console.warn;
  console.warn = (...args) => warnings.push(args.join(' '));
  try {
    await kiln.init({ threads: 4 });
  } finally {
    console.warn = warn;
  }
  assert.equal(kiln.env.requestedThreads, 4);
  assert.equal(kiln.env.threads, 1);
  assert.equal(kiln.env.threadsFallback, true);
  assert.equal(kiln.env.build, 'single');
  assert.match(kiln.env.fallbackReason, /browsers only/);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /4 threads requested but running on 1/);
  const model = await kiln.Model.load(path.join(sourceDir, 'examples/digits/digits.onnx'));
  const out = await model.createSession().run({ image: { type: 'float32', dims: [1, 1, 8, 8], data: new Float32Array(64) } });
  assert.equal(out.logits.data.length, 10);
  model.dispose();
});
