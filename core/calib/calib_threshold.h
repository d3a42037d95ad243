/* Choosing a tensor's quantization range from its calibration histogram.
 *
 * Four methods pick a magnitude threshold T over |x|:
 *   - min-max: the largest magnitude seen;
 *   - percentile p: the magnitude below which p % of the values lie;
 *   - entropy: TensorRT's KL-divergence search. For every candidate bin
 *     count i from `levels + 1` to KN_CALIB_BINS, the first i bins (with
 *     everything beyond folded into the last) are compared with the same
 *     bins squeezed into levels + 1 quantized bins and spread back, and the
 *     i with the least information lost wins. With 2048 bins and 128
 *     quantized bins that is 1921 candidates;
 *   - MSE: the T minimising the expected squared error of quantizing, the
 *     clipping error of the values beyond T plus a rounding error of
 *     step^2 / 12 for every nonzero value within it.
 * The range then follows from the target: symmetric int8 takes [-T, T]
 * over both sides folded (zero point 0); asymmetric uint8 chooses each end
 * on its own side's values, the 255 steps shared in proportion to the
 * sides' extents (all of them above zero after a Relu), and always holds
 * zero. */
#ifndef KN_CALIB_THRESHOLD_H
#define KN_CALIB_THRESHOLD_H

#include <stdint.h>

#include "core/base/status.h"
#include "core/calib/calib_histogram.h"

enum { KN_CALIB_MINMAX = 1, KN_CALIB_PERCENTILE = 2, KN_CALIB_ENTROPY = 3, KN_CALIB_MSE = 4 };

/* Quantization of one tensor: q = clamp(round(x / scale) + zero_point,
 * qmin, qmax), the real range it covers being [lo, hi]. */
typedef struct kn_quant_params {
    double lo, hi;
    float scale;
    int32_t zero_point;
    int32_t qmin, qmax;
} kn_quant_params;

const char *kn_calib_method_name(int method); /* "minmax", …; NULL if unknown */

/* T over |x| for `levels` quantization steps between 0 and T (127 for
 * int8, 255 for uint8 over a non-negative tensor). percentile is used by
 * KN_CALIB_PERCENTILE only, in (0, 100]. Errors: INVALID_ARGUMENT (unknown
 * method, percentile out of range), STATE (no finite value seen). A tensor
 * of zeros only has T = 0. */
int kn_calib_threshold(const kn_calib_hist *h, int method, double percentile, int levels,
                       double *threshold, kn_err *err);

/* The range, scale and zero point for int8 symmetric (symmetric != 0) or
 * uint8 asymmetric quantization. A tensor of zeros only gets scale 1 (any
 * scale represents it exactly). */
int kn_calib_choose(const kn_calib_hist *h, int method, double percentile, int symmetric,
                    kn_quant_params *out, kn_err *err);

/* Signal-to-quantization-noise ratio in dB of quantizing the histogram's
 * values with q: the exact signal power over a noise estimated from the
 * bins (clipped values by their bin centres, values in range at step^2 /
 * 12 each, exact zeros at none). INFINITY when the estimate is zero. */
double kn_calib_sqnr_db(const kn_calib_hist *h, const kn_quant_params *q);

#endif
