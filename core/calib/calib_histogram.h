/* Streaming histograms of activation values for INT8 calibration.
 *
 * One histogram per tapped tensor, updated batch by batch, so calibration
 * memory does not grow with the number of samples (ONNX Runtime's
 * calibrator keeps every activation of every sample until the end). The
 * bins cover [-range, range] with zero on a bin edge: KN_CALIB_BINS bins on
 * each side. When a batch holds a value beyond the range, the range doubles
 * (as often as needed) and each pair of neighbouring bins becomes one bin,
 * which keeps every count exact: a bin edge of the coarser grid is always
 * an edge of the finer one. The range is always a power of two (the first
 * nonzero batch sets it to the smallest one above its largest magnitude),
 * so the grid does not depend on the order of the batches; exact zeros are
 * counted apart until then (a tensor that is all zeros so far has no scale
 * to bin by).
 *
 * The exact min, max and sum of squares are kept beside the bins, for
 * min-max calibration and for the signal power in the SQNR estimate. NaN
 * and infinities are counted, never binned: the caller reports them. */
#ifndef KN_CALIB_HISTOGRAM_H
#define KN_CALIB_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

/* Bins per side of zero: the 2048 of TensorRT's entropy calibrator, so
 * that the threshold search has 2048 - 128 candidates, not one. */
#define KN_CALIB_BINS 2048

typedef struct kn_calib_hist {
    double range;                /* bins cover [-range, range]; 0: none yet */
    uint64_t pos[KN_CALIB_BINS]; /* bin i: magnitudes in [i w, (i + 1) w), w = range / BINS */
    uint64_t neg[KN_CALIB_BINS]; /* the same for negative values */
    uint64_t zeros_unbinned;     /* zeros seen while range is still 0 */
    uint64_t zeros;              /* every exact zero seen (also binned once there is a
                                  * range): zero quantizes without error */
    uint64_t count;              /* finite values seen */
    uint64_t nonfinite;          /* NaN and +-Inf seen (not binned) */
    double min, max;             /* exact, over finite values; 0 when count is 0 */
    double sum_squares;          /* exact signal power, for the SQNR */
} kn_calib_hist;

void kn_calib_hist_init(kn_calib_hist *h);

/* Adds n float32 values. Returns how many of them were NaN or infinite
 * (those are counted in h->nonfinite and otherwise ignored). */
size_t kn_calib_hist_add(kn_calib_hist *h, const float *values, size_t n);

/* Width of one bin (0 before the first nonzero value). */
static inline double kn_calib_bin_width(const kn_calib_hist *h) { return h->range / KN_CALIB_BINS; }

/* Count of bin i of the magnitude histogram |x| (both sides folded, the
 * unbinned zeros in bin 0). */
static inline uint64_t kn_calib_abs_bin(const kn_calib_hist *h, int i)
{
    return h->pos[i] + h->neg[i] + (i == 0 ? h->zeros_unbinned : 0);
}

#endif
