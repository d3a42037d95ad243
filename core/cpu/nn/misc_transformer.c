/* Small building blocks of transformer models: RotaryEmbedding (opset 23)
 * and SwiGLU (opset 28).
 *
 * RotaryEmbedding rotates pairs of features of each head by position-
 * dependent angles given as cos/sin caches: for pair i of the first
 * rotary_embedding_dim features (halves [i, i + d/2] or, interleaved,
 * [2i, 2i + 1]),
 *     out1 = cos_i * x1 - sin_i * x2,   out2 = sin_i * x1 + cos_i * x2,
 * the remaining features pass through. X is [batch, heads, seq, head] or
 * [batch, seq, heads * head] (num_heads given). The caches are
 * [max_position, >= d/2] indexed by position_ids [batch, seq], or without
 * position ids [batch, seq, >= d/2].
 *
 * SwiGLU(a, b) = a * sigmoid(alpha * a) * b, a and b broadcast.
 *
 * Both compute in double and store in the input's float type. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/kernel/tensor_common.h"

#define MASK_FLOATY (KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))

static inline double ld(int32_t dt, const void *p, int64_t i)
{
    switch (dt) {
    case KN_FLOAT: return ((const float *)p)[i];
    case KN_DOUBLE: return ((const double *)p)[i];
    case KN_FLOAT16: return kn_f16_to_f32(((const uint16_t *)p)[i]);
    default: return kn_bf16_to_f32(((const uint16_t *)p)[i]);
    }
}

static inline void st(int32_t dt, void *p, int64_t i, double v)
{
    switch (dt) {
    case KN_FLOAT: ((float *)p)[i] = (float)v; break;
    case KN_DOUBLE: ((double *)p)[i] = v; break;
    case KN_FLOAT16: ((uint16_t *)p)[i] = kn_f32_to_f16((float)v); break;
    default: ((uint16_t *)p)[i] = kn_f32_to_bf16((float)v); break;
    }
}

static void free_state(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* ---- RotaryEmbedding ---- */

typedef struct rope_state {
    int32_t dtype, cache_dtype;
    int64_t batch, heads, seq, head;
    int heads_first;          /* 4-D input: [batch, heads, seq, head] */
    int64_t half;             /* rotary_embedding_dim / 2 */
    int64_t cache_rows, cache_width;
    int interleaved;
} rope_state;

static int rope_prepare(kn_kctx *k)
{
    const char *op = "RotaryEmbedding";
    if (kn_need_inputs(k, 3) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *cs = k->in[1], *sn = k->in[2], *pos = kn_input(k, 3);
    if (cs->dtype != x->dtype || sn->dtype != x->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: cos_cache and sin_cache must have X's type %s",
                       op, kn_dtype_name(x->dtype));
    rope_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    s->dtype = x->dtype;
    s->interleaved = kn_attr_int(k->node, "interleaved", 0) != 0;
    int64_t num_heads = kn_attr_int(k->node, "num_heads", 0);
    if (x->rank == 4) {
        s->heads_first = 1;
        s->batch = x->dims[0];
        s->heads = x->dims[1];
        s->seq = x->dims[2];
        s->head = x->dims[3];
    } else if (x->rank == 3) {
        if (num_heads <= 0 || x->dims[2] % num_heads != 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: a 3-D input needs num_heads "
                           "dividing its last dim %lld", op, (long long)x->dims[2]);
        s->batch = x->dims[0];
        s->seq = x->dims[1];
        s->heads = num_heads;
        s->head = x->dims[2] / num_heads;
    } else {
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: input must be 3-D or 4-D, not rank %d", op,
                       (int)x->rank);
    }
    int64_t dim = kn_attr_int(k->node, "rotary_embedding_dim", 0);
    dim = dim > 0 ? dim : s->head;
    if (dim > s->head || dim % 2 != 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: rotary_embedding_dim %lld must be even "
                       "and at most the head size %lld", op, (long long)dim, (long long)s->head);
    s->half = dim / 2;
    if (!kn_shape_equal(cs->dims, cs->rank, sn->dims, sn->rank))
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: cos_cache and sin_cache differ in shape", op);
    if (pos) {
        if ((pos->dtype != KN_INT64 && pos->dtype != KN_INT32) || pos->rank != 2 ||
            pos->dims[0] != s->batch || pos->dims[1] != s->seq)
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: position_ids must be integer [batch, seq]",
                           op);
        if (cs->rank != 2 || cs->dims[1] < s->half)
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: with position_ids the caches must be "
                           "[max_position, >= %lld]", op, (long long)s->half);
    } else if (cs->rank != 3 || cs->dims[0] != s->batch || cs->dims[1] != s->seq ||
               cs->dims[2] < s->half) {
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: without position_ids the caches must be "
                       "[batch, seq, >= %lld]", op, (long long)s->half);
    }
    s->cache_rows = pos ? cs->dims[0] : s->batch * s->seq;
    s->cache_width = cs->dims[cs->rank - 1];
    kn_copy_desc(k->out[0], x);
    return KN_OK;
}

typedef struct rope_job {
    const rope_state *s;
    const void *x, *cs, *sn;
    const kn_tensor *pos;
    void *y;
    atomic_int bad; /* a position id was out of range (any task may set it) */
} rope_job;

/* Rows = (batch, seq, head) triples; each is one head's features. */
static void rope_range(void *ctx, int64_t begin, int64_t end)
{
    rope_job *j = ctx;
    const rope_state *s = j->s;
    for (int64_t r = begin; r < end; r++) {
        int64_t h = r % s->heads, bs = r / s->heads, b = bs / s->seq, t = bs % s->seq;
        int64_t row = s->heads_first ? (b * s->heads + h) * s->seq + t : bs * s->heads + h;
        int64_t base = row * s->head;
        int64_t c = j->pos ? kn_read_int(j->pos, bs) : bs;
        if (c < 0 || c >= s->cache_rows) {
            atomic_store_explicit(&j->bad, 1, memory_order_relaxed);
            continue;
        }
        int64_t cbase = c * s->cache_width;
        for (int64_t i = 0; i < s->half; i++) {
            int64_t i1 = s->interleaved ? 2 * i : i, i2 = s->interleaved ? 2 * i + 1 : i + s->half;
            double x1 = ld(s->dtype, j->x, base + i1), x2 = ld(s->dtype, j->x, base + i2);
            double co = ld(s->dtype, j->cs, cbase + i), si = ld(s->dtype, j->sn, cbase + i);
            st(s->dtype, j->y, base + i1, co * x1 - si * x2);
            st(s->dtype, j->y, base + i2, si * x1 + co * x2);
        }
        for (int64_t i = 2 * s->half; i < s->head && j->x != j->y; i++)
            st(s->dtype, j->y, base + i, ld(s->dtype, j->x, base + i));
    }
}

static int rope_run(kn_kctx *k)
{
    const rope_state *s = k->state;
    rope_job j = {.s = s, .x = k->in[0]->data, .cs = k->in[1]->data, .sn = k->in[2]->data,
                  .pos = kn_input(k, 3), .y = k->out[0]->data};
    atomic_init(&j.bad, 0);
    int64_t rows = s->batch * s->seq * s->heads;
    kn_parallel_for(k->threads, rows, 1 + KN_GRAIN / (s->head > 0 ? s->head : 1), rope_range, &j);
    if (atomic_load(&j.bad))
        return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "RotaryEmbedding: a position id is "
                       "outside the cache of %lld positions", (long long)s->cache_rows);
    return KN_OK;
}

const kn_op_def kn_op_RotaryEmbedding = {
    .op_type = "RotaryEmbedding", .since_version = 23,
    .dtypes = KN_BIT(KN_FLOAT) | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16),
    .flags = KN_OP_INPLACE, .prepare = rope_prepare, .run = rope_run, .release = free_state
};

/* ---- SwiGLU ---- */

typedef struct swiglu_state {
    kn_bcast_plan plan;
    int32_t dtype;
    double alpha;
} swiglu_state;

static int swiglu_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *a = k->in[0], *b = k->in[1];
    if (a->dtype != b->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "SwiGLU: a is %s but b is %s", kn_dtype_name(a->dtype),
                       kn_dtype_name(b->dtype));
    if (kn_broadcast_shape(a, b, k->out[0], k->err) != KN_OK) {
        kn_err_prefix(k->err, "SwiGLU");
        return k->err->code;
    }
    k->out[0]->dtype = a->dtype;
    swiglu_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "SwiGLU: out of memory");
    const kn_tensor *ins[2] = {a, b};
    kn_bcast_init(&s->plan, k->out[0], 2, ins);
    s->dtype = a->dtype;
    s->alpha = kn_attr_float(k->node, "alpha", 1.0f);
    k->state = s;
    return KN_OK;
}

typedef struct swiglu_job {
    const swiglu_state *s;
    const void *a, *b;
    void *y;
} swiglu_job;

static void swiglu_row(void *ctx, const int64_t *off, int64_t out_off, int64_t n)
{
    const swiglu_job *j = ctx;
    const swiglu_state *s = j->s;
    int32_t last = s->plan.rank - 1;
    int64_t sa = s->plan.strides[0][last], sb = s->plan.strides[1][last];
    for (int64_t t = 0; t < n; t++) {
        double a = ld(s->dtype, j->a, off[0] + t * sa), b = ld(s->dtype, j->b, off[1] + t * sb);
        st(s->dtype, j->y, out_off + t, a / (1 + exp(-s->alpha * a)) * b);
    }
}

static void swiglu_range(void *ctx, int64_t begin, int64_t end)
{
    const swiglu_job *j = ctx;
    kn_bcast_walk(&j->s->plan, begin, end, swiglu_row, ctx);
}

static int swiglu_run(kn_kctx *k)
{
    swiglu_job j = {k->state, k->in[0]->data, k->in[1]->data, k->out[0]->data};
    kn_parallel_for(k->threads, j.s->plan.numel, KN_GRAIN, swiglu_range, &j);
    return KN_OK;
}

const kn_op_def kn_op_SwiGLU = {
    .op_type = "SwiGLU", .since_version = 28, .dtypes = MASK_FLOATY, .flags = KN_OP_INPLACE,
    .prepare = swiglu_prepare, .run = swiglu_run, .release = free_state
};
