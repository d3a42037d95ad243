'use strict';
// ONNX TensorProto files (.pb, as in ONNX test data) to and from tensors.

const { native } = require('./native.js');
const { STATUS } = require('./constants_gen.js');
const { kilnError } = require('./errors.js');
const { typeName, allocate, checkFeed } = require('./tensor.js');

function asBytes(bytes) {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw kilnError(STATUS.INVALID_ARGUMENT, 'decodeTensor: bytes must be a Uint8Array or ArrayBuffer');
}

/** Decodes a serialized TensorProto into {name, type, dims, data}. */
function decodeTensor(bytes) {
  const handle = native.kiln_tensor_decode(asBytes(bytes));
  try {
    const { dtype, dims } = native.kiln_tensor_info(handle);
    const data = allocate(dtype, dims);
    new Uint8Array(data.buffer).set(new Uint8Array(native.kiln_tensor_data(handle)));
    return { name: native.kiln_tensor_name(handle), type: typeName(dtype), dims, data };
  } finally {
    native.kiln_tensor_destroy(handle);
  }
}

/** Serializes a tensor as a TensorProto (raw_data form); returns its bytes. */
function encodeTensor(tensor, name = '') {
  const { dtype, dims, data } = checkFeed(name || 'tensor', tensor);
  return native.kiln_tensor_encode(name, dtype, dims, data, null); // null: the glue sizes it
}

module.exports = { decodeTensor, encodeTensor };
