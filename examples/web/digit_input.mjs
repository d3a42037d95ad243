// Turns a picture of one handwritten digit into the digits model's input:
// a float32 [1, 1, 8, 8] tensor, 0 = paper, 1 = full ink, framed the way
// the training images are (examples/digits/README.md).
//
// The training images (scikit-learn's 8x8 digits) are 32x32 bitmaps whose
// 4x4 blocks were counted into 0..16, with the digit scaled to the full
// height and centred across. So the digit's bounding box is cut out,
// scaled to a 16x16 canvas (the browser's smooth scaling), and
// kiln.imageToTensor halves that to 8x8: its bilinear resize with
// half-pixel centres averages each 2x2 block exactly at a factor of two,
// which is the block counting the data set did.

const WORK_SIZE = 16;     // 2x the model's 8x8, see above
const INK_THRESHOLD = 30; // luma difference from the paper that counts as ink (0..255)

function luma(d, i) {
  return 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
}

// Average luma of the outermost pixels: the paper's brightness.
function backgroundLuma(image) {
  const { width: w, height: h, data } = image;
  let sum = 0, n = 0;
  for (let x = 0; x < w; x++) {
    sum += luma(data, 4 * x) + luma(data, 4 * ((h - 1) * w + x));
    n += 2;
  }
  for (let y = 0; y < h; y++) {
    sum += luma(data, 4 * y * w) + luma(data, 4 * (y * w + w - 1));
    n += 2;
  }
  return sum / n;
}

// The smallest box holding every ink pixel, or null for an empty picture.
function inkBox(image, paper) {
  const { width: w, height: h, data } = image;
  let x0 = w, y0 = h, x1 = -1, y1 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (Math.abs(luma(data, 4 * (y * w + x)) - paper) < INK_THRESHOLD) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  return x1 < 0 ? null : { x: x0, y: y0, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}

/** Reads `source` (a canvas, or anything drawImage takes, with its size)
 * and returns { tensor, preview } or null when there is no ink. preview is
 * the 8x8 input as 64 values in 0..1, for display. Works with dark ink on
 * light paper and light ink on dark paper. */
export function digitToTensor(kiln, source, width, height) {
  const full = document.createElement('canvas');
  full.width = width;
  full.height = height;
  const fctx = full.getContext('2d', { willReadFrequently: true });
  fctx.fillStyle = '#fff'; // transparent pixels of an upload count as paper
  fctx.fillRect(0, 0, width, height);
  fctx.drawImage(source, 0, 0, width, height);
  const image = fctx.getImageData(0, 0, width, height);
  const paper = backgroundLuma(image);
  const box = inkBox(image, paper);
  if (!box) return null;

  // Full height (or full width for a wide shape), centred, on paper.
  const scale = WORK_SIZE / Math.max(box.w, box.h);
  const dw = box.w * scale, dh = box.h * scale;
  const work = document.createElement('canvas');
  work.width = work.height = WORK_SIZE;
  const wctx = work.getContext('2d', { willReadFrequently: true });
  const p = Math.round(paper);
  wctx.fillStyle = `rgb(${p},${p},${p})`;
  wctx.fillRect(0, 0, WORK_SIZE, WORK_SIZE);
  wctx.imageSmoothingEnabled = true;
  wctx.imageSmoothingQuality = 'high';
  wctx.drawImage(full, box.x, box.y, box.w, box.h, (WORK_SIZE - dw) / 2, (WORK_SIZE - dh) / 2, dw, dh);

  // value = luma / 255 on dark paper; on light paper the ink is dark, so
  // the value is 1 - luma / 255 = (luma / 255 - 1) / -1.
  const dark = paper < 128;
  const tensor = kiln.imageToTensor(wctx.getImageData(0, 0, WORK_SIZE, WORK_SIZE), {
    outWidth: 8, outHeight: 8, outChannels: 1,
    mean: [dark ? 0 : 1], std: [dark ? 1 : -1],
  });
  return { tensor, preview: Array.from(tensor.data, (v) => Math.min(1, Math.max(0, v))) };
}

/** Probabilities from logits (the model has no softmax layer). */
export function softmax(logits) {
  const max = Math.max(...logits);
  const e = Array.from(logits, (v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}
