// Shared setup of the Node tests: where the built module, the sources and
// the native reference tools are. run_node_tests.sh sets the variables;
// the defaults suit a developer's tree (build-wasm, build).
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';

export const sourceDir = process.env.KILN_SOURCE_DIR ??
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const wasmDir = process.env.KILN_WASM_DIR ?? path.join(sourceDir, 'build-wasm');
// Native `kiln` CLI and the image_ref program (wasm/test/image_ref.c).
export const nativeCli = process.env.KILN_CLI ?? '';
export const imageRef = process.env.KILN_IMAGE_REF ?? '';
// Exported real models (tools/export_models.py): OUTDIR/NAME/model.onnx.
export const modelsDir = process.env.KILN_MODELS_DIR ?? '';

export const kiln = await import(pathToFileURL(path.join(wasmDir, 'kiln.mjs')).href);

export function exists(p) {
  return Boolean(p) && fs.existsSync(p);
}

export function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

export function digitSamples() {
  const dir = path.join(sourceDir, 'examples/digits/samples');
  return fs.readdirSync(dir).filter((f) => f.endsWith('.pb')).sort().map((f) => ({
    file: path.join(dir, f),
    label: Number(/_label_(\d)/.exec(f)[1]),
  }));
}
