/* QDQ residual additions to kiln.QAdd (core/cpu/fused/fused_qadd.c):
 *
 *   DequantizeLinear(a), DequantizeLinear(b) -> Add -> Relu? -> QuantizeLinear
 *       (-> DequantizeLinear -> Relu -> QuantizeLinear)?
 *
 * Either Relu is QAdd's relu = 1: QuantizeLinear(Relu(v)) =
 * max(QuantizeLinear(v), zero point) exactly. In the second form QAdd
 * writes the last QuantizeLinear's parameters directly: the sum is rounded
 * once instead of twice (to the Add's step, then to the Relu's), so a value
 * may differ from the graph as written by one step of the Relu's scale,
 * the way ONNX Runtime's QDQ fusions drop such pairs too. The
 * graph as written made five or six passes over memory per residual
 * connection; QAdd makes one, reading and writing 8-bit values. All
 * parameters per tensor and constant, all three tensors of one 8-bit type. */
#include "core/opt/passes.h"
#include "core/opt/qdq_match.h"

/* The single reader of v when it is a live op_type node; else -1. */
static int32_t only_reader(kn_opt *o, int32_t v, const char *op_type)
{
    int32_t id;
    if (v < 0 || !kn_opt_is_private(o, v) || kn_opt_consumers(o, v, &id, 1) != 1)
        return -1;
    const kn_node *n = kn_opt_node(o, id);
    return kn_opt_is_op(n, op_type) && n->n_outputs == 1 && n->outputs[0] >= 0 ? id : -1;
}

static int quantize_params(kn_opt *o, int32_t id, kn_qparams *q)
{
    const kn_node *n = kn_opt_node(o, id);
    return kn_qdq_read_params(o, n, 0, q) && q->zero >= 0 && kn_attr_int(n, "saturate", 1) == 1;
}

static int fuse_one(kn_opt *o, int32_t add_id)
{
    kn_node add = *kn_opt_node(o, add_id);
    kn_qparams a, b, c, c2;
    int32_t dq_a = kn_qdq_activation(o, add.inputs[0], &a);
    int32_t dq_b = kn_qdq_activation(o, add.inputs[1], &b);
    if (dq_a < 0 || dq_b < 0 || a.dtype != b.dtype)
        return KN_OK;
    int32_t remove[6], n_remove = 0, relu = 0;
    remove[n_remove++] = add_id;
    int32_t v = add.outputs[0];
    int32_t id = only_reader(o, v, "Relu");
    if (id >= 0) {
        relu = 1;
        remove[n_remove++] = id;
        v = kn_opt_node(o, id)->outputs[0];
    }
    int32_t q_id = only_reader(o, v, "QuantizeLinear");
    if (q_id < 0 || !quantize_params(o, q_id, &c) || c.dtype != a.dtype)
        return KN_OK;
    remove[n_remove++] = q_id;
    int32_t out = kn_opt_node(o, q_id)->outputs[0];
    /* DequantizeLinear -> Relu -> QuantizeLinear with the same parameters */
    int32_t dq2 = only_reader(o, out, "DequantizeLinear");
    int32_t relu2 = dq2 >= 0 ? only_reader(o, kn_opt_node(o, dq2)->outputs[0], "Relu") : -1;
    int32_t q2 = relu2 >= 0 ? only_reader(o, kn_opt_node(o, relu2)->outputs[0], "QuantizeLinear")
                            : -1;
    kn_qparams d2;
    if (q2 >= 0 && kn_qdq_read_params(o, kn_opt_node(o, dq2), 0, &d2) &&
        kn_qdq_same_params(&d2, &c) && quantize_params(o, q2, &c2) && c2.dtype == c.dtype) {
        relu = 1;
        c = c2;
        remove[n_remove++] = dq2;
        remove[n_remove++] = relu2;
        remove[n_remove++] = q2;
        out = kn_opt_node(o, q2)->outputs[0];
    }
    kn_attr *attrs = kn_opt_attrs(o, 1);
    int rc = kn_opt_import_kiln(o);
    if (!attrs || rc != KN_OK)
        return o->err->code ? o->err->code : kn_opt_oom(o);
    kn_opt_attr_int(attrs, "relu", relu);
    int32_t inputs[8] = {kn_opt_node(o, dq_a)->inputs[0], a.scale, a.zero,
                         kn_opt_node(o, dq_b)->inputs[0], b.scale, b.zero, c.scale, c.zero};
    for (int32_t i = 0; i < n_remove; i++)
        kn_opt_remove(o, remove[i]);
    return kn_opt_add_node(o, add_id, "QAdd", KN_OPT_DOMAIN_NAME, inputs, 8, &out, 1, attrs, 1) < 0
               ? o->err->code
               : KN_OK;
}

int kn_pass_qdq_add(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        const kn_node *add = kn_opt_node(o, id);
        if (!kn_opt_live(o, id) || !kn_opt_is_op(add, "Add") || add->n_inputs != 2 ||
            add->n_outputs != 1 || add->outputs[0] < 0 || add->inputs[0] < 0 || add->inputs[1] < 0)
            continue;
        int rc = fuse_one(o, id);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
