#!/usr/bin/env node
// Reference runs for Kiln's side-by-side checks, with ONNX Runtime.
//
//   node run_ort.mjs MODEL OUTDIR INPUT.pb...    run MODEL, write OUTDIR/output_K.pb
//   node run_ort.mjs --each MODEL OUTROOT IN.pb...
//                                                 one run per file for a one-input model,
//                                                 in one session: OUTROOT/K/output_J.pb
//                                                 for the K-th file (0-based, 4 digits)
//   node run_ort.mjs --roundtrip OUTDIR IN.pb... decode and re-encode only (codec test)
//
// Inputs bind by tensor name when every file's name is a model input name,
// otherwise by position (the ONNX test-data convention: input_K.pb is the
// K-th graph input). Outputs are written in the model's output order, named.
//
// ONNX Runtime is pinned to one thread, sequential execution and full graph
// optimization, so the reference is repeatable and is the configuration
// users get by default.
//
// TensorProto is read and written here by a small protobuf codec rather than
// a protobuf package: the file format is a handful of fields, and one fewer
// dependency keeps the reference easy to trust.

import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// ONNX TensorProto.DataType -> ORT type name and element array type.
export const DTYPES = {
  1: ['float32', Float32Array],
  2: ['uint8', Uint8Array],
  3: ['int8', Int8Array],
  4: ['uint16', Uint16Array],
  5: ['int16', Int16Array],
  6: ['int32', Int32Array],
  7: ['int64', BigInt64Array],
  9: ['bool', Uint8Array],
  10: ['float16', Uint16Array], // carried as raw bit patterns
  11: ['float64', Float64Array],
  12: ['uint32', Uint32Array],
  13: ['uint64', BigUint64Array],
};
const ORT_TO_ONNX = Object.fromEntries(Object.entries(DTYPES).map(([k, [n]]) => [n, Number(k)]));

// ---- protobuf wire format: the subset TensorProto needs ----

class Reader {
  constructor(bytes) {
    this.buf = bytes;
    this.pos = 0;
  }
  done() {
    return this.pos >= this.buf.length;
  }
  byte() {
    if (this.pos >= this.buf.length) throw new Error('truncated protobuf');
    return this.buf[this.pos++];
  }
  // Varints are read as BigInt: int64 dims and values need all 64 bits.
  varint() {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const b = this.byte();
      value |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return BigInt.asUintN(64, value);
    }
    throw new Error('varint longer than 10 bytes');
  }
  bytes(n) {
    if (n > this.buf.length - this.pos) throw new Error('truncated protobuf');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  lengthDelimited() {
    return this.bytes(Number(this.varint()));
  }
  skip(wireType) {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.bytes(8);
    else if (wireType === 2) this.lengthDelimited();
    else if (wireType === 5) this.bytes(4);
    else throw new Error(`unsupported wire type ${wireType}`);
  }
}

// A repeated scalar field arrives packed (wire type 2) or one value per tag.
function readRepeated(r, wireType, scalarWireType, readOne, into) {
  if (wireType === scalarWireType) {
    into.push(readOne(r));
  } else if (wireType === 2) {
    const sub = new Reader(r.lengthDelimited());
    while (!sub.done()) into.push(readOne(sub));
  } else {
    throw new Error(`unexpected wire type ${wireType} for a repeated field`);
  }
}

const fixed32Float = (r) => {
  const b = r.bytes(4);
  return new DataView(b.buffer, b.byteOffset, 4).getFloat32(0, true);
};
const fixed64Double = (r) => {
  const b = r.bytes(8);
  return new DataView(b.buffer, b.byteOffset, 8).getFloat64(0, true);
};
const varintSigned = (r) => BigInt.asIntN(64, r.varint());

// Decodes a serialized TensorProto into { name, dataType, dims, data }, where
// data is a typed array of the element type.
export function decodeTensor(bytes) {
  const r = new Reader(bytes);
  const t = { name: '', dataType: 0, dims: [], raw: null };
  const floats = [], int32s = [], int64s = [], doubles = [], uint64s = [];
  while (!r.done()) {
    const key = Number(r.varint());
    const field = key >>> 3, wt = key & 7;
    switch (field) {
      case 1: readRepeated(r, wt, 0, varintSigned, t.dims); break;
      case 2: t.dataType = Number(r.varint()); break;
      case 4: readRepeated(r, wt, 5, fixed32Float, floats); break;
      case 5: readRepeated(r, wt, 0, varintSigned, int32s); break;
      case 7: readRepeated(r, wt, 0, varintSigned, int64s); break;
      case 8: t.name = new TextDecoder().decode(r.lengthDelimited()); break;
      case 9: t.raw = r.lengthDelimited(); break;
      case 10: readRepeated(r, wt, 1, fixed64Double, doubles); break;
      case 11: readRepeated(r, wt, 0, (x) => x.varint(), uint64s); break;
      case 6: throw new Error('string tensors are not supported');
      case 13: case 14: throw new Error('tensors with external data are not supported');
      default: r.skip(wt);
    }
  }
  const entry = DTYPES[t.dataType];
  if (!entry) throw new Error(`unsupported TensorProto data_type ${t.dataType}`);
  const Arr = entry[1];
  const count = t.dims.reduce((a, d) => a * Number(d), 1);
  let data;
  if (t.raw) {
    // Copy: raw_data may sit at an offset the typed array cannot align to.
    if (t.raw.length !== count * Arr.BYTES_PER_ELEMENT)
      throw new Error(`raw_data has ${t.raw.length} bytes, shape needs ${count * Arr.BYTES_PER_ELEMENT}`);
    data = new Arr(new Uint8Array(t.raw).buffer); // (Buffer.slice would not copy)
  } else {
    // Which typed field holds the values depends on the element type.
    const source = { 1: floats, 7: int64s, 11: doubles, 12: uint64s, 13: uint64s }[t.dataType] ?? int32s;
    if (source.length !== count)
      throw new Error(`tensor has ${source.length} values, shape needs ${count}`);
    const big = Arr === BigInt64Array || Arr === BigUint64Array;
    data = Arr.from(source, (v) => (big ? BigInt(v) : Number(v)));
  }
  return { name: t.name, dataType: t.dataType, dims: t.dims.map(Number), data };
}

class Writer {
  constructor() {
    this.parts = [];
  }
  varint(v) {
    let x = BigInt.asUintN(64, BigInt(v)); // negatives take ten bytes, as protobuf says
    const out = [];
    while (x >= 0x80n) {
      out.push(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    out.push(Number(x));
    this.parts.push(Uint8Array.from(out));
  }
  tag(field, wireType) {
    this.varint((field << 3) | wireType);
  }
  bytes(field, b) {
    this.tag(field, 2);
    this.varint(b.length);
    this.parts.push(b);
  }
  finish() {
    return Buffer.concat(this.parts);
  }
}

// Encodes the raw_data form, fields in number order as ONNX's own writer does;
// dims unpacked, as onnx.proto (proto2) declares them.
export function encodeTensor(name, dataType, dims, data) {
  const w = new Writer();
  for (const d of dims) {
    w.tag(1, 0);
    w.varint(d);
  }
  w.tag(2, 0);
  w.varint(dataType);
  if (name) w.bytes(8, new TextEncoder().encode(name));
  w.bytes(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return w.finish();
}

// ---- the command ----

function writeOutputs(outDir, tensors) {
  mkdirSync(outDir, { recursive: true });
  tensors.forEach((t, k) => {
    const file = join(outDir, `output_${k}.pb`);
    writeFileSync(file, encodeTensor(t.name, t.dataType, t.dims, t.data));
    console.log(`${file}: ${t.name} ${DTYPES[t.dataType][0]} [${t.dims.join(',')}]`);
  });
}

// ORT feeds from decoded tensors: bound by tensor name when every tensor's
// name is a model input, otherwise by position.
export function makeFeeds(ort, session, tensors) {
  if (tensors.length !== session.inputNames.length)
    throw new Error(`model has ${session.inputNames.length} inputs, got ${tensors.length} files`);
  const byName = tensors.every((t) => session.inputNames.includes(t.name));
  const feeds = {};
  tensors.forEach((t, k) => {
    feeds[byName ? t.name : session.inputNames[k]] = new ort.Tensor(DTYPES[t.dataType][0], t.data, t.dims);
  });
  return feeds;
}

async function openSession(modelPath) {
  const ort = await import('onnxruntime-node'); // only the run modes need ORT
  const session = await ort.InferenceSession.create(modelPath, {
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
  return { ort, session };
}

async function runOnce({ ort, session }, outDir, inputFiles) {
  const feeds = makeFeeds(ort, session, inputFiles.map((f) => decodeTensor(readFileSync(f))));
  const results = await session.run(feeds);
  writeOutputs(outDir, session.outputNames.map((name) => {
    const v = results[name];
    const dataType = ORT_TO_ONNX[v.type];
    if (!dataType) throw new Error(`output ${name} has unsupported type ${v.type}`);
    return { name, dataType, dims: v.dims, data: v.data };
  }));
}

async function runModel(modelPath, outDir, inputFiles) {
  await runOnce(await openSession(modelPath), outDir, inputFiles);
}

// Many single-input runs in one session: a test comparing hundreds of inputs
// would otherwise pay Node's and ORT's start-up once per input.
async function runEach(modelPath, outRoot, inputFiles) {
  const opened = await openSession(modelPath);
  for (const [k, file] of inputFiles.entries())
    await runOnce(opened, join(outRoot, String(k).padStart(4, '0')), [file]);
}

async function main(argv) {
  if (argv[0] === '--roundtrip' && argv.length >= 3) {
    writeOutputs(argv[1], argv.slice(2).map((f) => decodeTensor(readFileSync(f))));
  } else if (argv[0] === '--each' && argv.length >= 4) {
    await runEach(argv[1], argv[2], argv.slice(3));
  } else if (argv.length >= 3 && !argv[0].startsWith('-')) {
    await runModel(argv[0], argv[1], argv.slice(2));
  } else {
    console.error('usage: node run_ort.mjs MODEL OUTDIR INPUT.pb...\n' +
                  '       node run_ort.mjs --each MODEL OUTROOT INPUT.pb...\n' +
                  '       node run_ort.mjs --roundtrip OUTDIR IN.pb...');
    process.exit(2);
  }
}

// Run only when executed, not when imported (the codec is reusable).
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(`run_ort: ${e.message}`);
    process.exit(1);
  });
}
