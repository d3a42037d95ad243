// Rewrites the relaxed-SIMD fused multiply-add of a linked module from the
// opcode LLVM 14 emits (Emscripten 3.1.6's compiler, proposal draft numbering)
// to the one the finished Relaxed SIMD standard gives it, which browsers
// accept, and the placeholder written for the i8 dot product, which LLVM 14
// does not know at all (core/simd/vec_i8dot.h), to that instruction:
//
//   f32x4.fma (draft, 0xfd 0xaf 0x01)  ->  f32x4.relaxed_madd (0xfd 0x85 0x02)
//   f64x2.fms (draft, 0xfd 0xd0 0x01)  ->  i32x4.relaxed_dot_i8x16_i7x16_add_s
//                                          (0xfd 0x93 0x02)
//
//   node wasm/postlink/standard_relaxed_opcodes.mjs IN.wasm [OUT.wasm]
//
// Both encodings are a prefix byte and a two-byte LEB128, so the rewrite
// keeps every size and offset. It walks every instruction of every function
// body (a byte pattern alone could sit inside a constant or an offset), and
// stops on any other draft relaxed opcode: only f32x4.fma is used by Kiln
// (core/simd/vec_wasm.h's kv_fma), and written there with the standard's
// operand order (a * b + c), which the draft's a + b * c did not have; and
// f64x2.fms only as the dot's placeholder (core/simd/vec_i8dot.h's
// kd_dot_add: same stack types, three v128 in and one out, operands in the
// dot's order). Prints how many instructions were rewritten.
import { readFileSync, writeFileSync } from 'node:fs';

const DRAFT_FMA_F32X4 = 0xaf;
const STANDARD_MADD_F32X4 = 0x105;
const DRAFT_FMS_F64X2 = 0xd0;
const STANDARD_DOT_I8X16_I7X16_ADD = 0x113;
// draft opcode (two-byte LEB128) -> standard one
const REWRITES = new Map([[DRAFT_FMA_F32X4, STANDARD_MADD_F32X4],
  [DRAFT_FMS_F64X2, STANDARD_DOT_I8X16_I7X16_ADD]]);
// Every draft relaxed opcode LLVM 14 knows (llvm-mc -mattr=+relaxed-simd):
// none of them is a SIMD128 instruction.
const DRAFT_RELAXED = new Set([0xa2, 0xa5, 0xa6, 0xaf, 0xb0, 0xb2, 0xb3, 0xb4, 0xc5, 0xc6,
  0xcf, 0xd0, 0xd2, 0xd3, 0xd4, 0xe2, 0xee]);

class Reader {
  constructor(bytes, pos, end) {
    this.b = bytes;
    this.pos = pos;
    this.end = end;
  }
  byte() {
    if (this.pos >= this.end) throw new Error(`read past the end at byte ${this.pos}`);
    return this.b[this.pos++];
  }
  // Unsigned and signed LEB128 are skipped alike; only unsigned values
  // (indices, sub-opcodes, counts) are ever needed as numbers.
  u32() {
    let result = 0, shift = 0, byte;
    do {
      byte = this.byte();
      if (shift < 35) result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return result;
  }
  skipLeb() { this.u32(); }
  skip(n) { this.pos += n; }
  memarg() {
    const align = this.u32();
    if (align & 0x40) this.u32(); // multi-memory: memory index
    this.u32(); // offset
  }
  blockType() {
    const first = this.b[this.pos];
    if (first === 0x40 || (first >= 0x6f && first <= 0x7f)) this.pos++;
    else this.skipLeb(); // a type index, as a signed 33-bit LEB
  }
}

// Immediates of the instructions under the 0xfd (SIMD) prefix.
function skipSimd(r, op, at, rewrites, found) {
  if (op <= 0x0b || op === 0x5c || op === 0x5d) r.memarg(); // loads, store, load_zero
  else if (op === 0x0c || op === 0x0d) r.skip(16); // v128.const, i8x16.shuffle
  else if (op >= 0x15 && op <= 0x22) r.skip(1); // extract/replace lane
  else if (op >= 0x54 && op <= 0x5b) { r.memarg(); r.skip(1); } // load/store lane
  else if (REWRITES.has(op)) rewrites.push(at);
  else if (DRAFT_RELAXED.has(op))
    throw new Error(`draft relaxed-SIMD opcode 0xfd 0x${op.toString(16)} at byte ${at}: ` +
      'only f32x4.fma and f64x2.fms have a rewrite (see the header of this file)');
  else if (op > 0xff && op < 0x114) found.standard++; // rewritten before: no immediates
  else if (op > 0xff) throw new Error(`unknown SIMD opcode 0x${op.toString(16)} at byte ${at}`);
}

// Immediates of the 0xfc prefix (saturating truncation, bulk memory, tables).
function skipMisc(r, op) {
  if (op <= 7) return;
  const indices = { 8: 2, 9: 1, 10: 2, 11: 1, 12: 2, 13: 1, 14: 2, 15: 1, 16: 1, 17: 1 }[op];
  if (indices === undefined) throw new Error(`unknown 0xfc opcode ${op}`);
  for (let i = 0; i < indices; i++) r.skipLeb();
}

// Immediates of the 0xfe prefix (threads: atomics, wait/notify, fence).
function skipAtomic(r, op) {
  if (op === 0x03) r.skip(1); // atomic.fence
  else if (op <= 0x02 || (op >= 0x10 && op <= 0x4e)) r.memarg();
  else throw new Error(`unknown atomic opcode 0x${op.toString(16)}`);
}

// unreachable, nop, else, end, return, drop, select, ref.is_null and the
// numeric operators (0x45-0xc4): no immediates.
const NO_IMMEDIATES = (op) => [0x00, 0x01, 0x05, 0x0b, 0x0f, 0x1a, 0x1b, 0xd1].includes(op) ||
  (op >= 0x45 && op <= 0xc4);

function walkInstructions(r, rewrites, found) {
  while (r.pos < r.end) {
    const op = r.byte();
    if (op === 0x02 || op === 0x03 || op === 0x04) r.blockType();
    else if (op === 0x0c || op === 0x0d) r.skipLeb(); // br, br_if
    else if (op === 0x0e) { // br_table
      const n = r.u32();
      for (let i = 0; i <= n; i++) r.skipLeb();
    } else if (op === 0x10 || op === 0x12) r.skipLeb(); // call, return_call
    else if (op === 0x11 || op === 0x13) { r.skipLeb(); r.skipLeb(); } // call_indirect
    else if (op === 0x1c) { // select with types
      const n = r.u32();
      r.skip(n);
    } else if (op >= 0x20 && op <= 0x26) r.skipLeb(); // locals, globals, table.get/set
    else if (op >= 0x28 && op <= 0x3e) r.memarg(); // loads and stores
    else if (op === 0x3f || op === 0x40) r.skipLeb(); // memory.size/grow
    else if (op === 0x41 || op === 0x42) r.skipLeb(); // i32/i64.const
    else if (op === 0x43) r.skip(4);
    else if (op === 0x44) r.skip(8);
    else if (op === 0xd0) r.skip(1); // ref.null
    else if (op === 0xd2) r.skipLeb(); // ref.func
    else if (op === 0xfc) skipMisc(r, r.u32());
    else if (op === 0xfe) skipAtomic(r, r.u32());
    else if (op === 0xfd) {
      const at = r.pos;
      skipSimd(r, r.u32(), at, rewrites, found);
    } else if (!NO_IMMEDIATES(op)) throw new Error(`unknown opcode 0x${op.toString(16)} at byte ${r.pos - 1}`);
  }
  if (r.pos !== r.end) throw new Error(`a function body overruns its size at byte ${r.end}`);
}

/** Rewrites bytes in place; returns { rewritten: instructions changed,
 * standard: standard relaxed-SIMD instructions met (a second run over the
 * same module changes nothing and finds them all here) }; with `counts`,
 * counts.dots gets how many rewrites gave the i8 dot product. */
export function standardizeRelaxedOpcodes(bytes, counts = {}) {
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d)
    throw new Error('not a WebAssembly module');
  const r = new Reader(bytes, 8, bytes.length);
  const rewrites = [];
  const found = { standard: 0 };
  while (r.pos < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (id === 10) { // the code section
      const count = r.u32();
      for (let f = 0; f < count; f++) {
        const bodySize = r.u32();
        const body = new Reader(bytes, r.pos, r.pos + bodySize);
        const groups = body.u32();
        for (let g = 0; g < groups; g++) { body.skipLeb(); body.skip(1); } // count, type
        walkInstructions(body, rewrites, found);
        r.pos += bodySize;
      }
    }
    r.pos = end;
  }
  let dots = 0;
  for (const at of rewrites) {
    // Each draft opcode is two LEB128 bytes (af 01, d0 01), and so is each
    // standard one (85 02, 93 02): the same room.
    const to = REWRITES.get(bytes[at]);
    if (to === undefined || bytes[at + 1] !== 0x01) throw new Error(`unexpected encoding at ${at}`);
    bytes[at] = 0x80 | (to & 0x7f);
    bytes[at + 1] = to >> 7;
    if (to === STANDARD_DOT_I8X16_I7X16_ADD) dots++;
  }
  counts.dots = dots;
  return { rewritten: rewrites.length, standard: found.standard };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input, output = input] = process.argv.slice(2);
  if (!input) {
    console.error('usage: node standard_relaxed_opcodes.mjs IN.wasm [OUT.wasm]');
    process.exit(2);
  }
  const bytes = new Uint8Array(readFileSync(input));
  const counts = {};
  const { rewritten } = standardizeRelaxedOpcodes(bytes, counts);
  const { dots } = counts;
  writeFileSync(output, bytes);
  console.log(`${output}: ${rewritten - dots} f32x4.fma -> f32x4.relaxed_madd, ` +
    `${dots} f64x2.fms -> i32x4.relaxed_dot_i8x16_i7x16_add_s`);
}
