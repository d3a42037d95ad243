// In-page benchmark: Kiln and onnxruntime-web on the same model and the
// same inputs, runs alternating between the two so both see the same
// machine load; startup of each from import to the first digits result.
// Driven by run.mjs (window.kilnBench), or by hand: index.html?models=squeezenet1_1
import { importKiln, importOrt, kilnSession, kilnWorkerSession, ortSession } from './engines.mjs';
import { fetchBytes, readInputs } from './model_files.mjs';
import { profileModel } from './profile.mjs';

const now = () => performance.now();

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// max |a - b| / max |b|: how far the engines' first outputs are apart.
function relativeDiff(a, b) {
  let diff = 0, ref = 0;
  for (let i = 0; i < b.length; i++) {
    diff = Math.max(diff, Math.abs(Number(a[i]) - Number(b[i])));
    ref = Math.max(ref, Math.abs(Number(b[i])));
  }
  return a.length === b.length ? diff / (ref || 1) : NaN;
}

/** Benchmarks models/<model>/model.onnx with its input_K.pb: one warm-up
 * run each, then up to `runs` runs of each engine (at least 5 when the
 * budget runs out), the engines taking turns of `turnRuns` runs each, the
 * order of the two reversed every turn. Returns times in ms. */
export async function benchModel({ model, runs = 15, budgetMs = 40000, kilnInit = {}, threads = 1, gapMs = 0,
  turnRuns = 1 }) {
  // With threads, Kiln's engine lives in a worker (kilnWorkerSession); the
  // page's own engine decodes the inputs and, unless a tile is forced,
  // chooses the worker's GEMM tile (createWorkerSession), so it gets the
  // same simulated CPU and SIMD build.
  const [kiln, ort] = await Promise.all([importKiln(kilnInit), importOrt(threads)]);
  const base = new URL(`../../models/${model}/`, import.meta.url).href;
  const bytes = await fetchBytes(`${base}model.onnx`);
  const tensors = await readInputs(kiln, base);
  const engines = [];
  const load = {};
  for (const [name, make] of [['kiln', () => (threads > 1 ? kilnWorkerSession(kiln, bytes.slice(), tensors, { ...kilnInit, threads })
    : kilnSession(kiln, bytes, tensors))], ['ort', () => ortSession(ort, bytes.slice(), tensors, threads)]]) {
    const t0 = now();
    engines.push(await make());
    load[name] = now() - t0;
  }
  const first = {}, outputs = {};
  for (const e of engines) {
    const t0 = now();
    outputs[e.name] = e.output(await e.run());
    first[e.name] = now() - t0;
  }
  const times = { kiln: [], ort: [] };
  const start = now();
  const turn = Math.max(1, Math.floor(turnRuns));
  for (let i = 0, t = 0; i < runs; i += turn, t++) {
    for (const e of t % 2 ? [...engines].reverse() : engines) {
      for (let j = 0; j < turn && i + j < runs; j++) {
        // an idle gap first: with threads, an engine's pool may still be
        // watching for work (spinning) when the other engine's run starts
        if (gapMs) await new Promise((resolve) => setTimeout(resolve, gapMs));
        const t0 = now();
        await e.run();
        times[e.name].push(now() - t0);
      }
    }
    if (i + turn >= 5 && now() - start > budgetMs) break;
  }
  const kilnEnv = engines[0].env;
  if (kilnEnv.threads !== threads) throw new Error(`Kiln ran ${kilnEnv.threads} threads, not ${threads}: ${kilnEnv.fallbackReason}`);
  for (const e of engines) await e.dispose();
  return {
    model,
    modelMB: bytes.byteLength / 1048576,
    inputs: tensors.map((t) => `${t.type}[${t.dims.join(',')}]`),
    loadMs: load,
    firstRunMs: first,
    medianMs: { kiln: median(times.kiln), ort: median(times.ort) },
    times,
    outputDiff: relativeDiff(outputs.kiln, outputs.ort),
    kilnSimd: kilnEnv.simd,
    kilnTile: { tile: kilnEnv.gemmTile, source: kilnEnv.gemmTileSource, tuneMs: kilnEnv.gemmTuneMs,
      candidates: kilnEnv.gemmTiles },
    threads,
    turnRuns: turn,
    browserCpu: { userAgent: navigator.userAgent, hardwareConcurrency: navigator.hardwareConcurrency },
  };
}

/** Kiln alone with { profile: true } (profile.mjs), on this page's thread
 * or, with inWorker, in a module worker as a worker session would run. */
export async function profileKiln({ inWorker = false, ...args }) {
  if (!inWorker) return profileModel(args);
  const worker = new Worker(new URL('./profile-worker.mjs', import.meta.url), { type: 'module' });
  try {
    const reply = await new Promise((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => reject(new Error(`profile worker: ${e.message}`));
      worker.postMessage(args);
    });
    if (reply.error) throw new Error(reply.error);
    return reply.result;
  } finally {
    worker.terminate();
  }
}

/** Auto against forced GEMM tiles in ONE page, so that drift in machine
 * load falls on all of them alike: the model is loaded in one worker
 * session (single-threaded engine) per candidate tile, forced, and one
 * more with the engine's own choice (timed by this page's engine after
 * its idle warm-up, as createWorkerSession does when nothing is stored);
 * then up to `runs` rounds run every session once, the order rotating
 * from round to round. Returns each session's times in ms. */
export async function compareTiles({ model, runs = 30, budgetMs = 120000, kilnInit = {} }) {
  const kiln = await importKiln(kilnInit);
  const base = new URL(`../../models/${model}/`, import.meta.url).href;
  const bytes = await fetchBytes(`${base}model.onnx`);
  const tensors = await readInputs(kiln, base);
  const sessions = [];
  const start = async (label, init) => {
    const remote = await kiln.createWorkerSession(bytes.slice(), { init: { ...kilnInit, ...init, threads: 1 } });
    const feeds = {};
    remote.inputs.forEach((info, i) => { feeds[info.name] = tensors[i]; });
    await remote.run(feeds); // warm-up
    await remote.run(feeds);
    sessions.push({ label, remote, feeds, times: [] });
  };
  await start('auto', {});
  for (const tile of kiln.env.gemmTiles) await start(tile, { gemmTile: tile });
  const t0 = now();
  for (let r = 0; r < runs; r++) {
    for (let j = 0; j < sessions.length; j++) {
      const s = sessions[(j + r) % sessions.length];
      const t = now();
      await s.remote.run(s.feeds);
      s.times.push(now() - t);
    }
    if (r >= 4 && now() - t0 > budgetMs) break;
  }
  const auto = sessions[0].remote.env;
  for (const s of sessions) await s.remote.dispose();
  return {
    model,
    auto: { tile: auto.gemmTile, source: auto.gemmTileSource, tuneMs: auto.gemmTuneMs, simd: auto.simd,
      shapes: auto.gemmTuneShapes ?? [], detail: auto.gemmTuneDetail ?? null },
    sessions: sessions.map((s) => ({ label: s.label, tile: s.remote.env.gemmTile, medianMs: median(s.times), times: s.times })),
  };
}

const DIGITS = new URL('../../examples/digits/digits.onnx', import.meta.url).href;
const zeros = () => ({ type: 'float32', dims: [1, 1, 8, 8], data: new Float32Array(64) });

/** ms from importing Kiln to its first digits result (call in a fresh
 * page: empty localStorage, so init() times the GEMM tiles, and that
 * time is counted), with what the timing took. */
export async function startupKiln() {
  const t0 = now();
  const kiln = await importKiln();
  const model = await kiln.Model.load(DIGITS);
  await model.createSession().run({ image: zeros() });
  return { ms: now() - t0, tuneMs: kiln.env.gemmTuneMs, tile: kiln.env.gemmTile };
}

/** The same for onnxruntime-web. */
export async function startupOrt() {
  const t0 = now();
  const ort = await importOrt();
  const session = await ort.InferenceSession.create(DIGITS, { executionProviders: ['wasm'] });
  const z = zeros();
  await session.run({ image: new ort.Tensor('float32', z.data, z.dims) });
  return now() - t0;
}

window.kilnBench = { benchModel, profileKiln, compareTiles, startupKiln, startupOrt };

// By hand: ?models=a,b&runs=N runs them and fills the table.
const params = new URLSearchParams(location.search);
if (params.get('models')) {
  const table = document.getElementById('results');
  const status = document.getElementById('status');
  for (const model of params.get('models').split(',')) {
    status.textContent = `running ${model}...`;
    try {
      const r = await benchModel({ model, runs: Number(params.get('runs') ?? 15) });
      const row = table.insertRow();
      for (const v of [model, r.medianMs.kiln.toFixed(1), r.medianMs.ort.toFixed(1),
        (r.medianMs.kiln / r.medianMs.ort).toFixed(2), r.outputDiff.toExponential(1)]) row.insertCell().textContent = v;
    } catch (e) {
      table.insertRow().insertCell().textContent = `${model}: ${e.message}`;
    }
  }
  status.textContent = 'done';
}
