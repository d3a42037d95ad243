'use strict';
// Tensor element types: JS names <-> Kiln dtype codes, the TypedArray that
// holds each, and the checks a feed passes before it reaches C.

const { DTYPE, STATUS } = require('./constants_gen.js');
const { kilnError } = require('./errors.js');

// name, dtype code, TypedArray, bits per element. Types without a JS number
// type of their own (float16, bfloat16, float8, 4- and 2-bit) carry their raw
// bits; the sub-byte types are packed, element 0 in the low bits.
const TYPES = [
  ['float32', DTYPE.FLOAT, Float32Array, 32],
  ['uint8', DTYPE.UINT8, Uint8Array, 8],
  ['int8', DTYPE.INT8, Int8Array, 8],
  ['uint16', DTYPE.UINT16, Uint16Array, 16],
  ['int16', DTYPE.INT16, Int16Array, 16],
  ['int32', DTYPE.INT32, Int32Array, 32],
  ['int64', DTYPE.INT64, BigInt64Array, 64],
  ['bool', DTYPE.BOOL, Uint8Array, 8],
  ['float16', DTYPE.FLOAT16, Uint16Array, 16],
  ['float64', DTYPE.DOUBLE, Float64Array, 64],
  ['uint32', DTYPE.UINT32, Uint32Array, 32],
  ['uint64', DTYPE.UINT64, BigUint64Array, 64],
  ['bfloat16', DTYPE.BFLOAT16, Uint16Array, 16],
  ['float8e4m3fn', DTYPE.FLOAT8E4M3FN, Uint8Array, 8],
  ['float8e4m3fnuz', DTYPE.FLOAT8E4M3FNUZ, Uint8Array, 8],
  ['float8e5m2', DTYPE.FLOAT8E5M2, Uint8Array, 8],
  ['float8e5m2fnuz', DTYPE.FLOAT8E5M2FNUZ, Uint8Array, 8],
  ['float8e8m0', DTYPE.FLOAT8E8M0, Uint8Array, 8],
  ['uint4', DTYPE.UINT4, Uint8Array, 4],
  ['int4', DTYPE.INT4, Uint8Array, 4],
  ['float4e2m1', DTYPE.FLOAT4E2M1, Uint8Array, 4],
  ['uint2', DTYPE.UINT2, Uint8Array, 2],
  ['int2', DTYPE.INT2, Uint8Array, 2],
].map(([name, code, ArrayType, bits]) => ({ name, code, ArrayType, bits }));

const BY_NAME = new Map(TYPES.map((t) => [t.name, t]));
const BY_CODE = new Map(TYPES.map((t) => [t.code, t]));

function typeName(code) {
  if (code === 0) return null; // left open by the model
  if (code === DTYPE.STRING) return 'string';
  const t = BY_CODE.get(code);
  return t ? t.name : `dtype${code}`;
}

function elementCount(dims) {
  let n = 1;
  for (const d of dims) n *= d;
  return n;
}

// A new, zeroed TypedArray for a tensor of this type and shape.
function allocate(code, dims) {
  const t = BY_CODE.get(code);
  if (!t) {
    throw kilnError(STATUS.UNSUPPORTED,
      `output type ${typeName(code)} is not supported by the Node binding`);
  }
  const n = elementCount(dims);
  if (t.bits >= 8) return new t.ArrayType(n);
  return new Uint8Array(Math.ceil((n * t.bits) / 8));
}

function fail(message, code) {
  return kilnError(code, message);
}

// The type a TypedArray implies when a tensor names none (as on the web).
const BY_ARRAY = new Map([
  [Float32Array, DTYPE.FLOAT], [Uint8Array, DTYPE.UINT8], [Uint8ClampedArray, DTYPE.UINT8],
  [Int8Array, DTYPE.INT8], [Uint16Array, DTYPE.UINT16], [Int16Array, DTYPE.INT16],
  [Int32Array, DTYPE.INT32], [BigInt64Array, DTYPE.INT64], [Float64Array, DTYPE.DOUBLE],
  [Uint32Array, DTYPE.UINT32], [BigUint64Array, DTYPE.UINT64],
]);

// Checks a feed's form (not its shape or type against the model: C does
// that) and returns {dtype, dims, data} ready for kiln_session_set_input.
// A plain array as data is converted to the type's TypedArray.
function checkFeed(name, tensor) {
  if (tensor === null || typeof tensor !== 'object' || !tensor.data ||
      !(Array.isArray(tensor.dims) || ArrayBuffer.isView(tensor.dims))) {
    throw fail(`input '${name}': expected a tensor {type, dims, data}`, STATUS.INVALID_ARGUMENT);
  }
  let data = tensor.data;
  const t = tensor.type === undefined ? BY_CODE.get(BY_ARRAY.get(data.constructor))
    : BY_NAME.get(tensor.type);
  if (!t) {
    const why = tensor.type === 'string' ? 'string tensors are not supported by the Node binding'
      : `known types: ${[...BY_NAME.keys()].join(', ')}`;
    throw fail(`input '${name}': unknown tensor type ${JSON.stringify(tensor.type)}; ${why}`,
      STATUS.INVALID_ARGUMENT);
  }
  if (Array.isArray(data)) {
    const big = t.ArrayType === BigInt64Array || t.ArrayType === BigUint64Array;
    data = t.ArrayType.from(data, big ? (v) => BigInt(v) : (v) => Number(v));
  }
  const ok = data instanceof t.ArrayType ||
    (t.ArrayType === Uint8Array && data instanceof Uint8ClampedArray);
  if (!ok) {
    const got = data.constructor ? data.constructor.name : typeof data;
    throw fail(`input '${name}': type '${t.name}' needs its data in a ${t.ArrayType.name}, ` +
      `got ${got}`, STATUS.DTYPE);
  }
  const dims = Array.isArray(tensor.dims) ? tensor.dims : Array.from(tensor.dims);
  return { dtype: t.code, dims, data };
}

// The web module's table: dtype code -> {name, array[, bits]}.
const DTYPES = Object.freeze(Object.fromEntries(TYPES.map((t) => [t.code,
  Object.freeze(t.code >= DTYPE.FLOAT8E4M3FN // raw-byte types say their bit width
    ? { name: t.name, array: t.ArrayType, bits: t.bits }
    : { name: t.name, array: t.ArrayType })])));

module.exports = { TYPES, DTYPES, typeName, allocate, checkFeed, elementCount };
