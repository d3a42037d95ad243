#!/usr/bin/env node
// Kiln's WebAssembly engine on int8 (QDQ) models against the same models in
// float32, in headless Chromium: one page per model, both sessions loaded
// in it, runs alternating so both see the same machine load. Prints the
// CPU, then per model Kiln f32 ms, Kiln int8 ms and f32/int8 (above 1:
// int8 faster), and with --profile the time per op type of both.
//
//   node bench/web/int8.mjs --models-dir DIR [--models a,b] [--wasm DIR]
//        [--runs N] [--profile] [--top N] [--json FILE]
//
// DIR holds NAME/model.onnx, NAME/int8.onnx (kiln quantize, see
// docs/quantization.md) and NAME/input_0.pb. Single-threaded engine
// (wasm/build.sh's build-wasm), the GEMM tile timed on the page as usual.
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../../wasm/browser/browser.mjs';
import { startServer, sourceDir } from '../../wasm/browser/serve.mjs';
import { describeCpu, hostCpu } from './machine.mjs';

const USAGE = 'usage: node bench/web/int8.mjs --models-dir DIR [--models a,b] [--wasm DIR] [--runs N] ' +
  '[--profile] [--top N] [--json FILE]';
const opts = { models: 'squeezenet1_1,mobilenet_v2,resnet50,efficientnet_b0,bert_encoder', wasmDir: path.join(sourceDir, 'build-wasm'),
  runs: 30, top: 12, modelsDir: process.env.KILN_MODELS_DIR };
const names = { '--models': 'models', '--models-dir': 'modelsDir', '--wasm': 'wasmDir', '--runs': 'runs', '--top': 'top', '--json': 'json' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--profile') {
    opts.profile = true;
    continue;
  }
  if (!names[argv[i]] || i + 1 >= argv.length) {
    console.error(USAGE);
    process.exit(2);
  }
  opts[names[argv[i]]] = argv[++i];
}
if (!opts.modelsDir || !fs.existsSync(opts.modelsDir)) {
  console.error(`int8.mjs: --models-dir must name the models folder\n${USAGE}`);
  process.exit(2);
}

// In the page: both models of one name loaded, warmed up, then `runs`
// rounds, the order within a round alternating; with profile, each
// session's steps summed by op type (ms per run).
async function compareInPage({ model, runs, profile, top, budgetMs }) {
  const kiln = await import('/kiln/kiln.mjs');
  await kiln.init({});
  const get = async (file) => {
    const r = await fetch(`/models/${model}/${file}`);
    if (!r.ok) throw new Error(`${model}/${file}: HTTP ${r.status}`);
    return new Uint8Array(await r.arrayBuffer());
  };
  const input = kiln.decodeTensor(await get('input_0.pb'));
  const sessions = [];
  for (const [name, file] of [['f32', 'model.onnx'], ['int8', 'int8.onnx']]) {
    const m = await kiln.Model.load(await get(file));
    const session = m.createSession({ profile });
    const feeds = { [m.inputs[0].name]: input };
    session.runSync(feeds);
    if (profile) session.resetProfile();
    sessions.push({ name, m, session, feeds, times: [] });
  }
  const start = performance.now();
  for (let r = 0; r < runs; r++) {
    for (const s of r % 2 ? [...sessions].reverse() : sessions) {
      const t0 = performance.now();
      s.session.runSync(s.feeds);
      s.times.push(performance.now() - t0);
    }
    if (r >= 4 && performance.now() - start > budgetMs) break;
  }
  const out = {};
  for (const s of sessions) {
    out[s.name] = { times: s.times };
    if (profile) {
      const byOp = {};
      for (const p of s.session.profile()) byOp[p.op] = (byOp[p.op] ?? 0) + p.totalMs / Math.max(1, p.runs);
      out[s.name].byOp = Object.entries(byOp).sort((a, b) => b[1] - a[1]);
      out[s.name].slowest = s.session.profile().map((p) => ({ op: p.op, name: p.name, ms: p.totalMs / Math.max(1, p.runs) }))
        .sort((a, b) => b.ms - a.ms).slice(0, top);
    }
    s.m.dispose();
  }
  out.tile = kiln.env.gemmTile;
  // 'relaxed' runs the int8 GEMM on the i8 dot product where its probe allows
  out.simd = kiln.env.simd;
  out.browserCpu = { userAgent: navigator.userAgent, hardwareConcurrency: navigator.hardwareConcurrency };
  return out;
}

const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[(s.length >> 1) - 1] + s[s.length >> 1]) / 2;
};
const pad = (s, n) => String(s).padStart(n);

const server = await startServer({ port: 0, wasmDir: opts.wasmDir, modelsDir: opts.modelsDir, quiet: true });
const browser = await launchChromium();
const report = { chromium: browser.version(), date: new Date().toISOString(), cpu: hostCpu(), models: [] };
let failed = 0;
try {
  console.log(`Chromium ${browser.version()}, Kiln from ${opts.wasmDir}, 1 thread, ${opts.runs} runs each`);
  console.log(describeCpu(report.cpu));
  console.log(`${'model'.padEnd(16)} ${pad('f32 ms', 9)} ${pad('int8 ms', 9)} ${pad('f32/int8', 9)} ${pad('runs', 5)}`);
  for (const model of opts.models.split(',').filter(Boolean)) {
    if (!fs.existsSync(path.join(opts.modelsDir, model, 'int8.onnx'))) {
      console.log(`${model.padEnd(16)} skipped: ${model}/int8.onnx is missing (kiln quantize, docs/quantization.md)`);
      continue;
    }
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}bench/web/`);
      const r = await page.evaluate(compareInPage, { model, runs: Number(opts.runs), profile: !!opts.profile,
        top: Number(opts.top), budgetMs: 120000 });
      const f32 = median(r.f32.times), int8 = median(r.int8.times);
      report.models.push({ model, f32Ms: f32, int8Ms: int8, speedup: f32 / int8, ...r });
      report.pageCpu ??= r.browserCpu;
      console.log(`${model.padEnd(16)} ${pad(f32.toFixed(1), 9)} ${pad(int8.toFixed(1), 9)} ${pad((f32 / int8).toFixed(2), 9)}` +
        ` ${pad(r.int8.times.length, 5)}  (min ${Math.min(...r.f32.times).toFixed(1)} / ${Math.min(...r.int8.times).toFixed(1)}, tile ${r.tile}, ${r.simd})`);
      if (opts.profile) {
        for (const kind of ['f32', 'int8']) {
          const total = r[kind].byOp.reduce((a, [, ms]) => a + ms, 0);
          console.log(`  ${kind}: ${total.toFixed(1)} ms in steps`);
          for (const [op, ms] of r[kind].byOp.slice(0, 10))
            console.log(`    ${op.padEnd(28)} ${pad(ms.toFixed(2), 8)} ms ${pad((100 * ms / total).toFixed(1), 5)} %`);
          console.log('    slowest steps:');
          for (const st of r[kind].slowest) console.log(`      ${st.op.padEnd(22)} ${pad(st.ms.toFixed(2), 7)} ms  ${st.name}`);
        }
      }
    } catch (e) {
      failed++;
      console.log(`${model.padEnd(16)} FAILED: ${e.message.split('\n')[0]}`);
    } finally {
      await context.close();
    }
  }
  if (report.pageCpu) console.log(describeCpu(report.cpu, report.pageCpu));
} finally {
  await browser.close();
  await server.close();
}
if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(report, null, 1));
process.exit(failed ? 1 : 0);
