'use strict';
// imageToTensor: 8-bit pixels to a normalized float32 NCHW tensor, by the C
// library's kiln_image_to_tensor (bilinear resize with half-pixel centres,
// then (pixel / 255 - mean[c]) / std[c]; RGB, BGR or luma).
// decodeImage: an encoded image (PNG, JPEG, WebP, JPEG 2000, BMP, PNM, TIFF)
// to 8-bit pixels, by kiln_image_decode.

const fs = require('node:fs');
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
    channels ??= pixels.channels ?? 4; // decodeImage's result says; ImageData is RGBA
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

// source: a file path (string), or the file's bytes (Uint8Array, Buffer or
// ArrayBuffer). opts.channels: 3 (R, G, B; the default) or 1 (luma, as PIL's
// convert("L")). Returns {data: Uint8Array of height rows of width pixels,
// channels interleaved, width, height, channels}, which imageToTensor takes
// as it is. Throws KilnError: INVALID_ARGUMENT for a corrupt image (naming
// the format and the defect), UNSUPPORTED for a format this libkiln was built
// without (naming the library).
function decodeImage(source, opts = {}) {
  const channels = opts.channels ?? 3;
  if (channels !== 1 && channels !== 3) {
    throw kilnError(STATUS.INVALID_ARGUMENT,
      `decodeImage: channels must be 1 or 3, got ${channels}`);
  }
  let bytes = source;
  if (typeof source === 'string') bytes = fs.readFileSync(source);
  else if (source instanceof ArrayBuffer) bytes = new Uint8Array(source);
  if (!(bytes instanceof Uint8Array)) {
    throw kilnError(STATUS.INVALID_ARGUMENT,
      'decodeImage: source must be a path, a Uint8Array/Buffer or an ArrayBuffer');
  }
  // pixels null: the glue asks for the size, allocates, and decodes.
  const { pixels, width, height } = native.kiln_image_decode(bytes, channels, null);
  return { data: pixels, width, height, channels };
}

module.exports = { imageToTensor, decodeImage };
