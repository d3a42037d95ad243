#include "core/calib/calib_threshold.h"

#include <math.h>
#include <stdlib.h>

const char *kn_calib_method_name(int method)
{
    switch (method) {
    case KN_CALIB_MINMAX: return "minmax";
    case KN_CALIB_PERCENTILE: return "percentile";
    case KN_CALIB_ENTROPY: return "entropy";
    case KN_CALIB_MSE: return "mse";
    default: return NULL;
    }
}

static double abs_max(const kn_calib_hist *h) { return fmax(-h->min, h->max); }

static double percentile_threshold(const kn_calib_hist *h, double percentile)
{
    if (percentile >= 100)
        return abs_max(h);
    const double w = kn_calib_bin_width(h);
    const double target = percentile / 100 * (double)h->count;
    double below = 0;
    for (int i = 0; i < KN_CALIB_BINS; i++) {
        double n = (double)kn_calib_abs_bin(h, i);
        if (n > 0 && below + n >= target) /* the target falls in this bin: interpolate */
            return fmin(abs_max(h), (i + (target - below) / n) * w);
        below += n;
    }
    return abs_max(h);
}

/* Kullback-Leibler divergence of Q from P over the bins where P has mass;
 * where Q has none there, a small floor stands in, so that losing a bin's
 * mass is costly but finite. Both are normalised here. */
static double kl_divergence(const double *p, const double *q, int n)
{
    const double floor_q = 1e-4;
    double sp = 0, sq = 0;
    for (int j = 0; j < n; j++) {
        sp += p[j];
        sq += q[j];
    }
    double kl = 0;
    for (int j = 0; j < n; j++) {
        if (p[j] <= 0)
            continue;
        double pj = p[j] / sp, qj = q[j] > 0 ? q[j] / sq : floor_q / n;
        kl += pj * log(pj / qj);
    }
    return kl;
}

static int entropy_threshold(const kn_calib_hist *h, int levels, double *out, kn_err *err)
{
    const int quantized_bins = levels + 1;
    double *hist = malloc(3 * KN_CALIB_BINS * sizeof *hist);
    if (!hist)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "calibration: out of memory");
    double *p = hist + KN_CALIB_BINS, *q = p + KN_CALIB_BINS;
    double total = 0;
    for (int i = 0; i < KN_CALIB_BINS; i++)
        total += hist[i] = (double)kn_calib_abs_bin(h, i);

    double best_kl = INFINITY, kept_mass = 0;
    int best_bins = KN_CALIB_BINS;
    for (int i = 0; i < quantized_bins - 1; i++)
        kept_mass += hist[i];
    for (int bins = quantized_bins; bins <= KN_CALIB_BINS; bins++) {
        kept_mass += hist[bins - 1];
        /* P: the first `bins` bins, the values beyond folded into the last. */
        for (int j = 0; j < bins; j++)
            p[j] = hist[j];
        p[bins - 1] += total - kept_mass;
        /* Q: the same bins merged into quantized_bins levels, each level's
         * mass spread evenly over its bins that held any. */
        for (int k = 0; k < quantized_bins; k++) {
            int start = (int)((int64_t)k * bins / quantized_bins);
            int end = (int)((int64_t)(k + 1) * bins / quantized_bins);
            double mass = 0;
            int occupied = 0;
            for (int j = start; j < end; j++) {
                mass += hist[j];
                occupied += hist[j] > 0;
            }
            for (int j = start; j < end; j++)
                q[j] = hist[j] > 0 ? mass / occupied : 0;
        }
        double kl = kl_divergence(p, q, bins);
        if (kl < best_kl) {
            best_kl = kl;
            best_bins = bins;
        }
    }
    free(hist);
    *out = fmin(abs_max(h), best_bins * kn_calib_bin_width(h));
    return KN_OK;
}

/* The expected squared error of quantizing with threshold t: values beyond
 * t clip to it (by their bin centres), nonzero values within round with an
 * error uniform over one step. Suffix sums make each candidate O(1). */
static double mse_threshold(const kn_calib_hist *h, int levels)
{
    const double w = kn_calib_bin_width(h);
    double s0 = 0, s1 = 0, s2 = 0; /* sums over bins >= i of n, n c, n c^2 */
    double below = 0;              /* nonzero values in bins < i */
    for (int i = 0; i < KN_CALIB_BINS; i++)
        below += (double)kn_calib_abs_bin(h, i);
    below -= (double)h->zeros;

    double best_t = abs_max(h), best_mse = INFINITY;
    for (int i = KN_CALIB_BINS; i >= 1; i--) {
        /* Candidate t = i w: bins i.. are clipped. Move bin i from "below"
         * to the clipped sums (bin KN_CALIB_BINS does not exist). */
        if (i < KN_CALIB_BINS) {
            double n = (double)kn_calib_abs_bin(h, i), c = (i + 0.5) * w;
            s0 += n;
            s1 += n * c;
            s2 += n * c * c;
            below -= n;
        }
        double t = i * w, step = t / levels;
        double mse = below * step * step / 12 + (s2 - 2 * t * s1 + t * t * s0);
        if (mse < best_mse) {
            best_mse = mse;
            best_t = t;
        }
    }
    return fmin(best_t, abs_max(h));
}

int kn_calib_threshold(const kn_calib_hist *h, int method, double percentile, int levels,
                       double *threshold, kn_err *err)
{
    if (!kn_calib_method_name(method))
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "unknown calibration method %d", method);
    if (method == KN_CALIB_PERCENTILE && !(percentile > 0 && percentile <= 100))
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "the percentile must be in (0, 100], got %g",
                       percentile);
    if (levels < 1 || levels >= KN_CALIB_BINS)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "calibration: %d quantization levels", levels);
    if (h->count == 0)
        return kn_fail(err, KN_ERR_STATE, "no finite values were seen");
    *threshold = 0;
    if (h->range == 0) /* zeros only */
        return KN_OK;
    switch (method) {
    case KN_CALIB_MINMAX: *threshold = abs_max(h); return KN_OK;
    case KN_CALIB_PERCENTILE: *threshold = percentile_threshold(h, percentile); return KN_OK;
    case KN_CALIB_ENTROPY: return entropy_threshold(h, levels, threshold, err);
    default: *threshold = mse_threshold(h, levels); return KN_OK;
    }
}

int kn_calib_choose(const kn_calib_hist *h, int method, double percentile, int symmetric,
                    kn_quant_params *out, kn_err *err)
{
    /* A tensor that is never negative spends all 255 uint8 steps on [0, T]. */
    const int nonnegative = !symmetric && h->min >= 0;
    double t;
    int st = kn_calib_threshold(h, method, percentile, nonnegative ? 255 : 127, &t, err);
    if (st)
        return st;
    kn_quant_params q;
    if (symmetric) {
        q.lo = -t;
        q.hi = t;
        q.scale = t > 0 ? (float)(t / 127) : 1.0f;
        q.zero_point = 0;
        q.qmin = -128;
        q.qmax = 127;
    } else {
        /* The seen range clipped to the threshold, holding zero (ONNX's
         * zero point must be representable). */
        q.lo = fmin(0, fmax(h->min, -t));
        q.hi = fmax(0, fmin(h->max, t));
        q.scale = q.hi > q.lo ? (float)((q.hi - q.lo) / 255) : 1.0f;
        double zp = nearbyint(-q.lo / q.scale);
        q.zero_point = (int32_t)fmin(255, fmax(0, zp));
        q.qmin = 0;
        q.qmax = 255;
    }
    *out = q;
    return KN_OK;
}

double kn_calib_sqnr_db(const kn_calib_hist *h, const kn_quant_params *q)
{
    const double w = kn_calib_bin_width(h), step = q->scale;
    const double rounding = step * step / 12;
    double noise = 0;
    for (int side = 0; side < 2; side++) {
        const uint64_t *bins = side ? h->neg : h->pos;
        for (int j = 0; j < KN_CALIB_BINS; j++) {
            double n = (double)bins[j];
            if (side == 0 && j == 0)
                n -= (double)(h->zeros - h->zeros_unbinned); /* binned exact zeros */
            if (n <= 0)
                continue;
            double c = (side ? -1 : 1) * (j + 0.5) * w;
            if (c < q->lo)
                noise += n * (c - q->lo) * (c - q->lo);
            else if (c > q->hi)
                noise += n * (c - q->hi) * (c - q->hi);
            else
                noise += n * rounding;
        }
    }
    if (noise <= 0)
        return INFINITY;
    return 10 * log10(h->sum_squares / noise);
}
