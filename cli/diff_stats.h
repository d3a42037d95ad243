/* How far one float tensor is from a reference (kiln diff): the largest
 * absolute error and the signal-to-quantization-noise ratio
 * SQNR = 10 log10(sum ref^2 / sum (got - ref)^2) in dB, whose relative L2
 * error is 10^(-SQNR / 20) (20 dB: 0.1; 40 dB: 0.01). */
#ifndef KILN_CLI_DIFF_STATS_H
#define KILN_CLI_DIFF_STATS_H

#include <stddef.h>

typedef struct diff_stats {
    double max_abs;    /* over elements where both are finite */
    double rel_l2;     /* ||got - ref|| / ||ref||; +inf when ref is all zero and got is not */
    double sqnr_db;    /* +inf for identical tensors, -inf when the error is infinite */
    size_t mismatched; /* elements where exactly one side is NaN or infinite, or
                        * both are infinite of opposite signs: each makes the error
                        * infinite */
} diff_stats;

void diff_measure(const float *ref, const float *got, size_t n, diff_stats *out);

/* 1 when a's error is worse than b's: lower SQNR first, then larger max
 * abs error. */
int diff_worse(const diff_stats *a, const diff_stats *b);

#endif
