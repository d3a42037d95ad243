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

/* One side of a histogram as magnitudes: both sides folded (symmetric
 * ranges), or only the positive or only the negative values (the two ends
 * of an asymmetric range, each chosen on its own distribution). */
enum { BOTH_SIDES = 0, POSITIVE_SIDE = 1, NEGATIVE_SIDE = -1 };

typedef struct magnitudes {
    double bins[KN_CALIB_BINS]; /* counts of |x| per bin */
    double count, zeros;        /* values, and exact zeros among them (in bin 0) */
    double amax, w;             /* largest magnitude, bin width */
} magnitudes;

static void magnitudes_of(const kn_calib_hist *h, int side, magnitudes *m)
{
    m->count = 0;
    for (int i = 0; i < KN_CALIB_BINS; i++) {
        double n = 0;
        if (side != NEGATIVE_SIDE)
            n += (double)h->pos[i] + (i == 0 ? (double)h->zeros_unbinned : 0);
        if (side != POSITIVE_SIDE)
            n += (double)h->neg[i];
        m->bins[i] = n;
        m->count += n;
    }
    m->zeros = side == NEGATIVE_SIDE ? 0 : (double)h->zeros;
    m->amax = side == POSITIVE_SIDE   ? fmax(h->max, 0)
              : side == NEGATIVE_SIDE ? fmax(-h->min, 0)
                                      : fmax(-h->min, h->max);
    m->w = kn_calib_bin_width(h);
}

static double percentile_threshold(const magnitudes *m, double percentile)
{
    if (percentile >= 100)
        return m->amax;
    const double target = percentile / 100 * m->count;
    double below = 0;
    for (int i = 0; i < KN_CALIB_BINS; i++) {
        double n = m->bins[i];
        if (n > 0 && below + n >= target) /* the target falls in this bin: interpolate */
            return fmin(m->amax, (i + (target - below) / n) * m->w);
        below += n;
    }
    return m->amax;
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

/* Bins the entropy search works on: all 2048 when the histogram is dense,
 * fewer (neighbours merged, down to 4 per quantized level) when it holds
 * few values. On a sparse histogram the KL divergence measures sampling
 * noise, not clipping: merging a level's bins spreads its mass over bins
 * whose counts are 0, 1 or 3 by chance, which makes every wider candidate
 * look worse and drags the threshold far below the data's real extent. */
static int entropy_bins(const magnitudes *m, int quantized_bins)
{
    const double values_per_bin = 16;
    int bins = KN_CALIB_BINS;
    while (bins / 2 >= 4 * quantized_bins && m->count < values_per_bin * bins)
        bins /= 2;
    return bins;
}

/* A bin holding more than this share of the values is a spike: one
 * magnitude repeated (a real image's uniform background through a Relu
 * held 68-88 % of a channel's nonzero outputs), not part of a smooth
 * distribution, whose densest of 2048 bins holds well under 1 %. */
#define KN_CALIB_SPIKE_SHARE 0.02

static int entropy_threshold(const magnitudes *m, int levels, double *out, kn_err *err)
{
    const int quantized_bins = levels + 1;
    const int n_bins = entropy_bins(m, quantized_bins), merge = KN_CALIB_BINS / n_bins;
    double *p = malloc(3 * KN_CALIB_BINS * sizeof *p);
    if (!p)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "calibration: out of memory");
    double *q = p + KN_CALIB_BINS, *hist = q + KN_CALIB_BINS;
    for (int i = 0; i < n_bins; i++) {
        hist[i] = 0;
        for (int j = 0; j < merge; j++)
            hist[i] += m->bins[i * merge + j];
    }
    /* Spikes leave the search: Q spreads each level's mass evenly over the
     * level's bins, so a spike is represented worse the more bins its level
     * spans, and its share then outweighs every clipping cost. The search
     * picked the narrowest thresholds: the trained MNIST CNN's first
     * depthwise Relu clipped at 1.59 of 7.57, 30 points of top-1 lost. A
     * spike's own rounding is the same at any threshold; it only has to
     * stay in range, so the threshold is kept at or beyond the last one. */
    double count = m->count;
    int min_bins = quantized_bins;
    for (int i = 0; i < n_bins; i++)
        if (hist[i] > KN_CALIB_SPIKE_SHARE * m->count) {
            count -= hist[i];
            hist[i] = 0;
            min_bins = i + 1 > min_bins ? i + 1 : min_bins;
        }

    double best_kl = INFINITY, kept_mass = 0;
    int best_bins = n_bins;
    for (int i = 0; i < quantized_bins - 1; i++)
        kept_mass += hist[i];
    for (int bins = quantized_bins; bins <= n_bins; bins++) {
        kept_mass += hist[bins - 1];
        if (bins < min_bins)
            continue;
        /* P: the first `bins` bins, the values beyond folded into the last. */
        for (int j = 0; j < bins; j++)
            p[j] = hist[j];
        p[bins - 1] += count - kept_mass;
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
    free(p);
    *out = fmin(m->amax, best_bins * merge * m->w);
    return KN_OK;
}

/* The expected squared error of quantizing with threshold t: values beyond
 * t clip to it (by their bin centres), nonzero values within round with an
 * error uniform over one step. Suffix sums make each candidate O(1). */
static double mse_threshold(const magnitudes *m, int levels)
{
    const double w = m->w;
    double s0 = 0, s1 = 0, s2 = 0;      /* sums over bins >= i of n, n c, n c^2 */
    double below = m->count - m->zeros; /* nonzero values in bins < i */
    double best_t = m->amax, best_mse = INFINITY;
    for (int i = KN_CALIB_BINS; i >= 1; i--) {
        /* Candidate t = i w: bins i.. are clipped. Move bin i from "below"
         * to the clipped sums (bin KN_CALIB_BINS does not exist). */
        if (i < KN_CALIB_BINS) {
            double n = m->bins[i], c = (i + 0.5) * w;
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
    return fmin(best_t, m->amax);
}

/* The threshold over one side (or both) of h; *t = 0 for a side without
 * any nonzero value. Arguments are checked by the callers. */
static int side_threshold(const kn_calib_hist *h, int side, int method, double percentile,
                          int levels, double *t, kn_err *err)
{
    *t = 0;
    if (h->range == 0) /* zeros only */
        return KN_OK;
    magnitudes *m = malloc(sizeof *m);
    if (!m)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "calibration: out of memory");
    magnitudes_of(h, side, m);
    int rc = KN_OK;
    if (m->amax > 0) {
        switch (method) {
        case KN_CALIB_MINMAX: *t = m->amax; break;
        case KN_CALIB_PERCENTILE: *t = percentile_threshold(m, percentile); break;
        case KN_CALIB_ENTROPY: rc = entropy_threshold(m, levels, t, err); break;
        default: *t = mse_threshold(m, levels); break;
        }
    }
    free(m);
    return rc;
}

/* The checks every request passes before a threshold is searched. */
static int check_request(const kn_calib_hist *h, int method, double percentile, int levels,
                         kn_err *err)
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
    return KN_OK;
}

int kn_calib_threshold(const kn_calib_hist *h, int method, double percentile, int levels,
                       double *threshold, kn_err *err)
{
    int rc = check_request(h, method, percentile, levels, err);
    return rc ? rc : side_threshold(h, BOTH_SIDES, method, percentile, levels, threshold, err);
}

int kn_calib_choose(const kn_calib_hist *h, int method, double percentile, int symmetric,
                    kn_quant_params *out, kn_err *err)
{
    kn_quant_params q;
    if (symmetric) {
        double t;
        int st = kn_calib_threshold(h, method, percentile, 127, &t, err);
        if (st)
            return st;
        q.lo = -t;
        q.hi = t;
        q.scale = t > 0 ? (float)(t / 127) : 1.0f;
        q.zero_point = 0;
        q.qmin = -128;
        q.qmax = 127;
    } else {
        /* Each end on its own side's distribution (a Relu's output, or
         * logits that are all negative, are not centred on zero), the 255
         * steps shared in proportion to the sides' extents. */
        double t_pos, t_neg, up = fmax(h->max, 0), down = fmax(-h->min, 0);
        int levels_pos = up + down > 0 ? (int)nearbyint(255 * up / (up + down)) : 255;
        if (levels_pos < 1)
            levels_pos = 1;
        if (levels_pos > 254 && down > 0)
            levels_pos = 254; /* the negative side keeps a step */
        int st = check_request(h, method, percentile, levels_pos, err);
        if (st == KN_OK)
            st = side_threshold(h, POSITIVE_SIDE, method, percentile, levels_pos, &t_pos, err);
        if (st == KN_OK)
            st =
                side_threshold(h, NEGATIVE_SIDE, method, percentile, 255 - levels_pos, &t_neg, err);
        if (st)
            return st;
        /* ONNX's zero point must be representable: the range holds zero. */
        q.lo = -t_neg;
        q.hi = t_pos;
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
