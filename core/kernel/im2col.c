/* Window geometry (output sizes, auto_pad) and im2col; see im2col.h. */
#include "core/kernel/im2col.h"

#include <string.h>


/* Division rounding toward +infinity for any sign of a (b > 0). */
static int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

static int read_ints(const kn_node *node, const char *name, int32_t want, int64_t *dst,
                     int64_t min_value, const char *op, kn_err *err)
{
    int32_t n;
    const int64_t *v = kn_attr_ints(node, name, &n);
    if (!v)
        return KN_OK; /* absent: caller's defaults stay */
    if (n != want)
        return kn_fail(err, KN_ERR_INVALID_MODEL, "%s: attribute %s has %d values, expected %d", op,
                       name, (int)n, (int)want);
    for (int32_t i = 0; i < n; i++) {
        if (v[i] < min_value)
            return kn_fail(err, KN_ERR_INVALID_MODEL, "%s: %s[%d] = %lld must be >= %lld", op, name,
                           (int)i, (long long)v[i], (long long)min_value);
        dst[i] = v[i];
    }
    return KN_OK;
}

int kn_window_init(kn_window *w, const kn_node *node, const int64_t *in_sp, int32_t nsp,
                   const kn_window_opts *opts, kn_err *err)
{
    const char *op = opts->op;
    if (nsp < 1 || nsp > KN_WIN_DIMS)
        return kn_fail(err, KN_ERR_UNSUPPORTED,
                       "%s: %d spatial dimensions (only 1 to 3 are supported)", op, (int)nsp);
    int64_t kernel[KN_WIN_DIMS], stride[KN_WIN_DIMS], dil[KN_WIN_DIMS], pads[2 * KN_WIN_DIMS];
    for (int32_t i = 0; i < nsp; i++) {
        kernel[i] = opts->kernel ? opts->kernel[i] : 0;
        stride[i] = dil[i] = 1;
        pads[i] = pads[nsp + i] = 0;
    }
    int32_t nk;
    const int64_t *ks = kn_attr_ints(node, "kernel_shape", &nk);
    if (!ks && !opts->kernel)
        return kn_fail(err, KN_ERR_INVALID_MODEL, "%s: attribute kernel_shape is required", op);
    if (ks) {
        if (nk != nsp)
            return kn_fail(err, KN_ERR_INVALID_MODEL,
                           "%s: kernel_shape has %d values for %d spatial dimensions", op, (int)nk,
                           (int)nsp);
        for (int32_t i = 0; i < nsp; i++) {
            if (opts->kernel && ks[i] != opts->kernel[i])
                return kn_fail(err, KN_ERR_SHAPE,
                               "%s: kernel_shape[%d] = %lld does not match weight dim %lld", op,
                               (int)i, (long long)ks[i], (long long)opts->kernel[i]);
            kernel[i] = ks[i];
        }
    }
    for (int32_t i = 0; i < nsp; i++)
        if (kernel[i] < 1)
            return kn_fail(err, KN_ERR_INVALID_MODEL, "%s: kernel dim %d is %lld", op, (int)i,
                           (long long)kernel[i]);
    int rc;
    if ((rc = read_ints(node, "strides", nsp, stride, 1, op, err)) != KN_OK)
        return rc;
    if (opts->dilations && (rc = read_ints(node, "dilations", nsp, dil, 1, op, err)) != KN_OK)
        return rc;

    const char *auto_pad = kn_attr_string(node, "auto_pad", "NOTSET");
    int same_upper = strcmp(auto_pad, "SAME_UPPER") == 0;
    int same_lower = strcmp(auto_pad, "SAME_LOWER") == 0;
    int valid = strcmp(auto_pad, "VALID") == 0;
    if (!same_upper && !same_lower && !valid && strcmp(auto_pad, "NOTSET") != 0)
        return kn_fail(err, KN_ERR_INVALID_MODEL, "%s: unknown auto_pad '%s'", op, auto_pad);
    /* Explicit pads only count with NOTSET; the spec forbids combining them. */
    if (!same_upper && !same_lower && !valid &&
        (rc = read_ints(node, "pads", 2 * nsp, pads, 0, op, err)) != KN_OK)
        return rc;

    /* Bounds that keep the sums and products below in int64: a crafted
     * model's pads or strides near 2^63 made them overflow (fuzzing). */
    for (int32_t i = 0; i < nsp; i++)
        if (in_sp[i] > KN_WIN_MAX_EXTENT || kernel[i] > KN_WIN_MAX_EXTENT ||
            stride[i] > KN_WIN_MAX_EXTENT || dil[i] > KN_WIN_MAX_EXTENT ||
            pads[i] > KN_WIN_MAX_EXTENT || pads[nsp + i] > KN_WIN_MAX_EXTENT)
            return kn_fail(err, KN_ERR_SHAPE,
                           "%s: spatial dim %d: size, kernel, stride, dilation or pads past %lld",
                           op, (int)i, (long long)KN_WIN_MAX_EXTENT);

    int32_t off = KN_WIN_DIMS - nsp;
    w->nsp = nsp;
    for (int32_t i = 0; i < off; i++) {
        w->in[i] = w->out[i] = w->kernel[i] = w->stride[i] = w->dilation[i] = 1;
        w->pad_begin[i] = w->pad_end[i] = 0;
    }
    for (int32_t i = 0; i < nsp; i++) {
        int64_t in = in_sp[i], s = stride[i], ext = (kernel[i] - 1) * dil[i] + 1, out;
        int64_t pb = pads[i], pe = pads[nsp + i];
        if (same_upper || same_lower) {
            /* Output covers ceil(in / stride) positions; padding is whatever
             * that takes, the odd unit going to the end (UPPER) or start. */
            out = ceil_div(in, s);
            int64_t total = (out - 1) * s + ext - in;
            if (total < 0)
                total = 0;
            pb = same_upper ? total / 2 : total - total / 2;
            pe = total - pb;
        } else {
            int64_t span = in + pb + pe - ext;
            if (span < 0) {
                return kn_fail(err, KN_ERR_SHAPE,
                               "%s: window of %lld (kernel %lld, dilation %lld) is larger than "
                               "spatial dim %d of size %lld padded by %lld+%lld",
                               op, (long long)ext, (long long)kernel[i], (long long)dil[i], (int)i,
                               (long long)in, (long long)pb, (long long)pe);
            }
            if (opts->ceil_mode && !valid) {
                out = ceil_div(span, s) + 1;
                /* A last window starting in the end padding would see no
                 * input at all; like PyTorch and ONNX Runtime, drop it. */
                if ((out - 1) * s >= in + pb)
                    out--;
            } else {
                out = span / s + 1;
            }
        }
        w->in[off + i] = in;
        w->out[off + i] = out;
        w->kernel[off + i] = kernel[i];
        w->stride[off + i] = s;
        w->dilation[off + i] = dil[i];
        w->pad_begin[off + i] = pb;
        w->pad_end[off + i] = pe;
    }
    /* kn_window_in_size and the others multiply unchecked later */
    if (kn_shape_numel(w->in, KN_WIN_DIMS) < 0 || kn_shape_numel(w->out, KN_WIN_DIMS) < 0 ||
        kn_shape_numel(w->kernel, KN_WIN_DIMS) < 0)
        return kn_fail(err, KN_ERR_SHAPE, "%s: the window's input, output or kernel has "
                       "more positions than fit in 64 bits", op);
    return KN_OK;
}

void kn_window_taps(const kn_window *w, int32_t d, int64_t o, int64_t *lo, int64_t *hi)
{
    int64_t start = o * w->stride[d] - w->pad_begin[d];
    int64_t l = ceil_div(-start, w->dilation[d]), h = ceil_div(w->in[d] - start, w->dilation[d]);
    if (l < 0)
        l = 0;
    if (h > w->kernel[d])
        h = w->kernel[d];
    *lo = l;
    *hi = h > l ? h : l;
}

void kn_window_outs(const kn_window *w, int32_t d, int64_t t, int64_t *lo, int64_t *hi)
{
    int64_t shift = w->pad_begin[d] - t * w->dilation[d];
    int64_t l = ceil_div(shift, w->stride[d]), h = ceil_div(w->in[d] + shift, w->stride[d]);
    if (l < 0)
        l = 0;
    if (h > w->out[d])
        h = w->out[d];
    *lo = l;
    *hi = h > l ? h : l;
}

/* Short runs are the rule (a line of a 56-wide image, often cut by a
 * block edge), so the copies are inline loops rather than libc calls;
 * fixed-width chunks let gcc -O2 vectorise them. */
#define KN_DEFINE_RUNS(T, SFX)                                                                     \
    static inline void zero_##SFX(T *d, int64_t n)                                                 \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            d[i] = 0;                                                                              \
    }                                                                                              \
    static inline void copy_##SFX(T *restrict d, const T *restrict s, int64_t n)                   \
    {                                                                                              \
        int64_t i = 0;                                                                             \
        for (; i + 16 <= n; i += 16)                                                               \
            for (int l = 0; l < 16; l++)                                                           \
                d[i + l] = s[i + l];                                                               \
        for (; i < n; i++)                                                                         \
            d[i] = s[i];                                                                           \
    }

/* One im2col row per (channel, tap): for every output position in the
 * column range, the input element the tap lands on. Columns walk output
 * lines (runs along the last dim); on each line the tap covers a contiguous
 * range of outputs [lo2, hi2), the rest is padding. Those ranges depend on
 * the tap only, so they are computed once per call for the last dim (when
 * the kernel is not huge) and only when they change for the others. */
#define KN_LAST_TAPS 32
#define KN_DEFINE_IM2COL(T, SFX)                                                                   \
    void kn_im2col_##SFX(const kn_window *w, const T *x, T *col, int64_t row_begin,                \
                         int64_t row_end, int64_t col_begin, int64_t col_end)                      \
    {                                                                                              \
        const int64_t kvol = kn_window_kvol(w), ow = w->out[2], plane = kn_window_in_size(w);      \
        const int64_t sw = w->stride[2], ld = col_end - col_begin, k2 = w->kernel[2];              \
        int64_t lo2s[KN_LAST_TAPS], hi2s[KN_LAST_TAPS];                                            \
        for (int64_t t = 0; t < k2 && t < KN_LAST_TAPS; t++)                                       \
            kn_window_outs(w, 2, t, &lo2s[t], &hi2s[t]);                                           \
        int64_t lo0 = 0, hi0 = 0, lo1 = 0, hi1 = 0, lo2, hi2, last0 = -1, last1 = -1;              \
        for (int64_t row = row_begin; row < row_end; row++) {                                      \
            int64_t c = row / kvol, tap = row % kvol;                                              \
            int64_t t2 = tap % k2, t1 = (tap / k2) % w->kernel[1];                                 \
            int64_t t0 = tap / (k2 * w->kernel[1]);                                                \
            const T *src = x + c * plane;                                                          \
            T *dst = col + row * ld;                                                               \
            if (t0 != last0)                                                                       \
                kn_window_outs(w, 0, last0 = t0, &lo0, &hi0);                                      \
            if (t1 != last1)                                                                       \
                kn_window_outs(w, 1, last1 = t1, &lo1, &hi1);                                      \
            if (t2 < KN_LAST_TAPS) {                                                               \
                lo2 = lo2s[t2];                                                                    \
                hi2 = hi2s[t2];                                                                    \
            } else {                                                                               \
                kn_window_outs(w, 2, t2, &lo2, &hi2);                                              \
            }                                                                                      \
            int64_t j = col_begin, o2 = j % ow, o1 = (j / ow) % w->out[1];                         \
            int64_t o0 = j / (ow * w->out[1]);                                                     \
            while (j < col_end) {                                                                  \
                /* this line's outputs [o2, end) land at d[0 .. end - o2) */                       \
                int64_t end = ow < o2 + col_end - j ? ow : o2 + col_end - j;                       \
                int64_t vlo = lo2 > o2 ? lo2 : o2, vhi = hi2 < end ? hi2 : end;                    \
                T *d = dst + (j - col_begin);                                                      \
                if (o0 < lo0 || o0 >= hi0 || o1 < lo1 || o1 >= hi1 || vhi <= vlo) {               \
                    zero_##SFX(d, end - o2);                                                       \
                } else {                                                                           \
                    int64_t i0 = o0 * w->stride[0] - w->pad_begin[0] + t0 * w->dilation[0];        \
                    int64_t i1 = o1 * w->stride[1] - w->pad_begin[1] + t1 * w->dilation[1];        \
                    int64_t i2 = vlo * sw - w->pad_begin[2] + t2 * w->dilation[2];                 \
                    const T *s = src + (i0 * w->in[1] + i1) * w->in[2] + i2;                       \
                    zero_##SFX(d, vlo - o2);                                                       \
                    if (sw == 1)                                                                   \
                        copy_##SFX(d + (vlo - o2), s, vhi - vlo);                                  \
                    else                                                                           \
                        for (int64_t o = vlo; o < vhi; o++, s += sw)                               \
                            d[o - o2] = *s;                                                        \
                    zero_##SFX(d + (vhi - o2), end - vhi);                                         \
                }                                                                                  \
                j += end - o2;                                                                     \
                o2 = 0;                                                                            \
                if (++o1 == w->out[1]) {                                                           \
                    o1 = 0;                                                                        \
                    o0++;                                                                          \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

KN_DEFINE_RUNS(float, f32)
KN_DEFINE_RUNS(double, f64)
KN_DEFINE_RUNS(int16_t, i16)
KN_DEFINE_IM2COL(float, f32)
KN_DEFINE_IM2COL(double, f64)
KN_DEFINE_IM2COL(int16_t, i16)

void kn_im2col(int32_t dtype, const kn_window *w, const void *x, void *col, int64_t row_begin,
               int64_t row_end, int64_t col_begin, int64_t col_end)
{
    if (dtype == KN_DOUBLE)
        kn_im2col_f64(w, x, col, row_begin, row_end, col_begin, col_end);
    else
        kn_im2col_f32(w, x, col, row_begin, row_end, col_begin, col_end);
}
