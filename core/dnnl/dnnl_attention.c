/* kiln.Attention on oneDNN's batched matmul: S = Q K' over all heads at
 * once into scratch, Kiln's softmax over each row of S (the scale applied
 * in the same pass), then Y = S V.
 *
 * Kiln's CPU kernel (core/cpu/fused/fused_attention.c) works on blocks of query
 * rows with its own GEMM, packing K and V for every block; on BERT-base's
 * heads (12 x 128 x 64) it runs at ~73 GFLOP/s on one thread, where
 * oneDNN's brgemm matmuls run at ~110. The scores of all heads live in
 * scratch at once (BERT: 12 x 128 x 128 floats, 786 KB), so this kernel
 * declines above KN_DNNL_ATT_MAX_SCORES and leaves long sequences to the
 * blocked CPU kernel; it also declines masks and batch dims that
 * broadcast, which the CPU kernel serves. */
#include <string.h>

#include "core/base/alloc.h"
#include "core/simd/kernels.h"
#include "core/dnnl/dnnl_common.h"

/* scores bytes beyond which the CPU kernel's blocks keep memory bounded */
#define KN_DNNL_ATT_MAX_SCORES ((int64_t)16 << 20)

typedef struct att_state {
    kn_dnnl_prim qk; /* first: the state is kn_dnnl_prepare's */
    kn_dnnl_prim sv;
    size_t scores_at;
    int64_t rows, sk;
    float scale;
} att_state;

/* Q [b..., Sq, D], K [b..., Sk, D] (or [b..., D, Sk] when k_transposed),
 * V [b..., Sk, Dv], the same b... for all three. */
static int att_dims(kn_kctx *k, int64_t *batch, int64_t *sq, int64_t *d, int64_t *sk,
                    int64_t *dv, int *k_transposed)
{
    const kn_tensor *q = k->in[0], *kk = k->in[1], *v = k->in[2];
    if (!q || !kk || !v || q->dtype != KN_FLOAT || kk->dtype != KN_FLOAT || v->dtype != KN_FLOAT)
        return kn_dnnl_decline(k, "Q, K and V in float32 only");
    if (k->n_in > 3 && k->in[3])
        return kn_dnnl_decline(k, "masks are left to the CPU kernel");
    if (kn_dnnl_too_large(q) || kn_dnnl_too_large(kk) || kn_dnnl_too_large(v))
        return kn_dnnl_decline(k, "inputs too large for oneDNN");
    int32_t r = q->rank;
    if (r < 2 || kk->rank != r || v->rank != r)
        return kn_dnnl_decline(k, "Q, K and V of one rank, at least 2");
    *batch = 1;
    for (int32_t i = 0; i < r - 2; i++) {
        if (kk->dims[i] != q->dims[i] || v->dims[i] != q->dims[i])
            return kn_dnnl_decline(k, "broadcast batch dims are left to the CPU kernel");
        *batch *= q->dims[i];
    }
    *k_transposed = kn_attr_int(k->node, "k_transposed", 0) != 0;
    *sq = q->dims[r - 2];
    *d = q->dims[r - 1];
    *sk = kk->dims[r - (*k_transposed ? 1 : 2)];
    *dv = v->dims[r - 1];
    if (kk->dims[r - (*k_transposed ? 2 : 1)] != *d || v->dims[r - 2] != *sk)
        return kn_dnnl_decline(k, "shapes the CPU kernel reports");
    kn_tensor *y = k->out[0];
    y->dtype = KN_FLOAT;
    y->rank = r;
    memcpy(y->dims, q->dims, sizeof(int64_t) * (size_t)(r - 2));
    y->dims[r - 2] = *sq;
    y->dims[r - 1] = *dv;
    /* in double: a hostile model's dims must not overflow the test */
    double scores = (double)*batch * (double)*sq * (double)*sk;
    if (scores == 0 || *dv == 0 || *d == 0)
        return kn_dnnl_decline(k, "empty");
    if (scores * sizeof(float) > (double)KN_DNNL_ATT_MAX_SCORES)
        return kn_dnnl_decline(k, "scores too large to hold at once");
    if (scores * (double)(*d + *dv) < KN_DNNL_MIN_MACS)
        return kn_dnnl_decline(k, "too small for a oneDNN call");
    return KN_OK;
}

/* One batched product: a [B, m, n_k] x b [B, n_k, n] -> c, each either a
 * kernel input / output (index >= 0) or the scores in scratch (-1).
 * b_transposed: b is stored [B, n, n_k]. Adds the arguments and creates
 * the primitive; *scratchpad gets its scratchpad's size. */
static int product(kn_kctx *k, kn_dnnl_prim *p, const int64_t dims[3][3], int b_transposed,
                   const int32_t index[3], size_t *scratchpad)
{
    static const int args[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    dnnl_memory_desc_t md[3];
    int rc = KN_OK;
    for (int i = 0; i < 3 && rc == KN_OK; i++)
        rc = kn_dnnl_md_plain(&md[i], 3, dims[i], i == 1 && b_transposed, k->err);
    dnnl_matmul_desc_t desc;
    if (rc == KN_OK) {
        dnnl_status_t s = dnnl_matmul_desc_init(&desc, &md[0], &md[1], NULL, &md[2]);
        if (s != dnnl_success)
            rc = kn_dnnl_fail(k->err, s, "matmul descriptor");
    }
    dnnl_primitive_desc_t pd = NULL;
    if (rc == KN_OK)
        rc = kn_dnnl_pd_create(&desc, NULL, 0, NULL, p, &pd, k->err);
    for (int i = 0; i < 3 && rc == KN_OK; i++)
        rc = index[i] < 0 ? kn_dnnl_add_scratch_arg(p, args[i], 0, &md[i], k->err)
                          : kn_dnnl_add_arg(p, args[i], i == 2 ? KN_DNNL_BIND_OUTPUT
                                                               : KN_DNNL_BIND_INPUT,
                                            index[i], &md[i], k->err);
    if (rc != KN_OK) {
        if (pd)
            dnnl_primitive_desc_destroy(pd);
        return rc;
    }
    k->scratch_bytes = 0;
    rc = kn_dnnl_finish(p, pd, k);
    *scratchpad = k->scratch_bytes;
    return rc;
}

static int att_build(kn_kctx *k, kn_dnnl_prim *p, int a, int b)
{
    (void)a;
    (void)b;
    att_state *st = (att_state *)p;
    int64_t batch = 0, sq = 0, d = 0, sk = 0, dv = 0;
    int kt = 0;
    int rc = att_dims(k, &batch, &sq, &d, &sk, &dv, &kt);
    if (rc != KN_OK)
        return rc;
    st->rows = batch * sq;
    st->sk = sk;
    st->scale = kn_attr_float(k->node, "scale", 1.0f);
    rc = kn_dnnl_prim_init(&st->sv, k);
    if (rc != KN_OK) {
        kn_dnnl_prim_destroy(&st->sv);
        return rc;
    }
    /* S [B, Sq, Sk] = Q [B, Sq, D] x K' [B, D, Sk]; K' is K read
     * transposed unless K arrives transposed */
    const int64_t qk_dims[3][3] = {{batch, sq, d}, {batch, d, sk}, {batch, sq, sk}};
    const int64_t sv_dims[3][3] = {{batch, sq, sk}, {batch, sk, dv}, {batch, sq, dv}};
    size_t pad_qk = 0, pad_sv = 0;
    rc = product(k, &st->qk, qk_dims, !kt, (const int32_t[3]){0, 1, -1}, &pad_qk);
    if (rc == KN_OK)
        rc = product(k, &st->sv, sv_dims, 0, (const int32_t[3]){-1, 2, 0}, &pad_sv);
    if (rc != KN_OK) { /* kn_dnnl_prepare releases qk only */
        kn_dnnl_prim_destroy(&st->sv);
        return rc;
    }
    /* both scratchpads at 0 (the products run one after the other), the
     * scores after the larger */
    st->scores_at = kn_align_up(pad_qk > pad_sv ? pad_qk : pad_sv, 64);
    kn_dnnl_set_scratch_offset(&st->qk, DNNL_ARG_DST, st->scores_at);
    kn_dnnl_set_scratch_offset(&st->sv, DNNL_ARG_SRC, st->scores_at);
    k->scratch_bytes = st->scores_at + (size_t)(st->rows * sk) * sizeof(float);
    return KN_OK;
}

static int att_prepare(kn_kctx *k)
{
    if (k->n_in < 3)
        return kn_dnnl_decline(k, "Q, K and V are required");
    return kn_dnnl_prepare(k, sizeof(att_state), att_build, 0, 0);
}

typedef struct softmax_job {
    float *s;
    int64_t sk;
    float scale;
} softmax_job;

static void softmax_rows(void *ctx, int64_t begin, int64_t end)
{
    const softmax_job *j = ctx;
    const kn_simd_kernels *simd = kn_simd();
    for (int64_t r = begin; r < end; r++) {
        float *row = j->s + r * j->sk;
        if (j->scale != 1.0f)
            simd->binary(KN_BIN_MUL, row, row, 1, &j->scale, 0, j->sk);
        simd->softmax_row(row, row, j->sk, 0);
    }
}

static int att_run(kn_kctx *k)
{
    att_state *st = k->state;
    int rc = kn_dnnl_execute(&st->qk, k);
    if (rc != KN_OK)
        return rc;
    softmax_job j = {(float *)((char *)k->scratch + st->scores_at), st->sk, st->scale};
    kn_parallel_for(k->threads, st->rows, 1 + 4096 / st->sk, softmax_rows, &j);
    return kn_dnnl_execute(&st->sv, k);
}

static void att_release(kn_kctx *k)
{
    att_state *st = k->state;
    if (st)
        kn_dnnl_prim_destroy(&st->sv);
    kn_dnnl_release(k);
}

const kn_op_def kn_dnnl_attention = {
    .domain = "kiln", .op_type = "Attention", .since_version = 1, .dtypes = KN_BIT(KN_FLOAT),
    .prepare = att_prepare, .run = att_run, .release = att_release
};
