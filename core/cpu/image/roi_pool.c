/* MaxRoiPool (opset 1): max pooling of each region of interest into a
 * fixed pooled_shape grid (Fast R-CNN). rois rows are [batch, x1, y1, x2,
 * y2] in input coordinates scaled by spatial_scale and rounded; each bin
 * covers [floor(i * bin), ceil((i + 1) * bin)) of the box, clipped to the
 * map; an empty bin gives 0. Rois are data: a batch index out of range or
 * a box that is not finite fails at run time with
 * KN_ERR_INVALID_ARGUMENT. */
#include <math.h>
#include <stdlib.h>

#include "core/cpu/image/image_common.h"

typedef struct rp_state {
    int32_t dtype;
    int64_t rois, batch, channels, height, width, ph, pw;
    double scale;
} rp_state;

static int rp_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *rois = k->in[1];
    if (x->rank != 4)
        return kn_fail(k->err, KN_ERR_SHAPE, "MaxRoiPool: X must be N x C x H x W");
    if (rois->dtype != x->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "MaxRoiPool: rois is %s but X is %s",
                       kn_dtype_name(rois->dtype), kn_dtype_name(x->dtype));
    if (rois->rank != 2 || rois->dims[1] != 5)
        return kn_fail(k->err, KN_ERR_SHAPE, "MaxRoiPool: rois must be num_rois x 5");
    int32_t n;
    const int64_t *ps = kn_attr_ints(k->node, "pooled_shape", &n);
    if (!ps || n != 2 || ps[0] < 1 || ps[1] < 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "MaxRoiPool: pooled_shape must be two sizes >= 1");
    rp_state *st = malloc(sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "MaxRoiPool: out of memory");
    *st = (rp_state){x->dtype,   rois->dims[0], x->dims[0],
                     x->dims[1], x->dims[2],    x->dims[3],
                     ps[0],      ps[1],         kn_attr_float(k->node, "spatial_scale", 1.0f)};
    k->state = st;
    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = 4;
    y->dims[0] = st->rois;
    y->dims[1] = st->channels;
    y->dims[2] = st->ph;
    y->dims[3] = st->pw;
    return KN_OK;
}

/* A box in whole pixels; 0 when its values are unusable. */
typedef struct rp_box {
    int64_t batch, y0, x0;
    double bin_h, bin_w;
} rp_box;

static int make_box(const rp_state *st, const kn_tensor *rois, int64_t r, rp_box *b)
{
    double v[5];
    for (int i = 0; i < 5; i++)
        v[i] = kn_read_double(rois, 5 * r + i);
    for (int i = 1; i < 5; i++) {
        v[i] = round(v[i] * st->scale);
        if (!(fabs(v[i]) < 1e15))
            return 0;
    }
    if (!(v[0] >= 0 && v[0] < (double)st->batch))
        return 0;
    b->batch = (int64_t)v[0];
    b->x0 = (int64_t)v[1];
    b->y0 = (int64_t)v[2];
    double h = v[4] - v[2] + 1, w = v[3] - v[1] + 1;
    b->bin_h = (h > 1 ? h : 1) / (double)st->ph;
    b->bin_w = (w > 1 ? w : 1) / (double)st->pw;
    return 1;
}

/* Bin edge e (already floored or ceiled) shifted by the box origin and
 * clipped to [0, n], in double so a huge box cannot overflow. */
static int64_t clip(double e, int64_t off, int64_t n)
{
    e += (double)off;
    return e < 0 ? 0 : e > (double)n ? n : (int64_t)e;
}

typedef struct rp_job {
    const rp_state *st;
    const kn_tensor *rois;
    const void *x;
    void *y;
} rp_job;

#define RP_DEFINE(arg, DT, T, ACC, SFX, LOAD, STORE)                                               \
    static void rp_range_##SFX(void *ctx, int64_t begin, int64_t end)                              \
    {                                                                                              \
        const rp_job *j = ctx;                                                                     \
        const rp_state *st = j->st;                                                                \
        for (int64_t item = begin; item < end; item++) {                                           \
            int64_t r = item / st->channels, c = item % st->channels;                              \
            rp_box b;                                                                              \
            make_box(st, j->rois, r, &b);                                                          \
            const T *x = (const T *)j->x + (b.batch * st->channels + c) * st->height * st->width;  \
            T *y = (T *)j->y + item * st->ph * st->pw;                                             \
            for (int64_t ph = 0; ph < st->ph; ph++) {                                              \
                int64_t h0 = clip(floor((double)ph * b.bin_h), b.y0, st->height);                  \
                int64_t h1 = clip(ceil((double)(ph + 1) * b.bin_h), b.y0, st->height);             \
                for (int64_t pw = 0; pw < st->pw; pw++) {                                          \
                    int64_t w0 = clip(floor((double)pw * b.bin_w), b.x0, st->width);               \
                    int64_t w1 = clip(ceil((double)(pw + 1) * b.bin_w), b.x0, st->width);          \
                    ACC m = 0;                                                                     \
                    for (int64_t h = h0; h < h1; h++)                                              \
                        for (int64_t w = w0; w < w1; w++) {                                        \
                            ACC v = (ACC)LOAD(x + h * st->width + w);                              \
                            m = (h == h0 && w == w0) || v > m ? v : m;                             \
                        }                                                                          \
                    STORE(y + ph * st->pw + pw, m);                                                \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
IMG_TYPES_FLOAT(RP_DEFINE, _)
#define RP_ENTRY(arg, DT, T, ACC, SFX, LOAD, STORE) [DT] = rp_range_##SFX,
static const kn_range_fn RP_RANGES[KN_DTYPE_COUNT] = {IMG_TYPES_FLOAT(RP_ENTRY, _)};

static int rp_run(kn_kctx *k)
{
    const rp_state *st = k->state;
    rp_job j = {st, k->in[1], k->in[0]->data, k->out[0]->data};
    for (int64_t r = 0; r < st->rois; r++) {
        rp_box b;
        if (!make_box(st, j.rois, r, &b))
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                           "MaxRoiPool: roi %lld has a batch index outside [0, %lld) or a box "
                           "that is not finite",
                           (long long)r, (long long)st->batch);
    }
    int64_t work = st->height * st->width + 1;
    kn_parallel_for(k->threads, st->rois * st->channels, 1 + KN_GRAIN / work, RP_RANGES[st->dtype],
                    &j);
    return KN_OK;
}

static void rp_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_maxroipool_1 = {
    .op_type = "MaxRoiPool", .since_version = 1, .dtypes = IMG_MASK_FLOAT,
    .prepare = rp_prepare, .run = rp_run, .release = rp_release
};
