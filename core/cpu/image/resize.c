/* Resize (opsets 10, 11, 13, 18, 19) and Upsample (7, 9) as an adapter over
 * the same code: nearest / linear / cubic interpolation over any axes,
 * every coordinate_transformation_mode (tf_crop_and_resize with roi and
 * extrapolation_value), the four nearest_modes, cubic_coeff_a,
 * exclude_outside, antialias, axes and keep_aspect_ratio_policy.
 *
 * Interpolation is separable: output element y[o_0..o_r] is the sum over
 * taps t_d of prod_d w_d(o_d, t_d) * x[i_d(o_d, t_d) ...]. prepare()
 * tabulates, per axis and output index, the input indices (pre-multiplied
 * by the input stride, clamped to the edge) and weights, so run() does no
 * coordinate arithmetic. An axis whose every output reads one input with
 * weight 1 (N and C of an image, any nearest axis) keeps a single tap;
 * when every axis is like that the op is a pure gather, done by element
 * size for any fixed-size dtype.
 *
 * Opset 10 and Upsample behave as ONNX's version converter says: the
 * asymmetric transform, nearest rounding down. Scales and sizes decide the
 * output shape, so when they are not constants prepare() asks for their
 * value (KN_ERR_NEEDS_VALUE). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu/image/image_common.h"

enum { RS_NEAREST, RS_LINEAR, RS_CUBIC };
enum {
    CT_HALF_PIXEL,
    CT_HALF_PIXEL_SYMMETRIC,
    CT_PYTORCH_HALF_PIXEL,
    CT_ALIGN_CORNERS,
    CT_ASYMMETRIC,
    CT_TF_HALF_PIXEL_FOR_NN,
    CT_TF_CROP_AND_RESIZE
};
enum { NM_ROUND_PREFER_FLOOR, NM_ROUND_PREFER_CEIL, NM_FLOOR, NM_CEIL };
/* Which signature the node has. */
enum { RS_UPSAMPLE7, RS_UPSAMPLE9, RS_RESIZE10, RS_RESIZE11, RS_RESIZE18 };

typedef struct rs_axis {
    int64_t taps;     /* per output index */
    int64_t *idx;     /* [out][taps] input offsets (index * input stride) */
    double *w;        /* [out][taps] weights */
    uint8_t *outside; /* [out] 1: extrapolation_value (tf_crop_and_resize), or NULL */
} rs_axis;

typedef struct resize_state {
    int32_t rank, dtype;
    int gather; /* every axis one tap of weight 1 */
    int planes; /* float, 2 taps on the last two axes, a plain index on the others */
    int64_t out_dims[KN_MAX_RANK];
    double extrapolation;
    unsigned char extra_elem[16]; /* extrapolation_value as an element */
    rs_axis ax[KN_MAX_RANK];
} resize_state;

/* The widest output row the plane path keeps on the stack (twice). */
#define RS_PLANE_MAX_WIDTH 4096

typedef struct rs_params {
    int mode, ctm, nearest_mode, exclude_outside, antialias;
    double cubic_a;
} rs_params;

static const char *const CT_NAMES[] = {
    "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
    "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
static const char *const NM_NAMES[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};

static int lookup(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* Input coordinate of output index o along an axis of `in` elements
 * resized to `out` (its real-valued length is `width` = scale * in). */
static double source_coord(int ctm, int64_t o, double scale, int64_t in, int64_t out, double width,
                           double roi_lo, double roi_hi)
{
    double x = (double)o;
    switch (ctm) {
    case CT_HALF_PIXEL: return (x + 0.5) / scale - 0.5;
    case CT_HALF_PIXEL_SYMMETRIC: {
        /* centre of the output canvas maps to the centre of the input */
        double offset = (double)in / 2 * (1 - (double)out / width);
        return offset + (x + 0.5) / scale - 0.5;
    }
    case CT_PYTORCH_HALF_PIXEL: return out > 1 ? (x + 0.5) / scale - 0.5 : 0;
    case CT_ALIGN_CORNERS: return width == 1 || out == 1 ? 0 : x * (double)(in - 1) / (width - 1);
    case CT_ASYMMETRIC: return x / scale;
    case CT_TF_HALF_PIXEL_FOR_NN: return (x + 0.5) / scale;
    default: /* CT_TF_CROP_AND_RESIZE */
        if (width == 1)
            return (roi_hi - roi_lo) * (double)(in - 1) / 2 + roi_lo * (double)(in - 1);
        return x * (roi_hi - roi_lo) * (double)(in - 1) / (width - 1) + roi_lo * (double)(in - 1);
    }
}

static int64_t clamp_index(int64_t i, int64_t n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }

/* Taps per output along an axis with this scale: 1 (nearest), 2 (linear)
 * or 4 (cubic), or, when antialiasing a downscale, as many as the kernel
 * stretched by 1 / scale covers. first_tap is the first tap's offset from
 * floor(x). */
static int64_t axis_taps(const rs_params *p, double scale, int64_t *first_tap)
{
    if (p->mode == RS_NEAREST) {
        *first_tap = 0;
        return 1;
    }
    double support = p->mode == RS_LINEAR ? 1 : 2;
    double s = p->antialias && scale < 1 ? scale : 1;
    int64_t start = (int64_t)floor(-support / s) + 1;
    *first_tap = start;
    return 2 - 2 * start;
}

/* Fills one axis's tables. */
static void build_axis(rs_axis *a, const rs_params *p, int64_t in, int64_t out, int64_t stride,
                       double scale, double width, double roi_lo, double roi_hi)
{
    int64_t first;
    a->taps = 1;
    if (out == 0)
        return; /* a tiny scale may stretch the kernel absurdly: no taps needed */
    int64_t n = axis_taps(p, scale, &first);
    double s = p->antialias && scale < 1 ? scale : 1;
    for (int64_t o = 0; o < out; o++) {
        double x = source_coord(p->ctm, o, scale, in, out, width, roi_lo, roi_hi);
        int64_t *idx = a->idx + o * n;
        double *w = a->w + o * n;
        if (a->outside) {
            a->outside[o] = !(x >= 0 && x <= (double)(in - 1)); /* NaN roi too */
            if (a->outside[o]) {
                for (int64_t t = 0; t < n; t++) {
                    idx[t] = 0;
                    w[t] = 0;
                }
                continue;
            }
        }
        x = x > -1e15 ? (x < 1e15 ? x : 1e15)
                      : -1e15; /* edge-clamped anyway; keeps casts defined */
        double base = floor(x), ratio = x - base;
        if (p->mode == RS_NEAREST) {
            int up;
            switch (p->nearest_mode) {
            case NM_ROUND_PREFER_FLOOR: up = ratio > 0.5; break;
            case NM_ROUND_PREFER_CEIL: up = ratio >= 0.5; break;
            case NM_FLOOR: up = 0; break;
            default: up = ratio > 0; break;
            }
            idx[0] = clamp_index((int64_t)base + up, in) * stride;
            w[0] = 1;
            continue;
        }
        double sum = 0;
        for (int64_t t = 0; t < n; t++) {
            int64_t i = (int64_t)base + first + t;
            double d = ((double)(first + t) - ratio) * s;
            double v =
                p->mode == RS_LINEAR ? (fabs(d) < 1 ? 1 - fabs(d) : 0) : img_cubic(d, p->cubic_a);
            if (p->exclude_outside && (i < 0 || i >= in))
                v = 0;
            w[t] = v;
            idx[t] = clamp_index(i, in) * stride;
            sum += v;
        }
        /* The stretched kernels and exclude_outside lose the partition of
         * unity; renormalising restores it. */
        if ((p->antialias || p->exclude_outside) && sum != 0)
            for (int64_t t = 0; t < n; t++)
                w[t] /= sum;
    }
    a->taps = n;
    /* One nonzero weight of exactly 1 per output: keep only that tap. */
    int single = 1;
    for (int64_t o = 0; o < out && single; o++) {
        int nz = 0;
        for (int64_t t = 0; t < n; t++)
            if (a->w[o * n + t] != 0)
                nz++, single &= a->w[o * n + t] == 1;
        single &= nz == 1 || (a->outside && a->outside[o]);
    }
    if (single && n > 1) {
        for (int64_t o = 0; o < out; o++) {
            int64_t keep = 0;
            for (int64_t t = 0; t < n; t++)
                if (a->w[o * n + t] != 0)
                    keep = t;
            a->idx[o] = a->idx[o * n + keep];
            a->w[o] = a->outside && a->outside[o] ? 0 : 1;
        }
        a->taps = 1;
    }
}

static void resize_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* Reads the scales (or sizes) and works out per-axis scale, output size
 * and real-valued output length. */
static int resize_shape(kn_kctx *k, int kind, const int32_t *axes, int32_t naxes, double *scale,
                        int64_t *out, double *width)
{
    const kn_tensor *x = k->in[0];
    const char *op = k->node->op_type;
    int32_t rank = x->rank;
    double sc[KN_MAX_RANK];
    int64_t sz[KN_MAX_RANK];
    int32_t nsc = -1, nsz = -1;
    int rc;
    if (kind == RS_UPSAMPLE7) {
        const float *f = kn_attr_floats(k->node, "scales", &nsc);
        if (!f)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Upsample: attribute scales is required");
        for (int32_t i = 0; i < nsc && i < KN_MAX_RANK; i++)
            sc[i] = f[i];
    } else {
        int32_t si = kind == RS_UPSAMPLE9 || kind == RS_RESIZE10 ? 1 : 2;
        if ((rc = img_const_doubles(k, si, "scales", sc, KN_MAX_RANK, &nsc)) != KN_OK)
            return rc;
        if (kind >= RS_RESIZE11 &&
            (rc = img_const_ints(k, 3, "sizes", sz, KN_MAX_RANK, &nsz)) != KN_OK)
            return rc;
    }
    if (nsc > 0 && nsz > 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "%s: only one of scales and sizes may be given", op);
    if (nsc <= 0 && nsz <= 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: scales or sizes is required", op);
    int32_t given = nsc > 0 ? nsc : nsz;
    if (given != naxes)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: %s has %d values for %d axes", op,
                       nsc > 0 ? "scales" : "sizes", (int)given, (int)naxes);
    for (int32_t d = 0; d < rank; d++) {
        scale[d] = 1;
        out[d] = x->dims[d];
        width[d] = (double)x->dims[d];
    }
    if (nsc > 0) {
        for (int32_t i = 0; i < naxes; i++) {
            int32_t d = axes[i];
            if (!(sc[i] > 0) || isinf(sc[i]))
                return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: scale %g for axis %d must be > 0",
                               op, sc[i], (int)d);
            scale[d] = sc[i];
            width[d] = sc[i] * (double)x->dims[d];
            if (width[d] >= 9.2e18)
                return kn_fail(k->err, KN_ERR_SHAPE, "%s: scale %g makes axis %d too large", op,
                               sc[i], (int)d);
            out[d] = (int64_t)floor(width[d]);
        }
        return KN_OK;
    }
    const char *policy = kind == RS_RESIZE18
                             ? kn_attr_string(k->node, "keep_aspect_ratio_policy", "stretch")
                             : "stretch";
    int stretch = strcmp(policy, "stretch") == 0, not_larger = strcmp(policy, "not_larger") == 0;
    if (!stretch && !not_larger && strcmp(policy, "not_smaller") != 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: unknown keep_aspect_ratio_policy '%s'",
                       op, policy);
    double uniform = not_larger ? INFINITY : 0;
    for (int32_t i = 0; i < naxes; i++) {
        int32_t d = axes[i];
        if (sz[i] < 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: size %lld for axis %d is negative",
                           op, (long long)sz[i], (int)d);
        if (x->dims[d] == 0) {
            if (sz[i] != 0)
                return kn_fail(k->err, KN_ERR_SHAPE, "%s: axis %d is empty and cannot grow to %lld",
                               op, (int)d, (long long)sz[i]);
            out[d] = 0;
            continue;
        }
        double r = (double)sz[i] / (double)x->dims[d];
        if (stretch) {
            scale[d] = r;
            out[d] = sz[i];
            width[d] = (double)sz[i];
        } else {
            uniform = not_larger ? (r < uniform ? r : uniform) : (r > uniform ? r : uniform);
        }
    }
    if (!stretch)
        for (int32_t i = 0; i < naxes; i++) {
            int32_t d = axes[i];
            if (x->dims[d] == 0)
                continue;
            scale[d] = uniform;
            width[d] = uniform * (double)x->dims[d];
            out[d] = (int64_t)floor(width[d] + 0.5); /* round half up */
        }
    for (int32_t d = 0; d < rank; d++)
        if (out[d] > 0 && !(scale[d] > 0))
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: zero scale for axis %d", op, (int)d);
    return KN_OK;
}

static int resize_prepare_kind(kn_kctx *k, int kind)
{
    const char *op = k->node->op_type;
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    int32_t rank = x->rank;
    size_t esz = kn_dtype_size(x->dtype);
    if (rank < 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: input X must have rank >= 1", op);
    if (esz == 0)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: type %s is not supported", op,
                       kn_dtype_name(x->dtype));

    rs_params p = {.ctm = CT_ASYMMETRIC, .nearest_mode = NM_FLOOR, .cubic_a = -0.75};
    const char *mode = kn_attr_string(k->node, "mode", "nearest");
    if (strcmp(mode, "nearest") == 0)
        p.mode = RS_NEAREST;
    else if (strcmp(mode, "linear") == 0 || strcmp(mode, "bilinear") == 0)
        p.mode = RS_LINEAR;
    else if (kind >= RS_RESIZE11 && strcmp(mode, "cubic") == 0)
        p.mode = RS_CUBIC;
    else
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: unknown mode '%s'", op, mode);
    if (kind >= RS_RESIZE11) {
        const char *ctm = kn_attr_string(k->node, "coordinate_transformation_mode", "half_pixel");
        const char *nm = kn_attr_string(k->node, "nearest_mode", "round_prefer_floor");
        p.ctm = lookup(ctm, CT_NAMES, 7);
        p.nearest_mode = lookup(nm, NM_NAMES, 4);
        if (p.ctm < 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                           "%s: unknown coordinate_transformation_mode '%s'", op, ctm);
        if (p.nearest_mode < 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: unknown nearest_mode '%s'", op, nm);
        p.cubic_a = kn_attr_float(k->node, "cubic_coeff_a", -0.75f);
        p.exclude_outside = kn_attr_int(k->node, "exclude_outside", 0) != 0;
        p.antialias = kind >= RS_RESIZE18 && p.mode != RS_NEAREST &&
                      kn_attr_int(k->node, "antialias", 0) != 0;
    }
    if (p.mode != RS_NEAREST && !(KN_BIT(x->dtype) & IMG_MASK_NUMERIC))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: %s interpolation needs a numeric type, not %s",
                       op, mode, kn_dtype_name(x->dtype));

    int32_t axes[KN_MAX_RANK], naxes = rank;
    for (int32_t d = 0; d < rank; d++)
        axes[d] = d;
    const int64_t *ax = kind >= RS_RESIZE18 ? kn_attr_ints(k->node, "axes", &naxes) : NULL;
    if (ax) {
        if (naxes > rank)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: %d axes for rank %d", op, (int)naxes,
                           (int)rank);
        if (kn_norm_axes(k, ax, naxes, rank, 1, axes) != KN_OK)
            return k->err->code;
    } else {
        naxes = rank;
    }

    double scale[KN_MAX_RANK], width[KN_MAX_RANK], roi[2 * KN_MAX_RANK];
    int64_t out[KN_MAX_RANK];
    int rc = resize_shape(k, kind, axes, naxes, scale, out, width);
    if (rc != KN_OK)
        return rc;
    double lo[KN_MAX_RANK], hi[KN_MAX_RANK];
    for (int32_t d = 0; d < rank; d++) {
        lo[d] = 0;
        hi[d] = 1;
    }
    if (p.ctm == CT_TF_CROP_AND_RESIZE) {
        int32_t nroi;
        if ((rc = img_const_doubles(k, 1, "roi", roi, 2 * KN_MAX_RANK, &nroi)) != KN_OK)
            return rc;
        if (nroi != 2 * naxes)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                           "%s: tf_crop_and_resize needs roi with %d values (starts, ends), got %d",
                           op, (int)(2 * naxes), (int)(nroi < 0 ? 0 : nroi));
        for (int32_t i = 0; i < naxes; i++) {
            lo[axes[i]] = roi[i];
            hi[axes[i]] = roi[naxes + i];
        }
    }

    /* Table sizes, then one block for the state and every table. */
    int64_t taps[KN_MAX_RANK], entries = 0, outs = 0, first;
    if (kn_shape_numel(out, rank) < 0)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: output is too large", op);
    for (int32_t d = 0; d < rank; d++) {
        taps[d] = out[d] > 0 ? axis_taps(&p, scale[d], &first) : 1;
        if (out[d] > (INT64_MAX / 64) / taps[d])
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: axis %d is too large to interpolate", op,
                           (int)d);
        entries += out[d] * taps[d];
        outs += out[d];
    }
    int outside = p.ctm == CT_TF_CROP_AND_RESIZE;
    size_t bytes = sizeof(resize_state) + (size_t)entries * (sizeof(int64_t) + sizeof(double)) +
                   (outside ? (size_t)outs : 0);
    resize_state *st = calloc(1, bytes);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory for tables", op);
    int64_t *ip = (int64_t *)(st + 1);
    double *wp = (double *)(ip + entries);
    uint8_t *op8 = (uint8_t *)(wp + entries);
    int64_t stride = 1;
    st->gather = 1;
    for (int32_t d = rank - 1; d >= 0; d--) {
        rs_axis *a = &st->ax[d];
        a->idx = ip;
        a->w = wp;
        a->outside = outside ? op8 : NULL;
        ip += out[d] * taps[d];
        wp += out[d] * taps[d];
        op8 += outside ? out[d] : 0;
        build_axis(a, &p, x->dims[d], out[d], stride, scale[d], width[d], lo[d], hi[d]);
        st->gather &= a->taps == 1;
        stride *= x->dims[d];
    }
    st->rank = rank;
    st->dtype = x->dtype;
    st->planes = rank >= 3 && x->dtype == KN_FLOAT && !outside && st->ax[rank - 1].taps == 2 &&
                 st->ax[rank - 2].taps == 2 && out[rank - 1] <= RS_PLANE_MAX_WIDTH;
    for (int32_t d = 0; st->planes && d < rank - 2; d++)
        for (int64_t i = 0; st->planes && i < out[d]; i++)
            st->planes = st->ax[d].taps == 1 && st->ax[d].w[i] == 1.0;
    st->extrapolation = kn_attr_float(k->node, "extrapolation_value", 0);
    if (kn_convert_supported(x->dtype))
        kn_scalar_from_double(x->dtype, st->extrapolation, st->extra_elem);
    memcpy(st->out_dims, out, sizeof(int64_t) * (size_t)rank);
    k->state = st;

    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = rank;
    memcpy(y->dims, out, sizeof(int64_t) * (size_t)rank);
    return KN_OK;
}

typedef struct rs_job {
    const resize_state *st;
    const void *x;
    void *y;
    size_t esz;
    int64_t width; /* output elements per row (last axis) */
} rs_job;

/* Splits a row number into the outer output indices (all but the last
 * axis); returns 1 if one of them lies outside the crop box. */
static int row_index(const resize_state *st, int64_t row, int64_t *o)
{
    int outside = 0;
    for (int32_t d = st->rank - 2; d >= 0; d--) {
        o[d] = row % st->out_dims[d];
        row /= st->out_dims[d];
        if (st->ax[d].outside && st->ax[d].outside[o[d]])
            outside = 1;
    }
    return outside;
}

/* Pure gather: y[o] = x[sum_d idx_d(o_d)], for any element size. An
 * output row reading the same input row as the one before it (every
 * repeated row of an upscale) is a copy of that row. */
#define RS_GATHER_ROW(T)                                                                           \
    for (int64_t c = 0; c < j->width; c++)                                                         \
        ((T *)y)[c] = ((const T *)x)[li[c]];

static void gather_rows(void *ctx, int64_t begin, int64_t end)
{
    const rs_job *j = ctx;
    const resize_state *st = j->st;
    const rs_axis *last = &st->ax[st->rank - 1];
    const int64_t *li = last->idx;
    const size_t esz = j->esz, row_bytes = (size_t)j->width * esz;
    int64_t o[KN_MAX_RANK], prev_off = -1;
    int prev_outside = -1;
    for (int64_t row = begin; row < end; row++) {
        int outside = row_index(st, row, o);
        int64_t off = 0;
        for (int32_t d = 0; d < st->rank - 1; d++)
            off += st->ax[d].idx[o[d]];
        char *y = (char *)j->y + (size_t)row * row_bytes;
        const char *x = (const char *)j->x + (size_t)off * esz;
        if (outside == prev_outside && (outside || off == prev_off)) {
            memcpy(y, y - row_bytes, row_bytes);
            continue;
        }
        prev_off = off;
        prev_outside = outside;
        if (outside) {
            kn_fill_pattern(y, st->extra_elem, esz, j->width);
            continue;
        }
        switch (esz) {
        case 1: RS_GATHER_ROW(uint8_t); break;
        case 2: RS_GATHER_ROW(uint16_t); break;
        case 4: RS_GATHER_ROW(uint32_t); break;
        case 8: RS_GATHER_ROW(uint64_t); break;
        default:
            for (int64_t c = 0; c < j->width; c++)
                memcpy(y + (size_t)c * esz, x + (size_t)li[c] * esz, esz);
        }
        if (last->outside)
            for (int64_t c = 0; c < j->width; c++)
                if (last->outside[c])
                    memcpy(y + (size_t)c * esz, st->extra_elem, esz);
    }
}

/* acc[c] += wgt * (interpolation along the last axis of input row xr)
 * for the chunk's outputs c0 .. c1, with NL taps each. */
#define RS_LAST_AXIS(ACC, LOAD, NL)                                                                \
    for (int64_t c = c0; c < c1; c++) {                                                            \
        const int64_t *li = last->idx + c * (NL);                                                  \
        const double *lw = last->w + c * (NL);                                                     \
        ACC s = 0;                                                                                 \
        for (int64_t u = 0; u < (NL); u++)                                                         \
            s += (ACC)lw[u] * (ACC)LOAD(xr + li[u]);                                               \
        acc[c - c0] += wgt * s;                                                                    \
    }

/* Weighted rows: the outer axes' tap combinations are walked with an
 * odometer; each contributes weight * (last-axis interpolation of one
 * input row) to an accumulator chunk on the stack. */
#define RS_DEFINE_ROWS(arg, DT, T, ACC, SFX, LOAD, STORE)                                          \
    static void interp_rows_##SFX(void *ctx, int64_t begin, int64_t end)                           \
    {                                                                                              \
        const rs_job *j = ctx;                                                                     \
        const resize_state *st = j->st;                                                            \
        const int32_t outer = st->rank - 1;                                                        \
        const rs_axis *last = &st->ax[outer];                                                      \
        const int64_t nl = last->taps;                                                             \
        const T *x = j->x;                                                                         \
        int64_t o[KN_MAX_RANK], t[KN_MAX_RANK];                                                    \
        ACC acc[KN_CHUNK];                                                                         \
        for (int64_t row = begin; row < end; row++) {                                              \
            int outside = row_index(st, row, o);                                                   \
            T *y = (T *)j->y + row * j->width;                                                     \
            for (int64_t c0 = 0; c0 < j->width; c0 += KN_CHUNK) {                                  \
                int64_t c1 = c0 + KN_CHUNK < j->width ? c0 + KN_CHUNK : j->width;                  \
                for (int64_t c = c0; c < c1; c++)                                                  \
                    acc[c - c0] = 0;                                                               \
                for (int32_t d = 0; d < outer; d++)                                                \
                    t[d] = 0;                                                                      \
                while (!outside) {                                                                 \
                    ACC wgt = 1;                                                                   \
                    int64_t off = 0;                                                               \
                    for (int32_t d = 0; d < outer; d++) {                                          \
                        int64_t e = o[d] * st->ax[d].taps + t[d];                                  \
                        wgt *= (ACC)st->ax[d].w[e];                                                \
                        off += st->ax[d].idx[e];                                                   \
                    }                                                                              \
                    if (wgt != 0) {                                                                \
                        const T *xr = x + off;                                                     \
                        /* fixed tap counts let the compiler unroll the common cases */            \
                        switch (nl) {                                                              \
                        case 1: RS_LAST_AXIS(ACC, LOAD, 1); break;                                 \
                        case 2: RS_LAST_AXIS(ACC, LOAD, 2); break;                                 \
                        case 4: RS_LAST_AXIS(ACC, LOAD, 4); break;                                 \
                        default: RS_LAST_AXIS(ACC, LOAD, nl); break;                               \
                        }                                                                          \
                    }                                                                              \
                    int32_t d = outer - 1;                                                         \
                    for (; d >= 0; d--) {                                                          \
                        if (++t[d] < st->ax[d].taps)                                               \
                            break;                                                                 \
                        t[d] = 0;                                                                  \
                    }                                                                              \
                    if (d < 0)                                                                     \
                        break;                                                                     \
                }                                                                                  \
                for (int64_t c = c0; c < c1; c++) {                                                \
                    if (outside || (last->outside && last->outside[c]))                            \
                        STORE(y + c, st->extrapolation);                                           \
                    else                                                                           \
                        STORE(y + c, acc[c - c0]);                                                 \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
IMG_TYPES_NUMERIC(RS_DEFINE_ROWS, _)

#define RS_ENTRY(arg, DT, T, ACC, SFX, LOAD, STORE) [DT] = interp_rows_##SFX,
static const kn_range_fn INTERP_ROWS[KN_DTYPE_COUNT] = {IMG_TYPES_NUMERIC(RS_ENTRY, _)};

/* One input row interpolated along the last axis: h[c] for every output
 * column, the same sum interp_rows makes (float, taps in order). */
static void horizontal(const rs_axis *last, const float *xr, int64_t width, float *h)
{
    for (int64_t c = 0; c < width; c++)
        h[c] = (float)last->w[2 * c] * xr[last->idx[2 * c]] +
               (float)last->w[2 * c + 1] * xr[last->idx[2 * c + 1]];
}

/* Bilinear over the last two axes, one plane (all outer indices) per item:
 * each input row is interpolated along the last axis once and kept while
 * output rows read it (an 8x upscale reads each row for ~16 output rows),
 * instead of once per output row and tap. The arithmetic is interp_rows'
 * for these tap counts: the same products, summed in the same order. */
static void linear_planes(void *ctx, int64_t begin, int64_t end)
{
    const rs_job *j = ctx;
    const resize_state *st = j->st;
    const int32_t r = st->rank;
    const rs_axis *vert = &st->ax[r - 2], *last = &st->ax[r - 1];
    const int64_t oh = st->out_dims[r - 2], width = j->width;
    float rows[2][RS_PLANE_MAX_WIDTH];
    for (int64_t plane = begin; plane < end; plane++) {
        int64_t off = 0, rest = plane;
        for (int32_t d = r - 3; d >= 0; d--) {
            off += st->ax[d].idx[rest % st->out_dims[d]];
            rest /= st->out_dims[d];
        }
        const float *x = (const float *)j->x + off;
        float *y = (float *)j->y + plane * oh * width;
        int64_t held[2] = {-1, -1}; /* input offsets of rows[0], rows[1] */
        for (int64_t o = 0; o < oh; o++, y += width) {
            int64_t want0 = vert->idx[2 * o], want1 = vert->idx[2 * o + 1];
            int s0 = held[0] == want0 ? 0 : held[1] == want0 ? 1 : -1;
            int s1 = held[0] == want1 ? 0 : held[1] == want1 ? 1 : -1;
            if (s0 < 0) { /* into the slot tap 1 does not need */
                s0 = s1 == 0 ? 1 : 0;
                horizontal(last, x + want0, width, rows[s0]);
                held[s0] = want0;
            }
            if (s1 < 0) {
                s1 = s0 == 0 ? 1 : 0;
                horizontal(last, x + want1, width, rows[s1]);
                held[s1] = want1;
            }
            const float *h[2] = {rows[s0], rows[s1]};
            float w0 = (float)vert->w[2 * o], w1 = (float)vert->w[2 * o + 1];
            for (int64_t c = 0; c < width; c++) {
                float acc = 0;
                if (w0 != 0)
                    acc += w0 * h[0][c];
                if (w1 != 0)
                    acc += w1 * h[1][c];
                y[c] = acc;
            }
        }
    }
}

static int resize_run(kn_kctx *k)
{
    const resize_state *st = k->state;
    int64_t total = kn_tensor_numel(k->out[0]);
    if (total <= 0)
        return KN_OK;
    rs_job j = {st, k->in[0]->data, k->out[0]->data, kn_dtype_size(st->dtype),
                st->out_dims[st->rank - 1]};
    int64_t rows = total / j.width, work = j.width;
    if (st->gather) {
        kn_parallel_for(k->threads, rows, 1 + KN_GRAIN / work, gather_rows, &j);
        return KN_OK;
    }
    if (st->planes) {
        int64_t per_plane = st->out_dims[st->rank - 2] * j.width * 4;
        kn_parallel_for(k->threads, rows / st->out_dims[st->rank - 2], 1 + KN_GRAIN / per_plane,
                        linear_planes, &j);
        return KN_OK;
    }
    for (int32_t d = 0; d < st->rank; d++)
        work *= st->ax[d].taps;
    kn_parallel_for(k->threads, rows, 1 + KN_GRAIN / work, INTERP_ROWS[st->dtype], &j);
    return KN_OK;
}

static int upsample7_prepare(kn_kctx *k) { return resize_prepare_kind(k, RS_UPSAMPLE7); }
static int upsample9_prepare(kn_kctx *k) { return resize_prepare_kind(k, RS_UPSAMPLE9); }
static int resize10_prepare(kn_kctx *k) { return resize_prepare_kind(k, RS_RESIZE10); }
static int resize11_prepare(kn_kctx *k) { return resize_prepare_kind(k, RS_RESIZE11); }
static int resize18_prepare(kn_kctx *k) { return resize_prepare_kind(k, RS_RESIZE18); }

#define RS_TYPES KN_MASK_ANY_FIXED
const kn_op_def kn_op_upsample_7 = {
    .op_type = "Upsample", .since_version = 7, .until_version = 8, .dtypes = RS_TYPES,
    .prepare = upsample7_prepare, .run = resize_run, .release = resize_release
};
const kn_op_def kn_op_upsample_9 = {
    .op_type = "Upsample", .since_version = 9, .until_version = 9, .dtypes = RS_TYPES,
    .prepare = upsample9_prepare, .run = resize_run, .release = resize_release
};
const kn_op_def kn_op_resize_10 = {
    .op_type = "Resize", .since_version = 10, .until_version = 10, .dtypes = RS_TYPES,
    .prepare = resize10_prepare, .run = resize_run, .release = resize_release
};
const kn_op_def kn_op_resize_11 = {
    .op_type = "Resize", .since_version = 11, .until_version = 17, .dtypes = RS_TYPES,
    .prepare = resize11_prepare, .run = resize_run, .release = resize_release
};
const kn_op_def kn_op_resize_18 = {
    .op_type = "Resize", .since_version = 18, .dtypes = RS_TYPES, .prepare = resize18_prepare,
    .run = resize_run, .release = resize_release
};
