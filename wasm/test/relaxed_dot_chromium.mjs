// Runs wasm/postlink/relaxed_dot_probe.mjs's probes in headless Chromium
// (Debian's, wasm/browser/browser.mjs): what its V8 does with the relaxed
// i8 dot product's second-operand bytes of 128 and above.
//
//   node wasm/test/relaxed_dot_chromium.mjs [extra chromium flags...]
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../browser/browser.mjs';

const probeFile = fileURLToPath(new URL('../postlink/relaxed_dot_probe.mjs', import.meta.url));
// The probe module as a page script: its exports made plain declarations,
// the command-line part dropped.
const source = fs.readFileSync(probeFile, 'utf8')
  .replace(/^export /gm, '')
  .replace(/\nif \(typeof process[\s\S]*$/, '\n');

const browser = await launchChromium(process.argv.slice(2));
try {
  const page = await browser.newPage();
  const result = await page.evaluate(`(async () => {
    ${source}
    const bytes = dotProbeModule();
    if (!WebAssembly.validate(bytes)) return { relaxed: false };
    const { instance } = await WebAssembly.instantiate(bytes);
    return { relaxed: true, rows: runProbes(instance.exports), ua: navigator.userAgent };
  })()`);
  console.log(`chromium ${browser.version()}`);
  if (!result.relaxed) console.log('Relaxed SIMD not validated');
  for (const row of result.rows ?? [])
    console.log(`${row.name}: [${row.lanes.join(', ')}] = ${row.matches.join(' / ') || 'none of the three'}`);
} finally {
  await browser.close();
}
