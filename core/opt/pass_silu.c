/* x * Sigmoid(x) (the Sigmoid read only by that Mul) becomes kiln.Silu(X),
 * where no conv or matrix product took it into its epilogue. */
#include "core/opt/passes.h"

int kn_pass_silu(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        const kn_node *sig = kn_opt_node(o, id);
        if (!kn_opt_live(o, id) || !kn_opt_is_op(sig, "Sigmoid") || sig->n_inputs != 1 ||
            sig->n_outputs != 1 || !kn_opt_is_private(o, sig->outputs[0]))
            continue;
        int32_t x = sig->inputs[0], s = sig->outputs[0], mul_id;
        if (x < 0 || kn_opt_value(o, x)->dtype != KN_FLOAT ||
            kn_opt_consumers(o, s, &mul_id, 1) != 1)
            continue;
        const kn_node *mul = kn_opt_node(o, mul_id);
        if (!kn_opt_is_op(mul, "Mul") || mul->n_inputs != 2 ||
            !((mul->inputs[0] == x && mul->inputs[1] == s) ||
              (mul->inputs[1] == x && mul->inputs[0] == s)))
            continue;
        if (kn_opt_import_kiln(o) != KN_OK)
            return o->err->code;
        int32_t out = mul->outputs[0];
        kn_opt_remove(o, id);
        kn_opt_remove(o, mul_id);
        if (kn_opt_add_node(o, mul_id, "Silu", KN_OPT_DOMAIN_NAME, &x, 1, &out, 1, NULL, 0) < 0)
            return o->err->code;
    }
    return KN_OK;
}
