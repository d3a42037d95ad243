// classify_digits.mjs MODEL SAMPLES_DIR
//
// Classifies every *.pb image (an ONNX TensorProto) in SAMPLES_DIR with the
// digits model from examples/digits through the Node binding, and checks the
// answers against the labels in the file names ("digit_03_label_7.pb").
// Exit status 0 when at least 80 % are right.
//
//   node examples/node/classify_digits.mjs examples/digits/digits.onnx examples/digits/samples
//
// In an app, import from 'kiln-runtime'; here the package is taken from the
// source tree so the example runs straight from a build.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const kiln = await import(process.env.KILN_NODE_PACKAGE ||
  path.join(here, '..', '..', 'bindings', 'node', 'lib', 'index.mjs'));

const [modelPath, dir] = process.argv.slice(2);
if (!modelPath || !dir) {
  console.error('usage: node classify_digits.mjs MODEL SAMPLES_DIR');
  process.exit(2);
}

// Softmax here, not in the model: the model outputs logits.
function softmaxTop(logits) {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  let sum = 0;
  for (const v of logits) sum += Math.exp(v - logits[best]);
  return { index: best, prob: 1 / sum };
}

await kiln.init();
const model = await kiln.Model.load(modelPath);
const session = model.createSession();
const inputName = model.inputs[0].name;
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.pb')).sort();
if (files.length === 0) {
  console.error(`classify_digits: no *.pb files in ${dir}`);
  process.exit(1);
}
let right = 0;
let labelled = 0;
for (const file of files) {
  const image = kiln.decodeTensor(fs.readFileSync(path.join(dir, file)));
  const outputs = await session.run({ [inputName]: image });
  const { index, prob } = softmaxTop(outputs[model.outputs[0].name].data);
  const match = /_label_(\d)/.exec(file);
  let line = `${file}: predicted ${index} (p=${prob.toFixed(2)})`;
  if (match) {
    const label = Number(match[1]);
    labelled++;
    if (label === index) right++;
    line += ` label ${label} ${label === index ? 'ok' : 'WRONG'}`;
  }
  console.log(line);
}
console.log(`accuracy: ${right}/${labelled}`);
session.dispose();
model.dispose();
if (!(labelled > 0 && right * 5 >= labelled * 4)) {
  console.error('classify_digits: accuracy below 80 %');
  process.exit(1);
}
