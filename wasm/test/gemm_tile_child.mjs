// Child process of gemm_tiles.test.mjs: a fresh engine (the GEMM tile is
// chosen once per module) initialised with gemmTile = argv[2] ('' for the
// default), runs model argv[3] on input argv[4] and prints, as JSON, the
// tile it ran with and the output. KILN_TEST_SLOW_TILE=NAME:F adds init's
// simulateSlowTile (that tile F times slower: a simulated other CPU);
// KILN_TEST_IN_WORKER=1 runs the model in a worker session instead;
// KILN_TEST_RELOAD=1 loads the model a second time after the run and adds
// what that load chose (`reload`).
import fs from 'node:fs';
import { kiln } from './support.mjs';

const [tile, modelPath, inputPath] = process.argv.slice(2);
try {
  const options = tile ? { gemmTile: tile } : {};
  const slow = process.env.KILN_TEST_SLOW_TILE;
  if (slow) options.simulateSlowTile = { tile: slow.split(':')[0], factor: Number(slow.split(':')[1]) };
  await kiln.init(options);
} catch (e) {
  console.log(JSON.stringify({ error: e.message }));
  process.exit(0);
}
const feed = kiln.decodeTensor(fs.readFileSync(inputPath));
if (process.env.KILN_TEST_IN_WORKER) {
  // The model in a worker session, handed over as bytes: the tile comes
  // from this thread's engine; both engines' state is printed.
  const remote = await kiln.createWorkerSession(fs.readFileSync(modelPath));
  const out = await remote.run({ [remote.inputs[0].name]: feed });
  const { gemmTile, gemmTiles, gemmTuneMs, gemmTileSource } = remote.env;
  console.log(JSON.stringify({ gemmTile, gemmTiles, gemmTuneMs, gemmTileSource,
    page: { gemmTile: kiln.env.gemmTile, gemmTileSource: kiln.env.gemmTileSource },
    output: Array.from(out[remote.outputs[0].name].data) }));
  await remote.dispose();
} else {
  const model = await kiln.Model.load(modelPath);
  const out = await model.createSession().run({ [model.inputs[0].name]: feed });
  const { gemmTile, gemmTiles, gemmTuneMs, gemmTileSource, gemmTuneShapes } = kiln.env;
  let reload;
  if (process.env.KILN_TEST_RELOAD) {
    const again = await kiln.Model.load(modelPath);
    const t0 = performance.now();
    const out2 = await again.createSession().run({ [again.inputs[0].name]: feed });
    reload = { gemmTileSource: kiln.env.gemmTileSource, gemmTuneMs: kiln.env.gemmTuneMs, modelTile: again.gemmTile,
      ms: performance.now() - t0, same: out2[again.outputs[0].name].data.every((v, i) => v === out[model.outputs[0].name].data[i]) };
  }
  console.log(JSON.stringify({ gemmTile, gemmTiles, gemmTuneMs, gemmTileSource, gemmTuneShapes, modelTile: model.gemmTile,
    reload, output: Array.from(out[model.outputs[0].name].data) }));
}
