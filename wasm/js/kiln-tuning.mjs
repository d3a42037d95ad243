// The GEMM micro-tile choice at init() (core/simd/gemm_tiles.h): the
// engine times its tile candidates on this machine once, and the page
// keeps the answer in localStorage (when it may) so later visits skip the
// timing. A stored choice is reused only on the same browser and CPU
// count; `gemmTile: 'auto'` times again, a tile name forces that tile.
const STORAGE_KEY = 'kiln.gemmTile.v1';

function storage() {
  try {
    return globalThis.localStorage ?? null; // absent in workers and Node; throws in some sandboxes
  } catch {
    return null;
  }
}

// What identifies "this machine" to a page.
function machineKey() {
  const nav = globalThis.navigator;
  return `${nav?.userAgent ?? 'no user agent'}|${nav?.hardwareConcurrency ?? 0}`;
}

function storedTile(tiles) {
  try {
    const saved = JSON.parse(storage()?.getItem(STORAGE_KEY) ?? 'null');
    return saved && saved.machine === machineKey() && (!tiles || tiles.includes(saved.tile)) ? saved.tile : null;
  } catch {
    return null;
  }
}

/** For createWorkerSession (workers have no localStorage): the page's
 * stored tile to hand to the worker, or null. */
export function storedGemmTile() {
  return storedTile(null);
}

/** For createWorkerSession: keeps what a worker timed, as init() would. */
export function rememberGemmTile(workerEnv) {
  if (workerEnv?.gemmTileSource === 'timed' && workerEnv.gemmTile) storeTile(workerEnv.gemmTile);
}

function storeTile(tile) {
  try {
    storage()?.setItem(STORAGE_KEY, JSON.stringify({ tile, machine: machineKey() }));
  } catch {
    // storage full or refused: the next visit times again
  }
}

/** Chooses the tile before any model is loaded. `engine` gives the
 * module's exports and string helpers; `requested` is init()'s gemmTile
 * option. Returns { gemmTile, gemmTiles, gemmTuneMs, gemmTileSource }. */
export function chooseGemmTile(engine, requested, argError) {
  const { core, allocString, readCString } = engine;
  const tiles = readCString(core._kiln_wasm_gemm_tiles()).split(',');
  if (requested !== undefined && requested !== 'auto' && !tiles.includes(requested))
    throw argError(`init: gemmTile must be 'auto' or one of ${tiles.join(', ')}, got ${requested}`);
  const stored = requested === undefined ? storedTile(tiles) : null;
  const name = requested ?? stored ?? 'auto';
  const p = allocString(name);
  try {
    core._kiln_wasm_gemm_tile_choose(p);
  } finally {
    core._free(p);
  }
  const gemmTile = readCString(core._kiln_wasm_gemm_tile_name());
  const source = name === 'auto' ? 'timed' : stored ? 'stored' : 'option';
  if (source === 'timed') storeTile(gemmTile);
  return { gemmTile, gemmTiles: tiles, gemmTuneMs: core._kiln_wasm_gemm_tune_ms(), gemmTileSource: source };
}
