// Kiln for WebAssembly: the JavaScript API over the C API in capi/kiln.h.
//
//   import * as kiln from './kiln.mjs';
//   await kiln.init();                       // or init({ threads: 4 })
//   const model = await kiln.Model.load('model.onnx');
//   const session = model.createSession();
//   const out = await session.run({ input: { type: 'float32', dims: [1, 3, 224, 224], data } });
//
// The engine (kiln-core.mjs + kiln-core.wasm, or the -mt variant for
// threads) sits next to this file and is found with import.meta.url, which
// bundlers understand. Works in browsers, Web Workers and Node 20.
import { KilnError } from './kiln-errors.mjs';
import { isNode, loadEngine, readUrl, threadsUnavailableReason } from './kiln-loader.mjs';
import { activeTile, chooseGemmTile, forceTile, modelKey, storedModelTile, timeForModel, TUNE_FROM_MODEL_BYTES,
  warmUpDone, withCensus } from './kiln-tuning.mjs';
import { DTYPES, dtypeOf, typeInfo } from './kiln-types.mjs';

export { KilnError };

import { createWorkerSession as startWorkerSession } from './kiln-worker-client.mjs';

/** A model and session in a Web Worker (kiln-worker-client.mjs). When this
 * page's engine is started and chooses GEMM tiles per model, the choice
 * for a model handed over as bytes is made here for the worker: this
 * engine has had the page's idle time to get its candidates optimised,
 * where a fresh worker would time them at once on the browser's baseline
 * code (25-136 ms on a loaded 2-core machine, against 20-40 here), and in
 * a page of several workers each would time them again. The candidates
 * are the same code in both builds and the timing runs on one thread, so
 * the choice carries. */
export function createWorkerSession(source, options = {}) {
  return startWorkerSession(source, options, pageGemmTile);
}

// The engine's handles, for kiln-tuning.mjs.
function tuningEngine() {
  return { core, allocString, readCString, simd: env.simd, memoryBuffer: () => memory.buffer };
}

// For startWorkerSession: the tile this page's engine chooses for the
// model in `bytes` (stored, or timed now on its products: the model is
// loaded here for its first session's census, then let go), as { gemmTile,
// gemmTuneMs, gemmTileSource, gemmModelKey }, or null when this page has
// no say (engine not started, another SIMD build, a forced tile, or a
// small model).
async function pageGemmTile(bytes, simd) {
  if (!env.initialized || env.simd !== simd || !tilesPerModel || bytes.byteLength < TUNE_FROM_MODEL_BYTES) return null;
  const key = modelKey(bytes);
  const stored = storedModelTile(simd, key, env.gemmTiles);
  if (stored) return { gemmTile: stored, gemmTileSource: 'stored', gemmTuneMs: 0, gemmTuneDetail: null, gemmModelKey: key };
  const model = await Model.load(bytes);
  try {
    model.createSession().dispose();
    return { gemmTile: model.gemmTile, gemmTileSource: 'timed', gemmTuneMs: env.gemmTuneMs,
      gemmTuneDetail: env.gemmTuneDetail, gemmModelKey: key, gemmTuneShapes: env.gemmTuneShapes };
  } finally {
    model.dispose();
  }
}

// Status codes and option keys of capi/kiln.h.
const OK = 0, ERR_INVALID_ARGUMENT = 1, ERR_NOT_FOUND = 8, ERR_STATE = 9, ERR_BUFFER_TOO_SMALL = 12;
const OPT_THREADS = 1, OPT_ALLOW_UNSUPPORTED = 2, OPT_MAX_MODEL_MB = 3, OPT_MAX_ARENA_MB = 4,
  OPT_OPTIMIZE = 5, OPT_PROFILE = 8, OPT_PLAN_CACHE = 9;
const MAX_PLAN_CACHE = 1024;
const INPUT_BORROW = 0;
const IMAGE_BGR = 1;
const MAX_RANK = 8;


/** How the engine is running, filled in by init(): `threads` actually in
 * use, `requestedThreads`, and when fewer threads run than were asked for,
 * `threadsFallback` = true and `fallbackReason`. `build` is 'single' or
 * 'threads'; `simd` 'relaxed' (the Relaxed SIMD engine: fused multiply-add)
 * or 'simd128'; `version` the engine's release. `gemmTile` is the matrix
 * product's micro-tile in use (of `gemmTiles`), `gemmTileSource` how it
 * was chosen: 'timed' (on the products of the model last loaded, of 1 MiB
 * or more, when its first session was created, or at init with gemmTile
 * 'auto' on stand-in shapes; it took `gemmTuneMs`), 'stored' (an earlier
 * timing of that model, `gemmModelKey`), 'option', or 'pending' (the
 * default tile until a large model's first session; meanwhile the
 * candidates run briefly while the page is idle, for the browser's
 * compiler). Each large model keeps its own tile (`model.gemmTile`);
 * `gemmTuneShapes` are the products ([m, n, k]) its timing ran on, before
 * they were cut to size (empty for stand-in shapes), `gemmTuneDetail` what
 * that timing saw: each candidate's fastest round in ms and its spread,
 * the counted rounds, the fastest candidate (chosen only where it beat
 * the first by more than the two spreads added). */
export const env = {
  initialized: false,
  build: null,
  simd: null,
  version: null,
  threads: 1,
  requestedThreads: 1,
  threadsFallback: false,
  fallbackReason: '',
  gemmTile: null,
  gemmTiles: [],
  gemmTuneMs: 0,
  gemmTuneDetail: null,
  gemmTileSource: null,
  gemmModelKey: null,
  gemmTuneShapes: [],
};

let core = null;        // the Emscripten module (exports as core._kiln_*)
let memory = null;      // its WebAssembly.Memory
let runtime = 0;        // kiln_runtime*
let scratch = 0;        // 256 bytes for out-parameters
let initPromise = null;
let tilesPerModel = false; // no gemmTile option: each large model chooses its own
let tunedAModel = false;   // stops the idle warm-up
const SCRATCH_BYTES = 256;

// ---- memory access -------------------------------------------------------
// Views are re-created when the memory has grown (the old buffer detaches).
let u8 = null;
function heap() {
  if (!u8 || u8.buffer !== memory.buffer) u8 = new Uint8Array(memory.buffer);
  return u8;
}
function view() { return new DataView(memory.buffer); }
const i32At = (p) => view().getInt32(p, true);
const u32At = (p) => view().getUint32(p, true);
const i64At = (p) => Number(view().getBigInt64(p, true));

const encoder = new TextEncoder();
const decoder = new TextDecoder();
// TextDecoder refuses views of a SharedArrayBuffer (the threads build), so
// the bytes are copied out first.
function readString(ptr, len) {
  return decoder.decode(heap().slice(ptr, ptr + len));
}
function readCString(ptr) {
  const h = heap();
  let end = ptr;
  while (h[end] !== 0) end++;
  return readString(ptr, end - ptr);
}

function malloc(n) {
  const p = core._malloc(Math.max(1, n));
  if (!p) throw new KilnError(`out of memory allocating ${n} bytes in the wasm heap`, 2, 'out of memory');
  return p;
}
// Copies a string (NUL-terminated) into the heap; the caller frees it.
function allocString(s) {
  const bytes = encoder.encode(s);
  const p = malloc(bytes.length + 1);
  heap().set(bytes, p);
  heap()[p + bytes.length] = 0;
  return p;
}
function allocBytes(bytes) {
  const p = malloc(bytes.byteLength);
  heap().set(bytes, p);
  return p;
}

function lastError() {
  const n = core._kiln_last_error(scratch, SCRATCH_BYTES);
  if (n < SCRATCH_BYTES) return readCString(scratch);
  const p = malloc(n + 1);
  try {
    core._kiln_last_error(p, n + 1);
    return readCString(p);
  } finally {
    core._free(p);
  }
}

function statusName(code) {
  return readCString(core._kiln_status_name(code));
}

// Throws the engine's error for a failed status.
function check(rc) {
  if (rc !== OK) throw new KilnError(lastError(), rc, statusName(rc));
}

function requireInit(what) {
  if (!core) throw new KilnError(`${what}: call kiln.init() first`, ERR_STATE, 'wrong call order');
}

function argError(message) {
  return new KilnError(message, ERR_INVALID_ARGUMENT, 'invalid argument');
}

// Strings by the two-call pattern: fn(buf, cap, neededPtr).
function twoCallString(fn) {
  const neededPtr = scratch;
  const buf = scratch + 8;
  const cap = SCRATCH_BYTES - 8;
  const rc = fn(buf, cap, neededPtr);
  if (rc === OK) return readCString(buf);
  if (rc !== ERR_BUFFER_TOO_SMALL) check(rc);
  const needed = i32At(neededPtr);
  const p = malloc(needed);
  try {
    check(fn(p, needed, neededPtr));
    return readCString(p);
  } finally {
    core._free(p);
  }
}

// Shapes by fn(dimsPtr, cap, rankPtr): an int64 array, -1 = dynamic.
function readShape(fn) {
  const rankPtr = scratch;
  const dims = scratch + 8;
  check(fn(dims, MAX_RANK, rankPtr));
  const rank = i32At(rankPtr);
  if (rank < 0) return null;
  const v = view();
  const out = [];
  for (let i = 0; i < rank; i++) out.push(Number(v.getBigInt64(dims + 8 * i, true)));
  return out;
}

// ---- options -------------------------------------------------------------
function withOptions(settings, fn) {
  check(core._kiln_options_create(scratch));
  const opts = u32At(scratch);
  try {
    for (const [key, value] of settings) {
      if (value === undefined) continue;
      check(core._kiln_options_set_int(opts, key, Number(value) | 0));
    }
    return fn(opts);
  } finally {
    core._kiln_options_destroy(opts);
  }
}

/** Loads and starts the engine. Safe to call more than once (later calls
 * return the first call's promise). options.threads > 1 loads the threads
 * build when SharedArrayBuffer is usable; otherwise a warning is printed,
 * env.threadsFallback is set and one thread runs. options.gemmTile: 'auto'
 * times the matrix product's tile candidates now on stand-in shapes, for
 * every model; a candidate's name (env.gemmTiles) forces it; by default
 * each model of 1 MiB or more gets its own: an earlier timing of that
 * model on this browser and CPU (localStorage), else the candidates are
 * timed on the model's own products when its first session is created
 * (tens of ms, env.gemmTuneMs). */
export function init(options = {}) {
  if (!initPromise) initPromise = doInit(options).catch((e) => { initPromise = null; throw e; });
  return initPromise;
}

async function doInit(options) {
  const requested = Math.max(1, Math.floor(options.threads ?? 1));
  let threads = requested;
  let reason = '';
  if (requested > 1 && (reason = threadsUnavailableReason())) threads = 1;
  let loaded;
  try {
    loaded = await loadEngine(options, threads);
  } catch (e) {
    if (threads === 1) throw e;
    reason = `the threads build failed to load (${e?.message ?? e})`;
    threads = 1;
    loaded = await loadEngine(options, 1);
  }
  if (reason) {
    console.warn(`kiln: ${requested} threads requested but running on 1: ${reason}`);
  }
  core = loaded.mod;
  memory = loaded.memory;
  scratch = malloc(SCRATCH_BYTES);
  const abi = core._kiln_abi_version();
  if (abi !== 1) throw new KilnError(`kiln-core.wasm has ABI version ${abi}; this kiln.mjs expects 1`, 11, 'internal error');
  if (options.simulateSlowTile) simulateSlowTile(options.simulateSlowTile);
  tilesPerModel = options.gemmTile === undefined;
  const tuning = chooseGemmTile({ core, allocString, readCString, simd: loaded.simd, memoryBuffer: () => memory.buffer,
    pending: () => tilesPerModel && !tunedAModel }, options.gemmTile, argError, options.gemmTileStore);
  runtime = withOptions([[OPT_THREADS, threads]], (opts) => {
    check(core._kiln_runtime_create(opts, scratch + 8));
    return u32At(scratch + 8);
  });
  Object.assign(env, {
    initialized: true,
    build: threads > 1 ? 'threads' : 'single',
    simd: loaded.simd,
    version: readCString(core._kiln_version()),
    threads,
    requestedThreads: requested,
    threadsFallback: threads < requested,
    fallbackReason: reason,
    ...tuning,
  });
}

// A benchmark's simulated second CPU: { tile: '4x8', factor: 1.5 } makes
// that GEMM tile's products take 1.5x as long (core/simd/gemm_tiles.h), to
// show the timed choice moving away from it. Not for production use.
function simulateSlowTile({ tile, factor }) {
  const p = allocString(String(tile));
  try {
    if (core._kiln_wasm_gemm_tile_simulate_slowdown(p, Number(factor)) !== 0)
      throw argError(`init: simulateSlowTile needs a tile of ${readCString(core._kiln_wasm_gemm_tiles())} and a factor >= 1`);
  } finally {
    core._free(p);
  }
}

// ---- tensors -------------------------------------------------------------
// Copies heap bytes into a new typed array of the dtype.
function tensorFromHeap(dtype, dims, ptr, nbytes) {
  const info = typeInfo(dtype);
  const bytes = heap().slice(ptr, ptr + nbytes);
  const data = info.bits ? bytes : new info.array(bytes.buffer, 0, nbytes / info.array.BYTES_PER_ELEMENT);
  return { type: info.name, dims, data };
}

// The bytes of a feed as the engine wants them, plus its dtype number.
function feedBytes(name, t) {
  if (!t || typeof t !== 'object' || !t.data || !Array.isArray(t.dims) && !ArrayBuffer.isView(t.dims))
    throw argError(`input '${name}': expected a tensor { type, dims, data }`);
  const dtype = dtypeOf(t.type, t.data);
  if (!dtype) throw argError(`input '${name}': unknown tensor type '${t.type}'`);
  const info = typeInfo(dtype);
  let data = t.data;
  if (Array.isArray(data)) {
    data = info.array === BigInt64Array || info.array === BigUint64Array
      ? info.array.from(data, (v) => BigInt(v))
      : info.array.from(data, (v) => (typeof v === 'boolean' ? Number(v) : v));
  }
  if (!ArrayBuffer.isView(data)) throw argError(`input '${name}': data is not a typed array`);
  return { dtype, bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

// ---- model ---------------------------------------------------------------
async function sourceBytes(source) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  if (typeof source === 'string' || source instanceof URL) {
    let url;
    if (isNode && typeof source === 'string' && !/^[a-z][a-z0-9+.-]*:/i.test(source)) {
      const { pathToFileURL } = await import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:url');
      url = pathToFileURL(source);
    } else {
      url = new URL(source, globalThis.location?.href);
    }
    return readUrl(url);
  }
  throw argError('Model.load: source must be a URL, a path, an ArrayBuffer or a Uint8Array');
}

function tensorInfos(handle, which) {
  const count = (() => {
    check(core[`_kiln_model_${which}_count`](handle, scratch));
    return i32At(scratch);
  })();
  const infos = [];
  for (let i = 0; i < count; i++) {
    const name = twoCallString((buf, cap, needed) => core[`_kiln_model_${which}_name`](handle, i, buf, cap, needed));
    check(core[`_kiln_model_${which}_dtype`](handle, i, scratch));
    const dtype = i32At(scratch);
    const shape = readShape((dims, cap, rank) => core[`_kiln_model_${which}_shape`](handle, i, dims, cap, rank));
    infos.push(Object.freeze({
      name,
      type: dtype ? typeInfo(dtype)?.name ?? `dtype ${dtype}` : null,
      dims: shape ? Object.freeze(shape.map((d) => (d < 0 ? null : d))) : null,
    }));
  }
  return Object.freeze(infos);
}

// A misspelled key is named as such, before any input is reported missing
// (the misspelling is the cause); an input never fed is missing (one fed
// before stays bound). The texts are the C library's and the Node binding's.
function checkFeedNames(feeds, inputs, bound) {
  const quoted = inputs.map((input) => `'${input.name}'`).join(', ');
  for (const name of Object.keys(feeds)) {
    if (!inputs.some((input) => input.name === name)) {
      throw new KilnError(`Session.run: unknown input '${name}'; the model's inputs are: ${quoted}`,
        ERR_NOT_FOUND, 'not found');
    }
  }
  for (const input of inputs) {
    if (!Object.prototype.hasOwnProperty.call(feeds, input.name) && !bound.has(input.name)) {
      const shape = input.dims === null ? 'unknown'
        : input.dims.length === 0 ? 'scalar' : input.dims.map((d) => (d === null ? '?' : d)).join('x');
      throw argError(`Session.run: input '${input.name}' (${input.type}, shape ${shape}) is missing from the feeds`);
    }
  }
}

/** A loaded ONNX model. Create sessions from it to run it. */
export class Model {
  #handle;
  #sessions = new Set();
  #tileKey = null; // modelKey() of a model that chooses its own tile
  #tile = null;    // that tile, once stored or timed

  constructor(handle) {
    this.#handle = handle;
    this.inputs = tensorInfos(handle, 'input');
    this.outputs = tensorInfos(handle, 'output');
  }

  /** Loads a model from a URL (fetched; a file path in Node), an
   * ArrayBuffer or a Uint8Array. options: { optimize: 0|1|2,
   * allowUnsupported: boolean, maxModelMB: number }. Calls init() with
   * default options when the engine is not started yet. */
  static async load(source, options = {}) {
    const bytes = await sourceBytes(source);
    await init();
    // A model that will be timed waits for the candidates' warm-up (one
    // with a stored choice does not).
    if (tilesPerModel && !tunedAModel && bytes.byteLength >= TUNE_FROM_MODEL_BYTES &&
      !storedModelTile(env.simd, modelKey(bytes), env.gemmTiles)) await warmUpDone();
    const p = allocBytes(bytes);
    try {
      return Model.#fromBytes(p, bytes, options);
    } catch (e) {
      // The engine saw bytes; name the file they came from, as the C library does.
      const from = typeof source === 'string' ? source : source instanceof URL ? source.href : null;
      if (from !== null && e instanceof KilnError && e.message.startsWith('the model bytes are ')) {
        const what = e.message.slice('the model bytes are '.length).replace(/^an ONNX tensor,/, 'an ONNX tensor file,');
        throw new KilnError(`'${from}' is ${what}`, e.code, e.status);
      }
      throw e;
    } finally {
      core._free(p);
    }
  }

  // The model in `bytes`, already copied to the engine's heap at p.
  static #fromBytes(p, bytes, options) {
    const handle = withOptions([
      [OPT_OPTIMIZE, options.optimize],
      [OPT_ALLOW_UNSUPPORTED, options.allowUnsupported === undefined ? undefined : +!!options.allowUnsupported],
      [OPT_MAX_MODEL_MB, options.maxModelMB],
    ], (opts) => {
      check(core._kiln_model_load_memory(runtime, p, bytes.byteLength, opts, scratch + 8));
      return u32At(scratch + 8);
    });
    const model = new Model(handle);
    if (tilesPerModel && bytes.byteLength >= TUNE_FROM_MODEL_BYTES) {
      model.#tileKey = modelKey(bytes);
      model.#tile = storedModelTile(env.simd, model.#tileKey, env.gemmTiles);
      if (model.#tile) {
        Object.assign(env, { gemmTileSource: 'stored', gemmTuneMs: 0, gemmTuneDetail: null, gemmModelKey: model.#tileKey,
          gemmTuneShapes: [] });
      }
    }
    return model;
  }

  /** The GEMM tile this model's sessions run (env.gemmTile), or null when
   * the engine-wide choice applies (a small model, a forced tile, or
   * before the first session of a model still to be timed). */
  get gemmTile() { return this.#tile; }

  // Before this model packs weights or runs: its own tile becomes the
  // engine's (products without packed weights follow the engine's tile).
  activateTile() {
    if (this.#tile && activeTile(tuningEngine()) !== this.#tile) {
      forceTile(tuningEngine(), this.#tile);
      env.gemmTile = this.#tile;
    }
  }

  /** A session holds the planned memory for runs; options: { maxArenaMB,
   * profile, planCache (plans kept, one per input signature, 1..1024,
   * default 8) }. */
  createSession(options = {}) {
    if (!this.#handle) throw new KilnError('Model.createSession: the model was disposed', ERR_STATE, 'wrong call order');
    const plans = options.planCache;
    if (plans !== undefined && !(Number.isInteger(plans) && plans >= 1 && plans <= MAX_PLAN_CACHE))
      throw argError(`createSession: planCache must be an integer from 1 to ${MAX_PLAN_CACHE}, got ${plans}`);
    const create = () => withOptions([
      [OPT_MAX_ARENA_MB, options.maxArenaMB],
      [OPT_PROFILE, options.profile === undefined ? undefined : +!!options.profile],
      [OPT_PLAN_CACHE, plans],
    ], (opts) => {
      check(core._kiln_session_create(this.#handle, opts, scratch + 8));
      return u32At(scratch + 8);
    });
    let handle;
    if (this.#tileKey && !this.#tile) {
      // The first session of a model to be timed: its kernels' planned
      // products say which shapes matter; the candidates are timed on
      // those, and if another tile than the one that packed this
      // session's weights wins, the session is prepared again with it.
      const engine = tuningEngine();
      const packedWith = activeTile(engine);
      const census = withCensus(engine, create);
      handle = census.value;
      tunedAModel = true;
      Object.assign(env, timeForModel(engine, census.shapes, this.#tileKey), { gemmModelKey: this.#tileKey });
      this.#tile = env.gemmTile;
      if (this.#tile !== packedWith) {
        core._kiln_session_destroy(handle);
        handle = create();
      }
    } else {
      this.activateTile();
      handle = create();
    }
    const session = new Session(handle, this, () => this.#sessions.delete(session));
    this.#sessions.add(session);
    return session;
  }

  /** Memory the model holds for all its sessions, in bytes: { weightBytes
   * (the weights as loaded), sharedPreparedBytes (prepared copies of them
   * every session shares), givenBackBytes (raw weight bytes given back
   * because only a shared copy is read) }. */
  memoryInfo() {
    if (!this.#handle) throw new KilnError('Model.memoryInfo: the model was disposed', ERR_STATE, 'wrong call order');
    check(core._kiln_model_memory_info(this.#handle, scratch, scratch + 8, scratch + 16));
    return { weightBytes: i64At(scratch), sharedPreparedBytes: i64At(scratch + 8), givenBackBytes: i64At(scratch + 16) };
  }

  /** Frees the model and every session still open on it. */
  dispose() {
    if (!this.#handle) return;
    for (const s of [...this.#sessions]) s.dispose();
    core._kiln_model_destroy(this.#handle);
    this.#handle = 0;
  }
}

/** Runs a model. One run at a time per session. */
export class Session {
  #handle;
  #model;
  #onDispose;
  #buffers = new Map(); // input name -> { ptr, cap }: reused between runs
  #namePtrs = new Map();

  constructor(handle, model, onDispose) {
    this.#handle = handle;
    this.#model = model;
    this.#onDispose = onDispose;
  }

  get inputs() { return this.#model.inputs; }
  get outputs() { return this.#model.outputs; }

  /** feeds: { inputName: { type, dims, data } }. Resolves to
   * { outputName: { type, dims, data } } (fresh arrays the caller owns). */
  async run(feeds) {
    return this.runSync(feeds);
  }

  /** run() without the promise: blocks until the outputs are ready. */
  runSync(feeds) {
    if (!this.#handle) throw new KilnError('Session.run: the session was disposed', ERR_STATE, 'wrong call order');
    if (!feeds || typeof feeds !== 'object') throw argError('Session.run: feeds must be an object of tensors');
    checkFeedNames(feeds, this.inputs, this.#buffers);
    for (const [name, t] of Object.entries(feeds)) this.#bind(name, t);
    this.#model.activateTile();
    check(core._kiln_session_run(this.#handle));
    const result = {};
    this.outputs.forEach((o, i) => { result[o.name] = this.#output(i); });
    return result;
  }

  #bind(name, t) {
    const { dtype, bytes } = feedBytes(name, t);
    const dims = Array.from(t.dims, Number);
    if (!dims.every((d) => Number.isSafeInteger(d) && d >= 0))
      throw argError(`input '${name}': dims [${dims}] are not all non-negative integers`);
    if (dims.length > MAX_RANK) throw argError(`input '${name}': rank ${dims.length} is above ${MAX_RANK}`);
    // The buffer is borrowed by the engine and stays bound between runs,
    // so it lives as long as the session and is grown when needed.
    let buf = this.#buffers.get(name);
    if (!buf || buf.cap < bytes.byteLength) {
      if (buf) core._free(buf.ptr);
      buf = { ptr: malloc(bytes.byteLength), cap: Math.max(1, bytes.byteLength) };
      this.#buffers.set(name, buf);
    }
    heap().set(bytes, buf.ptr);
    let namePtr = this.#namePtrs.get(name);
    if (!namePtr) this.#namePtrs.set(name, (namePtr = allocString(name)));
    const dimsPtr = scratch + 8;
    const v = view();
    dims.forEach((d, i) => v.setBigInt64(dimsPtr + 8 * i, BigInt(d), true));
    check(core._kiln_session_set_input(this.#handle, namePtr, dtype, dimsPtr, dims.length,
      buf.ptr, bytes.byteLength, INPUT_BORROW));
  }

  #output(index) {
    const dtypePtr = scratch, rankPtr = scratch + 4, dimsPtr = scratch + 8;
    check(core._kiln_session_output_info(this.#handle, index, dtypePtr, dimsPtr, MAX_RANK, rankPtr));
    const v = view();
    const dtype = v.getInt32(dtypePtr, true);
    const dims = [];
    for (let i = 0; i < v.getInt32(rankPtr, true); i++) dims.push(Number(v.getBigInt64(dimsPtr + 8 * i, true)));
    const dataPtr = scratch + 8 + 8 * MAX_RANK, sizePtr = dataPtr + 4;
    check(core._kiln_session_output_view(this.#handle, index, dataPtr, sizePtr));
    return tensorFromHeap(dtype, dims, u32At(dataPtr), u32At(sizePtr));
  }

  /** The plan cache now: { plansKept, plansBuilt (so far: one per new
   * input signature), arenaBytes (of the arena the kept plans share) }. */
  cacheInfo() {
    check(core._kiln_session_cache_info(this.#live('cacheInfo'), scratch, scratch + 8, scratch + 16));
    return { plansKept: i32At(scratch), plansBuilt: i64At(scratch + 8), arenaBytes: i64At(scratch + 16) };
  }

  /** Time per executed step since the plan was built (sessions created
   * with { profile: true }): [{ name, op, kernel, totalMs, runs }] in plan
   * order. resetProfile() zeroes the times (e.g. after a warm-up run). */
  profile() {
    const h = this.#live('profile');
    check(core._kiln_session_profile_count(h, scratch));
    const steps = [], n = i32At(scratch);
    for (let i = 0; i < n; i++) {
      const text = (what) => twoCallString((buf, cap, needed) => core[`_kiln_session_profile_${what}`](h, i, buf, cap, needed));
      check(core._kiln_session_profile_time(h, i, scratch, scratch + 8));
      const totalMs = i64At(scratch) / 1e6, runs = i64At(scratch + 8); // before text() reuses scratch
      steps.push({ name: text('name'), op: text('op'), kernel: text('kernel'), totalMs, runs });
    }
    return steps;
  }

  resetProfile() {
    check(core._kiln_session_profile_reset(this.#live('resetProfile')));
  }

  /** Gives back every kept plan and their arena; the next run plans again.
   * Inputs stay bound. */
  releaseMemory() {
    check(core._kiln_session_release_memory(this.#live('releaseMemory')));
  }

  #live(what) {
    if (!this.#handle) throw new KilnError(`Session.${what}: the session was disposed`, ERR_STATE, 'wrong call order');
    return this.#handle;
  }

  /** Frees the session (its planned memory and input buffers). */
  dispose() {
    if (!this.#handle) return;
    core._kiln_session_destroy(this.#handle);
    this.#handle = 0;
    for (const b of this.#buffers.values()) core._free(b.ptr);
    for (const p of this.#namePtrs.values()) core._free(p);
    this.#buffers.clear();
    this.#namePtrs.clear();
    this.#onDispose();
  }
}

// ---- ONNX TensorProto files (.pb) ----------------------------------------
/** Decodes a serialized ONNX TensorProto (e.g. a test_data_set input_0.pb)
 * into { name, type, dims, data }. */
export function decodeTensor(bytes) {
  requireInit('decodeTensor');
  const src = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes.buffer ?? bytes, bytes.byteOffset ?? 0, bytes.byteLength);
  const p = allocBytes(src);
  let handle = 0;
  try {
    check(core._kiln_tensor_decode(p, src.byteLength, scratch));
    handle = u32At(scratch);
    const dims = readShape((d, cap, rank) => core._kiln_tensor_info(handle, scratch + 4, d, cap, rank));
    const dtype = i32At(scratch + 4);
    const dataPtr = scratch + 8 + 8 * MAX_RANK;
    check(core._kiln_tensor_data(handle, dataPtr, dataPtr + 4));
    const t = tensorFromHeap(dtype, dims, u32At(dataPtr), u32At(dataPtr + 4));
    t.name = twoCallString((buf, cap, needed) => core._kiln_tensor_name(handle, buf, cap, needed));
    return t;
  } finally {
    core._kiln_tensor_destroy(handle);
    core._free(p);
  }
}

/** Serializes a tensor as an ONNX TensorProto (raw_data form). */
export function encodeTensor(tensor, name = '') {
  requireInit('encodeTensor');
  const { dtype, bytes } = feedBytes(name || 'tensor', tensor);
  const dims = Array.from(tensor.dims, Number);
  const namePtr = allocString(name);
  const dataPtr = allocBytes(bytes);
  const dimsPtr = malloc(8 * Math.max(1, dims.length));
  try {
    const v = view();
    dims.forEach((d, i) => v.setBigInt64(dimsPtr + 8 * i, BigInt(d), true));
    const neededPtr = scratch;
    const rc = core._kiln_tensor_encode(namePtr, dtype, dimsPtr, dims.length, dataPtr, bytes.byteLength, 0, 0, neededPtr);
    if (rc !== ERR_BUFFER_TOO_SMALL) check(rc);
    const needed = u32At(neededPtr);
    const out = malloc(needed);
    try {
      check(core._kiln_tensor_encode(namePtr, dtype, dimsPtr, dims.length, dataPtr, bytes.byteLength, out, needed, neededPtr));
      return heap().slice(out, out + needed);
    } finally {
      core._free(out);
    }
  } finally {
    core._free(namePtr);
    core._free(dataPtr);
    core._free(dimsPtr);
  }
}

// ---- images --------------------------------------------------------------
/** 8-bit pixels (an ImageData, or RGBA/RGB/gray bytes with width, height
 * and channels) to a float32 [1, outChannels, outHeight, outWidth] tensor:
 * bilinear resize (half-pixel centres, as ONNX Resize), then
 * (pixel / 255 - mean[c]) / std[c]. outChannels 1 takes luma, 3 takes RGB
 * (BGR with bgr: true). Runs kiln_image_to_tensor in the engine. */
export function imageToTensor(pixels, opts = {}) {
  requireInit('imageToTensor');
  let bytes = pixels, width = opts.width, height = opts.height, channels = opts.channels;
  if (pixels && !ArrayBuffer.isView(pixels) && pixels.data && pixels.width) { // ImageData
    bytes = pixels.data;
    width ??= pixels.width;
    height ??= pixels.height;
    channels ??= 4;
  }
  if (!ArrayBuffer.isView(bytes) || bytes.BYTES_PER_ELEMENT !== 1)
    throw argError('imageToTensor: pixels must be a Uint8Array, Uint8ClampedArray or ImageData');
  if (!(width > 0 && height > 0)) throw argError('imageToTensor: width and height are required');
  channels ??= bytes.length / (width * height);
  const stride = opts.stride ?? width * channels;
  const { outWidth, outHeight, outChannels = 3 } = opts;
  if (!(outWidth > 0 && outHeight > 0)) throw argError('imageToTensor: outWidth and outHeight are required');
  if (!Number.isInteger(stride) || bytes.length < stride * (height - 1) + width * channels)
    throw argError(`imageToTensor: ${bytes.length} bytes are too few for ${height} rows of ${width}x${channels} ` +
      `pixels ${stride} bytes apart`);
  const norm = (values, what) => {
    if (values == null) return null;
    if (values.length !== outChannels) throw argError(`imageToTensor: ${what} needs ${outChannels} values, got ${values.length}`);
    return Float32Array.from(values);
  };
  const mean = norm(opts.mean, 'mean'), std = norm(opts.std, 'std');
  const count = outWidth * outHeight * outChannels;
  const src = allocBytes(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const ptrs = [src];
  try {
    const meanPtr = mean ? allocBytes(new Uint8Array(mean.buffer)) : 0;
    if (meanPtr) ptrs.push(meanPtr);
    const stdPtr = std ? allocBytes(new Uint8Array(std.buffer)) : 0;
    if (stdPtr) ptrs.push(stdPtr);
    const out = malloc(4 * count);
    ptrs.push(out);
    check(core._kiln_image_to_tensor(src, width, height, stride, channels, outWidth, outHeight,
      outChannels, meanPtr, stdPtr, opts.bgr ? IMAGE_BGR : 0, out, 4 * count));
    const data = new Float32Array(heap().slice(out, out + 4 * count).buffer);
    return { type: 'float32', dims: [1, outChannels, outHeight, outWidth], data };
  } finally {
    for (const p of ptrs) core._free(p);
  }
}

/** The engine's release version ("0.1.0"); null before init(). */
export function version() { return env.version; }

export { DTYPES };
