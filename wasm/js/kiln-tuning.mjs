// The GEMM micro-tile choice (core/simd/gemm_tiles.h), made per model:
// the first session of a model large enough for the tile to matter
// counts the products its kernels plan (a census, no run needed), the
// engine times its tile candidates on the two or three shapes carrying
// most of the model's multiply-adds, and the model's sessions run the
// fastest. Which tile wins depends on how a model's products divide into
// tiles (rows left over in the last tile, columns in the last panel), so
// one choice per page, timed on stand-in shapes, was not the best tile of
// every model. The page keeps each model's answer in localStorage (when
// it may), keyed by the model's bytes, so a later load of the same model
// skips the timing. A stored choice is reused only on the same browser,
// CPU count and engine build (the relaxed-SIMD engine keeps fewer
// registers busy per update, so its best tile can differ from SIMD128's).
// init's `gemmTile: 'auto'` times once on stand-in shapes for every model,
// a tile name forces that tile.
const STORAGE_KEY = 'kiln.gemmTile.v3';
// Models from this size on are worth timing the tiles for (tens of ms
// once): below it the products are small and the default tile does.
export const TUNE_FROM_MODEL_BYTES = 1 << 20;
// Kept per machine: a page seldom sees more models than this.
const MAX_STORED_MODELS = 64;

// This page's choices, per engine build ({ simd: { modelKey: tile } }):
// a second load of a model costs nothing even where localStorage is
// missing (Node, workers: createWorkerSession hands those the page's
// stored choices as init's gemmTileStore) or refused.
const pageStore = {};

function storage() {
  try {
    return globalThis.localStorage ?? null; // absent in workers and Node; throws in some sandboxes
  } catch {
    return null;
  }
}

// What identifies "this machine" to a page, for the engine build `simd`
// ('relaxed' or 'simd128', env.simd).
function machineKey(simd) {
  const nav = globalThis.navigator;
  return `${nav?.userAgent ?? 'no user agent'}|${nav?.hardwareConcurrency ?? 0}|${simd}`;
}

/** A model's identity for the stored choice: its size and a hash of its
 * first and last 64 KiB and of 256 short runs spread over the rest
 * (hashing every byte of a 100 MB model would cost more than the timing
 * it saves). */
export function modelKey(bytes) {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes.buffer ?? bytes, bytes.byteOffset ?? 0, bytes.byteLength);
  let h = 0x811c9dc5; // FNV-1a, 32 bits
  const take = (from, to) => {
    for (let i = Math.max(0, from); i < Math.min(b.length, to); i++) h = Math.imul(h ^ b[i], 0x01000193);
  };
  const edge = 1 << 16;
  take(0, edge);
  take(b.length - edge, b.length);
  const step = Math.max(1, Math.floor(b.length / 256));
  for (let at = 0; at < b.length; at += step) take(at, at + 64);
  return `${b.length}:${(h >>> 0).toString(16)}`;
}

function readLocalStorage(simd) {
  try {
    const saved = JSON.parse(storage()?.getItem(STORAGE_KEY) ?? 'null');
    return saved && saved.machine === machineKey(simd) && saved.models ? saved.models : {};
  } catch {
    return {};
  }
}

function readStore(simd) {
  return { ...readLocalStorage(simd), ...pageStore[simd] };
}

/** For createWorkerSession (workers have no localStorage): the page's
 * stored choices for the build the worker will load, { modelKey: tile }. */
export function storedGemmTiles(simd) {
  return { ...readStore(simd) };
}

/** The stored tile of the model `key`, or null. */
export function storedModelTile(simd, key, tiles) {
  const tile = readStore(simd)[key];
  return tile && (!tiles || tiles.includes(tile)) ? tile : null;
}

function storeModelTile(simd, key, tile) {
  (pageStore[simd] ??= {})[key] = tile;
  try {
    const s = storage();
    if (!s) return;
    const models = { ...readLocalStorage(simd) };
    delete models[key]; // re-inserted last: the oldest go first when full
    models[key] = tile;
    const keys = Object.keys(models);
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_STORED_MODELS))) delete models[k];
    s.setItem(STORAGE_KEY, JSON.stringify({ machine: machineKey(simd), models }));
  } catch {
    // storage full or refused: the next visit times again
  }
}

/** For createWorkerSession: keeps what a worker timed, as the page would. */
export function rememberGemmTile(workerEnv) {
  if (workerEnv?.gemmTileSource === 'timed' && workerEnv.gemmTile && workerEnv.gemmModelKey)
    storeModelTile(workerEnv.simd, workerEnv.gemmModelKey, workerEnv.gemmTile);
}

/** Makes `name` the engine's tile (process-wide: what packs weights next,
 * and what products without packed weights run). */
export function forceTile(engine, name) {
  const { core, allocString } = engine;
  const p = allocString(name);
  try {
    core._kiln_wasm_gemm_tile_choose(p);
  } finally {
    core._free(p);
  }
}

export function activeTile(engine) {
  return engine.readCString(engine.core._kiln_wasm_gemm_tile_name());
}

// What the last timing saw (core/simd/gemm_tiles.h's report), for
// benchmarks: { rounds, fastestTile, tickMs, fastestMs: { tile: ms },
// spread: { tile: fraction } }; the choice is fastestTile only where that
// beat the first tile by more than the two spreads added.
function tuneDetail(engine, tiles) {
  const { core } = engine;
  const doubles = 5 + 2 * tiles.length;
  const p = core._malloc(doubles * 8);
  if (!p) return null;
  try {
    const n = core._kiln_wasm_gemm_tune_report(p, tiles.length);
    const d = new Float64Array(engine.memoryBuffer(), p, doubles);
    const per = (j) => Object.fromEntries(tiles.slice(0, n).map((t, i) => [t, d[4 + 2 * i + j]]));
    return n ? { rounds: d[0], fastestTile: tiles[d[1]], tickMs: d[3], fastestMs: per(0), spread: per(1), reps: d[4 + 2 * n] } : null;
  } finally {
    core._free(p);
  }
}

function state(engine, source) {
  const { core, readCString } = engine;
  const gemmTiles = readCString(core._kiln_wasm_gemm_tiles()).split(',');
  const timed = source === 'timed';
  return {
    gemmTile: activeTile(engine),
    gemmTiles,
    gemmTuneMs: timed ? core._kiln_wasm_gemm_tune_ms() : 0,
    gemmTuneDetail: timed ? tuneDetail(engine, gemmTiles) : null,
    gemmTileSource: source,
  };
}

// Until the first model is timed, the candidates run briefly, one short
// step per task (core/simd/gemm_tune.c: kn_sgemm_tune_warm_step), so that
// the browser's optimising compiler has them ready when they are timed;
// the page stays responsive and neither init() nor a model load waits for
// it. engine.pending() says whether a timing may still come. Resolves
// when the steps are done (or no timing is pending any more).
function warmWhileIdle(engine) {
  let step = 0;
  return new Promise((resolve) => {
    const next = () => {
      if (engine.pending() && engine.core._kiln_wasm_gemm_tile_warm(step++)) setTimeout(next, 0);
      else resolve();
    };
    setTimeout(next, 0);
  });
}

let warmed = Promise.resolve();

/** Resolves when the idle warm-up started at init() is over: Model.load
 * waits for it before a model that will be timed, so that a page loading
 * its model right after init() times optimised candidates, not the
 * browser's baseline code (a few ms per step, not blocking the page). */
export function warmUpDone() {
  return warmed;
}

/** At init(): `requested` is its gemmTile option, `given` its
 * gemmTileStore (a worker's copy of the page's stored choices). Returns
 * the env fields { gemmTile, gemmTiles, gemmTuneMs, gemmTuneDetail,
 * gemmTileSource, gemmTuneShapes }; the
 * source is 'pending' when each large model will choose its own. */
export function chooseGemmTile(engine, requested, argError, given) {
  const tiles = state(engine, null).gemmTiles;
  if (requested !== undefined && requested !== 'auto' && !tiles.includes(requested))
    throw argError(`init: gemmTile must be 'auto' or one of ${tiles.join(', ')}, got ${requested}`);
  if (given && typeof given === 'object') pageStore[engine.simd] = { ...given, ...pageStore[engine.simd] };
  if (requested !== undefined) {
    forceTile(engine, requested);
    return { ...state(engine, requested === 'auto' ? 'timed' : 'option'), gemmTuneShapes: [] };
  }
  warmed = warmWhileIdle(engine);
  return { ...state(engine, 'pending'), gemmTuneShapes: [] };
}

/** Around `prepare` (the first session of a model): returns { value:
 * prepare()'s, shapes: [[m, n, k], ...] }, the products the kernels
 * planned that carry most multiply-adds, largest first (at most 3). */
export function withCensus(engine, prepare) {
  const { core } = engine;
  const out = core._malloc(3 * 3 * 8);
  if (!out) return { value: prepare(), shapes: [] };
  try {
    core._kiln_wasm_gemm_census_begin();
    let value, n;
    try {
      value = prepare();
    } finally {
      n = core._kiln_wasm_gemm_census_end(out, 3);
    }
    const d = new Float64Array(engine.memoryBuffer(), out, 3 * n); // after prepare(): memory may have grown
    const shapes = [];
    for (let i = 0; i < n; i++) shapes.push([d[3 * i], d[3 * i + 1], d[3 * i + 2]]);
    return { value, shapes };
  } finally {
    core._free(out);
  }
}

/** Times the candidates on a model's `shapes` and keeps the answer for
 * the model `key`. Returns the env fields, source 'timed'. */
export function timeForModel(engine, shapes, key) {
  const { core } = engine;
  const p = core._malloc(Math.max(1, shapes.length) * 3 * 8);
  try {
    new Float64Array(engine.memoryBuffer(), p, shapes.length * 3).set(shapes.flat());
    core._kiln_wasm_gemm_tile_tune_shapes(p, shapes.length);
  } finally {
    core._free(p);
  }
  const s = { ...state(engine, 'timed'), gemmTuneShapes: shapes };
  storeModelTile(engine.simd, key, s.gemmTile);
  return s;
}
