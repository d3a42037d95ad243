/* MelWeightMatrix (opset 17): a [dft_length/2 + 1, num_mel_bins] matrix of
 * triangular filters that maps a one-sided spectrum to mel bands, with
 * mel(f) = 2595 log10(1 + f / 700).
 *
 * The edges are num_mel_bins + 2 points evenly spaced in mel between the
 * lower and upper edge frequencies, with the spacing (upper - lower) /
 * (num_mel_bins + 2) that the ONNX reference (and ONNX Runtime) use, each
 * mapped to the spectrum bin floor((dft_length + 1) * hz / sample_rate).
 * Filter i rises linearly from edge i to a peak of 1 at edge i + 1 and
 * falls to edge i + 2. The mel edge values are computed in the precision
 * of the frequency inputs, as the reference does, since a bin boundary can
 * hinge on it. Rows outside the spectrum are skipped. */
#include <math.h>
#include <string.h>

#include "core/cpu/signal/signal_fft.h"
#include "core/kernel/tensor_common.h"

enum { IN_BINS, IN_DFT_LENGTH, IN_RATE, IN_LOWER, IN_UPPER };

static int mel_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 5) != KN_OK)
        return k->err->code;
    for (int32_t i = 0; i < 5; i++) {
        int32_t dt = k->in[i]->dtype;
        int ok = i < IN_LOWER ? dt == KN_INT32 || dt == KN_INT64
                              : dt > 0 && dt < KN_DTYPE_COUNT && (KN_BIT(dt) & SIGNAL_FLOAT_TYPES);
        if (!ok || kn_tensor_numel(k->in[i]) != 1 || k->in[i]->rank > 1)
            return kn_fail(k->err, KN_ERR_DTYPE,
                           "MelWeightMatrix: input %d must be a %s scalar, got %s", (int)i,
                           i < IN_LOWER ? "int32/int64" : "floating-point",
                           kn_dtype_name(dt));
    }
    double bins, dft_length;
    int32_t dtype = KN_FLOAT;
    int rc = signal_const_scalar(k, IN_BINS, "num_mel_bins", &bins);
    if (rc == KN_OK)
        rc = signal_const_scalar(k, IN_DFT_LENGTH, "dft_length", &dft_length);
    if (rc == KN_OK)
        rc = signal_output_dtype(k, &dtype);
    if (rc != KN_OK)
        return rc;
    if (bins < 0 || bins > 1e8 || dft_length < 1 || dft_length > 1e9)
        return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                       "MelWeightMatrix: num_mel_bins %.0f / dft_length %.0f out of range", bins,
                       dft_length);
    kn_tensor *y = k->out[0];
    y->dtype = dtype;
    y->rank = 2;
    y->dims[0] = (int64_t)dft_length / 2 + 1;
    y->dims[1] = (int64_t)bins;
    if (kn_tensor_numel(y) < 0 || kn_tensor_numel(y) > ((int64_t)1 << 40))
        return kn_fail(k->err, KN_ERR_SHAPE, "MelWeightMatrix: output is too large");
    return KN_OK;
}

/* Spectrum bin of mel edge i. */
static double edge_bin(double mel_lo, double mel_step, int64_t i, int64_t dft_length, double rate)
{
    double mel = (double)i * mel_step + mel_lo;
    double hz = 700.0 * (pow(10.0, mel / 2595.0) - 1.0);
    return floor((double)(dft_length + 1) * hz / rate);
}

static void put(kn_tensor *y, int64_t row, int64_t col, double v)
{
    if (row < 0 || row >= y->dims[0])
        return;
    unsigned char elem[8];
    size_t esz = kn_dtype_size(y->dtype);
    kn_scalar_from_double(y->dtype, v, elem);
    memcpy((char *)y->data + (size_t)(row * y->dims[1] + col) * esz, elem, esz);
}

static int mel_run(kn_kctx *k)
{
    kn_tensor *y = k->out[0];
    int64_t bins = y->dims[1], dft_length = kn_read_int(k->in[IN_DFT_LENGTH], 0);
    double rate = (double)kn_read_int(k->in[IN_RATE], 0);
    double lo = kn_read_double(k->in[IN_LOWER], 0), hi = kn_read_double(k->in[IN_UPPER], 0);
    if (!(rate > 0) || !isfinite(lo) || !isfinite(hi))
        return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                       "MelWeightMatrix: sample_rate %.0f and edge frequencies %g, %g must be "
                       "positive and finite",
                       rate, lo, hi);
    double mel_lo, mel_step;
    if (k->in[IN_LOWER]->dtype == KN_DOUBLE) {
        mel_lo = 2595.0 * log10(1.0 + lo / 700.0);
        mel_step = (2595.0 * log10(1.0 + hi / 700.0) - mel_lo) / (double)(bins + 2);
    } else {
        float flo = 2595.0f * log10f(1.0f + (float)lo / 700.0f);
        float fhi = 2595.0f * log10f(1.0f + (float)hi / 700.0f);
        mel_lo = flo;
        mel_step = (fhi - flo) / (float)(bins + 2);
    }
    memset(y->data, 0, (size_t)kn_tensor_nbytes(y)); /* zero bits are 0 in every numeric type */
    int64_t rows = y->dims[0];
    for (int64_t i = 0; i < bins; i++) {
        double l = edge_bin(mel_lo, mel_step, i, dft_length, rate);
        double c = edge_bin(mel_lo, mel_step, i + 1, dft_length, rate);
        double r = edge_bin(mel_lo, mel_step, i + 2, dft_length, rate);
        if (!isfinite(l) || !isfinite(c) || !isfinite(r))
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                           "MelWeightMatrix: edge frequencies give no finite spectrum bins");
        /* rising edge [l, c], visiting only rows inside the spectrum */
        if (c == l) {
            if (c >= 0 && c < (double)rows)
                put(y, (int64_t)c, i, 1);
        } else {
            double j0 = l > 0 ? l : 0, j1 = c < (double)(rows - 1) ? c : (double)(rows - 1);
            for (double j = j0; j <= j1; j++)
                put(y, (int64_t)j, i, (j - l) / (c - l));
        }
        /* falling edge [c, r) */
        if (r > c) {
            double j0 = c > 0 ? c : 0, j1 = r - 1 < (double)(rows - 1) ? r - 1 : (double)(rows - 1);
            for (double j = j0; j <= j1; j++)
                put(y, (int64_t)j, i, (r - j) / (r - c));
        }
    }
    return KN_OK;
}

const kn_op_def kn_op_melweightmatrix = {
    .op_type = "MelWeightMatrix", .since_version = 17,
    .dtypes = KN_BIT(KN_INT32) | KN_BIT(KN_INT64), .prepare = mel_prepare, .run = mel_run
};
