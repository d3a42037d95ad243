/* Writes a quantized copy of an ONNX model in the standard QDQ form that
 * every runtime reads (ONNX Runtime's quantization tool writes the same):
 *
 *   - an activation T gets QuantizeLinear -> DequantizeLinear right after
 *     the node that makes it (or first, for a graph input), and every
 *     consumer of T that is not kept in float reads the dequantized copy;
 *   - a float initializer W (a weight or a bias) is replaced by its
 *     quantized form (int8 weights, per output channel; int32 biases) and a
 *     DequantizeLinear whose output takes W's own name, so its consumers
 *     need no change.
 *
 * The model is rewritten at the wire level: every field the rewrite does
 * not touch (metadata, opset imports, value_info, functions, subgraphs,
 * attributes, doc strings) is copied byte for byte, so nothing the reader
 * does not model is lost. Per-axis quantization needs opset 13 of the
 * default domain; the caller checks the model has it. */
#ifndef KN_ONNX_QDQ_WRITER_H
#define KN_ONNX_QDQ_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/status.h"
#include "core/ir/tensor.h"

typedef struct kn_qdq_activation {
    const char *name;                /* the tensor quantized */
    float scale;
    int32_t zero_point;
    int32_t dtype;                   /* KN_UINT8 or KN_INT8 */
    /* Names of what the rewrite adds, unique in the model (the caller
     * checks): Q's output, DQ's output (what consumers then read), the
     * scale and zero-point initializers, and a stem for the two nodes. */
    const char *quantized, *dequantized, *scale_name, *zero_point_name, *node_stem;
} kn_qdq_activation;

typedef struct kn_qdq_weight {
    const char *name;                /* the float initializer replaced */
    kn_tensor quantized;             /* its quantized values: KN_INT8 or KN_INT32, W's shape */
    const float *scales;             /* n_scales of them: one per channel, or 1 */
    int32_t n_scales;
    int32_t axis;                    /* the channel axis when n_scales > 1 */
    const char *quantized_name, *scale_name, *zero_point_name, *node_name;
} kn_qdq_weight;

typedef struct kn_qdq_spec {
    const kn_qdq_activation *acts;
    int32_t n_acts;
    const kn_qdq_weight *weights;
    int32_t n_weights;
    /* Nodes that keep reading float activations: matched by node name or
     * op type. */
    const char *const *keep_float;
    int32_t n_keep_float;
} kn_qdq_spec;

/* model/size: the serialized ModelProto. On success *out (malloc'd, the
 * caller frees it) holds the rewritten model. Errors: INVALID_MODEL
 * (malformed bytes), OUT_OF_MEMORY, INVALID_ARGUMENT (a bad spec). */
int kn_onnx_write_qdq(const void *model, size_t size, const kn_qdq_spec *spec, uint8_t **out,
                      size_t *out_size, kn_err *err);

#endif
