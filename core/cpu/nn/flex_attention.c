/* FlexAttention (ai.onnx.preview, opset 1): scaled dot-product attention
 * over 4-D Q (batch, q_heads, L, E), K (batch, kv_heads, S, E) and
 * V (batch, kv_heads, S, Ev), where query head h reads key/value head
 * h / (q_heads / kv_heads), with two optional subgraphs:
 *
 *     scores = (Q sqrt(scale)) (K sqrt(scale))^T      (in the input type)
 *     scores = score_mod(scores)                       (float; double for double)
 *     probs  = softmax(scores, last axis)
 *     probs  = prob_mod(probs)
 *     Y      = probs V                                 (float, then the input type)
 *
 * The subgraphs see the whole (batch, q_heads, L, S) tensor, so it lives in
 * scratch. A node with a subgraph is computed in prepare() once the inputs
 * are known (the runtime's eager mode guarantees it), the way If, Loop and
 * Scan run their bodies; run() then copies the result. Without subgraphs
 * prepare() only plans and run() computes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/simd/gemm.h"
#include "core/kernel/tensor_common.h"

typedef struct flex_state {
    int32_t dtype, work; /* work: float, or double for double inputs */
    int half;
    int64_t b, hq, hkv, l, s, e, ev;
    float sqrt_scale;    /* Q and K are each multiplied by it */
    const kn_graph *score_mod, *prob_mod;
    /* scratch layout (bytes): widened Q/K/V (half), scores, float Y
     * (half), then per-task GEMM workspaces */
    size_t q_off, k_off, v_off, s_off, y_off, ws_off, ws_bytes, total;
    int32_t tasks;
    void *result;        /* Y computed in prepare() when a subgraph is used */
} flex_state;

static int flex_check(kn_kctx *k, flex_state *st)
{
    static const char *const known[] = {"scale", "score_mod", "prob_mod"};
    for (int32_t i = 0; i < k->node->n_attrs; i++) {
        size_t a = 0;
        while (a < 3 && strcmp(k->node->attrs[i].name, known[a]))
            a++;
        if (a == 3)
            return kn_fail(k->err, KN_ERR_UNSUPPORTED, "FlexAttention: attribute '%s' is not "
                           "supported", k->node->attrs[i].name);
    }
    const kn_tensor *q = k->in[0], *kk = k->in[1], *v = k->in[2];
    if (kk->dtype != q->dtype || v->dtype != q->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "FlexAttention: Q, K and V must share a type, got %s, "
                       "%s, %s", kn_dtype_name(q->dtype), kn_dtype_name(kk->dtype),
                       kn_dtype_name(v->dtype));
    if (q->rank != 4 || kk->rank != 4 || v->rank != 4)
        return kn_fail(k->err, KN_ERR_SHAPE, "FlexAttention: Q, K, V must be 4-D, got ranks %d, "
                       "%d, %d", (int)q->rank, (int)kk->rank, (int)v->rank);
    st->b = q->dims[0], st->hq = q->dims[1], st->l = q->dims[2], st->e = q->dims[3];
    st->hkv = kk->dims[1], st->s = kk->dims[2], st->ev = v->dims[3];
    if (kk->dims[0] != st->b || v->dims[0] != st->b || kk->dims[3] != st->e ||
        v->dims[1] != st->hkv || v->dims[2] != st->s) {
        char sq[96], sk[96], sv[96];
        kn_shape_format(q->dims, 4, sq, sizeof sq);
        kn_shape_format(kk->dims, 4, sk, sizeof sk);
        kn_shape_format(v->dims, 4, sv, sizeof sv);
        return kn_fail(k->err, KN_ERR_SHAPE, "FlexAttention: shapes Q %s, K %s, V %s do not agree",
                       sq, sk, sv);
    }
    if (st->hkv <= 0 || st->hq % st->hkv)
        return kn_fail(k->err, KN_ERR_SHAPE, "FlexAttention: %lld query heads cannot be grouped "
                       "over %lld key/value heads", (long long)st->hq, (long long)st->hkv);
    st->score_mod = NULL;
    st->prob_mod = NULL;
    const kn_attr *sm = kn_node_attr(k->node, "score_mod"), *pm = kn_node_attr(k->node, "prob_mod");
    if ((sm && (sm->type != KN_ATTR_GRAPH || !sm->g)) ||
        (pm && (pm->type != KN_ATTR_GRAPH || !pm->g)))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "FlexAttention: score_mod and prob_mod must "
                       "be graphs");
    st->score_mod = sm ? sm->g : NULL;
    st->prob_mod = pm ? pm->g : NULL;
    float scale = kn_node_attr(k->node, "scale") ? kn_attr_float(k->node, "scale", 0)
                                                 : 1.0f / sqrtf((float)st->e);
    st->sqrt_scale = sqrtf(scale);
    return KN_OK;
}

static double round_half(int32_t dt, float v)
{
    return dt == KN_FLOAT16 ? kn_f16_to_f32(kn_f32_to_f16(v)) : kn_bf16_to_f32(kn_f32_to_bf16(v));
}

static void flex_plan(kn_kctx *k, flex_state *st)
{
    size_t es = kn_dtype_size(st->work), off = 0;
    if (st->half) {
        st->q_off = off, off += kn_align_up((size_t)kn_tensor_numel(k->in[0]) * es, 64);
        st->k_off = off, off += kn_align_up((size_t)kn_tensor_numel(k->in[1]) * es, 64);
        st->v_off = off, off += kn_align_up((size_t)kn_tensor_numel(k->in[2]) * es, 64);
    }
    st->s_off = off, off += kn_align_up((size_t)(st->b * st->hq * st->l * st->s) * es + 1, 64);
    st->y_off = off;
    if (st->half)
        off += kn_align_up((size_t)(st->b * st->hq * st->l * st->ev) * es, 64);
    int32_t threads = kn_threadpool_threads(k->threads);
    int64_t heads = st->b * st->hq;
    st->tasks = heads < threads ? (int32_t)(heads > 0 ? heads : 1) : threads;
    size_t w1 = kn_gemm_workspace_size(st->work, st->l, st->s, st->e, 1);
    size_t w2 = kn_gemm_workspace_size(st->work, st->l, st->ev, st->s, 1);
    st->ws_bytes = kn_align_up(w1 > w2 ? w1 : w2, 64);
    st->ws_off = off;
    st->total = off + st->ws_bytes * (size_t)st->tasks;
}

typedef struct flex_job {
    const flex_state *st;
    const char *q, *k, *v; /* work type */
    char *scores, *y, *ws;
    int stage;             /* 0: scores, 1: softmax rows, 2: Y */
} flex_job;

static void flex_head(const flex_job *j, int64_t idx, void *ws)
{
    const flex_state *st = j->st;
    size_t es = kn_dtype_size(st->work);
    int64_t b = idx / st->hq, h = idx % st->hq, kvh = h / (st->hq / st->hkv);
    char *s = j->scores + (size_t)(idx * st->l * st->s) * es;
    if (j->stage == 0) {
        kn_gemm_args g = {.trans_b = 1, .m = st->l, .n = st->s, .k = st->e,
                          .alpha = st->half ? 1.0 : (double)st->sqrt_scale * st->sqrt_scale,
                          .a = j->q + (size_t)(idx * st->l * st->e) * es, .lda = st->e,
                          .b = j->k + (size_t)((b * st->hkv + kvh) * st->s * st->e) * es,
                          .ldb = st->e, .c = s, .ldc = st->s};
        if (st->l > 0 && st->s > 0)
            kn_gemm(st->work, NULL, &g, ws, st->ws_bytes);
        if (st->half) /* the product is rounded to the input type */
            for (int64_t i = 0; i < st->l * st->s; i++)
                ((float *)s)[i] = (float)round_half(st->dtype, ((float *)s)[i]);
    } else if (j->stage == 1) {
        for (int64_t i = 0; i < st->l; i++) {
            if (st->work == KN_DOUBLE) {
                double *x = (double *)s + i * st->s, mx = -INFINITY, sum = 0;
                for (int64_t c = 0; c < st->s; c++)
                    mx = x[c] > mx ? x[c] : mx;
                for (int64_t c = 0; c < st->s; c++)
                    sum += x[c] = exp(x[c] - mx);
                for (int64_t c = 0; c < st->s; c++)
                    x[c] /= sum;
            } else {
                float *x = (float *)s + i * st->s, mx = -INFINITY;
                double sum = 0;
                for (int64_t c = 0; c < st->s; c++)
                    mx = x[c] > mx ? x[c] : mx;
                for (int64_t c = 0; c < st->s; c++)
                    sum += x[c] = expf(x[c] - mx);
                for (int64_t c = 0; c < st->s; c++)
                    x[c] = (float)(x[c] / sum);
            }
        }
    } else {
        kn_gemm_args g = {.m = st->l, .n = st->ev, .k = st->s, .alpha = 1, .a = s, .lda = st->s,
                          .b = j->v + (size_t)((b * st->hkv + kvh) * st->s * st->ev) * es,
                          .ldb = st->ev, .c = j->y + (size_t)(idx * st->l * st->ev) * es,
                          .ldc = st->ev};
        if (st->l > 0 && st->ev > 0)
            kn_gemm(st->work, NULL, &g, ws, st->ws_bytes);
    }
}

/* Task t owns workspace t and a contiguous share of the heads. */
static void flex_task(void *ctx, int64_t begin, int64_t end)
{
    const flex_job *j = ctx;
    const flex_state *st = j->st;
    int64_t heads = st->b * st->hq, per = (heads + st->tasks - 1) / st->tasks;
    for (int64_t t = begin; t < end; t++)
        for (int64_t i = t * per; i < (t + 1) * per && i < heads; i++)
            flex_head(j, i, j->ws + (size_t)t * st->ws_bytes);
}

/* Runs a score_mod/prob_mod subgraph on the scores (or probabilities) in
 * place. The subgraph must return one tensor of the same shape. */
static int apply_mod(kn_kctx *k, const flex_state *st, const kn_graph *g, char *buf,
                     const char *what)
{
    if (!k->engine_api)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "FlexAttention: no engine to run %s", what);
    kn_tensor in = {.dtype = st->work, .rank = 4, .dims = {st->b, st->hq, st->l, st->s},
                    .data = buf};
    const kn_tensor *args[1] = {&in};
    kn_subgraph_result *r = NULL;
    int rc = k->engine_api->run_subgraph(k->engine, g, args, 1, &r, k->err);
    if (rc != KN_OK) {
        if (rc != KN_ERR_NEEDS_VALUE)
            kn_err_prefix(k->err, "FlexAttention %s", what);
        return rc;
    }
    const kn_tensor *out = k->engine_api->result_output(r, 0);
    if (!out || !kn_shape_equal(out->dims, out->rank, in.dims, 4) ||
        !kn_convert_supported(out->dtype)) {
        rc = kn_fail(k->err, KN_ERR_SHAPE, "FlexAttention: %s must return a numeric tensor of the "
                     "scores' shape", what);
    } else {
        kn_convert(out->dtype, out->data, st->work, buf, kn_tensor_numel(out));
    }
    k->engine_api->free_result(r);
    return rc;
}

/* The whole computation into y (the output's type), with scratch ws. */
static int flex_compute(kn_kctx *k, const flex_state *st, char *ws, void *y)
{
    flex_job j = {.st = st, .q = k->in[0]->data, .k = k->in[1]->data, .v = k->in[2]->data,
                  .scores = ws + st->s_off, .y = st->half ? ws + st->y_off : y,
                  .ws = ws + st->ws_off};
    if (st->half) {
        for (int i = 0; i < 3; i++) {
            const kn_tensor *t = k->in[i];
            float *w = (float *)(ws + (i == 0 ? st->q_off : i == 1 ? st->k_off : st->v_off));
            int64_t n = kn_tensor_numel(t);
            kn_convert(t->dtype, t->data, KN_FLOAT, w, n);
            if (i < 2)
                for (int64_t e = 0; e < n; e++)
                    w[e] = (float)round_half(t->dtype, w[e] * st->sqrt_scale);
        }
        j.q = ws + st->q_off, j.k = ws + st->k_off, j.v = ws + st->v_off;
    }
    int64_t heads = st->b * st->hq;
    if (heads == 0)
        return KN_OK;
    for (j.stage = 0; j.stage < 3; j.stage++) {
        const kn_graph *mod = j.stage == 1 ? st->score_mod : j.stage == 2 ? st->prob_mod : NULL;
        if (mod) {
            int rc = apply_mod(k, st, mod, j.scores, j.stage == 1 ? "score_mod" : "prob_mod");
            if (rc != KN_OK)
                return rc;
        }
        kn_parallel_for(k->threads, st->tasks, 1, flex_task, &j);
    }
    if (st->half)
        kn_convert(KN_FLOAT, j.y, st->dtype, y, heads * st->l * st->ev);
    return KN_OK;
}

static int flex_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 3) != KN_OK)
        return k->err->code;
    flex_state st = {.dtype = k->in[0]->dtype};
    st.half = st.dtype == KN_FLOAT16 || st.dtype == KN_BFLOAT16;
    st.work = st.dtype == KN_DOUBLE ? KN_DOUBLE : KN_FLOAT;
    int rc = flex_check(k, &st);
    if (rc != KN_OK)
        return rc;
    if (st.half) /* the function body scales in the input type */
        st.sqrt_scale = (float)round_half(st.dtype, st.sqrt_scale);
    flex_plan(k, &st);
    kn_tensor *y = k->out[0];
    y->dtype = st.dtype;
    y->rank = 4;
    y->dims[0] = st.b, y->dims[1] = st.hq, y->dims[2] = st.l, y->dims[3] = st.ev;
    flex_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "FlexAttention: out of memory");
    *s = st;
    k->state = s;
    if (!st.score_mod && !st.prob_mod) {
        k->scratch_bytes = st.total;
        return KN_OK;
    }
    for (int i = 0; i < 3; i++)
        if (!k->in[i]->data)
            return kn_fail(k->err, KN_ERR_NEEDS_VALUE, "FlexAttention: score_mod/prob_mod need "
                           "the values of Q, K and V");
    int64_t ybytes = kn_tensor_nbytes(y);
    char *ws = malloc(st.total + 64);
    s->result = malloc(ybytes > 0 ? (size_t)ybytes : 1);
    if (!ws || !s->result) {
        free(ws);
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "FlexAttention: out of memory");
    }
    /* gemm workspaces want 16-byte alignment */
    char *aligned = ws + ((64 - ((uintptr_t)ws & 63)) & 63);
    rc = flex_compute(k, s, aligned, s->result);
    free(ws);
    return rc;
}

static int flex_run(kn_kctx *k)
{
    const flex_state *st = k->state;
    if (!st->result)
        return flex_compute(k, st, k->scratch, k->out[0]->data);
    int64_t nb = kn_tensor_nbytes(k->out[0]);
    if (nb > 0)
        memcpy(k->out[0]->data, st->result, (size_t)nb);
    return KN_OK;
}

static void flex_release(kn_kctx *k)
{
    flex_state *st = k->state;
    if (st)
        free(st->result);
    free(st);
    k->state = NULL;
}

const kn_op_def kn_op_FlexAttention = {
    .domain = "ai.onnx.preview", .op_type = "FlexAttention", .since_version = 1,
    .dtypes = KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16),
    .prepare = flex_prepare, .run = flex_run, .release = flex_release
};
