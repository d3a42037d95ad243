/* kiln.FusedGemm(A, B, C?): Y = act(alpha A' B' + beta C), Gemm's inputs
 * and attributes (alpha, beta, transA, transB) plus `activation`,
 * `activation_params`.
 * kiln.FusedMatMul(A, B, bias?): Y = act(A @ B + bias), MatMul's numpy
 * semantics (B at least 2-D), bias 1-D of B's last dimension.
 * Both run the standard kernel (so every shape it takes works the same)
 * and apply the epilogue over the output while it is still warm. Float. */
#include <stdlib.h>

#include "core/kernel/fused_common.h"

typedef struct fmm_state {
    kn_inner_op inner;
    kn_activation act;
} fmm_state;

static void fmm_release(kn_kctx *k)
{
    fmm_state *st = k->state;
    if (st)
        kn_inner_release(&st->inner);
    free(st);
    k->state = NULL;
}

static int prepare_with(kn_kctx *k, const char *op_type, int64_t opset, int32_t n_inner)
{
    fmm_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    k->state = st;
    int rc = kn_fused_activation(k, &st->act);
    if (rc == KN_OK && (!k->in[0] || k->in[0]->dtype != KN_FLOAT))
        rc = kn_fail(k->err, KN_ERR_DTYPE, "%s: A must be float", k->node->op_type);
    if (rc == KN_OK)
        rc = kn_inner_prepare(&st->inner, k, op_type, opset, n_inner);
    if (rc != KN_OK)
        fmm_release(k);
    return rc;
}

static int fgemm_prepare(kn_kctx *k) { return prepare_with(k, "Gemm", 13, 3); }

static int fgemm_run(kn_kctx *k)
{
    fmm_state *st = k->state;
    int rc = kn_inner_run(&st->inner, k);
    if (rc == KN_OK)
        kn_fused_act(k->threads, k->out[0]->data, kn_tensor_numel(k->out[0]), &st->act);
    return rc;
}

static int fmatmul_prepare(kn_kctx *k)
{
    const kn_tensor *b = k->n_in > 1 ? k->in[1] : NULL, *bias = k->n_in > 2 ? k->in[2] : NULL;
    if (!b || b->rank < 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "FusedMatMul: B must be at least 2-D");
    if (bias && (bias->dtype != KN_FLOAT || bias->rank != 1 ||
                 bias->dims[0] != b->dims[b->rank - 1]))
        return kn_fail(k->err, KN_ERR_SHAPE, "FusedMatMul: bias must be 1-D float of %lld "
                       "(B's last dimension)", (long long)b->dims[b->rank - 1]);
    return prepare_with(k, "MatMul", 13, 2);
}

static int fmatmul_run(kn_kctx *k)
{
    fmm_state *st = k->state;
    int rc = kn_inner_run(&st->inner, k);
    const kn_tensor *y = k->out[0], *bias = k->n_in > 2 ? k->in[2] : NULL;
    int64_t cols = y->rank ? y->dims[y->rank - 1] : 1;
    if (rc == KN_OK && cols > 0)
        kn_fused_bias_act_rows(k->threads, y->data, kn_tensor_numel(y) / cols, cols,
                               bias ? bias->data : NULL, &st->act);
    return rc;
}

const kn_op_def kn_op_kiln_FusedGemm = {
    .domain = "kiln", .op_type = "FusedGemm", .since_version = 1, .dtypes = KN_BIT(KN_FLOAT),
    .prepare = fgemm_prepare, .run = fgemm_run, .release = fmm_release
};
const kn_op_def kn_op_kiln_FusedMatMul = {
    .domain = "kiln", .op_type = "FusedMatMul", .since_version = 1, .dtypes = KN_BIT(KN_FLOAT),
    .prepare = fmatmul_prepare, .run = fmatmul_run, .release = fmm_release
};
