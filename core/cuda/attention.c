/* kiln.Attention(Q, K, V, mask?) = softmax(scale * Q K' + mask) V on the
 * GPU (the semantics are core/cpu/fused/fused_attention.c's): the scores
 * of all batches as one strided-batch cuBLASLt product with the scale as
 * its alpha, the mask added and each row normalised in one pass
 * (rows.cu), and the second strided-batch product into Y. The scores
 * (batch x Sq x Sk floats) live in the kernel's scratch, with room after
 * them for the larger of the two products' workspaces.
 * Q, K and V must have equal batch dims (the optimizer's attention from
 * BERT-style encoders has); other broadcasts are declined. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda/cuda_gemm.h"
#include "core/cuda/cuda_kernels.h"

typedef struct att_state {
    kn_cuda_gemm *scores, *mix;
    kn_cudaKernel softmax;
    kn_cuda_walk mask_walk;
    int64_t rows, sk;
    size_t scores_bytes;
} att_state;

static void att_release(kn_kctx *k)
{
    att_state *st = k->state;
    if (st) {
        kn_cuda_gemm_free(k, st->scores);
        kn_cuda_gemm_free(k, st->mix);
    }
    free(st);
    k->state = NULL;
}

static int is_float(const kn_tensor *t) { return t && t->dtype == KN_FLOAT; }

static int att_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    if (k->n_in < 3)
        return KN_ERR_DECLINE;
    const kn_tensor *q = k->in[0], *kk = k->in[1], *v = k->in[2];
    const kn_tensor *mask = k->n_in > 3 ? k->in[3] : NULL;
    if (!is_float(q) || !is_float(kk) || !is_float(v) || (mask && !is_float(mask)) || q->rank < 2 ||
        kk->rank != q->rank || v->rank != q->rank ||
        !kn_shape_equal(q->dims, q->rank - 2, kk->dims, kk->rank - 2) ||
        !kn_shape_equal(q->dims, q->rank - 2, v->dims, v->rank - 2))
        return KN_ERR_DECLINE;
    int k_transposed = kn_attr_int(k->node, "k_transposed", 0) != 0;
    float scale = kn_attr_float(k->node, "scale", 1.0f);
    int64_t sq = q->dims[q->rank - 2], d = q->dims[q->rank - 1];
    int64_t kd = kk->dims[kk->rank - (k_transposed ? 2 : 1)];
    int64_t sk = kk->dims[kk->rank - (k_transposed ? 1 : 2)];
    int64_t vs = v->dims[v->rank - 2], dv = v->dims[v->rank - 1];
    if (kd != d || vs != sk)
        return KN_ERR_DECLINE; /* malformed: the CPU kernel names the problem */
    int64_t batch = 1;
    for (int32_t i = 0; i + 2 < q->rank; i++)
        batch *= q->dims[i];

    /* the scores' shape [b..., Sq, Sk], which the mask must broadcast to */
    kn_tensor scores_shape = *q;
    scores_shape.dims[q->rank - 1] = sk;
    if (mask) {
        kn_tensor both;
        kn_err ignored = {0};
        if (mask->rank > scores_shape.rank ||
            kn_broadcast_shape(&scores_shape, mask, &both, &ignored) != KN_OK ||
            !kn_cuda_same_shape(&both, &scores_shape))
            return KN_ERR_DECLINE;
    }

    att_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Attention: out of memory");
    k->state = st;
    st->rows = batch * sq;
    st->sk = sk;
    if (mask)
        kn_cuda_walk_binary(&st->mask_walk, &scores_shape, &scores_shape, mask);
    st->softmax = kn_cuda_kernel(kn_cuda_dev(k), "rows", "kn_masked_softmax_rows_f32", k->err);
    int rc = st->softmax ? KN_OK : k->err->code;
    /* S = scale * Q K': K is [Sk, D] (trans_b) or already [D, Sk] */
    kn_cuda_gemm_shape s1 = {.m = sq,
                             .n = sk,
                             .k = d,
                             .batch = batch,
                             .stride_a = sq * d,
                             .stride_b = sk * d,
                             .trans_b = !k_transposed};
    kn_cuda_gemm_shape s2 = {
        .m = sq, .n = dv, .k = sk, .batch = batch, .stride_a = sq * sk, .stride_b = sk * dv};
    if (rc == KN_OK)
        st->scores = kn_cuda_gemm_plan(k, &s1, scale, &rc);
    if (rc == KN_OK)
        st->mix = kn_cuda_gemm_plan(k, &s2, 1.0f, &rc);
    if (rc != KN_OK) {
        att_release(k);
        return rc;
    }
    size_t ws1 = kn_cuda_gemm_workspace(st->scores), ws2 = kn_cuda_gemm_workspace(st->mix);
    st->scores_bytes = ((size_t)(batch * sq * sk) * sizeof(float) + 255) & ~(size_t)255;
    k->scratch_bytes = st->scores_bytes + (ws1 > ws2 ? ws1 : ws2);

    kn_tensor *y = k->out[0];
    *y = (kn_tensor){.dtype = KN_FLOAT, .rank = q->rank};
    memcpy(y->dims, q->dims, sizeof(int64_t) * (size_t)q->rank);
    y->dims[q->rank - 1] = dv;
    return KN_OK;
}

static int att_run(kn_kctx *k)
{
    att_state *st = k->state;
    if (kn_tensor_numel(k->out[0]) == 0)
        return KN_OK;
    float *scores = k->scratch;
    char *workspace = (char *)k->scratch + st->scores_bytes;
    const void *mask = k->n_in > 3 && k->in[3] ? k->in[3]->data : NULL;
    int rc = kn_cuda_gemm_run(k, st->scores, k->in[0]->data, k->in[1]->data, scores, workspace);
    if (rc == KN_OK && st->sk > 0) {
        if (st->rows > 0x7fffffff)
            return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Attention: %lld query rows in one launch",
                           (long long)st->rows);
        kn_dim3 grid = {(unsigned)st->rows, 1, 1}, block = {256, 1, 1};
        void *args[] = {&scores, &mask, &st->sk, &st->mask_walk};
        rc = kn_cuda_launch(k, st->softmax, grid, block, 0, args);
    }
    if (rc == KN_OK)
        rc = kn_cuda_gemm_run(k, st->mix, scores, k->in[2]->data, k->out[0]->data, workspace);
    return rc;
}

const kn_op_def kn_cuda_kiln_Attention = {.domain = "kiln",
                                          .op_type = "Attention",
                                          .since_version = 1,
                                          .dtypes = KN_BIT(KN_FLOAT),
                                          .prepare = att_prepare,
                                          .run = att_run,
                                          .release = att_release};
