// squeezenet1_1 (a real torchvision architecture, seeded weights) in
// WebAssembly against the native build's `kiln run` on the same input:
// max |wasm - native| <= 1e-5 * max |native|, printed with the time per run.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { kiln, nativeCli, modelsDir, exists } from './support.mjs';

// tools/export_models.py writes OUTDIR/squeezenet1_1/{model.onnx,input_0.pb}.
const dir = [modelsDir, '/work/models'].filter(Boolean).map((d) => path.join(d, 'squeezenet1_1'))
  .find((d) => exists(path.join(d, 'model.onnx')));
const skip = !dir ? 'squeezenet1_1 is not exported (set KILN_MODELS_DIR; tools/export_models.py needs python3-torch)'
  : !exists(nativeCli) ? 'no native kiln CLI to compare with (KILN_CLI): run through ctest' : false;

test('squeezenet1_1 matches the native build', { skip }, async () => {
  const input = path.join(dir, 'input_0.pb');
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiln-wasm-squeezenet-'));
  try {
    execFileSync(nativeCli, ['run', path.join(dir, 'model.onnx'), '-i', input, '-o', outDir], { stdio: 'pipe' });
    await kiln.init();
    const ref = kiln.decodeTensor(fs.readFileSync(path.join(outDir, 'output_0.pb')));
    const model = await kiln.Model.load(path.join(dir, 'model.onnx'));
    const session = model.createSession();
    const feed = kiln.decodeTensor(fs.readFileSync(input));
    const name = model.inputs[0].name;
    let t0 = performance.now();
    const first = await session.run({ [name]: feed });
    const firstMs = performance.now() - t0;
    const runs = 5;
    t0 = performance.now();
    let out;
    for (let i = 0; i < runs; i++) out = await session.run({ [name]: feed });
    const ms = (performance.now() - t0) / runs;
    const got = out[model.outputs[0].name];
    assert.deepEqual(got.dims, ref.dims);
    assert.deepEqual(Array.from(first[model.outputs[0].name].data), Array.from(got.data), 'runs are repeatable');
    let maxDiff = 0, maxRef = 0;
    for (let i = 0; i < ref.data.length; i++) {
      maxDiff = Math.max(maxDiff, Math.abs(got.data[i] - ref.data[i]));
      maxRef = Math.max(maxRef, Math.abs(ref.data[i]));
    }
    console.log(`squeezenet1_1: max|diff| ${maxDiff.toExponential(3)}, max|ref| ${maxRef.toExponential(3)}, ` +
      `ratio ${(maxDiff / maxRef).toExponential(3)}; first run ${firstMs.toFixed(1)} ms, ` +
      `then ${ms.toFixed(1)} ms/run (wasm, 1 thread)`);
    assert.ok(maxRef > 0, 'the reference output is all zeros');
    assert.ok(maxDiff <= 1e-5 * maxRef, `max|diff| ${maxDiff} > 1e-5 * ${maxRef}`);
    model.dispose();
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
});
