/* What follows an integer matrix product with a float result goes into
 * its epilogue:
 *
 *   MatMulIntegerToFloat(A, B, ...) -> Add(bias [N]) -> activation? -> QuantizeLinear?
 *
 * A QDQ transformer's linear layers have this shape once qdq_matmul has
 * run: the bias Add (the Gemm's C too) after every product, GELU after the
 * first FFN product and a QuantizeLinear where the next product reads the
 * result (the FFN's GELU, the attention's output projection). Each of
 * those was a pass over a float [M, N] tensor of its own; in the product's
 * epilogue they cost nothing more than writing the result (a quarter of
 * the bytes when it leaves quantized).
 *
 * With only a bias the product stays MatMulIntegerToFloat, with the bias
 * as its own input (ONNX Runtime's op takes one); with an activation or a
 * QuantizeLinear it becomes kiln.QFusedMatMul, MatMulIntegerToFloat's
 * inputs then y_scale and y_zero_point and the fused activation attributes:
 *
 *   Y = act((A - a_zp)(B - b_zp) a_scale b_scale + bias)   float, or
 *   Y = saturate(round(that / y_scale) + y_zero_point)      with y_scale
 *
 * Runs after the gelu pass (GELU written out as Erf is kiln.Gelu by then)
 * and after const_fold (a bias read through DequantizeLinear or a Constant
 * is an initializer by then). Every intermediate must be private to the
 * chain: a value something else reads keeps its own node. */
#include <string.h>

#include "core/opt/activation_match.h"
#include "core/opt/passes.h"
#include "core/opt/qdq_match.h"

/* input slots: MatMulIntegerToFloat's, then kiln.QFusedMatMul's own */
enum { MM_B = 1, MM_BIAS = 6, MM_Y_SCALE, MM_Y_ZP, MM_INPUTS };

/* The Add reading only v with a 1-D float constant of n values: its id,
 * the constant in *bias. */
static int32_t bias_add(kn_opt *o, int32_t v, int64_t n, int32_t *bias)
{
    int32_t id = kn_opt_sole_reader(o, v);
    if (id < 0)
        return -1;
    const kn_node *add = kn_opt_node(o, id);
    if (!kn_opt_is_op(add, "Add") || add->n_inputs != 2 || add->n_outputs != 1 ||
        add->outputs[0] < 0)
        return -1;
    int32_t b = add->inputs[0] == v ? add->inputs[1] : add->inputs[0];
    int64_t count;
    if (b == v || b < 0 || !kn_opt_const_floats(o, b, &count) || kn_opt_value(o, b)->rank != 1 ||
        count != n)
        return -1;
    *bias = b;
    return id;
}

/* The QuantizeLinear reading only v, per tensor with constant 8-bit
 * parameters: its id, the parameters in *q. */
static int32_t quantize_after(kn_opt *o, int32_t v, kn_qparams *q)
{
    int32_t id = kn_opt_sole_reader(o, v);
    if (id < 0)
        return -1;
    const kn_node *n = kn_opt_node(o, id);
    if (!kn_opt_is_op(n, "QuantizeLinear") || n->inputs[0] != v ||
        !kn_qdq_read_params(o, n, 0, q) || !kn_is_q8(q->dtype) || q->s <= 0.0f)
        return -1;
    return id;
}

static int fuse_one(kn_opt *o, int32_t mm_id)
{
    const kn_node *mm = kn_opt_node(o, mm_id);
    const kn_value *b = kn_opt_value(o, mm->inputs[MM_B]);
    if (!b->is_initializer || b->rank != 2)
        return KN_OK;
    int32_t v = mm->outputs[0], bias = -1;
    int32_t add_id = bias_add(o, v, b->dims[1], &bias);
    if (add_id >= 0)
        v = kn_opt_node(o, add_id)->outputs[0];
    kn_act_match m;
    int has_act = kn_opt_match_activation(o, v, &m);
    if (has_act)
        v = m.output;
    else
        m.act.kind = KN_ACT_NONE;
    kn_qparams q;
    int32_t q_id = quantize_after(o, v, &q);
    if (add_id < 0 && !has_act && q_id < 0)
        return KN_OK;

    int32_t inputs[MM_INPUTS];
    for (int32_t i = 0; i < MM_INPUTS; i++)
        inputs[i] = i < mm->n_inputs ? mm->inputs[i] : -1;
    inputs[MM_BIAS] = bias;
    if (q_id >= 0) {
        inputs[MM_Y_SCALE] = q.scale;
        inputs[MM_Y_ZP] = q.zero;
    }
    int fused = has_act || q_id >= 0;
    kn_attr *attrs = NULL;
    int32_t n_attrs = 0;
    if (fused && (!(attrs = kn_opt_attrs_with_activation(o, NULL, 0, &m.act, &n_attrs)) ||
                  kn_opt_import_kiln(o) != KN_OK))
        return o->err->code ? o->err->code : KN_ERR_OUT_OF_MEMORY;
    int32_t n_in = q_id < 0 ? MM_BIAS + 1 : q.zero >= 0 ? MM_Y_ZP + 1 : MM_Y_SCALE + 1;
    int32_t out = v;
    int32_t last = kn_opt_remove_fused_chain(o, mm_id, add_id, &m, has_act, &out);
    if (q_id >= 0) {
        out = kn_opt_node(o, q_id)->outputs[0];
        last = q_id;
        kn_opt_remove(o, q_id);
    }
    return kn_opt_add_node(o, last, fused ? "QFusedMatMul" : "MatMulIntegerToFloat",
                           fused ? KN_OPT_DOMAIN_NAME : "com.microsoft", inputs, n_in, &out, 1,
                           attrs, n_attrs) < 0
               ? o->err->code
               : KN_OK;
}

int kn_pass_qmatmul_epilogue(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        const kn_node *m = kn_opt_node(o, id);
        /* a product that already has a bias (ONNX Runtime's own files) is
         * left as it is */
        if (!kn_opt_live(o, id) || !m->domain || strcmp(m->domain, "com.microsoft") != 0 ||
            strcmp(m->op_type, "MatMulIntegerToFloat") != 0 || m->n_inputs < 4 ||
            m->n_inputs > MM_BIAS || m->n_outputs != 1 || m->outputs[0] < 0 || m->inputs[MM_B] < 0)
            continue;
        int rc = fuse_one(o, id);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
