/* HannWindow, HammingWindow, BlackmanWindow (opset 17): generalised cosine
 * windows  w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N),  with
 * N = size when periodic (the default: the first `size` points of a
 * window of size + 1) and N = size - 1 when symmetric. The output type is
 * the output_datatype attribute (float by default); values are computed in
 * double and converted once. The length is the value of input 0, so the
 * kernel needs it at prepare time. */
#include <math.h>
#include <stdlib.h>

#include "core/cpu/signal/signal_fft.h"
#include "core/kernel/tensor_common.h"

typedef struct window_coef {
    double a0, a1, a2;
} window_coef;

typedef struct window_state {
    window_coef coef;
    int64_t size, period;
    int32_t dtype;
} window_state;

static void window_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

int signal_output_dtype(kn_kctx *k, int32_t *dtype)
{
    int64_t dt = kn_attr_int(k->node, "output_datatype", KN_FLOAT);
    if (dt <= 0 || dt >= KN_DTYPE_COUNT || dt == KN_BOOL || !kn_convert_supported((int32_t)dt))
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: output_datatype %lld is not supported",
                       k->node->op_type, (long long)dt);
    *dtype = (int32_t)dt;
    return KN_OK;
}

static int window_prepare(kn_kctx *k, window_coef coef)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *size = k->in[0];
    if (size->dtype != KN_INT32 && size->dtype != KN_INT64)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: size must be int32 or int64, not %s",
                       k->node->op_type, kn_dtype_name(size->dtype));
    double v;
    int32_t dtype = KN_FLOAT;
    int rc = signal_const_scalar(k, 0, "size", &v);
    if (rc == KN_OK)
        rc = signal_output_dtype(k, &dtype);
    if (rc != KN_OK)
        return rc;
    if (v < 0 || v > (double)((int64_t)1 << 40))
        return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "%s: size %.0f is not a valid length",
                       k->node->op_type, v);
    window_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    st->coef = coef;
    st->size = (int64_t)v;
    st->period = kn_attr_int(k->node, "periodic", 1) ? st->size : st->size - 1;
    st->dtype = dtype;
    k->state = st;
    kn_tensor *y = k->out[0];
    y->dtype = dtype;
    y->rank = 1;
    y->dims[0] = st->size;
    return KN_OK;
}

static int window_run(kn_kctx *k)
{
    const window_state *st = k->state;
    size_t esz = kn_dtype_size(st->dtype);
    double buf[KN_CHUNK];
    const double two_pi = 6.283185307179586476925286766559;
    for (int64_t i0 = 0; i0 < st->size; i0 += KN_CHUNK) {
        int64_t len = st->size - i0 < KN_CHUNK ? st->size - i0 : KN_CHUNK;
        for (int64_t i = 0; i < len; i++) {
            /* a one-point symmetric window has no period: numpy gives [1] */
            double x = st->period > 0 ? two_pi * (double)(i0 + i) / (double)st->period : 0;
            buf[i] = st->coef.a0 - st->coef.a1 * cos(x) + st->coef.a2 * cos(2 * x);
        }
        if (st->period == 0)
            buf[0] = 1;
        kn_convert(KN_DOUBLE, buf, st->dtype, (char *)k->out[0]->data + (size_t)i0 * esz, len);
    }
    return KN_OK;
}

static int hann_prepare(kn_kctx *k) { return window_prepare(k, (window_coef){0.5, 0.5, 0}); }
static int hamming_prepare(kn_kctx *k)
{
    return window_prepare(k, (window_coef){25.0 / 46.0, 21.0 / 46.0, 0});
}
static int blackman_prepare(kn_kctx *k)
{
    return window_prepare(k, (window_coef){0.42, 0.5, 0.08});
}

#define WINDOW_SIZE_TYPES (KN_BIT(KN_INT32) | KN_BIT(KN_INT64))

const kn_op_def kn_op_hannwindow = {
    .op_type = "HannWindow", .since_version = 17, .dtypes = WINDOW_SIZE_TYPES,
    .prepare = hann_prepare, .run = window_run, .release = window_release
};
const kn_op_def kn_op_hammingwindow = {
    .op_type = "HammingWindow", .since_version = 17, .dtypes = WINDOW_SIZE_TYPES,
    .prepare = hamming_prepare, .run = window_run, .release = window_release
};
const kn_op_def kn_op_blackmanwindow = {
    .op_type = "BlackmanWindow", .since_version = 17, .dtypes = WINDOW_SIZE_TYPES,
    .prepare = blackman_prepare, .run = window_run, .release = window_release
};
