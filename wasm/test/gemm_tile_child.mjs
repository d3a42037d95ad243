// Child process of gemm_tiles.test.mjs: a fresh engine (the GEMM tile is
// chosen once per module) initialised with gemmTile = argv[2] ('' for the
// default), runs model argv[3] on input argv[4] and prints, as JSON, the
// tile it ran with and the output.
import fs from 'node:fs';
import { kiln } from './support.mjs';

const [tile, modelPath, inputPath] = process.argv.slice(2);
try {
  await kiln.init(tile ? { gemmTile: tile } : {});
} catch (e) {
  console.log(JSON.stringify({ error: e.message }));
  process.exit(0);
}
const model = await kiln.Model.load(modelPath);
const feed = kiln.decodeTensor(fs.readFileSync(inputPath));
const out = await model.createSession().run({ [model.inputs[0].name]: feed });
const { gemmTile, gemmTiles, gemmTuneMs, gemmTileSource } = kiln.env;
console.log(JSON.stringify({ gemmTile, gemmTiles, gemmTuneMs, gemmTileSource,
  output: Array.from(out[model.outputs[0].name].data) }));
