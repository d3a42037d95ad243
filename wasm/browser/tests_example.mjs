// Browser tests of the digits page (examples/web): digits drawn with the
// mouse and pictures uploaded through the file input are classified, and
// the bar chart shows the probabilities.
import fs from 'node:fs';
import path from 'node:path';
import { readTensor } from './native_ref.mjs';

// Strokes of a few digits in pad coordinates (0..1), drawn as a person
// would: one or two pen strokes each.
function arc(cx, cy, rx, ry, fromDeg, toDeg, steps = 24) {
  return Array.from({ length: steps + 1 }, (_, i) => {
    const a = ((fromDeg + ((toDeg - fromDeg) * i) / steps) * Math.PI) / 180;
    return [cx + rx * Math.cos(a), cy + ry * Math.sin(a)];
  });
}
const DRAWN = [
  [0, [arc(0.5, 0.5, 0.22, 0.36, 0, 360)]],
  [1, [[[0.45, 0.25], [0.55, 0.14], [0.55, 0.86]]]],
  [2, [[...arc(0.5, 0.33, 0.22, 0.19, 200, 390), [0.28, 0.86], [0.74, 0.86]]]],
  [3, [arc(0.5, 0.32, 0.2, 0.18, 200, 450), arc(0.5, 0.68, 0.22, 0.18, 270, 520)]],
  [4, [[[0.6, 0.14], [0.26, 0.62], [0.76, 0.62]], [[0.6, 0.14], [0.6, 0.86]]]],
  [7, [[[0.28, 0.16], [0.72, 0.16], [0.42, 0.86]]]],
];

async function openExample(ctx, query = '') {
  const context = await ctx.browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${ctx.url}examples/web/${query}`);
  await page.waitForFunction(() => document.getElementById('status').dataset.state !== 'loading', null, { timeout: 60000 });
  const status = await page.textContent('#status');
  if (await page.getAttribute('#status', 'data-state') !== 'ready') throw new Error(`page did not start: ${status}`);
  return { page, status, errors, close: () => context.close() };
}

const classifiedCount = (page) => page.evaluate(() => Number(document.body.dataset.classified ?? 0));

// The prediction and the chart as drawn: { predicted, bars: [{label, prob, height, best}] }.
async function readResult(page) {
  return page.evaluate(() => ({
    predicted: Number(document.getElementById('prediction').dataset.class),
    bars: [...document.querySelectorAll('#chart rect.bar')].map((r) => ({
      label: Number(r.dataset.label), prob: Number(r.dataset.prob),
      height: r.getBBox().height, best: r.classList.contains('best'),
    })),
  }));
}

// Checks that the chart shows 10 probabilities summing to 1, the tallest
// bar highlighted and equal to the prediction; returns that probability.
function checkChart({ predicted, bars }, what) {
  if (bars.length !== 10) throw new Error(`${what}: the chart has ${bars.length} bars, not 10`);
  const sum = bars.reduce((a, b) => a + b.prob, 0);
  if (Math.abs(sum - 1) > 1e-3) throw new Error(`${what}: probabilities sum to ${sum}`);
  const tallest = bars.reduce((a, b) => (b.height > a.height ? b : a));
  if (!tallest.best || tallest.label !== predicted)
    throw new Error(`${what}: tallest bar ${tallest.label} (highlighted: ${tallest.best}) but prediction ${predicted}`);
  return bars[predicted].prob;
}

async function drawDigits(page) {
  const box = await page.locator('#pad').boundingBox();
  const results = [];
  for (const [label, strokes] of DRAWN) {
    await page.click('#clear');
    for (const stroke of strokes) {
      const before = await classifiedCount(page);
      const pts = stroke.map(([x, y]) => [box.x + box.width * x, box.y + box.height * y]);
      await page.mouse.move(...pts[0]);
      await page.mouse.down();
      for (const p of pts.slice(1)) await page.mouse.move(...p, { steps: 4 });
      await page.mouse.up();
      await page.waitForFunction((n) => Number(document.body.dataset.classified ?? 0) > n, before);
    }
    const result = await readResult(page);
    const p = checkChart(result, `drawn ${label}`);
    if (result.predicted !== label) throw new Error(`drawn ${label} was classified as ${result.predicted}`);
    results.push(`${label} (p=${p.toFixed(2)})`);
  }
  return results;
}

async function drawnDigits(ctx) {
  const { page, status, errors, close } = await openExample(ctx);
  try {
    if (!/Web Worker/.test(status)) throw new Error(`expected the model in a Web Worker: '${status}'`);
    const results = await drawDigits(page);
    if (errors.length) throw new Error(`page errors: ${errors.join(' | ')}`);
    return `drawn ${results.join(', ')}; chart checked; ${status}`;
  } finally {
    await close();
  }
}

// A sample from examples/digits/samples as a PNG (dark ink on white,
// 10x10 px per cell), made by the page's own canvas.
async function samplePng(page, values) {
  const dataUrl = await page.evaluate((values) => {
    const c = document.createElement('canvas');
    c.width = c.height = 80;
    const g = c.getContext('2d');
    values.forEach((v, i) => {
      const level = Math.round(255 * (1 - Math.min(1, Math.max(0, v))));
      g.fillStyle = `rgb(${level},${level},${level})`;
      g.fillRect(10 * (i % 8), 10 * Math.floor(i / 8), 10, 10);
    });
    return c.toDataURL('image/png');
  }, values);
  return Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64');
}

async function uploadedSamples(ctx) {
  const dir = path.join(ctx.sourceDir, 'examples/digits/samples');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.pb')).sort();
  const { page, errors, close } = await openExample(ctx);
  try {
    let right = 0;
    const wrong = [];
    for (const f of files) {
      const label = Number(/_label_(\d)/.exec(f)[1]);
      const png = await samplePng(page, Array.from(readTensor(path.join(dir, f)).data));
      const before = await classifiedCount(page);
      await page.setInputFiles('#upload', { name: f.replace('.pb', '.png'), mimeType: 'image/png', buffer: png });
      await page.waitForFunction((n) => Number(document.body.dataset.classified ?? 0) > n, before);
      const result = await readResult(page);
      checkChart(result, f);
      if (result.predicted === label) right++;
      else wrong.push(`${f} -> ${result.predicted}`);
    }
    if (errors.length) throw new Error(`page errors: ${errors.join(' | ')}`);
    // Cropping and re-framing an upload may move a stroke by a pixel, so a
    // hard case may flip; most must survive the round trip.
    if (right * 10 < files.length * 9)
      throw new Error(`only ${right}/${files.length} uploads classified as labelled: ${wrong.join(', ')}`);
    return `${right}/${files.length} uploaded samples classified as labelled` +
      (wrong.length ? ` (wrong: ${wrong.join(', ')})` : '');
  } finally {
    await close();
  }
}

async function mainThreadFallback(ctx) {
  const { page, status, close } = await openExample(ctx, '?worker=0');
  try {
    if (!/page's thread/.test(status)) throw new Error(`expected the model on the page's thread: '${status}'`);
    const results = await drawDigits(page);
    return `without the worker: drawn ${results.length} digits right`;
  } finally {
    await close();
  }
}

export const exampleTests = [
  ['example page: drawn digits', drawnDigits],
  ['example page: uploaded pictures', uploadedSamples],
  ['example page: on the page thread', mainThreadFallback],
];
