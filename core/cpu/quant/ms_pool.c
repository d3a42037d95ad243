/* QLinearAveragePool and QLinearGlobalAveragePool (com.microsoft 1): the
 * average of each window of dequantized int8/uint8 values, quantized with
 * the output's scale and zero point:
 *
 *   Y = saturate(round_half_even(mean(X_scale (X - X_zp)) / Y_scale) + Y_zp)
 *
 * channels_last = 1 reads and writes [N, spatial..., C] instead of
 * [N, C, spatial...]. QLinearAveragePool takes AveragePool's attributes
 * (kernel_shape, strides, pads / auto_pad, ceil_mode, count_include_pad;
 * no dilations), 1-D to 3-D.
 *
 * The arithmetic is ONNX Runtime's, so ties and near-ties round the same
 * way (a one-step difference here grows in the layers after it): a window
 * that is the whole unpadded image (the global pool, and AveragePool over
 * it) sums the integers exactly and multiplies once by the float
 * X_scale / (Y_scale count); any other window sums the dequantized values
 * in float in row-major order, divides by the count, by Y_scale, adds the
 * zero point, all in float, and rounds. As in ONNX Runtime,
 * count_include_pad divides by the whole kernel volume, also for a window
 * that ceil_mode lets run past the end padding. */
#include <stdlib.h>

#include "core/cpu/quant/ms_quant.h"
#include "core/kernel/im2col.h"
#include "core/kernel/tensor_common.h"

typedef struct tap_range {
    int64_t lo, hi;
} tap_range;

typedef struct qpool_state {
    kn_window win;           /* global: kernel = whole image, one output */
    int32_t dtype;
    int channels_last, count_include_pad;
    int64_t batch, channels, in_size, out_size;
    tap_range *taps[KN_WIN_DIMS];
    tap_range table[];
} qpool_state;

static void qpool_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* Checks X and the two scale / zero-point pairs; returns the rank of the
 * spatial part, or -1 after failing. */
static int qpool_check(kn_kctx *k)
{
    const char *op = k->node->op_type;
    if (ms_require(k, 1u << 0 | 1u << 1 | 1u << 3, "X, x_scale and y_scale") != KN_OK)
        return -1;
    const kn_tensor *x = k->in[0];
    int rc = ms_check_q8(k, "X", x);
    if (rc == KN_OK)
        rc = ms_check_scalar_pair(k, "x", k->in[1], kn_input(k, 2), x->dtype);
    if (rc == KN_OK)
        rc = ms_check_scalar_pair(k, "y", k->in[3], kn_input(k, 4), x->dtype);
    if (rc == KN_OK && x->rank < 3)
        rc = kn_fail(k->err, KN_ERR_SHAPE, "%s: X has rank %d, expected batch, channels and at "
                     "least one spatial dimension", op, (int)x->rank);
    return rc == KN_OK ? x->rank - 2 : -1;
}

/* The state for window geometry `win` over X; Y gets X's layout. */
static int qpool_setup(kn_kctx *k, const kn_window *win, int channels_last, int count_include_pad)
{
    const kn_tensor *x = k->in[0];
    int64_t entries = win->out[0] + win->out[1] + win->out[2];
    qpool_state *s = calloc(1, sizeof *s + sizeof(tap_range) * (size_t)entries);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    k->state = s;
    s->win = *win;
    s->dtype = x->dtype;
    s->channels_last = channels_last;
    s->count_include_pad = count_include_pad;
    s->batch = x->dims[0];
    s->channels = channels_last ? x->dims[x->rank - 1] : x->dims[1];
    s->in_size = kn_window_in_size(win);
    s->out_size = kn_window_out_size(win);
    tap_range *t = s->table;
    for (int32_t d = 0; d < KN_WIN_DIMS; d++) {
        s->taps[d] = t;
        for (int64_t o = 0; o < win->out[d]; o++, t++)
            kn_window_taps(win, d, o, &t->lo, &t->hi);
    }
    kn_tensor *y = k->out[0];
    int32_t nsp = win->nsp, first = channels_last ? 1 : 2;
    kn_copy_desc(y, x);
    for (int32_t i = 0; i < nsp; i++)
        y->dims[first + i] = win->out[KN_WIN_DIMS - nsp + i];
    return KN_OK;
}

/* Spatial dims of X, wherever the channels are. */
static const int64_t *spatial_dims(const kn_tensor *x, int channels_last)
{
    return x->dims + (channels_last ? 1 : 2);
}

static int channels_last_attr(kn_kctx *k, int *out)
{
    int64_t v = kn_attr_int(k->node, "channels_last", 0);
    if (v != 0 && v != 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: channels_last is %lld; expected 0 or 1",
                       k->node->op_type, (long long)v);
    *out = (int)v;
    return KN_OK;
}

static int avgpool_prepare(kn_kctx *k)
{
    int32_t nsp = qpool_check(k);
    int channels_last = 0;
    if (nsp < 0 || channels_last_attr(k, &channels_last) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    kn_window_opts opts = {.op = k->node->op_type};
    opts.ceil_mode = kn_attr_int(k->node, "ceil_mode", 0) != 0;
    kn_window win;
    int rc = kn_window_init(&win, k->node, spatial_dims(x, channels_last), nsp, &opts, k->err);
    if (rc != KN_OK)
        return rc;
    return qpool_setup(k, &win, channels_last,
                       kn_attr_int(k->node, "count_include_pad", 0) != 0);
}

static int global_prepare(kn_kctx *k)
{
    int32_t nsp = qpool_check(k);
    int channels_last = 0;
    if (nsp < 0 || channels_last_attr(k, &channels_last) != KN_OK)
        return k->err->code;
    /* One window over the whole image, seen as one flat spatial dim (any
     * spatial rank), with a single output position. */
    const kn_tensor *x = k->in[0];
    kn_window win = {.nsp = 1};
    for (int32_t d = 0; d < KN_WIN_DIMS; d++)
        win.in[d] = win.kernel[d] = win.out[d] = win.stride[d] = win.dilation[d] = 1;
    win.in[2] = win.kernel[2] = kn_shape_numel(spatial_dims(x, channels_last), nsp);
    int rc = qpool_setup(k, &win, channels_last, 0);
    if (rc == KN_OK)
        for (int32_t i = 0; i < nsp; i++)
            k->out[0]->dims[(channels_last ? 1 : 2) + i] = 1;
    return rc;
}

typedef struct qpool_job {
    const qpool_state *s;
    const uint8_t *x;
    uint8_t *y;
    int whole;         /* one window over the unpadded image: ORT's global path */
    float scale;       /* whole: X_scale / (Y_scale count) */
    int32_t bias;      /* whole: value - X_zp = (byte ^ flip) - bias */
    float dq[256];     /* else: X_scale (value - X_zp) by byte */
    float y_scale;
    int32_t y_zp;
} qpool_job;

/* One output: the window starting at (s0, s1, s2) with taps r0..r2. */
static uint8_t qpool_window(const qpool_job *j, const uint8_t *x, int64_t step, const tap_range *r0,
                            const tap_range *r1, const tap_range *r2, int64_t s0, int64_t s1,
                            int64_t s2)
{
    const qpool_state *s = j->s;
    const kn_window *w = &s->win;
    int64_t inside = (r0->hi - r0->lo) * (r1->hi - r1->lo) * (r2->hi - r2->lo);
    /* float sum of dequantized values in row-major window order */
    float sum = 0;
    for (int64_t t0 = r0->lo; t0 < r0->hi; t0++)
        for (int64_t t1 = r1->lo; t1 < r1->hi; t1++) {
            const uint8_t *row = x + (((s0 + t0) * w->in[1] + s1 + t1) * w->in[2] + s2) * step;
            for (int64_t t2 = r2->lo; t2 < r2->hi; t2++)
                sum += j->dq[row[t2 * step]];
        }
    int64_t count = s->count_include_pad ? kn_window_kvol(w) : inside;
    if (count == 0) /* a window entirely in the padding */
        return q8_quantize(0.0, j->y_zp, s->dtype);
    float avg = sum / (float)count;
    /* the zero point joins in float before the rounding, as in ORT */
    float t = avg / j->y_scale + (float)j->y_zp;
    return q8_quantize((double)t, 0, s->dtype);
}

/* Planes [begin, end): plane p is channel p % C of image p / C. */
static void qpool_planes(void *ctx, int64_t begin, int64_t end)
{
    const qpool_job *j = ctx;
    const qpool_state *s = j->s;
    const kn_window *w = &s->win;
    const int64_t C = s->channels;
    /* element step between spatial positions, and where plane p starts */
    const int64_t step = s->channels_last ? C : 1;
    for (int64_t p = begin; p < end; p++) {
        int64_t n = p / C, c = p % C;
        const uint8_t *x = j->x + (s->channels_last ? n * s->in_size * C + c : p * s->in_size);
        uint8_t *y = j->y + (s->channels_last ? n * s->out_size * C + c : p * s->out_size);
        if (j->whole) { /* exact integer sum, then one float multiply */
            const uint8_t flip = q8_flip(s->dtype);
            int64_t sum = 0;
            for (int64_t i = 0; i < s->in_size; i++)
                sum += x[i * step] ^ flip;
            float v = (float)(sum - s->in_size * (int64_t)j->bias) * j->scale;
            y[0] = q8_quantize((double)v, j->y_zp, s->dtype);
            continue;
        }
        for (int64_t o0 = 0, o = 0; o0 < w->out[0]; o0++) {
            int64_t s0 = o0 * w->stride[0] - w->pad_begin[0];
            for (int64_t o1 = 0; o1 < w->out[1]; o1++) {
                int64_t s1 = o1 * w->stride[1] - w->pad_begin[1];
                for (int64_t o2 = 0; o2 < w->out[2]; o2++, o++) {
                    int64_t s2 = o2 * w->stride[2] - w->pad_begin[2];
                    y[o * step] = qpool_window(j, x, step, &s->taps[0][o0], &s->taps[1][o1],
                                               &s->taps[2][o2], s0, s1, s2);
                }
            }
        }
    }
}

static int qpool_run(kn_kctx *k)
{
    const qpool_state *s = k->state;
    const kn_window *w = &s->win;
    float xs = ms_scale(k->in[1]), ys = ms_scale(k->in[3]);
    int32_t x_zp = ms_zp(kn_input(k, 2));
    qpool_job j = {.s = s, .x = k->in[0]->data, .y = k->out[0]->data, .y_scale = ys,
                   .y_zp = ms_zp(kn_input(k, 4))};
    /* ONNX Runtime sums a window that is the whole unpadded image as
     * integers (a global pool); other windows as dequantized floats */
    j.whole = 1;
    for (int32_t d = 0; d < KN_WIN_DIMS; d++)
        j.whole &= w->kernel[d] == w->in[d] && w->pad_begin[d] == 0 && w->pad_end[d] == 0;
    if (j.whole) {
        j.scale = xs / (ys * (float)s->in_size);
        j.bias = q8_offset(s->dtype) + x_zp;
    } else {
        for (int v = 0; v < 256; v++)
            j.dq[v] = xs * (float)(q8_value(s->dtype, (uint8_t)v) - x_zp);
    }
    int64_t planes = s->batch * s->channels;
    int64_t work = s->in_size > 0 ? s->in_size : 1;
    kn_parallel_for(k->threads, planes, 1 + KN_GRAIN / work, qpool_planes, &j);
    return KN_OK;
}

const kn_op_def kn_op_QLinearAveragePool = {
    .domain = QUANT_MS_DOMAIN, .op_type = "QLinearAveragePool", .since_version = 1,
    .dtypes = QUANT_MASK_Q8, .prepare = avgpool_prepare, .run = qpool_run,
    .release = qpool_release
};
const kn_op_def kn_op_QLinearGlobalAveragePool = {
    .domain = QUANT_MS_DOMAIN, .op_type = "QLinearGlobalAveragePool", .since_version = 1,
    .dtypes = QUANT_MASK_Q8, .prepare = global_prepare, .run = qpool_run,
    .release = qpool_release
};
