/* The ONNX reader: serialized ModelProto / TensorProto bytes → graph IR and
 * tensors, and TensorProto encoding. Built on our own bounds-checked wire
 * decoder (pb.h), so it needs no protobuf library and builds unchanged for
 * WebAssembly. Malformed input of any kind is an error with a message that
 * names the problem and where it is; it never crashes, hangs or allocates
 * more than the bytes present can justify. */
#ifndef KN_ONNX_H
#define KN_ONNX_H

#include <stddef.h>

#include "core/ir/graph.h"
#include "core/base/bump_alloc.h"
#include "core/base/status.h"
#include "core/ir/tensor.h"

/* Subgraph attributes (If/Loop/Scan bodies) nested deeper than this are
 * refused, which bounds the reader's recursion. */
#define KN_ONNX_MAX_DEPTH 32

/* Parses a serialized ModelProto into *out (everything in one kn_bump; free
 * it with kn_model_ir_free). base_dir: folder for external-data files; NULL =
 * a model with external data fails with KN_ERR_UNSUPPORTED. max_bytes: 0 = no
 * limit, else a limit on the model's total bump bytes including external
 * data (KN_ERR_LIMIT). On failure *out is NULL and nothing is leaked. */
int kn_onnx_read_model(const void *bytes, size_t size, const char *base_dir, size_t max_bytes,
                       kn_model_ir **out, kn_err *err);
/* The same for bytes that are a private, read-only mapping of the model
 * file: once a large tensor's data is copied, the reader drops the mapped
 * pages it came from (they would come back from the file if read again), so
 * loading peaks at about the model's size rather than twice it. */
int kn_onnx_read_mapped_model(const void *bytes, size_t size, const char *base_dir,
                              size_t max_bytes, kn_model_ir **out, kn_err *err);

/* Decodes a serialized TensorProto: data copied into bump as little-endian
 * row-major raw bytes (typed fields converted), *name (may be NULL) set to
 * the tensor's name or "". A string tensor's data is numel kn_string refs
 * followed by their bytes, all in bump. External data is
 * KN_ERR_UNSUPPORTED. On failure, what was already allocated stays in bump. */
int kn_onnx_read_tensor(kn_bump *bump, const void *bytes, size_t size, kn_tensor *out,
                        const char **name, kn_err *err);

/* Encodes a TensorProto (dims, data_type, string_data for strings, name,
 * raw_data otherwise) into buf; *needed
 * (may be NULL) = encoded size; KN_ERR_BUFFER_TOO_SMALL if cap < needed (buf
 * may be NULL with cap 0). name may be NULL or "" (no name field). The field
 * order and unpacked dims match what the onnx Python package writes. */
int kn_onnx_write_tensor(const char *name, const kn_tensor *t, void *buf, size_t cap,
                         size_t *needed, kn_err *err);

/* Decodes a serialized value of the given kind (KN_KIND_*): a TensorProto
 * (as kn_onnx_read_tensor), a SequenceProto or an OptionalProto. Sequences
 * and optionals become one blob (core/ir/value_blob.h) in bump, described by
 * *out (dtype KN_SEQUENCE / KN_OPTIONAL); elements may be tensors or nested
 * sequences and optionals. Sparse tensors and maps are KN_ERR_UNSUPPORTED;
 * malformed messages KN_ERR_INVALID_MODEL naming the problem. */
int kn_onnx_read_value(kn_bump *bump, const void *bytes, size_t size, int32_t kind,
                       kn_tensor *out, const char **name, kn_err *err);

/* Encodes a value as kn_onnx_read_value reads it: a blob as SequenceProto /
 * OptionalProto (elements as raw_data TensorProtos without names), anything
 * else as kn_onnx_write_tensor. Same buffer rules as kn_onnx_write_tensor. */
int kn_onnx_write_value(const char *name, const kn_tensor *t, void *buf, size_t cap,
                        size_t *needed, kn_err *err);

#endif
