/* kiln.Gelu(X) = X / 2 * (1 + erf(X / sqrt 2)) and kiln.Silu(X) =
 * X * sigmoid(X): the activations the optimizer recognises in formulas
 * that no producer took into its epilogue. Float (vector kernels) and
 * double (scalar). Elementwise, in place allowed. */
#include <math.h>

#include "core/kernel/op.h"
#include "core/simd/kernels.h"

static int act_prepare(kn_kctx *k)
{
    const kn_tensor *x = k->in[0];
    if (!x || (x->dtype != KN_FLOAT && x->dtype != KN_DOUBLE))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: X must be float or double", k->node->op_type);
    *k->out[0] = *x;
    k->out[0]->data = NULL;
    return KN_OK;
}

enum { ACT_GRAIN = 16384 };

typedef struct act_job {
    kn_act_kind kind;
    const kn_tensor *x;
    kn_tensor *y;
    int64_t n;
} act_job;

static void act_range(void *ctx, int64_t begin, int64_t end)
{
    const act_job *j = ctx;
    int64_t lo = begin * ACT_GRAIN, hi = end * ACT_GRAIN < j->n ? end * ACT_GRAIN : j->n;
    if (j->x->dtype == KN_FLOAT) {
        kn_activation a = {.kind = j->kind};
        kn_simd()->act((float *)j->y->data + lo, (const float *)j->x->data + lo, hi - lo, &a);
        return;
    }
    const double *x = j->x->data;
    double *y = j->y->data;
    for (int64_t i = lo; i < hi; i++)
        y[i] = j->kind == KN_ACT_GELU ? 0.5 * x[i] * (1.0 + erf(x[i] * M_SQRT1_2))
                                      : x[i] / (1.0 + exp(-x[i]));
}

static int run_act(kn_kctx *k, kn_act_kind kind)
{
    act_job j = {kind, k->in[0], k->out[0], kn_tensor_numel(k->in[0])};
    kn_parallel_for(k->threads, (j.n + ACT_GRAIN - 1) / ACT_GRAIN, 1, act_range, &j);
    return KN_OK;
}

static int gelu_run(kn_kctx *k) { return run_act(k, KN_ACT_GELU); }
static int silu_run(kn_kctx *k) { return run_act(k, KN_ACT_SILU); }

const kn_op_def kn_op_kiln_Gelu = {
    .domain = "kiln", .op_type = "Gelu", .since_version = 1,
    .dtypes = KN_BIT(KN_FLOAT) | KN_BIT(KN_DOUBLE), .flags = KN_OP_INPLACE,
    .prepare = act_prepare, .run = gelu_run
};
const kn_op_def kn_op_kiln_Silu = {
    .domain = "kiln", .op_type = "Silu", .since_version = 1,
    .dtypes = KN_BIT(KN_FLOAT) | KN_BIT(KN_DOUBLE), .flags = KN_OP_INPLACE,
    .prepare = act_prepare, .run = silu_run
};
