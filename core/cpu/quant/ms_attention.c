/* QAttention (com.microsoft 1): the multi-head self-attention of BERT-like
 * models after ONNX Runtime's dynamic quantization, in float after one
 * 8-bit projection:
 *
 *   inputs: input [B, S, D] (8-bit), weight [D, 3H] (8-bit), bias [3H],
 *           input_scale, weight_scale, mask_index?, input_zero_point?,
 *           weight_zero_point?, past? [2, B, N, P, H/N]
 *           (the weight's scale and zero point per tensor or per column)
 *   QKV  = (input - izp)(weight - wzp) input_scale weight_scale + bias
 *   per head: softmax(scale Q K' + mask) V, heads side by side: [B, S, H]
 *   present (output 1) = [past K; K] and [past V; V]: [2, B, N, P + S, H/N]
 *
 * as ONNX Runtime's attention does it: scale is attribute `scale`, or
 * 1 / sqrt(H / N); mask_index is the end of each row's keys ([B]), ends
 * and starts ([2B]), or a 0/1 mask per key ([B, P + S]) or per query and
 * key ([B, S, P + S]), and masked keys get mask_filter_value (default
 * -10000) added to their score; unidirectional = 1 leaves out keys after
 * the query (P + i).
 *
 * The projection is quant_mm's exact int32 product (quant_common.h); the
 * attention runs on the shared float GEMM. Heads are the unit of parallel
 * work; each thread keeps a head's keys and values and a block of scores
 * (64 KiB, whatever the sequence length) in its own scratch slot. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/cpu/quant/ms_quant.h"
#include "core/kernel/tensor_common.h"
#include "core/simd/gemm.h"
#include "core/simd/kernels.h"

enum { ATT_SCORE_FLOATS = 16384 };
enum { IN_X, IN_W, IN_BIAS, IN_XS, IN_WS, IN_MASK, IN_XZP, IN_WZP, IN_PAST };
enum { MASK_NONE, MASK_END, MASK_END_START, MASK_KEYS, MASK_QUERY_KEYS };

typedef struct qatt_state {
    quant_mm mm;
    int64_t b, s, d, h, heads, hd, past, t; /* t = past + s keys */
    int mask_kind, unidirectional;
    float scale, filter;
    int64_t rows;                           /* query rows per block of scores */
    int32_t slots;
    size_t mm_bytes, qkv_bytes;             /* scratch: quant_mm's, QKV, then slots of: */
    size_t kv_bytes, scores_bytes, ws_bytes, slot_bytes; /* K and V of a head, scores, GEMM */
} qatt_state;

static void qatt_release(kn_kctx *k)
{
    qatt_state *s = k->state;
    if (s)
        quant_mm_release(&s->mm);
    free(s);
    k->state = NULL;
}

static int check_mask(kn_kctx *k, qatt_state *s, const kn_tensor *m)
{
    char sm[128];
    kn_shape_format(m->dims, m->rank, sm, sizeof sm);
    if (m->dtype != KN_INT32)
        return kn_fail(k->err, KN_ERR_DTYPE, "QAttention: mask_index must be int32, not %s",
                       kn_dtype_name(m->dtype));
    if (m->rank == 1 && (m->dims[0] == s->b || m->dims[0] == 2 * s->b))
        s->mask_kind = m->dims[0] == s->b ? MASK_END : MASK_END_START;
    else if (m->rank == 2 && m->dims[0] == s->b && m->dims[1] == s->t)
        s->mask_kind = MASK_KEYS;
    else if (m->rank == 3 && m->dims[0] == s->b && m->dims[1] == s->s && m->dims[2] == s->t)
        s->mask_kind = MASK_QUERY_KEYS;
    else
        return kn_fail(k->err, KN_ERR_UNSUPPORTED,
                       "QAttention: mask_index of shape %s is not supported; expected %lld "
                       "(ends), %lld (ends and starts), %lldx%lld (0/1 per key) or %lldx%lldx%lld "
                       "(0/1 per query and key)", sm, (long long)s->b, (long long)(2 * s->b),
                       (long long)s->b, (long long)s->t, (long long)s->b, (long long)s->s,
                       (long long)s->t);
    return KN_OK;
}

static int qatt_prepare(kn_kctx *k)
{
    const char *op = "QAttention";
    if (ms_require(k, 1u << IN_X | 1u << IN_W | 1u << IN_BIAS | 1u << IN_XS | 1u << IN_WS,
                   "input, weight, bias, input_scale and weight_scale") != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[IN_X], *w = k->in[IN_W], *bias = k->in[IN_BIAS];
    const kn_tensor *mask = kn_input(k, IN_MASK), *past = kn_input(k, IN_PAST);
    int rc = ms_check_q8(k, "input", x);
    if (rc == KN_OK)
        rc = ms_check_q8(k, "weight", w);
    if (rc != KN_OK)
        return rc;
    int64_t heads = kn_attr_int(k->node, "num_heads", 0);
    if (heads < 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: attribute num_heads (>= 1) is required",
                       op);
    if (x->rank != 3 || w->rank != 2 || w->dims[0] != x->dims[2] || w->dims[1] % 3 != 0 ||
        (w->dims[1] / 3) % heads != 0) {
        char sx[128], sw[128];
        kn_shape_format(x->dims, x->rank, sx, sizeof sx);
        kn_shape_format(w->dims, w->rank, sw, sizeof sw);
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: expected input [B, S, D] and weight [D, 3 H] "
                       "with H a multiple of num_heads %lld, got %s and %s", op, (long long)heads,
                       sx, sw);
    }
    qatt_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    s->b = x->dims[0];
    s->s = x->dims[1];
    s->d = x->dims[2];
    s->h = w->dims[1] / 3;
    s->heads = heads;
    s->hd = s->h / heads;
    if (bias->dtype != KN_FLOAT || bias->rank != 1 || bias->dims[0] != 3 * s->h)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: bias must be float of %lld (3 H)", op,
                       (long long)(3 * s->h));
    if (past) {
        if (past->dtype != KN_FLOAT || past->rank != 5 || past->dims[0] != 2 ||
            past->dims[1] != s->b || past->dims[2] != heads || past->dims[4] != s->hd)
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: past must be float 2x%lldx%lldxPx%lld "
                           "(K and V, batch, heads, past tokens, head size)", op, (long long)s->b,
                           (long long)heads, (long long)s->hd);
        s->past = past->dims[3];
    }
    s->t = s->past + s->s;
    if (mask && (rc = check_mask(k, s, mask)) != KN_OK)
        return rc;
    s->unidirectional = kn_attr_int(k->node, "unidirectional", 0) != 0;
    s->filter = kn_attr_float(k->node, "mask_filter_value", -10000.0f);
    float scale = kn_attr_float(k->node, "scale", 0.0f);
    s->scale = scale != 0.0f ? scale : 1.0f / sqrtf((float)s->hd);

    /* the projection: input as [B S, D] times weight [D, 3H] */
    kn_tensor x_view = {.dtype = x->dtype, .rank = 2, .dims = {s->b * s->s, s->d}};
    kn_tensor qkv_desc = {0};
    rc = quant_mm_prepare(k, &s->mm, &x_view, w, kn_input(k, IN_XZP), kn_input(k, IN_WZP),
                          &qkv_desc);
    if (rc == KN_OK)
        rc = ms_check_scalar_pair(k, "input", k->in[IN_XS], kn_input(k, IN_XZP), x->dtype);
    /* per tensor or per column, each on its own (a per-column scale with
     * one zero point is common) */
    if (rc == KN_OK)
        rc = quant_check_pair(k, "weight", k->in[IN_WS], NULL, w->dtype, 3 * s->h);
    if (rc == KN_OK)
        rc = quant_check_pair(k, "weight", NULL, kn_input(k, IN_WZP), w->dtype, 3 * s->h);
    if (rc != KN_OK)
        return rc;

    kn_tensor *y = k->out[0], *present = kn_output(k, 1);
    y->dtype = KN_FLOAT;
    y->rank = 3;
    y->dims[0] = s->b;
    y->dims[1] = s->s;
    y->dims[2] = s->h;
    if (present) {
        present->dtype = KN_FLOAT;
        present->rank = 5;
        int64_t pd[5] = {2, s->b, heads, s->t, s->hd};
        memcpy(present->dims, pd, sizeof pd);
    }
    s->mm_bytes = kn_align_up(quant_mm_scratch(&s->mm), 64);
    s->qkv_bytes = kn_align_up((size_t)(s->b * s->s * 3 * s->h) * sizeof(float), 64);
    /* a block of query rows whose scores fit in 64 KiB */
    s->rows = ATT_SCORE_FLOATS / (s->t > 0 ? s->t : 1);
    s->rows = s->rows < 1 ? 1 : s->rows > s->s ? s->s : s->rows;
    s->kv_bytes = kn_align_up((size_t)(s->t * s->hd) * sizeof(float), 64);
    s->scores_bytes = kn_align_up((size_t)(s->rows * s->t) * sizeof(float), 64);
    size_t ws_qk = kn_sgemm_workspace_size(s->rows, s->t, s->hd, 1);
    size_t ws_pv = kn_sgemm_workspace_size(s->rows, s->hd, s->t, 1);
    s->ws_bytes = kn_align_up(ws_qk > ws_pv ? ws_qk : ws_pv, 64);
    s->slot_bytes = 2 * s->kv_bytes + s->scores_bytes + s->ws_bytes;
    /* the first slot also holds the 3H column scales before the heads run */
    size_t cols_bytes = kn_align_up((size_t)(3 * s->h) * sizeof(float), 64);
    s->slot_bytes = s->slot_bytes > cols_bytes ? s->slot_bytes : cols_bytes;
    s->slots = kn_threadpool_threads(k->threads);
    k->scratch_bytes = s->mm_bytes + s->qkv_bytes + s->slot_bytes * (size_t)s->slots;
    return KN_OK;
}

typedef struct qatt_job {
    const qatt_state *s;
    const float *qkv;         /* [B S, 3H]: Q, K, V column blocks */
    const float *past;        /* or NULL */
    const int32_t *mask;      /* or NULL */
    float *y, *present;       /* present may be NULL */
    char *slots;
    atomic_int_fast64_t next; /* next (batch, head) to take */
} qatt_job;

/* Key j of head (b, n): from past (j < P) or this step's K / V (which = 0 / 1). */
static const float *key_row(const qatt_job *j, int which, int64_t b, int64_t n, int64_t key)
{
    const qatt_state *s = j->s;
    if (key < s->past)
        return j->past + (((which * s->b + b) * s->heads + n) * s->past + key) * s->hd;
    int64_t row = b * s->s + key - s->past;
    return j->qkv + row * 3 * s->h + (1 + which) * s->h + n * s->hd;
}

/* The additive mask of query i, key t of batch b; -INFINITY leaves the key out. */
static float mask_value(const qatt_job *j, int64_t b, int64_t i, int64_t t)
{
    const qatt_state *s = j->s;
    if (s->unidirectional && t > s->past + i)
        return -INFINITY;
    switch (s->mask_kind) {
    case MASK_END_START: /* keys before the start, and from the end */
        return t < j->mask[s->b + b] || t >= j->mask[b] ? s->filter : 0.0f;
    case MASK_END:
        return t >= j->mask[b] ? s->filter : 0.0f;
    case MASK_KEYS:
        return j->mask[b * s->t + t] > 0 ? 0.0f : s->filter;
    case MASK_QUERY_KEYS:
        return j->mask[(b * s->s + i) * s->t + t] > 0 ? 0.0f : s->filter;
    default:
        return 0.0f;
    }
}

/* One head (b, n): its keys and values gathered ([past; this step]),
 * then per block of query rows scores = scale Q K' (GEMM), mask, softmax,
 * Y = P V (GEMM) into the head's columns of Y. */
static void qatt_head(const qatt_job *j, int64_t b, int64_t n, char *slot)
{
    const qatt_state *s = j->s;
    const int64_t hd = s->hd, t_all = s->t, ld = 3 * s->h;
    float *kc = (float *)slot, *vc = (float *)(slot + s->kv_bytes);
    float *scores = (float *)(slot + 2 * s->kv_bytes);
    void *ws = slot + 2 * s->kv_bytes + s->scores_bytes;
    for (int64_t t = 0; t < t_all; t++) {
        memcpy(kc + t * hd, key_row(j, 0, b, n, t), (size_t)hd * sizeof(float));
        memcpy(vc + t * hd, key_row(j, 1, b, n, t), (size_t)hd * sizeof(float));
    }
    if (j->present) /* [2, B, N, T, hd]: keys, then values */
        for (int which = 0; which < 2; which++)
            memcpy(j->present + ((which * s->b + b) * s->heads + n) * t_all * hd,
                   which ? vc : kc, (size_t)(t_all * hd) * sizeof(float));
    for (int64_t i0 = 0; i0 < s->s; i0 += s->rows) {
        int64_t rows = s->s - i0 < s->rows ? s->s - i0 : s->rows;
        kn_sgemm_args qk = {.trans_b = 1, .m = rows, .n = t_all, .k = hd, .alpha = s->scale,
                            .a = j->qkv + (b * s->s + i0) * ld + n * hd, .lda = ld, .b = kc,
                            .ldb = hd, .c = scores, .ldc = t_all};
        kn_sgemm(NULL, &qk, ws, s->ws_bytes);
        for (int64_t r = 0; r < rows; r++) {
            float *row = scores + r * t_all;
            if (s->mask_kind != MASK_NONE || s->unidirectional)
                for (int64_t t = 0; t < t_all; t++)
                    row[t] += mask_value(j, b, i0 + r, t);
            kn_simd()->softmax_row(row, row, t_all, 0); /* a -inf key weighs 0 */
        }
        kn_sgemm_args pv = {.m = rows, .n = hd, .k = t_all, .alpha = 1, .a = scores,
                            .lda = t_all, .b = vc, .ldb = hd,
                            .c = j->y + (b * s->s + i0) * s->h + n * hd, .ldc = s->h};
        kn_sgemm(NULL, &pv, ws, s->ws_bytes);
    }
}

static void qatt_task(void *ctx, int64_t begin, int64_t end)
{
    qatt_job *j = ctx;
    const qatt_state *s = j->s;
    int64_t items = s->b * s->heads, item;
    for (int64_t slot = begin; slot < end; slot++) {
        char *mem = j->slots + (size_t)slot * s->slot_bytes;
        while ((item = atomic_fetch_add(&j->next, 1)) < items)
            qatt_head(j, item / s->heads, item % s->heads, mem);
    }
}

static int qatt_run(kn_kctx *k)
{
    const qatt_state *s = k->state;
    char *sp = k->scratch;
    float *qkv = (float *)(sp + s->mm_bytes);
    int32_t *acc = (int32_t *)qkv; /* converted to float in place */
    quant_mm_run(&s->mm, k->in[IN_X]->data, k->in[IN_W]->data, kn_input(k, IN_XZP),
                 kn_input(k, IN_WZP), acc, k->scratch, k->threads);
    const kn_tensor *ws = k->in[IN_WS];
    const float *bias = k->in[IN_BIAS]->data;
    float xs = ms_scale(k->in[IN_XS]);
    int64_t cols = 3 * s->h, n_ws = kn_tensor_numel(ws);
    /* input_scale weight_scale per column, in the first slot for now */
    float *col_scale = (float *)(sp + s->mm_bytes + s->qkv_bytes);
    for (int64_t c = 0; c < cols; c++)
        col_scale[c] = xs * quant_scale_at(ws, n_ws == 1 ? 0 : c);
    for (int64_t r = 0; r < s->b * s->s; r++)
        for (int64_t c = 0; c < cols; c++)
            qkv[r * cols + c] = (float)acc[r * cols + c] * col_scale[c] + bias[c];
    const kn_tensor *mask = kn_input(k, IN_MASK), *past = kn_input(k, IN_PAST);
    kn_tensor *present = kn_output(k, 1);
    qatt_job j = {.s = s, .qkv = qkv, .past = past ? past->data : NULL,
                  .mask = mask ? mask->data : NULL, .y = k->out[0]->data,
                  .present = present ? present->data : NULL,
                  .slots = sp + s->mm_bytes + s->qkv_bytes};
    atomic_init(&j.next, 0);
    int64_t items = s->b * s->heads, slots = s->slots < items ? s->slots : items;
    if (slots > 0)
        kn_parallel_for(k->threads, slots, 1, qatt_task, &j);
    return KN_OK;
}

const kn_op_def kn_op_QAttention = {
    .domain = QUANT_MS_DOMAIN, .op_type = "QAttention", .since_version = 1,
    .dtypes = QUANT_MASK_Q8, .prepare = qatt_prepare, .run = qatt_run, .release = qatt_release
};
