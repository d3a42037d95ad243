// The dot-product GEMM (core/simd/qgemm_dot.h) of the relaxed engine
// against the SIMD128 engine's int16 GEMM and a plain JS product, bit for
// bit, through the modules' test exports (wasm/glue/qgemm_dot_exports.c).
// Runs in Node (qgemm_dot.test.mjs) and in a page (the same test drives
// Chromium): no Node modules here.
const OFF = 0, UNSIGNED = 1, HALVES = 2;
export const MODE_NAMES = ['off', 'unsigned', 'halves'];

const SHAPES = [[1, 1, 1], [4, 8, 4], [5, 9, 3], [7, 17, 33], [4, 8, 6], [3, 20, 7],
  [16, 64, 64], [13, 40, 576], [64, 8, 147], [9, 24, 2304]];

function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return s;
  };
}

// count 8-bit values of one type less a zero point of that type (extremes
// often); shift brings them back into [0, 255].
function eightBit(next, kind, count) {
  // kind: 0 uint8, 1 int8, 2 int8 with zero point 0 (symmetric weights)
  const lo = kind ? -128 : 0, zp = kind === 2 ? 0 : lo + (next() % 256);
  const v = new Int16Array(count);
  for (let i = 0; i < count; i++) {
    const r = next();
    const x = r % 4 === 0 ? (r & 4 ? lo + 255 : lo) : lo + (r % 256);
    v[i] = x - zp;
  }
  return { v, shift: zp - lo };
}

class Engine {
  constructor({ mod, memory }) {
    this.mod = mod;
    this.memory = memory;
  }
  probe() {
    const p = this.mod._malloc(16);
    const exact = this.mod._kiln_wasm_qgemm_dot_probe(p);
    const lanes = Array.from(new Int32Array(this.memory.buffer, p, 4));
    this.mod._free(p);
    return { exact, lanes, used: this.mod._kiln_wasm_qgemm_dot_mode() };
  }
  setMode(mode) { return this.mod._kiln_wasm_qgemm_dot_set_mode(mode); }
  product(m, n, k, a, b, z, mode) {
    const pa = this.mod._malloc(2 * a.length), pb = this.mod._malloc(2 * b.length);
    const pc = this.mod._malloc(4 * m * n);
    new Int16Array(this.memory.buffer, pa, a.length).set(a);
    new Int16Array(this.memory.buffer, pb, b.length).set(b);
    const rc = this.mod._kiln_wasm_qgemm(m, n, k, pa, pb, z, mode, pc, 1);
    const c = new Int32Array(this.memory.buffer, pc, m * n).slice();
    for (const p of [pa, pb, pc]) this.mod._free(p);
    if (rc !== 0) throw new Error(`kiln_wasm_qgemm: ${rc}`);
    return c;
  }
}

function reference(m, n, k, a, b) {
  const c = new Int32Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += a[i * k + p] * b[p * n + j];
      c[i * n + j] = s;
    }
  return c;
}

const firstDiff = (x, y) => x.findIndex((v, i) => v !== y[i]);

/** loadEngine: kiln-loader.mjs's. Returns { probe, checked: [what ran],
 * skipped: [why], failures: [descriptions] }. */
export async function checkDotGemm(loadEngine, { relaxed = true } = {}) {
  const plain = new Engine(await loadEngine({ relaxedSimd: false }, 1));
  const out = { probe: null, checked: [], skipped: [], failures: [] };
  let dot = null;
  if (relaxed) {
    dot = new Engine(await loadEngine({ relaxedSimd: true }, 1));
    out.probe = dot.probe();
  } else {
    out.skipped.push('no Relaxed SIMD here: the SIMD128 engine alone');
  }
  if (plain.probe().exact !== OFF || plain.probe().used !== OFF) out.failures.push('the SIMD128 engine claims a dot product');
  const modes = [];
  if (dot) {
    modes.push(OFF);
    if (out.probe.exact === UNSIGNED) modes.push(UNSIGNED);
    else out.skipped.push(`unsigned: the probe found bytes above 127 not read exactly (lanes ${out.probe.lanes})`);
    if (out.probe.exact !== OFF) modes.push(HALVES);
    else out.skipped.push(`halves: the probe found the instruction inexact even within [0, 127] (lanes ${out.probe.lanes})`);
  }
  for (const [m, n, k] of SHAPES)
    for (let types = 0; types < 6; types++) {
      const next = rng(m * 977 + n * 31 + k * 3 + types);
      const a = new Int16Array(m * k);
      for (let r = 0; r < m; r++) a.set(eightBit(next, types % 3, k).v, r * k); // per-row zero points
      const { v: b, shift: z } = eightBit(next, Math.floor(types / 3), k * n);
      const want = reference(m, n, k, a, b);
      const what = `${m}x${n}x${k} w ${['u8', 's8', 's8 symmetric'][types % 3]} x ${types < 3 ? 'u8' : 's8'}`;
      const runs = [['simd128 int16', plain.product(m, n, k, a, b, z, OFF)]];
      for (const mode of modes) runs.push([`relaxed ${MODE_NAMES[mode]}`, dot.product(m, n, k, a, b, z, mode)]);
      for (const [name, got] of runs) {
        const at = firstDiff(got, want);
        if (at >= 0) out.failures.push(`${name} ${what}: c[${at}] ${got[at]} vs ${want[at]}`);
      }
      out.checked.push(what);
    }
  out.modes = modes.map((mode) => MODE_NAMES[mode]);
  return out;
}
