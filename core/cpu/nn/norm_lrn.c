/* LRN, local response normalisation across channels (opsets 1, 13):
 *
 *   y[n,c,...] = x[n,c,...] / (bias + alpha / size * sum x[n,i,...]^2)^beta
 *
 * with i over the window max(0, c - floor((size-1)/2)) ..
 * min(C-1, c + ceil((size-1)/2)). The input is an (N, C, S) view; each
 * unit is one n and a block of up to LRN_COLS spatial positions, whose
 * channel rows are contiguous, so every step converts and combines a
 * contiguous segment. Math is in double. */
#include <math.h>
#include <stdlib.h>

#include "core/cpu/reduce/reduce_common.h"
#include "core/kernel/tensor_common.h"

#define LRN_COLS 64

typedef struct lrn_state {
    int32_t dtype;
    int64_t n, c, sp, blocks;
    int64_t before, after; /* window reach below / above c */
    double alpha_over_size, beta, bias;
} lrn_state;

typedef struct lrn_job {
    const lrn_state *s;
    const char *x;
    char *y;
} lrn_job;

static void lrn_range(void *ctx, int64_t begin, int64_t end)
{
    const lrn_job *j = ctx;
    const lrn_state *s = j->s;
    size_t es = kn_dtype_size(s->dtype);
    double buf[LRN_COLS], sq[LRN_COLS];
    for (int64_t u = begin; u < end; u++) {
        int64_t n = u / s->blocks, p0 = (u % s->blocks) * LRN_COLS;
        int64_t w = s->sp - p0 < LRN_COLS ? s->sp - p0 : LRN_COLS;
        for (int64_t c = 0; c < s->c; c++) {
            int64_t lo = c - s->before < 0 ? 0 : c - s->before;
            int64_t hi = c + s->after > s->c - 1 ? s->c - 1 : c + s->after;
            for (int64_t l = 0; l < w; l++)
                sq[l] = 0;
            for (int64_t i = lo; i <= hi; i++) {
                rd_to_f64(s->dtype, j->x + (size_t)((n * s->c + i) * s->sp + p0) * es, buf, w);
                for (int64_t l = 0; l < w; l++)
                    sq[l] += buf[l] * buf[l];
            }
            size_t off = (size_t)((n * s->c + c) * s->sp + p0) * es;
            rd_to_f64(s->dtype, j->x + off, buf, w);
            for (int64_t l = 0; l < w; l++)
                buf[l] /= pow(s->bias + s->alpha_over_size * sq[l], s->beta);
            rd_from_f64(s->dtype, buf, j->y + off, w);
        }
    }
}

static int lrn_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    int32_t dt = x->dtype;
    if (dt != KN_FLOAT && dt != KN_DOUBLE && dt != KN_FLOAT16 && dt != KN_BFLOAT16)
        return kn_fail(k->err, KN_ERR_DTYPE, "LRN: input type %s is not supported",
                       kn_dtype_name(dt));
    if (x->rank < 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "LRN: input must be (N, C, ...), got rank %d",
                       (int)x->rank);
    int64_t size = kn_attr_int(k->node, "size", 0);
    if (size <= 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "LRN: attribute 'size' must be positive, got %lld", (long long)size);
    lrn_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "LRN: out of memory");
    k->state = s;
    s->dtype = dt;
    s->n = x->dims[0];
    s->c = x->dims[1];
    s->sp = kn_shape_numel(x->dims + 2, x->rank - 2);
    s->blocks = (s->sp + LRN_COLS - 1) / LRN_COLS;
    s->before = (size - 1) / 2;
    s->after = size - 1 - s->before; /* ceil((size-1)/2) */
    s->alpha_over_size = kn_attr_float(k->node, "alpha", 1e-4f) / (double)size;
    s->beta = kn_attr_float(k->node, "beta", 0.75f);
    s->bias = kn_attr_float(k->node, "bias", 1.0f);
    kn_copy_desc(k->out[0], x);
    return KN_OK;
}

static int lrn_run(kn_kctx *k)
{
    const lrn_state *s = k->state;
    int64_t units = s->n * s->blocks;
    if (units <= 0 || s->c <= 0)
        return KN_OK;
    lrn_job j = {s, k->in[0]->data, k->out[0]->data};
    int64_t cost = s->c * (s->before + s->after + 2) * LRN_COLS;
    kn_parallel_for(k->threads, units, 1 + KN_GRAIN / cost, lrn_range, &j);
    return KN_OK;
}

static void lrn_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_LRN = {
    .op_type = "LRN", .since_version = 1,
    .dtypes = KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16), .prepare = lrn_prepare,
    .run = lrn_run, .release = lrn_release
};
