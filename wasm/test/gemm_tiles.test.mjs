// The matrix product's micro-tile chosen at init() (core/simd/gemm_tiles.h):
// every candidate, forced, runs squeezenet1_1 to the native build's output;
// the timed choice lands on a candidate and reports its cost; an unknown
// tile is refused with the list. Each case runs in a fresh Node process,
// since a module chooses its tile once.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { kiln, nativeCli, modelsDir, exists } from './support.mjs';

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'gemm_tile_child.mjs');
const dir = [modelsDir, '/work/models'].filter(Boolean).map((d) => path.join(d, 'squeezenet1_1'))
  .find((d) => exists(path.join(d, 'model.onnx')));
const skip = !dir ? 'squeezenet1_1 is not exported (set KILN_MODELS_DIR; tools/export_models.py needs python3-torch)'
  : !exists(nativeCli) ? 'no native kiln CLI to compare with (KILN_CLI): run through ctest' : false;

function runWith(tile, slowTile = '', inWorker = false, reload = false) {
  const text = execFileSync(process.execPath, [...process.execArgv, child, tile, path.join(dir, 'model.onnx'), path.join(dir, 'input_0.pb')],
    { encoding: 'utf8', env: { ...process.env, KILN_TEST_SLOW_TILE: slowTile, KILN_TEST_IN_WORKER: inWorker ? '1' : '',
      KILN_TEST_RELOAD: reload ? '1' : '' },
      maxBuffer: 1 << 24 });
  return JSON.parse(text.trim().split('\n').pop());
}

test('every GEMM tile runs squeezenet1_1 to the native output; the timed choice is one of them', { skip }, async () => {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiln-wasm-tiles-'));
  try {
    const input = path.join(dir, 'input_0.pb');
    execFileSync(nativeCli, ['run', path.join(dir, 'model.onnx'), '-i', input, '-o', outDir], { stdio: 'pipe' });
    await kiln.init();
    const ref = kiln.decodeTensor(fs.readFileSync(path.join(outDir, 'output_0.pb'))).data;
    const maxRef = ref.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    assert.ok(maxRef > 0, 'the reference output is all zeros');

    const timed = runWith('auto');
    assert.equal(timed.gemmTileSource, 'timed');
    assert.ok(timed.gemmTiles.length >= 4, `candidates: ${timed.gemmTiles}`);
    assert.ok(timed.gemmTiles.includes(timed.gemmTile), `${timed.gemmTile} is not a candidate`);
    assert.ok(timed.gemmTuneMs > 0, 'the timing took no time');
    console.log(`timed choice: ${timed.gemmTile} of ${timed.gemmTiles.join(', ')} in ${timed.gemmTuneMs.toFixed(1)} ms`);

    for (const tile of timed.gemmTiles) {
      const r = runWith(tile);
      assert.equal(r.gemmTile, tile);
      assert.equal(r.gemmTileSource, 'option');
      assert.equal(r.gemmTuneMs, 0, 'a forced tile is not timed');
      assert.equal(r.output.length, ref.length);
      let maxDiff = 0;
      for (let i = 0; i < ref.length; i++) maxDiff = Math.max(maxDiff, Math.abs(r.output[i] - ref[i]));
      console.log(`tile ${tile}: max|diff| / max|ref| = ${(maxDiff / maxRef).toExponential(2)}`);
      assert.ok(maxDiff <= 1e-5 * maxRef, `tile ${tile}: max|diff| ${maxDiff} > 1e-5 * ${maxRef}`);
    }

    // By default the model's first session chooses its tile, timed on the
    // model's own products (the census of what its kernels planned); a
    // second load of the same model reuses that choice at no cost.
    const lazy = runWith('', '', false, true);
    assert.equal(lazy.gemmTileSource, 'timed', 'a 4.7 MB model is worth timing the tiles for');
    assert.ok(lazy.gemmTuneMs > 0);
    assert.equal(lazy.modelTile, lazy.gemmTile, 'the model keeps the tile timed for it');
    assert.ok(lazy.gemmTuneShapes.length >= 2 && lazy.gemmTuneShapes.length <= 3, `shapes ${JSON.stringify(lazy.gemmTuneShapes)}`);
    for (const [m, n, k] of lazy.gemmTuneShapes) assert.ok(m > 0 && n > 0 && k > 0 && Number.isInteger(m * n * k));
    console.log(`timed on squeezenet1_1's products ${lazy.gemmTuneShapes.map((s) => s.join('x')).join(', ')}: ` +
      `${lazy.gemmTile} in ${lazy.gemmTuneMs.toFixed(1)} ms`);
    assert.equal(lazy.reload.gemmTileSource, 'stored', 'the second load of the model is not timed again');
    assert.equal(lazy.reload.gemmTuneMs, 0);
    assert.equal(lazy.reload.modelTile, lazy.gemmTile);
    assert.ok(lazy.reload.same, 'the reloaded model gives the same output');

    // A worker session on model bytes takes the tile this thread's engine
    // times (its code warmed up while idle), and reports that cost.
    const worker = runWith('', '', true);
    assert.equal(worker.page.gemmTileSource, 'timed');
    assert.equal(worker.gemmTileSource, 'timed');
    assert.equal(worker.gemmTile, worker.page.gemmTile, 'the worker runs the tile the page chose');
    assert.ok(worker.gemmTuneMs > 0, 'the timing cost is reported');
    let workerDiff = 0;
    for (let i = 0; i < ref.length; i++) workerDiff = Math.max(workerDiff, Math.abs(worker.output[i] - ref[i]));
    assert.ok(workerDiff <= 1e-5 * maxRef, `in a worker: max|diff| ${workerDiff}`);
    console.log(`worker session: tile ${worker.gemmTile} timed on this thread in ${worker.gemmTuneMs.toFixed(1)} ms`);

    // A simulated other CPU, on which the tile timed fastest here runs 4x
    // slower: the timing moves to another, and the output stays right.
    const moved = runWith('auto', `${timed.gemmTile}:4`);
    assert.notEqual(moved.gemmTile, timed.gemmTile, `${timed.gemmTile} made 4x slower was still chosen`);
    let movedDiff = 0;
    for (let i = 0; i < ref.length; i++) movedDiff = Math.max(movedDiff, Math.abs(moved.output[i] - ref[i]));
    assert.ok(movedDiff <= 1e-5 * maxRef, `with ${timed.gemmTile} slowed: max|diff| ${movedDiff}`);
    console.log(`${timed.gemmTile} made 4x slower: timed choice ${moved.gemmTile}`);
    assert.match(runWith('auto', '7x7:2').error ?? '', /simulateSlowTile needs a tile of 5x8/);

    const bad = runWith('7x7');
    assert.match(bad.error ?? '', /gemmTile must be 'auto' or one of 5x8, .*got 7x7/);
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
});
