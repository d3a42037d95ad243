// The digits page: a drawing pad and an upload button feed the digits
// model; the class probabilities are drawn as a bar chart.
//
// The model runs in a Web Worker (kiln.createWorkerSession) so the page
// stays responsive; where a worker cannot start it runs on this thread.
// The engine is also started here, for kiln.imageToTensor.
// `?worker=0` in the URL skips the worker.
import * as kiln from '../../kiln/kiln.mjs';
import { digitToTensor, softmax } from './digit_input.mjs';
import { drawBarChart } from './bar_chart.mjs';

const MODEL_URL = new URL('../digits/digits.onnx', import.meta.url).href;
const INK_WIDTH = 20; // px on the 280 px pad: about as thick as the training strokes

const $ = (id) => document.getElementById(id);
const pad = $('pad');
const ctx = pad.getContext('2d', { willReadFrequently: true });
const status = $('status');

function setStatus(text, state) {
  status.textContent = text;
  status.dataset.state = state;
}

function clearPad() {
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, pad.width, pad.height);
}

// ---- the model -----------------------------------------------------------
// { run(feeds), where } once loaded.
let engine = null;

async function startEngine() {
  await kiln.init();
  if (new URLSearchParams(location.search).get('worker') !== '0') {
    try {
      const remote = await kiln.createWorkerSession(MODEL_URL);
      return { run: (feeds) => remote.run(feeds), inputName: remote.inputs[0].name, where: 'a Web Worker' };
    } catch (e) {
      console.warn(`digits: the worker did not start (${e.message}); running on the page's thread`);
    }
  }
  const model = await kiln.Model.load(MODEL_URL);
  const session = model.createSession();
  return { run: (feeds) => session.run(feeds), inputName: model.inputs[0].name, where: "the page's thread" };
}

// ---- classifying ---------------------------------------------------------
function showPreview(values) {
  const p = $('preview').getContext('2d');
  const img = p.createImageData(8, 8);
  values.forEach((v, i) => {
    const g = Math.round(255 * (1 - v)); // ink dark, as drawn
    img.data.set([g, g, g, 255], 4 * i);
  });
  p.putImageData(img, 0, 0);
}

function showResult(probs) {
  const best = probs.indexOf(Math.max(...probs));
  const out = $('prediction');
  out.textContent = String(best);
  out.dataset.class = String(best);
  drawBarChart($('chart'), probs);
}

let pending = Promise.resolve();
function classify() {
  // One at a time, in order: a fast drawer may lift the pen twice quickly.
  pending = pending.then(classifyNow).catch((e) => setStatus(`Error: ${e.message}`, 'error'));
  return pending;
}

async function classifyNow() {
  if (!engine) return;
  const input = digitToTensor(kiln, pad, pad.width, pad.height);
  if (!input) return;
  showPreview(input.preview);
  const t0 = performance.now();
  const outputs = await engine.run({ [engine.inputName]: input.tensor });
  const ms = performance.now() - t0;
  const logits = Object.values(outputs)[0].data;
  showResult(softmax(logits));
  $('timing').textContent = `inference ${ms.toFixed(1)} ms in ${engine.where}`;
  document.body.dataset.classified = String(Number(document.body.dataset.classified ?? 0) + 1);
}

// ---- drawing -------------------------------------------------------------
let last = null;
function point(ev) {
  const r = pad.getBoundingClientRect();
  return { x: (ev.clientX - r.left) * (pad.width / r.width), y: (ev.clientY - r.top) * (pad.height / r.height) };
}
function stroke(from, to) {
  ctx.strokeStyle = '#000';
  ctx.lineWidth = INK_WIDTH;
  ctx.lineCap = ctx.lineJoin = 'round';
  ctx.beginPath();
  ctx.moveTo(from.x, from.y);
  ctx.lineTo(to.x, to.y);
  ctx.stroke();
}
pad.addEventListener('pointerdown', (ev) => {
  pad.setPointerCapture(ev.pointerId);
  last = point(ev);
  stroke(last, last); // a dot for a tap
});
pad.addEventListener('pointermove', (ev) => {
  if (!last) return;
  const p = point(ev);
  stroke(last, p);
  last = p;
});
for (const type of ['pointerup', 'pointercancel']) {
  pad.addEventListener(type, () => {
    if (!last) return;
    last = null;
    classify();
  });
}

$('clear').addEventListener('click', () => {
  clearPad();
  $('prediction').textContent = '\u2013';
  delete $('prediction').dataset.class;
  $('chart').replaceChildren();
  $('timing').textContent = '';
});

// An uploaded picture is fitted onto the pad, so it can be drawn over.
$('upload').addEventListener('change', async (ev) => {
  const file = ev.target.files?.[0];
  ev.target.value = '';
  if (!file) return;
  try {
    const bitmap = await createImageBitmap(file);
    clearPad();
    const scale = Math.min(pad.width / bitmap.width, pad.height / bitmap.height);
    const w = bitmap.width * scale, h = bitmap.height * scale;
    ctx.drawImage(bitmap, (pad.width - w) / 2, (pad.height - h) / 2, w, h);
    await classify();
  } catch (e) {
    setStatus(`Cannot read ${file.name}: ${e.message}`, 'error');
  }
});

clearPad();
try {
  engine = await startEngine();
  setStatus(`Kiln ${kiln.version()} ready; the model runs in ${engine.where}.`, 'ready');
} catch (e) {
  setStatus(`Kiln failed to start: ${e.message}`, 'error');
}
