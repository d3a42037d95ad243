// Element types: the C API's KILN_DTYPE_* numbers (ONNX's), the names
// tensors carry in JavaScript and the typed arrays that hold their data.
// float16 and bfloat16 travel as their raw 16-bit patterns (Uint16Array);
// the packed and 8-bit float types as raw bytes (Uint8Array).
export const DTYPES = Object.freeze({
  1: { name: 'float32', array: Float32Array },
  2: { name: 'uint8', array: Uint8Array },
  3: { name: 'int8', array: Int8Array },
  4: { name: 'uint16', array: Uint16Array },
  5: { name: 'int16', array: Int16Array },
  6: { name: 'int32', array: Int32Array },
  7: { name: 'int64', array: BigInt64Array },
  9: { name: 'bool', array: Uint8Array },
  10: { name: 'float16', array: Uint16Array },
  11: { name: 'float64', array: Float64Array },
  12: { name: 'uint32', array: Uint32Array },
  13: { name: 'uint64', array: BigUint64Array },
  16: { name: 'bfloat16', array: Uint16Array },
  17: { name: 'float8e4m3fn', array: Uint8Array, bits: 8 },
  18: { name: 'float8e4m3fnuz', array: Uint8Array, bits: 8 },
  19: { name: 'float8e5m2', array: Uint8Array, bits: 8 },
  20: { name: 'float8e5m2fnuz', array: Uint8Array, bits: 8 },
  21: { name: 'uint4', array: Uint8Array, bits: 4 },
  22: { name: 'int4', array: Uint8Array, bits: 4 },
  23: { name: 'float4e2m1', array: Uint8Array, bits: 4 },
  24: { name: 'float8e8m0', array: Uint8Array, bits: 8 },
  25: { name: 'uint2', array: Uint8Array, bits: 2 },
  26: { name: 'int2', array: Uint8Array, bits: 2 },
});

const BY_NAME = new Map(Object.entries(DTYPES).map(([code, t]) => [t.name, Number(code)]));
// The type a typed array implies when a tensor names none.
const BY_ARRAY = new Map([
  [Float32Array, 1], [Uint8Array, 2], [Uint8ClampedArray, 2], [Int8Array, 3], [Uint16Array, 4],
  [Int16Array, 5], [Int32Array, 6], [BigInt64Array, 7], [Float64Array, 11], [Uint32Array, 12],
  [BigUint64Array, 13],
]);

export function typeInfo(dtype) {
  return DTYPES[dtype];
}

/** The dtype number for a tensor's type name, or implied by its data;
 * 0 when unknown. */
export function dtypeOf(name, data) {
  if (name !== undefined) return BY_NAME.get(name) ?? 0;
  return BY_ARRAY.get(data?.constructor) ?? 0;
}
