/* INT8 calibration statistics: the streaming histogram (exact counts as its
 * range grows, zeros, NaN/Inf) and the four range-choosing methods on
 * distributions whose answers are known (Gaussian quantiles, outliers that
 * min-max must follow and the others must not, constant tensors). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/calib/calib_histogram.h"
#include "core/calib/calib_threshold.h"

/* A reproducible standard normal source (xorshift + Box-Muller): the test
 * needs known quantiles, not a particular library's generator. */
static uint64_t rng_state = 88172645463325252ull;
static double uniform01(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return ((rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static float normal(void)
{
    return (float)(sqrt(-2 * log(uniform01())) * cos(6.283185307179586 * uniform01()));
}

static kn_calib_hist *gaussian_hist(size_t n, size_t batch, int outliers)
{
    kn_calib_hist *h = malloc(sizeof *h);
    kn_calib_hist_init(h);
    float *x = malloc(batch * sizeof *x);
    rng_state = 88172645463325252ull;
    for (size_t done = 0; done < n; done += batch) {
        for (size_t i = 0; i < batch; i++)
            x[i] = normal();
        if (outliers && done == n / 2)
            for (int k = 0; k < outliers; k++)
                x[k] = k % 2 ? -50.0f : 50.0f;
        cr_assert_eq(kn_calib_hist_add(h, x, batch), 0);
    }
    free(x);
    return h;
}

static double threshold(const kn_calib_hist *h, int method, double p, int levels)
{
    double t = -1;
    kn_err err = {0};
    cr_assert_eq(kn_calib_threshold(h, method, p, levels, &t, &err), KN_OK, "%s", err.msg);
    return t;
}

static uint64_t binned(const kn_calib_hist *h)
{
    uint64_t n = h->zeros_unbinned;
    for (int i = 0; i < KN_CALIB_BINS; i++)
        n += h->pos[i] + h->neg[i];
    return n;
}

Test(calib_hist, counts_stay_exact_as_the_range_doubles)
{
    kn_calib_hist h;
    kn_calib_hist_init(&h);
    const float a[] = {0.5f, -0.25f, 0.0f};
    const float b[] = {3.0f, -7.5f};
    kn_calib_hist_add(&h, a, 3);
    cr_assert_float_eq(h.range, 1.0, 0, "the power of two above 0.5");
    kn_calib_hist_add(&h, b, 2);
    cr_assert_float_eq(h.range, 8.0, 0, "1 doubled until it holds 7.5");
    cr_assert_eq(h.count, 5);
    cr_assert_eq(binned(&h), 5);
    cr_assert_eq(h.zeros, 1);
    cr_assert_float_eq(h.min, -7.5, 0);
    cr_assert_float_eq(h.max, 3.0, 0);
    cr_assert_float_eq(h.sum_squares, 0.25 + 0.0625 + 9 + 56.25, 1e-9);
    const double w = kn_calib_bin_width(&h);
    cr_assert_eq(h.pos[(int)(0.5 / w)], 1, "0.5 is still in the bin that holds it");
    cr_assert_eq(h.neg[(int)(0.25 / w)], 1);
    cr_assert_eq(h.neg[(int)(7.5 / w)], 1);
    cr_assert_eq(h.pos[(int)(3.0 / w)], 1);
}

Test(calib_hist, zeros_wait_for_a_scale_and_nan_is_counted_apart)
{
    kn_calib_hist h;
    kn_calib_hist_init(&h);
    const float zeros[4] = {0};
    kn_calib_hist_add(&h, zeros, 4);
    cr_assert_eq(h.range, 0);
    cr_assert_eq(h.zeros_unbinned, 4);
    kn_quant_params q;
    kn_err err = {0};
    for (int method = KN_CALIB_MINMAX; method <= KN_CALIB_MSE; method++) {
        cr_assert_eq(kn_calib_choose(&h, method, 99.9, 1, &q, &err), KN_OK);
        cr_assert_eq(q.scale, 1.0f, "a tensor of zeros gets scale 1");
        cr_assert_eq(q.zero_point, 0);
    }
    cr_assert(isinf(kn_calib_sqnr_db(&h, &q)), "zeros quantize without error");

    const float mixed[] = {NAN, 2.0f, INFINITY, -INFINITY};
    cr_assert_eq(kn_calib_hist_add(&h, mixed, 4), 3);
    cr_assert_eq(h.nonfinite, 3);
    cr_assert_eq(h.count, 5);
    cr_assert_eq(h.pos[0], 4, "the waiting zeros move into the first bin");
    cr_assert_eq(h.zeros_unbinned, 0);
    cr_assert_eq(binned(&h), 5);
}

Test(calib_threshold, minmax_is_the_largest_magnitude)
{
    kn_calib_hist h;
    kn_calib_hist_init(&h);
    const float x[] = {0.1f, -3.25f, 2.0f};
    kn_calib_hist_add(&h, x, 3);
    cr_assert_float_eq(threshold(&h, KN_CALIB_MINMAX, 0, 127), 3.25, 0);
    kn_quant_params q;
    kn_err err = {0};
    cr_assert_eq(kn_calib_choose(&h, KN_CALIB_MINMAX, 0, 1, &q, &err), KN_OK);
    cr_assert_float_eq(q.scale, 3.25f / 127, 1e-9);
    cr_assert_eq(q.qmin, -128);
    cr_assert_eq(q.qmax, 127);
}

Test(calib_threshold, percentile_finds_the_gaussian_quantile)
{
    kn_calib_hist *h = gaussian_hist(1000000, 10000, 0);
    /* P(|x| <= 3.8906) = 0.9999 and P(|x| <= 2.5758) = 0.99 for N(0, 1). */
    cr_assert_float_eq(threshold(h, KN_CALIB_PERCENTILE, 99.99, 127), 3.8906, 0.12);
    cr_assert_float_eq(threshold(h, KN_CALIB_PERCENTILE, 99.0, 127), 2.5758, 0.02);
    cr_assert_float_eq(threshold(h, KN_CALIB_PERCENTILE, 100, 127),
                       threshold(h, KN_CALIB_MINMAX, 0, 127), 0);
    free(h);
}

Test(calib_threshold, entropy_and_percentile_ignore_rare_outliers_minmax_follows_them)
{
    kn_calib_hist *h = gaussian_hist(400000, 4000, 8); /* 8 values at +-50 */
    double minmax = threshold(h, KN_CALIB_MINMAX, 0, 127);
    double entropy = threshold(h, KN_CALIB_ENTROPY, 0, 127);
    double percentile = threshold(h, KN_CALIB_PERCENTILE, 99.99, 127);
    cr_assert_float_eq(minmax, 50, 0);
    cr_assert(entropy > 2.5 && entropy < 10, "entropy threshold %g", entropy);
    cr_assert_float_eq(percentile, 3.89, 0.25);
    /* Squared error weighs 8 values 46 beyond a 4-sigma clip more than the
     * rounding of 400,000 values: MSE keeps the outliers in range, and by
     * the SQNR it optimises it beats every other method. */
    double mse = threshold(h, KN_CALIB_MSE, 0, 127);
    cr_assert(mse > 30, "MSE threshold %g", mse);
    kn_err err = {0};
    kn_quant_params q_mse;
    kn_calib_choose(h, KN_CALIB_MSE, 0, 1, &q_mse, &err);
    double best = kn_calib_sqnr_db(h, &q_mse);
    for (int method = KN_CALIB_MINMAX; method <= KN_CALIB_ENTROPY; method++) {
        kn_quant_params q;
        kn_calib_choose(h, method, 99.99, 1, &q, &err);
        double sqnr = kn_calib_sqnr_db(h, &q);
        cr_assert(best >= sqnr - 0.05, "MSE %.2f dB vs %s %.2f dB", best,
                  kn_calib_method_name(method), sqnr);
    }
    free(h);
}

Test(calib_threshold, mse_clips_a_gaussian_near_four_sigma)
{
    kn_calib_hist *h = gaussian_hist(1000000, 10000, 0);
    double mse = threshold(h, KN_CALIB_MSE, 0, 127), minmax = threshold(h, KN_CALIB_MINMAX, 0, 127);
    cr_assert(mse > 3 && mse < 5, "MSE threshold %g", mse);
    kn_quant_params q_mse, q_minmax;
    kn_err err = {0};
    kn_calib_choose(h, KN_CALIB_MSE, 0, 1, &q_mse, &err);
    kn_calib_choose(h, KN_CALIB_MINMAX, 0, 1, &q_minmax, &err);
    double s_mse = kn_calib_sqnr_db(h, &q_mse), s_minmax = kn_calib_sqnr_db(h, &q_minmax);
    cr_assert(s_mse >= s_minmax, "MSE %.2f dB vs min-max (T %.2f) %.2f dB", s_mse, minmax,
              s_minmax);
    /* 8 bits over a 4-sigma Gaussian range: 6.02 b + 4.77 - 20 log10(4) = 41 dB, less clipping. */
    cr_assert(s_mse > 35 && s_mse < 45, "MSE SQNR %.1f dB", s_mse);
    free(h);
}

Test(calib_threshold, streaming_batches_agree_with_one_batch)
{
    kn_calib_hist *one = gaussian_hist(200000, 200000, 0);
    kn_calib_hist *many = gaussian_hist(200000, 500, 0); /* the range grows many times */
    cr_assert_eq(one->count, many->count);
    cr_assert_float_eq(one->sum_squares, many->sum_squares, 1e-6 * one->sum_squares);
    for (int method = KN_CALIB_MINMAX; method <= KN_CALIB_MSE; method++) {
        double a = threshold(one, method, 99.9, 127), b = threshold(many, method, 99.9, 127);
        cr_assert_eq(a, b, "%s: %g vs %g (the grid must not depend on the batches)",
                     kn_calib_method_name(method), a, b);
    }
    free(one);
    free(many);
}

Test(calib_threshold, constant_and_uniform_tensors_keep_their_range)
{
    kn_calib_hist h;
    kn_calib_hist_init(&h);
    float x[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = 5.0f;
    kn_calib_hist_add(&h, x, 1000);
    for (int method = KN_CALIB_MINMAX; method <= KN_CALIB_MSE; method++)
        cr_assert_float_eq(threshold(&h, method, 99.9, 127), 5.0, 0.01, "%s",
                           kn_calib_method_name(method));

    kn_calib_hist u;
    kn_calib_hist_init(&u);
    for (int b = 0; b < 100; b++) {
        for (int i = 0; i < 1000; i++)
            x[i] = (float)(2 * uniform01() - 1);
        kn_calib_hist_add(&u, x, 1000);
    }
    /* Nothing to clip in a uniform distribution: every method keeps ~1. */
    cr_assert(threshold(&u, KN_CALIB_ENTROPY, 0, 127) > 0.9);
    cr_assert(threshold(&u, KN_CALIB_MSE, 0, 127) > 0.97);
}

Test(calib_choose, asymmetric_uint8_after_relu_and_across_zero)
{
    kn_calib_hist h;
    kn_calib_hist_init(&h);
    float x[2000];
    rng_state = 7;
    for (int i = 0; i < 2000; i++)
        x[i] = fmaxf(0, normal()); /* a Relu's output: half zeros */
    kn_calib_hist_add(&h, x, 2000);
    kn_quant_params q;
    kn_err err = {0};
    cr_assert_eq(kn_calib_choose(&h, KN_CALIB_MINMAX, 0, 0, &q, &err), KN_OK);
    cr_assert_eq(q.lo, 0);
    cr_assert_eq(q.zero_point, 0, "all 255 steps above zero");
    cr_assert_eq(q.qmin, 0);
    cr_assert_eq(q.qmax, 255);
    cr_assert_float_eq(q.scale, h.max / 255, 1e-6);

    kn_calib_hist m;
    kn_calib_hist_init(&m);
    const float y[] = {-1.0f, 0.5f, 3.0f};
    kn_calib_hist_add(&m, y, 3);
    cr_assert_eq(kn_calib_choose(&m, KN_CALIB_MINMAX, 0, 0, &q, &err), KN_OK);
    cr_assert_float_eq(q.lo, -1.0, 0);
    cr_assert_float_eq(q.hi, 3.0, 0);
    cr_assert_float_eq(q.scale, 4.0f / 255, 1e-7);
    cr_assert_eq(q.zero_point, 64, "round(1 / (4 / 255)) = 64");
}

Test(calib_threshold, bad_requests_are_errors)
{
    kn_calib_hist h;
    kn_calib_hist_init(&h);
    double t;
    kn_err err = {0};
    cr_assert_eq(kn_calib_threshold(&h, KN_CALIB_MINMAX, 0, 127, &t, &err), KN_ERR_STATE);
    cr_assert_str_eq(err.msg, "no finite values were seen");
    const float x[] = {1.0f};
    kn_calib_hist_add(&h, x, 1);
    kn_err e2 = {0};
    cr_assert_eq(kn_calib_threshold(&h, 99, 0, 127, &t, &e2), KN_ERR_INVALID_ARGUMENT);
    kn_err e3 = {0};
    cr_assert_eq(kn_calib_threshold(&h, KN_CALIB_PERCENTILE, 0, 127, &t, &e3),
                 KN_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(e3.msg, "the percentile must be in (0, 100], got 0");
    kn_err e4 = {0};
    cr_assert_eq(kn_calib_threshold(&h, KN_CALIB_PERCENTILE, 100.5, 127, &t, &e4),
                 KN_ERR_INVALID_ARGUMENT);
}

/* A Relu output of real images: one magnitude (a uniform background) holds
 * 80 % of the values, the rest normal around 4 (sd 1). The spike says
 * nothing about clipping; the threshold has to cover the spread, where at
 * 2048 bins the KL search clipped such tensors at a fifth of their range
 * (the trained MNIST CNN lost 30 points of top-1 with entropy). */
Test(calib_threshold, entropy_is_not_pulled_in_by_a_spike)
{
    kn_calib_hist *h = malloc(sizeof *h);
    kn_calib_hist_init(h);
    enum { BATCH = 10000 };
    float *x = malloc(BATCH * sizeof *x);
    rng_state = 88172645463325252ull;
    for (int b = 0; b < 50; b++) {
        for (int i = 0; i < BATCH; i++)
            x[i] = i % 5 ? 1.25f : 8.0f * (float)(0.5 + 0.5 * normal() / 4);
        cr_assert_eq(kn_calib_hist_add(h, x, BATCH), 0);
    }
    double entropy = threshold(h, KN_CALIB_ENTROPY, 0, 127);
    cr_assert(entropy > 5.0, "entropy threshold %g: the spike at 1.25 pulled it in", entropy);
    free(x);
    free(h);
}
