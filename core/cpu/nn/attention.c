/* Attention (opsets 23 and 24): scaled dot-product attention over 4-D
 * (batch, heads, seq, head_size) or 3-D (batch, seq, heads * head_size)
 * Q/K/V, with grouped-query heads, a KV cache (past_key/past_value in,
 * present_key/present_value out), a boolean or additive mask, causal
 * masking, softcap, and the optional qk_matmul_output.
 *
 * One (batch, query head) at a time: its scores S = Q K^T come from kn_gemm
 * straight out of the inputs (3-D layouts are just a leading dimension of
 * heads * head_size; past and new keys are two column blocks of S, so the
 * cache is never concatenated in scratch), then each row gets softcap, the
 * bias (mask + causal + padding) and a softmax, and Y = P V is two more
 * products. float16/bfloat16 inputs are widened to float in scratch and the
 * values are rounded back to the input type wherever ONNX's function body
 * rounds them (scaled Q and K, QK^T, the biased scores, the
 * probabilities), so results track the reference closely.
 *
 * Semantics follow the opset-24 function body: softcap is applied before
 * the bias (so -inf stays -inf), qk_matmul_output_mode 0/1/2/3 = raw QK^T,
 * after softcap, after softcap + bias, after softmax; a row whose bias is
 * -inf everywhere yields zero probabilities instead of NaN. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/simd/gemm.h"
#include "core/kernel/tensor_common.h"

enum { IN_Q, IN_K, IN_V, IN_MASK, IN_PAST_K, IN_PAST_V, IN_NONPAD };
enum { OUT_Y, OUT_PRESENT_K, OUT_PRESENT_V, OUT_QK };

typedef struct attn_state {
    int32_t dtype;            /* of Q, K, V, Y */
    int32_t work;             /* KN_FLOAT or KN_DOUBLE: what the products run in */
    int half;                 /* dtype is float16/bfloat16: widened in scratch */
    int32_t smax_dtype;       /* softmax_precision (probabilities rounded to it) */
    int64_t b, hq, hkv, sq, skv, sp, st, d, dv;
    double alpha;             /* scale applied by the QK^T product */
    float sqrt_scale;         /* half inputs: Q and K are pre-multiplied by it */
    double softcap;
    int causal, mode, qk_out;
    /* element strides of each operand: per batch, per head, per row */
    int64_t q_b, q_h, q_r, k_b, k_h, k_r, v_b, v_h, v_r, y_b, y_h, y_r;
    /* mask: strides per batch/head/row (0 = broadcast), column step (0 or
     * 1), columns present (beyond them the bias is -inf) */
    int has_mask, mask_bool;
    int32_t mask_dtype;
    int64_t m_b, m_h, m_r, m_c, m_len;
    /* scratch: widened inputs (half only), then one slot per task */
    size_t conv_off[5];
    size_t slots_off, slot_bytes, y_off, m_off, ws_off, ws_bytes;
    int32_t tasks;
} attn_state;

static const char *const known_attrs[] = {"is_causal", "kv_num_heads", "q_num_heads",
                                          "qk_matmul_output_mode", "scale", "softcap",
                                          "softmax_precision"};

static double round_to(int32_t dt, double v)
{
    switch (dt) {
    case KN_FLOAT16: return kn_f16_to_f32(kn_f32_to_f16((float)v));
    case KN_BFLOAT16: return kn_bf16_to_f32(kn_f32_to_bf16((float)v));
    case KN_FLOAT: return (float)v;
    default: return v;
    }
}

static void store(int32_t dt, void *p, int64_t i, double v)
{
    switch (dt) {
    case KN_FLOAT16: ((uint16_t *)p)[i] = kn_f32_to_f16((float)v); break;
    case KN_BFLOAT16: ((uint16_t *)p)[i] = kn_f32_to_bf16((float)v); break;
    case KN_FLOAT: ((float *)p)[i] = (float)v; break;
    default: ((double *)p)[i] = v; break;
    }
}

static int shape_err(kn_kctx *k, const char *what, const kn_tensor *t, const char *want)
{
    char s[128];
    kn_shape_format(t->dims, t->rank, s, sizeof s);
    return kn_fail(k->err, KN_ERR_SHAPE, "Attention: %s has shape %s, expected %s", what, s, want);
}

/* Reads the attributes and the Q/K/V geometry into st. */
static int read_geometry(kn_kctx *k, attn_state *st)
{
    const kn_node *n = k->node;
    for (int32_t i = 0; i < n->n_attrs; i++) {
        size_t a = 0;
        const size_t n_known = sizeof known_attrs / sizeof *known_attrs;
        while (a < n_known && strcmp(n->attrs[i].name, known_attrs[a]))
            a++;
        if (a == n_known)
            return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Attention: attribute '%s' is not supported",
                           n->attrs[i].name);
    }
    const kn_tensor *q = k->in[IN_Q], *kk = k->in[IN_K], *v = k->in[IN_V];
    if (kk->dtype != q->dtype || v->dtype != q->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "Attention: Q, K and V must share a type, got %s, "
                       "%s, %s", kn_dtype_name(q->dtype), kn_dtype_name(kk->dtype),
                       kn_dtype_name(v->dtype));
    if ((q->rank != 3 && q->rank != 4) || kk->rank != q->rank || v->rank != q->rank)
        return kn_fail(k->err, KN_ERR_SHAPE, "Attention: Q, K, V must all be 3-D or all 4-D, got "
                       "ranks %d, %d, %d", (int)q->rank, (int)kk->rank, (int)v->rank);
    st->b = q->dims[0];
    if (kk->dims[0] != st->b || v->dims[0] != st->b)
        return kn_fail(k->err, KN_ERR_SHAPE, "Attention: Q, K, V batch sizes differ");
    if (q->rank == 4) {
        st->hq = q->dims[1], st->sq = q->dims[2], st->d = q->dims[3];
        st->hkv = kk->dims[1], st->skv = kk->dims[2], st->dv = v->dims[3];
        if (kk->dims[3] != st->d || v->dims[1] != st->hkv || v->dims[2] != st->skv)
            return shape_err(k, "K or V", kk->dims[3] != st->d ? kk : v,
                             "(batch, kv_heads, kv_seq, head_size) matching Q and each other");
        st->q_h = st->sq * st->d, st->q_r = st->d;
        st->k_h = st->skv * st->d, st->k_r = st->d;
        st->v_h = st->skv * st->dv, st->v_r = st->dv;
        st->y_h = st->sq * st->dv, st->y_r = st->dv;
    } else {
        st->hq = kn_attr_int(n, "q_num_heads", 0);
        st->hkv = kn_attr_int(n, "kv_num_heads", 0);
        if (st->hq <= 0 || st->hkv <= 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Attention: 3-D inputs need positive "
                           "q_num_heads and kv_num_heads attributes");
        st->sq = q->dims[1], st->skv = kk->dims[1];
        if (q->dims[2] % st->hq || kk->dims[2] % st->hkv || v->dims[2] % st->hkv)
            return kn_fail(k->err, KN_ERR_SHAPE, "Attention: hidden sizes %lld, %lld, %lld are not "
                           "multiples of q_num_heads %lld / kv_num_heads %lld",
                           (long long)q->dims[2], (long long)kk->dims[2], (long long)v->dims[2],
                           (long long)st->hq, (long long)st->hkv);
        st->d = q->dims[2] / st->hq, st->dv = v->dims[2] / st->hkv;
        if (kk->dims[2] / st->hkv != st->d || v->dims[1] != st->skv)
            return shape_err(k, "K or V", v->dims[1] != st->skv ? v : kk,
                             "(batch, kv_seq, kv_heads * head_size) matching Q");
        st->q_h = st->d, st->q_r = st->hq * st->d;
        st->k_h = st->d, st->k_r = st->hkv * st->d;
        st->v_h = st->dv, st->v_r = st->hkv * st->dv;
        st->y_h = st->dv, st->y_r = st->hq * st->dv;
    }
    st->q_b = st->sq * st->hq * st->d;
    st->k_b = st->skv * st->hkv * st->d;
    st->v_b = st->skv * st->hkv * st->dv;
    st->y_b = st->sq * st->hq * st->dv;
    if (st->hkv <= 0 || st->hq % st->hkv)
        return kn_fail(k->err, KN_ERR_SHAPE, "Attention: %lld query heads cannot be grouped over "
                       "%lld key/value heads", (long long)st->hq, (long long)st->hkv);
    return KN_OK;
}

static int read_cache(kn_kctx *k, attn_state *st)
{
    const kn_tensor *pk = kn_input(k, IN_PAST_K), *pv = kn_input(k, IN_PAST_V);
    if (!pk != !pv)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "Attention: past_key and past_value must be given together");
    if (pk) {
        if (pk->dtype != st->dtype || pv->dtype != st->dtype)
            return kn_fail(k->err, KN_ERR_DTYPE, "Attention: past_key/past_value must be %s",
                           kn_dtype_name(st->dtype));
        if (pk->rank != 4 || pk->dims[0] != st->b || pk->dims[1] != st->hkv || pk->dims[3] != st->d)
            return shape_err(k, "past_key", pk, "(batch, kv_heads, past_seq, head_size)");
        if (pv->rank != 4 || pv->dims[0] != st->b || pv->dims[1] != st->hkv ||
            pv->dims[2] != pk->dims[2] || pv->dims[3] != st->dv)
            return shape_err(k, "past_value", pv, "(batch, kv_heads, past_seq, v_head_size)");
        st->sp = pk->dims[2];
    }
    st->st = st->sp + st->skv;
    const kn_tensor *np = kn_input(k, IN_NONPAD);
    if (np) {
        if (k->opset < 24)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                           "Attention: nonpad_kv_seqlen needs opset 24");
        if ((np->dtype != KN_INT64 && np->dtype != KN_INT32) || np->rank != 1 ||
            np->dims[0] != st->b)
            return shape_err(k, "nonpad_kv_seqlen", np, "an int64 vector of batch size");
    }
    return KN_OK;
}

/* The mask broadcasts to (batch, q_heads, q_seq, total_seq); a shorter last
 * dim is padded with "masked" (opset 24 semantics; opset 23 broadcasts a
 * last dim of 1). */
static int read_mask(kn_kctx *k, attn_state *st)
{
    const kn_tensor *m = kn_input(k, IN_MASK);
    if (!m)
        return KN_OK;
    if (m->dtype != KN_BOOL && m->dtype != st->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "Attention: attn_mask must be bool or %s, got %s",
                       kn_dtype_name(st->dtype), kn_dtype_name(m->dtype));
    if (m->rank < 1 || m->rank > 4)
        return shape_err(k, "attn_mask", m, "rank 1 to 4");
    const int64_t target[4] = {st->b, st->hq, st->sq, st->st};
    int64_t stride[4] = {0, 0, 0, 0}, s = 1;
    for (int32_t d = 3; d >= 4 - m->rank; d--) {
        int64_t md = m->dims[d - (4 - m->rank)];
        if (d < 3 && md != 1 && md != target[d])
            return shape_err(k, "attn_mask", m,
                             "a shape broadcastable to (batch, q_heads, q_seq, total_seq)");
        stride[d] = md == 1 ? 0 : s;
        s *= md;
    }
    int64_t lm = m->dims[m->rank - 1];
    if (lm > st->st)
        return shape_err(k, "attn_mask", m, "a last dim no longer than the total sequence");
    st->has_mask = 1;
    st->mask_bool = m->dtype == KN_BOOL;
    st->mask_dtype = m->dtype;
    st->m_b = stride[0], st->m_h = stride[1], st->m_r = stride[2];
    int broadcast = lm == 1 && st->st > 1 && k->opset < 24;
    st->m_c = broadcast ? 0 : 1;
    st->m_len = broadcast ? st->st : lm;
    return KN_OK;
}

static int read_options(kn_kctx *k, attn_state *st)
{
    const kn_node *n = k->node;
    float scale = 1.0f / sqrtf((float)st->d);
    if (kn_node_attr(n, "scale"))
        scale = kn_attr_float(n, "scale", 0);
    /* ONNX scales Q and K by sqrt(scale) each, in the input type. */
    st->sqrt_scale = sqrtf(scale);
    if (st->half)
        st->sqrt_scale = (float)round_to(st->dtype, st->sqrt_scale);
    st->alpha = st->half ? 1.0 : (double)st->sqrt_scale * st->sqrt_scale;
    st->softcap = kn_attr_float(n, "softcap", 0);
    st->causal = kn_attr_int(n, "is_causal", 0) != 0;
    st->mode = (int)kn_attr_int(n, "qk_matmul_output_mode", 0);
    if (st->mode < 0 || st->mode > 3)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "Attention: qk_matmul_output_mode must be 0-3, got %d", st->mode);
    int64_t sp = kn_attr_int(n, "softmax_precision", 0);
    if (sp != 0 && sp != KN_FLOAT && sp != KN_DOUBLE && sp != KN_FLOAT16 && sp != KN_BFLOAT16)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Attention: softmax_precision %lld is not a "
                       "floating type", (long long)sp);
    st->smax_dtype = sp ? (int32_t)sp : st->dtype;
    st->qk_out = kn_output(k, OUT_QK) != NULL;
    return KN_OK;
}

static void set_outputs(kn_kctx *k, const attn_state *st)
{
    kn_tensor *y = k->out[OUT_Y];
    y->dtype = st->dtype;
    y->rank = k->in[IN_Q]->rank;
    if (y->rank == 4) {
        const int64_t d[4] = {st->b, st->hq, st->sq, st->dv};
        memcpy(y->dims, d, sizeof d);
    } else {
        const int64_t d[3] = {st->b, st->sq, st->hq * st->dv};
        memcpy(y->dims, d, sizeof d);
    }
    const int64_t pk[4] = {st->b, st->hkv, st->st, st->d}, pv[4] = {st->b, st->hkv, st->st, st->dv};
    const int64_t qk[4] = {st->b, st->hq, st->sq, st->st};
    const int64_t *shapes[3] = {pk, pv, qk};
    for (int32_t i = OUT_PRESENT_K; i <= OUT_QK; i++) {
        kn_tensor *t = kn_output(k, i);
        if (t) {
            t->dtype = st->dtype;
            t->rank = 4;
            memcpy(t->dims, shapes[i - OUT_PRESENT_K], 4 * sizeof(int64_t));
        }
    }
}

/* Scratch: widened inputs (half types), then `tasks` slots each holding the
 * scores, a float Y block (half types), a mask row and a GEMM workspace. */
static void plan_scratch(kn_kctx *k, attn_state *st)
{
    size_t es = kn_dtype_size(st->work), off = 0;
    if (st->half) {
        const int32_t idx[5] = {IN_Q, IN_K, IN_V, IN_PAST_K, IN_PAST_V};
        for (int i = 0; i < 5; i++) {
            const kn_tensor *t = kn_input(k, idx[i]);
            st->conv_off[i] = off;
            off += kn_align_up((size_t)(t ? kn_tensor_numel(t) : 0) * es, 64);
        }
    }
    int32_t threads = kn_threadpool_threads(k->threads);
    int64_t heads = st->b * st->hq;
    st->tasks = heads >= threads && threads > 1 ? threads : 1;
    int32_t gemm_threads = st->tasks > 1 ? 1 : threads;
    const int64_t dims[4][3] = {{st->sq, st->sp, st->d}, {st->sq, st->skv, st->d},
                                {st->sq, st->dv, st->sp}, {st->sq, st->dv, st->skv}};
    st->ws_bytes = 0;
    for (int i = 0; i < 4; i++) {
        size_t w =
            kn_gemm_workspace_size(st->work, dims[i][0], dims[i][1], dims[i][2], gemm_threads);
        st->ws_bytes = w > st->ws_bytes ? w : st->ws_bytes;
    }
    st->y_off = kn_align_up((size_t)(st->sq * st->st) * es, 64); /* scores first */
    st->m_off = st->y_off + (st->half ? kn_align_up((size_t)(st->sq * st->dv) * es, 64) : 0);
    st->ws_off = st->m_off + kn_align_up((size_t)st->st * es + 1, 64);
    st->slot_bytes = kn_align_up(st->ws_off + st->ws_bytes, 64);
    st->slots_off = off;
    k->scratch_bytes = off + st->slot_bytes * (size_t)st->tasks;
}

static int attn_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 3) != KN_OK)
        return k->err->code;
    attn_state st = {.dtype = k->in[IN_Q]->dtype};
    st.half = st.dtype == KN_FLOAT16 || st.dtype == KN_BFLOAT16;
    st.work = st.dtype == KN_DOUBLE ? KN_DOUBLE : KN_FLOAT;
    int rc = read_geometry(k, &st);
    if (rc == KN_OK)
        rc = read_cache(k, &st);
    if (rc == KN_OK)
        rc = read_mask(k, &st);
    if (rc == KN_OK)
        rc = read_options(k, &st);
    if (rc != KN_OK)
        return rc;
    set_outputs(k, &st);
    plan_scratch(k, &st);
    attn_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Attention: out of memory");
    *s = st;
    k->state = s;
    return KN_OK;
}

typedef struct attn_job {
    const attn_state *st;
    const char *q, *k, *v, *pk, *pv; /* in the work type */
    const char *mask;
    const kn_tensor *nonpad;
    char *y, *qk, *slots;
    kn_threadpool *gemm_pool;
} attn_job;

/* Per-head context for the row loop. */
typedef struct head_ctx {
    int64_t b, h, offset, nonpad;
    void *mrow;
} head_ctx;

/* Row pass over one head's scores s (sq x st): softcap, bias, softmax in
 * place, with the qk_matmul_output captures. Written once for float and
 * double scores. */
#define KN_ATTN_ROWS(T, SFX)                                                                       \
    static void rows_##SFX(const attn_job *j, const head_ctx *hc, T *s)                            \
    {                                                                                              \
        const attn_state *st = j->st;                                                              \
        const int32_t dt = st->dtype, work = st->work;                                             \
        const int half = st->half;                                                                 \
        for (int64_t i = 0; i < st->sq; i++) {                                                     \
            T *x = s + i * st->st;                                                                 \
            const uint8_t *mb = NULL;                                                              \
            const T *mf = NULL;                                                                    \
            if (st->has_mask) {                                                                    \
                const char *src = j->mask + (size_t)(hc->b * st->m_b + hc->h * st->m_h +           \
                                                     i * st->m_r) * kn_dtype_size(st->mask_dtype); \
                if (st->mask_bool)                                                                 \
                    mb = (const uint8_t *)src;                                                     \
                else if (st->mask_dtype == work)                                                   \
                    mf = (const T *)src;                                                           \
                else {                                                                             \
                    kn_convert(st->mask_dtype, src, work, hc->mrow, st->m_c ? st->m_len : 1);     \
                    mf = hc->mrow;                                                                 \
                }                                                                                  \
            }                                                                                      \
            int64_t causal_last = st->causal ? i + hc->offset : st->st; /* last key seen */        \
            char *qk = j->qk ? j->qk + (size_t)(((hc->b * st->hq + hc->h) * st->sq + i) *          \
                                                st->st) * kn_dtype_size(dt) : NULL;                \
            int masked = 1;                                                                        \
            for (int64_t c = 0; c < st->st; c++) {                                                 \
                T v = x[c];                                                                        \
                if (half)                                                                          \
                    v = (T)round_to(dt, v);                                                        \
                if (qk && st->mode == 0)                                                           \
                    store(dt, qk, c, v);                                                           \
                if (st->softcap > 0) {                                                             \
                    v = (T)(st->softcap * tanh(v / st->softcap));                                  \
                    if (half)                                                                      \
                        v = (T)round_to(dt, v);                                                    \
                }                                                                                  \
                if (qk && st->mode == 1)                                                           \
                    store(dt, qk, c, v);                                                           \
                T bias = 0;                                                                        \
                if (st->has_mask && c >= st->m_len)                                                \
                    bias = (T)-INFINITY; /* past a short mask */                                   \
                else if (mb)                                                                       \
                    bias = mb[c * st->m_c] ? (T)0 : (T)-INFINITY;                                  \
                else if (mf)                                                                       \
                    bias = mf[c * st->m_c];                                                        \
                if (c > causal_last)                                                               \
                    bias += (T)-INFINITY;                                                          \
                if (c >= hc->nonpad)                                                               \
                    bias += (T)-INFINITY;                                                          \
                masked &= bias == (T)-INFINITY;                                                    \
                v += bias;                                                                         \
                if (half)                                                                          \
                    v = (T)round_to(dt, v);                                                        \
                if (qk && st->mode == 2)                                                           \
                    store(dt, qk, c, v);                                                           \
                x[c] = v;                                                                          \
            }                                                                                      \
            /* Softmax with the maximum subtracted; sums in double. A row */                      \
            /* with nothing to attend to gives zeros, not NaN. */                                  \
            T mx = (T)-INFINITY;                                                                   \
            for (int64_t c = 0; c < st->st; c++)                                                   \
                mx = x[c] > mx ? x[c] : mx;                                                        \
            double sum = 0;                                                                        \
            for (int64_t c = 0; c < st->st; c++) {                                                 \
                double e = exp((double)x[c] - (double)mx);                                         \
                x[c] = (T)e;                                                                       \
                sum += e;                                                                          \
            }                                                                                      \
            for (int64_t c = 0; c < st->st; c++) {                                                 \
                double p = masked ? 0.0 : round_to(st->smax_dtype, (double)x[c] / sum);           \
                x[c] = (T)(half ? round_to(dt, p) : p);                                            \
                if (qk && st->mode == 3)                                                           \
                    store(dt, qk, c, x[c]);                                                        \
            }                                                                                      \
        }                                                                                          \
    }

KN_ATTN_ROWS(float, f32)
KN_ATTN_ROWS(double, f64)

static void gemm_block(const attn_job *j, void *ws, int trans_b, int64_t m, int64_t n, int64_t kk,
                       double alpha, double beta, const void *a, int64_t lda, const void *b,
                       int64_t ldb, void *c, int64_t ldc)
{
    if (m <= 0 || n <= 0)
        return;
    kn_gemm_args g = {.trans_b = trans_b, .m = m, .n = n, .k = kk, .alpha = alpha, .beta = beta,
                      .a = a, .lda = lda, .b = b, .ldb = ldb, .c = c, .ldc = ldc};
    kn_gemm(j->st->work, j->gemm_pool, &g, ws, j->st->ws_bytes);
}

static void attend_head(const attn_job *j, char *slot, int64_t idx)
{
    const attn_state *st = j->st;
    size_t es = kn_dtype_size(st->work);
    head_ctx hc = {.b = idx / st->hq, .h = idx % st->hq, .nonpad = st->st,
                   .mrow = slot + st->m_off};
    int64_t kvh = hc.h / (st->hq / st->hkv), b = hc.b;
    if (j->nonpad)
        hc.nonpad = kn_read_int(j->nonpad, b);
    /* The causal frontier: a query sees keys up to its own position after
     * the cached ones (past_key), or after the valid ones (nonpad). */
    hc.offset = st->sp > 0 ? st->sp : j->nonpad ? hc.nonpad - st->sq : 0;
    char *s = slot, *ws = slot + st->ws_off;
    const char *q = j->q + (size_t)(b * st->q_b + hc.h * st->q_h) * es;
    const char *pk = j->pk ? j->pk + (size_t)((b * st->hkv + kvh) * st->sp * st->d) * es : NULL;
    const char *pv = j->pv ? j->pv + (size_t)((b * st->hkv + kvh) * st->sp * st->dv) * es : NULL;
    const char *kk = j->k + (size_t)(b * st->k_b + kvh * st->k_h) * es;
    const char *v = j->v + (size_t)(b * st->v_b + kvh * st->v_h) * es;
    if (st->sp)
        gemm_block(j, ws, 1, st->sq, st->sp, st->d, st->alpha, 0, q, st->q_r, pk, st->d, s, st->st);
    gemm_block(j, ws, 1, st->sq, st->skv, st->d, st->alpha, 0, q, st->q_r, kk, st->k_r,
               s + (size_t)st->sp * es, st->st);
    if (st->work == KN_DOUBLE)
        rows_f64(j, &hc, (double *)s);
    else
        rows_f32(j, &hc, (float *)s);
    char *y = j->y + (size_t)(b * st->y_b + hc.h * st->y_h) * kn_dtype_size(st->dtype);
    char *yc = st->half ? slot + st->y_off : y;
    int64_t ldy = st->half ? st->dv : st->y_r;
    if (st->st == 0 && st->sq > 0) /* nothing to attend to: Y is zero */
        for (int64_t i = 0; i < st->sq; i++)
            memset(yc + (size_t)(i * ldy) * es, 0, (size_t)st->dv * es);
    if (st->sp)
        gemm_block(j, ws, 0, st->sq, st->dv, st->sp, 1, 0, s, st->st, pv, st->dv, yc, ldy);
    if (st->skv)
        gemm_block(j, ws, 0, st->sq, st->dv, st->skv, 1, st->sp ? 1 : 0, s + (size_t)st->sp * es,
                   st->st, v, st->v_r, yc, ldy);
    if (st->half)
        for (int64_t i = 0; i < st->sq; i++)
            kn_convert(KN_FLOAT, yc + (size_t)(i * ldy) * es, st->dtype,
                       y + (size_t)(i * st->y_r) * 2, st->dv);
}

/* Task t owns slot t and a contiguous share of the heads. */
static void attend_task(void *ctx, int64_t begin, int64_t end)
{
    const attn_job *j = ctx;
    const attn_state *st = j->st;
    int64_t heads = st->b * st->hq, per = (heads + st->tasks - 1) / st->tasks;
    for (int64_t t = begin; t < end; t++)
        for (int64_t i = t * per; i < (t + 1) * per && i < heads; i++)
            attend_head(j, j->slots + (size_t)t * st->slot_bytes, i);
}

/* Widens a half tensor to float, scaling by mul and rounding back to the
 * half type when mul != 1 (the function body scales in the input type). */
static void widen(const kn_tensor *t, float *dst, float mul)
{
    int64_t n = kn_tensor_numel(t);
    kn_convert(t->dtype, t->data, KN_FLOAT, dst, n);
    if (mul != 1.0f)
        for (int64_t i = 0; i < n; i++)
            dst[i] = (float)round_to(t->dtype, dst[i] * mul);
}

/* present = concat(past, new) along the sequence, new rows read through
 * the (3-D or 4-D) strides of K or V. Raw bytes: no conversion. */
static void write_present(const attn_state *st, kn_tensor *out, const kn_tensor *past,
                          const kn_tensor *cur, int64_t hd, int64_t s_b, int64_t s_h, int64_t s_r)
{
    size_t es = kn_dtype_size(st->dtype), row = (size_t)hd * es;
    char *o = out->data;
    for (int64_t b = 0; b < st->b; b++)
        for (int64_t h = 0; h < st->hkv; h++) {
            char *dst = o + (size_t)((b * st->hkv + h) * st->st * hd) * es;
            if (st->sp) {
                size_t n = (size_t)st->sp * row;
                const char *src = past->data;
                memcpy(dst, src + (size_t)((b * st->hkv + h) * st->sp * hd) * es, n);
                dst += n;
            }
            const char *src = cur->data;
            for (int64_t r = 0; r < st->skv; r++, dst += row)
                memcpy(dst, src + (size_t)(b * s_b + h * s_h + r * s_r) * es, row);
        }
}

static int attn_run(kn_kctx *k)
{
    const attn_state *st = k->state;
    const kn_tensor *pk = kn_input(k, IN_PAST_K), *pv = kn_input(k, IN_PAST_V);
    kn_tensor *opk = kn_output(k, OUT_PRESENT_K), *opv = kn_output(k, OUT_PRESENT_V);
    if (opk)
        write_present(st, opk, pk, k->in[IN_K], st->d, st->k_b, st->k_h, st->k_r);
    if (opv)
        write_present(st, opv, pv, k->in[IN_V], st->dv, st->v_b, st->v_h, st->v_r);
    attn_job j = {.st = st, .q = k->in[IN_Q]->data, .k = k->in[IN_K]->data,
                  .v = k->in[IN_V]->data, .pk = pk ? pk->data : NULL, .pv = pv ? pv->data : NULL,
                  .nonpad = kn_input(k, IN_NONPAD), .y = k->out[OUT_Y]->data,
                  .qk = st->qk_out ? k->out[OUT_QK]->data : NULL,
                  .slots = (char *)k->scratch + st->slots_off,
                  .gemm_pool = st->tasks > 1 ? NULL : k->threads};
    const kn_tensor *mask = kn_input(k, IN_MASK);
    j.mask = mask ? mask->data : NULL;
    if (st->half) {
        const int32_t idx[5] = {IN_Q, IN_K, IN_V, IN_PAST_K, IN_PAST_V};
        const char **dst[5] = {&j.q, &j.k, &j.v, &j.pk, &j.pv};
        for (int i = 0; i < 5; i++) {
            const kn_tensor *t = kn_input(k, idx[i]);
            if (!t)
                continue;
            float *w = (float *)((char *)k->scratch + st->conv_off[i]);
            widen(t, w, i == 0 || i == 1 || i == 3 ? st->sqrt_scale : 1.0f);
            *dst[i] = (const char *)w;
        }
    }
    if (st->b * st->hq > 0 && st->sq > 0)
        kn_parallel_for(k->threads, st->tasks, 1, attend_task, &j);
    return KN_OK;
}

static void attn_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

#define KN_ATTN_TYPES (KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))

const kn_op_def kn_op_Attention_23 = {
    .op_type = "Attention", .since_version = 23, .until_version = 23, .dtypes = KN_ATTN_TYPES,
    .prepare = attn_prepare, .run = attn_run, .release = attn_release
};
const kn_op_def kn_op_Attention_24 = {
    .op_type = "Attention", .since_version = 24, .dtypes = KN_ATTN_TYPES,
    .prepare = attn_prepare, .run = attn_run, .release = attn_release
};
