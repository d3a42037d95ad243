'use strict';
// imageToTensor over C's kiln_image_to_tensor: exact values where the
// arithmetic is exact, layout, BGR, luma, and argument checks.

const test = require('node:test');
const assert = require('node:assert/strict');
const { kiln } = require('./helpers.js');

const { KilnError } = kiln;

test('same size: (p / 255 - mean) / std per channel, NCHW', () => {
  const w = 3;
  const h = 2;
  const rgb = new Uint8Array(w * h * 3);
  for (let i = 0; i < rgb.length; i++) rgb[i] = (i * 37) % 256;
  const mean = [0.5, 0.25, 0];
  const std = [0.5, 0.25, 1];
  const t = kiln.imageToTensor(rgb, { width: w, height: h, channels: 3, outWidth: w,
    outHeight: h, outChannels: 3, mean, std });
  assert.equal(t.type, 'float32');
  assert.deepEqual(t.dims, [1, 3, h, w]);
  for (let c = 0; c < 3; c++) {
    for (let p = 0; p < w * h; p++) {
      const want = (rgb[p * 3 + c] / 255 - mean[c]) / std[c];
      assert.ok(Math.abs(t.data[c * w * h + p] - want) < 1e-5, `c${c} p${p}`);
    }
  }
  const bgr = kiln.imageToTensor(rgb, { width: w, height: h, channels: 3, outWidth: w,
    outHeight: h, outChannels: 3, bgr: true });
  for (let p = 0; p < w * h; p++) {
    assert.ok(Math.abs(bgr.data[p] - rgb[p * 3 + 2] / 255) < 1e-6, 'B first');
  }
});

test('resize, gray and RGBA/ImageData inputs', () => {
  const gray = new Uint8Array(16).fill(200);
  const t = kiln.imageToTensor(gray, { width: 4, height: 4, channels: 1, outWidth: 2,
    outHeight: 2, outChannels: 3 });
  assert.deepEqual(t.dims, [1, 3, 2, 2]);
  for (const v of t.data) assert.ok(Math.abs(v - 200 / 255) < 1e-6);
  const rgba = new Uint8ClampedArray(2 * 2 * 4);
  for (let i = 0; i < 4; i++) rgba.set([255, 0, 0, 7], i * 4);
  const luma = kiln.imageToTensor({ data: rgba, width: 2, height: 2 },
    { outWidth: 2, outHeight: 2, outChannels: 1 });
  for (const v of luma.data) assert.ok(Math.abs(v - 0.299) < 1e-3, `luma ${v}`);
});

test('bad arguments are INVALID_ARGUMENT KilnErrors', () => {
  const px = new Uint8Array(12);
  const base = { width: 2, height: 2, channels: 3, outWidth: 2, outHeight: 2, outChannels: 3 };
  const bad = (fn, pattern) => assert.throws(fn, (err) => err instanceof KilnError &&
    err.code === 1 && (!pattern || pattern.test(err.message)));
  bad(() => kiln.imageToTensor(new Uint8Array(11), base), /bytes/);
  bad(() => kiln.imageToTensor(px, { ...base, mean: [0, 0] }), /mean/);
  bad(() => kiln.imageToTensor(px, { ...base, std: [1, 0, 1] }));
  bad(() => kiln.imageToTensor(px, { ...base, channels: 2 }));
  bad(() => kiln.imageToTensor(new Float32Array(12), base), /Uint8Array/);
  bad(() => kiln.imageToTensor(px, { ...base, outWidth: 0 }));
});

// decodeImage over C's kiln_image_decode, on the committed test images
// (tests/data/images/make_images.py draws the 7x5 pattern).
const path = require('node:path');
const IMAGES = path.join(__dirname, '..', '..', '..', 'tests', 'data', 'images');

function patternPixel(x, y) {
  return [(37 * x) % 256, (53 * y) % 256, (11 * x * y + 7) % 256];
}

test('decodeImage: PNG from a path and from bytes, exact pixels', (t) => {
  let img;
  try {
    img = kiln.decodeImage(path.join(IMAGES, 'pattern.png'));
  } catch (e) {
    if (e.status === 'unsupported') return t.skip(e.message); // built without libpng
    throw e;
  }
  assert.equal(img.width, 7);
  assert.equal(img.height, 5);
  assert.equal(img.channels, 3);
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 7; x++) {
      assert.deepEqual(Array.from(img.data.subarray((y * 7 + x) * 3, (y * 7 + x) * 3 + 3)),
        patternPixel(x, y), `pixel ${x},${y}`);
    }
  }
  const bytes = require('node:fs').readFileSync(path.join(IMAGES, 'pattern.png'));
  const fromBytes = kiln.decodeImage(bytes);
  assert.deepEqual(fromBytes.data, img.data);
  // imageToTensor takes the decoded image as it is
  const tensor = kiln.imageToTensor(img, { outWidth: 7, outHeight: 5 });
  assert.deepEqual(tensor.dims, [1, 3, 5, 7]);
  assert.ok(Math.abs(tensor.data[1] - patternPixel(1, 0)[0] / 255) < 1e-6);
});

test('decodeImage: one channel, and corrupt input names the format', () => {
  const gray = kiln.decodeImage(path.join(IMAGES, 'pattern.bmp'), { channels: 1 });
  assert.equal(gray.channels, 1);
  assert.equal(gray.data.length, 35);
  const bmp = require('node:fs').readFileSync(path.join(IMAGES, 'pattern.bmp'));
  assert.throws(() => kiln.decodeImage(bmp.subarray(0, 100)),
    (e) => e instanceof KilnError && e.status === 'invalid argument' &&
      /BMP image: truncated/.test(e.message));
  assert.throws(() => kiln.decodeImage(new Uint8Array([1, 2, 3, 4])),
    (e) => e instanceof KilnError && /unrecognised image format/.test(e.message));
  assert.throws(() => kiln.decodeImage(bmp, { channels: 4 }), /channels must be 1 or 3/);
});
