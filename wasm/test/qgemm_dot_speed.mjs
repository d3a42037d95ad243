// Times products through the relaxed engine's GEMMs in headless Chromium
// (wasm/glue/qgemm_dot_exports.c: A packed once, B packed each time, as a
// convolution's column blocks are): the int16 GEMM (off) and the dot GEMM
// in each mode the probe allows, fastest of 5 rounds of 20 products.
//
//   node wasm/test/qgemm_dot_speed.mjs [--wasm DIR] [M N K ...]
import path from 'node:path';
import { launchChromium } from '../browser/browser.mjs';
import { startServer, sourceDir } from '../browser/serve.mjs';

const argv = process.argv.slice(2);
let wasmDir = path.join(sourceDir, 'build-wasm');
if (argv[0] === '--wasm') { wasmDir = argv[1]; argv.splice(0, 2); }
const dims = argv.length ? argv.map(Number) : [64, 3136, 576, 128, 784, 1152, 256, 196, 2304, 512, 49, 4608];
const shapes = [];
for (let i = 0; i + 2 < dims.length; i += 3) shapes.push(dims.slice(i, i + 3));

async function timeInPage({ shapes }) {
  const { loadEngine } = await import('/kiln/kiln-loader.mjs');
  const { mod, memory } = await loadEngine({ relaxedSimd: true }, 1);
  const p = mod._malloc(16);
  const mode = mod._kiln_wasm_qgemm_dot_probe(p); // what runs exactly
  // where pairs saturate (the a = 127, b = 255 lane reads 65534), one dot
  // per quad would still be exact for 7-bit weights (|a0| + |a1| <= 128):
  // timed with such weights, to see whether it would beat the int16 GEMM
  // there (on a Zen 4 in Chromium 156 it did not: 38.9 against 38.6
  // GMAC/s, both bound by the same multiply units), so Kiln does not use it
  const saturating = mode === 2 && new Int32Array(memory.buffer, p, 4)[0] === 65534;
  const modes = mode === 1 || saturating ? [0, 1, 2] : mode === 2 ? [0, 2] : [0];
  const rows = [];
  for (const [m, n, k] of shapes) {
    const pa = mod._malloc(2 * m * k), pb = mod._malloc(2 * k * n), pc = mod._malloc(4 * m * n);
    const a = new Int16Array(memory.buffer, pa, m * k), b = new Int16Array(memory.buffer, pb, k * n);
    const half = saturating ? 63 : 127; // 7-bit weights where pairs saturate
    for (let i = 0; i < a.length; i++) a[i] = ((i * 7919) % (2 * half + 1)) - half;
    for (let i = 0; i < b.length; i++) b[i] = ((i * 104729) % 256) - 100;
    const row = { shape: `${m}x${n}x${k}` };
    for (const md of modes) {
      let best = Infinity;
      for (let r = 0; r < 5; r++) {
        const t0 = performance.now();
        mod._kiln_wasm_qgemm(m, n, k, pa, pb, 100, md, pc, 20);
        best = Math.min(best, (performance.now() - t0) / 20);
      }
      row[['off', 'unsigned', 'halves'][md]] = { ms: best, gmacs: (m * n * k) / best / 1e6 };
    }
    rows.push(row);
    for (const q of [pa, pb, pc]) mod._free(q);
  }
  return rows;
}

const server = await startServer({ port: 0, wasmDir, quiet: true });
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}wasm/browser/blank.html`);
  for (const row of await page.evaluate(timeInPage, { shapes })) {
    const cells = Object.entries(row).filter(([k]) => k !== 'shape')
      .map(([k, v]) => `${k} ${v.ms.toFixed(2)} ms (${v.gmacs.toFixed(1)} GMAC/s)`);
    console.log(`${row.shape.padEnd(14)} ${cells.join(', ')}`);
  }
} finally {
  await browser.close();
  await server.close();
}
