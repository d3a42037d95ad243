// The relaxed engine's dot-product GEMM (core/simd/qgemm_dot.h) against
// the SIMD128 engine's int16 GEMM and a JS product, bit for bit, in every
// mode the probe allows (wasm/test/qgemm_dot_check.mjs): here in Node, and
// in headless Chromium where playwright-core is installed (wasm/browser),
// whose V8 runs the instruction exactly (Node 20's does not: its start-up
// probe turns the dot product off, which this test checks too).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { sourceDir, wasmDir } from './support.mjs';
import { checkDotGemm } from './qgemm_dot_check.mjs';

const { standardizeRelaxedOpcodes } = await import(pathToFileURL(path.join(sourceDir, 'wasm/postlink/standard_relaxed_opcodes.mjs')).href);
const { dotProbeModule } = await import(pathToFileURL(path.join(sourceDir, 'wasm/postlink/relaxed_dot_probe.mjs')).href);

const relaxedBuilt = fs.existsSync(path.join(wasmDir, 'kiln-core-relaxed.wasm'));
const { loadEngine, relaxedSimdSupported } = await import(pathToFileURL(path.join(wasmDir, 'kiln-loader.mjs')).href);

test('the placeholder f64x2.fms becomes i32x4.relaxed_dot_i8x16_i7x16_add_s', () => {
  const standard = dotProbeModule();
  const at = standard.findIndex((_, i) => standard[i] === 0xfd && standard[i + 1] === 0x93 && standard[i + 2] === 0x02);
  assert.ok(at > 0);
  const draft = standard.slice();
  draft.set([0xfd, 0xd0, 0x01], at); // f64x2.fms, draft numbering
  const counts = {};
  assert.deepEqual(standardizeRelaxedOpcodes(draft, counts), { rewritten: 1, standard: 0 });
  assert.equal(counts.dots, 1);
  assert.deepEqual(draft, standard);
  assert.equal(WebAssembly.validate(draft), relaxedSimdSupported());
});

function report(where, r) {
  console.log(`${where}: probe ${JSON.stringify(r.probe)}, modes ${r.modes.join(', ')}; ` +
    `${r.checked.length} products${r.skipped.length ? `; skipped: ${r.skipped.join('; ')}` : ''}`);
  assert.deepEqual(r.failures, []);
}

test('in Node: dot products equal the int16 GEMM in every mode the probe allows', async () => {
  const r = await checkDotGemm(loadEngine, { relaxed: relaxedBuilt && relaxedSimdSupported() });
  report('node', r);
  if (r.probe) {
    // Node 20's V8 11.3 adds the dot product twice and drops the
    // accumulator in its baseline compiler: the probe must refuse it
    if (process.versions.v8.startsWith('11.3')) assert.deepEqual([r.probe.exact, r.probe.used], [0, 0]);
  }
});

let playwright = null;
try {
  playwright = await import(pathToFileURL(path.join(sourceDir, 'wasm/browser/node_modules/playwright-core/index.mjs')).href);
} catch { /* not installed */ }

test('in Chromium: dot products equal the int16 GEMM, both modes', {
  skip: !playwright ? 'playwright-core not installed (npm ci in wasm/browser)' :
    !relaxedBuilt ? 'no kiln-core-relaxed.wasm (KILN_WASM_RELAXED_SIMD=OFF)' :
      !fs.existsSync(process.env.KILN_CHROMIUM ?? '/usr/bin/chromium') ? 'no Chromium' : false,
}, async () => {
  const { launchChromium } = await import(pathToFileURL(path.join(sourceDir, 'wasm/browser/browser.mjs')).href);
  const { startServer } = await import(pathToFileURL(path.join(sourceDir, 'wasm/browser/serve.mjs')).href);
  const server = await startServer({ port: 0, wasmDir, quiet: true });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}wasm/browser/blank.html`);
    const r = await page.evaluate(async () => {
      const { loadEngine } = await import('/kiln/kiln-loader.mjs');
      const { checkDotGemm } = await import('/wasm/test/qgemm_dot_check.mjs');
      return checkDotGemm(loadEngine);
    });
    report(`chromium ${browser.version()}`, r);
    assert.ok(r.modes.includes('halves'), 'Chromium runs the dot product exactly within [0, 127]');
    // on x64 with AVX-VNNI (one vpdpbusd) bytes above 127 are exact too, and used
    if (r.probe.lanes[0] === 4 * 127 * 255) assert.equal(r.probe.used, 1);
  } finally {
    await browser.close();
    await server.close();
  }
});
