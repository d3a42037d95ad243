// The relaxed-SIMD engine: the post-link rewrite of LLVM 14's draft
// f32x4.fma opcode to the standard f32x4.relaxed_madd
// (wasm/postlink/standard_relaxed_opcodes.mjs) on hand-made modules, and
// which engine init() loads. run_node_tests.sh runs every test twice: in
// plain Node 20 (no Relaxed SIMD: the SIMD128 engine) and under
// --experimental-wasm-relaxed-simd (the relaxed engine), so the model tests
// cover both builds.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { kiln, sourceDir, wasmDir } from './support.mjs';

const { standardizeRelaxedOpcodes } = await import(path.join(sourceDir, 'wasm/postlink/standard_relaxed_opcodes.mjs'));
const { relaxedSimdSupported } = await import(path.join(wasmDir, 'kiln-loader.mjs'));

// A module running `ops` on three v128 loads (wasm/postlink/relaxed_dot_probe.mjs).
const { v128Module: module } = await import(path.join(sourceDir, 'wasm/postlink/relaxed_dot_probe.mjs'));
const DRAFT_FMA = [0xfd, 0xaf, 0x01];
const STANDARD_MADD = [0xfd, 0x85, 0x02];
const indexOf = (bytes, seq) => bytes.findIndex((_, i) => seq.every((b, j) => bytes[i + j] === b));

test('the draft f32x4.fma becomes f32x4.relaxed_madd, a * b + c', async () => {
  const bytes = module(DRAFT_FMA);
  assert.deepEqual(standardizeRelaxedOpcodes(bytes), { rewritten: 1, standard: 0 });
  assert.ok(indexOf(bytes, STANDARD_MADD) > 0);
  assert.equal(indexOf(bytes, DRAFT_FMA), -1);
  assert.equal(WebAssembly.validate(bytes), relaxedSimdSupported());
  if (!relaxedSimdSupported()) return;
  const { instance } = await WebAssembly.instantiate(bytes);
  const f = new Float32Array(instance.exports.mem.buffer, 0, 16);
  f.set([2, -1, 0.5, 3, 3, 4, 8, -2, 10, 1, 0, 7]);
  instance.exports.run();
  assert.deepEqual(Array.from(f.slice(12)), [16, -3, 4, 1]);
});

test('the same bytes inside an immediate are left alone', () => {
  // v128.const whose bytes hold 0xfd 0xaf 0x01, then dropped.
  const konst = [0xfd, 0x0c, 0, 0xfd, 0xaf, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x1a];
  const bytes = module([0xfd, 0xe4, 0x01, 0x1a], konst); // f32x4.add, drop
  const before = bytes.slice();
  assert.deepEqual(standardizeRelaxedOpcodes(bytes), { rewritten: 0, standard: 0 });
  assert.deepEqual(bytes, before);
  assert.ok(WebAssembly.validate(bytes));
});

test('other draft relaxed opcodes are refused, not passed on', () => {
  assert.throws(() => standardizeRelaxedOpcodes(module([0xfd, 0xb0, 0x01])), /draft relaxed-SIMD opcode 0xfd 0xb0/);
});

test('the built relaxed engine holds only standard opcodes', { skip: !fs.existsSync(path.join(wasmDir, 'kiln-core-relaxed.wasm')) && 'no kiln-core-relaxed.wasm (KILN_WASM_RELAXED_SIMD=OFF)' }, () => {
  const bytes = new Uint8Array(fs.readFileSync(path.join(wasmDir, 'kiln-core-relaxed.wasm')));
  const found = standardizeRelaxedOpcodes(bytes);
  assert.equal(found.rewritten, 0, 'draft opcodes left in the relaxed engine');
  assert.ok(found.standard > 100, `only ${found.standard} f32x4.relaxed_madd in the relaxed engine`);
  assert.deepEqual(standardizeRelaxedOpcodes(new Uint8Array(fs.readFileSync(path.join(wasmDir, 'kiln-core.wasm')))),
    { rewritten: 0, standard: 0 }, 'the SIMD128 engine has relaxed-SIMD instructions');
  assert.equal(WebAssembly.validate(bytes), relaxedSimdSupported());
  const plain = new Uint8Array(fs.readFileSync(path.join(wasmDir, 'kiln-core.wasm')));
  assert.ok(WebAssembly.validate(plain), 'the SIMD128 engine validates everywhere');
});

test('init() loads the relaxed engine exactly where the runtime validates Relaxed SIMD', async () => {
  await kiln.init();
  const relaxedBuilt = fs.existsSync(path.join(wasmDir, 'kiln-core-relaxed.wasm'));
  assert.equal(kiln.env.simd, relaxedSimdSupported() && relaxedBuilt ? 'relaxed' : 'simd128');
  console.log(`engine: ${kiln.env.simd}`);
});
