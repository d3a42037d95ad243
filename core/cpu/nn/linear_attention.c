/* LinearAttention (opset 27): recurrent linear attention with a
 * (d_k x d_v) state per key/value head, as in RetNet / GLA / DeltaNet /
 * Gated DeltaNet. Inputs are 3-D (batch, T, heads * head_size); for each
 * step t and key/value head, with k, v, q that step's vectors:
 *
 *     gated, gated_delta:  S = S * exp(decay_t)          (row d scaled by exp(decay_t[d]))
 *     delta, gated_delta:  v = beta_t * (v - S^T (erase_t * k))
 *     all rules:           S = S + k v^T
 *                          out_t = scale * q^T S         (every query head of the group)
 *
 * update_rule "linear" uses only the last two lines. Query head h reads the
 * state of key/value head h / (q_heads / kv_heads). decay is per key dim
 * (kv_heads * d_k) or per head (kv_heads); beta per head or one for all.
 * The recurrence runs in double whatever the input type; the state returned
 * (present_state) has past_state's type, or the query's without one.
 * chunk_size is a tuning hint with no effect on results. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

enum { IN_Q, IN_K, IN_V, IN_PAST, IN_DECAY, IN_BETA, IN_ERASE };

typedef struct la_state {
    int64_t b, t, hq, hkv, dk, dv;
    int gating, delta;
    int64_t decay_w, beta_w; /* elements per (batch, step) of decay and beta */
    double scale;
} la_state;

static const char *const la_attrs[] = {"chunk_size", "kv_num_heads", "q_num_heads", "scale",
                                       "update_rule"};

static int la_fail_shape(kn_kctx *k, const char *what, const kn_tensor *t, const char *want)
{
    char s[128];
    kn_shape_format(t->dims, t->rank, s, sizeof s);
    return kn_fail(k->err, KN_ERR_SHAPE, "LinearAttention: %s has shape %s, expected %s", what, s,
                   want);
}

/* A (batch, T, width) input whose width is one of the allowed values. */
static int la_check_seq(kn_kctx *k, const la_state *st, int32_t idx, const char *what, int64_t w1,
                        int64_t w2, int64_t *width)
{
    const kn_tensor *t = k->in[idx];
    if (!kn_convert_supported(t->dtype) || t->dtype == KN_BOOL || t->dtype != k->in[IN_Q]->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "LinearAttention: %s is %s, expected %s", what,
                       kn_dtype_name(t->dtype), kn_dtype_name(k->in[IN_Q]->dtype));
    if (t->rank != 3 || t->dims[0] != st->b || t->dims[1] != st->t ||
        (t->dims[2] != w1 && t->dims[2] != w2))
        return la_fail_shape(k, what, t, "(batch, T, width) with a width fitting the heads");
    *width = t->dims[2];
    return KN_OK;
}

static int la_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 3) != KN_OK)
        return k->err->code;
    const kn_node *n = k->node;
    for (int32_t i = 0; i < n->n_attrs; i++) {
        size_t a = 0;
        while (a < sizeof la_attrs / sizeof *la_attrs && strcmp(n->attrs[i].name, la_attrs[a]))
            a++;
        if (a == sizeof la_attrs / sizeof *la_attrs)
            return kn_fail(k->err, KN_ERR_UNSUPPORTED, "LinearAttention: attribute '%s' is not "
                           "supported", n->attrs[i].name);
    }
    la_state st = {0};
    const char *rule = kn_attr_string(n, "update_rule", "gated_delta");
    if (!strcmp(rule, "linear") || !strcmp(rule, "gated") || !strcmp(rule, "delta") ||
        !strcmp(rule, "gated_delta")) {
        st.gating = rule[0] == 'g';
        st.delta = strstr(rule, "delta") != NULL;
    } else {
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "LinearAttention: update_rule '%s' is not "
                       "linear, gated, delta or gated_delta", rule);
    }
    st.hq = kn_attr_int(n, "q_num_heads", 0);
    st.hkv = kn_attr_int(n, "kv_num_heads", 0);
    if (st.hq <= 0 || st.hkv <= 0 || st.hq % st.hkv)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "LinearAttention: q_num_heads (%lld) must be "
                       "a positive multiple of kv_num_heads (%lld)", (long long)st.hq,
                       (long long)st.hkv);
    const kn_tensor *q = k->in[IN_Q], *v = k->in[IN_V];
    if (q->dtype == KN_BOOL || !kn_convert_supported(q->dtype))
        return kn_fail(k->err, KN_ERR_DTYPE, "LinearAttention: query type %s is not supported",
                       kn_dtype_name(q->dtype));
    if (q->rank != 3 || q->dims[2] % st.hq)
        return la_fail_shape(k, "query", q, "(batch, T, q_num_heads * d_k)");
    st.b = q->dims[0], st.t = q->dims[1], st.dk = q->dims[2] / st.hq;
    int64_t w;
    int rc = la_check_seq(k, &st, IN_K, "key", st.hkv * st.dk, st.hkv * st.dk, &w);
    if (rc != KN_OK)
        return rc;
    if (v->rank != 3 || v->dims[2] % st.hkv)
        return la_fail_shape(k, "value", v, "(batch, T, kv_num_heads * d_v)");
    if ((rc = la_check_seq(k, &st, IN_V, "value", v->dims[2], v->dims[2], &w)) != KN_OK)
        return rc;
    st.dv = v->dims[2] / st.hkv;
    const kn_tensor *decay = kn_input(k, IN_DECAY), *beta = kn_input(k, IN_BETA);
    const kn_tensor *erase = kn_input(k, IN_ERASE), *past = kn_input(k, IN_PAST);
    const char *bad = st.gating && !decay ? "requires decay"
                      : !st.gating && decay ? "forbids decay"
                      : st.delta && !beta   ? "requires beta"
                      : !st.delta && beta   ? "forbids beta"
                      : !st.delta && erase  ? "forbids erase_gate"
                                            : NULL;
    if (bad)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "LinearAttention: update_rule '%s' %s", rule,
                       bad);
    if (decay && (rc = la_check_seq(k, &st, IN_DECAY, "decay", st.hkv, st.hkv * st.dk,
                                    &st.decay_w)) != KN_OK)
        return rc;
    if (beta && (rc = la_check_seq(k, &st, IN_BETA, "beta", st.hkv, 1, &st.beta_w)) != KN_OK)
        return rc;
    if (erase && (rc = la_check_seq(k, &st, IN_ERASE, "erase_gate", st.hkv * st.dk,
                                    st.hkv * st.dk, &w)) != KN_OK)
        return rc;
    int32_t state_dtype = q->dtype;
    if (past) {
        if (past->dtype == KN_BOOL || !kn_convert_supported(past->dtype))
            return kn_fail(k->err, KN_ERR_DTYPE, "LinearAttention: past_state type %s is not "
                           "supported", kn_dtype_name(past->dtype));
        const int64_t want[4] = {st.b, st.hkv, st.dk, st.dv};
        if (!kn_shape_equal(past->dims, past->rank, want, 4))
            return la_fail_shape(k, "past_state", past, "(batch, kv_num_heads, d_k, d_v)");
        state_dtype = past->dtype;
    }
    double scale = kn_attr_float(n, "scale", 0);
    st.scale = scale != 0 ? scale : 1.0 / sqrt((double)st.dk);

    kn_tensor *out = k->out[0], *present = kn_output(k, 1);
    out->dtype = q->dtype;
    out->rank = 3;
    out->dims[0] = st.b, out->dims[1] = st.t, out->dims[2] = st.hq * st.dv;
    if (present) {
        present->dtype = state_dtype;
        present->rank = 4;
        present->dims[0] = st.b, present->dims[1] = st.hkv, present->dims[2] = st.dk;
        present->dims[3] = st.dv;
    }
    /* Per key/value head: the state, and one step's k, v, q (all query
     * heads of the group), decay, beta and erase gate, in double. */
    int32_t threads = kn_threadpool_threads(k->threads);
    int64_t heads = st.b * st.hkv, g = st.hq / st.hkv;
    int64_t per = st.dk * st.dv + 3 * st.dk + 2 * st.dv + g * st.dk + 1;
    k->scratch_bytes = (size_t)per * sizeof(double) * (size_t)(heads < threads ? (heads ? heads : 1)
                                                                               : threads);
    la_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "LinearAttention: out of memory");
    *s = st;
    k->state = s;
    return KN_OK;
}

typedef struct la_job {
    const la_state *st;
    const kn_tensor *q, *k, *v, *past, *decay, *beta, *erase;
    kn_tensor *out, *present;
    double *scratch;
    int64_t tasks, per_task_elems;
} la_job;

/* Reads n elements of t starting at element off into dst as double. */
static void load(const kn_tensor *t, int64_t off, int64_t n, double *dst)
{
    kn_convert(t->dtype, (const char *)t->data + (size_t)off * kn_dtype_size(t->dtype), KN_DOUBLE,
               dst, n);
}

static void la_head(const la_job *j, int64_t idx, double *buf)
{
    const la_state *st = j->st;
    int64_t b = idx / st->hkv, h = idx % st->hkv, g = st->hq / st->hkv;
    int64_t dk = st->dk, dv = st->dv;
    double *S = buf, *kv = S + dk * dv, *ke = kv + dk, *dec = ke + dk, *vv = dec + dk,
           *ret = vv + dv, *qv = ret + dv;
    if (j->past)
        load(j->past, idx * dk * dv, dk * dv, S);
    else
        memset(S, 0, (size_t)(dk * dv) * sizeof *S);
    for (int64_t t = 0; t < st->t; t++) {
        int64_t row = b * st->t + t; /* (batch, step) index into the 3-D inputs */
        load(j->k, (row * st->hkv + h) * dk, dk, kv);
        load(j->v, (row * st->hkv + h) * dv, dv, vv);
        if (st->gating) {
            if (st->decay_w == st->hkv) {
                load(j->decay, row * st->decay_w + h, 1, dec);
                for (int64_t d = 1; d < dk; d++)
                    dec[d] = dec[0];
            } else {
                load(j->decay, row * st->decay_w + h * dk, dk, dec);
            }
            for (int64_t d = 0; d < dk; d++) {
                double f = exp(dec[d]);
                for (int64_t m = 0; m < dv; m++)
                    S[d * dv + m] *= f;
            }
        }
        if (st->delta) {
            if (j->erase) {
                load(j->erase, (row * st->hkv + h) * dk, dk, ke);
                for (int64_t d = 0; d < dk; d++)
                    ke[d] *= kv[d];
            } else {
                memcpy(ke, kv, (size_t)dk * sizeof *ke);
            }
            double beta;
            load(j->beta, row * st->beta_w + (st->beta_w == 1 ? 0 : h), 1, &beta);
            for (int64_t m = 0; m < dv; m++)
                ret[m] = 0;
            for (int64_t d = 0; d < dk; d++)
                for (int64_t m = 0; m < dv; m++)
                    ret[m] += S[d * dv + m] * ke[d];
            for (int64_t m = 0; m < dv; m++)
                vv[m] = beta * (vv[m] - ret[m]);
        }
        for (int64_t d = 0; d < dk; d++)
            for (int64_t m = 0; m < dv; m++)
                S[d * dv + m] += kv[d] * vv[m];
        load(j->q, (row * st->hq + h * g) * dk, g * dk, qv);
        for (int64_t gi = 0; gi < g; gi++) {
            for (int64_t m = 0; m < dv; m++)
                ret[m] = 0;
            for (int64_t d = 0; d < dk; d++)
                for (int64_t m = 0; m < dv; m++)
                    ret[m] += qv[gi * dk + d] * S[d * dv + m];
            for (int64_t m = 0; m < dv; m++)
                ret[m] *= st->scale;
            int64_t off = (row * st->hq + h * g + gi) * dv;
            kn_convert(KN_DOUBLE, ret, j->out->dtype,
                       (char *)j->out->data + (size_t)off * kn_dtype_size(j->out->dtype), dv);
        }
    }
    if (j->present)
        kn_convert(KN_DOUBLE, S, j->present->dtype,
                   (char *)j->present->data + (size_t)(idx * dk * dv) *
                                                  kn_dtype_size(j->present->dtype),
                   dk * dv);
}

static void la_task(void *ctx, int64_t begin, int64_t end)
{
    const la_job *j = ctx;
    int64_t heads = j->st->b * j->st->hkv, per = (heads + j->tasks - 1) / j->tasks;
    for (int64_t t = begin; t < end; t++)
        for (int64_t i = t * per; i < (t + 1) * per && i < heads; i++)
            la_head(j, i, j->scratch + t * j->per_task_elems);
}

static int la_run(kn_kctx *k)
{
    const la_state *st = k->state;
    int32_t threads = kn_threadpool_threads(k->threads);
    int64_t heads = st->b * st->hkv;
    la_job j = {st, k->in[IN_Q], k->in[IN_K], k->in[IN_V], kn_input(k, IN_PAST),
                kn_input(k, IN_DECAY), kn_input(k, IN_BETA), kn_input(k, IN_ERASE), k->out[0],
                kn_output(k, 1), k->scratch, heads < threads ? heads : threads, 0};
    j.per_task_elems = st->dk * st->dv + 3 * st->dk + 2 * st->dv + (st->hq / st->hkv) * st->dk + 1;
    if (heads > 0)
        kn_parallel_for(k->threads, j.tasks, 1, la_task, &j);
    return KN_OK;
}

static void la_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_LinearAttention = {
    .op_type = "LinearAttention", .since_version = 27,
    .dtypes = KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16), .prepare = la_prepare,
    .run = la_run, .release = la_release
};
