/* QDQ matrix products with constant weights to MatMulIntegerToFloat
 * (com.microsoft 1, the op ONNX Runtime's own quantization writes):
 *
 *   DequantizeLinear(aq) -> MatMul(., DequantizeLinear(wq)) -> Y (float)
 *
 * becomes MatMulIntegerToFloat(aq, wq, sa, sw, za, zw) -> Y: an 8-bit
 * product with the scales applied to its int32 result. A transformer's
 * linear layers have this shape in a QDQ model (their output goes on in
 * float: a bias Add, GELU, a residual), so this is what makes them integer
 * work. Only a 2-D int8 initializer for B, scaled per tensor or per column
 * (axis 1), zero points 0; A per tensor with its zero point. Attention's
 * products of two computed tensors are left as they are.
 *
 * Gemm (alpha = beta = 1, A not transposed, C absent or a constant bias)
 * takes the same form: with transB its [N, K] weights are transposed once,
 * here, into a new [K, N] initializer (their per-row scales are then per
 * column), and C becomes an Add after the product (Gemm's C broadcasts to
 * [M, N] as Add's operand does). */
#include <string.h>

#include "core/opt/passes.h"
#include "core/opt/qdq_match.h"

/* B as [K, N]: the int8 initializer itself, or (trans) a transposed copy. */
static int32_t weights_kn(kn_opt *o, int32_t wq, int trans)
{
    const kn_value *w = kn_opt_value(o, wq);
    if (!trans)
        return wq;
    int64_t rows = w->dims[0], cols = w->dims[1], dims[2] = {cols, rows};
    int8_t *t = kn_opt_alloc(o, (size_t)(rows * cols));
    if (!t)
        return kn_opt_oom(o), -1;
    const int8_t *src = w->init_data;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++)
            t[c * rows + r] = src[r * cols + c];
    return kn_opt_add_initializer(o, w->name, KN_INT8, 2, dims, t, (size_t)(rows * cols));
}

static int fuse_one(kn_opt *o, int32_t mm_id)
{
    kn_node mm = *kn_opt_node(o, mm_id);
    int gemm = kn_opt_is_op(&mm, "Gemm");
    int trans_b = gemm && kn_attr_int(&mm, "transB", 0) != 0;
    if (gemm && (kn_attr_int(&mm, "transA", 0) != 0 || kn_attr_float(&mm, "alpha", 1.0f) != 1.0f ||
                 kn_attr_float(&mm, "beta", 1.0f) != 1.0f))
        return KN_OK;
    /* C: a float constant, or the DequantizeLinear of an int32 one (folded
     * later); it broadcasts over the product as Gemm's C does under Add */
    int32_t bias = gemm && mm.n_inputs > 2 ? mm.inputs[2] : -1;
    kn_qparams a, w;
    int32_t dq_a = kn_qdq_activation(o, mm.inputs[0], &a);
    int32_t dq_w = kn_opt_producer_op(o, mm.inputs[1], "DequantizeLinear");
    if (dq_a < 0 || dq_w < 0)
        return KN_OK;
    const kn_node *dw = kn_opt_node(o, dq_w);
    if (dw->inputs[0] < 0 || !kn_qdq_read_params(o, dw, 1, &w))
        return KN_OK;
    const kn_value *wq = kn_opt_value(o, dw->inputs[0]);
    const kn_value *ws = kn_opt_value(o, w.scale);
    int64_t n_scales = kn_shape_numel(ws->dims, ws->rank);
    if (!wq->is_initializer || wq->dtype != KN_INT8 || wq->rank != 2 ||
        (n_scales > 1 && (kn_attr_int(dw, "axis", 1) != (trans_b ? 0 : 1) ||
                          n_scales != wq->dims[trans_b ? 0 : 1])))
        return KN_OK;
    if (w.zero >= 0) {
        const kn_value *z = kn_opt_value(o, w.zero);
        for (int64_t i = 0; i < n_scales; i++)
            if (kn_qdq_int8_value(z, i) != 0)
                return KN_OK;
    }
    if (kn_opt_import_domain(o, "com.microsoft", 1) != KN_OK)
        return o->err->code;
    int32_t b_kn = weights_kn(o, dw->inputs[0], trans_b);
    if (b_kn < 0)
        return o->err->code;
    int32_t inputs[6] = {kn_opt_node(o, dq_a)->inputs[0], b_kn, a.scale, w.scale, a.zero, w.zero};
    int32_t out = mm.outputs[0], product = out;
    if (bias >= 0 && (product = kn_opt_add_value(o, kn_opt_value(o, out)->name, KN_FLOAT)) < 0)
        return kn_opt_oom(o);
    kn_opt_remove(o, mm_id);
    if (kn_opt_add_node(o, mm_id, "MatMulIntegerToFloat", "com.microsoft", inputs,
                        w.zero >= 0 ? 6 : 5, &product, 1, NULL, 0) < 0)
        return o->err->code;
    int32_t add_in[2] = {product, bias};
    return bias < 0 || kn_opt_add_node(o, mm_id, "Add", "", add_in, 2, &out, 1, NULL, 0) >= 0
               ? KN_OK
               : o->err->code;
}

int kn_pass_qdq_matmul(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        const kn_node *m = kn_opt_node(o, id);
        int gemm = kn_opt_is_op(m, "Gemm");
        if (!kn_opt_live(o, id) || !(gemm || kn_opt_is_op(m, "MatMul")) ||
            m->n_inputs != (gemm && m->n_inputs == 3 ? 3 : 2) ||
            m->n_outputs != 1 || m->outputs[0] < 0 || m->inputs[0] < 0 || m->inputs[1] < 0)
            continue;
        int rc = fuse_one(o, id);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
