/* The value-dependent ops (nonzero.c, unique.c, compress.c), random ops
 * (random.c), the training-domain optimizers (training.c), TfIdfVectorizer,
 * the bitwise ops and the other contrib and ML ops: hand-computed values
 * (mostly the ONNX spec and test examples) and error cases. */
#include "kernel_direct.h"

static kh_case c; /* one case per test; freed by the fini hook */
static void fini(void) { kh_free(&c); }
TestSuite(valuedep, .fini = fini);
TestSuite(random, .fini = fini);
TestSuite(training, .fini = fini);
TestSuite(misc, .fini = fini);

/* ---- NonZero, Unique, Compress -------------------------------------------- */

Test(valuedep, nonzero)
{
    kh_init(&c, "NonZero", 13, 1, 1);
    kh_input(&c, 0, KN_BOOL, DIMS(2, 2), (uint8_t[]){1, 0, 1, 1});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 3));
    expect_data(&c.out[0], KN_INT64, (int64_t[]){0, 1, 1, 0, 0, 1});
    kh_free(&c);
    /* -0 is zero, NaN is not */
    kh_init(&c, "NonZero", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(4), (float[]){-0.0f, NAN, 0, 3});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(1, 2));
    expect_data(&c.out[0], KN_INT64, (int64_t[]){1, 3});
    kh_free(&c);
    /* a scalar gives [0, count] */
    int32_t s = 5;
    kh_init(&c, "NonZero", 13, 1, 1);
    kh_input(&c, 0, KN_INT32, NULL, 0, &s);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(0, 1));
    kh_free(&c);
    /* 3-D with float16: 0x8000 is -0 */
    uint16_t h[] = {0x8000, 0x3c00, 0, 0, 0, 0x0001, 0, 0};
    kh_init(&c, "NonZero", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT16, DIMS(2, 2, 2), h);
    run_ok(&c);
    expect_data(&c.out[0], KN_INT64, (int64_t[]){0, 1, 0, 0, 1, 1});
    kh_free(&c);
    kh_init(&c, "NonZero", 13, 1, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_BOOL, DIMS(2, 2), (uint8_t[]){1, 0, 1, 1});
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "'X'");
}

/* Runs Unique and checks all four outputs. */
static void check_unique(const int64_t *y_dims, int32_t y_rank, const void *y, int32_t dtype,
                         const int64_t *idx, int64_t groups, const int64_t *inv, int64_t n,
                         const int64_t *counts)
{
    run_ok(&c);
    expect_shape(&c.out[0], y_dims, y_rank);
    expect_data(&c.out[0], dtype, y);
    expect_n(&c.out[1], KN_INT64, idx, groups);
    expect_n(&c.out[2], KN_INT64, inv, n);
    expect_n(&c.out[3], KN_INT64, counts, groups);
    kh_free(&c);
}

Test(valuedep, unique)
{
    /* the four spec examples */
    kh_init(&c, "Unique", 11, 1, 4);
    kh_attr_int(&c, "sorted", 0);
    kh_input(&c, 0, KN_FLOAT, DIMS(6), (float[]){2, 1, 1, 3, 4, 3});
    check_unique(DIMS(4), (float[]){2, 1, 3, 4}, KN_FLOAT, (int64_t[]){0, 1, 3, 4}, 4,
                 (int64_t[]){0, 1, 1, 2, 3, 2}, 6, (int64_t[]){1, 2, 2, 1});
    kh_init(&c, "Unique", 11, 1, 4);
    kh_input(&c, 0, KN_INT64, DIMS(2, 2), (int64_t[]){1, 3, 2, 3});
    check_unique(DIMS(3), (int64_t[]){1, 2, 3}, KN_INT64, (int64_t[]){0, 2, 1}, 3,
                 (int64_t[]){0, 2, 1, 2}, 4, (int64_t[]){1, 1, 2});
    kh_init(&c, "Unique", 11, 1, 4);
    kh_attr_int(&c, "axis", 0);
    kh_input(&c, 0, KN_INT32, DIMS(3, 3), (int32_t[]){1, 0, 0, 1, 0, 0, 2, 3, 4});
    check_unique(DIMS(2, 3), (int32_t[]){1, 0, 0, 2, 3, 4}, KN_INT32, (int64_t[]){0, 2}, 2,
                 (int64_t[]){0, 0, 1}, 3, (int64_t[]){2, 1});
    kh_init(&c, "Unique", 11, 1, 4);
    kh_attr_int(&c, "axis", -2);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 4, 2),
             (float[]){1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1});
    check_unique(DIMS(2, 3, 2), (float[]){0, 1, 1, 1, 2, 1, 0, 1, 1, 1, 2, 1}, KN_FLOAT,
                 (int64_t[]){1, 0, 2}, 3, (int64_t[]){1, 0, 2, 0}, 4, (int64_t[]){2, 1, 1});
    /* -0 equals 0 (the first one is kept), NaNs group together and sort last,
     * uint64 beyond 2^53 stays exact */
    kh_init(&c, "Unique", 11, 1, 4);
    kh_input(&c, 0, KN_FLOAT, DIMS(5), (float[]){NAN, 0, -0.0f, NAN, -1});
    run_ok(&c);
    const float *y = c.out[0].data;
    cr_assert_eq(kn_tensor_numel(&c.out[0]), 3);
    cr_assert(y[0] == -1 && y[1] == 0 && !signbit(y[1]) && isnan(y[2]));
    expect_n(&c.out[3], KN_INT64, (int64_t[]){1, 2, 2}, 3);
    kh_free(&c);
    uint64_t big[] = {(1ull << 60) + 1, 1ull << 60, (1ull << 60) + 1};
    kh_init(&c, "Unique", 11, 1, 4);
    kh_input(&c, 0, KN_UINT64, DIMS(3), big);
    check_unique(DIMS(2), (uint64_t[]){1ull << 60, (1ull << 60) + 1}, KN_UINT64,
                 (int64_t[]){1, 0}, 2, (int64_t[]){1, 0, 1}, 3, (int64_t[]){1, 2});
    /* optional outputs omitted, empty input */
    kh_init(&c, "Unique", 11, 1, 1);
    kh_input(&c, 0, KN_INT8, DIMS(0), (int8_t[]){0});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(0));
    kh_free(&c);
    kh_init(&c, "Unique", 11, 1, 4);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_INT64, DIMS(2), (int64_t[]){1, 1});
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "'X'");
    kh_free(&c);
    kh_init(&c, "Unique", 11, 1, 4);
    kh_attr_int(&c, "axis", 2);
    kh_input(&c, 0, KN_INT64, DIMS(2), (int64_t[]){1, 1});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "axis");
}

Test(valuedep, unique_large)
{
    /* 5000 values drawn from 300: sorted output is strictly increasing,
     * counts add up, inverse maps back */
    enum { NV = 5000 };
    int32_t *v = malloc(sizeof(int32_t) * NV);
    for (int i = 0; i < NV; i++)
        v[i] = rand_int(-150, 149);
    kh_init(&c, "Unique", 11, 1, 4);
    kh_input(&c, 0, KN_INT32, DIMS(NV), v);
    run_ok(&c);
    int64_t g = kn_tensor_numel(&c.out[0]), total = 0;
    const int32_t *y = c.out[0].data;
    const int64_t *first = c.out[1].data, *inv = c.out[2].data, *cnt = c.out[3].data;
    for (int64_t i = 0; i < g; i++) {
        cr_assert(i == 0 || y[i - 1] < y[i]);
        cr_assert_eq(v[first[i]], y[i]);
        for (int64_t j = 0; j < first[i]; j++)
            cr_assert_neq(v[j], y[i], "index %lld is not the first occurrence", (long long)i);
        total += cnt[i];
    }
    cr_assert_eq(total, NV);
    for (int i = 0; i < NV; i++)
        cr_assert_eq(y[inv[i]], v[i]);
    free(v);
}

Test(valuedep, compress)
{
    float x[] = {1, 2, 3, 4, 5, 6};
    kh_init(&c, "Compress", 11, 2, 1);
    kh_attr_int(&c, "axis", 0);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 2), x);
    kh_input(&c, 1, KN_BOOL, DIMS(3), (uint8_t[]){0, 1, 1});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 2));
    expect_data(&c.out[0], KN_FLOAT, (float[]){3, 4, 5, 6});
    kh_free(&c);
    kh_init(&c, "Compress", 11, 2, 1);
    kh_attr_int(&c, "axis", -1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 2), x);
    kh_input(&c, 1, KN_BOOL, DIMS(2), (uint8_t[]){0, 1});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(3, 1));
    expect_data(&c.out[0], KN_FLOAT, (float[]){2, 4, 6});
    kh_free(&c);
    /* flattened, condition shorter than the input */
    kh_init(&c, "Compress", 11, 2, 1);
    kh_input(&c, 0, KN_INT16, DIMS(3, 2), (int16_t[]){1, 2, 3, 4, 5, 6});
    kh_input(&c, 1, KN_BOOL, DIMS(4), (uint8_t[]){0, 1, 0, 1});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2));
    expect_data(&c.out[0], KN_INT16, (int16_t[]){2, 4});
    kh_free(&c);
    /* the data need not be constant, the condition must */
    kh_init(&c, "Compress", 11, 2, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 2), x);
    kh_input(&c, 1, KN_BOOL, DIMS(3), (uint8_t[]){0, 1, 1});
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "'condition'");
    kh_free(&c);
    kh_init(&c, "Compress", 11, 2, 1);
    kh_attr_int(&c, "axis", 0);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 2), x);
    kh_input(&c, 1, KN_BOOL, DIMS(4), (uint8_t[]){0, 1, 0, 1});
    expect_fail(&c, KN_ERR_INVALID_ARGUMENT, "condition[3]");
    kh_free(&c);
    kh_init(&c, "Compress", 11, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 2), x);
    kh_input(&c, 1, KN_INT32, DIMS(1), (int32_t[]){1});
    expect_fail(&c, KN_ERR_DTYPE, "bool");
}

/* ---- random ops ------------------------------------------------------------ */

Test(random, uniform_and_normal)
{
    const kn_op_def *d = kn_backend_kernel(&kn_backend_cpu, "", "RandomUniform", 1, 0);
    cr_assert(d && (d->flags & KN_OP_NONDETERMINISTIC));
    kh_init(&c, "RandomUniform", 1, 0, 1);
    kh_attr_ints(&c, "shape", (int64_t[]){200, 150}, 2);
    kh_attr_float(&c, "low", -2);
    kh_attr_float(&c, "high", 3);
    kh_attr_float(&c, "seed", 7);
    kh_attr_int(&c, "dtype", KN_DOUBLE);
    run_both(&c); /* seeded: same values with 1 and 2 threads */
    expect_shape(&c.out[0], DIMS(200, 150));
    cr_assert_eq(c.out[0].dtype, KN_DOUBLE);
    const double *u = c.out[0].data;
    double sum = 0, lo = 1e9, hi = -1e9;
    for (int i = 0; i < 30000; i++) {
        sum += u[i];
        lo = u[i] < lo ? u[i] : lo;
        hi = u[i] > hi ? u[i] : hi;
    }
    cr_assert(lo >= -2 && hi < 3 && lo < -1.99 && hi > 2.99, "range [%g, %g]", lo, hi);
    cr_assert(fabs(sum / 30000 - 0.5) < 0.05, "mean %g", sum / 30000);
    kh_free(&c);
    kh_init(&c, "RandomNormalLike", 1, 1, 1);
    kh_attr_float(&c, "mean", 10);
    kh_attr_float(&c, "scale", 2);
    kh_attr_float(&c, "seed", 1);
    static float like[40000];
    kh_input(&c, 0, KN_FLOAT, DIMS(200, 200), like);
    run_ok(&c);
    const float *z = c.out[0].data;
    double m = 0, v = 0;
    for (int i = 0; i < 40000; i++)
        m += z[i];
    m /= 40000;
    for (int i = 0; i < 40000; i++)
        v += (z[i] - m) * (z[i] - m);
    v /= 40000;
    cr_assert(fabs(m - 10) < 0.05 && fabs(v - 4) < 0.2, "mean %g var %g", m, v);
    kh_free(&c);
    /* float16 output; an int input needs an explicit float dtype */
    kh_init(&c, "RandomUniformLike", 1, 1, 1);
    kh_attr_int(&c, "dtype", KN_FLOAT16);
    kh_input(&c, 0, KN_INT32, DIMS(3), (int32_t[]){1, 2, 3});
    run_ok(&c);
    cr_assert_eq(c.out[0].dtype, KN_FLOAT16);
    kh_free(&c);
    kh_init(&c, "RandomUniformLike", 1, 1, 1);
    kh_input(&c, 0, KN_INT32, DIMS(3), (int32_t[]){1, 2, 3});
    expect_fail(&c, KN_ERR_DTYPE, "dtype");
    kh_free(&c);
    kh_init(&c, "RandomNormal", 1, 0, 1);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "shape");
}

Test(random, bernoulli_and_multinomial)
{
    /* p = 0 and p = 1 are certain; p = 0.25 hits about a quarter */
    enum { NB = 20000 };
    double *p = malloc(sizeof(double) * NB);
    for (int i = 0; i < NB; i++)
        p[i] = i % 4 == 0 ? 0 : i % 4 == 1 ? 1 : 0.25;
    kh_init(&c, "Bernoulli", 15, 1, 1);
    kh_attr_int(&c, "dtype", KN_INT64);
    kh_input(&c, 0, KN_DOUBLE, DIMS(NB), p);
    run_ok(&c);
    cr_assert_eq(c.out[0].dtype, KN_INT64);
    const int64_t *b = c.out[0].data;
    int quarter = 0;
    for (int i = 0; i < NB; i++) {
        if (i % 4 < 2)
            cr_assert_eq(b[i], i % 4, "element %d", i);
        else
            quarter += (int)b[i];
    }
    cr_assert(fabs(quarter / (NB / 2.0) - 0.25) < 0.02, "rate %g", quarter / (NB / 2.0));
    free(p);
    kh_free(&c);
    /* row 0 always picks class 2; row 1 splits 1:3 between classes 0 and 1 */
    float logits[] = {-INFINITY, -INFINITY, 0, 0, logf(3), -INFINITY};
    kh_init(&c, "Multinomial", 7, 1, 1);
    kh_attr_int(&c, "sample_size", 4000);
    kh_attr_int(&c, "dtype", KN_INT64);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), logits);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 4000));
    const int64_t *s = c.out[0].data;
    int ones = 0;
    for (int i = 0; i < 4000; i++) {
        cr_assert_eq(s[i], 2);
        cr_assert(s[4000 + i] == 0 || s[4000 + i] == 1);
        ones += (int)s[4000 + i];
    }
    cr_assert(fabs(ones / 4000.0 - 0.75) < 0.03, "rate %g", ones / 4000.0);
    kh_free(&c);
    kh_init(&c, "Multinomial", 7, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(6), logits);
    expect_fail(&c, KN_ERR_SHAPE, "batch");
}

/* ---- training-domain optimizers ------------------------------------------- */

#define TRAINING "ai.onnx.preview.training"

static float r01 = 0.1f;
static int64_t t0 = 0, t5 = 5;

Test(training, adagrad)
{
    cr_assert(kn_registry_find_op("", "Adagrad", 1) == NULL, "Adagrad must not be in ai.onnx");
    /* from the spec test: r = 0.1, t = 0, decay 0.1, eps 1e-5, norm 0.001 */
    kh_init(&c, "Adagrad", 1, 8, 4);
    kh_attr_float(&c, "decay_factor", 0.1f);
    kh_attr_float(&c, "epsilon", 1e-5f);
    kh_attr_float(&c, "norm_coefficient", 0.001f);
    kh_input(&c, 0, KN_FLOAT, NULL, 0, &r01);
    kh_input(&c, 1, KN_INT64, NULL, 0, &t0);
    kh_input(&c, 2, KN_FLOAT, DIMS(1), (float[]){1});
    kh_input(&c, 3, KN_FLOAT, DIMS(2), (float[]){1, 2});
    kh_input(&c, 4, KN_FLOAT, DIMS(1), (float[]){-1});
    kh_input(&c, 5, KN_FLOAT, DIMS(2), (float[]){-1, -3});
    kh_input(&c, 6, KN_FLOAT, DIMS(1), (float[]){2});
    kh_input(&c, 7, KN_FLOAT, DIMS(2), (float[]){4, 1});
    cr_assert_eq(run_direct(&c, TRAINING, NULL, 1), KN_OK, "%s", c.err.msg);
    /* g = 0.001 x + g: -0.999, -2.998; h += g^2; x -= 0.1 g / (sqrt(h) + eps) */
    expect_f32(&c.out[0], (float[]){1.0576962f}, 1, 1e-6);
    expect_f32(&c.out[1], (float[]){1.0446854f, 2.0948617f}, 2, 1e-6);
    expect_f32(&c.out[2], (float[]){2.998001f}, 1, 1e-6);
    expect_f32(&c.out[3], (float[]){4.998001f, 9.988004f}, 2, 1e-6);
    kh_free(&c);
    kh_init(&c, "Adagrad", 1, 4, 2);
    kh_input(&c, 0, KN_FLOAT, NULL, 0, &r01);
    kh_input(&c, 1, KN_INT64, NULL, 0, &t0);
    kh_input(&c, 2, KN_FLOAT, DIMS(1), (float[]){1});
    kh_input(&c, 3, KN_FLOAT, DIMS(1), (float[]){1});
    cr_assert_eq(run_direct(&c, TRAINING, NULL, 1), KN_ERR_INVALID_MODEL);
}

Test(training, adam)
{
    kh_init(&c, "Adam", 1, 6, 3);
    kh_attr_float(&c, "alpha", 0.95f);
    kh_attr_float(&c, "beta", 0.1f);
    kh_attr_float(&c, "epsilon", 1e-7f);
    kh_attr_float(&c, "norm_coefficient", 0.001f);
    kh_input(&c, 0, KN_FLOAT, NULL, 0, &r01);
    kh_input(&c, 1, KN_INT64, NULL, 0, &t0);
    kh_input(&c, 2, KN_FLOAT, DIMS(2), (float[]){1.2f, 2.8f});
    kh_input(&c, 3, KN_FLOAT, DIMS(2), (float[]){-0.94f, -2.5f});
    kh_input(&c, 4, KN_FLOAT, DIMS(2), (float[]){1.7f, 3.6f});
    kh_input(&c, 5, KN_FLOAT, DIMS(2), (float[]){0.1f, 0.1f});
    cr_assert_eq(run_direct(&c, TRAINING, NULL, 1), KN_OK, "%s", c.err.msg);
    expect_f32(&c.out[0], (float[]){1.0250363f, 2.6610327f}, 2, 1e-6);
    expect_f32(&c.out[1], (float[]){1.56806f, 3.2951398f}, 2, 1e-6);
    expect_f32(&c.out[2], (float[]){0.8032108f, 5.622407f}, 2, 1e-6);
    kh_free(&c);
    /* t > 0: bias correction r * sqrt(1 - beta^t) / (1 - alpha^t), and the
     * post-update decay; double tensors. g = -1, v = 0.9 * 0 + 0.1 * -1,
     * h = 0.5 * 0 + 0.5 * 1, x = 1 - r' * (-0.1 / sqrt(0.5)), then * 0.9 */
    double x = 1, g = -1, v = 0, h = 0;
    double r = 0.1;
    kh_init(&c, "Adam", 1, 6, 3);
    kh_attr_float(&c, "alpha", 0.9f);
    kh_attr_float(&c, "beta", 0.5f);
    kh_attr_float(&c, "epsilon", 0);
    kh_attr_float(&c, "norm_coefficient_post", 0.1f);
    kh_input(&c, 0, KN_DOUBLE, NULL, 0, &r);
    kh_input(&c, 1, KN_INT64, NULL, 0, &t5);
    kh_input(&c, 2, KN_DOUBLE, DIMS(1), &x);
    kh_input(&c, 3, KN_DOUBLE, DIMS(1), &g);
    kh_input(&c, 4, KN_DOUBLE, DIMS(1), &v);
    kh_input(&c, 5, KN_DOUBLE, DIMS(1), &h);
    cr_assert_eq(run_direct(&c, TRAINING, NULL, 1), KN_OK, "%s", c.err.msg);
    double rate = 0.1 * sqrt(1 - pow(0.5, 5)) / (1 - pow(0.9, 5));
    double want = (1 + rate * 0.1 / sqrt(0.5)) * (1 - (double)0.1f);
    cr_assert(fabs(*(double *)c.out[0].data - want) < 1e-7, "%.10g vs %.10g",
              *(double *)c.out[0].data, want);
}

/* A Momentum node over x, g, v (the same two elements in every case) with
 * the given beta, norm_coefficient and mode; runs it and returns the
 * status, leaving the outputs in c. */
static int run_momentum(float beta, float norm_coefficient, const char *mode)
{
    static float x[] = {1.2f, 2.8f}, g[] = {-0.94f, -2.5f}, v[] = {1.7f, 3.6f};
    kh_init(&c, "Momentum", 1, 5, 2);
    kh_attr_float(&c, "alpha", 0.95f);
    kh_attr_float(&c, "beta", beta);
    kh_attr_float(&c, "norm_coefficient", norm_coefficient);
    kh_attr_string(&c, "mode", mode);
    kh_input(&c, 0, KN_FLOAT, NULL, 0, &r01);
    kh_input(&c, 1, KN_INT64, NULL, 0, &t0);
    kh_input(&c, 2, KN_FLOAT, DIMS(2), x);
    kh_input(&c, 3, KN_FLOAT, DIMS(2), g);
    kh_input(&c, 4, KN_FLOAT, DIMS(2), v);
    return run_direct(&c, TRAINING, NULL, 1);
}

Test(training, momentum)
{
    cr_assert_eq(run_momentum(0.1f, 0.001f, "standard"), KN_OK, "%s", c.err.msg);
    expect_f32(&c.out[0], (float[]){1.13238f, 2.70772f}, 2, 1e-6);
    expect_f32(&c.out[1], (float[]){0.67620003f, 0.9227998f}, 2, 1e-6);
    kh_free(&c);
    cr_assert_eq(run_momentum(1.0f, 0.01f, "nesterov"), KN_OK, "%s", c.err.msg);
    expect_f32(&c.out[0], (float[]){1.227535f, 2.95714f}, 2, 1e-6);
    expect_f32(&c.out[1], (float[]){0.68700004f, 0.94799995f}, 2, 1e-6);
    kh_free(&c);
    cr_assert_eq(run_momentum(1.0f, 0.01f, "heavy"), KN_ERR_INVALID_MODEL);
    cr_assert(strstr(c.err.msg, "mode"), "%s", c.err.msg);
}

/* ---- TfIdfVectorizer, bitwise ops ------------------------------------------ */

Test(misc, tfidf)
{
    int64_t pool[] = {2, 3, 5, 4, 5, 6, 7, 8, 6, 7};
    int64_t idx[] = {0, 1, 2, 3, 4, 5, 6};
    kh_init(&c, "TfIdfVectorizer", 9, 1, 1);
    kh_attr_int(&c, "max_gram_length", 2);
    kh_attr_int(&c, "min_gram_length", 1);
    kh_attr_int(&c, "max_skip_count", 5);
    kh_attr_string(&c, "mode", "TF");
    kh_attr_ints(&c, "ngram_counts", (int64_t[]){0, 4}, 2);
    kh_attr_ints(&c, "ngram_indexes", idx, 7);
    kh_attr_ints(&c, "pool_int64s", pool, 10);
    kh_input(&c, 0, KN_INT32, DIMS(2, 6), (int32_t[]){1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 7));
    /* row 0: "3" three times; row 1: 5, (5,6) at skip 0, (7,8) at skip 2,
     * (6,7) at skip 0 */
    expect_f32(&c.out[0], (float[]){0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1}, 14, 0);
    kh_free(&c);
    /* bigrams only, skip 0, 1-D; TFIDF weights; two pool entries sharing a column */
    kh_init(&c, "TfIdfVectorizer", 9, 1, 1);
    kh_attr_int(&c, "max_gram_length", 2);
    kh_attr_int(&c, "min_gram_length", 2);
    kh_attr_int(&c, "max_skip_count", 0);
    kh_attr_string(&c, "mode", "TFIDF");
    kh_attr_ints(&c, "ngram_counts", (int64_t[]){0, 0}, 2);
    kh_attr_ints(&c, "ngram_indexes", (int64_t[]){0, 2, 0}, 3);
    kh_attr_ints(&c, "pool_int64s", (int64_t[]){5, 6, 7, 8, 6, 7}, 6);
    kh_attr_floats(&c, "weights", (float[]){2, 3, 0.5f}, 3);
    kh_input(&c, 0, KN_INT64, DIMS(8), (int64_t[]){5, 6, 7, 8, 5, 6, 6, 7});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(3));
    /* (5,6) x2 * 2 + (6,7) x2 * 0.5 in column 0, (7,8) x1 * 3 in column 2 */
    expect_f32(&c.out[0], (float[]){5, 0, 3}, 3, 0);
    kh_free(&c);
    kh_init(&c, "TfIdfVectorizer", 9, 1, 1); /* IDF: presence times weight */
    kh_attr_int(&c, "max_gram_length", 1);
    kh_attr_int(&c, "min_gram_length", 1);
    kh_attr_string(&c, "mode", "IDF");
    kh_attr_ints(&c, "ngram_counts", (int64_t[]){0}, 1);
    kh_attr_ints(&c, "ngram_indexes", (int64_t[]){1, 0}, 2);
    kh_attr_ints(&c, "pool_int64s", (int64_t[]){9, 4}, 2);
    kh_attr_floats(&c, "weights", (float[]){0.5f, 4}, 2);
    kh_input(&c, 0, KN_INT32, DIMS(5), (int32_t[]){9, 9, 9, 1, 4});
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){4, 0.5f}, 2, 0);
    kh_free(&c);
    kh_init(&c, "TfIdfVectorizer", 9, 1, 1);
    kh_attr_int(&c, "max_gram_length", 2);
    kh_attr_int(&c, "min_gram_length", 1);
    kh_attr_string(&c, "mode", "TF");
    kh_attr_ints(&c, "ngram_counts", (int64_t[]){0, 3}, 2);
    kh_attr_ints(&c, "ngram_indexes", (int64_t[]){0, 1}, 2);
    kh_attr_ints(&c, "pool_int64s", (int64_t[]){1, 2, 3, 4}, 4); /* 1 item of bigrams */
    kh_input(&c, 0, KN_INT32, DIMS(2), (int32_t[]){1, 2});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "ngram_counts");
    kh_free(&c);
    kh_init(&c, "TfIdfVectorizer", 9, 1, 1);
    kh_attr_string(&c, "mode", "TF");
    kh_attr_int(&c, "max_gram_length", 1);
    kh_attr_int(&c, "min_gram_length", 1);
    c.attrs[c.node.n_attrs++] = (kn_attr){.name = "pool_strings", .type = KN_ATTR_STRINGS};
    kh_input(&c, 0, KN_INT32, DIMS(2), (int32_t[]){1, 2});
    expect_fail(&c, KN_ERR_UNSUPPORTED, "string");
}

Test(misc, bitwise)
{
    kh_init(&c, "BitwiseAnd", 18, 2, 1);
    kh_input(&c, 0, KN_INT16, DIMS(2, 2), (int16_t[]){-1, 12, 0x0F0F, -32768});
    kh_input(&c, 1, KN_INT16, DIMS(2), (int16_t[]){0x00FF, 10});
    run_ok(&c);
    expect_data(&c.out[0], KN_INT16, (int16_t[]){0x00FF, 8, 0x000F, 0});
    kh_free(&c);
    kh_init(&c, "BitwiseOr", 18, 2, 1);
    kh_input(&c, 0, KN_UINT64, DIMS(2), (uint64_t[]){1ull << 63, 5});
    kh_input(&c, 1, KN_UINT64, NULL, 0, (uint64_t[]){3});
    run_ok(&c);
    expect_data(&c.out[0], KN_UINT64, (uint64_t[]){(1ull << 63) | 3, 7});
    kh_free(&c);
    kh_init(&c, "BitwiseXor", 18, 2, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(2, 1), (uint8_t[]){0xF0, 0x0F});
    kh_input(&c, 1, KN_UINT8, DIMS(1, 3), (uint8_t[]){0xFF, 0x00, 0x3C});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 3));
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){0x0F, 0xF0, 0xCC, 0xF0, 0x0F, 0x33});
    kh_free(&c);
    kh_init(&c, "BitwiseNot", 18, 1, 1);
    kh_input(&c, 0, KN_INT32, DIMS(3), (int32_t[]){0, -1, 5});
    run_ok(&c);
    expect_data(&c.out[0], KN_INT32, (int32_t[]){-1, 0, -6});
    kh_free(&c);
    /* a big broadcast for the thread split */
    static int32_t big[3 * 20000], row[20000];
    for (int i = 0; i < 3 * 20000; i++)
        big[i] = rand_int(-100000, 100000);
    for (int i = 0; i < 20000; i++)
        row[i] = rand_int(-100000, 100000);
    kh_init(&c, "BitwiseAnd", 18, 2, 1);
    kh_input(&c, 0, KN_INT32, DIMS(3, 20000), big);
    kh_input(&c, 1, KN_INT32, DIMS(20000), row);
    run_both(&c);
    const int32_t *o = c.out[0].data;
    for (int i = 0; i < 3 * 20000; i++)
        cr_assert_eq(o[i], big[i] & row[i % 20000]);
    kh_free(&c);
    kh_init(&c, "BitwiseAnd", 18, 2, 1);
    kh_input(&c, 0, KN_INT32, DIMS(2), (int32_t[]){1, 2});
    kh_input(&c, 1, KN_INT16, DIMS(2), (int16_t[]){1, 2});
    expect_fail(&c, KN_ERR_DTYPE, "B is int16");
    kh_free(&c);
    kh_init(&c, "BitwiseAnd", 18, 2, 1);
    kh_input(&c, 0, KN_INT32, DIMS(2), (int32_t[]){1, 2});
    kh_input(&c, 1, KN_INT32, DIMS(3), (int32_t[]){1, 2, 3});
    expect_fail(&c, KN_ERR_SHAPE, "broadcast");
}

/* ---- RotaryEmbedding, SwiGLU ------------------------------------------------ */

Test(misc, rotary_embedding)
{
    /* pair 0 turns by 90 degrees (cos 0, sin 1), pair 1 stays (cos 1, sin 0) */
    float x[] = {1, 2, 3, 4}, cs[] = {0, 1}, sn[] = {1, 0};
    int64_t pos = 0;
    kh_init(&c, "RotaryEmbedding", 23, 4, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 1, 4), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 2), cs);
    kh_input(&c, 2, KN_FLOAT, DIMS(1, 2), sn);
    kh_input(&c, 3, KN_INT64, DIMS(1, 1), &pos);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-3, 2, 1, 4}, 4, 0); /* halves [x0, x1] [x2, x3] */
    kh_free(&c);
    kh_init(&c, "RotaryEmbedding", 23, 4, 1);
    kh_attr_int(&c, "interleaved", 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 1, 4), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 2), cs);
    kh_input(&c, 2, KN_FLOAT, DIMS(1, 2), sn);
    kh_input(&c, 3, KN_INT64, DIMS(1, 1), &pos);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-2, 1, 3, 4}, 4, 0); /* pairs (x0, x1) (x2, x3) */
    kh_free(&c);
    /* 3-D input, two heads of 3, rotating 2 features: (a, b, c) -> (-b, a, c)
     * at position 1; without position ids the cache is [batch, seq, d/2] */
    float x3[] = {1, 2, 3, 4, 5, 6}, c2[] = {1, 0}, s2[] = {0, 1};
    int64_t pos1 = 1;
    kh_init(&c, "RotaryEmbedding", 23, 4, 1);
    kh_attr_int(&c, "num_heads", 2);
    kh_attr_int(&c, "rotary_embedding_dim", 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 6), x3);
    kh_input(&c, 1, KN_FLOAT, DIMS(2, 1), c2);
    kh_input(&c, 2, KN_FLOAT, DIMS(2, 1), s2);
    kh_input(&c, 3, KN_INT64, DIMS(1, 1), &pos1);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-2, 1, 3, -5, 4, 6}, 6, 0);
    kh_free(&c);
    kh_init(&c, "RotaryEmbedding", 23, 3, 1);
    kh_attr_int(&c, "num_heads", 2);
    kh_attr_int(&c, "rotary_embedding_dim", 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 6), x3);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 1, 1), &c2[1]);
    kh_input(&c, 2, KN_FLOAT, DIMS(1, 1, 1), &s2[1]);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-2, 1, 3, -5, 4, 6}, 6, 0);
    kh_free(&c);
    int64_t far = 2; /* cache has 2 positions */
    kh_init(&c, "RotaryEmbedding", 23, 4, 1);
    c.inputs_constant_in_prepare = 0;
    kh_attr_int(&c, "num_heads", 2);
    kh_attr_int(&c, "rotary_embedding_dim", 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 6), x3);
    kh_input(&c, 1, KN_FLOAT, DIMS(2, 1), c2);
    kh_input(&c, 2, KN_FLOAT, DIMS(2, 1), s2);
    kh_input(&c, 3, KN_INT64, DIMS(1, 1), &far);
    expect_fail(&c, KN_ERR_INVALID_ARGUMENT, "position id");
    kh_free(&c);
    kh_init(&c, "RotaryEmbedding", 23, 4, 1);
    kh_attr_int(&c, "rotary_embedding_dim", 3);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 1, 4), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 2), cs);
    kh_input(&c, 2, KN_FLOAT, DIMS(1, 2), sn);
    kh_input(&c, 3, KN_INT64, DIMS(1, 1), &pos);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "even");
}

Test(misc, swiglu)
{
    kh_init(&c, "SwiGLU", 28, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 1), (float[]){0, 1});
    kh_input(&c, 1, KN_FLOAT, DIMS(2), (float[]){2, 3});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 2));
    /* 1 * sigmoid(1) = 0.7310585786 */
    expect_f32(&c.out[0], (float[]){0, 0, 1.4621172f, 2.1931757f}, 4, 1e-6);
    kh_free(&c);
    kh_init(&c, "SwiGLU", 28, 2, 1);
    kh_attr_float(&c, "alpha", 0.5f);
    kh_input(&c, 0, KN_FLOAT, DIMS(1), (float[]){1});
    kh_input(&c, 1, KN_FLOAT, DIMS(1), (float[]){0.5f});
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){0.31122968f}, 1, 1e-6);
}

/* ---- ai.onnx.ml ops -------------------------------------------------------- */

#define ML "ai.onnx.ml"

Test(misc, ml_binarizer_array_feature_extractor)
{
    kh_init(&c, "Binarizer", 1, 1, 1);
    kh_attr_float(&c, "threshold", 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(4), (float[]){0.5f, 1, 1.5f, NAN});
    cr_assert_eq(run_direct(&c, ML, NULL, 1), KN_OK, "%s", c.err.msg);
    expect_f32(&c.out[0], (float[]){0, 0, 1, 0}, 4, 0);
    kh_free(&c);
    kh_init(&c, "ArrayFeatureExtractor", 1, 2, 1);
    kh_input(&c, 0, KN_INT32, DIMS(2, 3), (int32_t[]){0, 1, 2, 3, 4, 5});
    kh_input(&c, 1, KN_INT64, DIMS(2), (int64_t[]){2, 0});
    cr_assert_eq(run_direct(&c, ML, NULL, 1), KN_OK, "%s", c.err.msg);
    expect_shape(&c.out[0], DIMS(2, 2));
    expect_data(&c.out[0], KN_INT32, (int32_t[]){2, 0, 5, 3});
    kh_free(&c);
    kh_init(&c, "ArrayFeatureExtractor", 1, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), (float[]){7, 8, 9});
    kh_input(&c, 1, KN_INT64, DIMS(1), (int64_t[]){1});
    cr_assert_eq(run_direct(&c, ML, NULL, 1), KN_OK, "%s", c.err.msg);
    expect_shape(&c.out[0], DIMS(1, 1));
    expect_f32(&c.out[0], (float[]){8}, 1, 0);
    kh_free(&c);
    kh_init(&c, "ArrayFeatureExtractor", 1, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), (float[]){7, 8, 9});
    kh_input(&c, 1, KN_INT64, DIMS(1), (int64_t[]){3});
    cr_assert_eq(run_direct(&c, ML, NULL, 1), KN_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(c.err.msg, "index 3"), "%s", c.err.msg);
}

Test(misc, ml_tree_ensemble)
{
    /* node 0: x0 <= 3.14 ? node 1 : node 2; node 1: x0 <= 1.2 ? leaf 0 : leaf 2;
     * node 2: x0 <= 4.2 ? leaf 1 : leaf 3; leaves 0, 2 -> column 0, 1, 3 -> 1 */
    static double splits[] = {3.14, 1.2, 4.2}, weights[] = {5.23, 12.12, -12.23, 7.21};
    static uint8_t modes[] = {0, 0, 0};
    kn_tensor t_splits = {.dtype = KN_DOUBLE, .rank = 1, .dims = {3}, .data = splits};
    kn_tensor t_weights = {.dtype = KN_DOUBLE, .rank = 1, .dims = {4}, .data = weights};
    kn_tensor t_modes = {.dtype = KN_UINT8, .rank = 1, .dims = {3}, .data = modes};
    kh_init(&c, "TreeEnsemble", 5, 1, 1);
    kh_attr_int(&c, "aggregate_function", 1);
    kh_attr_int(&c, "n_targets", 2);
    kh_attr_ints(&c, "leaf_targetids", (int64_t[]){0, 1, 0, 1}, 4);
    kh_attr_tensor(&c, "leaf_weights", &t_weights);
    kh_attr_ints(&c, "nodes_falseleafs", (int64_t[]){0, 1, 1}, 3);
    kh_attr_ints(&c, "nodes_falsenodeids", (int64_t[]){2, 2, 3}, 3);
    kh_attr_ints(&c, "nodes_featureids", (int64_t[]){0, 0, 0}, 3);
    kh_attr_tensor(&c, "nodes_modes", &t_modes);
    kh_attr_tensor(&c, "nodes_splits", &t_splits);
    kh_attr_ints(&c, "nodes_trueleafs", (int64_t[]){0, 1, 1}, 3);
    kh_attr_ints(&c, "nodes_truenodeids", (int64_t[]){1, 0, 1}, 3);
    kh_attr_ints(&c, "tree_roots", (int64_t[]){0}, 1);
    kh_input(&c, 0, KN_DOUBLE, DIMS(4, 1), (double[]){1.2, -0.12, 4.14, 9});
    cr_assert_eq(run_direct(&c, ML, NULL, 1), KN_OK, "%s", c.err.msg);
    expect_shape(&c.out[0], DIMS(4, 2));
    const double *y = c.out[0].data;
    double want[] = {5.23, 0, 5.23, 0, 0, 12.12, 0, 7.21};
    for (int i = 0; i < 8; i++)
        cr_assert_eq(y[i], want[i], "[%d] %g vs %g", i, y[i], want[i]);
    kh_free(&c);
    /* a tree whose node 1 loops back to node 0 without reaching a leaf */
    kh_init(&c, "TreeEnsemble", 5, 1, 1);
    kh_attr_int(&c, "n_targets", 2);
    kh_attr_ints(&c, "leaf_targetids", (int64_t[]){0, 1, 0, 1}, 4);
    kh_attr_tensor(&c, "leaf_weights", &t_weights);
    kh_attr_ints(&c, "nodes_falseleafs", (int64_t[]){0, 0, 1}, 3);
    kh_attr_ints(&c, "nodes_falsenodeids", (int64_t[]){2, 0, 3}, 3);
    kh_attr_ints(&c, "nodes_featureids", (int64_t[]){0, 0, 0}, 3);
    kh_attr_tensor(&c, "nodes_modes", &t_modes);
    kh_attr_tensor(&c, "nodes_splits", &t_splits);
    kh_attr_ints(&c, "nodes_trueleafs", (int64_t[]){0, 1, 1}, 3);
    kh_attr_ints(&c, "nodes_truenodeids", (int64_t[]){1, 0, 1}, 3);
    kh_attr_ints(&c, "tree_roots", (int64_t[]){0}, 1);
    kh_input(&c, 0, KN_DOUBLE, DIMS(1, 1), (double[]){2});
    cr_assert_eq(run_direct(&c, ML, NULL, 1), KN_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(c.err.msg, "cycle"), "%s", c.err.msg);
    kh_free(&c);
    kh_init(&c, "TreeEnsemble", 5, 1, 1);
    kh_attr_int(&c, "n_targets", 2);
    kh_attr_ints(&c, "leaf_targetids", (int64_t[]){0, 1, 0, 1}, 4);
    kh_attr_tensor(&c, "leaf_weights", &t_weights);
    kh_attr_ints(&c, "nodes_falseleafs", (int64_t[]){0, 0, 1}, 3);
    kh_attr_ints(&c, "nodes_falsenodeids", (int64_t[]){2, 7, 3}, 3); /* no node 7 */
    kh_attr_ints(&c, "nodes_featureids", (int64_t[]){0, 0, 0}, 3);
    kh_attr_tensor(&c, "nodes_modes", &t_modes);
    kh_attr_tensor(&c, "nodes_splits", &t_splits);
    kh_attr_ints(&c, "nodes_trueleafs", (int64_t[]){0, 1, 1}, 3);
    kh_attr_ints(&c, "nodes_truenodeids", (int64_t[]){1, 0, 1}, 3);
    kh_attr_ints(&c, "tree_roots", (int64_t[]){0}, 1);
    kh_input(&c, 0, KN_DOUBLE, DIMS(1, 1), (double[]){2});
    cr_assert_eq(run_direct(&c, ML, NULL, 1), KN_ERR_INVALID_MODEL);
}

/* ---- ImageDecoder ---------------------------------------------------------- */

Test(misc, image_decoder)
{
    /* 2x2 24-bit BMP, rows bottom-up, BGR, padded to 4 bytes:
     * top red, green; bottom blue, white */
    static uint8_t bmp[70] = {'B', 'M', 70, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0,
                              2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 24, 0};
    static const uint8_t px[16] = {255, 0, 0, 255, 255, 255, 0, 0, 0, 0, 255, 0, 255, 0, 0, 0};
    memcpy(bmp + 54, px, 16);
    kh_init(&c, "ImageDecoder", 20, 1, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(70), bmp);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 2, 3));
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255});
    kh_free(&c);
    kh_init(&c, "ImageDecoder", 20, 1, 1);
    kh_attr_string(&c, "pixel_format", "Grayscale");
    kh_input(&c, 0, KN_UINT8, DIMS(70), bmp);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 2, 1));
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){76, 150, 29, 255});
    kh_free(&c);
    static const uint8_t ppm[] = "P6\n# comment\n2 1\n255\n\x0a\x14\x1e\x28\x32\x3c";
    kh_init(&c, "ImageDecoder", 20, 1, 1);
    kh_attr_string(&c, "pixel_format", "BGR");
    kh_input(&c, 0, KN_UINT8, DIMS(sizeof ppm - 1), ppm);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(1, 2, 3));
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){30, 20, 10, 60, 50, 40});
    kh_free(&c);
    static const uint8_t pgm[] = "P5 1 1 15\n\x0f"; /* maxval 15 scales to 255 */
    kh_init(&c, "ImageDecoder", 20, 1, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(sizeof pgm - 1), pgm);
    run_ok(&c);
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){255, 255, 255});
    kh_free(&c);
    kh_init(&c, "ImageDecoder", 20, 1, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(60), bmp);
    expect_fail(&c, KN_ERR_INVALID_ARGUMENT, "truncated");
    kh_free(&c);
    /* A PNG cut inside its header: corrupt, or, in a build without libpng,
     * unsupported naming the library (tests/test_codec.c decodes real ones). */
    static const uint8_t png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    kh_init(&c, "ImageDecoder", 20, 1, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(sizeof png - 1), png);
    int rc = kh_run(&c, 1);
    cr_assert(rc == KN_ERR_INVALID_ARGUMENT || rc == KN_ERR_UNSUPPORTED, "got %s (%s)",
              kn_status_name(rc), c.err.msg);
    const char *want = rc == KN_ERR_UNSUPPORTED ? "without libpng" : "ImageDecoder: PNG image";
    cr_assert(strstr(c.err.msg, want), "message '%s' lacks '%s'", c.err.msg, want);
    kh_free(&c);
    kh_init(&c, "ImageDecoder", 20, 1, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_UINT8, DIMS(70), bmp);
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "encoded_stream");
}
