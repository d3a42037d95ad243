#!/usr/bin/env node
// Two Kiln builds against each other in one headless Chromium page: each
// in its own worker session (createWorkerSession), runs alternating, so
// both see the same machine load. For a change to the engine, ORT-web out
// of the picture: on a shared machine its own swings hide a 10 % change.
//
//   node bench/web/ab.mjs --models-dir DIR --a BUILD_A --b BUILD_B
//        [--models a,b] [--runs N] [--threads N] [--gemm-tile NAME]
//
// BUILD_A / BUILD_B are build folders inside the source tree (the page
// imports BUILD/kiln.mjs): threads builds for --threads > 1 (the default,
// 2), single-threaded builds for --threads 1. The tile is forced (default
// 5x8) so that a different timed choice does not blur the comparison.
// Prints the median and fastest run of each, and B/A.
import { launchChromium } from '../../wasm/browser/browser.mjs';
import { startServer } from '../../wasm/browser/serve.mjs';

const opts = { models: 'squeezenet1_1', runs: 40, threads: 2, gemmTile: '5x8' };
const names = { '--models-dir': 'modelsDir', '--a': 'a', '--b': 'b', '--models': 'models',
  '--runs': 'runs', '--threads': 'threads', '--gemm-tile': 'gemmTile' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  if (!names[argv[i]] || i + 1 >= argv.length) {
    console.error('usage: node bench/web/ab.mjs --models-dir DIR --a BUILD_A --b BUILD_B ' +
      '[--models a,b] [--runs N] [--threads N] [--gemm-tile NAME]');
    process.exit(2);
  }
  opts[names[argv[i]]] = argv[i + 1];
}
if (!opts.modelsDir || !opts.a || !opts.b) {
  console.error('ab.mjs: --models-dir, --a and --b are required');
  process.exit(2);
}

// Runs in the page: both sessions loaded, warmed up, then `runs` rounds,
// the order within a round alternating.
async function compareInPage({ builds, model, runs, threads, gemmTile }) {
  const bytes = new Uint8Array(await (await fetch(`/coi/models/${model}/model.onnx`)).arrayBuffer());
  const sessions = [];
  for (const build of builds) {
    const kiln = await import(`/coi/${build}/kiln.mjs`);
    await kiln.init(); // this page's engine decodes the input files
    const session = await kiln.createWorkerSession(bytes.slice(), { init: { threads, gemmTile } });
    const feeds = {};
    for (const [n, info] of session.inputs.entries()) {
      // The model's own input_N.pb where there is one (token ids must be
      // valid), else any fixed float input.
      const file = await fetch(`/coi/models/${model}/input_${n}.pb`);
      if (file.ok) {
        feeds[info.name] = kiln.decodeTensor(new Uint8Array(await file.arrayBuffer()));
        continue;
      }
      const dims = info.dims.map((d) => (typeof d === 'number' && d > 0 ? d : 1));
      const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
      for (let i = 0; i < data.length; i++) data[i] = Math.sin(i * 0.37); // any fixed input
      feeds[info.name] = { type: 'float32', dims, data };
    }
    await session.run(feeds);
    await session.run(feeds);
    sessions.push({ session, feeds, times: [], threads: session.env.threads });
  }
  for (let r = 0; r < runs; r++) {
    for (const s of r % 2 ? sessions : [...sessions].reverse()) {
      const t0 = performance.now();
      await s.session.run(s.feeds);
      s.times.push(performance.now() - t0);
    }
  }
  for (const s of sessions) await s.session.dispose();
  return sessions.map((s) => ({ times: s.times, threads: s.threads }));
}

const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[(s.length >> 1) - 1] + s[s.length >> 1]) / 2;
};
const server = await startServer({ port: 0, modelsDir: opts.modelsDir, quiet: true });
const browser = await launchChromium();
try {
  console.log(`A = ${opts.a}, B = ${opts.b}, ${opts.threads} thread(s), tile ${opts.gemmTile}`);
  console.log('model              A med    A min    B med    B min   B/A med');
  for (const model of opts.models.split(',')) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}coi/bench/web/`);
    const [a, b] = await page.evaluate(compareInPage, { builds: [opts.a, opts.b], model,
      runs: Number(opts.runs), threads: Number(opts.threads), gemmTile: opts.gemmTile });
    const f = (x) => x.toFixed(1).padStart(8);
    console.log(`${model.padEnd(16)}${f(median(a.times))} ${f(Math.min(...a.times))} ` +
      `${f(median(b.times))} ${f(Math.min(...b.times))}   ${(median(b.times) / median(a.times)).toFixed(2)}` +
      (a.threads !== b.threads ? `  (threads ${a.threads} vs ${b.threads})` : ''));
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}
