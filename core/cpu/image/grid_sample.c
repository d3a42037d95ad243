/* GridSample (opset 16: bilinear / nearest / bicubic over 2-D images;
 * opset 20+: linear / nearest / cubic over any number of spatial dims;
 * both spellings are accepted at every opset): padding modes zeros,
 * border, reflection; align_corners.
 *
 * X is N x C x D1..Dr, grid N x O1..Ok x r holding normalised coordinates
 * in [-1, 1], last spatial dim first (x, y, z). For each grid point the
 * taps (input offset, weight) are worked out once per spatial dim and
 * combined; every channel then reuses them. Coordinates follow PyTorch's
 * grid_sampler as ONNX's reference does: denormalise, round for nearest,
 * bring an outside coordinate back by clamping (border) or reflecting
 * (reflection), then fetch each tap with the same padding rule (zeros: 0
 * outside). Nearest rounds half to even in every rank (ONNX's test data
 * does so in 3-D too, where PyTorch rounds half away from zero). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu/image/image_common.h"

enum { GS_LINEAR, GS_NEAREST, GS_CUBIC };
enum { GS_ZEROS, GS_BORDER, GS_REFLECTION };

#define GS_MAX_TAPS 4
#define GS_MAX_COMBOS 256 /* 4 taps over 4 dims, 2 over 8 */

typedef struct gs_state {
    int32_t nsp, dtype;
    int mode, padding, align;
    int64_t batch, channels, points; /* points: grid positions per image */
    int64_t in_dims[KN_MAX_RANK], in_size;
} gs_state;

/* Folds x back into [lo, hi] by reflecting at the borders. */
static double reflect(double x, double lo, double hi)
{
    double range = hi - lo;
    if (range <= 0)
        return lo;
    if (x < lo) {
        double dx = lo - x;
        double n = floor(dx / range), r = dx - n * range;
        return fmod(n, 2) == 0 ? lo + r : hi - r;
    }
    if (x > hi) {
        double dx = x - hi;
        double n = floor(dx / range), r = dx - n * range;
        return fmod(n, 2) == 0 ? hi - r : lo + r;
    }
    return x;
}

/* Input index actually read for tap index i along a dim of d elements;
 * -1 when the tap reads the zero padding. */
static int64_t fetch_index(const gs_state *st, int64_t i, int64_t d, double lo, double hi)
{
    if (d <= 0)
        return -1; /* an empty image has only padding */
    switch (st->padding) {
    case GS_ZEROS: return i >= 0 && i < d ? i : -1;
    case GS_BORDER: return i < 0 ? 0 : i >= d ? d - 1 : i;
    default: {
        int64_t r = (int64_t)reflect((double)i, lo, hi);
        return r < 0 ? 0 : r >= d ? d - 1 : r;
    }
    }
}

/* Taps along one dim for normalised coordinate g: returns their count and
 * fills offsets (index * stride, -1 for zero padding) and weights. */
static int dim_taps(const gs_state *st, double g, int64_t d, int64_t stride, int64_t *off,
                    double *w)
{
    double x = st->align ? (g + 1) / 2 * (double)(d - 1) : ((g + 1) * (double)d - 1) / 2;
    double lo = st->align ? 0 : -0.5, hi = st->align ? (double)(d - 1) : (double)d - 0.5;
    if (st->dtype != KN_DOUBLE)
        x = (float)x; /* the reference keeps coordinates in float */
    if (st->mode == GS_NEAREST)
        x = nearbyint(x);
    if (x < lo || x > hi) {
        if (st->padding == GS_BORDER)
            x = x < 0 ? 0 : x > (double)(d - 1) ? (double)(d - 1) : x;
        else if (st->padding == GS_REFLECTION)
            x = reflect(x, lo, hi);
    }
    if (!(x > -1e18 && x < 1e18)) /* NaN or absurd: read the padding */
        x = -2;
    int n = st->mode == GS_NEAREST ? 1 : st->mode == GS_LINEAR ? 2 : 4;
    int64_t base;
    if (st->mode == GS_NEAREST) {
        base = (int64_t)x; /* already integral; truncation as the reference */
        w[0] = 1;
    } else {
        double f = floor(x), t = x - f;
        base = (int64_t)f;
        if (st->mode == GS_LINEAR) {
            w[0] = 1 - t;
            w[1] = t;
        } else {
            base -= 1;
            for (int i = 0; i < 4; i++)
                w[i] = img_cubic(t + 1 - i, -0.75);
        }
    }
    for (int i = 0; i < n; i++) {
        int64_t idx = fetch_index(st, base + i, d, lo, hi);
        off[i] = idx < 0 ? -1 : idx * stride;
    }
    return n;
}

static int gs_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *grid = k->in[1];
    if (!(KN_BIT(grid->dtype) & IMG_MASK_FLOAT))
        return kn_fail(k->err, KN_ERR_DTYPE, "GridSample: grid must be a float type, not %s",
                       kn_dtype_name(grid->dtype));
    int32_t nsp = x->rank - 2;
    if (nsp < 1 || grid->rank != x->rank || grid->dims[0] != x->dims[0] ||
        grid->dims[grid->rank - 1] != nsp)
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "GridSample: X must be N x C x spatial and grid N x spatial x %d",
                       (int)(nsp > 0 ? nsp : 0));
    if (k->opset < 20 && nsp != 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "GridSample: opset %lld takes 4-D input only",
                       (long long)k->opset);
    const char *mode = kn_attr_string(k->node, "mode", k->opset < 20 ? "bilinear" : "linear");
    const char *pad = kn_attr_string(k->node, "padding_mode", "zeros");
    gs_state st = {.nsp = nsp, .dtype = x->dtype};
    st.mode = strcmp(mode, "linear") == 0 || strcmp(mode, "bilinear") == 0 ? GS_LINEAR
              : strcmp(mode, "nearest") == 0                               ? GS_NEAREST
              : strcmp(mode, "cubic") == 0 || strcmp(mode, "bicubic") == 0 ? GS_CUBIC
                                                                           : -1;
    st.padding = strcmp(pad, "zeros") == 0        ? GS_ZEROS
                 : strcmp(pad, "border") == 0     ? GS_BORDER
                 : strcmp(pad, "reflection") == 0 ? GS_REFLECTION
                                                  : -1;
    if (st.mode < 0 || st.padding < 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "GridSample: unknown %s '%s'",
                       st.mode < 0 ? "mode" : "padding_mode", st.mode < 0 ? mode : pad);
    int taps = st.mode == GS_NEAREST ? 1 : st.mode == GS_LINEAR ? 2 : 4, combos = 1;
    for (int32_t i = 0; i < nsp; i++)
        combos *= taps;
    if (combos > GS_MAX_COMBOS)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED,
                       "GridSample: %s over %d spatial dims is not supported", mode, (int)nsp);
    st.align = kn_attr_int(k->node, "align_corners", 0) != 0;
    st.batch = x->dims[0];
    st.channels = x->dims[1];
    st.points = kn_shape_numel(grid->dims + 1, nsp);
    memcpy(st.in_dims, x->dims + 2, sizeof(int64_t) * (size_t)nsp);
    st.in_size = kn_shape_numel(x->dims + 2, nsp);
    gs_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "GridSample: out of memory");
    *s = st;
    k->state = s;
    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = x->rank;
    y->dims[0] = x->dims[0];
    y->dims[1] = x->dims[1];
    memcpy(y->dims + 2, grid->dims + 1, sizeof(int64_t) * (size_t)nsp);
    return KN_OK;
}

typedef struct gs_job {
    const gs_state *st;
    const kn_tensor *grid;
    const void *x;
    void *y;
} gs_job;

/* The tap combinations of one grid point: offsets into a channel plane
 * and weights; combinations reading zero padding are left out. */
static int point_combos(const gs_job *j, int64_t n, int64_t p, int64_t *off, double *w)
{
    const gs_state *st = j->st;
    int64_t toff[KN_MAX_RANK][GS_MAX_TAPS];
    double tw[KN_MAX_RANK][GS_MAX_TAPS];
    int nt[KN_MAX_RANK];
    int64_t stride = 1;
    const int64_t gbase = (n * st->points + p) * st->nsp;
    for (int32_t d = st->nsp - 1; d >= 0; d--) {
        /* grid component 0 is the last spatial dim */
        double g = kn_read_double(j->grid, gbase + (st->nsp - 1 - d));
        nt[d] = dim_taps(st, g, st->in_dims[d], stride, toff[d], tw[d]);
        stride *= st->in_dims[d];
    }
    int count = 0, t[KN_MAX_RANK] = {0};
    for (;;) {
        int64_t o = 0;
        double wt = 1;
        int skip = 0;
        for (int32_t d = 0; d < st->nsp; d++) {
            if (toff[d][t[d]] < 0)
                skip = 1;
            o += toff[d][t[d]];
            wt *= tw[d][t[d]];
        }
        if (!skip && wt != 0) {
            off[count] = o;
            w[count++] = wt;
        }
        int32_t d = st->nsp - 1;
        for (; d >= 0; d--) {
            if (++t[d] < nt[d])
                break;
            t[d] = 0;
        }
        if (d < 0)
            return count;
    }
}

#define GS_DEFINE(arg, DT, T, ACC, SFX, LOAD, STORE)                                               \
    static void gs_range_##SFX(void *ctx, int64_t begin, int64_t end)                              \
    {                                                                                              \
        const gs_job *j = ctx;                                                                     \
        const gs_state *st = j->st;                                                                \
        int64_t off[GS_MAX_COMBOS];                                                                \
        double w[GS_MAX_COMBOS];                                                                   \
        for (int64_t item = begin; item < end; item++) {                                           \
            int64_t n = item / st->points, p = item % st->points;                                  \
            int count = point_combos(j, n, p, off, w);                                             \
            const T *x = (const T *)j->x + n * st->channels * st->in_size;                         \
            T *y = (T *)j->y + n * st->channels * st->points + p;                                  \
            for (int64_t c = 0; c < st->channels; c++) {                                           \
                const T *xc = x + c * st->in_size;                                                 \
                ACC s = 0;                                                                         \
                for (int i = 0; i < count; i++)                                                    \
                    s += (ACC)w[i] * (ACC)LOAD(xc + off[i]);                                       \
                STORE(y + c * st->points, s);                                                      \
            }                                                                                      \
        }                                                                                          \
    }
IMG_TYPES_FLOAT(GS_DEFINE, _)
#define GS_ENTRY(arg, DT, T, ACC, SFX, LOAD, STORE) [DT] = gs_range_##SFX,
static const kn_range_fn GS_RANGES[KN_DTYPE_COUNT] = {IMG_TYPES_FLOAT(GS_ENTRY, _)};

static int gs_run(kn_kctx *k)
{
    const gs_state *st = k->state;
    gs_job j = {st, k->in[1], k->in[0]->data, k->out[0]->data};
    int64_t work = 8 + st->channels * 4;
    kn_parallel_for(k->threads, st->batch * st->points, 1 + KN_GRAIN / work, GS_RANGES[st->dtype], &j);
    return KN_OK;
}

static void gs_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_gridsample_16 = {
    .op_type = "GridSample", .since_version = 16, .until_version = 19, .dtypes = IMG_MASK_FLOAT,
    .prepare = gs_prepare, .run = gs_run, .release = gs_release
};
const kn_op_def kn_op_gridsample_20 = {
    .op_type = "GridSample", .since_version = 20, .dtypes = IMG_MASK_FLOAT,
    .prepare = gs_prepare, .run = gs_run, .release = gs_release
};
