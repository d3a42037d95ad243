/* Conv -> (Add residual)? -> activation? becomes one kiln.FusedConv:
 *   Y = act(Conv(X, W) + B + Z)
 * The residual Add qualifies when the conv output is read by it alone and
 * its other operand is computed (not an initializer: a constant there is a
 * broadcast bias, not a residual). At least one of residual and activation
 * must be there. Only float convolutions (W declared float) are fused. */
#include "core/opt/activation_match.h"
#include "core/opt/passes.h"

/* The Add reading only v, and its other operand; -1 if none. */
static int32_t residual_add(kn_opt *o, int32_t v, int32_t *other)
{
    int32_t id;
    if (!kn_opt_is_private(o, v) || kn_opt_consumers(o, v, &id, 1) != 1)
        return -1;
    const kn_node *add = kn_opt_node(o, id);
    if (!kn_opt_is_op(add, "Add") || add->n_inputs != 2 || add->n_outputs != 1)
        return -1;
    int32_t z = add->inputs[0] == v ? add->inputs[1] : add->inputs[0];
    if (z < 0 || z == v || kn_opt_value(o, z)->is_initializer ||
        kn_opt_value(o, z)->kind != KN_KIND_TENSOR)
        return -1;
    *other = z;
    return id;
}

static int fuse_one(kn_opt *o, int32_t conv_id)
{
    const kn_node *conv = kn_opt_node(o, conv_id);
    int32_t y = conv->outputs[0], z = -1, out = y;
    int32_t add_id = residual_add(o, y, &z);
    if (add_id >= 0)
        out = kn_opt_node(o, add_id)->outputs[0];
    kn_act_match m;
    int has_act = kn_opt_match_activation(o, out, &m);
    if (add_id < 0 && !has_act)
        return KN_OK;
    if (!has_act)
        m.act.kind = KN_ACT_NONE;
    int32_t n_attrs;
    kn_attr *attrs = kn_opt_attrs_with_activation(o, conv->attrs, conv->n_attrs, &m.act, &n_attrs);
    int rc = kn_opt_import_kiln(o);
    if (!attrs || rc != KN_OK)
        return o->err->code ? o->err->code : KN_ERR_OUT_OF_MEMORY;
    int32_t inputs[4] = {conv->inputs[0], conv->inputs[1],
                         conv->n_inputs > 2 ? conv->inputs[2] : -1, z};
    int32_t n_in = z >= 0 ? 4 : inputs[2] >= 0 ? 3 : 2;
    int32_t last = kn_opt_remove_fused_chain(o, conv_id, add_id, &m, has_act, &out);
    return kn_opt_add_node(o, last, "FusedConv", KN_OPT_DOMAIN_NAME, inputs, n_in, &out, 1, attrs,
                           n_attrs) < 0 ? o->err->code : KN_OK;
}

int kn_pass_fuse_conv(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        const kn_node *c = kn_opt_node(o, id);
        if (!kn_opt_live(o, id) || !kn_opt_is_op(c, "Conv") || c->n_inputs < 2 ||
            c->n_outputs != 1 || c->outputs[0] < 0 || c->inputs[1] < 0 ||
            kn_opt_value(o, c->inputs[1])->dtype != KN_FLOAT)
            continue;
        int rc = fuse_one(o, id);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
