/* Where(condition, X, Y): X where condition is true, else Y, with all three
 * broadcast together. Only selects bytes, so it works on element size. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

typedef struct where_state {
    kn_bcast_plan plan;
    size_t es;
} where_state;

static int where_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 3) != KN_OK)
        return k->err->code;
    const kn_tensor *c = k->in[0], *x = kn_input(k, 1), *y = kn_input(k, 2);
    kn_tensor *out = k->out[0];
    if (!x || !y)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Where: needs three inputs");
    if (c->dtype != KN_BOOL)
        return kn_fail(k->err, KN_ERR_DTYPE, "Where: condition must be bool, not %s",
                       kn_dtype_name(c->dtype));
    if (x->dtype != y->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "Where: X is %s but Y is %s", kn_dtype_name(x->dtype),
                       kn_dtype_name(y->dtype));
    size_t es = kn_dtype_size(x->dtype);
    if (es == 0)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Where: type %s is not supported",
                       kn_dtype_name(x->dtype));
    if (kn_broadcast_shape(c, x, out, k->err) != KN_OK ||
        kn_broadcast_shape(out, y, out, k->err) != KN_OK) {
        kn_err_prefix(k->err, "Where");
        return k->err->code;
    }
    out->dtype = x->dtype;
    where_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Where: out of memory");
    const kn_tensor *ins[3] = {c, x, y};
    kn_bcast_init(&s->plan, out, 3, ins);
    s->es = es;
    k->state = s;
    return KN_OK;
}

typedef struct where_job {
    const where_state *s;
    const uint8_t *c;
    const char *x, *y;
    char *out;
} where_job;

#define SELECT_LOOP(T)                                                        \
    do {                                                                      \
        const T *X = (const T *)x, *Y = (const T *)y;                         \
        T *O = (T *)o;                                                        \
        for (int64_t i = 0; i < n; i++)                                       \
            O[i] = c[i * sc] ? X[i * sx] : Y[i * sy];                         \
    } while (0)

static void where_row(void *ctx, const int64_t *off, int64_t out_off, int64_t n)
{
    const where_job *j = ctx;
    const kn_bcast_plan *p = &j->s->plan;
    const size_t es = j->s->es;
    const int32_t last = p->rank - 1;
    const int64_t sc = p->strides[0][last], sx = p->strides[1][last], sy = p->strides[2][last];
    const uint8_t *c = j->c + off[0];
    const char *x = j->x + (size_t)off[1] * es, *y = j->y + (size_t)off[2] * es;
    char *o = j->out + (size_t)out_off * es;
    switch (es) {
    case 1: SELECT_LOOP(uint8_t); break;
    case 2: SELECT_LOOP(uint16_t); break;
    case 4: SELECT_LOOP(uint32_t); break;
    case 8: SELECT_LOOP(uint64_t); break;
    default:
        for (int64_t i = 0; i < n; i++)
            memcpy(o + (size_t)i * es, c[i * sc] ? x + (size_t)(i * sx) * es : y + (size_t)(i * sy) * es, es);
    }
}

static void where_range(void *ctx, int64_t begin, int64_t end)
{
    const where_job *j = ctx;
    kn_bcast_walk(&j->s->plan, begin, end, where_row, ctx);
}

static int where_run(kn_kctx *k)
{
    const where_state *s = k->state;
    where_job job = {s, k->in[0]->data, k->in[1]->data, k->in[2]->data, k->out[0]->data};
    if (s->plan.numel > 0)
        kn_parallel_for(k->threads, s->plan.numel, KN_GRAIN, where_range, &job);
    return KN_OK;
}

static void where_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_Where = {
    .op_type = "Where", .since_version = 9, .dtypes = KN_BIT(KN_BOOL), .prepare = where_prepare,
    .run = where_run, .release = where_release
};
