#!/usr/bin/env node
// ONNX Runtime's half of Kiln's side-by-side benchmark: the same measurements
// `kiln bench --json` makes, taken the same way, in a process of its own.
//
//   node bench/ort_bench.mjs MODEL --input INPUT.pb... [--threads N]
//        [--warmup W] [--runs R] [--json]
//   node bench/ort_bench.mjs MODEL --set A.pb[,B.pb...] --set ... [...]
//   node bench/ort_bench.mjs MODEL --shapes-file FILE [--threads N] [--json]
//
// --set is the revisit workload of a dynamic-shape model, as `kiln bench
// --set` runs it: each set is one input signature (a file per input), one
// session runs the sets in turn, and each set's first run is reported apart
// from its median and p90 (--json: one object per set, then one with
// create_ms and peak_rss_mb).
//
// --shapes-file is the novel-shape workload, as `kiln bench --shapes-file`
// runs it: each line is one run's shapes, NAME=DIMS[;NAME=DIMS...], bound to
// fresh random data (floats uniform in [-1, 1), integers in [0, 10), as
// kiln bench draws them) and timed whole; reports median, p90, mean and the
// peak resident set after 100 runs and at the end.
//
// Session options are what users get from ORT for CPU inference at its best:
// graph optimization level "all", sequential execution, intra-op threads N.
// create_ms covers InferenceSession.create (model load + optimization);
// peak_rss_mb is the process's maximum resident set (getrusage), base_rss_mb
// the resident set once Node and onnxruntime-node are loaded, before the model.
// onnxruntime-node is resolved from tools/ort (npm install --ignore-scripts).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

import { decodeTensor, makeFeeds } from '../tools/ort/run_ort.mjs';

const TIME_BUDGET_MS = 10000; // same run-count policy as `kiln bench`
const MIN_RUNS = 5;

function parseArgs(argv) {
  const a = { inputs: [], sets: [], shapesFile: null, threads: 1, warmup: 5, runs: 50, json: false,
              model: null };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${v} needs a value`);
      return argv[++i];
    };
    if (v === '--input' || v === '-i') a.inputs.push(next());
    else if (v === '--set') a.sets.push(next());
    else if (v === '--shapes-file') a.shapesFile = next();
    else if (v === '--threads') a.threads = Number(next());
    else if (v === '--warmup') a.warmup = Number(next());
    else if (v === '--runs') a.runs = Number(next());
    else if (v === '--json') a.json = true;
    else if (v.startsWith('-') || a.model) throw new Error(`unexpected argument ${v}`);
    else a.model = v;
  }
  if (!a.model) throw new Error('MODEL is required');
  if (!(a.threads >= 1) || !(a.runs >= 1) || !(a.warmup >= 0)) throw new Error('bad number');
  return a;
}

async function loadOrt() {
  const require = createRequire(new URL('../tools/ort/package.json', import.meta.url));
  return import(pathToFileURL(require.resolve('onnxruntime-node')).href);
}

function median(sorted) {
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

// Nearest-rank percentile, as kiln bench computes it.
function percentile(sorted, p) {
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const ort = await loadOrt();
  // What Node and the ORT library cost before any model: reported so peak
  // RSS can be read with or without the host runtime.
  const baseRssMb = process.memoryUsage().rss / 1048576;
  const start = performance.now();
  const session = await ort.InferenceSession.create(a.model, {
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: a.threads,
    interOpNumThreads: 1,
  });
  const createMs = performance.now() - start;
  if (a.shapesFile) {
    await runShapesFile(ort, session, a, createMs);
    return;
  }
  if (a.sets.length > 0) {
    await runSets(ort, session, a, createMs);
    return;
  }
  const feeds = makeFeeds(ort, session, a.inputs.map((f) => decodeTensor(readFileSync(f))));
  let spent = 0;
  for (let i = 0; i < a.warmup && (i === 0 || spent < TIME_BUDGET_MS); i++) {
    const t0 = performance.now();
    await session.run(feeds);
    spent += performance.now() - t0;
  }
  const times = [], cpu = [];
  spent = 0;
  while (times.length < a.runs && (times.length < MIN_RUNS || spent < TIME_BUDGET_MS)) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await session.run(feeds);
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    times.push(ms);
    cpu.push((c.user + c.system) / 1000);
    spent += ms;
  }
  times.sort((x, y) => x - y);
  cpu.sort((x, y) => x - y);
  const result = {
    model: a.model,
    threads: a.threads,
    runs: times.length,
    create_ms: createMs,
    median_ms: median(times),
    p90_ms: percentile(times, 90),
    // the process's CPU time per run (every thread, Node's too): with one
    // intra-op thread, what kiln_cpu_time measures for Kiln, and far less
    // exposed than the wall clock to other jobs on a shared machine
    cpu_min_ms: cpu[0],
    cpu_median_ms: median(cpu),
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
    base_rss_mb: baseRssMb,
  };
  if (a.json) console.log(JSON.stringify(result));
  else console.log(result);
}

async function timedRun(session, feeds) {
  const t0 = performance.now();
  await session.run(feeds);
  return performance.now() - t0;
}

async function runSets(ort, session, a, createMs) {
  const sets = a.sets.map((files) =>
    makeFeeds(ort, session, files.split(',').map((f) => decodeTensor(readFileSync(f)))));
  const first = [];
  for (const feeds of sets) first.push(await timedRun(session, feeds)); // plans each signature
  for (let w = 0; w < a.warmup; w++) for (const feeds of sets) await timedRun(session, feeds);
  const times = sets.map(() => []);
  let spent = 0;
  for (let round = 0; round < a.runs && (round < MIN_RUNS || spent < TIME_BUDGET_MS * sets.length);
    round++) {
    for (let s = 0; s < sets.length; s++) {
      const ms = await timedRun(session, sets[s]);
      times[s].push(ms);
      spent += ms;
    }
  }
  const rows = times.map((t, s) => {
    t.sort((x, y) => x - y);
    return { model: a.model, set: s, files: a.sets[s], threads: a.threads, runs: t.length,
             first_ms: first[s], median_ms: median(t), p90_ms: percentile(t, 90) };
  });
  const summary = { model: a.model, sets: sets.length, create_ms: createMs,
                    peak_rss_mb: process.resourceUsage().maxRSS / 1024 };
  for (const r of [...rows, summary]) console.log(a.json ? JSON.stringify(r) : r);
}

// Fresh random data of one input's type and dims.
function randomTensor(ort, type, dims) {
  const n = dims.reduce((x, y) => x * y, 1);
  const ints = { int64: BigInt64Array, int32: Int32Array, int8: Int8Array, uint8: Uint8Array };
  if (type === 'float32') {
    const d = new Float32Array(n);
    for (let i = 0; i < n; i++) d[i] = Math.random() * 2 - 1;
    return new ort.Tensor('float32', d, dims);
  }
  const Array_ = ints[type];
  if (!Array_) throw new Error(`cannot generate ${type} data`);
  const d = new Array_(n);
  for (let i = 0; i < n; i++) {
    const v = Math.floor(Math.random() * 10);
    d[i] = type === 'int64' ? BigInt(v) : v;
  }
  return new ort.Tensor(type, d, dims);
}

async function runShapesFile(ort, session, a, createMs) {
  const types = Object.fromEntries(session.inputMetadata.map((m) => [m.name, m.type]));
  const lines = readFileSync(a.shapesFile, 'utf8').split('\n').filter((l) => l.trim());
  const times = [];
  let rssAt100 = -1, sum = 0;
  for (const line of lines) {
    const feeds = {};
    for (const part of line.trim().split(';')) {
      const [name, dims] = part.split('=');
      if (!(name in types)) throw new Error(`the model has no input named '${name}'`);
      feeds[name] = randomTensor(ort, types[name], dims.split('x').map(Number));
    }
    const ms = await timedRun(session, feeds);
    times.push(ms);
    sum += ms;
    if (times.length === 100) rssAt100 = process.resourceUsage().maxRSS / 1024;
  }
  const mean = sum / times.length;
  times.sort((x, y) => x - y);
  const result = { model: a.model, threads: a.threads, runs: times.length, create_ms: createMs,
                   median_ms: median(times), p90_ms: percentile(times, 90), mean_ms: mean,
                   peak_rss_at_100_mb: rssAt100,
                   peak_rss_mb: process.resourceUsage().maxRSS / 1024 };
  console.log(a.json ? JSON.stringify(result) : result);
}

main().catch((e) => {
  console.error(`ort_bench: ${e.message}`);
  process.exit(1);
});
