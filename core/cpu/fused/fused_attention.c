/* kiln.Attention(Q, K, V, mask?): Y = softmax(scale * Q K' + mask) V over
 * the last two dimensions, float.
 *   Q [b..., Sq, D]; K [b..., Sk, D], or [b..., D, Sk] with k_transposed=1;
 *   V [b..., Sk, Dv]; mask (additive, float) broadcasts to [b..., Sq, Sk];
 *   batch dimensions b... broadcast numpy-style; Y [b..., Sq, Dv].
 * Attributes: scale (float, default 1), k_transposed (int, default 0).
 * Works on blocks of query rows: the scores of one block (rows x Sk) live
 * in a per-thread scratch slot, never the whole score tensor. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/kernel/op.h"
#include "core/simd/kernels.h"
#include "core/simd/gemm.h"

enum { ATT_SCRATCH_FLOATS = 16384, ATT_OPERANDS = 5 }; /* Q K V mask Y */

typedef struct att_state {
    int32_t nb;                                   /* batch dims */
    int64_t bdims[KN_MAX_RANK];
    int64_t bstride[ATT_OPERANDS][KN_MAX_RANK];   /* elements per batch step, 0: broadcast */
    int64_t mstride_q, mstride_k;                 /* mask strides over Sq, Sk */
    int64_t sq, sk, d, dv, nbatch, rows;          /* rows: query rows per block */
    float scale;
    int k_transposed, has_mask;
    int32_t slots;
    size_t slot_bytes, ws_bytes;
} att_state;

static void att_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* Strides of t's leading dims against the batch shape (numpy alignment). */
static void batch_strides(const kn_tensor *t, int32_t tail, const att_state *st, int64_t *out)
{
    int32_t lead = t->rank - tail;
    int64_t stride = 1;
    for (int32_t d = t->rank - 1; d >= lead; d--)
        stride *= t->dims[d];
    for (int32_t d = st->nb - 1; d >= 0; d--) {
        int32_t td = d - (st->nb - lead);
        int64_t dim = td >= 0 ? t->dims[td] : 1;
        out[d] = dim == 1 ? 0 : stride;
        stride *= dim;
    }
}

static int att_shapes(kn_kctx *k, att_state *st)
{
    const kn_tensor *q = k->in[0], *kk = k->in[1], *v = k->in[2];
    const kn_tensor *m = k->n_in > 3 ? k->in[3] : NULL;
    if (!q || !kk || !v)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Attention: Q, K and V are required");
    if (q->dtype != KN_FLOAT || kk->dtype != KN_FLOAT || v->dtype != KN_FLOAT ||
        (m && m->dtype != KN_FLOAT))
        return kn_fail(k->err, KN_ERR_DTYPE, "Attention: Q, K, V and mask must be float");
    if (q->rank < 2 || kk->rank < 2 || v->rank < 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "Attention: Q, K and V must be at least 2-D");
    st->k_transposed = kn_attr_int(k->node, "k_transposed", 0) != 0;
    st->scale = kn_attr_float(k->node, "scale", 1.0f);
    st->sq = q->dims[q->rank - 2];
    st->d = q->dims[q->rank - 1];
    int64_t kd = kk->dims[kk->rank - (st->k_transposed ? 2 : 1)];
    st->sk = kk->dims[kk->rank - (st->k_transposed ? 1 : 2)];
    st->dv = v->dims[v->rank - 1];
    if (kd != st->d || v->dims[v->rank - 2] != st->sk)
        return kn_fail(k->err, KN_ERR_SHAPE, "Attention: Q's depth %lld, K's %lld, K's length "
                       "%lld and V's %lld do not agree", (long long)st->d, (long long)kd,
                       (long long)st->sk, (long long)v->dims[v->rank - 2]);
    /* Batch shape: numpy broadcast of the leading dims. */
    const kn_tensor *ops[3] = {q, kk, v};
    st->nb = 0;
    for (int i = 0; i < 3; i++)
        if (ops[i]->rank - 2 > st->nb)
            st->nb = ops[i]->rank - 2;
    if (m && m->rank > st->nb + 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "Attention: mask has rank %d, above the scores' %d",
                       (int)m->rank, (int)st->nb + 2);
    st->nbatch = 1;
    for (int32_t d = 0; d < st->nb; d++) {
        int64_t dim = 1;
        for (int i = 0; i < 3; i++) {
            int32_t td = d - (st->nb - (ops[i]->rank - 2));
            int64_t od = td >= 0 ? ops[i]->dims[td] : 1;
            if (od != 1 && dim != 1 && od != dim)
                return kn_fail(k->err, KN_ERR_SHAPE, "Attention: batch dimensions of Q, K and V "
                               "do not broadcast");
            if (od != 1)
                dim = od;
        }
        st->bdims[d] = dim;
        st->nbatch *= dim;
    }
    for (int i = 0; i < 3; i++)
        batch_strides(ops[i], 2, st, st->bstride[i]);
    if (m) {
        st->has_mask = 1;
        int64_t mq = m->rank >= 2 ? m->dims[m->rank - 2] : 1, mk = m->dims[m->rank - 1];
        if ((mq != 1 && mq != st->sq) || (mk != 1 && mk != st->sk))
            return kn_fail(k->err, KN_ERR_SHAPE, "Attention: mask does not broadcast to the "
                           "scores' %lld x %lld", (long long)st->sq, (long long)st->sk);
        st->mstride_k = mk == 1 ? 0 : 1;
        st->mstride_q = mq == 1 ? 0 : mk;
        kn_tensor mt = *m;
        if (m->rank < 2) { /* a 1-D mask is a row: give it its Sq dim of 1 */
            mt.rank = 2;
            mt.dims[0] = 1;
            mt.dims[1] = m->dims[0];
        }
        batch_strides(&mt, 2, st, st->bstride[3]);
        for (int32_t d = 0; d < st->nb; d++) {
            int32_t td = d - (st->nb - (mt.rank - 2));
            if (td >= 0 && mt.dims[td] != 1 && mt.dims[td] != st->bdims[d])
                return kn_fail(k->err, KN_ERR_SHAPE, "Attention: mask batch dims do not "
                               "broadcast");
        }
    }
    return KN_OK;
}

static int att_prepare(kn_kctx *k)
{
    att_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Attention: out of memory");
    k->state = st;
    int rc = att_shapes(k, st);
    if (rc != KN_OK) {
        att_release(k);
        return rc;
    }
    kn_tensor *y = k->out[0];
    y->dtype = KN_FLOAT;
    y->rank = st->nb + 2;
    memcpy(y->dims, st->bdims, sizeof(int64_t) * (size_t)st->nb);
    y->dims[st->nb] = st->sq;
    y->dims[st->nb + 1] = st->dv;
    /* Output strides are dense. */
    int64_t stride = st->sq * st->dv;
    for (int32_t d = st->nb - 1; d >= 0; d--) {
        st->bstride[4][d] = stride;
        stride *= st->bdims[d];
    }
    int64_t sk = st->sk > 0 ? st->sk : 1;
    st->rows = ATT_SCRATCH_FLOATS / sk;
    if (st->rows < 4)
        st->rows = 4;
    if (st->rows > st->sq)
        st->rows = st->sq > 0 ? st->sq : 1;
    size_t ws1 = kn_sgemm_workspace_size(st->rows, st->sk, st->d, 1);
    size_t ws2 = kn_sgemm_workspace_size(st->rows, st->dv, st->sk, 1);
    st->ws_bytes = ws1 > ws2 ? ws1 : ws2;
    size_t scores = kn_align_up((size_t)(st->rows * sk) * sizeof(float), 64);
    st->slot_bytes = scores + kn_align_up(st->ws_bytes, 64);
    st->slots = kn_threadpool_threads(k->threads);
    k->scratch_bytes = st->slot_bytes * (size_t)st->slots;
    return KN_OK;
}

typedef struct att_job {
    const att_state *st;
    const float *q, *k, *v, *m;
    float *y;
    char *scratch;
    atomic_int_fast64_t next;
    int64_t items, blocks;
} att_job;

static int64_t offset(const att_state *st, int op, int64_t b)
{
    int64_t off = 0;
    for (int32_t d = st->nb - 1; d >= 0; d--) {
        off += (b % st->bdims[d]) * st->bstride[op][d];
        b /= st->bdims[d];
    }
    return off;
}

static void att_block(const att_job *j, int64_t item, char *slot)
{
    const att_state *st = j->st;
    int64_t b = item / j->blocks, r0 = (item % j->blocks) * st->rows;
    int64_t rows = st->sq - r0 < st->rows ? st->sq - r0 : st->rows;
    float *s = (float *)slot;
    void *ws = slot + (st->slot_bytes - kn_align_up(st->ws_bytes, 64));
    kn_sgemm_args g1 = {.trans_b = !st->k_transposed, .m = rows, .n = st->sk, .k = st->d,
                        .alpha = st->scale, .a = j->q + offset(st, 0, b) + r0 * st->d,
                        .lda = st->d, .b = j->k + offset(st, 1, b),
                        .ldb = st->k_transposed ? st->sk : st->d, .c = s, .ldc = st->sk};
    kn_sgemm(NULL, &g1, ws, st->ws_bytes);
    const kn_simd_kernels *simd = kn_simd();
    const float *mrow = st->has_mask ? j->m + offset(st, 3, b) + r0 * st->mstride_q : NULL;
    for (int64_t r = 0; r < rows; r++) {
        float *row = s + r * st->sk;
        if (mrow)
            simd->binary(KN_BIN_ADD, row, row, 1, mrow + r * st->mstride_q, st->mstride_k, st->sk);
        simd->softmax_row(row, row, st->sk, 0);
    }
    kn_sgemm_args g2 = {.m = rows, .n = st->dv, .k = st->sk, .alpha = 1.0f, .a = s,
                        .lda = st->sk, .b = j->v + offset(st, 2, b), .ldb = st->dv,
                        .c = j->y + offset(st, 4, b) + r0 * st->dv, .ldc = st->dv};
    kn_sgemm(NULL, &g2, ws, st->ws_bytes);
}

static void att_task(void *ctx, int64_t begin, int64_t end)
{
    att_job *j = ctx;
    for (int64_t slot = begin; slot < end; slot++) {
        char *mem = j->scratch + (size_t)slot * j->st->slot_bytes;
        int64_t item;
        while ((item = atomic_fetch_add(&j->next, 1)) < j->items)
            att_block(j, item, mem);
    }
}

static int att_run(kn_kctx *k)
{
    const att_state *st = k->state;
    kn_tensor *y = k->out[0];
    if (kn_tensor_numel(y) == 0)
        return KN_OK;
    if (st->sk == 0) { /* softmax over nothing: no weights, zero output */
        memset(y->data, 0, (size_t)kn_tensor_nbytes(y));
        return KN_OK;
    }
    att_job j = {.st = st, .q = k->in[0]->data, .k = k->in[1]->data, .v = k->in[2]->data,
                 .m = st->has_mask ? k->in[3]->data : NULL, .y = y->data,
                 .scratch = k->scratch};
    j.blocks = (st->sq + st->rows - 1) / st->rows;
    j.items = st->nbatch * j.blocks;
    atomic_init(&j.next, 0);
    int64_t slots = st->slots < j.items ? st->slots : j.items;
    kn_parallel_for(k->threads, slots, 1, att_task, &j);
    return KN_OK;
}

const kn_op_def kn_op_kiln_Attention = {
    .domain = "kiln", .op_type = "Attention", .since_version = 1, .dtypes = KN_BIT(KN_FLOAT),
    .prepare = att_prepare, .run = att_run, .release = att_release
};
