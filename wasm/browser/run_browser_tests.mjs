#!/usr/bin/env node
// Runs Kiln's WebAssembly module and the digits page (examples/web) in
// Debian's headless Chromium, driven by playwright-core, and compares with
// the native build.
//
//   node wasm/browser/run_browser_tests.mjs --cli BUILD/kiln [--wasm DIR] [--wasm-mt DIR]
//        [--models DIR] [--tmp DIR] [--only REGEX]
//
// --wasm / --wasm-mt: the two wasm/build.sh outputs (default build-wasm,
// build-wasm-mt); --models: exported models (tools/export_models.py), for
// squeezenet1_1; --cli: the native `kiln` the results are compared with.
// Exit status 0 when every test passes or skips, 1 otherwise.
// run_browser_tests.sh (the ctest `wasm_browser`) builds everything first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM, launchChromium } from './browser.mjs';
import { startServer, sourceDir } from './serve.mjs';
import { moduleTests, Skip } from './tests_module.mjs';
import { exampleTests } from './tests_example.mjs';

function parseArgs(argv) {
  const names = { '--cli': 'cli', '--wasm': 'wasmDir', '--wasm-mt': 'wasmMtDir', '--models': 'modelsDir',
    '--tmp': 'tmp', '--only': 'only' };
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const key = names[argv[i]];
    if (!key || i + 1 >= argv.length) {
      console.error('usage: run_browser_tests.mjs --cli KILN [--wasm DIR] [--wasm-mt DIR] [--models DIR] ' +
        '[--tmp DIR] [--only REGEX]');
      process.exit(2);
    }
    opts[key] = argv[++i];
  }
  return opts;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const wasmDir = path.resolve(opts.wasmDir ?? path.join(sourceDir, 'build-wasm'));
  const wasmMtDir = path.resolve(opts.wasmMtDir ?? path.join(sourceDir, 'build-wasm-mt'));
  for (const f of [path.join(wasmDir, 'kiln.mjs'), path.join(wasmDir, 'kiln-core.wasm'),
    path.join(wasmMtDir, 'kiln-core-mt.wasm')]) {
    if (!fs.existsSync(f)) throw new Error(`${f} is missing: build with wasm/build.sh`);
  }
  if (!opts.cli || !fs.existsSync(opts.cli)) throw new Error(`--cli: the native kiln CLI '${opts.cli ?? ''}' is missing`);
  const tmp = opts.tmp ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kiln-browser-'));
  fs.mkdirSync(tmp, { recursive: true });
  const modelsDir = opts.modelsDir && fs.existsSync(opts.modelsDir) ? path.resolve(opts.modelsDir) : null;

  const server = await startServer({ port: 0, wasmDir, wasmMtDir, modelsDir, quiet: true });
  const browser = await launchChromium();
  console.log(`${browser.version()} (${CHROMIUM}), serving on ${server.url}`);
  const ctx = { browser, url: server.url, cli: path.resolve(opts.cli), modelsDir, sourceDir, tmp };

  const only = opts.only ? new RegExp(opts.only) : null;
  const counts = { pass: 0, fail: 0, skip: 0 };
  const started = Date.now();
  try {
    for (const [name, run] of [...moduleTests, ...exampleTests]) {
      if (only && !only.test(name)) continue;
      const t0 = Date.now();
      try {
        const detail = await run(ctx);
        counts.pass++;
        console.log(`ok   ${name} [${((Date.now() - t0) / 1000).toFixed(1)} s]: ${detail}`);
      } catch (e) {
        if (e instanceof Skip) {
          counts.skip++;
          console.log(`SKIP ${name}: ${e.message}`);
        } else {
          counts.fail++;
          console.log(`FAIL ${name}: ${e.stack ?? e}`);
        }
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  console.log(`browser tests: ${counts.pass} passed, ${counts.fail} failed, ${counts.skip} skipped ` +
    `in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return counts.fail ? 1 : 0;
}

main().then((rc) => process.exit(rc), (e) => {
  console.error(`run_browser_tests: ${e.message}`);
  process.exit(1);
});
