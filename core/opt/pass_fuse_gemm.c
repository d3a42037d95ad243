/* Gemm -> activation becomes kiln.FusedGemm (Gemm's inputs and attributes
 * plus `activation`, `activation_params`): Y = act(alpha A'B' + beta C).
 * Float only (B declared float). */
#include "core/opt/activation_match.h"
#include "core/opt/passes.h"

int kn_pass_fuse_gemm(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        const kn_node *g = kn_opt_node(o, id);
        if (!kn_opt_live(o, id) || !kn_opt_is_op(g, "Gemm") || g->n_inputs < 2 ||
            g->n_outputs != 1 || g->outputs[0] < 0 || g->inputs[1] < 0 ||
            kn_opt_value(o, g->inputs[1])->dtype != KN_FLOAT)
            continue;
        kn_act_match m;
        if (!kn_opt_match_activation(o, g->outputs[0], &m))
            continue;
        int32_t n_attrs;
        kn_attr *attrs = kn_opt_attrs_with_activation(o, g->attrs, g->n_attrs, &m.act, &n_attrs);
        if (!attrs || kn_opt_import_kiln(o) != KN_OK)
            return o->err->code ? o->err->code : KN_ERR_OUT_OF_MEMORY;
        int32_t out;
        int32_t last = kn_opt_remove_fused_chain(o, id, -1, &m, 1, &out);
        if (kn_opt_add_node(o, last, "FusedGemm", KN_OPT_DOMAIN_NAME, g->inputs, g->n_inputs, &out,
                            1, attrs, n_attrs) < 0)
            return o->err->code;
    }
    return KN_OK;
}
