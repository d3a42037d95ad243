// Whole int8 models in headless Chromium on both engines, one page each:
// the SIMD128 engine (int16 GEMM) and the relaxed one (the i8 dot-product
// GEMM where its probe allows, core/simd/qgemm_dot.h). Prints, per model,
// whether every output is the same to the bit, and exits 1 if one is not.
//
//   node wasm/test/int8_engines_chromium.mjs --models-dir DIR [--wasm DIR] [--models a,b]
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../browser/browser.mjs';
import { startServer, sourceDir } from '../browser/serve.mjs';

const opts = { wasmDir: path.join(sourceDir, 'build-wasm'), models: 'squeezenet1_1,mobilenet_v2,resnet50,efficientnet_b0' };
const names = { '--models-dir': 'modelsDir', '--wasm': 'wasmDir', '--models': 'models' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  if (!names[argv[i]] || i + 1 >= argv.length) {
    console.error('usage: node wasm/test/int8_engines_chromium.mjs --models-dir DIR [--wasm DIR] [--models a,b]');
    process.exit(2);
  }
  opts[names[argv[i]]] = argv[i + 1];
}

async function runInPage({ model, relaxedSimd }) {
  const kiln = await import('/kiln/kiln.mjs');
  await kiln.init({ relaxedSimd });
  const get = async (file) => new Uint8Array(await (await fetch(`/models/${model}/${file}`)).arrayBuffer());
  const m = await kiln.Model.load(await get('int8.onnx'));
  const session = m.createSession();
  const outputs = session.runSync({ [m.inputs[0].name]: kiln.decodeTensor(await get('input_0.pb')) });
  const result = {};
  for (const [name, t] of Object.entries(outputs))
    result[name] = Array.from(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  m.dispose();
  return { simd: kiln.env.simd, result };
}

const server = await startServer({ port: 0, wasmDir: opts.wasmDir, modelsDir: opts.modelsDir, quiet: true });
const browser = await launchChromium();
let bad = 0;
try {
  console.log(`Chromium ${browser.version()}, Kiln from ${opts.wasmDir}`);
  for (const model of opts.models.split(',').filter(Boolean)) {
    if (!fs.existsSync(path.join(opts.modelsDir, model, 'int8.onnx'))) {
      console.log(`${model}: skipped, no int8.onnx`);
      continue;
    }
    const runs = [];
    for (const relaxedSimd of [false, true]) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${server.url}wasm/browser/blank.html`);
      runs.push(await page.evaluate(runInPage, { model, relaxedSimd }));
      await context.close();
    }
    const [plain, relaxed] = runs;
    let differing = 0, total = 0;
    for (const [name, bytes] of Object.entries(plain.result)) {
      const other = relaxed.result[name] ?? [];
      total += bytes.length;
      for (let i = 0; i < bytes.length; i++) differing += bytes[i] !== other[i];
    }
    if (differing) bad++;
    console.log(`${model}: ${plain.simd} vs ${relaxed.simd}: ${differing ? `${differing} of ${total} output bytes differ` : `all ${total} output bytes equal`}`);
  }
} finally {
  await browser.close();
  await server.close();
}
process.exit(bad ? 1 : 0);
