'use strict';
// Shared by the node --test files: paths, the kiln CLI as the C reference,
// model lookup (exporting torchvision models when python3-torch is there).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const kiln = require('../lib/index.js');

const SOURCE_DIR = process.env.KILN_SOURCE_DIR || path.resolve(__dirname, '..', '..', '..');
const BUILD_DIR = process.env.KILN_BUILD_DIR || path.join(SOURCE_DIR, 'build');
const CLI = process.env.KILN_CLI || path.join(BUILD_DIR, 'kiln');
const DIGITS_MODEL = path.join(SOURCE_DIR, 'examples', 'digits', 'digits.onnx');
const DIGITS_SAMPLES = path.join(SOURCE_DIR, 'examples', 'digits', 'samples');

function digitSamples() {
  return fs.readdirSync(DIGITS_SAMPLES).filter((f) => f.endsWith('.pb')).sort().map((f) => ({
    file: path.join(DIGITS_SAMPLES, f),
    label: Number(/_label_(\d)/.exec(f)[1]),
    tensor: kiln.decodeTensor(fs.readFileSync(path.join(DIGITS_SAMPLES, f))),
  }));
}

function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// Runs `kiln run` (the C API through the CLI) and returns its outputs,
// decoded, in output order.
function cliRun(model, inputFiles) {
  const dir = tempDir('kiln-node-ref-');
  try {
    const args = ['run', model, '-o', dir];
    for (const f of inputFiles) args.push('-i', f);
    execFileSync(CLI, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const outputs = [];
    for (let k = 0; fs.existsSync(path.join(dir, `output_${k}.pb`)); k++) {
      outputs.push(kiln.decodeTensor(fs.readFileSync(path.join(dir, `output_${k}.pb`))));
    }
    return outputs;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function bytesOf(typed) {
  return Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength);
}

// Index of the first element whose bits differ, or -1.
function firstBitDifference(a, b) {
  const x = bytesOf(a);
  const y = bytesOf(b);
  if (x.length !== y.length) return 0;
  if (x.equals(y)) return -1;
  const width = a.BYTES_PER_ELEMENT;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return Math.floor(i / width);
  return -1;
}

// {model, inputs: [.pb files]} for a torchvision model from
// tools/export_models.py, or {skip: reason}. Looks in $KILN_MODELS_DIR, then
// the build's export cache (BUILD/models, shared with the ONNX Runtime
// comparison), and exports there when python3-torch is installed.
function locateModel(name) {
  const dirs = [process.env.KILN_MODELS_DIR, path.join(BUILD_DIR, 'models')].filter(Boolean);
  const found = () => {
    for (const dir of dirs) {
      const model = path.join(dir, name, 'model.onnx');
      if (fs.existsSync(model)) {
        const inputs = fs.readdirSync(path.dirname(model)).filter((f) => /^input_\d+\.pb$/.test(f))
          .sort().map((f) => path.join(dir, name, f));
        return { model, inputs };
      }
    }
    return null;
  };
  let hit = found();
  if (hit) return hit;
  const probe = spawnSync('/usr/bin/python3', ['-c', 'import torch, torchvision, onnx'],
    { stdio: 'ignore' });
  if (probe.status !== 0) {
    return { skip: `${name} is not exported and python3-torch/python3-torchvision/python3-onnx ` +
      'are missing (set KILN_MODELS_DIR to a folder with ' + `${name}/model.onnx)` };
  }
  const out = path.join(BUILD_DIR, 'models');
  const run = spawnSync('/usr/bin/python3', [path.join(SOURCE_DIR, 'tools', 'export_models.py'),
    out, '--models', name], { encoding: 'utf8' });
  hit = found();
  if (!hit) return { skip: `exporting ${name} failed: ${run.stdout}${run.stderr}` };
  return hit;
}

module.exports = {
  kiln, SOURCE_DIR, BUILD_DIR, CLI, DIGITS_MODEL, DIGITS_SAMPLES, digitSamples, cliRun,
  firstBitDifference, locateModel, tempDir,
};
