/* The exact GELU written out with Erf becomes kiln.Gelu(X):
 *   0.5 * x * (1 + erf(x / sqrt(2)))
 * matched from the Erf outwards: Erf(Div(x, sqrt 2) | Mul(x, 1/sqrt 2)),
 * Add(erf, 1), then either Mul(Mul(x, a), 0.5) or Mul(Mul(x, 0.5), a), with
 * every operand order. Every intermediate must be private to the pattern. */
#include <math.h>
#include <string.h>

#include "core/opt/passes.h"

static int near(float v, double want) { return fabs((double)v - want) <= 1e-4 * fabs(want); }

/* Binary node `id` of op_type with one operand the constant c (within 1e-4
 * relative) and the other returned in *other. */
static int binary_with_const(kn_opt *o, int32_t id, const char *op_type, double c, int32_t *other,
                             int const_may_be_first)
{
    const kn_node *n = kn_opt_node(o, id);
    if (!kn_opt_is_op(n, op_type) || n->n_inputs != 2 || n->n_outputs != 1)
        return 0;
    float f;
    if (kn_opt_const_scalar(o, n->inputs[1], &f) && near(f, c)) {
        *other = n->inputs[0];
        return 1;
    }
    if (const_may_be_first && kn_opt_const_scalar(o, n->inputs[0], &f) && near(f, c)) {
        *other = n->inputs[1];
        return 1;
    }
    return 0;
}

static int match_at_erf(kn_opt *o, int32_t erf_id)
{
    const kn_node *erf = kn_opt_node(o, erf_id);
    if (erf->n_inputs != 1 || erf->n_outputs != 1)
        return KN_OK;
    int32_t scaled = erf->inputs[0], x = -1;
    int32_t div_id = kn_opt_producer(o, scaled);
    if (div_id < 0 || !kn_opt_is_private(o, scaled) ||
        !(binary_with_const(o, div_id, "Div", M_SQRT2, &x, 0) ||
          binary_with_const(o, div_id, "Mul", M_SQRT1_2, &x, 1)))
        return KN_OK;
    int32_t add_id = kn_opt_sole_reader(o, erf->outputs[0]), a = -1;
    if (add_id < 0 || !binary_with_const(o, add_id, "Add", 1.0, &a, 1) || a != erf->outputs[0])
        return KN_OK;
    int32_t av = kn_opt_node(o, add_id)->outputs[0];
    int32_t mul1 = kn_opt_sole_reader(o, av);
    if (mul1 < 0 || !kn_opt_is_op(kn_opt_node(o, mul1), "Mul"))
        return KN_OK;
    int32_t p = kn_opt_other_operand(kn_opt_node(o, mul1), av), half_id = -1, out = -1, y;
    if (p == x) {
        /* Mul(Mul(x, a), 0.5) */
        half_id = kn_opt_sole_reader(o, kn_opt_node(o, mul1)->outputs[0]);
        if (half_id < 0 || !binary_with_const(o, half_id, "Mul", 0.5, &y, 1) ||
            y != kn_opt_node(o, mul1)->outputs[0])
            return KN_OK;
        out = kn_opt_node(o, half_id)->outputs[0];
    } else {
        /* Mul(Mul(x, 0.5), a) */
        half_id = kn_opt_producer(o, p);
        if (half_id < 0 || !kn_opt_is_private(o, p) ||
            !binary_with_const(o, half_id, "Mul", 0.5, &y, 1) || y != x)
            return KN_OK;
        out = kn_opt_node(o, mul1)->outputs[0];
    }
    if (kn_opt_import_kiln(o) != KN_OK)
        return o->err->code;
    int32_t last = mul1 > half_id ? mul1 : half_id;
    kn_opt_remove(o, div_id);
    kn_opt_remove(o, erf_id);
    kn_opt_remove(o, add_id);
    kn_opt_remove(o, mul1);
    kn_opt_remove(o, half_id);
    return kn_opt_add_node(o, last, "Gelu", KN_OPT_DOMAIN_NAME, &x, 1, &out, 1, NULL, 0) < 0
               ? o->err->code
               : KN_OK;
}

int kn_pass_gelu(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        if (!kn_opt_live(o, id) || !kn_opt_is_op(kn_opt_node(o, id), "Erf"))
            continue;
        int rc = match_at_erf(o, id);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
