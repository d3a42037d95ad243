/* RoiAlign (opsets 10 and 16+): average or max of bilinear samples over
 * each bin of each region of interest; coordinate_transformation_mode
 * half_pixel (16+ default: box corners shifted by half a pixel) or
 * output_half_pixel (opset 10 behaviour: unshifted, boxes at least 1x1).
 *
 * Samples follow the reference (Detectron / ONNX Runtime): sampling_ratio
 * samples per bin side, or ceil(bin size) when it is 0; a sample more
 * than one pixel outside the map contributes 0; max mode takes the
 * largest weighted corner of each sample, as ONNX Runtime does. Rois and
 * batch indices are data, checked in run(): an index out of range or an
 * absurd box fails with KN_ERR_INVALID_ARGUMENT. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu/image/image_common.h"

/* Largest samples per bin side; a box needing more is rejected rather
 * than looping for minutes. */
#define RA_MAX_GRID 4096

typedef struct ra_state {
    int32_t dtype;
    int is_max, half_pixel;
    int64_t rois, channels, height, width, oh, ow, batch;
    int64_t sampling;
    double scale;
} ra_state;

static int ra_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 3) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *rois = k->in[1], *bi = k->in[2];
    if (x->rank != 4)
        return kn_fail(k->err, KN_ERR_SHAPE, "RoiAlign: X must be N x C x H x W, not rank %d",
                       (int)x->rank);
    if (rois->dtype != x->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "RoiAlign: rois is %s but X is %s",
                       kn_dtype_name(rois->dtype), kn_dtype_name(x->dtype));
    if (bi->dtype != KN_INT64 && bi->dtype != KN_INT32)
        return kn_fail(k->err, KN_ERR_DTYPE, "RoiAlign: batch_indices must be int64");
    if (rois->rank != 2 || rois->dims[1] != 4 || bi->rank != 1 || bi->dims[0] != rois->dims[0])
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "RoiAlign: rois must be num_rois x 4 and batch_indices num_rois long");
    const char *mode = kn_attr_string(k->node, "mode", "avg");
    const char *ctm = kn_attr_string(k->node, "coordinate_transformation_mode",
                                     k->opset >= 16 ? "half_pixel" : "output_half_pixel");
    ra_state st = {.dtype = x->dtype};
    st.is_max = strcmp(mode, "max") == 0;
    if (!st.is_max && strcmp(mode, "avg") != 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "RoiAlign: unknown mode '%s'", mode);
    st.half_pixel = strcmp(ctm, "half_pixel") == 0;
    if (!st.half_pixel && strcmp(ctm, "output_half_pixel") != 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "RoiAlign: unknown coordinate_transformation_mode '%s'", ctm);
    st.oh = kn_attr_int(k->node, "output_height", 1);
    st.ow = kn_attr_int(k->node, "output_width", 1);
    st.sampling = kn_attr_int(k->node, "sampling_ratio", 0);
    st.scale = kn_attr_float(k->node, "spatial_scale", 1.0f);
    if (st.oh < 1 || st.ow < 1 || st.sampling < 0 || st.sampling > RA_MAX_GRID)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "RoiAlign: output_height, output_width must be >= 1 and sampling_ratio "
                       "in [0, %d]",
                       RA_MAX_GRID);
    st.rois = rois->dims[0];
    st.batch = x->dims[0];
    st.channels = x->dims[1];
    st.height = x->dims[2];
    st.width = x->dims[3];
    ra_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "RoiAlign: out of memory");
    *s = st;
    k->state = s;
    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = 4;
    y->dims[0] = st.rois;
    y->dims[1] = st.channels;
    y->dims[2] = st.oh;
    y->dims[3] = st.ow;
    return KN_OK;
}

/* One region's geometry. */
typedef struct ra_box {
    double y0, x0, bin_h, bin_w;
    int64_t grid_h, grid_w, batch;
} ra_box;

/* Bilinear sample position along one axis of n pixels: the two indices
 * and their weights; 0 when the sample is more than a pixel outside. */
typedef struct ra_tap {
    int64_t lo, hi;
    double wlo, whi;
    int valid;
} ra_tap;

static ra_tap axis_tap(double v, int64_t n)
{
    ra_tap t = {0, 0, 0, 0, 0};
    if (!(v >= -1.0 && v <= (double)n) || n <= 0) /* NaN too */
        return t;
    v = v > 0 ? v : 0;
    int64_t lo = (int64_t)v, hi;
    if (lo >= n - 1) {
        lo = hi = n - 1;
        v = (double)lo;
    } else {
        hi = lo + 1;
    }
    t.lo = lo;
    t.hi = hi;
    t.whi = v - (double)lo;
    t.wlo = 1 - t.whi;
    t.valid = 1;
    return t;
}

typedef struct ra_job {
    const ra_state *st;
    const kn_tensor *rois, *bi;
    const void *x;
    void *y;
} ra_job;

static int make_box(const ra_state *st, const kn_tensor *rois, const kn_tensor *bi, int64_t r,
                    ra_box *b)
{
    double off = st->half_pixel ? 0.5 : 0;
    double x1 = kn_read_double(rois, 4 * r) * st->scale - off;
    double y1 = kn_read_double(rois, 4 * r + 1) * st->scale - off;
    double x2 = kn_read_double(rois, 4 * r + 2) * st->scale - off;
    double y2 = kn_read_double(rois, 4 * r + 3) * st->scale - off;
    double h = y2 - y1, w = x2 - x1;
    if (!st->half_pixel) { /* malformed boxes become 1x1 */
        h = h > 1 ? h : 1;
        w = w > 1 ? w : 1;
    }
    b->y0 = y1;
    b->x0 = x1;
    b->bin_h = h / (double)st->oh;
    b->bin_w = w / (double)st->ow;
    double gh = st->sampling > 0 ? (double)st->sampling : ceil(b->bin_h);
    double gw = st->sampling > 0 ? (double)st->sampling : ceil(b->bin_w);
    if (!(gh <= RA_MAX_GRID && gw <= RA_MAX_GRID && isfinite(y1) && isfinite(x1)))
        return 0;
    b->grid_h = gh > 0 ? (int64_t)gh : 0;
    b->grid_w = gw > 0 ? (int64_t)gw : 0;
    b->batch = kn_read_int(bi, r);
    return b->batch >= 0 && b->batch < st->batch;
}

/* The sampling taps of one roi along each axis: they do not depend on the
 * channel, so they are computed once per roi and reused for all its
 * channels (a detector's RoiAlign has 256 of them per roi). A roi whose
 * grid needs more taps than fit here computes them per channel. */
#define RA_TAPS 512
typedef struct ra_taps {
    ra_tap y[RA_TAPS], x[RA_TAPS];
    int ok;
} ra_taps;

static void roi_taps(const ra_state *st, const ra_box *b, ra_taps *t)
{
    t->ok = st->oh * b->grid_h <= RA_TAPS && st->ow * b->grid_w <= RA_TAPS;
    for (int64_t ph = 0; t->ok && ph < st->oh; ph++)
        for (int64_t iy = 0; iy < b->grid_h; iy++)
            t->y[ph * b->grid_h + iy] = axis_tap(
                b->y0 + (double)ph * b->bin_h + ((double)iy + 0.5) * b->bin_h / (double)b->grid_h,
                st->height);
    for (int64_t pw = 0; t->ok && pw < st->ow; pw++)
        for (int64_t ix = 0; ix < b->grid_w; ix++)
            t->x[pw * b->grid_w + ix] = axis_tap(
                b->x0 + (double)pw * b->bin_w + ((double)ix + 0.5) * b->bin_w / (double)b->grid_w,
                st->width);
}

static ra_tap tap_y(const ra_state *st, const ra_box *b, const ra_taps *t, int64_t ph, int64_t iy)
{
    return t->ok ? t->y[ph * b->grid_h + iy]
                 : axis_tap(b->y0 + (double)ph * b->bin_h +
                                ((double)iy + 0.5) * b->bin_h / (double)b->grid_h,
                            st->height);
}

static ra_tap tap_x(const ra_state *st, const ra_box *b, const ra_taps *t, int64_t pw, int64_t ix)
{
    return t->ok ? t->x[pw * b->grid_w + ix]
                 : axis_tap(b->x0 + (double)pw * b->bin_w +
                                ((double)ix + 0.5) * b->bin_w / (double)b->grid_w,
                            st->width);
}

/* One item per (roi, channel): all output bins of that plane. Items of one
 * roi are consecutive, so its box and taps are made when the roi changes. */
#define RA_DEFINE(arg, DT, T, ACC, SFX, LOAD, STORE)                                               \
    static void ra_range_##SFX(void *ctx, int64_t begin, int64_t end)                              \
    {                                                                                              \
        const ra_job *j = ctx;                                                                     \
        const ra_state *st = j->st;                                                                \
        const int64_t W = st->width;                                                               \
        ra_taps taps;                                                                              \
        ra_box b;                                                                                  \
        int64_t roi = -1;                                                                          \
        for (int64_t item = begin; item < end; item++) {                                           \
            int64_t r = item / st->channels, c = item % st->channels;                              \
            if (r != roi) {                                                                        \
                roi = r;                                                                           \
                make_box(st, j->rois, j->bi, r, &b);                                               \
                roi_taps(st, &b, &taps);                                                           \
            }                                                                                      \
            const T *x = (const T *)j->x + (b.batch * st->channels + c) * st->height * W;          \
            T *y = (T *)j->y + item * st->oh * st->ow;                                             \
            int64_t count = b.grid_h * b.grid_w > 0 ? b.grid_h * b.grid_w : 1;                     \
            for (int64_t ph = 0; ph < st->oh; ph++)                                                \
                for (int64_t pw = 0; pw < st->ow; pw++) {                                          \
                    ACC acc = 0;                                                                   \
                    int first = 1;                                                                 \
                    for (int64_t iy = 0; iy < b.grid_h; iy++) {                                    \
                        ra_tap ty = tap_y(st, &b, &taps, ph, iy);                                  \
                        for (int64_t ix = 0; ix < b.grid_w; ix++) {                                \
                            ra_tap tx = tap_x(st, &b, &taps, pw, ix);                              \
                            ACC v1 = 0, v2 = 0, v3 = 0, v4 = 0;                                    \
                            if (ty.valid && tx.valid) {                                            \
                                v1 = (ACC)(ty.wlo * tx.wlo) * (ACC)LOAD(x + ty.lo * W + tx.lo);    \
                                v2 = (ACC)(ty.wlo * tx.whi) * (ACC)LOAD(x + ty.lo * W + tx.hi);    \
                                v3 = (ACC)(ty.whi * tx.wlo) * (ACC)LOAD(x + ty.hi * W + tx.lo);    \
                                v4 = (ACC)(ty.whi * tx.whi) * (ACC)LOAD(x + ty.hi * W + tx.hi);    \
                            }                                                                      \
                            if (!st->is_max) {                                                     \
                                acc += v1 + v2 + v3 + v4;                                          \
                            } else {                                                               \
                                ACC m = v1 > v2 ? v1 : v2;                                         \
                                m = m > v3 ? m : v3;                                               \
                                m = m > v4 ? m : v4;                                               \
                                acc = first || m > acc ? m : acc;                                  \
                                first = 0;                                                         \
                            }                                                                      \
                        }                                                                          \
                    }                                                                              \
                    STORE(y + ph * st->ow + pw, st->is_max ? acc : acc / (ACC)count);              \
                }                                                                                  \
        }                                                                                          \
    }
IMG_TYPES_FLOAT(RA_DEFINE, _)
#define RA_ENTRY(arg, DT, T, ACC, SFX, LOAD, STORE) [DT] = ra_range_##SFX,
static const kn_range_fn RA_RANGES[KN_DTYPE_COUNT] = {IMG_TYPES_FLOAT(RA_ENTRY, _)};

static int ra_run(kn_kctx *k)
{
    const ra_state *st = k->state;
    ra_job j = {st, k->in[1], k->in[2], k->in[0]->data, k->out[0]->data};
    int64_t work = 16;
    for (int64_t r = 0; r < st->rois; r++) {
        ra_box b;
        if (!make_box(st, j.rois, j.bi, r, &b))
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                           "RoiAlign: roi %lld has batch index %lld (batch is %lld) or a box "
                           "that is not finite or too large",
                           (long long)r, (long long)kn_read_int(j.bi, r), (long long)st->batch);
        int64_t wk = b.grid_h * b.grid_w * st->oh * st->ow * 8;
        work = wk > work ? wk : work;
    }
    kn_parallel_for(k->threads, st->rois * st->channels, 1 + KN_GRAIN / work, RA_RANGES[st->dtype],
                    &j);
    return KN_OK;
}

static void ra_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_roialign_10 = {
    .op_type = "RoiAlign", .since_version = 10, .until_version = 15, .dtypes = IMG_MASK_FLOAT,
    .prepare = ra_prepare, .run = ra_run, .release = ra_release
};
const kn_op_def kn_op_roialign_16 = {
    .op_type = "RoiAlign", .since_version = 16, .dtypes = IMG_MASK_FLOAT, .prepare = ra_prepare,
    .run = ra_run, .release = ra_release
};
