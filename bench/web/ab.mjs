#!/usr/bin/env node
// Two Kiln builds against each other in one headless Chromium page: each
// in its own worker session (createWorkerSession), runs alternating, so
// both see the same machine load. For a change to the engine, ORT-web out
// of the picture: on a shared machine its own swings hide a 10 % change.
//
//   node bench/web/ab.mjs --models-dir DIR --a BUILD_A --b BUILD_B
//        [--models a,b] [--runs N] [--threads N] [--gemm-tile NAME] [--profile]
//
// BUILD_A / BUILD_B are build folders inside the source tree (the page
// imports BUILD/kiln.mjs): threads builds for --threads > 1 (the default,
// 2), single-threaded builds for --threads 1. The tile is forced (default
// 5x8) so that a different timed choice does not blur the comparison.
// Prints the median, 10th percentile and fastest run of each, and B/A.
// --profile: both builds profiled instead (each session in a module worker
// of the page, ab-profile-worker.mjs, runs alternating as above), then
// every step's mean ms per run for A and B side by side, in plan order:
// which steps a change made faster, under the same machine load.
import { launchChromium } from '../../wasm/browser/browser.mjs';
import { startServer } from '../../wasm/browser/serve.mjs';

const opts = { models: 'squeezenet1_1', runs: 40, threads: 2, gemmTile: '5x8' };
const names = { '--models-dir': 'modelsDir', '--a': 'a', '--b': 'b', '--models': 'models',
  '--runs': 'runs', '--threads': 'threads', '--gemm-tile': 'gemmTile' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  if (argv[i] === '--profile') {
    opts.profile = true;
    i--;
    continue;
  }
  if (!names[argv[i]] || i + 1 >= argv.length) {
    console.error('usage: node bench/web/ab.mjs --models-dir DIR --a BUILD_A --b BUILD_B ' +
      '[--models a,b] [--runs N] [--threads N] [--gemm-tile NAME] [--profile]');
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

// --profile, in the page: a profiled session per build, each in its own
// module worker; runs alternate as in compareInPage. Returns each
// build's run times and profile.
async function profileInPage({ builds, model, runs, threads, gemmTile }) {
  const ask = (w, msg) => new Promise((resolve, reject) => {
    w.onmessage = ({ data }) => (data.error ? reject(new Error(data.error)) : resolve(data));
    w.onerror = (e) => reject(new Error(e.message));
    w.postMessage(msg);
  });
  const base = new URL('/coi/', location.href).href;
  const inputUrls = [];
  for (let n = 0; ; n++) {
    const url = `${base}models/${model}/input_${n}.pb`;
    if (!(await fetch(url, { method: 'HEAD' })).ok) break;
    inputUrls.push(url);
  }
  const sessions = [];
  for (const build of builds) {
    const worker = new Worker(`${base}bench/web/ab-profile-worker.mjs`, { type: 'module' });
    const { threads: ran } = await ask(worker, { cmd: 'load', kilnUrl: `${base}${build}/kiln.mjs`,
      modelUrl: `${base}models/${model}/model.onnx`, inputUrls, threads, gemmTile });
    sessions.push({ worker, times: [], threads: ran });
  }
  for (let r = 0; r < runs; r++) {
    for (const s of r % 2 ? sessions : [...sessions].reverse()) s.times.push((await ask(s.worker, { cmd: 'run' })).ms);
  }
  const out = [];
  for (const s of sessions) {
    out.push({ times: s.times, threads: s.threads, steps: (await ask(s.worker, { cmd: 'profile' })).steps });
    s.worker.terminate();
  }
  return out;
}

const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[(s.length >> 1) - 1] + s[s.length >> 1]) / 2;
};
// The 10th percentile: on a shared machine the median of a 2-thread run
// follows how often the other jobs take a core away mid-run; the quick
// runs show what the build does when both cores are its own, and more
// steadily than the single fastest one.
const p10 = (v) => [...v].sort((x, y) => x - y)[Math.floor((v.length - 1) / 10)];
const server = await startServer({ port: 0, modelsDir: opts.modelsDir, quiet: true });
const browser = await launchChromium();
try {
  console.log(`A = ${opts.a}, B = ${opts.b}, ${opts.threads} thread(s), tile ${opts.gemmTile}`);
  console.log('model              A med    A p10    A min    B med    B p10    B min   B/A med  B/A p10');
  for (const model of opts.models.split(',')) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}coi/bench/web/`);
    const [a, b] = await page.evaluate(opts.profile ? profileInPage : compareInPage, { builds: [opts.a, opts.b], model,
      runs: Number(opts.runs), threads: Number(opts.threads), gemmTile: opts.gemmTile });
    const f = (x) => x.toFixed(1).padStart(8);
    console.log(`${model.padEnd(16)}${f(median(a.times))} ${f(p10(a.times))} ${f(Math.min(...a.times))} ` +
      `${f(median(b.times))} ${f(p10(b.times))} ${f(Math.min(...b.times))}   ` +
      `${(median(b.times) / median(a.times)).toFixed(2)}     ${(p10(b.times) / p10(a.times)).toFixed(2)}` +
      (a.threads !== b.threads ? `  (threads ${a.threads} vs ${b.threads})` : ''));
    if (opts.profile) {
      let sa = 0, sb = 0;
      for (const [i, step] of a.steps.entries()) {
        const mb = b.steps[i]?.name === step.name ? b.steps[i].ms : NaN;
        sa += step.ms;
        sb += mb;
        console.log(`  ${step.op.padEnd(20)} ${step.ms.toFixed(3).padStart(7)} ${mb.toFixed(3).padStart(7)}  ` +
          `${(mb / step.ms).toFixed(2)}  ${step.name}`);
      }
      console.log(`  ${'all steps'.padEnd(20)} ${sa.toFixed(3).padStart(7)} ${sb.toFixed(3).padStart(7)}  ${(sb / sa).toFixed(2)}`);
    }
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}
