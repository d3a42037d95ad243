// Reference results from the native build: runs `kiln run MODEL -i IN.pb
// -o DIR` and reads DIR/output_K.pb back with the TensorProto decoder of
// tools/ort/run_ort.mjs (independent of Kiln's own decoder).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { decodeTensor } from '../../tools/ort/run_ort.mjs';

export { decodeTensor };

export function readTensor(file) {
  return decodeTensor(fs.readFileSync(file));
}

/** Runs the native CLI on one set of inputs; returns the outputs as
 * decoded tensors { name, dataType, dims, data }, in model order. */
export function runNative(cli, model, inputs, outDir) {
  fs.rmSync(outDir, { recursive: true, force: true });
  const args = ['run', model];
  for (const f of inputs) args.push('-i', f);
  args.push('-o', outDir);
  execFileSync(cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  return fs.readdirSync(outDir).filter((f) => /^output_\d+\.pb$/.test(f))
    .sort((a, b) => parseInt(a.slice(7), 10) - parseInt(b.slice(7), 10))
    .map((f) => readTensor(path.join(outDir, f)));
}

export function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

/** max |a - b| and max |b| over two equal-length arrays. */
export function maxDiff(a, b) {
  if (a.length !== b.length) throw new Error(`length ${a.length} != ${b.length}`);
  let diff = 0, ref = 0;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
    ref = Math.max(ref, Math.abs(b[i]));
  }
  return { diff, ref };
}
