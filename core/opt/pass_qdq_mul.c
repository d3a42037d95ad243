/* QDQ products with a float factor to kiln.QMulFloat
 * (core/cpu/fused/fused_qmul_float.c):
 *
 *     DequantizeLinear(a) -> Mul(., b) -> QuantizeLinear -> c
 *
 * where b is not itself dequantized: a squeeze-and-excitation block's gate
 * (EfficientNet: the Sigmoid of its SE convolutions), which a QDQ writer
 * leaves float. The graph as written dequantized the whole tensor, multiplied
 * in float and quantized again, three passes over 4-byte values; QMulFloat
 * makes one over 1-byte ones, with the same arithmetic (results equal). The
 * DequantizeLinear stays while something else reads it (the SE block's
 * pooling). All parameters per tensor and constant, a and c of one 8-bit
 * type. */
#include "core/opt/passes.h"
#include "core/opt/qdq_match.h"

static int fuse_one(kn_opt *o, int32_t mul_id)
{
    kn_node mul = *kn_opt_node(o, mul_id);
    kn_qparams a, c;
    int32_t q_id, side;
    for (side = 0; side < 2; side++)
        if (kn_qdq_activation(o, mul.inputs[side], &a) >= 0)
            break;
    if (side == 2)
        return KN_OK;
    /* b is float32 (Mul's operands share a's dequantized type, and
     * kn_qdq_read_params took only float scales); both dequantized is
     * another pattern */
    int32_t b = mul.inputs[1 - side];
    kn_qparams unused;
    if (kn_qdq_activation(o, b, &unused) >= 0)
        return KN_OK;
    int32_t m = mul.outputs[0];
    if (!kn_opt_is_private(o, m) || kn_opt_consumers(o, m, &q_id, 1) != 1)
        return KN_OK;
    const kn_node *q = kn_opt_node(o, q_id);
    if (!kn_opt_is_op(q, "QuantizeLinear") || !kn_qdq_read_params(o, q, 0, &c) || c.zero < 0 ||
        !kn_is_q8(c.dtype) || c.dtype != a.dtype || kn_attr_int(q, "saturate", 1) != 1)
        return KN_OK;
    int rc = kn_opt_import_kiln(o);
    if (rc != KN_OK)
        return rc;
    int32_t dq = kn_opt_producer(o, mul.inputs[side]);
    int32_t inputs[6] = {kn_opt_node(o, dq)->inputs[0], a.scale, a.zero, b, c.scale, c.zero};
    int32_t out = q->outputs[0];
    kn_opt_remove(o, q_id);
    kn_opt_remove(o, mul_id);
    return kn_opt_add_node(o, mul_id, "QMulFloat", KN_OPT_DOMAIN_NAME, inputs, 6, &out, 1, NULL,
                           0) < 0
               ? o->err->code
               : KN_OK;
}

int kn_pass_qdq_mul(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        const kn_node *mul = kn_opt_node(o, id);
        if (!kn_opt_live(o, id) || !kn_opt_is_op(mul, "Mul") || mul->n_inputs != 2 ||
            mul->n_outputs != 1 || mul->outputs[0] < 0 || mul->inputs[0] < 0 || mul->inputs[1] < 0)
            continue;
        int rc = fuse_one(o, id);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
