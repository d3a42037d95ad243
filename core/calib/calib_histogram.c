#include "core/calib/calib_histogram.h"

#include <math.h>
#include <string.h>

void kn_calib_hist_init(kn_calib_hist *h) { memset(h, 0, sizeof *h); }

/* Doubles the range once: bins 2i and 2i+1 become bin i on each side. */
static void double_range(kn_calib_hist *h)
{
    for (int i = 0; i < KN_CALIB_BINS / 2; i++) {
        h->pos[i] = h->pos[2 * i] + h->pos[2 * i + 1];
        h->neg[i] = h->neg[2 * i] + h->neg[2 * i + 1];
    }
    memset(h->pos + KN_CALIB_BINS / 2, 0, sizeof h->pos / 2);
    memset(h->neg + KN_CALIB_BINS / 2, 0, sizeof h->neg / 2);
    h->range *= 2;
}

static void grow_to(kn_calib_hist *h, double magnitude)
{
    if (magnitude <= 0)
        return;
    if (h->range == 0) {
        /* The smallest power of two above the magnitude: every range is then
         * a power of two, and so is the grid, whatever the batch order (the
         * same calibration set in any order gives the same histogram). */
        int exponent;
        frexp(magnitude, &exponent);
        h->range = ldexp(1, exponent);
        h->pos[0] += h->zeros_unbinned; /* zeros sit in the first bin */
        h->zeros_unbinned = 0;
        return;
    }
    while (h->range <= magnitude)
        double_range(h);
}

size_t kn_calib_hist_add(kn_calib_hist *h, const float *values, size_t n)
{
    /* First pass: the batch's extremes, so the grid is settled before any
     * value is binned (binning then needs no rebinning mid-batch). */
    size_t bad = 0, finite = 0, zeros = 0;
    double lo = 0, hi = 0, squares = 0;
    for (size_t i = 0; i < n; i++) {
        float v = values[i];
        if (!isfinite(v)) {
            bad++;
            continue;
        }
        if (finite == 0) {
            lo = hi = v;
        } else {
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        finite++;
        zeros += v == 0;
        squares += (double)v * v;
    }
    h->nonfinite += bad;
    if (finite == 0)
        return bad;
    if (h->count == 0) {
        h->min = lo;
        h->max = hi;
    } else {
        h->min = lo < h->min ? lo : h->min;
        h->max = hi > h->max ? hi : h->max;
    }
    h->count += finite;
    h->zeros += zeros;
    h->sum_squares += squares;
    grow_to(h, fmax(-lo, hi));

    if (h->range == 0) { /* every finite value so far is zero */
        h->zeros_unbinned += finite;
        return bad;
    }
    const double per_bin = KN_CALIB_BINS / h->range;
    for (size_t i = 0; i < n; i++) {
        float v = values[i];
        if (!isfinite(v))
            continue;
        double m = fabs((double)v) * per_bin;
        int bin = m >= KN_CALIB_BINS ? KN_CALIB_BINS - 1 : (int)m;
        if (v < 0)
            h->neg[bin]++;
        else
            h->pos[bin]++;
    }
    return bad;
}
