/* The FFT engine of signal_fft.h, and DFT (opset 17: axis attribute;
 * opset 20: axis input). A tensor [.., n_axis, .., 1 or 2] holds real or
 * complex signals along one axis; each 1-D signal is gathered into a
 * complex double buffer, transformed, and scattered back:
 *  - onesided = 0: complex output of dft_length bins (inverse divides by n);
 *  - onesided = 1, inverse = 0 (RFFT): the first n/2 + 1 bins;
 *  - onesided = 1, inverse = 1 (IRFFT): the input holds bins 0 .. n/2 of a
 *    Hermitian spectrum (n = dft_length, default 2 * (n_axis - 1)); the
 *    rest is mirrored and the real signal of length n is returned. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu/signal/signal_fft.h"
#include "core/kernel/tensor_common.h"

enum { FFT_RADIX2, FFT_DIRECT, FFT_BLUESTEIN };

/* Non-power-of-two lengths up to this use the direct sum: cheaper than
 * Bluestein's three padded FFTs, and as accurate. */
#define DIRECT_MAX 64

static const double two_pi = 6.283185307179586476925286766559;

/* tw[2k], tw[2k+1] = cos, -sin(2 pi k / n) for k < count. */
static void fill_twiddles(double *tw, int64_t n, int64_t count)
{
    for (int64_t k = 0; k < count; k++) {
        double a = two_pi * (double)k / (double)n;
        tw[2 * k] = cos(a);
        tw[2 * k + 1] = -sin(a);
    }
}

/* In-place iterative radix-2 transform; tw holds n/2 twiddles. */
static void radix2(double *d, int64_t n, const double *tw)
{
    for (int64_t i = 1, j = 0; i < n; i++) { /* bit-reversal permutation */
        int64_t bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j |= bit;
        if (i < j) {
            double re = d[2 * i], im = d[2 * i + 1];
            d[2 * i] = d[2 * j];
            d[2 * i + 1] = d[2 * j + 1];
            d[2 * j] = re;
            d[2 * j + 1] = im;
        }
    }
    for (int64_t len = 2; len <= n; len <<= 1) {
        int64_t half = len >> 1, step = n / len;
        for (int64_t i = 0; i < n; i += len)
            for (int64_t k = 0; k < half; k++) {
                double wr = tw[2 * k * step], wi = tw[2 * k * step + 1];
                double *a = d + 2 * (i + k), *b = d + 2 * (i + k + half);
                double tr = b[0] * wr - b[1] * wi, ti = b[0] * wi + b[1] * wr;
                b[0] = a[0] - tr;
                b[1] = a[1] - ti;
                a[0] += tr;
                a[1] += ti;
            }
    }
}

static void conjugate(double *d, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        d[2 * i + 1] = -d[2 * i + 1];
}

int signal_fft_init(signal_fft *p, int64_t n, const char *op, kn_err *err)
{
    memset(p, 0, sizeof *p);
    if (n < 1 || n > SIGNAL_FFT_MAX_N)
        return kn_fail(err, KN_ERR_UNSUPPORTED, "%s: transform length %lld is not in [1, %lld]", op,
                       (long long)n, (long long)SIGNAL_FFT_MAX_N);
    p->n = n;
    int64_t doubles;
    if ((n & (n - 1)) == 0) {
        p->kind = FFT_RADIX2;
        doubles = n > 1 ? n : 2;
    } else if (n <= DIRECT_MAX) {
        p->kind = FFT_DIRECT;
        doubles = 2 * n;
    } else {
        p->kind = FFT_BLUESTEIN;
        p->m = 1;
        while (p->m < 2 * n - 1)
            p->m <<= 1;
        doubles = 2 * n + p->m + 2 * p->m;
    }
    p->tw = malloc(sizeof(double) * (size_t)doubles);
    if (!p->tw)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory for a length-%lld FFT", op,
                       (long long)n);
    if (p->kind == FFT_RADIX2) {
        fill_twiddles(p->tw, n, n / 2);
    } else if (p->kind == FFT_DIRECT) {
        fill_twiddles(p->tw, n, n);
    } else {
        /* chirp w[j] = e^(-pi i j^2 / n); j^2 taken mod 2n keeps the angle
         * small, so it stays exact for long transforms */
        int64_t m = p->m;
        p->tw_m = p->tw + 2 * n;
        p->chirp_fft = p->tw_m + m;
        for (int64_t j = 0; j < n; j++) {
            double a = two_pi / 2 * (double)((j * j) % (2 * n)) / (double)n;
            p->tw[2 * j] = cos(a);
            p->tw[2 * j + 1] = -sin(a);
        }
        fill_twiddles(p->tw_m, m, m / 2);
        double *b = p->chirp_fft;
        memset(b, 0, sizeof(double) * 2 * (size_t)m);
        for (int64_t j = 0; j < n; j++) { /* conj(w) at +j and -j (mod m) */
            b[2 * j] = p->tw[2 * j];
            b[2 * j + 1] = -p->tw[2 * j + 1];
            if (j > 0) {
                b[2 * (m - j)] = b[2 * j];
                b[2 * (m - j) + 1] = b[2 * j + 1];
            }
        }
        radix2(b, m, p->tw_m);
    }
    return KN_OK;
}

void signal_fft_free(signal_fft *p)
{
    if (!p)
        return;
    free(p->tw);
    memset(p, 0, sizeof *p);
}

size_t signal_fft_work_bytes(const signal_fft *p)
{
    switch (p->kind) {
    case FFT_DIRECT: return sizeof(double) * 2 * (size_t)p->n;
    case FFT_BLUESTEIN: return sizeof(double) * 2 * (size_t)p->m;
    default: return 0;
    }
}

static void forward(const signal_fft *p, double *d, double *work)
{
    int64_t n = p->n;
    if (p->kind == FFT_RADIX2) {
        radix2(d, n, p->tw);
    } else if (p->kind == FFT_DIRECT) {
        memcpy(work, d, sizeof(double) * 2 * (size_t)n);
        for (int64_t k = 0; k < n; k++) {
            double re = 0, im = 0;
            for (int64_t j = 0, q = 0; j < n; j++) { /* q = j * k mod n */
                double xr = work[2 * j], xi = work[2 * j + 1];
                double wr = p->tw[2 * q], wi = p->tw[2 * q + 1];
                re += xr * wr - xi * wi;
                im += xr * wi + xi * wr;
                q += k;
                if (q >= n)
                    q -= n;
            }
            d[2 * k] = re;
            d[2 * k + 1] = im;
        }
    } else {
        /* X[k] = w[k] * sum_j (x[j] w[j]) conj(w[k - j]): a convolution,
         * done as a product of length-m spectra */
        int64_t m = p->m;
        const double *w = p->tw, *bf = p->chirp_fft;
        memset(work, 0, sizeof(double) * 2 * (size_t)m);
        for (int64_t j = 0; j < n; j++) {
            work[2 * j] = d[2 * j] * w[2 * j] - d[2 * j + 1] * w[2 * j + 1];
            work[2 * j + 1] = d[2 * j] * w[2 * j + 1] + d[2 * j + 1] * w[2 * j];
        }
        radix2(work, m, p->tw_m);
        for (int64_t k = 0; k < m; k++) { /* times the chirp spectrum, conjugated for the inverse */
            double re = work[2 * k] * bf[2 * k] - work[2 * k + 1] * bf[2 * k + 1];
            double im = work[2 * k] * bf[2 * k + 1] + work[2 * k + 1] * bf[2 * k];
            work[2 * k] = re;
            work[2 * k + 1] = -im;
        }
        radix2(work, m, p->tw_m);
        double scale = 1.0 / (double)m;
        for (int64_t k = 0; k < n; k++) {
            double re = work[2 * k] * scale, im = -work[2 * k + 1] * scale;
            d[2 * k] = re * w[2 * k] - im * w[2 * k + 1];
            d[2 * k + 1] = re * w[2 * k + 1] + im * w[2 * k];
        }
    }
}

void signal_fft_run(const signal_fft *p, double *data, int inverse, void *work)
{
    /* the inverse transform is the conjugate of the forward transform of
     * the conjugate */
    if (inverse)
        conjugate(data, p->n);
    forward(p, data, work);
    if (inverse)
        conjugate(data, p->n);
}

int signal_const_scalar(kn_kctx *k, int32_t idx, const char *name, double *v)
{
    const char *op = k->node->op_type;
    const kn_tensor *t = kn_input(k, idx);
    if (!t)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: input '%s' is required", op, name);
    if (t->dtype <= 0 || t->dtype >= KN_DTYPE_COUNT ||
        !(KN_BIT(t->dtype) & (KN_MASK_NUMERIC | SIGNAL_FLOAT_TYPES)))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input '%s' has type %s", op, name,
                       kn_dtype_name(t->dtype));
    if (kn_tensor_numel(t) != 1 || t->rank > 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: input '%s' must be a scalar", op, name);
    if (!t->data)
        return kn_fail(k->err, KN_ERR_NEEDS_VALUE,
                       "%s: output shape depends on the value of input '%s'", op, name);
    *v = (KN_BIT(t->dtype) & KN_MASK_INTS) ? (double)kn_read_int(t, 0) : kn_read_double(t, 0);
    return KN_OK;
}

/* ---- DFT --------------------------------------------------------------- */

typedef struct dft_state {
    signal_fft fft;
    int32_t dtype;
    int64_t outer, inner, din, dout; /* dims around the axis; input/output axis lengths */
    int64_t cin, cout;               /* 1 (real) or 2 (complex) */
    int32_t inverse, irfft;
    int32_t tasks;
    size_t slot_bytes;               /* per task: signal buffer + FFT work */
} dft_state;

static void dft_release(kn_kctx *k)
{
    dft_state *st = k->state;
    if (st)
        signal_fft_free(&st->fft);
    free(st);
    k->state = NULL;
}

static int dft_setup(kn_kctx *k, dft_state *st, int64_t axis_value)
{
    const kn_tensor *x = k->in[0];
    int32_t r = x->rank;
    if (r < 2 || (x->dims[r - 1] != 1 && x->dims[r - 1] != 2))
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "DFT: input must be [..., signal, ..., 1 or 2] (real or complex), rank %d",
                       (int)r);
    int64_t axis = axis_value < 0 ? axis_value + r : axis_value;
    if (axis < 0 || axis > r - 2)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "DFT: axis %lld is not a signal axis of a rank-%d input",
                       (long long)axis_value, (int)r);
    int64_t onesided = kn_attr_int(k->node, "onesided", 0);
    st->inverse = kn_attr_int(k->node, "inverse", 0) != 0;
    st->irfft = onesided && st->inverse;
    st->dtype = x->dtype;
    st->din = x->dims[axis];
    st->cin = x->dims[r - 1];
    st->outer = 1;
    st->inner = 1;
    for (int32_t d = 0; d < axis; d++)
        st->outer *= x->dims[d];
    for (int32_t d = (int32_t)axis + 1; d < r - 1; d++)
        st->inner *= x->dims[d];

    int64_t n = st->irfft ? 2 * (st->din - 1) : st->din;
    if (kn_input(k, 1)) {
        double v;
        int rc = signal_const_scalar(k, 1, "dft_length", &v);
        if (rc != KN_OK)
            return rc;
        n = (int64_t)v;
    }
    if (n < 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "DFT: transform length %lld must be >= 1",
                       (long long)n);
    int rc = signal_fft_init(&st->fft, n, "DFT", k->err);
    if (rc != KN_OK)
        return rc;
    st->dout = onesided && !st->inverse ? n / 2 + 1 : n;
    st->cout = st->irfft ? 1 : 2;

    kn_tensor *y = k->out[0];
    kn_copy_desc(y, x);
    y->dims[axis] = st->dout;
    y->dims[r - 1] = st->cout;
    if (kn_tensor_numel(y) < 0)
        return kn_fail(k->err, KN_ERR_SHAPE, "DFT: output is too large");

    int32_t threads = kn_threadpool_threads(k->threads);
    int64_t transforms = st->outer * st->inner;
    st->tasks = transforms < threads ? (int32_t)(transforms > 0 ? transforms : 1) : threads;
    st->slot_bytes = (sizeof(double) * 2 * (size_t)n + signal_fft_work_bytes(&st->fft) + 63) &
                     ~(size_t)63;
    k->scratch_bytes = st->slot_bytes * (size_t)st->tasks;
    return KN_OK;
}

static int dft_prepare(kn_kctx *k, int64_t axis)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    dft_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "DFT: out of memory");
    k->state = st;
    int rc = dft_setup(k, st, axis);
    if (rc != KN_OK)
        dft_release(k);
    return rc;
}

static int dft_prepare_17(kn_kctx *k) { return dft_prepare(k, kn_attr_int(k->node, "axis", 1)); }

static int dft_prepare_20(kn_kctx *k)
{
    double axis = -2;
    if (kn_input(k, 2)) {
        int rc = signal_const_scalar(k, 2, "axis", &axis);
        if (rc != KN_OK)
            return rc;
    }
    return dft_prepare(k, (int64_t)axis);
}

typedef struct dft_job {
    const dft_state *st;
    const void *x;
    void *y;
    char *scratch;
    int64_t per_task;
} dft_job;

/* One 1-D transform: signal (o, i) of the input to the same of the output. */
static void dft_one(const dft_state *st, const void *x, void *y, int64_t o, int64_t i, double *buf,
                    void *work)
{
    int64_t n = st->fft.n, din = st->din, inner = st->inner;
    int64_t have = st->irfft ? n / 2 + 1 : n;
    for (int64_t j = 0; j < have; j++) {
        double re = 0, im = 0;
        if (j < din) {
            int64_t off = ((o * din + j) * inner + i) * st->cin;
            re = signal_ld(st->dtype, x, off);
            im = st->cin == 2 ? signal_ld(st->dtype, x, off + 1) : 0;
        }
        buf[2 * j] = re;
        buf[2 * j + 1] = im;
    }
    for (int64_t j = have; j < n; j++) { /* IRFFT: X[n - j] = conj(X[j]) */
        buf[2 * j] = buf[2 * (n - j)];
        buf[2 * j + 1] = -buf[2 * (n - j) + 1];
    }
    signal_fft_run(&st->fft, buf, st->inverse, work);
    double scale = st->inverse ? 1.0 / (double)n : 1.0;
    for (int64_t kk = 0; kk < st->dout; kk++) {
        int64_t off = ((o * st->dout + kk) * inner + i) * st->cout;
        signal_st(st->dtype, y, off, buf[2 * kk] * scale);
        if (st->cout == 2)
            signal_st(st->dtype, y, off + 1, buf[2 * kk + 1] * scale);
    }
}

/* Task t (which owns scratch slot t) does transforms [t*per, (t+1)*per). */
static void dft_task(void *ctx, int64_t begin, int64_t end)
{
    const dft_job *j = ctx;
    const dft_state *st = j->st;
    double *buf = (double *)(void *)(j->scratch + (size_t)begin * st->slot_bytes);
    void *work = buf + 2 * st->fft.n;
    int64_t total = st->outer * st->inner;
    for (int64_t t = begin; t < end; t++)
        for (int64_t q = t * j->per_task; q < (t + 1) * j->per_task && q < total; q++)
            dft_one(st, j->x, j->y, q / st->inner, q % st->inner, buf, work);
}

static int dft_run(kn_kctx *k)
{
    const dft_state *st = k->state;
    int64_t total = st->outer * st->inner;
    if (total == 0)
        return KN_OK;
    dft_job j = {st, k->in[0]->data, k->out[0]->data, k->scratch,
                 (total + st->tasks - 1) / st->tasks};
    kn_parallel_for(k->threads, st->tasks, 1, dft_task, &j);
    return KN_OK;
}

const kn_op_def kn_op_dft_17 = {
    .op_type = "DFT", .since_version = 17, .until_version = 19, .dtypes = SIGNAL_FLOAT_TYPES,
    .prepare = dft_prepare_17, .run = dft_run, .release = dft_release
};
const kn_op_def kn_op_dft_20 = {
    .op_type = "DFT", .since_version = 20, .dtypes = SIGNAL_FLOAT_TYPES,
    .prepare = dft_prepare_20, .run = dft_run, .release = dft_release
};
