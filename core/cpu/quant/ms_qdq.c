/* QuantizeLinear and DequantizeLinear of the com.microsoft domain (1): the
 * pairs ONNX Runtime's quantizer writes into QDQ models when asked for its
 * contrib ops (16-bit and 4-bit activations or weights, before ONNX had
 * those types). They mean what the ONNX ops of opset 21 mean for the same
 * inputs and attributes (axis; no blocks), so these rows run those
 * kernels (quantize.c) as opset 21. */
#include "core/cpu/quant/ms_quant.h"

extern const kn_op_def kn_op_QuantizeLinear_21, kn_op_DequantizeLinear_21;

/* Runs step (prepare or run) of the ONNX kernel with the opset it serves. */
static int as_opset_21(kn_kctx *k, int (*step)(kn_kctx *))
{
    int64_t own = k->opset;
    k->opset = 21;
    int rc = step(k);
    k->opset = own;
    return rc;
}

static int q_prepare(kn_kctx *k) { return as_opset_21(k, kn_op_QuantizeLinear_21.prepare); }
static int q_run(kn_kctx *k) { return as_opset_21(k, kn_op_QuantizeLinear_21.run); }
static void q_release(kn_kctx *k) { kn_op_QuantizeLinear_21.release(k); }
static int dq_prepare(kn_kctx *k) { return as_opset_21(k, kn_op_DequantizeLinear_21.prepare); }
static int dq_run(kn_kctx *k) { return as_opset_21(k, kn_op_DequantizeLinear_21.run); }
static void dq_release(kn_kctx *k) { kn_op_DequantizeLinear_21.release(k); }

const kn_op_def kn_op_MsQuantizeLinear = {
    .domain = QUANT_MS_DOMAIN, .op_type = "QuantizeLinear", .since_version = 1,
    .dtypes = KN_BIT(KN_FLOAT) | KN_BIT(KN_FLOAT16), .flags = KN_OP_PACKED,
    .prepare = q_prepare, .run = q_run, .release = q_release
};
const kn_op_def kn_op_MsDequantizeLinear = {
    .domain = QUANT_MS_DOMAIN, .op_type = "DequantizeLinear", .since_version = 1,
    .dtypes = QUANT_MASK_Q8 | QUANT_MASK_Q16 | QUANT_MASK_Q4 | KN_BIT(KN_INT32),
    .flags = KN_OP_PACKED, .prepare = dq_prepare, .run = dq_run, .release = dq_release
};
