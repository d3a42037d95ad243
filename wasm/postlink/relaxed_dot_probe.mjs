// What the engine's i32x4.relaxed_dot_i8x16_i7x16_add_s (0xfd 0x113) does
// with second-operand bytes of 128 and above, where the Relaxed SIMD
// standard lets it choose. Each int32 lane adds four products a[i] b[i] of a
// signed first-operand byte and the second operand's byte. On the probe
// a = 127, b = 255 (every byte) a lane gets:
//
//   129540  b read as unsigned and summed exactly (x64 with AVX-VNNI: vpdpbusd)
//    65534  b unsigned, but each pair's sum saturated to int16 first
//           (pmaddubsw + pmaddwd: 2 x 32767)
//     -508  b read as signed (ARM sdot: 4 x 127 x -1)
//
//   node --experimental-wasm-relaxed-simd wasm/postlink/relaxed_dot_probe.mjs
//
// prints the lanes for this and a few more probes, and the behaviour's name.
// The same bytes are what Kiln's relaxed engine checks at start, through the
// same instruction (core/simd/qgemm_dot.c).

const leb = (n) => (n < 0x80 ? [n] : [0x80 | (n & 0x7f), n >> 7]);
const section = (id, bytes) => [id, ...leb(bytes.length), ...bytes];

/** A module exporting memory "mem" and run(): stores at byte 48 the result
 * of `ops` applied to the v128 loads at bytes 0, 16 and 32. `extra` goes
 * before them (dropped), to place bytes inside immediates. The tests of
 * the post-link rewrite build their modules with it too. */
export function v128Module(ops, extra = []) {
  const load = (at) => [0x41, at, 0xfd, 0x00, 0x04, 0x00];
  const body = [0x00, ...extra, 0x41, 0x30, ...load(0), ...load(16), ...load(32), ...ops,
    0xfd, 0x0b, 0x04, 0x00, 0x0b];
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [0x01, 0x60, 0x00, 0x00]),
    ...section(3, [0x01, 0x00]),
    ...section(5, [0x01, 0x00, 0x01]),
    ...section(7, [0x02, 0x03, 0x72, 0x75, 0x6e, 0x00, 0x00, 0x03, 0x6d, 0x65, 0x6d, 0x02, 0x00]),
    ...section(10, [0x01, ...leb(body.length), ...body])]);
}

/** v128Module running i32x4.relaxed_dot_i8x16_i7x16_add_s(v128 at 0,
 * v128 at 16, v128 at 32). */
export const dotProbeModule = () => v128Module([0xfd, 0x93, 0x02]);

// [name, a (16 signed bytes, or one repeated), b (16 bytes 0..255), c (4 int32)]
export const PROBES = [
  ['a=127 b=255', [127], [255], [0, 0, 0, 0]],
  ['a=-128 b=255', [-128], [255], [0, 0, 0, 0]],
  ['a=-128 b=128', [-128], [128], [0, 0, 0, 0]],
  ['a=127 b=127 (exact everywhere)', [127], [127], [0, 0, 0, 0]],
  ['mixed, c added', [1, -2, 3, -4, 127, -128, 5, 6, -7, 8, 100, -100, 0, 1, 2, 3],
    [1, 2, 3, 4, 200, 129, 255, 0, 128, 7, 127, 255, 9, 10, 11, 255], [1000, -1000, 7, 2 ** 31 - 1]],
];

// Every lane, as each reading of b would give it (int32 wraparound).
function expected(a, b, c, mode) {
  const out = [];
  for (let l = 0; l < 4; l++) {
    let s = 0;
    for (let p = 0; p < 2; p++) {
      let pair = 0;
      for (let q = 0; q < 2; q++) {
        const i = 4 * l + 2 * p + q;
        pair += a[i] * (mode === 'signed' && b[i] > 127 ? b[i] - 256 : b[i]);
      }
      if (mode === 'saturated') pair = Math.max(-32768, Math.min(32767, pair));
      s += pair;
    }
    out.push((c[l] + s) | 0);
  }
  return out;
}

/** Runs the probes on instantiated exports; returns [{name, lanes, matches}]. */
export function runProbes(exports) {
  const mem = new Uint8Array(exports.mem.buffer);
  const rows = [];
  for (const [name, a0, b0, c] of PROBES) {
    const a = a0.length === 1 ? Array(16).fill(a0[0]) : a0;
    const b = b0.length === 1 ? Array(16).fill(b0[0]) : b0;
    mem.set(a.map((x) => x & 0xff), 0);
    mem.set(b, 16);
    new Int32Array(exports.mem.buffer, 32, 4).set(c);
    exports.run();
    const lanes = Array.from(new Int32Array(exports.mem.buffer, 48, 4));
    const matches = ['unsigned', 'saturated', 'signed']
      .filter((m) => expected(a, b, c, m).every((v, i) => v === lanes[i]));
    rows.push({ name, lanes, matches });
  }
  return rows;
}

if (typeof process !== 'undefined' && import.meta.url === `file://${process.argv[1]}`) {
  const bytes = dotProbeModule();
  if (!WebAssembly.validate(bytes)) {
    console.log('no Relaxed SIMD here (run node with --experimental-wasm-relaxed-simd)');
    process.exit(1);
  }
  const { instance } = await WebAssembly.instantiate(bytes);
  for (const row of runProbes(instance.exports))
    console.log(`${row.name}: [${row.lanes.join(', ')}] = ${row.matches.join(' / ') || 'none of the three'}`);
}
