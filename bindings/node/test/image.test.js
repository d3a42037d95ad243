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
