// createWorkerSession: a model and session living in a Web Worker, with
// the same run() as Session. Each request is a message; results come back
// as transferred buffers. In Node the worker is a worker thread.
import { KilnError } from './kiln-errors.mjs';
import { isNode, relaxedSimdSupported } from './kiln-loader.mjs';
import { rememberGemmTile, storedGemmTiles } from './kiln-tuning.mjs';

// A Worker with the browser's interface, also under Node.
async function startWorker(url) {
  if (typeof Worker === 'function') {
    const w = new Worker(url, { type: 'module' });
    return {
      post: (msg, transfer) => w.postMessage(msg, transfer),
      onMessage: (fn) => { w.onmessage = (ev) => fn(ev.data); },
      onError: (fn) => { w.onerror = (ev) => fn(new Error(ev.message ?? 'kiln worker failed to start')); },
      terminate: () => w.terminate(),
    };
  }
  if (isNode) {
    const { Worker: NodeWorker } = await import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:worker_threads');
    const w = new NodeWorker(url);
    return {
      post: (msg, transfer) => w.postMessage(msg, transfer),
      onMessage: (fn) => w.on('message', fn),
      onError: (fn) => w.on('error', fn),
      terminate: () => w.terminate(),
    };
  }
  throw new Error('createWorkerSession: this environment has no Worker');
}

/** Loads `source` (a URL, or bytes: an ArrayBuffer or Uint8Array, copied
 * to the worker) in a new worker and returns
 * { inputs, outputs, env, run(feeds), dispose() }. options: { init (as
 * kiln.init), model (as Model.load), session (as createSession),
 * workerUrl, transferInputs (hand the feeds' buffers to the worker instead
 * of copying them; they become unusable here) }. `pageTile(bytes, simd)`
 * (kiln.mjs) resolves to the page engine's GEMM tile choice for the model
 * in `bytes`, { gemmTile, gemmTileSource, gemmTuneMs, gemmTuneDetail,
 * gemmModelKey, gemmTuneShapes } or null. */
export async function createWorkerSession(source, options = {}, pageTile = null) {
  const worker = await startWorker(options.workerUrl ?? new URL('./kiln-worker.mjs', import.meta.url));
  const pending = new Map();
  let nextId = 1;
  let failure = null;
  worker.onMessage((msg) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.value);
    else {
      const e = msg.error;
      p.reject(e.code !== undefined ? new KilnError(e.message, e.code, e.status) : new Error(e.message));
    }
  });
  worker.onError((e) => {
    failure = e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  });
  const request = (msg, transfer = []) => new Promise((resolve, reject) => {
    if (failure) return reject(failure);
    const id = nextId++;
    pending.set(id, { resolve, reject });
    worker.post({ ...msg, id }, transfer);
  });

  // A URL object does not survive postMessage; its text does. Relative
  // URLs are resolved here, against the page, not against the worker.
  let src = source;
  if (source instanceof URL) src = source.href;
  else if (typeof source === 'string' && globalThis.location) src = new URL(source, globalThis.location.href).href;
  // The worker cannot read the page's stored GEMM tiles (one per model),
  // so they are handed over; what a worker times is stored here for the
  // next one.
  const init = { ...options.init };
  // The worker picks its engine build as init() does here (same browser).
  const simd = (init.relaxedSimd ?? relaxedSimdSupported()) ? 'relaxed' : 'simd128';
  if (init.gemmTile === undefined) init.gemmTileStore = storedGemmTiles(simd);
  // For model bytes, the page's engine chooses (stored, or timed now on
  // the model's products), rather than the fresh worker timing on
  // unoptimised code; its timing cost is reported as the worker's.
  const bytes = source instanceof ArrayBuffer ? new Uint8Array(source)
    : ArrayBuffer.isView(source) ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength) : null;
  const fromPage = init.gemmTile === undefined && bytes && pageTile ? await pageTile(bytes, simd) : null;
  if (fromPage) init.gemmTile = fromPage.gemmTile;
  let info;
  try {
    info = await request({ op: 'load', source: src, init, model: options.model,
      session: options.session });
  } catch (e) {
    worker.terminate();
    throw e;
  }
  if (fromPage) info.env = { ...info.env, gemmTileSource: fromPage.gemmTileSource, gemmTuneMs: fromPage.gemmTuneMs,
    gemmTuneDetail: fromPage.gemmTuneDetail, gemmModelKey: fromPage.gemmModelKey,
    gemmTuneShapes: fromPage.gemmTuneShapes ?? [] };
  rememberGemmTile(info.env);
  let disposed = false;
  return {
    inputs: info.inputs,
    outputs: info.outputs,
    env: info.env,
    run(feeds) {
      if (disposed) return Promise.reject(new KilnError('the worker session was disposed', 9, 'wrong call order'));
      const transfer = options.transferInputs
        ? Object.values(feeds).map((t) => t.data.buffer) : [];
      return request({ op: 'run', feeds }, transfer);
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      try {
        await request({ op: 'dispose' });
      } finally {
        worker.terminate();
      }
    },
  };
}
