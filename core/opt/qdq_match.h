/* Reading a QDQ graph's QuantizeLinear / DequantizeLinear nodes, for the
 * passes that turn quantized patterns into integer ops (pass_qdq_conv.c,
 * pass_qdq_add.c). Only constant parameters are read: scales float
 * initializers, zero points uint8/int8 initializers. */
#ifndef KN_OPT_QDQ_MATCH_H
#define KN_OPT_QDQ_MATCH_H

#include "core/opt/rewrite.h"

typedef struct kn_qparams {
    int32_t scale, zero;  /* values; zero -1 when absent */
    float s;              /* the (first) scale */
    int32_t zp;           /* the (first) zero point, 0 when absent */
    int32_t dtype;        /* quantized type: the zero point's, else uint8 */
} kn_qparams;

static inline int kn_is_q8(int32_t dt) { return dt == KN_UINT8 || dt == KN_INT8; }
static inline int32_t kn_qmin(int32_t dt) { return dt == KN_INT8 ? -128 : 0; }
static inline int32_t kn_qmax(int32_t dt) { return dt == KN_INT8 ? 127 : 255; }

/* Element i of a uint8 / int8 initializer. */
int32_t kn_qdq_int8_value(const kn_value *v, int64_t i);

/* Scale and zero point inputs of a QuantizeLinear / DequantizeLinear node,
 * both initializers; per tensor unless per_channel allows a 1-D scale.
 * Returns 0 when they are not such constants. */
int kn_qdq_read_params(kn_opt *o, const kn_node *n, int per_channel, kn_qparams *q);

/* The DequantizeLinear producing v, per tensor, with a computed input and
 * a zero point; its node id, or -1. */
int32_t kn_qdq_activation(kn_opt *o, int32_t v, kn_qparams *q);

/* v is a float scalar: an initializer, or a Constant node's value (the
 * passes reading QDQ patterns run before constant folding). */
int kn_qdq_const_scalar(kn_opt *o, int32_t v, float *out);

/* The same scale and zero point (values, not just the same constants). */
int kn_qdq_same_params(const kn_qparams *a, const kn_qparams *b);

#endif
