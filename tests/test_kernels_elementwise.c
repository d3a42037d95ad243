/* Elementwise unary kernels (core/cpu/elementwise/unary.c): hand-computed values per op
 * and dtype, attributes, Clip across its opset versions, float16/bfloat16
 * through float, in-place runs (output memory = input memory), 1 vs 2
 * threads giving identical bits, and unsupported types. Binary ops are in
 * test_kernels_binary.c. */
#include "kernel_checks.h"

static kh_case c; /* one case per test; freed by the fini hook */
static void fini(void) { kh_free(&c); }
TestSuite(unary, .fini = fini);

static const int64_t D4[] = {4}, D8[] = {8};

static void unary_f32(const char *op, int64_t opset, const float *x, const float *want, int64_t n)
{
    int64_t dims[] = {n};
    kh_init(&c, op, opset, 1, 1);
    kh_input(&c, 0, KN_FLOAT, dims, 1, x);
    run_ok(&c);
    expect_f32(&c.out[0], want, n, 1e-6);
    kh_free(&c);
}

/* ---- unary ------------------------------------------------------------- */

Test(unary, activations)
{
    const float x[] = {-2.0f, -0.5f, 0.0f, 3.0f};
    unary_f32("Relu", 6, x, (float[]){0, 0, 0, 3}, 4);
    unary_f32("LeakyRelu", 16, x, (float[]){-0.02f, -0.005f, 0, 3}, 4);
    unary_f32("Sigmoid", 13, x,
              (float[]){0.11920292f, 0.37754067f, 0.5f, 0.95257413f}, 4);
    unary_f32("HardSigmoid", 6, x, (float[]){0.1f, 0.4f, 0.5f, 1.0f}, 4);
    unary_f32("HardSwish", 14, x, (float[]){-1.0f / 3, -0.5f * (2.5f / 6), 0, 3}, 4);
    unary_f32("Tanh", 13, x, (float[]){-0.96402758f, -0.46211716f, 0, 0.99505475f}, 4);
    unary_f32("Elu", 6, x, (float[]){-0.86466472f, -0.39346934f, 0, 3}, 4);
    unary_f32("Selu", 6, x,
              (float[]){-1.52016647f, -0.69175819f, 0, 3.15210307f}, 4);
    unary_f32("Softsign", 1, x, (float[]){-2.0f / 3, -1.0f / 3, 0, 0.75f}, 4);
    unary_f32("ThresholdedRelu", 10, x, (float[]){0, 0, 0, 3}, 4);
    unary_f32("Abs", 13, x, (float[]){2, 0.5f, 0, 3}, 4);
    unary_f32("Neg", 13, x, (float[]){2, 0.5f, -0.0f, -3}, 4);
    unary_f32("Sign", 13, x, (float[]){-1, -1, 0, 1}, 4);
    /* Softplus stays finite and exact-ish far from 0 */
    unary_f32("Softplus", 1, (float[]){-100, 0, 100, 1},
              (float[]){3.7200760e-44f, 0.69314718f, 100, 1.31326169f}, 4);
}

Test(unary, attributes)
{
    float x[] = {-2, -0.5f, 0, 3};
    kh_init(&c, "LeakyRelu", 6, 1, 1);
    kh_attr_float(&c, "alpha", 0.5f);
    kh_input(&c, 0, KN_FLOAT, D4, 1, x);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-1, -0.25f, 0, 3}, 4, 0);
    kh_free(&c);

    kh_init(&c, "HardSigmoid", 6, 1, 1);
    kh_attr_float(&c, "alpha", 0.5f);
    kh_attr_float(&c, "beta", 0.25f);
    kh_input(&c, 0, KN_FLOAT, D4, 1, x);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){0, 0, 0.25f, 1}, 4, 1e-7);
    kh_free(&c);

    kh_init(&c, "Elu", 6, 1, 1);
    kh_attr_float(&c, "alpha", 2.0f);
    kh_input(&c, 0, KN_FLOAT, D4, 1, x);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){2 * (expf(-2) - 1), 2 * (expf(-0.5f) - 1), 0, 3}, 4, 1e-6);
}

Test(unary, math)
{
    const float x[] = {0.25f, 1.0f, 2.5f, 9.0f};
    float want[4];
    for (int i = 0; i < 4; i++)
        want[i] = (float)exp(x[i]);
    unary_f32("Exp", 13, x, want, 4);
    for (int i = 0; i < 4; i++)
        want[i] = (float)log(x[i]);
    unary_f32("Log", 13, x, want, 4);
    unary_f32("Sqrt", 13, x, (float[]){0.5f, 1, 1.58113883f, 3}, 4);
    unary_f32("Reciprocal", 13, x, (float[]){4, 1, 0.4f, 1.0f / 9}, 4);
    for (int i = 0; i < 4; i++)
        want[i] = (float)erf(x[i]);
    unary_f32("Erf", 13, x, want, 4);
    for (int i = 0; i < 4; i++)
        want[i] = (float)sin(x[i]);
    unary_f32("Sin", 7, x, want, 4);
    for (int i = 0; i < 4; i++)
        want[i] = (float)cos(x[i]);
    unary_f32("Cos", 7, x, want, 4);
    const float r[] = {-1.5f, -0.5f, 0.5f, 2.5f};
    unary_f32("Floor", 13, r, (float[]){-2, -1, 0, 2}, 4);
    unary_f32("Ceil", 13, r, (float[]){-1, -0.0f, 1, 3}, 4);
    unary_f32("Round", 11, r, (float[]){-2, -0.0f, 0, 2}, 4); /* half to even */
    unary_f32("Log", 13, (float[]){0, -1, 1, INFINITY}, (float[]){-INFINITY, NAN, 0, INFINITY}, 4);
}

Test(unary, double_type)
{
    double x[] = {-1, 0, 0.5, 20};
    kh_init(&c, "Sigmoid", 13, 1, 1);
    kh_input(&c, 0, KN_DOUBLE, D4, 1, x);
    run_ok(&c);
    const double *y = c.out[0].data;
    cr_assert_eq(c.out[0].dtype, KN_DOUBLE);
    for (int i = 0; i < 4; i++)
        cr_assert(fabs(y[i] - 1 / (1 + exp(-x[i]))) < 1e-15, "[%d] = %.17g", i, y[i]);
}

Test(unary, integer_types)
{
    int32_t x[] = {-7, 0, 5, INT32_MIN};
    kh_init(&c, "Relu", 14, 1, 1);
    kh_input(&c, 0, KN_INT32, D4, 1, x);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT32, (int32_t[]){0, 0, 5, 0}, 4);
    kh_free(&c);
    /* integer Relu does not exist before opset 14 */
    kh_init(&c, "Relu", 13, 1, 1);
    kh_input(&c, 0, KN_INT32, D4, 1, x);
    cr_assert_eq(kh_run(&c, 1), KN_ERR_UNSUPPORTED);
    kh_free(&c);

    kh_init(&c, "Abs", 13, 1, 1);
    kh_input(&c, 0, KN_INT32, D4, 1, x);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT32, (int32_t[]){7, 0, 5, INT32_MIN}, 4); /* wraps, no UB */
    kh_free(&c);

    int8_t b[] = {-128, -1, 0, 127};
    kh_init(&c, "Neg", 13, 1, 1);
    kh_input(&c, 0, KN_INT8, D4, 1, b);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT8, (int8_t[]){-128, 1, 0, -127}, 4);
    kh_free(&c);

    uint8_t u[] = {0, 1, 200, 255};
    kh_init(&c, "Sign", 13, 1, 1);
    kh_input(&c, 0, KN_UINT8, D4, 1, u);
    run_ok(&c);
    expect_n(&c.out[0], KN_UINT8, (uint8_t[]){0, 1, 1, 1}, 4);
    kh_free(&c);

    kh_init(&c, "Sigmoid", 13, 1, 1);
    kh_input(&c, 0, KN_INT32, D4, 1, x);
    cr_assert_eq(kh_run(&c, 1), KN_ERR_UNSUPPORTED);
}

Test(unary, clip_versions)
{
    float x[] = {-3, -0.5f, 0.5f, 3};
    /* opset 6: attributes */
    kh_init(&c, "Clip", 6, 1, 1);
    kh_attr_float(&c, "min", -1);
    kh_attr_float(&c, "max", 1);
    kh_input(&c, 0, KN_FLOAT, D4, 1, x);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-1, -0.5f, 0.5f, 1}, 4, 0);
    kh_free(&c);
    /* opset 11: min input only (max omitted) */
    float lo = 0;
    kh_init(&c, "Clip", 11, 3, 1);
    kh_input(&c, 0, KN_FLOAT, D4, 1, x);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &lo);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){0, 0, 0.5f, 3}, 4, 0);
    kh_free(&c);
    /* opset 13: max only, bounds not constant at prepare time */
    float hi = 0.25f;
    kh_init(&c, "Clip", 13, 3, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_FLOAT, D4, 1, x);
    kh_input(&c, 2, KN_FLOAT, NULL, 0, &hi);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-3, -0.5f, 0.25f, 0.25f}, 4, 0);
    kh_free(&c);
    /* no bounds: identity, NaN passes through */
    kh_init(&c, "Clip", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, D4, 1, (float[]){NAN, -1e30f, 1e30f, 0});
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){NAN, -1e30f, 1e30f, 0}, 4, 0);
    kh_free(&c);
    /* opset 12: integers, both bounds */
    int64_t xi[] = {-5, 2, 9, INT64_MAX}, mn = 0, mx = 8;
    kh_init(&c, "Clip", 12, 3, 1);
    kh_input(&c, 0, KN_INT64, D4, 1, xi);
    kh_input(&c, 1, KN_INT64, NULL, 0, &mn);
    kh_input(&c, 2, KN_INT64, NULL, 0, &mx);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT64, (int64_t[]){0, 2, 8, 8}, 4);
    kh_free(&c);
    /* uint8 with only a max */
    uint8_t xu[] = {0, 100, 200, 255}, mxu = 150;
    kh_init(&c, "Clip", 13, 3, 1);
    kh_input(&c, 0, KN_UINT8, D4, 1, xu);
    kh_input(&c, 2, KN_UINT8, NULL, 0, &mxu);
    run_ok(&c);
    expect_n(&c.out[0], KN_UINT8, (uint8_t[]){0, 100, 150, 150}, 4);
    kh_free(&c);
    /* bound of another type */
    double bad = 1;
    kh_init(&c, "Clip", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, D4, 1, x);
    kh_input(&c, 1, KN_DOUBLE, NULL, 0, &bad);
    cr_assert_eq(kh_run(&c, 1), KN_ERR_DTYPE);
    cr_assert(strstr(c.err.msg, "Clip"), "%s", c.err.msg);
}

Test(unary, float16)
{
    float src[] = {-2, -0.5f, 0, 3, 1.5f, -1, 0.25f, 8};
    uint16_t h[8], b[8];
    for (int i = 0; i < 8; i++) {
        h[i] = kn_f32_to_f16(src[i]);
        b[i] = kn_f32_to_bf16(src[i]);
    }
    kh_init(&c, "Sigmoid", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT16, D8, 1, h);
    run_ok(&c);
    cr_assert_eq(c.out[0].dtype, KN_FLOAT16);
    for (int i = 0; i < 8; i++) {
        float got = kn_f16_to_f32(((uint16_t *)c.out[0].data)[i]);
        float want = 1 / (1 + expf(-src[i]));
        cr_assert(fabsf(got - want) < 1e-3f, "[%d] %g vs %g", i, got, want);
    }
    kh_free(&c);
    kh_init(&c, "Relu", 14, 1, 1);
    kh_input(&c, 0, KN_BFLOAT16, D8, 1, b);
    run_ok(&c);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(kn_bf16_to_f32(((uint16_t *)c.out[0].data)[i]), src[i] > 0 ? src[i] : 0);
}

/* Calls prepare and run directly with the output pointing at the input's
 * own memory, as the planner does for KN_OP_INPLACE kernels. */
static void run_inplace(const char *op, int64_t opset, int32_t dtype, void *data, int64_t n)
{
    int64_t dims[] = {n};
    kh_init(&c, op, opset, 1, 1);
    kh_input(&c, 0, dtype, dims, 1, data);
    const kn_op_def *def = kn_backend_kernel(&kn_backend_cpu, "", op, opset, dtype);
    cr_assert(def && (def->flags & KN_OP_INPLACE), "%s: no in-place kernel", op);
    kn_tensor *in[] = {&c.in[0]}, *out[] = {&c.out[0]};
    kn_kctx k = {.node = &c.node, .opset = opset, .n_in = 1, .n_out = 1, .in = in, .out = out,
                 .err = &c.err};
    cr_assert_eq(def->prepare(&k), KN_OK, "%s", c.err.msg);
    c.out[0].data = data;
    cr_assert_eq(def->run(&k), KN_OK, "%s", c.err.msg);
    if (def->release)
        def->release(&k);
    c.out[0].data = NULL;
}

Test(unary, in_place)
{
    enum { N = 1000 };
    float *x = malloc(N * sizeof *x);
    uint16_t *h = malloc(N * sizeof *h);
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i - 500) / 50;
        h[i] = kn_f32_to_f16(x[i]);
    }
    run_inplace("Tanh", 13, KN_FLOAT, x, N);
    for (int i = 0; i < N; i++)
        cr_assert(fabsf(x[i] - tanhf((float)(i - 500) / 50)) < 1e-6f, "[%d]", i);
    run_inplace("Relu", 14, KN_FLOAT16, h, N);
    for (int i = 0; i < N; i++) {
        float v = kn_f16_to_f32(kn_f32_to_f16((float)(i - 500) / 50));
        cr_assert_eq(kn_f16_to_f32(h[i]), v > 0 ? v : 0, "[%d]", i);
    }
    free(x);
    free(h);
}

Test(unary, threads_identical)
{
    enum { N = 100003 };
    float *x = malloc(N * sizeof *x);
    for (int i = 0; i < N; i++)
        x[i] = sinf((float)i) * 10;
    int64_t dims[] = {N};
    kh_init(&c, "Erf", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, dims, 1, x);
    run_both(&c);
    cr_assert_eq(((float *)c.out[0].data)[N - 1], erff(x[N - 1]));
    free(x);
}

Test(unary, gelu_and_shrink)
{
    const float x[] = {-2.0f, -0.5f, 0.0f, 3.0f};
    float want[4];
    for (int i = 0; i < 4; i++)
        want[i] = (float)(0.5 * x[i] * (1 + erf(x[i] / sqrt(2.0))));
    unary_f32("Gelu", 20, x, want, 4);
    for (int i = 0; i < 4; i++) {
        double v = x[i];
        want[i] = (float)(0.5 * v * (1 + tanh(sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
    }
    kh_init(&c, "Gelu", 20, 1, 1);
    kh_attr_string(&c, "approximate", "tanh");
    kh_input(&c, 0, KN_FLOAT, D4, 1, x);
    run_ok(&c);
    expect_f32(&c.out[0], want, 4, 1e-6);
    kh_free(&c);
    unary_f32("Shrink", 9, x, (float[]){-2, 0, 0, 3}, 4); /* lambd 0.5, bias 0 */
    kh_init(&c, "Shrink", 9, 1, 1);
    kh_attr_float(&c, "lambd", 1);
    kh_attr_float(&c, "bias", 0.5f);
    kh_input(&c, 0, KN_FLOAT, D4, 1, x);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-1.5f, 0, 0, 2.5f}, 4, 0);
}

Test(unary, predicates)
{
    float x[] = {NAN, -INFINITY, INFINITY, 1};
    kh_init(&c, "IsNaN", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, D4, 1, x);
    run_ok(&c);
    expect_n(&c.out[0], KN_BOOL, (uint8_t[]){1, 0, 0, 0}, 4);
    kh_free(&c);
    kh_init(&c, "IsInf", 10, 1, 1);
    kh_input(&c, 0, KN_FLOAT, D4, 1, x);
    run_ok(&c);
    expect_n(&c.out[0], KN_BOOL, (uint8_t[]){0, 1, 1, 0}, 4);
    kh_free(&c);
    kh_init(&c, "IsInf", 10, 1, 1);
    kh_attr_int(&c, "detect_positive", 0);
    kh_input(&c, 0, KN_DOUBLE, D4, 1, (double[]){NAN, -INFINITY, INFINITY, 1});
    run_ok(&c);
    expect_n(&c.out[0], KN_BOOL, (uint8_t[]){0, 1, 0, 0}, 4);
    kh_free(&c);
    uint16_t h[] = {kn_f32_to_f16(NAN), kn_f32_to_f16(1), kn_f32_to_f16(INFINITY), 0};
    kh_init(&c, "IsNaN", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT16, D4, 1, h);
    run_ok(&c);
    expect_n(&c.out[0], KN_BOOL, (uint8_t[]){1, 0, 0, 0}, 4);
    kh_free(&c);
    kh_init(&c, "Not", 1, 1, 1);
    kh_input(&c, 0, KN_BOOL, D4, 1, (uint8_t[]){1, 0, 0, 1});
    run_ok(&c);
    expect_n(&c.out[0], KN_BOOL, (uint8_t[]){0, 1, 1, 0}, 4);
}
