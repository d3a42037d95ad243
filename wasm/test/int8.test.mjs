// An int8 (QDQ) squeezenet1_1 in WebAssembly, where Kiln's own integer
// kernels serve its convolutions (core/simd/qgemm.c, the depthwise and
// requantizing loops of core/cpu/quant), against the native build's
// `kiln run` of the same file (oneDNN's int8 kernels where the build has
// them, which round ties in float): at least 99 % of the outputs within
// one quantization step of the float output's range ((max - min) / 255),
// the criterion of the int8_interop test, and the same top class.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { kiln, nativeCli, modelsDir, exists, argmax } from './support.mjs';

const dir = [modelsDir, '/work/models'].filter(Boolean).map((d) => path.join(d, 'squeezenet1_1'))
  .find((d) => exists(path.join(d, 'model.onnx')));
const skip = !dir ? 'squeezenet1_1 is not exported (set KILN_MODELS_DIR; tools/export_models.py needs python3-torch)'
  : !exists(nativeCli) ? 'no native kiln CLI to quantize and compare with (KILN_CLI): run through ctest' : false;

test('int8 squeezenet1_1 matches the native build within one step', { skip }, async () => {
  const input = path.join(dir, 'input_0.pb');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kiln-wasm-int8-'));
  try {
    fs.mkdirSync(path.join(work, 'calib', 's0'), { recursive: true });
    fs.copyFileSync(input, path.join(work, 'calib', 's0', 'input_0.pb'));
    const qmodel = path.join(work, 'int8.onnx');
    execFileSync(nativeCli, ['quantize', path.join(dir, 'model.onnx'), '-o', qmodel, '--calib',
      path.join(work, 'calib')], { stdio: 'pipe' });
    execFileSync(nativeCli, ['run', qmodel, '-i', input, '-o', path.join(work, 'out')], { stdio: 'pipe' });
    await kiln.init();
    const ref = kiln.decodeTensor(fs.readFileSync(path.join(work, 'out', 'output_0.pb')));
    const model = await kiln.Model.load(qmodel);
    const session = model.createSession();
    const feed = kiln.decodeTensor(fs.readFileSync(input));
    const got = (await session.run({ [model.inputs[0].name]: feed }))[model.outputs[0].name];
    assert.deepEqual(got.dims, ref.dims);
    let lo = Infinity, hi = -Infinity;
    for (const v of ref.data) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    const step = (hi - lo) / 255;
    let within = 0, worst = 0;
    for (let i = 0; i < ref.data.length; i++) {
      const d = Math.abs(got.data[i] - ref.data[i]);
      worst = Math.max(worst, d);
      within += d <= step * (1 + 1e-6);
    }
    const share = within / ref.data.length;
    console.log(`int8 squeezenet1_1: ${(100 * share).toFixed(2)} % within one step (${step.toExponential(3)}), ` +
      `worst ${(worst / step).toFixed(2)} steps; top-1 ${argmax(got.data)} vs ${argmax(ref.data)}`);
    assert.ok(hi > lo, 'the reference output is constant');
    assert.ok(share >= 0.99, `${(100 * share).toFixed(2)} % within one step`);
    assert.equal(argmax(got.data), argmax(ref.data));
    model.dispose();
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});
