/* MatMul -> Add(bias) -> activation becomes kiln.FusedMatMul(A, B, bias?)
 * with attributes `activation`, `activation_params`:
 *   Y = act(A @ B + bias)
 * bias qualifies when it is a 1-D float initializer as long as B's last
 * dimension, which must be declared (the kernel checks it again). At least
 * one of bias and activation must be there. Float only (B declared float). */
#include "core/opt/activation_match.h"
#include "core/opt/passes.h"

/* The Add reading only v with a 1-D constant of n floats. */
static int32_t bias_add(kn_opt *o, int32_t v, int64_t n, int32_t *bias)
{
    int32_t id;
    if (!kn_opt_is_private(o, v) || kn_opt_consumers(o, v, &id, 1) != 1)
        return -1;
    const kn_node *add = kn_opt_node(o, id);
    if (!kn_opt_is_op(add, "Add") || add->n_inputs != 2 || add->n_outputs != 1)
        return -1;
    int32_t b = add->inputs[0] == v ? add->inputs[1] : add->inputs[0];
    int64_t count;
    /* n must be known: a bias of 1 would broadcast, which the op does not. */
    if (b == v || n < 0 || !kn_opt_const_floats(o, b, &count) || kn_opt_value(o, b)->rank != 1 ||
        count != n)
        return -1;
    *bias = b;
    return id;
}

int kn_pass_fuse_matmul(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        const kn_node *mm = kn_opt_node(o, id);
        if (!kn_opt_live(o, id) || !kn_opt_is_op(mm, "MatMul") || mm->n_inputs != 2 ||
            mm->n_outputs != 1 || mm->outputs[0] < 0 || mm->inputs[1] < 0)
            continue;
        const kn_value *bv = kn_opt_value(o, mm->inputs[1]);
        /* B must be a matrix (or a stack): a 1-D B drops the last dimension. */
        if (bv->dtype != KN_FLOAT || bv->rank < 2)
            continue;
        int64_t ncols = bv->dims[bv->rank - 1] >= 0 ? bv->dims[bv->rank - 1] : -1;
        int32_t bias = -1, out = mm->outputs[0];
        int32_t add_id = bias_add(o, out, ncols, &bias);
        if (add_id >= 0)
            out = kn_opt_node(o, add_id)->outputs[0];
        kn_act_match m;
        int has_act = kn_opt_match_activation(o, out, &m);
        if (add_id < 0 && !has_act)
            continue;
        if (!has_act)
            m.act.kind = KN_ACT_NONE;
        int32_t n_attrs;
        kn_attr *attrs = kn_opt_attrs_with_activation(o, NULL, 0, &m.act, &n_attrs);
        if (!attrs || kn_opt_import_kiln(o) != KN_OK)
            return o->err->code ? o->err->code : KN_ERR_OUT_OF_MEMORY;
        int32_t inputs[3] = {mm->inputs[0], mm->inputs[1], bias};
        int32_t last = kn_opt_remove_fused_chain(o, id, add_id, &m, has_act, &out);
        if (kn_opt_add_node(o, last, "FusedMatMul", KN_OPT_DOMAIN_NAME, inputs, bias >= 0 ? 3 : 2,
                            &out, 1, attrs, n_attrs) < 0)
            return o->err->code;
    }
    return KN_OK;
}
