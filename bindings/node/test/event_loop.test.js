'use strict';
// While a resnet50 run is in flight on the libuv thread pool, a 1 ms
// setInterval keeps firing: the largest gap between ticks stays <= 20 ms.
// On a shared, loaded machine the OS alone can delay a tick that long, so
// the check gets up to five runs and passes when one of them stays within
// the limit; every run's numbers are printed, with an idle baseline.
// One resnet50 run takes about 50 ms on a fast machine, too short to say
// anything, so each attempt repeats runs back to back for at least 250 ms.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { kiln, locateModel } = require('./helpers.js');

const MAX_GAP_MS = 20;
const ATTEMPTS = 5;
const MIN_WINDOW_MS = 250;
const found = locateModel('resnet50');

// Runs `work` (a promise factory) with a 1 ms interval timer going;
// returns {ms, ticks, maxGap}.
async function withTicker(work) {
  let last = performance.now();
  let maxGap = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
    ticks++;
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 10)); // the timer is going
  last = performance.now();
  maxGap = 0;
  ticks = 0;
  const start = performance.now();
  const result = await work();
  const ms = performance.now() - start;
  maxGap = Math.max(maxGap, performance.now() - last);
  clearInterval(timer);
  return { ms, ticks, maxGap, result };
}

test('event loop: a 1 ms timer keeps firing during a resnet50 run', { skip: found.skip },
  async () => {
    const model = await kiln.Model.load(found.model);
    const session = model.createSession();
    const feeds = { [model.inputs[0].name]: kiln.decodeTensor(fs.readFileSync(found.inputs[0])) };
    await session.run(feeds); // warm: first-run costs are not the point here
    const idle = await withTicker(() => new Promise((resolve) => setTimeout(resolve, 500)));
    console.log(`event loop: idle baseline over 500 ms: max gap ${idle.maxGap.toFixed(2)} ms`);
    let best = Infinity;
    const attempts = process.env.KILN_NODE_PRELOAD ? 1 : ATTEMPTS;
    for (let attempt = 1; attempt <= attempts && best > MAX_GAP_MS; attempt++) {
      let runs = 0;
      const r = await withTicker(async () => {
        const start = performance.now();
        let out;
        do {
          out = await session.run(feeds);
          runs++;
        } while (performance.now() - start < MIN_WINDOW_MS);
        return out;
      });
      assert.deepEqual(r.result[model.outputs[0].name].dims, [1, 1000]);
      console.log(`event loop: attempt ${attempt}: ${runs} resnet50 runs took ${r.ms.toFixed(0)} ms; ` +
        `${r.ticks} timer ticks, max gap ${r.maxGap.toFixed(2)} ms (limit ${MAX_GAP_MS})`);
      assert.ok(r.ms >= MIN_WINDOW_MS, 'the runs were too short to say anything');
      assert.ok(r.ticks >= r.ms / MAX_GAP_MS, `only ${r.ticks} ticks in ${r.ms.toFixed(0)} ms`);
      best = Math.min(best, r.maxGap);
    }
    if (process.env.KILN_NODE_PRELOAD) { // run.sh under a sanitizer build
      console.log('event loop: gap limit not checked: sanitizer timings say nothing');
    } else {
      assert.ok(best <= MAX_GAP_MS, `the event loop stalled for ${best.toFixed(1)} ms in every run`);
    }
    model.dispose();
  });
