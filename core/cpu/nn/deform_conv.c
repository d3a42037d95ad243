/* DeformConv (opsets 19, 22), 2-D: a grouped convolution whose every kernel
 * tap samples the input at a learned fractional offset from its regular
 * position, optionally weighted by a mask:
 *
 *     y[n, oc, oy, ox] = B[oc] + sum_{c, i, j} W[oc, c, i, j] * mask * X(c, h, w)
 *     h = oy * stride_h - pad_top  + i * dilation_h + offset_h
 *     w = ox * stride_w - pad_left + j * dilation_w + offset_w
 *
 * X(c, h, w) is bilinear interpolation with zeros outside the image; the
 * offset (n, offset_group * kH * kW * 2, oH, oW) and mask
 * (n, offset_group * kH * kW, oH, oW) are shared by the input channels of
 * each offset group. Per image the sampled, masked taps are gathered into a
 * (C * kH * kW) x (oH * oW) column matrix, then each group is one kn_gemm.
 * float16/bfloat16 inputs are widened to float in scratch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/simd/gemm.h"
#include "core/kernel/tensor_common.h"

enum { IN_X, IN_W, IN_OFF, IN_B, IN_MASK };

typedef struct dc_state {
    int32_t dtype, work;
    int64_t n, c, h, w, oc, kh, kw, oh, ow, group, og;
    int64_t sh, sw, dh, dw, pt, pl;
    size_t in_off[5], cols_off, y_off, ws_off, ws_bytes;
} dc_state;

/* Reads an ints attribute of exactly n values, or fills dflt. */
static int dc_ints(kn_kctx *k, const char *name, int32_t n, int64_t dflt, int64_t *dst)
{
    int32_t count = 0;
    const int64_t *v = kn_attr_ints(k->node, name, &count);
    if (v && count != n)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "DeformConv: '%s' has %d values, expected %d",
                       name, (int)count, (int)n);
    for (int32_t i = 0; i < n; i++)
        dst[i] = v ? v[i] : dflt;
    return KN_OK;
}

static int dc_shape_err(kn_kctx *k, const char *what, const kn_tensor *t, const char *want)
{
    char s[128];
    kn_shape_format(t->dims, t->rank, s, sizeof s);
    return kn_fail(k->err, KN_ERR_SHAPE, "DeformConv: %s has shape %s, expected %s", what, s, want);
}

static int dc_geometry(kn_kctx *k, dc_state *st)
{
    const kn_tensor *x = k->in[IN_X], *w = k->in[IN_W], *off = k->in[IN_OFF];
    const kn_tensor *b = kn_input(k, IN_B), *m = kn_input(k, IN_MASK);
    for (int32_t i = IN_W; i <= IN_MASK; i++)
        if (kn_input(k, i) && kn_input(k, i)->dtype != x->dtype)
            return kn_fail(k->err, KN_ERR_DTYPE, "DeformConv: input %d is %s, X is %s", (int)i,
                           kn_dtype_name(kn_input(k, i)->dtype), kn_dtype_name(x->dtype));
    if (x->rank != 4)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "DeformConv: only 2-D inputs (N, C, H, W) are "
                       "supported, got rank %d", (int)x->rank);
    st->n = x->dims[0], st->c = x->dims[1], st->h = x->dims[2], st->w = x->dims[3];
    st->group = kn_attr_int(k->node, "group", 1);
    st->og = kn_attr_int(k->node, "offset_group", 1);
    if (w->rank != 4 || st->group <= 0 || w->dims[1] * st->group != st->c || w->dims[0] % st->group)
        return dc_shape_err(k, "W", w, "(M, C / group, kH, kW) with M divisible by group");
    st->oc = w->dims[0], st->kh = w->dims[2], st->kw = w->dims[3];
    int64_t ks[2] = {0, 0}, s[2] = {1, 1}, d[2] = {1, 1}, p[4] = {0, 0, 0, 0};
    int rc = dc_ints(k, "kernel_shape", 2, 0, ks);
    if (rc == KN_OK && kn_node_attr(k->node, "kernel_shape") &&
        (ks[0] != st->kh || ks[1] != st->kw))
        rc = kn_fail(k->err, KN_ERR_SHAPE, "DeformConv: kernel_shape does not match W");
    if (rc == KN_OK)
        rc = dc_ints(k, "strides", 2, 1, s);
    if (rc == KN_OK)
        rc = dc_ints(k, "dilations", 2, 1, d);
    if (rc == KN_OK)
        rc = dc_ints(k, "pads", 4, 0, p);
    if (rc != KN_OK)
        return rc;
    if (s[0] < 1 || s[1] < 1 || d[0] < 1 || d[1] < 1 ||
        p[0] < 0 || p[1] < 0 || p[2] < 0 || p[3] < 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "DeformConv: strides and dilations must be "
                       "positive, pads non-negative");
    st->sh = s[0], st->sw = s[1], st->dh = d[0], st->dw = d[1], st->pt = p[0], st->pl = p[1];
    /* A kernel wider than the padded input leaves no output position. */
    int64_t span_h = st->h + p[0] + p[2] - ((st->kh - 1) * st->dh + 1);
    int64_t span_w = st->w + p[1] + p[3] - ((st->kw - 1) * st->dw + 1);
    st->oh = span_h < 0 ? 0 : span_h / st->sh + 1;
    st->ow = span_w < 0 ? 0 : span_w / st->sw + 1;
    if (st->og <= 0 || st->c % st->og)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "DeformConv: offset_group %lld does not "
                       "divide %lld channels", (long long)st->og, (long long)st->c);
    int64_t taps = st->og * st->kh * st->kw;
    const int64_t od[4] = {st->n, 2 * taps, st->oh, st->ow}, md[4] = {st->n, taps, st->oh, st->ow};
    if (!kn_shape_equal(off->dims, off->rank, od, 4))
        return dc_shape_err(k, "offset", off, "(N, offset_group * kH * kW * 2, oH, oW)");
    if (m && !kn_shape_equal(m->dims, m->rank, md, 4))
        return dc_shape_err(k, "mask", m, "(N, offset_group * kH * kW, oH, oW)");
    if (b && (b->rank != 1 || b->dims[0] != st->oc))
        return dc_shape_err(k, "B", b, "(M)");
    return KN_OK;
}

static int dc_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 3) != KN_OK)
        return k->err->code;
    dc_state st = {.dtype = k->in[IN_X]->dtype};
    st.work = st.dtype == KN_DOUBLE ? KN_DOUBLE : KN_FLOAT;
    if (dc_geometry(k, &st) != KN_OK)
        return k->err->code;
    kn_tensor *y = k->out[0];
    y->dtype = st.dtype;
    y->rank = 4;
    y->dims[0] = st.n, y->dims[1] = st.oc, y->dims[2] = st.oh, y->dims[3] = st.ow;
    size_t es = kn_dtype_size(st.work), off = 0;
    if (st.dtype != st.work) /* half types: every input widened to float */
        for (int32_t i = 0; i < 5; i++) {
            const kn_tensor *t = kn_input(k, i);
            st.in_off[i] = off;
            off += kn_align_up((size_t)(t ? kn_tensor_numel(t) : 0) * es, 64);
        }
    int64_t rows = st.c * st.kh * st.kw, cols = st.oh * st.ow;
    st.cols_off = off, off += kn_align_up((size_t)(rows * cols) * es + 1, 64);
    st.y_off = off;
    if (st.dtype != st.work)
        off += kn_align_up((size_t)(st.oc * cols) * es, 64);
    st.ws_off = off;
    st.ws_bytes = kn_gemm_workspace_size(st.work, st.oc / st.group, cols, rows / st.group,
                                         kn_threadpool_threads(k->threads));
    k->scratch_bytes = off + st.ws_bytes;
    dc_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "DeformConv: out of memory");
    *s = st;
    k->state = s;
    return KN_OK;
}

typedef struct dc_job {
    const dc_state *st;
    const void *x, *off, *mask; /* work type */
    void *cols;
    int64_t n;                  /* image */
} dc_job;

/* Bilinear sample of channel plane p (h x w) at (y, x); zero outside. */
static double sample(const dc_state *st, int32_t work, const void *p, double y, double x)
{
    if (!(y > -1 && y < (double)st->h && x > -1 && x < (double)st->w))
        return 0; /* also rejects NaN */
    double y0f = floor(y), x0f = floor(x), fy = y - y0f, fx = x - x0f, v = 0;
    int64_t y0 = (int64_t)y0f, x0 = (int64_t)x0f;
    for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
            int64_t yy = y0 + dy, xx = x0 + dx;
            if (yy < 0 || yy >= st->h || xx < 0 || xx >= st->w)
                continue;
            double wgt = (dy ? fy : 1 - fy) * (dx ? fx : 1 - fx);
            int64_t at = yy * st->w + xx;
            v += wgt * (work == KN_DOUBLE ? ((const double *)p)[at] : ((const float *)p)[at]);
        }
    return v;
}

static double get(int32_t work, const void *p, int64_t i)
{
    return work == KN_DOUBLE ? ((const double *)p)[i] : ((const float *)p)[i];
}

/* Column rows [begin, end): row r = (c, i, j) holds tap (i, j) of channel c
 * at every output position. */
static void dc_cols(void *ctx, int64_t begin, int64_t end)
{
    const dc_job *j = ctx;
    const dc_state *st = j->st;
    int64_t taps = st->kh * st->kw, cols = st->oh * st->ow, per_og = st->c / st->og;
    for (int64_t r = begin; r < end; r++) {
        int64_t c = r / taps, t = r % taps, ki = t / st->kw, kj = t % st->kw, g = c / per_og;
        const void *plane = (const char *)j->x +
                            (size_t)((j->n * st->c + c) * st->h * st->w) * kn_dtype_size(st->work);
        int64_t off_h = ((j->n * st->og + g) * taps + t) * 2 * cols, off_w = off_h + cols;
        int64_t mrow = ((j->n * st->og + g) * taps + t) * cols;
        for (int64_t oy = 0; oy < st->oh; oy++)
            for (int64_t ox = 0; ox < st->ow; ox++) {
                int64_t o = oy * st->ow + ox;
                double y = (double)(oy * st->sh - st->pt + ki * st->dh) +
                           get(st->work, j->off, off_h + o);
                double x = (double)(ox * st->sw - st->pl + kj * st->dw) +
                           get(st->work, j->off, off_w + o);
                double v = sample(st, st->work, plane, y, x);
                if (j->mask)
                    v *= get(st->work, j->mask, mrow + o);
                if (st->work == KN_DOUBLE)
                    ((double *)j->cols)[r * cols + o] = v;
                else
                    ((float *)j->cols)[r * cols + o] = (float)v;
            }
    }
}

static int dc_run(kn_kctx *k)
{
    const dc_state *st = k->state;
    char *scratch = k->scratch;
    size_t es = kn_dtype_size(st->work);
    const void *in[5];
    for (int32_t i = 0; i < 5; i++) {
        const kn_tensor *t = kn_input(k, i);
        in[i] = t ? t->data : NULL;
        if (t && st->dtype != st->work) {
            kn_convert(t->dtype, t->data, st->work, scratch + st->in_off[i], kn_tensor_numel(t));
            in[i] = scratch + st->in_off[i];
        }
    }
    dc_job j = {st, in[IN_X], in[IN_OFF], in[IN_MASK], scratch + st->cols_off, 0};
    int64_t rows = st->c * st->kh * st->kw, cols = st->oh * st->ow;
    int64_t ocg = st->oc / st->group, rg = rows / st->group;
    for (j.n = 0; j.n < st->n && cols > 0; j.n++) {
        kn_parallel_for(k->threads, rows, 1 + KN_GRAIN / (cols * 8 + 1), dc_cols, &j);
        char *y = (char *)k->out[0]->data +
                  (size_t)(j.n * st->oc * cols) * kn_dtype_size(st->dtype);
        char *yc = st->dtype != st->work ? scratch + st->y_off : y;
        for (int64_t g = 0; g < st->group; g++) {
            kn_gemm_args a = {.m = ocg, .n = cols, .k = rg, .alpha = 1,
                              .a = (const char *)in[IN_W] + (size_t)(g * ocg * rg) * es, .lda = rg,
                              .b = (const char *)j.cols + (size_t)(g * rg * cols) * es, .ldb = cols,
                              .c = yc + (size_t)(g * ocg * cols) * es, .ldc = cols};
            if (ocg > 0)
                kn_gemm(st->work, k->threads, &a, scratch + st->ws_off, st->ws_bytes);
        }
        if (in[IN_B])
            for (int64_t o = 0; o < st->oc; o++) {
                double bias = get(st->work, in[IN_B], o);
                for (int64_t p = 0; p < cols; p++) {
                    if (st->work == KN_DOUBLE)
                        ((double *)yc)[o * cols + p] += bias;
                    else
                        ((float *)yc)[o * cols + p] += (float)bias;
                }
            }
        if (yc != y)
            kn_convert(st->work, yc, st->dtype, y, st->oc * cols);
    }
    return KN_OK;
}

static void dc_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

#define KN_DC_TYPES (KN_MASK_FLOATS | KN_BIT(KN_FLOAT16))
/* Opset 22 added bfloat16. */
const kn_op_def kn_op_DeformConv_19 = {
    .op_type = "DeformConv", .since_version = 19, .until_version = 21, .dtypes = KN_DC_TYPES,
    .prepare = dc_prepare, .run = dc_run, .release = dc_release
};
const kn_op_def kn_op_DeformConv_22 = {
    .op_type = "DeformConv", .since_version = 22, .dtypes = KN_DC_TYPES | KN_BIT(KN_BFLOAT16),
    .prepare = dc_prepare, .run = dc_run, .release = dc_release
};
