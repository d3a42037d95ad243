'use strict';
// imageToTensor: 8-bit pixels to a normalized float32 NCHW tensor, by the C
// library's kiln_image_to_tensor (bilinear resize with half-pixel centres,
// then (pixel / 255 - mean[c]) / std[c]; RGB, BGR or luma).

const { native } = require('./native.js');
const { STATUS, IMAGE_FLAG } = require('./constants_gen.js');
const { kilnError } = require('./errors.js');

const MAX_ELEMENTS = 2 ** 30;

function argError(message) {
  return kilnError(STATUS.INVALID_ARGUMENT, `imageToTensor: ${message}`);
}

// pixels: Uint8Array / Uint8ClampedArray (with width, height, channels in
// opts) or an ImageData-like {data, width, height} (RGBA). opts: outWidth,
// outHeight, outChannels (default 3), mean, std, bgr, stride.
function imageToTensor(pixels, opts = {}) {
  let bytes = pixels;
  let { width, height, channels } = opts;
  if (pixels && !ArrayBuffer.isView(pixels) && pixels.data && pixels.width) { // ImageData
    bytes = pixels.data;
    width ??= pixels.width;
    height ??= pixels.height;
    channels ??= 4;
  }
  if (!(bytes instanceof Uint8Array || bytes instanceof Uint8ClampedArray)) {
    throw argError('pixels must be a Uint8Array, Uint8ClampedArray or ImageData');
  }
  if (!(Number.isInteger(width) && width > 0 && Number.isInteger(height) && height > 0)) {
    throw argError('width and height must be positive integers');
  }
  channels ??= bytes.length / (width * height);
  const { outWidth, outHeight, outChannels = 3 } = opts;
  for (const [key, value] of Object.entries({ channels, outWidth, outHeight, outChannels })) {
    if (!Number.isInteger(value) || value < 1) {
      throw argError(`${key} must be a positive integer, got ${value}`);
    }
  }
  const count = outChannels * outHeight * outWidth;
  if (count > MAX_ELEMENTS) throw argError(`an output of ${count} elements is too big`);
  const data = new Float32Array(count);
  const stride = opts.stride ?? width * channels;
  // The glue checks the pixel count and the mean/std lengths itself.
  native.kiln_image_to_tensor(bytes, width, height, stride, channels, outWidth, outHeight,
    outChannels, opts.mean ?? null, opts.std ?? null, opts.bgr ? IMAGE_FLAG.BGR : 0, data);
  return { type: 'float32', dims: [1, outChannels, outHeight, outWidth], data };
}

module.exports = { imageToTensor };
