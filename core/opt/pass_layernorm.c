/* Layer normalization written out as ops becomes one node:
 *   m = ReduceMean(x, [-1]); d = Sub(x, m); v = ReduceMean(Pow(d, 2), [-1])
 *   y = Div(d, Sqrt(Add(v, eps))) * gamma + beta
 * gamma and beta 1-D float constants (Mul and Add in either operand order).
 * It becomes ai.onnx LayerNormalization(x, gamma, beta; axis -1, epsilon)
 * when the model imports opset 17 or later, else kiln.LayerNormalization
 * with the same contract. */
#include <string.h>

#include "core/opt/passes.h"

/* ReduceMean over the last axis only, keepdims (attribute axes before
 * opset 18, a constant input from 18). */
static int mean_last_axis(kn_opt *o, const kn_node *n)
{
    if (!kn_opt_is_op(n, "ReduceMean") || n->n_outputs != 1 || kn_attr_int(n, "keepdims", 1) != 1)
        return 0;
    if (n->n_inputs >= 2 && n->inputs[1] >= 0) {
        const kn_value *a = kn_opt_value(o, n->inputs[1]);
        int64_t axis;
        if (!a->is_initializer || a->dtype != KN_INT64 || a->init_nbytes != 8 || !a->init_data)
            return 0;
        memcpy(&axis, a->init_data, sizeof axis);
        return axis == -1;
    }
    int32_t count;
    const int64_t *axes = kn_attr_ints(n, "axes", &count);
    return axes && count == 1 && axes[0] == -1;
}

/* Binary node `id` of op_type: one operand `known`, the other returned. */
static int32_t other_of(kn_opt *o, int32_t id, const char *op_type, int32_t known)
{
    const kn_node *n = id >= 0 ? kn_opt_node(o, id) : NULL;
    if (!n || !kn_opt_is_op(n, op_type) || n->n_inputs != 2 || n->n_outputs != 1)
        return -1;
    return n->inputs[0] == known ? n->inputs[1] : n->inputs[1] == known ? n->inputs[0] : -1;
}

static int is_1d_const(kn_opt *o, int32_t v)
{
    int64_t n;
    return kn_opt_const_floats(o, v, &n) && kn_opt_value(o, v)->rank == 1;
}

static int match_at_mean(kn_opt *o, int32_t mean_id)
{
    const kn_node *mean = kn_opt_node(o, mean_id);
    if (!mean_last_axis(o, mean))
        return KN_OK;
    int32_t x = mean->inputs[0], mv = mean->outputs[0];
    int32_t sub_id = kn_opt_sole_reader(o, mv);
    const kn_node *sub = sub_id >= 0 ? kn_opt_node(o, sub_id) : NULL;
    if (!sub || !kn_opt_is_op(sub, "Sub") || sub->inputs[0] != x || sub->inputs[1] != mv)
        return KN_OK;
    int32_t d = sub->outputs[0], ids[2];
    if (kn_opt_is_observed(o, d) || kn_opt_use_count(o, d) != 2 || kn_opt_consumers(o, d, ids, 2) != 2)
        return KN_OK;
    int pow_first = kn_opt_is_op(kn_opt_node(o, ids[0]), "Pow");
    int32_t pow_id = ids[pow_first ? 0 : 1], div_id = ids[pow_first ? 1 : 0];
    const kn_node *pw = kn_opt_node(o, pow_id), *dv = kn_opt_node(o, div_id);
    float c;
    if (!kn_opt_is_op(pw, "Pow") || pw->inputs[0] != d || !kn_opt_const_scalar(o, pw->inputs[1], &c) ||
        c != 2.0f || !kn_opt_is_op(dv, "Div") || dv->inputs[0] != d)
        return KN_OK;
    int32_t var_id = kn_opt_sole_reader(o, pw->outputs[0]);
    if (var_id < 0 || !mean_last_axis(o, kn_opt_node(o, var_id)))
        return KN_OK;
    int32_t add_id = kn_opt_sole_reader(o, kn_opt_node(o, var_id)->outputs[0]);
    int32_t eps_v = other_of(o, add_id, "Add", kn_opt_node(o, var_id)->outputs[0]);
    float eps;
    if (eps_v < 0 || !kn_opt_const_scalar(o, eps_v, &eps))
        return KN_OK;
    int32_t sqrt_id = kn_opt_sole_reader(o, kn_opt_node(o, add_id)->outputs[0]);
    if (sqrt_id < 0 || !kn_opt_is_op(kn_opt_node(o, sqrt_id), "Sqrt") ||
        dv->inputs[1] != kn_opt_node(o, sqrt_id)->outputs[0] ||
        !kn_opt_is_private(o, dv->inputs[1]))
        return KN_OK;
    int32_t mul_id = kn_opt_sole_reader(o, dv->outputs[0]);
    int32_t gamma = other_of(o, mul_id, "Mul", dv->outputs[0]);
    if (gamma < 0 || !is_1d_const(o, gamma))
        return KN_OK;
    int32_t badd_id = kn_opt_sole_reader(o, kn_opt_node(o, mul_id)->outputs[0]);
    int32_t beta = other_of(o, badd_id, "Add", kn_opt_node(o, mul_id)->outputs[0]);
    if (beta < 0 || !is_1d_const(o, beta))
        return KN_OK;
    int modern = kn_opt_opset(o) >= 17;
    kn_attr *attrs = kn_opt_attrs(o, 2);
    if (!attrs || (!modern && kn_opt_import_kiln(o) != KN_OK))
        return o->err->code ? o->err->code : KN_ERR_OUT_OF_MEMORY;
    kn_opt_attr_int(&attrs[0], "axis", -1);
    kn_opt_attr_float(&attrs[1], "epsilon", eps);
    int32_t inputs[3] = {x, gamma, beta}, out = kn_opt_node(o, badd_id)->outputs[0];
    int32_t all[9] = {mean_id, sub_id, pow_id, var_id, add_id, sqrt_id, div_id, mul_id, badd_id};
    for (int i = 0; i < 9; i++)
        kn_opt_remove(o, all[i]);
    return kn_opt_add_node(o, badd_id, "LayerNormalization", modern ? "" : KN_OPT_DOMAIN_NAME,
                           inputs, 3, &out, 1, attrs, 2) < 0 ? o->err->code : KN_OK;
}

int kn_pass_layernorm(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        if (!kn_opt_live(o, id) || !kn_opt_is_op(kn_opt_node(o, id), "ReduceMean"))
            continue;
        int rc = match_at_mean(o, id);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
