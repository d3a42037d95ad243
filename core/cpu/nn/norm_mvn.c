/* MeanVarianceNormalization (opsets 9, 13):
 *
 *   y = (x - mean) / (sqrt(var) + 1e-9)
 *
 * with mean and variance over `axes` (default [0, 2, 3]: per channel); the
 * epsilon is the one ONNX's function body adds. The variance is the mean of
 * squared differences (two passes), never negative from cancellation.
 *
 * The axes may be any set, so elements are walked in row-major order with
 * the index of their statistics group (the kept coordinates) carried along
 * incrementally. The two statistics passes accumulate into scratch in a
 * fixed order (deterministic); the output pass runs in parallel. */
#include <math.h>
#include <stdlib.h>

#include "core/cpu/reduce/reduce_common.h"
#include "core/kernel/tensor_common.h"

#define MVN_EPS 1e-9

typedef struct mvn_state {
    int32_t dtype, rank;
    int64_t dims[KN_MAX_RANK];
    int64_t gstrides[KN_MAX_RANK]; /* group index step per dim; 0 on reduced dims */
    int64_t groups, count, numel;
} mvn_state;

enum { MVN_SUM, MVN_SQDIFF, MVN_OUT };

typedef struct mvn_job {
    const mvn_state *s;
    const char *x;
    char *y;
    double *mean, *dev; /* per group: mean, then 1 / (std + eps) */
} mvn_job;

/* Visits elements [begin, end) in runs of up to KN_CHUNK, tracking each
 * element's group. */
static void mvn_walk(const mvn_job *j, int64_t begin, int64_t end, int mode)
{
    const mvn_state *s = j->s;
    size_t es = kn_dtype_size(s->dtype);
    int64_t idx[KN_MAX_RANK], g = 0, rest = begin;
    for (int32_t d = s->rank - 1; d >= 0; d--) {
        idx[d] = rest % s->dims[d];
        rest /= s->dims[d];
        g += idx[d] * s->gstrides[d];
    }
    double buf[KN_CHUNK];
    for (int64_t i0 = begin; i0 < end; i0 += KN_CHUNK) {
        int64_t n = end - i0 < KN_CHUNK ? end - i0 : KN_CHUNK;
        rd_to_f64(s->dtype, j->x + (size_t)i0 * es, buf, n);
        for (int64_t i = 0; i < n; i++) {
            double v = buf[i];
            if (mode == MVN_SUM)
                j->mean[g] += v;
            else if (mode == MVN_SQDIFF)
                j->dev[g] += (v - j->mean[g]) * (v - j->mean[g]);
            else
                buf[i] = (v - j->mean[g]) * j->dev[g];
            for (int32_t d = s->rank - 1; d >= 0; d--) { /* next element */
                g += s->gstrides[d];
                if (++idx[d] < s->dims[d])
                    break;
                g -= idx[d] * s->gstrides[d];
                idx[d] = 0;
            }
        }
        if (mode == MVN_OUT)
            rd_from_f64(s->dtype, buf, j->y + (size_t)i0 * es, n);
    }
}

static void mvn_out_range(void *ctx, int64_t begin, int64_t end)
{
    mvn_walk(ctx, begin, end, MVN_OUT);
}

static int mvn_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    int32_t dt = x->dtype;
    if (dt != KN_FLOAT && dt != KN_DOUBLE && dt != KN_FLOAT16 && dt != KN_BFLOAT16)
        return kn_fail(k->err, KN_ERR_DTYPE,
                       "MeanVarianceNormalization: input type %s is not supported",
                       kn_dtype_name(dt));
    static const int64_t default_axes[] = {0, 2, 3};
    int32_t n_axes = 0, norm[KN_MAX_RANK];
    const int64_t *axes = kn_attr_ints(k->node, "axes", &n_axes);
    if (!kn_node_attr(k->node, "axes"))
        axes = default_axes, n_axes = 3;
    if (n_axes > KN_MAX_RANK)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "MeanVarianceNormalization: too many axes");
    if (kn_norm_axes(k, axes, n_axes, x->rank, 1, norm) != KN_OK)
        return k->err->code;
    mvn_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "MeanVarianceNormalization: out of memory");
    k->state = s;
    int reduced[KN_MAX_RANK] = {0};
    for (int32_t i = 0; i < n_axes; i++)
        reduced[norm[i]] = 1;
    s->dtype = dt;
    s->rank = x->rank;
    s->groups = s->count = 1;
    for (int32_t d = x->rank - 1; d >= 0; d--) {
        s->dims[d] = x->dims[d];
        s->gstrides[d] = reduced[d] ? 0 : s->groups;
        if (reduced[d])
            s->count *= x->dims[d];
        else
            s->groups *= x->dims[d];
    }
    s->numel = kn_tensor_numel(x);
    kn_copy_desc(k->out[0], x);
    k->scratch_bytes = 2 * (size_t)s->groups * sizeof(double);
    return KN_OK;
}

static int mvn_run(kn_kctx *k)
{
    const mvn_state *s = k->state;
    if (s->numel <= 0)
        return KN_OK;
    double *mean = k->scratch, *dev = mean + s->groups;
    for (int64_t g = 0; g < s->groups; g++)
        mean[g] = dev[g] = 0;
    mvn_job j = {s, k->in[0]->data, k->out[0]->data, mean, dev};
    mvn_walk(&j, 0, s->numel, MVN_SUM);
    for (int64_t g = 0; g < s->groups; g++)
        mean[g] /= (double)s->count;
    mvn_walk(&j, 0, s->numel, MVN_SQDIFF);
    for (int64_t g = 0; g < s->groups; g++)
        dev[g] = 1.0 / (sqrt(dev[g] / (double)s->count) + MVN_EPS);
    kn_parallel_for(k->threads, s->numel, KN_GRAIN, mvn_out_range, &j);
    return KN_OK;
}

static void mvn_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_MeanVarianceNormalization = {
    .op_type = "MeanVarianceNormalization", .since_version = 9,
    .dtypes = KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16), .prepare = mvn_prepare,
    .run = mvn_run, .release = mvn_release
};
