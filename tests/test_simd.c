/* The vector layer (core/simd): its math on the build's default backend,
 * the dispatch between instruction sets, and every float kernel of every
 * instance this CPU runs, against scalar double-precision references on
 * sizes with odd tails. (GEMM and convolution: test_simd_conv.c.) */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/simd/kernels.h"
#include "core/simd/vec_math.h"

static const char *const isa_names[] = {"avx512", "avx2", "neon", "generic", "wasm128"};
#define N_ISAS 5

/* Runs BODY once per instance this CPU can run, with `ks` set to it. */
#define FOR_EACH_ISA(ks)                                                                           \
    for (int isa_ = 0; isa_ < N_ISAS; isa_++)                                                      \
        for (const kn_simd_kernels *ks = kn_simd_named(isa_names[isa_]); ks; ks = NULL)

static uint32_t rng = 12345;
static float urand(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)((double)(rng >> 8) / (double)(1u << 24));
}

/* Values with the cases that break approximations first, then random. */
static const float specials[] = {0.0f,  -0.0f, 1e-7f, -1e-7f, 1e-3f, -1e-3f, 0.3f,  -0.3f,
                                 0.62f, -0.62f, 0.7f, -0.7f, 2.5f,  -2.5f,  9.5f,  -9.5f,
                                 20.0f, -20.0f, 88.0f, -88.0f, 100.0f, -100.0f};
#define N_SPECIALS ((int)(sizeof specials / sizeof specials[0]))

static float *test_values(int64_t n, float range)
{
    float *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
    for (int64_t i = 0; i < n; i++)
        x[i] = i < N_SPECIALS ? specials[i] : urand(-range, range);
    return x;
}

static int close_to(double got, double want, double rtol, double atol)
{
    if (isnan(want))
        return isnan(got);
    if (isinf(want))
        return got == want;
    return fabs(got - want) <= atol + rtol * fabs(want);
}

/* ---- primitives on the default backend ---- */

static float lane0(kv v)
{
    float t[KV_W];
    kv_storeu(t, v);
    return t[0];
}

Test(simd_math, exp_matches_libm_within_two_ulp)
{
    for (float x = -87.0f; x < 88.5f; x += 0.0137f) {
        double want = exp((double)x);
        float got = lane0(kv_exp(kv_set1(x)));
        cr_assert(close_to(got, want, 2.5e-7, 0), "exp(%g) = %.9g, want %.9g", x, got, want);
    }
    cr_assert_eq(lane0(kv_exp(kv_set1(-200.0f))), 0.0f);
    cr_assert(isinf(lane0(kv_exp(kv_set1(200.0f)))));
    cr_assert(isnan(lane0(kv_exp(kv_set1(NAN)))));
}

Test(simd_math, tanh_erf_sigmoid_match_libm)
{
    for (float x = -12.0f; x < 12.0f; x += 0.00731f) {
        float t = lane0(kv_tanh(kv_set1(x))), e = lane0(kv_erf(kv_set1(x)));
        float s = lane0(kv_sigmoid(kv_set1(x)));
        cr_assert(close_to(t, tanh((double)x), 4e-7, 1e-30), "tanh(%g) = %.9g", x, t);
        cr_assert(close_to(e, erf((double)x), 1e-6, 1e-30), "erf(%g) = %.9g", x, e);
        cr_assert(close_to(s, 1 / (1 + exp(-(double)x)), 6e-7, 1e-30), "sigmoid(%g) = %.9g",
                  x, s);
    }
    /* past the clamp: exactly 0 and 1, and NaN stays NaN */
    cr_assert_eq(lane0(kv_sigmoid(kv_set1(-INFINITY))), 0.0f);
    cr_assert_eq(lane0(kv_sigmoid(kv_set1(-100.0f))), 0.0f);
    cr_assert_eq(lane0(kv_sigmoid(kv_set1(100.0f))), 1.0f);
    cr_assert(isnan(lane0(kv_sigmoid(kv_set1(NAN)))));
    /* small arguments keep their relative precision */
    cr_assert(close_to(lane0(kv_tanh(kv_set1(1e-5f))), tanh(1e-5), 2e-7, 0));
    cr_assert(close_to(lane0(kv_erf(kv_set1(-1e-5f))), erf(-1e-5), 2e-7, 0));
}

Test(simd_math, partial_loads_stores_and_lane_ops)
{
    float src[2 * KV_W], dst[KV_W];
    for (int i = 0; i < 2 * KV_W; i++)
        src[i] = (float)(i + 1);
    for (int n = 0; n < KV_W; n++) {
        for (int i = 0; i < KV_W; i++)
            dst[i] = -1;
        kv v = kv_load_part(src, n, 100.0f);
        kv_store_part(dst, v, n);
        for (int i = 0; i < KV_W; i++)
            cr_assert_eq(dst[i], i < n ? src[i] : -1.0f, "n=%d lane %d", n, i);
        cr_assert_eq(kv_hmax(v), n < KV_W ? 100.0f : (float)KV_W);
    }
    kv_storeu(dst, kv_load_even(src));
    for (int i = 0; i < KV_W; i++)
        cr_assert_eq(dst[i], src[2 * i]);
    cr_assert_eq(kv_hsum(kv_loadu(src)), (float)(KV_W * (KV_W + 1) / 2));
    cr_assert_eq(lane0(kv_round(kv_set1(2.5f))), 2.0f);
    cr_assert_eq(lane0(kv_round(kv_set1(-3.5f))), -4.0f);
    cr_assert_eq(lane0(kv_pow2i(kv_set1(-3.0f))), 0.125f);
    cr_assert_eq(lane0(kv_abs(kv_set1(-2.0f))), 2.0f);
    cr_assert(isnan(lane0(kv_max(kv_zero(), kv_set1(NAN)))), "kv_max(0, NaN) keeps NaN");
}

/* ---- dispatch ---- */

Test(simd_dispatch, picks_the_widest_supported_and_can_be_forced)
{
    const kn_simd_kernels *auto_ks = kn_simd();
    cr_assert_not_null(auto_ks);
    cr_assert_not_null(kn_simd_named(auto_ks->name));
    cr_assert_null(kn_simd_named("no-such-isa"));
    cr_assert_null(kn_simd_named(NULL));
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        cr_assert_not_null(kn_simd_named("avx2"), "this CPU has AVX2+FMA");
    if (__builtin_cpu_supports("avx512f"))
        cr_assert_str_eq(auto_ks->name, getenv("KILN_SIMD") ? auto_ks->name : "avx512");
    cr_assert_not_null(kn_simd_named("generic"), "SSE2 instance always runs on x86-64");
#endif
#if defined(__aarch64__)
    /* ASIMD is architectural: the NEON instance runs everywhere and wins
     * unless the environment caps the choice */
    cr_assert(kn_simd_arm_features() & KN_ARM_ASIMD, "hwcaps report ASIMD");
    cr_assert_not_null(kn_simd_named("neon"));
    cr_assert_str_eq(auto_ks->name, getenv("KILN_SIMD") ? auto_ks->name : "neon");
    cr_log_info("arm features: dotprod %d, fp16 %d, i8mm %d",
                !!(kn_simd_arm_features() & KN_ARM_DOTPROD),
                !!(kn_simd_arm_features() & KN_ARM_FP16), !!(kn_simd_arm_features() & KN_ARM_I8MM));
#endif
    /* "base" names the portable instance on every machine */
    cr_assert_eq(kn_simd_named("base"), &kn_simd_table_base);
    int forced = 0;
    for (int i = 0; i < N_ISAS; i++) {
        if (!kn_simd_named(isa_names[i])) {
            cr_assert_eq(kn_simd_force(isa_names[i]), -1);
            continue;
        }
        cr_assert_eq(kn_simd_force(isa_names[i]), 0);
        cr_assert_str_eq(kn_simd()->name, isa_names[i]);
        forced++;
    }
    cr_assert_geq(forced, 1);
    cr_log_info("instances on this CPU: %d, automatic choice: %s", forced, auto_ks->name);
    /* the environment caps the automatic choice */
    setenv("KILN_SIMD", "generic", 1);
    cr_assert_eq(kn_simd_force(NULL), 0);
    cr_assert_str_eq(kn_simd()->name, kn_simd_named("generic") ? "generic" : auto_ks->name);
    unsetenv("KILN_SIMD");
    cr_assert_eq(kn_simd_force(NULL), 0);
    cr_assert_eq(kn_simd(), auto_ks);
}

/* ---- elementwise kernels ---- */

static const int64_t sizes[] = {0, 1, 3, 7, 8, 15, 16, 17, 31, 33, 63, 100, 1001};
#define N_SIZES ((int)(sizeof sizes / sizeof sizes[0]))

Test(simd_kernels, activations_match_scalar_definitions)
{
    const kn_activation acts[] = {
        {KN_ACT_NONE, 0, 0},       {KN_ACT_RELU, 0, 0},         {KN_ACT_CLIP, -0.5f, 2.0f},
        {KN_ACT_LEAKY_RELU, 0.1f, 0}, {KN_ACT_SIGMOID, 0, 0},   {KN_ACT_HARD_SIGMOID, 0.2f, 0.5f},
        {KN_ACT_TANH, 0, 0},       {KN_ACT_HARD_SWISH, 0, 0},   {KN_ACT_SILU, 0, 0},
        {KN_ACT_GELU, 0, 0},
    };
    FOR_EACH_ISA(ks)
    {
        for (int s = 0; s < N_SIZES; s++) {
            int64_t n = sizes[s];
            float *x = test_values(n, 10.0f), *y = malloc((size_t)(n + 1) * sizeof *y);
            for (size_t a = 0; a < sizeof acts / sizeof acts[0]; a++) {
                y[n] = 42.0f; /* must survive: no write past n */
                ks->act(y, x, n, &acts[a]);
                cr_assert_eq(y[n], 42.0f, "%s act %d wrote past %lld", ks->name, acts[a].kind,
                             (long long)n);
                for (int64_t i = 0; i < n; i++) {
                    double want = kn_act_ref(&acts[a], x[i]);
                    cr_assert(close_to(y[i], want, 2e-6, 1e-7), "%s act %d (%g) = %.9g, want %.9g",
                              ks->name, acts[a].kind, x[i], y[i], want);
                }
            }
            /* NaN passes through every activation */
            if (n > 0) {
                x[0] = NAN;
                for (size_t a = 1; a < sizeof acts / sizeof acts[0]; a++) {
                    ks->act(y, x, n, &acts[a]);
                    cr_assert(isnan(y[0]), "%s act %d dropped NaN", ks->name, acts[a].kind);
                }
            }
            free(x);
            free(y);
        }
    }
}

Test(simd_kernels, exp_and_erf_rows_match_libm)
{
    FOR_EACH_ISA(ks)
    {
        for (int s = 0; s < N_SIZES; s++) {
            int64_t n = sizes[s];
            float *x = test_values(n, 80.0f), *y = malloc((size_t)(n + 1) * sizeof *y);
            y[n] = 5.0f;
            ks->math(KN_MATH_EXP, y, x, n);
            for (int64_t i = 0; i < n; i++) {
                double want = exp((double)x[i]);
                if (want < 1.2e-38) /* results below FLT_MIN flush to 0 */
                    cr_assert(y[i] == 0.0f || close_to(y[i], want, 1e-6, 0));
                else
                    cr_assert(close_to(y[i], want > 3.4028234e38 ? INFINITY : want, 3e-7, 0),
                              "%s exp(%g) = %.9g", ks->name, x[i], y[i]);
            }
            ks->math(KN_MATH_ERF, y, x, n);
            for (int64_t i = 0; i < n; i++)
                cr_assert(close_to(y[i], erf((double)x[i]), 1e-6, 1e-30), "%s erf(%g) = %.9g",
                          ks->name, x[i], y[i]);
            cr_assert_eq(y[n], 5.0f);
            free(x);
            free(y);
        }
    }
}

Test(simd_kernels, bias_act_adds_bias_and_residual_then_activates)
{
    const kn_activation relu = {KN_ACT_RELU, 0, 0}, silu = {KN_ACT_SILU, 0, 0};
    FOR_EACH_ISA(ks)
    {
        for (int s = 0; s < N_SIZES; s++) {
            int64_t n = sizes[s];
            float *y = test_values(n, 3.0f), *z = test_values(n, 3.0f);
            float *y0 = malloc((size_t)(n + 1) * sizeof *y0);
            memcpy(y0, y, (size_t)n * sizeof *y);
            ks->bias_act(y, n, 0.25f, z, &silu);
            for (int64_t i = 0; i < n; i++)
                cr_assert(close_to(y[i], kn_act_ref(&silu, y0[i] + 0.25f + z[i]), 2e-6, 1e-7));
            memcpy(y, y0, (size_t)n * sizeof *y);
            ks->bias_act(y, n, -0.5f, NULL, &relu);
            for (int64_t i = 0; i < n; i++)
                cr_assert_eq(y[i], y0[i] - 0.5f > 0 ? y0[i] - 0.5f : 0.0f);
            memcpy(y, y0, (size_t)n * sizeof *y);
            ks->bias_act(y, n, 1.0f, NULL, NULL);
            for (int64_t i = 0; i < n; i++)
                cr_assert_eq(y[i], y0[i] + 1.0f);
            free(y);
            free(z);
            free(y0);
        }
    }
}

Test(simd_kernels, binary_with_scalar_broadcast)
{
    FOR_EACH_ISA(ks)
    {
        for (int s = 0; s < N_SIZES; s++) {
            int64_t n = sizes[s];
            float *a = test_values(n, 5.0f), *b = test_values(n, 5.0f);
            float *y = malloc((size_t)(n + 1) * sizeof *y);
            for (int64_t i = 0; i < n; i++)
                b[i] = b[i] == 0 ? 1.5f : b[i];
            for (int op = KN_BIN_ADD; op <= KN_BIN_DIV; op++)
                for (int sa = 0; sa < 2; sa++)
                    for (int sb = 0; sb < 2; sb++) {
                        y[n] = 7.0f;
                        ks->binary((kn_binop)op, y, a, sa, b, sb, n);
                        cr_assert_eq(y[n], 7.0f);
                        for (int64_t i = 0; i < n; i++) {
                            float av = a[sa * i], bv = b[sb * i];
                            float want = op == KN_BIN_ADD   ? av + bv
                                         : op == KN_BIN_SUB ? av - bv
                                         : op == KN_BIN_MUL ? av * bv
                                                            : av / bv;
                            cr_assert_eq(y[i], want, "%s op %d sa %d sb %d n %lld i %lld",
                                         ks->name, op, sa, sb, (long long)n, (long long)i);
                        }
                    }
            free(a);
            free(b);
            free(y);
        }
    }
}

/* Rows of n, each operand either its own row or one row for all. */
Test(simd_kernels, binary_rows)
{
    FOR_EACH_ISA(ks)
    {
        for (int s = 0; s < N_SIZES; s++) {
            const int64_t n = sizes[s], rows = 3;
            float *a = test_values(rows * n, 5.0f), *b = test_values(rows * n, 3.0f);
            float *y = malloc((size_t)(rows * n + 1) * sizeof *y);
            for (int64_t i = 0; i < rows * n; i++)
                b[i] = b[i] == 0 ? 1.5f : b[i];
            for (int op = KN_BIN_ADD; op <= KN_BIN_DIV; op++)
                for (int ra = 0; ra < 2; ra++)
                    for (int rb = 0; rb < 2; rb++) {
                        y[rows * n] = 7.0f;
                        ks->binary_rows((kn_binop)op, y, a, ra, b, rb, rows, n);
                        cr_assert_eq(y[rows * n], 7.0f);
                        for (int64_t r = 0; r < rows; r++)
                            for (int64_t i = 0; i < n; i++) {
                                float av = a[r * ra * n + i], bv = b[r * rb * n + i];
                                float want = op == KN_BIN_ADD   ? av + bv
                                             : op == KN_BIN_SUB ? av - bv
                                             : op == KN_BIN_MUL ? av * bv
                                                                : av / bv;
                                cr_assert_eq(y[r * n + i], want, "%s op %d ra %d rb %d n %lld",
                                             ks->name, op, ra, rb, (long long)n);
                            }
                    }
            free(a);
            free(b);
            free(y);
        }
    }
}

/* ---- rows: reductions, softmax, layer norm ---- */

/* Column sums over rows with a leading dimension past the row's end (a
 * channel range of NHWC pixels): every width through the vector tails,
 * added onto what acc held; columns past n and rows' slack untouched. */
Test(simd_kernels, column_sums_of_rows)
{
    FOR_EACH_ISA(ks)
    {
        for (int s = 0; s < N_SIZES; s++)
            for (int64_t rows = 0; rows <= 9; rows += 3) {
                int64_t n = sizes[s], ld = n + 5;
                float *x = test_values(rows * ld + 1, 20.0f);
                float *acc = test_values(n + 1, 5.0f);
                double *want = malloc((size_t)(n + 1) * sizeof *want);
                double mag = 0;
                for (int64_t i = 0; i <= n; i++)
                    want[i] = acc[i];
                for (int64_t i = 0; i < n; i++)
                    for (int64_t r = 0; r < rows; r++) {
                        want[i] += x[r * ld + i];
                        mag = fmax(mag, fabs(x[r * ld + i]));
                    }
                ks->sum_rows(acc, x, rows, n, ld);
                for (int64_t i = 0; i < n; i++)
                    cr_assert(fabs(acc[i] - want[i]) <= 1e-6 * (rows + 1) * (mag + 5),
                              "%s sum_rows n=%lld rows=%lld column %lld: %g vs %g", ks->name,
                              (long long)n, (long long)rows, (long long)i, acc[i], want[i]);
                cr_assert_eq(acc[n], (float)want[n], "%s sum_rows wrote past n=%lld", ks->name,
                             (long long)n);
                free(x);
                free(acc);
                free(want);
            }
    }
}

Test(simd_kernels, sum_and_max_of_rows)
{
    FOR_EACH_ISA(ks)
    {
        for (int s = 0; s < N_SIZES; s++) {
            int64_t n = sizes[s];
            float *x = test_values(n, 50.0f);
            double sum = 0, mag = 0;
            float mx = -INFINITY;
            for (int64_t i = 0; i < n; i++) {
                sum += x[i];
                mag += fabs(x[i]);
                mx = x[i] > mx ? x[i] : mx;
            }
            cr_assert(fabs(ks->sum(x, n) - sum) <= 1e-6 * mag + 1e-6, "%s sum n=%lld", ks->name,
                      (long long)n);
            cr_assert_eq(ks->max(x, n), mx, "%s max n=%lld", ks->name, (long long)n);
            if (n > 2) {
                x[n - 1] = NAN; /* in the tail */
                cr_assert(isnan(ks->max(x, n)), "%s max drops NaN", ks->name);
            }
            free(x);
        }
    }
}

Test(simd_kernels, softmax_and_log_softmax_rows)
{
    FOR_EACH_ISA(ks)
    {
        for (int s = 1; s < N_SIZES; s++) {
            int64_t n = sizes[s];
            float *x = test_values(n, 30.0f), *y = malloc((size_t)n * sizeof *y);
            x[0] = 1000.0f; /* max subtraction keeps this finite */
            double m = -INFINITY, sum = 0;
            for (int64_t i = 0; i < n; i++)
                m = x[i] > m ? x[i] : m;
            for (int64_t i = 0; i < n; i++)
                sum += exp((double)x[i] - m);
            ks->softmax_row(y, x, n, 0);
            for (int64_t i = 0; i < n; i++)
                cr_assert(close_to(y[i], exp((double)x[i] - m) / sum, 2e-6, 1e-30),
                          "%s softmax n=%lld i=%lld: %g", ks->name, (long long)n, (long long)i,
                          y[i]);
            ks->softmax_row(y, x, n, 1);
            for (int64_t i = 0; i < n; i++)
                cr_assert(close_to(y[i], (double)x[i] - m - log(sum), 1e-6, 1e-5));
            memcpy(y, x, (size_t)n * sizeof *y); /* in place */
            ks->softmax_row(y, y, n, 0);
            cr_assert(close_to(y[0], exp((double)x[0] - m) / sum, 2e-6, 0));
            free(x);
            free(y);
        }
    }
}

Test(simd_kernels, layernorm_rows)
{
    FOR_EACH_ISA(ks)
    {
        for (int s = 1; s < N_SIZES; s++) {
            int64_t n = sizes[s];
            float *x = test_values(n, 4.0f), *g = test_values(n, 2.0f), *b = test_values(n, 1.0f);
            float *y = malloc((size_t)n * sizeof *y), mean, inv;
            for (int64_t i = 0; i < n; i++)
                x[i] += 100.0f; /* a large mean must not cost precision */
            double mu = 0, var = 0;
            for (int64_t i = 0; i < n; i++)
                mu += x[i];
            mu /= (double)n;
            for (int64_t i = 0; i < n; i++)
                var += ((double)x[i] - mu) * ((double)x[i] - mu);
            var /= (double)n;
            double rs = 1 / sqrt(var + 1e-5);
            for (int with_bias = 0; with_bias < 2; with_bias++) {
                ks->layernorm_row(y, x, n, g, with_bias ? b : NULL, 1e-5f, &mean, &inv);
                cr_assert(close_to(mean, mu, 1e-6, 0));
                cr_assert(close_to(inv, rs, 1e-4, 0), "%s inv %g vs %g", ks->name, inv, rs);
                for (int64_t i = 0; i < n; i++) {
                    double want = ((double)x[i] - mu) * rs * g[i] + (with_bias ? b[i] : 0);
                    cr_assert(close_to(y[i], want, 1e-4, 1e-4), "%s layernorm n=%lld i=%lld",
                              ks->name, (long long)n, (long long)i);
                }
            }
            free(x);
            free(g);
            free(b);
            free(y);
        }
    }
}

/* DequantizeLinear's rows: exactly (x - zp) * scale in float for every 8-bit
 * value, over lengths that end inside and past the kernels' 256-value
 * widening chunks, and nothing written past n. */
Test(simd_kernels, dequantize_8bit_rows_exactly)
{
    static const int64_t lengths[] = {0, 1, 5, 255, 256, 257, 700};
    const float scale = 0.0371f, zp_u8 = 131.0f, zp_s8 = -7.0f;
    uint8_t xu[700];
    int8_t xs[700];
    for (int i = 0; i < 700; i++) {
        xu[i] = (uint8_t)(i * 37 + 11);
        xs[i] = (int8_t)(uint8_t)(i * 53 + 5);
    }
    FOR_EACH_ISA(ks)
    {
        for (int l = 0; l < (int)(sizeof lengths / sizeof lengths[0]); l++) {
            int64_t n = lengths[l];
            float yu[701], ys[701];
            yu[n] = ys[n] = -1.0f;
            ks->dequantize_u8(yu, xu, n, scale, zp_u8);
            ks->dequantize_s8(ys, xs, n, scale, zp_s8);
            for (int64_t i = 0; i < n; i++) {
                cr_assert_eq(yu[i], ((float)xu[i] - zp_u8) * scale, "%s u8 n=%lld i=%lld",
                             ks->name, (long long)n, (long long)i);
                cr_assert_eq(ys[i], ((float)xs[i] - zp_s8) * scale, "%s s8 n=%lld i=%lld",
                             ks->name, (long long)n, (long long)i);
            }
            cr_assert(yu[n] == -1.0f && ys[n] == -1.0f, "%s wrote past n=%lld", ks->name,
                      (long long)n);
        }
    }
}
