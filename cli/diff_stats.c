/* Error measures for kiln diff: see diff_stats.h. */
#include "diff_stats.h"

#include <math.h>

void diff_measure(const float *ref, const float *got, size_t n, diff_stats *out)
{
    double signal = 0, noise = 0, max_abs = 0;
    size_t mismatched = 0;
    for (size_t i = 0; i < n; i++) {
        double r = ref[i], g = got[i];
        if (!isfinite(r) || !isfinite(g)) {
            /* Equal non-finite values (both NaN, or the same infinity) agree. */
            if (!((isnan(r) && isnan(g)) || r == g))
                mismatched++;
            continue;
        }
        double d = g - r;
        signal += r * r;
        noise += d * d;
        if (fabs(d) > max_abs)
            max_abs = fabs(d);
    }
    out->max_abs = max_abs;
    out->mismatched = mismatched;
    if (mismatched) {
        out->rel_l2 = INFINITY;
        out->sqnr_db = -INFINITY;
    } else if (noise == 0) {
        out->rel_l2 = 0;
        out->sqnr_db = INFINITY;
    } else if (signal == 0) {
        out->rel_l2 = INFINITY;
        out->sqnr_db = -INFINITY;
    } else {
        out->rel_l2 = sqrt(noise / signal);
        out->sqnr_db = 10 * log10(signal / noise);
    }
}

int diff_worse(const diff_stats *a, const diff_stats *b)
{
    if (a->sqnr_db != b->sqnr_db)
        return a->sqnr_db < b->sqnr_db;
    return a->max_abs > b->max_abs;
}
