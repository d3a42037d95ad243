// The GEMM micro-tile choice (core/simd/gemm_tiles.h): the engine times
// its tile candidates on this machine once, when the first model large
// enough for it to matter loads (small models run the default tile, and
// their packed weights keep it), and the page keeps the answer in
// localStorage (when it may) so later visits skip the timing. A stored
// choice is reused only on the same browser, CPU count and engine build
// (the relaxed-SIMD engine keeps fewer registers busy per update, so
// its best tile can differ from SIMD128's); init's
// `gemmTile: 'auto'` times at once, a tile name forces that tile.
const STORAGE_KEY = 'kiln.gemmTile.v2';
// Models from this size on are worth timing the tiles for (tens of ms
// once): below it the products are small and the default tile does.
const TUNE_FROM_MODEL_BYTES = 1 << 20;

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

function storedTile(tiles, simd) {
  try {
    const saved = JSON.parse(storage()?.getItem(STORAGE_KEY) ?? 'null');
    return saved && saved.machine === machineKey(simd) && (!tiles || tiles.includes(saved.tile)) ? saved.tile : null;
  } catch {
    return null;
  }
}

/** For createWorkerSession (workers have no localStorage): the page's
 * stored tile for the build the worker will load, or null. */
export function storedGemmTile(simd) {
  return storedTile(null, simd);
}

/** For createWorkerSession: keeps what a worker timed, as init() would. */
export function rememberGemmTile(workerEnv) {
  if (workerEnv?.gemmTileSource === 'timed' && workerEnv.gemmTile) storeTile(workerEnv.gemmTile, workerEnv.simd);
}

function storeTile(tile, simd) {
  try {
    storage()?.setItem(STORAGE_KEY, JSON.stringify({ tile, machine: machineKey(simd) }));
  } catch {
    // storage full or refused: the next visit times again
  }
}

function force(engine, name) {
  const { core, allocString } = engine;
  const p = allocString(name);
  try {
    core._kiln_wasm_gemm_tile_choose(p);
  } finally {
    core._free(p);
  }
}

function state(engine, source) {
  const { core, readCString } = engine;
  return {
    gemmTile: readCString(core._kiln_wasm_gemm_tile_name()),
    gemmTiles: readCString(core._kiln_wasm_gemm_tiles()).split(','),
    gemmTuneMs: source === 'timed' ? core._kiln_wasm_gemm_tune_ms() : 0,
    gemmTileSource: source,
  };
}

// While the choice waits for a large model, the candidates run briefly,
// one short step per task (core/simd/gemm_tune.c: kn_sgemm_tune_warm_step),
// so that the browser's optimising compiler has them ready when they are
// timed; the page stays responsive and neither init() nor a model load
// waits for it. engine.pending() says whether the choice still waits.
function warmWhileIdle(engine) {
  let step = 0;
  const next = () => {
    if (!engine.pending()) return;
    if (engine.core._kiln_wasm_gemm_tile_warm(step++)) setTimeout(next, 0);
  };
  setTimeout(next, 0);
}

/** At init(): `requested` is its gemmTile option. Returns the env fields
 * { gemmTile, gemmTiles, gemmTuneMs, gemmTileSource }; the source is
 * 'pending' when the timing waits for the first large model. */
export function chooseGemmTile(engine, requested, argError) {
  const tiles = state(engine, null).gemmTiles;
  if (requested !== undefined && requested !== 'auto' && !tiles.includes(requested))
    throw argError(`init: gemmTile must be 'auto' or one of ${tiles.join(', ')}, got ${requested}`);
  if (requested !== undefined) {
    force(engine, requested);
    const s = state(engine, requested === 'auto' ? 'timed' : 'option');
    if (s.gemmTileSource === 'timed') storeTile(s.gemmTile, engine.simd);
    return s;
  }
  const stored = storedTile(tiles, engine.simd);
  if (stored) {
    force(engine, stored);
    return state(engine, 'stored');
  }
  warmWhileIdle(engine);
  return state(engine, 'pending');
}

/** Before loading a model of `byteLength` bytes: times the tiles if the
 * choice is still pending and the model is large enough. Returns the new
 * env fields, or null when nothing changed. */
export function tuneForModel(engine, current, byteLength) {
  if (current !== 'pending' || byteLength < TUNE_FROM_MODEL_BYTES) return null;
  force(engine, 'auto');
  const s = state(engine, 'timed');
  storeTile(s.gemmTile, engine.simd);
  return s;
}
