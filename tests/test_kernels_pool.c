/* MaxPool's row-at-a-time float path (used without Indices) against the
 * general per-window loop (used when Indices is requested): the same Y on
 * random data for every pad/stride/kernel/ceil_mode mix, edge cases where a
 * tap lies outside the row for every output included. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_harness.h"

static void run_maxpool_typed(int32_t dtype, const void *x, const int64_t *xd,
                              const int64_t *kernel, const int64_t *strides, const int64_t *pads,
                              int ceil_mode, int n_out, kh_case *c)
{
    kh_init(c, "MaxPool", 12, 1, n_out);
    kh_attr_ints(c, "kernel_shape", kernel, 2);
    kh_attr_ints(c, "strides", strides, 2);
    kh_attr_ints(c, "pads", pads, 4);
    kh_attr_int(c, "ceil_mode", ceil_mode);
    kh_input(c, 0, dtype, xd, 4, x);
    cr_assert_eq(kh_run(c, 1), KN_OK, "%s", c->err.msg);
}

static void run_maxpool(const float *x, const int64_t *xd, const int64_t *kernel,
                        const int64_t *strides, const int64_t *pads, int ceil_mode, int n_out,
                        kh_case *c)
{
    run_maxpool_typed(KN_FLOAT, x, xd, kernel, strides, pads, ceil_mode, n_out, c);
}

Test(maxpool_fast_path, matches_general_loop)
{
    unsigned seed = 7;
    int cases = 0;
    for (int64_t h = 1; h <= 7; h += 3)
        for (int64_t w = 1; w <= 9; w += 2)
            for (int64_t k = 1; k <= 3; k++)
                for (int64_t s = 1; s <= 3; s++)
                    for (int64_t pad = 0; pad < k; pad++)
                        for (int ceil_mode = 0; ceil_mode <= 1; ceil_mode++) {
                            if (w + 2 * pad < k || h + 2 * pad < k)
                                continue;
                            int64_t xd[4] = {1, 2, h, w};
                            int64_t n = 2 * h * w;
                            float *x = malloc(sizeof(float) * (size_t)n);
                            for (int64_t i = 0; i < n; i++)
                                x[i] = (float)(rand_r(&seed) % 2001 - 1000) / 100.0f;
                            int64_t kernel[2] = {k, k}, strides[2] = {s, s};
                            int64_t pads[4] = {pad, pad, pad, pad};
                            kh_case fast, general;
                            run_maxpool(x, xd, kernel, strides, pads, ceil_mode, 1, &fast);
                            run_maxpool(x, xd, kernel, strides, pads, ceil_mode, 2, &general);
                            int64_t count = 1;
                            for (int d = 0; d < 4; d++) {
                                cr_assert_eq(fast.out[0].dims[d], general.out[0].dims[d]);
                                count *= fast.out[0].dims[d];
                            }
                            cr_assert_eq(memcmp(fast.out[0].data, general.out[0].data,
                                                sizeof(float) * (size_t)count),
                                         0, "h=%lld w=%lld k=%lld s=%lld pad=%lld ceil=%d",
                                         (long long)h, (long long)w, (long long)k,
                                         (long long)s, (long long)pad, ceil_mode);
                            kh_free(&fast);
                            kh_free(&general);
                            free(x);
                            cases++;
                        }
    cr_assert_gt(cases, 100);
}

/* Rows wider than the fast path folds at once (1024 columns): outputs on
 * both sides of each chunk boundary, for odd and even strides and pads. */
Test(maxpool_fast_path, wide_rows_cross_chunks)
{
    unsigned seed = 11;
    const int64_t shapes[][4] = {{3, 2, 1, 1}, {3, 2, 0, 0}, {2, 1, 0, 1}, {5, 3, 2, 1}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        int64_t k = shapes[t][0], s = shapes[t][1], pad = shapes[t][2];
        int64_t xd[4] = {1, 1, 4, 2500 + shapes[t][3]};
        int64_t n = xd[2] * xd[3];
        float *x = malloc(sizeof(float) * (size_t)n);
        for (int64_t i = 0; i < n; i++)
            x[i] = (float)(rand_r(&seed) % 2001 - 1000) / 100.0f;
        int64_t kernel[2] = {k, k}, strides[2] = {s, s}, pads[4] = {pad, pad, pad, pad};
        kh_case fast, general;
        run_maxpool(x, xd, kernel, strides, pads, 0, 1, &fast);
        run_maxpool(x, xd, kernel, strides, pads, 0, 2, &general);
        int64_t count = fast.out[0].dims[2] * fast.out[0].dims[3];
        cr_assert_gt(fast.out[0].dims[3], 1024 / s, "the row spans more than one chunk");
        cr_assert_eq(memcmp(fast.out[0].data, general.out[0].data, sizeof(float) * (size_t)count),
                     0, "k=%lld s=%lld pad=%lld", (long long)k, (long long)s, (long long)pad);
        kh_free(&fast);
        kh_free(&general);
        free(x);
    }
}

/* The same fast path on the 8-bit values of quantized models (uint8 with 0
 * and int8 with -128 in the data, the types' lowest values). */
Test(maxpool_fast_path, eight_bit_matches_general_loop)
{
    unsigned seed = 5;
    for (int s8 = 0; s8 <= 1; s8++)
        for (int64_t k = 2; k <= 3; k++)
            for (int64_t s = 1; s <= 2; s++)
                for (int64_t pad = 0; pad < k; pad++) {
                    int64_t xd[4] = {1, 3, 9, 11}, n = 3 * 9 * 11;
                    uint8_t *x = malloc((size_t)n);
                    for (int64_t i = 0; i < n; i++)
                        x[i] = (uint8_t)(rand_r(&seed) % 256);
                    int64_t kernel[2] = {k, k}, strides[2] = {s, s};
                    int64_t pads[4] = {pad, pad, pad, pad};
                    kh_case fast, general;
                    int32_t dt = s8 ? KN_INT8 : KN_UINT8;
                    run_maxpool_typed(dt, x, xd, kernel, strides, pads, 0, 1, &fast);
                    run_maxpool_typed(dt, x, xd, kernel, strides, pads, 0, 2, &general);
                    int64_t count = 3 * fast.out[0].dims[2] * fast.out[0].dims[3];
                    cr_assert_eq(memcmp(fast.out[0].data, general.out[0].data, (size_t)count), 0,
                                 "%s k=%lld s=%lld pad=%lld", s8 ? "int8" : "uint8", (long long)k,
                                 (long long)s, (long long)pad);
                    kh_free(&fast);
                    kh_free(&general);
                    free(x);
                }
}
