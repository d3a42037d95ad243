'use strict';
// Per-run overhead of the Node binding: the same model run from C (c_loop:
// bind, run, copy outputs) and from Node (Session.run(), which also hops to
// the libuv thread pool and back, and runSync()), in the same conditions.
//
//   node bench/overhead.js [MODEL] [--c-loop PATH] [--runs N]
//
// Prints microseconds per run for each and the difference, as wall time and
// as process CPU time (all threads; on a busy machine wall time also counts
// waiting for a core, CPU time does not). Medians of 5 batches. ctest runs
// it as node_overhead (a report, no limit).

const path = require('node:path');
const { execFileSync } = require('node:child_process');
const kiln = require('../lib/index.js');

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}

const SOURCE_DIR = process.env.KILN_SOURCE_DIR || path.resolve(__dirname, '..', '..', '..');
const positional = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') &&
  !(i > 0 && all[i - 1].startsWith('--')));
const MODEL = positional[0] || path.join(SOURCE_DIR, 'tests', 'data', 'models', 'add_relu.onnx');
const C_LOOP = arg('--c-loop', process.env.KILN_NODE_C_LOOP);
const RUNS = Number(arg('--runs', 20000));
const BATCHES = 5;

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

// {wall, cpu}: median microseconds per call of fn.
async function perRun(fn) {
  for (let i = 0; i < 1000; i++) await fn(); // warm up the JIT and the thread pool
  const wall = [];
  const cpu = [];
  for (let b = 0; b < BATCHES; b++) {
    const start = process.hrtime.bigint();
    const startCpu = process.cpuUsage();
    for (let i = 0; i < RUNS; i++) await fn();
    const used = process.cpuUsage(startCpu);
    wall.push(Number(process.hrtime.bigint() - start) / 1e3 / RUNS);
    cpu.push((used.user + used.system) / RUNS);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

function line(label, t, c) {
  const f = (x) => x.toFixed(2).padStart(7);
  let text = `${label.padEnd(34)} wall ${f(t.wall)} us  cpu ${f(t.cpu)} us`;
  if (c) text += `   overhead: wall ${f(t.wall - c.wall)} us  cpu ${f(t.cpu - c.cpu)} us`;
  return text;
}

async function main() {
  const model = await kiln.Model.load(MODEL);
  const session = model.createSession();
  const feeds = {};
  for (const input of model.inputs) {
    const dims = input.dims.map((d) => d ?? 1);
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1)).map((_, k) => k - 2);
    feeds[input.name] = { type: 'float32', dims, data };
  }
  const pooled = model.createSession({ inlineBelowUs: 0 });
  const run = await perRun(() => session.run(feeds));
  const poolRun = await perRun(() => pooled.run(feeds));
  const sync = await perRun(() => session.runSync(feeds));
  let c = null;
  if (C_LOOP) {
    const out = execFileSync(C_LOOP, [MODEL, String(RUNS)], { encoding: 'utf8' });
    const m = /c_us_per_run ([\d.]+) ([\d.]+)/.exec(out);
    c = { wall: Number(m[1]), cpu: Number(m[2]) };
  }
  console.log(`model: ${path.basename(MODEL)}, ${RUNS} runs x ${BATCHES} batches, medians per run`);
  if (c) console.log(line('C (bind, run, copy out)', c, null));
  console.log(line('Node run() (default)', run, c));
  console.log(line('Node run() (always thread pool)', poolRun, c));
  console.log(line('Node runSync()', sync, c));
  model.dispose();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
