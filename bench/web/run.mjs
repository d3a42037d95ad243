#!/usr/bin/env node
// Side-by-side benchmark in headless Chromium: Kiln's WebAssembly engine
// against onnxruntime-web 1.30 (WebAssembly backend, 1 thread, SIMD) on the
// same models and inputs, runs alternating; then startup (import to the
// first digits result) of both; then the download sizes. Prints a table
// and writes JSON. Not part of ctest (minutes per model).
//
//   node bench/web/run.mjs --models-dir DIR [--models a,b,...] [--wasm DIR]
//        [--runs N] [--startup-runs N] [--json FILE] [--profile]
//        [--gemm-tile auto|NAME|each|interleave] [--threads N] [--wasm-mt DIR]
//        [--simd auto|relaxed|simd128] [--max-seconds S]
//
// --simulate-slow-tile NAME:F: a simulated second CPU, on which Kiln's GEMM
// tile NAME runs F times slower (kiln.init's simulateSlowTile); with
// --gemm-tile each it shows whether the timed choice moves away from it.
// --max-seconds: timed pairs stop after S seconds per model (default 40;
// at least 5 pairs run), so a slow model may get fewer than --runs.
// --threads N (> 1): both engines on N threads, in a cross-origin isolated
// page (SharedArrayBuffer): Kiln's threads engine (wasm/build.sh's
// build-wasm-mt, or --wasm-mt) against ORT-web with numThreads = N.
//
// --gemm-tile: Kiln's matrix-product tile (kiln.init's gemmTile): timed
// on this machine ('auto', the default: a fresh page has no stored
// choice), one forced, or 'each': every candidate forced in turn and the
// timed choice, per model, to show how close the timing comes to the best.
// --gemm-tile interleave: Kiln alone, in ONE page per model: a worker
// session per candidate tile (forced) and one with the timed choice, their
// runs interleaved round by round so that machine drift hits all alike
// (pages a minute apart differ by more than the tiles do); prints each
// median and the timed choice's median over the best forced one.
// --simd: which Kiln engine build (kiln.init's relaxedSimd): 'auto' (the
// default: the relaxed-SIMD engine where the browser validates it),
// 'relaxed', or 'simd128' (the plain engine).
// --profile: Kiln alone, time per op type and the slowest steps of each
// model (the session's own profile), instead of the comparison; in a
// module worker, as worker sessions run (on the page's own thread the
// threads engine's waits spin). --profile-steps N: the N slowest steps
// (default 12; 0: every step, in plan order).
// --gap-ms MS: an idle pause before each timed run (default 0): with
// threads, the engine that ran last may still have threads spinning,
// waiting for more work, while the other's run starts.
// --turn-runs N: the engines take turns of N runs each (default 1, so
// runs alternate; 5 with --threads above 1). ONNX Runtime's pool threads
// keep spinning for several milliseconds after its run, so with runs
// alternating the other engine's run right after it shares the two
// cores with them (an application runs one engine, never two in turn);
// in turns of 5 only a turn's first run meets that, and the median
// leaves it out while both engines still see the same drift in load.
//
// DIR holds NAME/model.onnx + NAME/input_0.pb (tools/export_models.py).
// Default models: squeezenet1_1,mobilenet_v2,resnet50,bert_encoder.
// Needs `npm ci --ignore-scripts` in wasm/browser (playwright-core,
// onnxruntime-web) and wasm/build.sh's output (default build-wasm).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { launchChromium } from '../../wasm/browser/browser.mjs';
import { startServer, sourceDir } from '../../wasm/browser/serve.mjs';
import { describeCpu, hostCpu } from './machine.mjs';

const USAGE = 'usage: node bench/web/run.mjs --models-dir DIR [--models a,b] [--wasm DIR] [--runs N] ' +
  '[--startup-runs N] [--json FILE] [--profile] [--gemm-tile auto|NAME|each|interleave] [--threads N] [--wasm-mt DIR] ' +
  '[--simd auto|relaxed|simd128] [--max-seconds S] [--simulate-slow-tile NAME:F] [--profile-steps N] [--gap-ms MS] [--turn-runs N]';

function parseArgs(argv) {
  const opts = {
    models: 'squeezenet1_1,mobilenet_v2,resnet50,bert_encoder',
    modelsDir: process.env.KILN_MODELS_DIR,
    wasmDir: path.join(sourceDir, 'build-wasm'),
    runs: 15,
    startupRuns: 5,
    json: 'kiln-vs-ort-web.json',
    gemmTile: 'auto',
    threads: 1,
    wasmMtDir: path.join(sourceDir, 'build-wasm-mt'),
    simd: 'auto',
    maxSeconds: 40,
    slowTile: '',
    profileSteps: 12,
    gapMs: 0,
  };
  const names = { '--models': 'models', '--models-dir': 'modelsDir', '--wasm': 'wasmDir', '--runs': 'runs',
    '--startup-runs': 'startupRuns', '--json': 'json', '--gemm-tile': 'gemmTile',
    '--threads': 'threads', '--wasm-mt': 'wasmMtDir', '--simd': 'simd', '--max-seconds': 'maxSeconds', '--simulate-slow-tile': 'slowTile',
    '--profile-steps': 'profileSteps', '--gap-ms': 'gapMs', '--turn-runs': 'turnRuns' };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--profile') {
      opts.profile = true;
      continue;
    }
    const key = names[argv[i]];
    if (!key || i + 1 >= argv.length) {
      console.error(USAGE);
      process.exit(2);
    }
    opts[key] = argv[++i];
  }
  opts.runs = Number(opts.runs);
  opts.startupRuns = Number(opts.startupRuns);
  opts.threads = Number(opts.threads);
  opts.maxSeconds = Number(opts.maxSeconds);
  opts.profileSteps = Number(opts.profileSteps);
  opts.gapMs = Number(opts.gapMs);
  opts.turnRuns = Number(opts.turnRuns ?? (opts.threads > 1 ? 5 : 1));
  if (!['auto', 'relaxed', 'simd128'].includes(opts.simd)) {
    console.error(USAGE);
    process.exit(2);
  }
  return opts;
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// A fresh context (empty cache, own memory) on the bench page per call.
// The page under /coi/ is cross-origin isolated (serve.mjs), as threads need.
let pagePath = 'bench/web/';
async function inFreshPage(browser, url, fn, arg) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${url}${pagePath}`);
    await page.waitForFunction(() => window.kilnBench);
    try {
      return await page.evaluate(fn, arg);
    } catch (e) {
      throw new Error(`${e.message.split('\n')[0]}${errors.length ? `; page: ${errors.join(' | ')}` : ''}`);
    }
  } finally {
    await context.close();
  }
}

function sizes(files) {
  return files.filter((f) => fs.existsSync(f)).map((f) => {
    const bytes = fs.readFileSync(f);
    return { file: path.basename(f), raw: bytes.length, gzip: zlib.gzipSync(bytes, { level: 9 }).length };
  });
}

const mb = (n) => (n / 1048576).toFixed(2);
const kib = (n) => (n / 1024).toFixed(1);
const pad = (s, n) => String(s).padStart(n);

// kiln.init() options for --gemm-tile (a fresh page has no stored choice,
// so 'auto' and no option both time the candidates) and --simd.
let simdInit = {};
const tileInit = (gemmTile) => ({ ...(gemmTile && gemmTile !== 'auto' ? { gemmTile } : {}), ...simdInit });

// --gemm-tile each: the model again with every candidate forced; prints
// each one's Kiln time and how the timed choice compares with the best.
async function sweepTiles(auto, bench) {
  const forced = {};
  for (const tile of auto.kilnTile.candidates) {
    const r = await bench(tile);
    forced[tile] = { kilnMs: r.medianMs.kiln, ortMs: r.medianMs.ort, ratio: r.medianMs.kiln / r.medianMs.ort };
  }
  const best = Object.entries(forced).sort((a, b) => a[1].kilnMs - b[1].kilnMs)[0];
  const autoVsBest = auto.medianMs.kiln / best[1].kilnMs;
  console.log(`${''.padEnd(14)} forced: ${Object.entries(forced).map(([t, f]) => `${t} ${f.kilnMs.toFixed(1)} ms (${f.ratio.toFixed(2)})`).join(', ')}`);
  console.log(`${''.padEnd(14)} timed choice ${auto.kilnTile.tile}: ${auto.medianMs.kiln.toFixed(1)} ms = ${autoVsBest.toFixed(3)} x the best forced (${best[0]})`);
  return { forced, best: best[0], autoVsBest };
}

// --gemm-tile interleave: per model, the timed choice against every forced
// tile in one page (bench.mjs compareTiles), 1 thread.
async function interleaveTiles(opts, browser, server, report) {
  console.log(`\nGEMM tiles, one page per model, worker sessions (1 thread) interleaved, up to ${opts.runs} rounds:`);
  for (const model of opts.models.split(',').filter(Boolean)) {
    try {
      const r = await inFreshPage(browser, server.url, (a) => window.kilnBench.compareTiles(a),
        { model, runs: opts.runs, budgetMs: opts.maxSeconds * 1000, kilnInit: { ...simdInit } });
      // The median, and the fastest run: on a loaded machine other
      // processes lengthen runs at random, and the fastest is the least
      // disturbed, so it separates tiles when medians cannot.
      for (const s of r.sessions) s.minMs = Math.min(...s.times);
      const [auto, ...forced] = r.sessions;
      const bestOf = (key) => [...forced].sort((a, b) => a[key] - b[key])[0];
      const best = bestOf('medianMs'), bestMin = bestOf('minMs');
      const chosen = forced.find((f) => f.tile === auto.tile);
      r.autoVsBest = auto.medianMs / best.medianMs;
      r.chosenVsBest = chosen.medianMs / best.medianMs;
      r.autoVsBestMin = auto.minMs / bestMin.minMs;
      r.chosenVsBestMin = chosen.minMs / bestMin.minMs;
      report.models.push(r);
      const ms = (s) => `${s.medianMs.toFixed(1)} (${s.minMs.toFixed(1)})`;
      console.log(`${model.padEnd(14)} ${auto.times.length} rounds, ${r.auto.simd}; forced, median (fastest) ms: ` +
        forced.map((f) => `${f.tile} ${ms(f)}`).join(', '));
      console.log(`${''.padEnd(14)} timed on the model's products (m x n x k) ${r.auto.shapes.map((s) => s.join('x')).join(', ') || 'stand-ins'}`);
      const d = r.auto.detail;
      if (d) {
        console.log(`${''.padEnd(14)} the timing's fastest rounds (spread), ${d.rounds} rounds of ${d.reps ?? 1} run(s) a candidate, ` +
          `clock step ${d.tickMs.toFixed(3)} ms, per run: ` +
          Object.keys(d.fastestMs).map((t) => `${t} ${d.fastestMs[t].toFixed(2)} ms (${(100 * d.spread[t]).toFixed(1)} %)`).join(', ') +
          `; fastest ${d.fastestTile}`);
      }
      console.log(`${''.padEnd(14)} timed choice ${r.auto.tile} (${r.auto.source}, ${r.auto.tuneMs.toFixed(0)} ms): ${ms(auto)} ms; ` +
        `timed / best forced: median ${r.autoVsBest.toFixed(3)} (best ${best.tile}), fastest ${r.autoVsBestMin.toFixed(3)} (best ${bestMin.tile}); ` +
        `forced ${auto.tile} / best forced: ${r.chosenVsBest.toFixed(3)}, ${r.chosenVsBestMin.toFixed(3)}`);
      // The timed session runs the same tile as its forced twin: how far
      // two identical sessions of this page are apart is its noise floor.
      r.twinSpread = { median: auto.medianMs / chosen.medianMs, fastest: auto.minMs / chosen.minMs };
      console.log(`${''.padEnd(14)} noise floor: timed / its forced twin (same tile, same page): median ` +
        `${r.twinSpread.median.toFixed(3)}, fastest ${r.twinSpread.fastest.toFixed(3)}`);
    } catch (e) {
      report.models.push({ model, error: e.message });
      console.log(`${model.padEnd(14)} FAILED: ${e.message}`);
    }
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.simd !== 'auto') simdInit = { relaxedSimd: opts.simd === 'relaxed' };
  if (opts.slowTile) {
    const [tile, factor] = opts.slowTile.split(':');
    simdInit.simulateSlowTile = { tile, factor: Number(factor) };
    console.log(`simulated second CPU: Kiln's ${tile} tile made ${factor}x slower (simulateSlowTile)`);
  }
  if (!opts.modelsDir || !fs.existsSync(opts.modelsDir)) {
    console.error(`run.mjs: --models-dir (or KILN_MODELS_DIR) must name the exported models folder\n${USAGE}`);
    process.exit(2);
  }
  const ortDist = path.join(sourceDir, 'wasm/browser/node_modules/onnxruntime-web/dist');
  if (!fs.existsSync(ortDist)) {
    console.error('run.mjs: onnxruntime-web is missing: cd wasm/browser && npm ci --ignore-scripts');
    process.exit(2);
  }
  if (!fs.existsSync(path.join(opts.wasmDir, 'kiln-core.wasm'))) {
    console.error(`run.mjs: ${opts.wasmDir}/kiln-core.wasm is missing: build with wasm/build.sh (or --wasm DIR)`);
    process.exit(2);
  }
  const ortVersion = JSON.parse(fs.readFileSync(path.join(ortDist, '../package.json'), 'utf8')).version;
  if (opts.threads > 1) {
    if (!fs.existsSync(path.join(opts.wasmMtDir, 'kiln-core-mt.wasm'))) {
      console.error(`run.mjs: ${opts.wasmMtDir}/kiln-core-mt.wasm is missing: build with wasm/build.sh (or --wasm-mt DIR)`);
      process.exit(2);
    }
    pagePath = 'coi/bench/web/';
  }
  const server = await startServer({ port: 0, wasmDir: opts.wasmDir, wasmMtDir: opts.wasmMtDir, modelsDir: opts.modelsDir,
    quiet: true });
  const browser = await launchChromium();
  const report = { chromium: browser.version(), ortVersion, date: new Date().toISOString(), cpu: hostCpu(),
    models: [], startup: null, sizes: null };
  console.log(`Chromium ${browser.version()}, onnxruntime-web ${ortVersion}, Kiln from ${opts.wasmDir}`);
  console.log(describeCpu(report.cpu));
  if (opts.profile) {
    try {
      for (const model of opts.models.split(',').filter(Boolean)) {
        const r = await inFreshPage(browser, server.url, (a) => window.kilnBench.profileKiln(a), { model, runs: opts.runs, top: opts.profileSteps, inWorker: true, kilnInit: { ...tileInit(opts.gemmTile), threads: opts.threads } });
        const total = r.byOp.reduce((a, [, ms]) => a + ms, 0);
        console.log(`\n${model}: ${r.wallMs.toFixed(1)} ms per run, ${total.toFixed(1)} ms in steps, ${r.threads} thread(s)${r.fallbackReason ? ` (${r.fallbackReason})` : ''}`);
        for (const [op, ms] of r.byOp) console.log(`  ${op.padEnd(28)} ${pad(ms.toFixed(2), 8)} ms ${pad((100 * ms / total).toFixed(1), 5)} %`);
        console.log(opts.profileSteps > 0 ? '  slowest steps:' : '  steps:');
        for (const s of r.slowest) console.log(`    ${s.op.padEnd(24)} ${pad(s.ms.toFixed(2), 7)} ms  ${s.name}`);
      }
    } finally {
      await browser.close();
      await server.close();
    }
    return 0;
  }
  if (opts.gemmTile === 'interleave') {
    try {
      await interleaveTiles(opts, browser, server, report);
    } finally {
      await browser.close();
      await server.close();
    }
    fs.writeFileSync(opts.json, JSON.stringify(report, null, 1));
    console.log(`\nwrote ${path.resolve(opts.json)}`);
    return report.models.some((m) => m.error) ? 1 : 0;
  }
  try {
    console.log(`\n${opts.threads} thread${opts.threads > 1 ? 's (cross-origin isolated page)' : ''}` +
      `${opts.turnRuns > 1 ? `, the engines taking turns of ${opts.turnRuns} runs` : ', runs alternating'}:`);
    console.log(`${'model'.padEnd(14)} ${pad('MB', 6)} ${pad('Kiln ms', 9)} ${pad('ORT ms', 9)} ${pad('Kiln/ORT', 9)}` +
      ` ${pad('runs', 5)} ${pad('load K/O ms', 13)} ${pad('out diff', 9)}`);
    for (const model of opts.models.split(',').filter(Boolean)) {
      if (!fs.existsSync(path.join(opts.modelsDir, model, 'model.onnx'))) {
        console.log(`${model.padEnd(14)} skipped: ${opts.modelsDir}/${model}/model.onnx is missing`);
        continue;
      }
      try {
        const bench = (gemmTile) => inFreshPage(browser, server.url, (a) => window.kilnBench.benchModel(a),
          { model, runs: opts.runs, budgetMs: opts.maxSeconds * 1000, kilnInit: tileInit(gemmTile), threads: opts.threads,
            gapMs: opts.gapMs, turnRuns: opts.turnRuns });
        const r = await bench(opts.gemmTile === 'each' ? 'auto' : opts.gemmTile);
        r.ratio = r.medianMs.kiln / r.medianMs.ort;
        report.models.push(r);
        report.pageCpu ??= r.browserCpu;
        console.log(`${model.padEnd(14)} ${pad(r.modelMB.toFixed(1), 6)} ${pad(r.medianMs.kiln.toFixed(1), 9)}` +
          ` ${pad(r.medianMs.ort.toFixed(1), 9)} ${pad(r.ratio.toFixed(2), 9)} ${pad(r.times.kiln.length, 5)}` +
          ` ${pad(`${r.loadMs.kiln.toFixed(0)}/${r.loadMs.ort.toFixed(0)}`, 13)} ${pad(r.outputDiff.toExponential(1), 9)}` +
          `  ${r.kilnSimd}, tile ${r.kilnTile.tile} (${r.kilnTile.source}${r.kilnTile.tuneMs ? `, ${r.kilnTile.tuneMs.toFixed(0)} ms` : ''})`);
        if (opts.gemmTile === 'each') r.forced = await sweepTiles(r, bench);
      } catch (e) {
        report.models.push({ model, error: e.message });
        console.log(`${model.padEnd(14)} FAILED: ${e.message}`);
      }
    }
    if (report.pageCpu) console.log(describeCpu(report.cpu, report.pageCpu));

    // Startup, alternating which engine goes first, each in a fresh page.
    const startup = { kiln: [], ort: [] };
    for (let i = 0; i < opts.startupRuns; i++) {
      for (const name of i % 2 ? ['ort', 'kiln'] : ['kiln', 'ort']) {
        startup[name].push(await inFreshPage(browser, server.url,
          (n) => (n === 'kiln' ? window.kilnBench.startupKiln() : window.kilnBench.startupOrt()), name));
      }
    }
    const kilnMs = startup.kiln.map((k) => k.ms);
    report.startup = { kilnMs: median(kilnMs), ortMs: median(startup.ort), kilnTuneMs: median(startup.kiln.map((k) => k.tuneMs)),
      runs: startup };
    report.startup.ratio = report.startup.kilnMs / report.startup.ortMs;
    console.log(`\nstartup (import -> first digits result, fresh page, median of ${opts.startupRuns}): ` +
      `Kiln ${report.startup.kilnMs.toFixed(0)} ms (of which timing the GEMM tiles ${report.startup.kilnTuneMs.toFixed(0)} ms), ` +
      `ORT ${report.startup.ortMs.toFixed(0)} ms, Kiln/ORT ${report.startup.ratio.toFixed(2)}`);
  } finally {
    await browser.close();
    await server.close();
  }

  // What a page downloads: the engine binaries, and the JS that loads them.
  const kilnDir = opts.wasmDir;
  report.sizes = {
    // The single-threaded engine and every module of the JS API but the
    // worker's own script (loaded only by createWorkerSession). The
    // relaxed-SIMD engine, loaded instead where it runs, is the same size.
    kiln: sizes(['kiln-core.wasm', ...fs.readdirSync(kilnDir)
      .filter((f) => f.endsWith('.mjs') && !f.includes('-mt') && !f.includes('-relaxed') && f !== 'kiln-worker.mjs').sort()]
      .map((f) => path.join(kilnDir, f))),
    ort: sizes(['ort-wasm-simd-threaded.wasm', 'ort.wasm.min.mjs', 'ort-wasm-simd-threaded.mjs']
      .map((f) => path.join(ortDist, f))),
    ortOtherWasm: sizes(['ort-wasm-simd-threaded.jsep.wasm', 'ort-wasm-simd-threaded.asyncify.wasm',
      'ort-wasm-simd-threaded.jspi.wasm'].map((f) => path.join(ortDist, f))),
  };
  console.log('\nsizes (raw / gzip -9, KiB):');
  for (const [who, list] of Object.entries(report.sizes)) {
    for (const s of list) console.log(`  ${who.padEnd(13)} ${s.file.padEnd(38)} ${pad(kib(s.raw), 9)} / ${pad(kib(s.gzip), 8)}`);
  }
  const total = (list) => list.reduce((a, s) => ({ raw: a.raw + s.raw, gzip: a.gzip + s.gzip }), { raw: 0, gzip: 0 });
  const tk = total(report.sizes.kiln), to = total(report.sizes.ort);
  report.sizes.totals = { kiln: tk, ort: to };
  console.log(`  download for a wasm page: Kiln ${mb(tk.raw)} / ${mb(tk.gzip)} MiB, ORT ${mb(to.raw)} / ${mb(to.gzip)} MiB ` +
    `(gzip ratio Kiln/ORT ${(tk.gzip / to.gzip).toFixed(3)})`);

  fs.writeFileSync(opts.json, JSON.stringify(report, null, 1));
  console.log(`\nwrote ${path.resolve(opts.json)}`);
  return report.models.some((m) => m.error) ? 1 : 0;
}

main().then((rc) => process.exit(rc), (e) => {
  console.error(`run.mjs: ${e.stack ?? e}`);
  process.exit(1);
});
