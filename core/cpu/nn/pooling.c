/* MaxPool (opsets 1, 8, 10, 11, 12) and AveragePool (1, 7, 10, 11, 19):
 * 1-D to 3-D windows with strides, pads / auto_pad, ceil_mode, dilations
 * (MaxPool 10+, AveragePool 19+), count_include_pad, and MaxPool's optional
 * Indices output (flattened input index, storage_order 0 = row-major,
 * 1 = column-major within each plane, as ONNX Runtime does).
 *
 * Each output element reduces its window directly. Which taps of a window
 * land inside the input depends only on the output index along each dim,
 * so prepare() tabulates those ranges once per dim and run() does no
 * divisions. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/op.h"
#include "core/kernel/half_path.h"
#include "core/kernel/im2col.h"

typedef struct tap_range {
    int64_t lo, hi;  /* taps inside the input */
    int64_t padded;  /* taps inside input + padding (count_include_pad) */
} tap_range;

typedef struct pool_state {
    kn_window win;
    int32_t dtype;
    int is_max, count_include_pad, col_major;
    int64_t planes, in_size, out_size;
    tap_range *taps[KN_WIN_DIMS]; /* per dim, per output index; point into `table` */
    tap_range table[];
} pool_state;

static int pool_prepare(kn_kctx *k, int is_max)
{
    const char *op = is_max ? "MaxPool" : "AveragePool";
    const kn_tensor *x = k->in[0];
    if (!x)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: input X is required", op);
    if (x->rank < 3)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: X has rank %d, expected N x C x spatial", op,
                       (int)x->rank);
    int32_t nsp = x->rank - 2;
    kn_window_opts opts = {.op = op};
    opts.ceil_mode = k->opset >= 10 && kn_attr_int(k->node, "ceil_mode", 0) != 0;
    opts.dilations = is_max ? k->opset >= 10 : k->opset >= 19;
    kn_window win;
    int rc = kn_window_init(&win, k->node, x->dims + 2, nsp, &opts, k->err);
    if (rc != KN_OK)
        return rc;
    int64_t storage_order = is_max && k->opset >= 8 ? kn_attr_int(k->node, "storage_order", 0) : 0;
    if (storage_order != 0 && storage_order != 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "MaxPool: storage_order %lld must be 0 or 1",
                       (long long)storage_order);

    for (int32_t i = 0; i < k->n_out && i < 2; i++) {
        kn_tensor *y = k->out[i];
        if (!y)
            continue;
        y->dtype = i == 0 ? x->dtype : KN_INT64;
        y->rank = x->rank;
        y->dims[0] = x->dims[0];
        y->dims[1] = x->dims[1];
        for (int32_t s = 0; s < nsp; s++)
            y->dims[2 + s] = win.out[KN_WIN_DIMS - nsp + s];
    }
    /* The window table below has a row per output index: an output too
     * large for the session is refused before it is built. */
    for (int32_t i = 0; i < k->n_out && i < 2; i++)
        if (kn_output_within_limit(k, i) != KN_OK)
            return k->err->code;

    int64_t entries = win.out[0] + win.out[1] + win.out[2];
    pool_state *st = calloc(1, sizeof *st + sizeof(tap_range) * (size_t)entries);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    st->win = win;
    st->dtype = x->dtype;
    st->is_max = is_max;
    st->count_include_pad =
        !is_max && k->opset >= 7 && kn_attr_int(k->node, "count_include_pad", 0) != 0;
    st->col_major = (int)storage_order;
    st->planes = x->dims[0] * x->dims[1];
    st->in_size = kn_window_in_size(&win);
    st->out_size = kn_window_out_size(&win);
    tap_range *t = st->table;
    for (int32_t d = 0; d < KN_WIN_DIMS; d++) {
        st->taps[d] = t;
        for (int64_t o = 0; o < win.out[d]; o++, t++) {
            kn_window_taps(&win, d, o, &t->lo, &t->hi);
            /* Taps before the end padding runs out; only ceil_mode can cut
             * a window short of the full kernel. */
            int64_t limit = win.in[d] + win.pad_end[d] - (o * win.stride[d] - win.pad_begin[d]);
            int64_t padded = (limit + win.dilation[d] - 1) / win.dilation[d];
            t->padded = padded < win.kernel[d] ? padded : win.kernel[d];
        }
    }
    k->state = st;

    return KN_OK;
}

static int maxpool_prepare(kn_kctx *k) { return pool_prepare(k, 1); }
static int avgpool_prepare(kn_kctx *k) { return pool_prepare(k, 0); }

typedef struct pool_job {
    const pool_state *st;
    const void *x;
    void *y;
    int64_t *indices;
} pool_job;

/* The window loops, shared by both reductions: BODY sees `row` (input row
 * of the current window line), `base` (its flat offset in the plane) and
 * `i2` (element within the row); OUT runs after each window. */
#define KN_POOL_WINDOWS(T, BEGIN, BODY, OUT)                                                       \
    const kn_window *w = &st->win;                                                                 \
    for (int64_t o0 = 0, o = 0; o0 < w->out[0]; o0++) {                                            \
        const tap_range *r0 = &st->taps[0][o0];                                                    \
        int64_t s0 = o0 * w->stride[0] - w->pad_begin[0];                                          \
        for (int64_t o1 = 0; o1 < w->out[1]; o1++) {                                               \
            const tap_range *r1 = &st->taps[1][o1];                                                \
            int64_t s1 = o1 * w->stride[1] - w->pad_begin[1];                                      \
            for (int64_t o2 = 0; o2 < w->out[2]; o2++, o++) {                                      \
                const tap_range *r2 = &st->taps[2][o2];                                            \
                int64_t s2 = o2 * w->stride[2] - w->pad_begin[2];                                  \
                BEGIN;                                                                             \
                for (int64_t t0 = r0->lo; t0 < r0->hi; t0++) {                                     \
                    int64_t i0 = s0 + t0 * w->dilation[0];                                         \
                    for (int64_t t1 = r1->lo; t1 < r1->hi; t1++) {                                 \
                        int64_t i1 = s1 + t1 * w->dilation[1];                                     \
                        int64_t base = (i0 * w->in[1] + i1) * w->in[2];                            \
                        const T *row = x + base;                                                   \
                        for (int64_t t2 = r2->lo; t2 < r2->hi; t2++) {                             \
                            int64_t i2 = s2 + t2 * w->dilation[2];                                 \
                            BODY;                                                                  \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
                OUT;                                                                               \
            }                                                                                      \
        }                                                                                          \
    }

/* Max over the taps inside the input; the first of equal maxima wins. An
 * empty window (only possible with pads >= kernel) gives LOWEST and index
 * -1. */
#define KN_DEFINE_MAXPOOL(T, SFX, LOWEST)                                                          \
    static void maxpool_plane_##SFX(const pool_job *j, int64_t plane)                              \
    {                                                                                              \
        const pool_state *st = j->st;                                                              \
        const T *x = (const T *)j->x + plane * st->in_size;                                        \
        T *y = (T *)j->y + plane * st->out_size;                                                   \
        int64_t *ind = j->indices ? j->indices + plane * st->out_size : NULL;                      \
        T best;                                                                                    \
        int64_t at;                                                                                \
        KN_POOL_WINDOWS(T, (best = LOWEST, at = -1),                                               \
                        if (at < 0 || row[i2] > best) {                                            \
                            best = row[i2];                                                        \
                            at = base + i2;                                                        \
                        },                                                                         \
                        {                                                                          \
                            y[o] = best;                                                           \
                            if (ind)                                                               \
                                ind[o] = maxpool_index(st, plane, at);                             \
                        })                                                                         \
    }

/* Average over the taps inside the input, or over the taps inside input
 * plus padding with count_include_pad. */
#define KN_DEFINE_AVGPOOL(T, SFX)                                                                  \
    static void avgpool_plane_##SFX(const pool_job *j, int64_t plane)                              \
    {                                                                                              \
        const pool_state *st = j->st;                                                              \
        const T *x = (const T *)j->x + plane * st->in_size;                                        \
        T *y = (T *)j->y + plane * st->out_size;                                                   \
        T sum;                                                                                     \
        KN_POOL_WINDOWS(T, sum = 0, sum += row[i2], {                                              \
            int64_t count = st->count_include_pad                                                  \
                                ? r0->padded * r1->padded * r2->padded                             \
                                : (r0->hi - r0->lo) * (r1->hi - r1->lo) * (r2->hi - r2->lo);       \
            y[o] = count > 0 ? sum / (T)count : 0;                                                 \
        })                                                                                         \
    }

/* Flat index into the whole input tensor; storage_order 1 reverses the
 * spatial strides (dim 0 fastest) but keeps N and C major. */
static int64_t maxpool_index(const pool_state *st, int64_t plane, int64_t at)
{
    if (at < 0)
        return -1;
    if (st->col_major) {
        const kn_window *w = &st->win;
        int64_t i2 = at % w->in[2], i1 = (at / w->in[2]) % w->in[1];
        int64_t i0 = at / (w->in[2] * w->in[1]);
        at = i0 + w->in[0] * (i1 + w->in[1] * i2);
    }
    return plane * st->in_size + at;
}

KN_DEFINE_MAXPOOL(float, f32, -FLT_MAX)
KN_DEFINE_MAXPOOL(double, f64, -DBL_MAX)
KN_DEFINE_MAXPOOL(int8_t, i8, INT8_MIN)
KN_DEFINE_MAXPOOL(uint8_t, u8, 0)
KN_DEFINE_AVGPOOL(float, f32)
KN_DEFINE_AVGPOOL(double, f64)

/* The common case (float or 8-bit max over 2-D windows without dilation and without
 * Indices) in two passes per output row: the rows under the window are
 * first folded into one row of column maxima (contiguous, so it
 * vectorises, also in the WebAssembly build, which has no strided loads),
 * then each output takes the max of its kw columns of that row. A 3x3
 * stride-2 pool then costs 3 + 3 comparisons per output instead of 9
 * read-modify-writes of the output (the first MaxPool of squeezenet took
 * 8 % of the model in the browser). The general loop above tracks an index
 * per tap and is several times slower. NaN taps are skipped here. */
enum { POOL_ROW_CHUNK = 1024 }; /* columns folded at once (4 KiB on the stack) */

static int maxpool_fast_ok(const pool_state *st, const pool_job *j)
{
    const kn_window *w = &st->win;
    return st->is_max && (st->dtype == KN_FLOAT || st->dtype == KN_UINT8 || st->dtype == KN_INT8) &&
           !j->indices && w->out[0] == 1 && w->in[0] == 1 && w->dilation[1] == 1 &&
           w->dilation[2] == 1 && w->kernel[2] <= POOL_ROW_CHUNK / 2;
}

/* v > m ? v : m keeps m for a NaN v: NaN taps are skipped (float); the
 * same loops serve the 8-bit types of quantized models. */
#define KN_DEFINE_MAXPOOL2D(T, SFX, LOWEST)                                                        \
    /* colmax[c - c0] = max over rows [lo, hi) of x[row][c] for c in [c0, c1);                     \
     * columns outside the row (padding) get LOWEST. */                                            \
    static void fold_rows_##SFX(T *colmax, const T *x, int64_t in_w, int64_t first_row,            \
                                int64_t lo, int64_t hi, int64_t c0, int64_t c1)                    \
    {                                                                                              \
        for (int64_t c = c0; c < c1; c++)                                                          \
            colmax[c - c0] = LOWEST;                                                               \
        int64_t a = c0 < 0 ? 0 : c0, b = c1 > in_w ? in_w : c1;                                    \
        T *m = colmax + (a - c0);                                                                  \
        for (int64_t t = lo; t < hi; t++) {                                                        \
            const T *row = x + (first_row + t) * in_w + a;                                         \
            for (int64_t i = 0; i < b - a; i++)                                                    \
                m[i] = row[i] > m[i] ? row[i] : m[i];                                              \
        }                                                                                          \
    }                                                                                              \
    /* y[o] = max of c[o sw .. o sw + kw) for o in [0, n). */                                      \
    static void window_max_##SFX(T *y, const T *c, int64_t n, int64_t kw_n, int64_t sw)            \
    {                                                                                              \
        for (int64_t o = 0; o < n; o++) {                                                          \
            const T *win = c + o * sw;                                                             \
            T m = win[0];                                                                          \
            for (int64_t kw = 1; kw < kw_n; kw++)                                                  \
                m = win[kw] > m ? win[kw] : m;                                                     \
            y[o] = m;                                                                              \
        }                                                                                          \
    }                                                                                              \
    /* The 3x3 stride-2 window of most CNNs' pools with a constant trip                            \
     * shape, which compilers turn into wide loads and lane shuffles. */                           \
    static void max3_stride2_##SFX(T *restrict y, const T *restrict c, int64_t n)                  \
    {                                                                                              \
        for (int64_t o = 0; o < n; o++) {                                                          \
            T m = c[2 * o + 1] > c[2 * o] ? c[2 * o + 1] : c[2 * o];                               \
            y[o] = c[2 * o + 2] > m ? c[2 * o + 2] : m;                                            \
        }                                                                                          \
    }                                                                                              \
    static void maxpool2d_plane_##SFX(const pool_job *j, int64_t plane)                            \
    {                                                                                              \
        const pool_state *st = j->st;                                                              \
        const kn_window *w = &st->win;                                                             \
        const T *x = (const T *)j->x + plane * st->in_size;                                        \
        T *y = (T *)j->y + plane * st->out_size;                                                   \
        int64_t ow_n = w->out[2], sw = w->stride[2], pw = w->pad_begin[2], kw_n = w->kernel[2];    \
        int64_t per_chunk = (POOL_ROW_CHUNK - kw_n) / sw + 1; /* outputs whose columns fit */      \
        T colmax[POOL_ROW_CHUNK];                                                                  \
        for (int64_t oh = 0; oh < w->out[1]; oh++) {                                               \
            const tap_range *r1 = &st->taps[1][oh];                                                \
            int64_t first_row = oh * w->stride[1] - w->pad_begin[1];                               \
            T *yrow = y + oh * ow_n;                                                               \
            for (int64_t o0 = 0; o0 < ow_n; o0 += per_chunk) {                                     \
                int64_t o1 = o0 + per_chunk < ow_n ? o0 + per_chunk : ow_n;                        \
                int64_t c0 = o0 * sw - pw;                                                         \
                fold_rows_##SFX(colmax, x, w->in[2], first_row, r1->lo, r1->hi, c0,                \
                                (o1 - 1) * sw - pw + kw_n);                                        \
                if (kw_n == 3 && sw == 2)                                                          \
                    max3_stride2_##SFX(yrow + o0, colmax, o1 - o0);                                \
                else                                                                               \
                    window_max_##SFX(yrow + o0, colmax, o1 - o0, kw_n, sw);                        \
            }                                                                                      \
        }                                                                                          \
    }
KN_DEFINE_MAXPOOL2D(float, f32, -FLT_MAX)
KN_DEFINE_MAXPOOL2D(uint8_t, u8, 0)
KN_DEFINE_MAXPOOL2D(int8_t, s8, INT8_MIN)

static void pool_range(void *ctx, int64_t begin, int64_t end)
{
    const pool_job *j = ctx;
    if (maxpool_fast_ok(j->st, j)) {
        for (int64_t p = begin; p < end; p++) {
            if (j->st->dtype == KN_FLOAT)
                maxpool2d_plane_f32(j, p);
            else if (j->st->dtype == KN_UINT8)
                maxpool2d_plane_u8(j, p);
            else
                maxpool2d_plane_s8(j, p);
        }
        return;
    }
    for (int64_t p = begin; p < end; p++) {
        if (j->st->is_max) {
            switch (j->st->dtype) {
            case KN_FLOAT: maxpool_plane_f32(j, p); break;
            case KN_DOUBLE: maxpool_plane_f64(j, p); break;
            case KN_INT8: maxpool_plane_i8(j, p); break;
            case KN_UINT8: maxpool_plane_u8(j, p); break;
            }
        } else if (j->st->dtype == KN_DOUBLE) {
            avgpool_plane_f64(j, p);
        } else {
            avgpool_plane_f32(j, p);
        }
    }
}

static int pool_run(kn_kctx *k)
{
    const pool_state *st = k->state;
    pool_job j = {st, k->in[0]->data, k->out[0]->data, NULL};
    if (st->is_max && k->n_out > 1 && k->out[1])
        j.indices = k->out[1]->data;
    int64_t work = st->out_size * kn_window_kvol(&st->win) + 1;
    kn_parallel_for(k->threads, st->planes, 1 + 32768 / work, pool_range, &j);
    return KN_OK;
}

static void pool_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* float16 and bfloat16 run the float code above on widened copies
 * (half_path.h); Indices stay int64. bfloat16 arrived with opset 22. */
static const kn_half_spec maxpool_half = {.prepare = maxpool_prepare, .run = pool_run,
                                          .release = pool_release, .widen = 0x1,
                                          .bf16_since = 22};
static const kn_half_spec avgpool_half = {.prepare = avgpool_prepare, .run = pool_run,
                                          .release = pool_release, .widen = 0x1,
                                          .bf16_since = 22};
KN_HALF_ENTRY_POINTS(maxpool, maxpool_half)
KN_HALF_ENTRY_POINTS(avgpool, avgpool_half)

#define KN_POOL_F (KN_MASK_FLOATS | KN_BIT(KN_FLOAT16))
#define KN_POOL_LATEST (KN_POOL_F | KN_BIT(KN_BFLOAT16))
#define KN_MAXPOOL_TYPES (KN_POOL_LATEST | KN_BIT(KN_INT8) | KN_BIT(KN_UINT8))
#define KN_POOL_OP(NAME, OP, FROM, TO, TYPES, KIND)                                                \
    const kn_op_def NAME = { \
    .op_type = OP, .since_version = FROM, .until_version = TO, .dtypes = TYPES, \
    .prepare = KIND##_any_prepare, .run = KIND##_any_run, .release = KIND##_any_release \
};

/* One entry per opset that changed the op; the kernel reads attributes by
 * k->opset, so they share code. int8/uint8 MaxPool arrived with opset 12,
 * bfloat16 with 22 (checked in prepare: the last entries span it). */
KN_POOL_OP(kn_op_maxpool_1, "MaxPool", 1, 7, KN_POOL_F, maxpool)
KN_POOL_OP(kn_op_maxpool_8, "MaxPool", 8, 9, KN_POOL_F, maxpool)
KN_POOL_OP(kn_op_maxpool_10, "MaxPool", 10, 10, KN_POOL_F, maxpool)
KN_POOL_OP(kn_op_maxpool_11, "MaxPool", 11, 11, KN_POOL_F, maxpool)
KN_POOL_OP(kn_op_maxpool_12, "MaxPool", 12, 0, KN_MAXPOOL_TYPES, maxpool)
KN_POOL_OP(kn_op_averagepool_1, "AveragePool", 1, 6, KN_POOL_F, avgpool)
KN_POOL_OP(kn_op_averagepool_7, "AveragePool", 7, 9, KN_POOL_F, avgpool)
KN_POOL_OP(kn_op_averagepool_10, "AveragePool", 10, 10, KN_POOL_F, avgpool)
KN_POOL_OP(kn_op_averagepool_11, "AveragePool", 11, 18, KN_POOL_F, avgpool)
KN_POOL_OP(kn_op_averagepool_19, "AveragePool", 19, 0, KN_POOL_LATEST, avgpool)
