// Browser tests of the module itself (kiln.mjs in headless Chromium), each
// against the native build: digits samples, squeezenet1_1, the Web Worker,
// the threads engine under cross-origin isolation and its fallback
// without, and the startup time.
import fs from 'node:fs';
import path from 'node:path';
import { argmax, maxDiff, readTensor, runNative } from './native_ref.mjs';

export class Skip extends Error {}

/** A fresh browser context (own cache) with the blank test page loaded,
 * cross-origin isolated when `isolated`. Console lines are collected. */
export async function openPage(ctx, { isolated = false } = {}) {
  const context = await ctx.browser.newContext();
  const page = await context.newPage();
  const consoleLines = [];
  page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => consoleLines.push(`pageerror: ${e.message}`));
  await page.goto(`${ctx.url}${isolated ? 'coi/' : ''}wasm/browser/blank.html`);
  return { page, consoleLines, close: () => context.close() };
}

// In the page the module is imported relative to the page's URL, so
// under /coi/ everything stays cross-origin isolated.

function digitSamples(ctx) {
  const dir = path.join(ctx.sourceDir, 'examples/digits/samples');
  return fs.readdirSync(dir).filter((f) => f.endsWith('.pb')).sort().map((f) => ({
    file: path.join(dir, f), name: f, label: Number(/_label_(\d)/.exec(f)[1]),
  }));
}

const digitsModel = (ctx) => path.join(ctx.sourceDir, 'examples/digits/digits.onnx');

// Relative error bound of the numeric comparisons (max|diff| <= TOL * max|ref|).
const TOL = 1e-5;

async function digitsSamplesMatchNative(ctx) {
  const samples = digitSamples(ctx);
  if (samples.length === 0) throw new Error('no samples in examples/digits/samples');
  const inputs = samples.map((s) => Array.from(readTensor(s.file).data));
  const { page, close } = await openPage(ctx);
  try {
    const logits = await page.evaluate(async ({ inputs }) => {
      const kiln = await import(new URL('../../kiln/kiln.mjs', location.href).href);
      const model = await kiln.Model.load('../../examples/digits/digits.onnx');
      const session = model.createSession();
      const out = [];
      for (const data of inputs) {
        const r = await session.run({ image: { type: 'float32', dims: [1, 1, 8, 8], data: Float32Array.from(data) } });
        out.push(Array.from(r.logits.data));
      }
      model.dispose();
      return out;
    }, { inputs });
    let worst = 0, right = 0;
    samples.forEach((s, i) => {
      const native = runNative(ctx.cli, digitsModel(ctx), [s.file], path.join(ctx.tmp, 'digits_native'))[0];
      const nativeClass = argmax(native.data), webClass = argmax(logits[i]);
      if (webClass !== nativeClass)
        throw new Error(`${s.name}: browser class ${webClass}, native class ${nativeClass}`);
      const { diff, ref } = maxDiff(logits[i], native.data);
      if (diff > TOL * ref) throw new Error(`${s.name}: logits differ by ${diff} (max|ref| ${ref})`);
      worst = Math.max(worst, diff / ref);
      if (webClass === s.label) right++;
    });
    return `${samples.length} samples, classes equal native; ${right}/${samples.length} match the labels; ` +
      `worst max|diff|/max|ref| = ${worst.toExponential(2)}`;
  } finally {
    await close();
  }
}

async function squeezenetMatchesNative(ctx) {
  if (!ctx.modelsDir) throw new Skip('no models folder: pass --models DIR (run_browser_tests.sh exports squeezenet1_1 there with python3-torch)');
  const dir = path.join(ctx.modelsDir, 'squeezenet1_1');
  const model = path.join(dir, 'model.onnx'), input = path.join(dir, 'input_0.pb');
  if (!fs.existsSync(model) || !fs.existsSync(input)) throw new Skip(`${dir}/model.onnx or input_0.pb is missing`);
  const native = runNative(ctx.cli, model, [input], path.join(ctx.tmp, 'squeezenet_native'))[0];
  const { page, close } = await openPage(ctx);
  try {
    const web = await page.evaluate(async () => {
      const kiln = await import(new URL('../../kiln/kiln.mjs', location.href).href);
      const fetchBytes = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
      const model = await kiln.Model.load('../../models/squeezenet1_1/model.onnx');
      const input = kiln.decodeTensor(await fetchBytes('../../models/squeezenet1_1/input_0.pb'));
      const session = model.createSession();
      const t0 = performance.now();
      const out = Object.values(await session.run({ [model.inputs[0].name]: input }))[0];
      const ms = performance.now() - t0;
      model.dispose();
      return { dims: out.dims, data: Array.from(out.data), ms };
    });
    if (web.dims.join() !== native.dims.join())
      throw new Error(`output shape [${web.dims}] != native [${native.dims}]`);
    const { diff, ref } = maxDiff(web.data, native.data);
    const detail = `max|diff| = ${diff.toExponential(3)}, max|ref| = ${ref.toExponential(3)}, ` +
      `bound ${(TOL * ref).toExponential(3)}; first run ${web.ms.toFixed(0)} ms`;
    if (!(diff <= TOL * ref)) throw new Error(detail);
    return detail;
  } finally {
    await close();
  }
}

async function workerMatchesMainThread(ctx) {
  const samples = digitSamples(ctx).slice(0, 6);
  const inputs = samples.map((s) => Array.from(readTensor(s.file).data));
  const { page, close } = await openPage(ctx);
  try {
    const r = await page.evaluate(async ({ inputs }) => {
      const kiln = await import(new URL('../../kiln/kiln.mjs', location.href).href);
      await kiln.init();
      const url = new URL('../../examples/digits/digits.onnx', location.href);
      const remote = await kiln.createWorkerSession(url);
      const model = await kiln.Model.load(url);
      const local = model.createSession();
      const feeds = inputs.map((d) => ({ image: { type: 'float32', dims: [1, 1, 8, 8], data: Float32Array.from(d) } }));
      // All requests in flight at once: each answer must reach its caller.
      const fromWorker = await Promise.all(feeds.map((f) => remote.run(f)));
      let mismatches = 0;
      for (const [i, f] of feeds.entries()) {
        const want = (await local.run(f)).logits.data;
        if (fromWorker[i].logits.data.some((v, k) => v !== want[k])) mismatches++;
      }
      let error = null;
      try {
        await remote.run({ image: { type: 'float32', dims: [1, 1, 2, 2], data: new Float32Array(4) } });
      } catch (e) {
        error = { name: e.name, code: e.code, status: e.status, isKilnError: e instanceof kiln.KilnError };
      }
      await remote.dispose();
      model.dispose();
      return { mismatches, error, env: remote.env, inWorker: typeof WorkerGlobalScope };
    }, { inputs });
    if (r.mismatches) throw new Error(`${r.mismatches} worker results differ from this thread's`);
    if (!r.error?.isKilnError || r.error.status !== 'shape mismatch')
      throw new Error(`a bad input in the worker gave ${JSON.stringify(r.error)}, expected a KilnError 'shape mismatch'`);
    return `${samples.length} concurrent runs in a Web Worker equal this thread's bit for bit; ` +
      `errors arrive as KilnError (${r.error.status})`;
  } finally {
    await close();
  }
}

// The model the threads comparison runs: squeezenet1_1 when exported,
// else digits (too small to use a second thread much, but still a check).
function threadsModel(ctx) {
  const sq = ctx.modelsDir && path.join(ctx.modelsDir, 'squeezenet1_1');
  if (sq && fs.existsSync(path.join(sq, 'model.onnx')) && fs.existsSync(path.join(sq, 'input_0.pb')))
    return { name: 'squeezenet1_1', model: '../../models/squeezenet1_1/model.onnx', input: '../../models/squeezenet1_1/input_0.pb' };
  return { name: 'digits', model: '../../examples/digits/digits.onnx', input: '../../examples/digits/samples/digit_00_label_5.pb' };
}

// In-page: init with `threads`, run the model once; returns env and output.
async function runWithThreads(page, threads, which) {
  return page.evaluate(async ({ threads, which }) => {
    const kiln = await import(new URL('../../kiln/kiln.mjs', location.href).href);
    await kiln.init({ threads });
    const fetchBytes = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
    const model = await kiln.Model.load(which.model);
    const input = kiln.decodeTensor(await fetchBytes(which.input));
    const session = model.createSession();
    await session.run({ [model.inputs[0].name]: input }); // warm-up
    const t0 = performance.now();
    const out = Object.values(await session.run({ [model.inputs[0].name]: input }))[0];
    const ms = performance.now() - t0;
    model.dispose();
    return { env: { ...kiln.env }, isolated: globalThis.crossOriginIsolated, data: Array.from(out.data), ms };
  }, { threads, which });
}

async function threadsUnderIsolation(ctx) {
  const which = threadsModel(ctx);
  const single = await openPage(ctx, { isolated: false });
  let one;
  try {
    one = await runWithThreads(single.page, 1, which);
  } finally {
    await single.close();
  }
  const { page, consoleLines, close } = await openPage(ctx, { isolated: true });
  try {
    const r = await runWithThreads(page, 2, which);
    if (!r.isolated) throw new Error('the /coi/ page is not cross-origin isolated');
    if (r.env.build !== 'threads' || r.env.threads !== 2 || r.env.threadsFallback)
      throw new Error(`threads engine not in use: env ${JSON.stringify(r.env)}; console: ${consoleLines.join(' | ')}`);
    const { diff, ref } = maxDiff(r.data, one.data);
    if (!(diff <= TOL * ref)) throw new Error(`${which.name}: 2 threads differ from 1 by ${diff} (max|ref| ${ref})`);
    // The same in a Web Worker, whose engine starts its own thread workers.
    const w = await page.evaluate(async (which) => {
      const kiln = await import(new URL('../../kiln/kiln.mjs', location.href).href);
      const fetchBytes = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
      const input = kiln.decodeTensor(await fetchBytes(which.input));
      const remote = await kiln.createWorkerSession(new URL(which.model, location.href), { init: { threads: 2 } });
      const out = Object.values(await remote.run({ [remote.inputs[0].name]: input }))[0];
      await remote.dispose();
      return { env: remote.env, data: Array.from(out.data) };
    }, which);
    if (w.env.build !== 'threads' || w.env.threads !== 2)
      throw new Error(`the worker's engine did not start threads: env ${JSON.stringify(w.env)}`);
    const inWorker = maxDiff(w.data, one.data);
    if (!(inWorker.diff <= TOL * inWorker.ref))
      throw new Error(`${which.name}: 2 threads in a worker differ from 1 by ${inWorker.diff}`);
    return `${which.name} on 2 threads (build ${r.env.build}): ${r.ms.toFixed(1)} ms vs ${one.ms.toFixed(1)} ms ` +
      `on 1; max|diff| ${diff.toExponential(2)}; in a Web Worker on 2 threads: max|diff| ${inWorker.diff.toExponential(2)}`;
  } finally {
    await close();
  }
}

async function threadsFallBackWithoutIsolation(ctx) {
  const which = threadsModel(ctx);
  const { page, consoleLines, close } = await openPage(ctx, { isolated: false });
  try {
    const r = await runWithThreads(page, 4, which);
    if (r.isolated) throw new Error('the plain page is cross-origin isolated');
    if (r.env.build !== 'single' || r.env.threads !== 1 || !r.env.threadsFallback)
      throw new Error(`expected a fallback to one thread, env ${JSON.stringify(r.env)}`);
    if (!/cross-origin isolated/.test(r.env.fallbackReason))
      throw new Error(`unclear fallback reason: '${r.env.fallbackReason}'`);
    const warning = consoleLines.find((l) => /4 threads requested but running on 1/.test(l));
    if (!warning) throw new Error(`no console warning; console: ${consoleLines.join(' | ')}`);
    return `warned: "${warning.replace(/^warning: /, '').slice(0, 110)}..."`;
  } finally {
    await close();
  }
}

// Startup: import of kiln.mjs to the first digits result, in a fresh
// context (empty cache) each time; the median of STARTUP_RUNS.
const STARTUP_RUNS = 5;
export async function startupMs(ctx, measure) {
  const times = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const { page, close } = await openPage(ctx);
    try {
      times.push(await page.evaluate(measure));
    } finally {
      await close();
    }
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], times };
}

async function startupTime(ctx) {
  const { median, times } = await startupMs(ctx, async () => {
    const t0 = performance.now();
    const kiln = await import(new URL('../../kiln/kiln.mjs', location.href).href);
    const model = await kiln.Model.load('../../examples/digits/digits.onnx');
    const out = await model.createSession().run({ image: { type: 'float32', dims: [1, 1, 8, 8], data: new Float32Array(64) } });
    if (out.logits.data.length !== 10) throw new Error('bad output');
    return performance.now() - t0;
  });
  return `import -> first digits result: median ${median.toFixed(1)} ms (${times.map((t) => t.toFixed(0)).join(', ')})`;
}

export const moduleTests = [
  ['digits samples equal the native CLI', digitsSamplesMatchNative],
  ['squeezenet1_1 equals the native CLI', squeezenetMatchesNative],
  ['Web Worker session', workerMatchesMainThread],
  ['threads engine under COOP/COEP, page and worker', threadsUnderIsolation],
  ['threads fall back to one without COOP/COEP', threadsFallBackWithoutIsolation],
  ['startup time', startupTime],
];
