// imageToTensor (kiln_image_to_tensor compiled to WebAssembly) agrees with
// the native library on seeded random images: up- and downscaling, odd
// sizes, every channel combination, BGR, mean/std, row padding, ImageData.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { kiln, imageRef, exists } from './support.mjs';

// Seeded LCG, so a failure can be reproduced.
function randomBytes(n, seed) {
  const out = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s >>> 24;
  }
  return out;
}

function nativeResult(c, pixels) {
  const header = new Int32Array([c.width, c.height, c.stride, c.channels, c.outWidth, c.outHeight,
    c.outChannels, c.bgr ? 1 : 0, c.mean ? 1 : 0, c.std ? 1 : 0]);
  const parts = [Buffer.from(header.buffer), Buffer.from(pixels)];
  if (c.mean) parts.push(Buffer.from(Float32Array.from(c.mean).buffer));
  if (c.std) parts.push(Buffer.from(Float32Array.from(c.std).buffer));
  const out = execFileSync(imageRef, { input: Buffer.concat(parts) });
  return new Float32Array(out.buffer, out.byteOffset, out.byteLength / 4);
}

const IMAGENET = { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] };
const cases = [
  { width: 640, height: 480, channels: 4, outWidth: 224, outHeight: 224, outChannels: 3, ...IMAGENET },
  { width: 37, height: 23, channels: 3, outWidth: 96, outHeight: 80, outChannels: 3, bgr: true },
  { width: 31, height: 17, channels: 1, outWidth: 8, outHeight: 8, outChannels: 1 },
  { width: 50, height: 40, channels: 3, outWidth: 28, outHeight: 28, outChannels: 1, mean: [0.5], std: [0.25] },
  { width: 9, height: 7, channels: 1, outWidth: 13, outHeight: 5, outChannels: 3 },
  { width: 20, height: 10, channels: 4, stride: 100, outWidth: 20, outHeight: 10, outChannels: 3 },
];

for (const [i, c] of cases.entries()) {
  const name = `${c.width}x${c.height}x${c.channels} -> ${c.outChannels}x${c.outHeight}x${c.outWidth}` +
    `${c.bgr ? ' bgr' : ''}${c.mean ? ' normalised' : ''}${c.stride ? ` stride ${c.stride}` : ''}`;
  test(`imageToTensor matches the native library: ${name}`,
    { skip: exists(imageRef) ? false : 'no native image_ref program (KILN_IMAGE_REF): run through ctest' },
    async () => {
      await kiln.init();
      const stride = c.stride ?? c.width * c.channels;
      const pixels = randomBytes(stride * c.height, 1234 + i);
      const got = kiln.imageToTensor(pixels, { ...c });
      assert.equal(got.type, 'float32');
      assert.deepEqual(got.dims, [1, c.outChannels, c.outHeight, c.outWidth]);
      const want = nativeResult({ ...c, stride }, pixels);
      assert.equal(got.data.length, want.length);
      let maxDiff = 0;
      for (let k = 0; k < want.length; k++) maxDiff = Math.max(maxDiff, Math.abs(got.data[k] - want[k]));
      console.log(`${name}: max |wasm - native| = ${maxDiff}`);
      assert.ok(maxDiff <= 1e-6, `max diff ${maxDiff}`);
    });
}

test('ImageData input (RGBA, sizes from the object) with a Uint8ClampedArray', async () => {
  await kiln.init();
  const data = new Uint8ClampedArray([255, 51, 0, 9, 0, 102, 255, 200]);
  const imageData = { data, width: 2, height: 1 };
  const t = kiln.imageToTensor(imageData, { outWidth: 2, outHeight: 1, outChannels: 3 });
  const want = [1, 0, 0.2, 0.4, 0, 1];
  t.data.forEach((v, k) => assert.ok(Math.abs(v - want[k]) < 1e-6, `${k}: ${v}`));
  const luma = kiln.imageToTensor(imageData, { outWidth: 1, outHeight: 1, outChannels: 1 });
  // Downscale 2 -> 1 averages the two pixels before taking luma.
  const r = 127.5, g = 76.5, b = 127.5;
  assert.ok(Math.abs(luma.data[0] - (0.299 * r + 0.587 * g + 0.114 * b) / 255) < 1e-6);
});
