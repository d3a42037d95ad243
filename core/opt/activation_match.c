/* Activation recognition for the fusion passes (activation_match.h). */
#include "core/opt/activation_match.h"

#include <float.h>
#include <string.h>

#include "core/kernel/fused_common.h"

/* Clip's bounds: attributes before opset 11, optional constant inputs after. */
static int clip_bounds(kn_opt *o, const kn_node *n, kn_activation *a)
{
    a->alpha = -FLT_MAX;
    a->beta = FLT_MAX;
    if (kn_opt_opset(o) < 11) {
        a->alpha = kn_attr_float(n, "min", -FLT_MAX);
        a->beta = kn_attr_float(n, "max", FLT_MAX);
        return 1;
    }
    if (n->n_inputs > 1 && n->inputs[1] >= 0 && !kn_opt_const_scalar(o, n->inputs[1], &a->alpha))
        return 0;
    if (n->n_inputs > 2 && n->inputs[2] >= 0 && !kn_opt_const_scalar(o, n->inputs[2], &a->beta))
        return 0;
    return 1;
}

/* x * Sigmoid(x): v read by exactly a Sigmoid and a Mul of v and it. */
static int match_silu(kn_opt *o, int32_t v, kn_act_match *m)
{
    int32_t ids[3];
    if (kn_opt_is_observed(o, v) || kn_opt_consumers(o, v, ids, 3) != 2 ||
        kn_opt_use_count(o, v) != 2)
        return 0;
    for (int s = 0; s < 2; s++) {
        const kn_node *sig = kn_opt_node(o, ids[s]), *mul = kn_opt_node(o, ids[1 - s]);
        if (!kn_opt_is_op(sig, "Sigmoid") || !kn_opt_is_op(mul, "Mul") || mul->n_inputs != 2 ||
            sig->n_outputs != 1 || !kn_opt_is_private(o, sig->outputs[0]))
            continue;
        int32_t so = sig->outputs[0];
        if (!((mul->inputs[0] == v && mul->inputs[1] == so) ||
              (mul->inputs[1] == v && mul->inputs[0] == so)))
            continue;
        m->act.kind = KN_ACT_SILU;
        m->output = mul->outputs[0];
        m->nodes[0] = ids[s];
        m->nodes[1] = ids[1 - s];
        m->n_nodes = 2;
        return 1;
    }
    return 0;
}

int kn_opt_match_activation(kn_opt *o, int32_t v, kn_act_match *m)
{
    memset(m, 0, sizeof *m);
    if (match_silu(o, v, m))
        return 1;
    int32_t id;
    if (!kn_opt_is_private(o, v) || kn_opt_consumers(o, v, &id, 1) != 1)
        return 0;
    const kn_node *n = kn_opt_node(o, id);
    if (n->n_inputs < 1 || n->inputs[0] != v || n->n_outputs < 1 || n->outputs[0] < 0)
        return 0;
    kn_activation *a = &m->act;
    int kiln = n->domain && strcmp(n->domain, KN_OPT_DOMAIN_NAME) == 0;
    if (kn_opt_is_op(n, "Relu"))
        a->kind = KN_ACT_RELU;
    else if (kn_opt_is_op(n, "LeakyRelu")) {
        a->kind = KN_ACT_LEAKY_RELU;
        a->alpha = kn_attr_float(n, "alpha", 0.01f);
    } else if (kn_opt_is_op(n, "Sigmoid"))
        a->kind = KN_ACT_SIGMOID;
    else if (kn_opt_is_op(n, "HardSigmoid")) {
        a->kind = KN_ACT_HARD_SIGMOID;
        a->alpha = kn_attr_float(n, "alpha", 0.2f);
        a->beta = kn_attr_float(n, "beta", 0.5f);
    } else if (kn_opt_is_op(n, "Tanh"))
        a->kind = KN_ACT_TANH;
    else if (kn_opt_is_op(n, "HardSwish"))
        a->kind = KN_ACT_HARD_SWISH;
    else if (kn_opt_is_op(n, "Clip")) {
        if (!clip_bounds(o, n, a))
            return 0;
        a->kind = KN_ACT_CLIP;
    } else if (kn_opt_is_op(n, "Gelu") &&
               strcmp(kn_attr_string(n, "approximate", "none"), "none") == 0)
        a->kind = KN_ACT_GELU;
    else if (kiln && strcmp(n->op_type, "Gelu") == 0)
        a->kind = KN_ACT_GELU;
    else if (kiln && strcmp(n->op_type, "Silu") == 0)
        a->kind = KN_ACT_SILU;
    else
        return 0;
    m->output = n->outputs[0];
    m->nodes[0] = id;
    m->n_nodes = 1;
    return 1;
}

kn_attr *kn_opt_attrs_with_activation(kn_opt *o, const kn_attr *base, int32_t n,
                                      const kn_activation *act, int32_t *count)
{
    kn_attr *attrs = kn_opt_attrs(o, n + 2);
    if (!attrs)
        return NULL;
    int32_t c = 0;
    for (int32_t i = 0; i < n; i++)
        if (strcmp(base[i].name, "activation") != 0 && strcmp(base[i].name, "activation_params") != 0)
            attrs[c++] = base[i];
    if (kn_opt_attr_string(o, &attrs[c++], "activation", kn_fused_act_name(act->kind)) != KN_OK)
        return NULL;
    int np = kn_fused_act_param_count(act->kind);
    float params[2] = {act->alpha, act->beta};
    if (np && kn_opt_attr_floats(o, &attrs[c++], "activation_params", params, np) != KN_OK)
        return NULL;
    *count = c;
    return attrs;
}

int32_t kn_opt_remove_fused_chain(kn_opt *o, int32_t producer, int32_t add_id,
                                  const kn_act_match *m, int has_act, int32_t *out)
{
    int32_t last = add_id >= 0 ? add_id : producer;
    if (has_act) {
        *out = m->output;
        last = m->nodes[m->n_nodes - 1];
        for (int32_t i = 0; i < m->n_nodes; i++)
            kn_opt_remove(o, m->nodes[i]);
    }
    kn_opt_remove(o, producer);
    if (add_id >= 0)
        kn_opt_remove(o, add_id);
    return last;
}
