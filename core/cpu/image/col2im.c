/* Col2Im (opset 18): rebuilds images from their column matrices, summing
 * overlapping windows; and img_col2im, the routine ConvTranspose shares
 * (see image_col2im.h). 1 to 3 spatial dims, strides, dilations, pads;
 * float and double. image_shape and block_shape decide the output shape,
 * so prepare() needs their values (KN_ERR_NEEDS_VALUE otherwise). */
#include <stdlib.h>
#include <string.h>

#include "core/cpu/image/image_col2im.h"
#include "core/cpu/image/image_common.h"

void img_window_set(kn_window *w, int32_t nsp, const int64_t *image, const int64_t *grid,
                    const int64_t *kernel, const int64_t *stride, const int64_t *dilation,
                    const int64_t *pad_begin, const int64_t *pad_end)
{
    int32_t off = KN_WIN_DIMS - nsp;
    w->nsp = nsp;
    for (int32_t d = 0; d < KN_WIN_DIMS; d++) {
        int32_t i = d - off;
        w->in[d] = i < 0 ? 1 : image[i];
        w->out[d] = i < 0 ? 1 : grid[i];
        w->kernel[d] = i < 0 ? 1 : kernel[i];
        w->stride[d] = i < 0 ? 1 : stride[i];
        w->dilation[d] = i < 0 ? 1 : dilation[i];
        w->pad_begin[d] = i < 0 ? 0 : pad_begin[i];
        w->pad_end[d] = i < 0 ? 0 : pad_end[i];
    }
}

/* Per row (channel, tap): walk the block's columns line by line (runs
 * along the last grid dim); on each line the tap lands inside the image
 * for grid positions [lo2, hi2), found once per tap by kn_window_outs, and
 * those land stride apart along the image's last dim. */
#define IMG_DEFINE_COL2IM(T, SFX)                                                                  \
    static void col2im_##SFX(const kn_window *w, const T *col, int64_t ld, T *y, int64_t ch_begin, \
                             int64_t ch_end, int64_t col_begin, int64_t col_end)                   \
    {                                                                                              \
        const int64_t kvol = kn_window_kvol(w), plane = kn_window_in_size(w);                      \
        const int64_t ow = w->out[2], sw = w->stride[2];                                           \
        for (int64_t ch = ch_begin; ch < ch_end; ch++) {                                           \
            T *dst = y + ch * plane;                                                               \
            for (int64_t tap = 0; tap < kvol; tap++) {                                             \
                int64_t t2 = tap % w->kernel[2], t1 = (tap / w->kernel[2]) % w->kernel[1];         \
                int64_t t0 = tap / (w->kernel[2] * w->kernel[1]);                                  \
                int64_t lo0, hi0, lo1, hi1, lo2, hi2;                                              \
                kn_window_outs(w, 0, t0, &lo0, &hi0);                                              \
                kn_window_outs(w, 1, t1, &lo1, &hi1);                                              \
                kn_window_outs(w, 2, t2, &lo2, &hi2);                                              \
                const T *src = col + (ch * kvol + tap) * ld;                                       \
                int64_t j = col_begin, o2 = j % ow, o1 = (j / ow) % w->out[1];                     \
                int64_t o0 = j / (ow * w->out[1]);                                                 \
                while (j < col_end) {                                                              \
                    int64_t end = ow < o2 + col_end - j ? ow : o2 + col_end - j;                   \
                    int64_t vlo = lo2 > o2 ? lo2 : o2, vhi = hi2 < end ? hi2 : end;                \
                    if (o0 >= lo0 && o0 < hi0 && o1 >= lo1 && o1 < hi1 && vlo < vhi) {             \
                        int64_t i0 = o0 * w->stride[0] - w->pad_begin[0] + t0 * w->dilation[0];    \
                        int64_t i1 = o1 * w->stride[1] - w->pad_begin[1] + t1 * w->dilation[1];    \
                        int64_t i2 = vlo * sw - w->pad_begin[2] + t2 * w->dilation[2];             \
                        T *yp = dst + (i0 * w->in[1] + i1) * w->in[2] + i2;                        \
                        const T *sp = src + (j - col_begin) + (vlo - o2);                          \
                        for (int64_t o = vlo; o < vhi; o++, yp += sw)                              \
                            *yp += *sp++;                                                          \
                    }                                                                              \
                    j += end - o2;                                                                 \
                    o2 = 0;                                                                        \
                    if (++o1 == w->out[1]) {                                                       \
                        o1 = 0;                                                                    \
                        o0++;                                                                      \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

IMG_DEFINE_COL2IM(float, f32)
IMG_DEFINE_COL2IM(double, f64)

void img_col2im(int32_t dtype, const kn_window *w, const void *col, int64_t ld, void *y,
                int64_t ch_begin, int64_t ch_end, int64_t col_begin, int64_t col_end)
{
    if (dtype == KN_DOUBLE)
        col2im_f64(w, col, ld, y, ch_begin, ch_end, col_begin, col_end);
    else
        col2im_f32(w, col, ld, y, ch_begin, ch_end, col_begin, col_end);
}

/* ---- the Col2Im op ---- */

typedef struct col2im_state {
    kn_window win;
    int32_t dtype;
    int64_t batch, channels, rows, cols;
} col2im_state;

static int read_attr(kn_kctx *k, const char *name, int32_t nsp, int64_t dflt, int64_t min,
                     int64_t *dst)
{
    int32_t n;
    const int64_t *v = kn_attr_ints(k->node, name, &n);
    for (int32_t i = 0; i < 2 * nsp; i++)
        dst[i] = dflt;
    if (!v)
        return KN_OK;
    int32_t want = strcmp(name, "pads") == 0 ? 2 * nsp : nsp;
    if (n != want)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: %s has %d values, expected %d",
                       k->node->op_type, name, (int)n, (int)want);
    for (int32_t i = 0; i < n; i++) {
        if (v[i] < min || v[i] > INT32_MAX) /* huge values would overflow sizes */
            return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                           "%s: %s[%d] = %lld is outside [%lld, 2^31)", k->node->op_type, name,
                           (int)i, (long long)v[i], (long long)min);
        dst[i] = v[i];
    }
    return KN_OK;
}

static int col2im_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 3) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    if (x->rank != 3)
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "Col2Im: input must be N x (C*kernel) x L, not rank %d", (int)x->rank);
    int64_t image[KN_MAX_RANK], block[KN_MAX_RANK];
    int32_t ni, nb;
    int rc;
    if ((rc = img_const_ints(k, 1, "image_shape", image, KN_MAX_RANK, &ni)) != KN_OK ||
        (rc = img_const_ints(k, 2, "block_shape", block, KN_MAX_RANK, &nb)) != KN_OK)
        return rc;
    if (ni != nb || ni < 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "Col2Im: image_shape (%d values) and block_shape (%d) must match", (int)ni,
                       (int)nb);
    if (ni > KN_WIN_DIMS)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED,
                       "Col2Im: %d spatial dimensions (only 1 to 3 are supported)", (int)ni);
    int64_t strides[2 * KN_WIN_DIMS], dil[2 * KN_WIN_DIMS], pads[2 * KN_WIN_DIMS];
    if ((rc = read_attr(k, "strides", ni, 1, 1, strides)) != KN_OK ||
        (rc = read_attr(k, "dilations", ni, 1, 1, dil)) != KN_OK ||
        (rc = read_attr(k, "pads", ni, 0, 0, pads)) != KN_OK)
        return rc;
    int64_t grid[KN_WIN_DIMS], kvol = 1, blocks = 1;
    for (int32_t i = 0; i < ni; i++) {
        if (block[i] < 1 || image[i] < 0 || block[i] > INT32_MAX || image[i] > INT32_MAX)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                           "Col2Im: block_shape[%d] = %lld, image_shape[%d] = %lld are invalid",
                           (int)i, (long long)block[i], (int)i, (long long)image[i]);
        int64_t span = image[i] + pads[i] + pads[ni + i] - (block[i] - 1) * dil[i] - 1;
        if (span < 0)
            return kn_fail(k->err, KN_ERR_SHAPE,
                           "Col2Im: block %lld (dilation %lld) does not fit image dim %d of %lld",
                           (long long)block[i], (long long)dil[i], (int)i, (long long)image[i]);
        grid[i] = span / strides[i] + 1;
        kvol *= block[i];
        blocks *= grid[i];
    }
    if (x->dims[1] % kvol != 0 || x->dims[2] != blocks)
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "Col2Im: input is %lld x %lld per image, expected a multiple of %lld rows "
                       "and %lld columns",
                       (long long)x->dims[1], (long long)x->dims[2], (long long)kvol,
                       (long long)blocks);
    col2im_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Col2Im: out of memory");
    img_window_set(&st->win, ni, image, grid, block, strides, dil, pads, pads + ni);
    st->dtype = x->dtype;
    st->batch = x->dims[0];
    st->channels = x->dims[1] / kvol;
    st->rows = x->dims[1];
    st->cols = blocks;
    k->state = st;
    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = 2 + ni;
    y->dims[0] = x->dims[0];
    y->dims[1] = st->channels;
    memcpy(y->dims + 2, image, sizeof(int64_t) * (size_t)ni);
    return KN_OK;
}

typedef struct col2im_job {
    const col2im_state *st;
    const char *x;
    char *y;
} col2im_job;

/* One item per (image, channel): its plane is zeroed, then summed into. */
static void col2im_range(void *ctx, int64_t begin, int64_t end)
{
    const col2im_job *j = ctx;
    const col2im_state *st = j->st;
    size_t esz = kn_dtype_size(st->dtype);
    int64_t plane = kn_window_in_size(&st->win);
    for (int64_t item = begin; item < end; item++) {
        int64_t n = item / st->channels, c = item % st->channels;
        char *y = j->y + (size_t)(n * st->channels * plane) * esz;
        memset(y + (size_t)(c * plane) * esz, 0, (size_t)plane * esz);
        img_col2im(st->dtype, &st->win, j->x + (size_t)(n * st->rows * st->cols) * esz, st->cols, y,
                   c, c + 1, 0, st->cols);
    }
}

static int col2im_run(kn_kctx *k)
{
    const col2im_state *st = k->state;
    col2im_job j = {st, k->in[0]->data, k->out[0]->data};
    int64_t work = kn_window_in_size(&st->win) + kn_window_kvol(&st->win) * st->cols;
    kn_parallel_for(k->threads, st->batch * st->channels, 1 + KN_GRAIN / (work + 1), col2im_range, &j);
    return KN_OK;
}

static void col2im_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_col2im_18 = {
    .op_type = "Col2Im", .since_version = 18, .dtypes = KN_MASK_FLOATS,
    .prepare = col2im_prepare, .run = col2im_run, .release = col2im_release
};
