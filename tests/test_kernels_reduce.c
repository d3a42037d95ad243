/* Reduction-family kernels: Reduce*, ArgMax/ArgMin, the normalisations
 * (Layer, RMS, Instance, Group, LRN, MVN, Lp), the losses (NLL, softmax
 * cross-entropy), TopK, Einsum and Det. Values are worked out by hand from
 * the ONNX spec examples or from small naive references written here;
 * bigger random cases check 1 vs 2 threads give identical bits; error
 * cases check codes and messages. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_checks.h"

static uint32_t rng = 777;
static double urand(void) /* [-1, 1) */
{
    rng = rng * 1664525u + 1013904223u;
    return (double)(rng >> 8) / (double)(1u << 23) - 1.0;
}

static float *rand_f32(int64_t n)
{
    float *p = malloc((size_t)n * sizeof *p);
    for (int64_t i = 0; i < n; i++)
        p[i] = (float)urand();
    return p;
}

/* Runs with 2 threads, then 1 (leaving those outputs in c): every output
 * must be bit-identical. (kernel_checks.h's run_both checks output 0 only.) */
static void run_threads(kh_case *c)
{
    int rc = kh_run(c, 2);
    cr_assert_eq(rc, KN_OK, "%s (2 threads): %s", c->node.op_type, c->err.msg);
    kn_tensor two[KH_MAX_IO];
    for (int32_t i = 0; i < c->n_out; i++) {
        two[i] = c->out[i];
        c->out[i].data = NULL;
    }
    run_ok(c);
    for (int32_t i = 0; i < c->n_out; i++) {
        cr_assert(memcmp(two[i].data, c->out[i].data, (size_t)kn_tensor_nbytes(&two[i])) == 0,
                  "%s: 1 and 2 threads differ in output %d", c->node.op_type, (int)i);
        free(two[i].data);
    }
}

static void expect_f64(const kn_tensor *t, const double *want, int64_t n, double tol)
{
    cr_assert_eq(t->dtype, KN_DOUBLE);
    cr_assert_eq(kn_tensor_numel(t), n);
    const double *v = t->data;
    for (int64_t i = 0; i < n; i++)
        cr_assert(fabs(v[i] - want[i]) <= tol * (1 + fabs(want[i])),
                  "[%lld] = %.12g, expected %.12g", (long long)i, v[i], want[i]);
}

/* A one-input reduction with axes as attribute (opset < 18) or input. */
static void reduce_case(kh_case *c, const char *op, int64_t opset, int32_t dtype,
                        const int64_t *dims, int32_t rank, const void *x, const int64_t *axes,
                        int32_t n_axes, int keepdims)
{
    int axes_input = opset >= (strcmp(op, "ReduceSum") == 0 ? 13 : 18);
    kh_init(c, op, opset, axes_input && axes ? 2 : 1, 1);
    kh_input(c, 0, dtype, dims, rank, x);
    if (axes && axes_input)
        kh_input(c, 1, KN_INT64, (const int64_t[]){n_axes}, 1, axes);
    else if (axes)
        kh_attr_ints(c, "axes", axes, n_axes);
    if (keepdims >= 0)
        kh_attr_int(c, "keepdims", keepdims);
}

/* ---- Reduce* ------------------------------------------------------------ */

Test(reduce, spec_examples_every_op_and_axes_form)
{
    const float x[12] = {5, 1, 20, 2, 30, 1, 40, 2, 55, 1, 60, 2};
    const float y[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    static const struct {
        const char *op;
        int use_y;
        float want[6];
    } cases[] = {
        {"ReduceSum", 0, {25, 3, 70, 3, 115, 3}},
        {"ReduceMean", 0, {12.5f, 1.5f, 35, 1.5f, 57.5f, 1.5f}},
        {"ReduceMax", 0, {20, 2, 40, 2, 60, 2}},
        {"ReduceMin", 0, {5, 1, 30, 1, 55, 1}},
        {"ReduceProd", 0, {100, 2, 1200, 2, 3300, 2}},
        {"ReduceL1", 1, {4, 6, 12, 14, 20, 22}},
        {"ReduceL2", 1, {3.16227766f, 4.47213595f, 8.60232527f, 10, 14.2126704f, 15.62049935f}},
        {"ReduceSumSquare", 1, {10, 20, 74, 100, 202, 244}},
        {"ReduceLogSum", 1, {1.38629436f, 1.79175947f, 2.48490665f, 2.63905733f, 2.99573227f,
                             3.09104245f}},
        {"ReduceLogSumExp", 1, {3.12692801f, 4.12692801f, 7.12692801f, 8.12692801f,
                                11.12692801f, 12.12692801f}},
    };
    const int64_t axes[1] = {-2};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int64_t opset = 11; opset <= 18; opset += 7) {
            kh_case c;
            reduce_case(&c, cases[i].op, opset, KN_FLOAT, DIMS(3, 2, 2), cases[i].use_y ? y : x,
                        axes, 1, 1);
            run_threads(&c);
            expect_shape(&c.out[0], DIMS(3, 1, 2));
            expect_f32(&c.out[0], cases[i].want, 6, 1e-6);
            kh_free(&c);
        }
}

Test(reduce, non_adjacent_axes_all_axes_and_keepdims)
{
    float x[24];
    for (int i = 0; i < 24; i++)
        x[i] = (float)i;
    kh_case c;
    /* sum over i, k of 12i + 4j + k = 32j + 60 */
    reduce_case(&c, "ReduceSum", 13, KN_FLOAT, DIMS(2, 3, 4), x, (const int64_t[]){0, 2}, 2, 1);
    run_threads(&c);
    expect_shape(&c.out[0], DIMS(1, 3, 1));
    expect_f32(&c.out[0], (const float[]){60, 92, 124}, 3, 0);
    kh_free(&c);
    reduce_case(&c, "ReduceMax", 13, KN_FLOAT, DIMS(2, 3, 4), x, (const int64_t[]){2, 0}, 2, 0);
    run_threads(&c);
    expect_shape(&c.out[0], DIMS(3));
    expect_f32(&c.out[0], (const float[]){15, 19, 23}, 3, 0);
    kh_free(&c);
    /* No axes: everything, keepdims default 1. */
    reduce_case(&c, "ReduceSum", 13, KN_FLOAT, DIMS(2, 3, 4), x, NULL, 0, -1);
    run_threads(&c);
    expect_shape(&c.out[0], DIMS(1, 1, 1));
    expect_f32(&c.out[0], (const float[]){276}, 1, 0);
    kh_free(&c);
    reduce_case(&c, "ReduceMean", 18, KN_FLOAT, DIMS(2, 3, 4), x, NULL, 0, 0);
    run_threads(&c);
    expect_shape(&c.out[0], NULL, 0);
    expect_f32(&c.out[0], (const float[]){11.5f}, 1, 0);
    kh_free(&c);
    /* noop_with_empty_axes: identity; without it, all axes. */
    const int64_t none[1] = {0};
    kh_init(&c, "ReduceSum", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 4), x);
    kh_input(&c, 1, KN_INT64, DIMS(0), none);
    kh_attr_int(&c, "noop_with_empty_axes", 1);
    run_threads(&c);
    expect_shape(&c.out[0], DIMS(2, 3, 4));
    expect_f32(&c.out[0], x, 24, 0);
    kh_free(&c);
    kh_init(&c, "ReduceL1", 18, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 4), x);
    kh_input(&c, 1, KN_INT64, DIMS(0), none);
    run_threads(&c);
    expect_shape(&c.out[0], DIMS(1, 1, 1));
    expect_f32(&c.out[0], (const float[]){276}, 1, 0);
    kh_free(&c);
}

Test(reduce, empty_sets)
{
    float x[1] = {0};
    int32_t xi[1] = {0};
    static const struct {
        const char *op;
        float want;
    } cases[] = {
        {"ReduceSum", 0},          {"ReduceProd", 1},     {"ReduceMax", -INFINITY},
        {"ReduceMin", INFINITY},   {"ReduceL1", 0},       {"ReduceL2", 0},
        {"ReduceSumSquare", 0},    {"ReduceLogSum", -INFINITY},
        {"ReduceLogSumExp", -INFINITY},
    };
    const int64_t axes[1] = {1};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kh_case c;
        reduce_case(&c, cases[i].op, 18, KN_FLOAT, DIMS(2, 0, 4), x, axes, 1, 1);
        run_ok(&c);
        expect_shape(&c.out[0], DIMS(2, 1, 4));
        float want[8];
        for (int j = 0; j < 8; j++)
            want[j] = cases[i].want;
        expect_f32(&c.out[0], want, 8, 0);
        kh_free(&c);
    }
    kh_case c;
    reduce_case(&c, "ReduceMean", 18, KN_FLOAT, DIMS(2, 0, 4), x, axes, 1, 0);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 4));
    cr_assert(isnan(((float *)c.out[0].data)[0]));
    kh_free(&c);
    /* Integers without infinities: the type's extremes. */
    reduce_case(&c, "ReduceMax", 20, KN_INT32, DIMS(2, 0), xi, axes, 1, 0);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT32, (const int32_t[]){INT32_MIN, INT32_MIN}, 2);
    kh_free(&c);
    /* A kept dim of size 0: empty output. */
    reduce_case(&c, "ReduceSum", 13, KN_FLOAT, DIMS(0, 3), x, axes, 1, 1);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(0, 1));
    kh_free(&c);
}

Test(reduce, integer_bool_and_half_types)
{
    kh_case c;
    const int64_t ax0[1] = {0};
    /* int8 sums wrap like the element type; int64 stays exact. */
    reduce_case(&c, "ReduceSum", 13, KN_INT8, DIMS(2), (const int8_t[]){100, 100}, ax0, 1, 0);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT8, (const int8_t[]){-56}, 1);
    kh_free(&c);
    const int64_t big[2] = {((int64_t)1 << 62) + 1, (int64_t)1 << 62};
    reduce_case(&c, "ReduceSum", 13, KN_INT64, DIMS(2), big, ax0, 1, 0);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT64, (const int64_t[]){INT64_MIN + 1}, 1);
    kh_free(&c);
    reduce_case(&c, "ReduceMin", 18, KN_INT64, DIMS(2), big, ax0, 1, 0);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT64, (const int64_t[]){(int64_t)1 << 62}, 1);
    kh_free(&c);
    /* uint64 above 2^63 keeps its order. */
    const uint64_t u[3] = {1, UINT64_MAX - 1, (uint64_t)1 << 63};
    reduce_case(&c, "ReduceMax", 18, KN_UINT64, DIMS(3), u, ax0, 1, 0);
    run_ok(&c);
    expect_n(&c.out[0], KN_UINT64, (const uint64_t[]){UINT64_MAX - 1}, 1);
    kh_free(&c);
    reduce_case(&c, "ReduceMin", 18, KN_UINT64, DIMS(3), u, ax0, 1, 0);
    run_ok(&c);
    expect_n(&c.out[0], KN_UINT64, (const uint64_t[]){1}, 1);
    kh_free(&c);
    reduce_case(&c, "ReduceProd", 13, KN_INT32, DIMS(3), (const int32_t[]){-3, 4, 5}, ax0, 1, 0);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT32, (const int32_t[]){-60}, 1);
    kh_free(&c);
    reduce_case(&c, "ReduceL1", 13, KN_INT32, DIMS(3), (const int32_t[]){-3, 4, -5}, ax0, 1, 0);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT32, (const int32_t[]){12}, 1);
    kh_free(&c);
    /* Integer mean truncates toward zero. */
    reduce_case(&c, "ReduceMean", 13, KN_INT32, DIMS(2), (const int32_t[]){-3, 0}, ax0, 1, 0);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT32, (const int32_t[]){-1}, 1);
    kh_free(&c);
    /* bool Max is any, Min is all (opset 20). */
    const uint8_t b[4] = {1, 0, 0, 0};
    const int64_t ax1[1] = {1};
    reduce_case(&c, "ReduceMax", 20, KN_BOOL, DIMS(2, 2), b, ax1, 1, 0);
    run_ok(&c);
    expect_n(&c.out[0], KN_BOOL, (const uint8_t[]){1, 0}, 2);
    kh_free(&c);
    reduce_case(&c, "ReduceMin", 20, KN_BOOL, DIMS(2, 2), b, ax1, 1, 0);
    run_ok(&c);
    expect_n(&c.out[0], KN_BOOL, (const uint8_t[]){0, 0}, 2);
    kh_free(&c);
    /* float16 mean of 1, 2, 3, 4 = 2.5 (0x4100). */
    const uint16_t h[4] = {0x3c00, 0x4000, 0x4200, 0x4400};
    reduce_case(&c, "ReduceMean", 13, KN_FLOAT16, DIMS(4), h, ax0, 1, 0);
    run_ok(&c);
    expect_n(&c.out[0], KN_FLOAT16, (const uint16_t[]){0x4100}, 1);
    kh_free(&c);
    /* LogSumExp of large values does not overflow. */
    reduce_case(&c, "ReduceLogSumExp", 13, KN_DOUBLE, DIMS(2), (const double[]){1000, 1000}, ax0,
                1, 0);
    run_ok(&c);
    expect_f64(&c.out[0], (const double[]){1000.69314718055995}, 1, 1e-15);
    kh_free(&c);
}

/* Naive reference: sum over axis a of a 3-D tensor. */
static void ref_sum3(const float *x, const int64_t *d, int a, double *out)
{
    int64_t n = 0;
    for (int64_t i = 0; i < (a == 0 ? 1 : d[0]); i++)
        for (int64_t j = 0; j < (a == 1 ? 1 : d[1]); j++)
            for (int64_t k = 0; k < (a == 2 ? 1 : d[2]); k++, n++) {
                double s = 0;
                for (int64_t r = 0; r < d[a]; r++) {
                    int64_t ii = a == 0 ? r : i, jj = a == 1 ? r : j, kk = a == 2 ? r : k;
                    s += x[(ii * d[1] + jj) * d[2] + kk];
                }
                out[n] = s;
            }
}

Test(reduce, random_threads_and_every_axis)
{
    const int64_t d[3] = {37, 300, 21};
    float *x = rand_f32(37 * 300 * 21);
    double *ref = malloc(300 * 37 * 21 * sizeof *ref);
    for (int a = 0; a < 3; a++) {
        kh_case c;
        const int64_t axes[1] = {a};
        reduce_case(&c, "ReduceSum", 13, KN_FLOAT, d, 3, x, axes, 1, 0);
        run_threads(&c);
        ref_sum3(x, d, a, ref);
        int64_t n = 37 * 300 * 21 / d[a];
        const float *v = c.out[0].data;
        for (int64_t i = 0; i < n; i++)
            cr_assert(fabs(v[i] - ref[i]) < 1e-4, "axis %d [%lld]: %g vs %g", a, (long long)i, v[i],
                      ref[i]);
        kh_free(&c);
    }
    free(ref);
    free(x);
}

/* Every subset of axes of random small shapes (size-1 dims included),
 * against a naive reference that maps each input element to its output. */
Test(reduce, random_shapes_and_axes_against_naive)
{
    const char *ops[4] = {"ReduceSum", "ReduceMax", "ReduceL2", "ReduceLogSumExp"};
    for (int trial = 0; trial < 60; trial++) {
        int32_t rank = 1 + trial % 4;
        int64_t d[4], n = 1;
        for (int32_t i = 0; i < rank; i++)
            n *= d[i] = 1 + (int64_t)((urand() + 1) * 2.5);
        double *x = malloc((size_t)n * sizeof *x);
        for (int64_t i = 0; i < n; i++)
            x[i] = urand();
        for (int mask = 1; mask < (1 << rank); mask++) {
            int64_t axes[4], od[4], ostr[4], on = 1;
            int32_t na = 0;
            for (int32_t i = 0; i < rank; i++)
                if (mask >> i & 1)
                    axes[na++] = i;
            for (int32_t i = rank - 1; i >= 0; i--) {
                od[i] = mask >> i & 1 ? 1 : d[i];
                ostr[i] = on;
                on *= od[i];
            }
            double ref[4][256];
            for (int o = 0; o < 4; o++)
                for (int64_t i = 0; i < on; i++)
                    ref[o][i] = o == 1 ? -INFINITY : 0;
            for (int64_t e = 0; e < n; e++) {
                int64_t rest = e, oi = 0;
                for (int32_t i = rank - 1; i >= 0; i--) {
                    oi += (mask >> i & 1 ? 0 : rest % d[i]) * ostr[i];
                    rest /= d[i];
                }
                ref[0][oi] += x[e];
                ref[1][oi] = fmax(ref[1][oi], x[e]);
                ref[2][oi] += x[e] * x[e];
                ref[3][oi] += exp(x[e]);
            }
            for (int o = 0; o < 4; o++) {
                for (int64_t i = 0; i < on && o >= 2; i++)
                    ref[o][i] = o == 2 ? sqrt(ref[o][i]) : log(ref[o][i]);
                kh_case c;
                reduce_case(&c, ops[o], 18, KN_DOUBLE, d, rank, x, axes, na, 1);
                run_ok(&c);
                expect_shape(&c.out[0], od, rank);
                expect_f64(&c.out[0], ref[o], on, 1e-12);
                kh_free(&c);
            }
        }
        free(x);
    }
}

Test(reduce, errors)
{
    float x[6] = {0};
    kh_case c;
    reduce_case(&c, "ReduceSum", 11, KN_FLOAT, DIMS(2, 3), x, (const int64_t[]){2}, 1, 1);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "axis 2 out of range");
    reduce_case(&c, "ReduceMax", 11, KN_FLOAT, DIMS(2, 3), x, (const int64_t[]){1, -1}, 2, 1);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "given twice");
    /* axes computed at run time: the output shape needs their value */
    reduce_case(&c, "ReduceMean", 18, KN_FLOAT, DIMS(2, 3), x, (const int64_t[]){1}, 1, 1);
    c.inputs_constant_in_prepare = 0;
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "value of input 'axes'");
    /* bool only for Max/Min: no kernel is registered for a bool ReduceSum */
    reduce_case(&c, "ReduceSum", 13, KN_BOOL, DIMS(6), x, NULL, 0, 1);
    expect_fail(&c, KN_ERR_UNSUPPORTED, "bool");
}

/* ---- ArgMax / ArgMin ---------------------------------------------------- */

Test(argminmax, spec_examples_ties_nan_and_errors)
{
    const float x[4] = {2, 1, 3, 10}, ties[4] = {2, 2, 3, 10};
    kh_case c;
    kh_init(&c, "ArgMax", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 2), x);
    run_threads(&c);
    expect_shape(&c.out[0], DIMS(1, 2));
    expect_data(&c.out[0], KN_INT64, (const int64_t[]){1, 1});
    kh_free(&c);
    kh_init(&c, "ArgMin", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 2), x);
    kh_attr_int(&c, "axis", -1);
    kh_attr_int(&c, "keepdims", 0);
    run_threads(&c);
    expect_shape(&c.out[0], DIMS(2));
    expect_data(&c.out[0], KN_INT64, (const int64_t[]){1, 0});
    kh_free(&c);
    for (int last = 0; last < 2; last++) {
        kh_init(&c, "ArgMax", 12, 1, 1);
        kh_input(&c, 0, KN_FLOAT, DIMS(2, 2), ties);
        kh_attr_int(&c, "axis", 1);
        kh_attr_int(&c, "select_last_index", last);
        run_ok(&c);
        expect_data(&c.out[0], KN_INT64, last ? (const int64_t[]){1, 1} : (const int64_t[]){0, 1});
        kh_free(&c);
    }
    /* NaN is the extreme both ways; int64 compares exactly. */
    const float nanx[3] = {1, NAN, 5};
    kh_init(&c, "ArgMax", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), nanx);
    run_ok(&c);
    expect_data(&c.out[0], KN_INT64, (const int64_t[]){1});
    kh_free(&c);
    const int64_t big[3] = {((int64_t)1 << 60) + 1, ((int64_t)1 << 60) + 3, ((int64_t)1 << 60) + 2};
    kh_init(&c, "ArgMax", 13, 1, 1);
    kh_input(&c, 0, KN_INT64, DIMS(3), big);
    run_ok(&c);
    expect_data(&c.out[0], KN_INT64, (const int64_t[]){1});
    kh_free(&c);
    kh_init(&c, "ArgMin", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 2), x);
    kh_attr_int(&c, "axis", 2);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "axis 2 out of range");
    kh_init(&c, "ArgMax", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 0), x);
    kh_attr_int(&c, "axis", 1);
    expect_fail(&c, KN_ERR_SHAPE, "size 0");
}

Test(argminmax, random_strided_threads)
{
    float *x = rand_f32(50 * 40 * 70);
    kh_case c;
    kh_init(&c, "ArgMin", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(50, 40, 70), x);
    kh_attr_int(&c, "axis", 1);
    run_threads(&c);
    const int64_t *y = c.out[0].data;
    for (int64_t o = 0; o < 50; o++)
        for (int64_t i = 0; i < 70; i++) {
            int64_t best = 0;
            for (int64_t r = 1; r < 40; r++)
                if (x[(o * 40 + r) * 70 + i] < x[(o * 40 + best) * 70 + i])
                    best = r;
            cr_assert_eq(y[o * 70 + i], best);
        }
    kh_free(&c);
    free(x);
}

/* ---- losses ------------------------------------------------------------- */

/* The NLL spec example: N=2, C=3, d1=2. */
static const float nll_x[12] = {1, 2, 2, 2, 3, 2, 0, 1, 2, 2, 1, 2};
static const int64_t nll_t[4] = {2, 1, 0, 2};
static const float nll_w[3] = {0.2f, 0.3f, 0.1f};

static void nll_case(kh_case *c, const char *red, int weighted)
{
    kh_init(c, "NegativeLogLikelihoodLoss", 13, weighted ? 3 : 2, 1);
    kh_input(c, 0, KN_FLOAT, DIMS(2, 3, 2), nll_x);
    kh_input(c, 1, KN_INT64, DIMS(2, 2), nll_t);
    if (weighted)
        kh_input(c, 2, KN_FLOAT, DIMS(3), nll_w);
    kh_attr_string(c, "reduction", red);
}

Test(loss, nll_spec_examples)
{
    kh_case c;
    nll_case(&c, "none", 0);
    run_threads(&c);
    expect_shape(&c.out[0], DIMS(2, 2));
    expect_f32(&c.out[0], (const float[]){-3, -2, -0.0f, -2}, 4, 1e-7);
    kh_free(&c);
    nll_case(&c, "sum", 1);
    run_threads(&c);
    expect_shape(&c.out[0], NULL, 0);
    expect_f32(&c.out[0], (const float[]){-1.1f}, 1, 1e-6);
    kh_free(&c);
    nll_case(&c, "mean", 1); /* -1.1 / (0.1 + 0.3 + 0.2 + 0.1) */
    run_threads(&c);
    expect_f32(&c.out[0], (const float[]){-1.5714286f}, 1, 1e-6);
    kh_free(&c);
    /* ignore_index 2 drops positions 0 and 3: mean = (-2 - 0) / 2 */
    nll_case(&c, "mean", 0);
    kh_attr_int(&c, "ignore_index", 2);
    run_threads(&c);
    expect_f32(&c.out[0], (const float[]){-1}, 1, 1e-7);
    kh_free(&c);
    /* A target outside [0, C) that is not ignored fails at run time. */
    const int64_t bad[4] = {2, 3, 0, 2};
    kh_init(&c, "NegativeLogLikelihoodLoss", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 2), nll_x);
    kh_input(&c, 1, KN_INT64, DIMS(2, 2), bad);
    expect_fail(&c, KN_ERR_INVALID_ARGUMENT, "target 3");
    kh_free(&c);
    kh_init(&c, "NegativeLogLikelihoodLoss", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 2), nll_x);
    kh_input(&c, 1, KN_INT64, DIMS(2, 3), nll_t);
    expect_fail(&c, KN_ERR_SHAPE, "does not match");
}

Test(loss, softmax_cross_entropy)
{
    /* log_softmax([1, 2, 3]) = [1, 2, 3] - 3.40760596 */
    const float x[6] = {1, 2, 3, 3, 2, 1};
    const int64_t t[2] = {2, 1};
    kh_case c;
    kh_init(&c, "SoftmaxCrossEntropyLoss", 13, 2, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), x);
    kh_input(&c, 1, KN_INT64, DIMS(2), t);
    kh_attr_string(&c, "reduction", "none");
    run_threads(&c);
    expect_f32(&c.out[0], (const float[]){0.40760596f, 1.40760596f}, 2, 1e-6);
    expect_f32(&c.out[1],
               (const float[]){-2.40760596f, -1.40760596f, -0.40760596f, -0.40760596f,
                               -1.40760596f, -2.40760596f},
               6, 1e-6);
    kh_free(&c);
    /* Weighted mean: (0.40760596 * 3 + 1.40760596 * 2) / (3 + 2) */
    kh_init(&c, "SoftmaxCrossEntropyLoss", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), x);
    kh_input(&c, 1, KN_INT64, DIMS(2), t);
    kh_input(&c, 2, KN_FLOAT, DIMS(3), (const float[]){1, 2, 3});
    run_threads(&c);
    expect_f32(&c.out[0], (const float[]){0.80760596f}, 1, 1e-6);
    kh_free(&c);
    kh_init(&c, "SoftmaxCrossEntropyLoss", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), x);
    kh_input(&c, 1, KN_INT64, DIMS(2), t);
    kh_attr_string(&c, "reduction", "average");
    expect_fail(&c, KN_ERR_INVALID_MODEL, "reduction 'average'");
}

/* ---- normalisations ----------------------------------------------------- */

Test(norm, layer_and_rms)
{
    const float x[4] = {1, 2, 3, 4}, one[4] = {1, 1, 1, 1}, zero[4] = {0};
    kh_case c;
    kh_init(&c, "LayerNormalization", 17, 3, 3);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 4), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(4), one);
    kh_input(&c, 2, KN_FLOAT, DIMS(4), zero);
    run_threads(&c);
    /* mean 2.5, var 1.25, 1/sqrt(1.25 + 1e-5) = 0.89442361 */
    expect_f32(&c.out[0], (const float[]){-1.3416354f, -0.4472118f, 0.4472118f, 1.3416354f}, 4,
               1e-6);
    expect_shape(&c.out[1], DIMS(1, 1));
    expect_f32(&c.out[1], (const float[]){2.5f}, 1, 1e-7);
    expect_f32(&c.out[2], (const float[]){0.89442361f}, 1, 1e-6);
    kh_free(&c);
    /* Scale broadcast over leading dims: [2] applies along the last axis of [2, 2]. */
    kh_init(&c, "LayerNormalization", 17, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 2), (const float[]){2, 3});
    kh_attr_int(&c, "axis", 0);
    kh_attr_float(&c, "epsilon", 0);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){-2.6832816f, -1.3416408f, 0.8944272f, 4.0249224f}, 4,
               1e-6);
    kh_free(&c);
    kh_init(&c, "RMSNormalization", 23, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 4), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(4), (const float[]){1, 1, 1, 2});
    run_threads(&c);
    /* mean of squares 7.5: 1/sqrt(7.5 + 1e-5) = 0.36514813 */
    expect_f32(&c.out[0], (const float[]){0.36514813f, 0.73029626f, 1.0954444f, 2.9211850f}, 4,
               1e-6);
    kh_free(&c);
    kh_init(&c, "LayerNormalization", 17, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(3), one);
    expect_fail(&c, KN_ERR_SHAPE, "scale dim 0 is 3");
}

Test(norm, instance_and_group)
{
    /* InstanceNormalization spec example. */
    const float x[6] = {-1, 0, 1, 2, 3, 4};
    kh_case c;
    kh_init(&c, "InstanceNormalization", 6, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 1, 3), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(2), (const float[]){1, 1.5f});
    kh_input(&c, 2, KN_FLOAT, DIMS(2), (const float[]){0, 1});
    run_threads(&c);
    expect_f32(&c.out[0], (const float[]){-1.2247357f, 0, 1.2247357f, -0.8371035f, 1, 2.8371035f},
               6, 1e-6);
    kh_free(&c);
    /* Groups {1, 2} and {3, 4}: normalised to -1, 1 (up to epsilon). */
    const float g[4] = {1, 2, 3, 4};
    kh_init(&c, "GroupNormalization", 21, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 4, 1), g);
    kh_input(&c, 1, KN_FLOAT, DIMS(4), (const float[]){1, 2, 3, 4});
    kh_input(&c, 2, KN_FLOAT, DIMS(4), (const float[]){0, 0, 0, 1});
    kh_attr_int(&c, "num_groups", 2);
    kh_attr_float(&c, "epsilon", 0);
    run_threads(&c);
    expect_f32(&c.out[0], (const float[]){-1, 2, -3, 5}, 4, 1e-6);
    kh_free(&c);
    /* Opset 18 scales per group. */
    kh_init(&c, "GroupNormalization", 18, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 4, 1), g);
    kh_input(&c, 1, KN_FLOAT, DIMS(2), (const float[]){1, 2});
    kh_input(&c, 2, KN_FLOAT, DIMS(2), (const float[]){0, 1});
    kh_attr_int(&c, "num_groups", 2);
    kh_attr_float(&c, "epsilon", 0);
    run_threads(&c);
    expect_f32(&c.out[0], (const float[]){-1, 1, -1, 3}, 4, 1e-6);
    kh_free(&c);
    kh_init(&c, "GroupNormalization", 21, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 4, 1), g);
    kh_input(&c, 1, KN_FLOAT, DIMS(4), g);
    kh_input(&c, 2, KN_FLOAT, DIMS(4), g);
    kh_attr_int(&c, "num_groups", 3);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "divide C=4");
}

Test(norm, lrn_mvn_lp)
{
    kh_case c;
    /* alpha / size = 1: windows {0,1}, {0,1,2}, {1,2} */
    kh_init(&c, "LRN", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 3, 1, 1), (const float[]){1, 2, 3});
    kh_attr_int(&c, "size", 3);
    kh_attr_float(&c, "alpha", 3);
    kh_attr_float(&c, "beta", 1);
    kh_attr_float(&c, "bias", 1);
    run_threads(&c);
    expect_f32(&c.out[0], (const float[]){1.0f / 6, 2.0f / 15, 3.0f / 14}, 3, 1e-6);
    kh_free(&c);
    kh_init(&c, "LRN", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 3, 1, 1), (const float[]){1, 2, 3});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "'size'");
    /* Per channel: [1, 3] and [2, 6] both become [-1, 1]. */
    kh_init(&c, "MeanVarianceNormalization", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 1, 2), (const float[]){1, 3, 2, 6});
    run_threads(&c);
    expect_f32(&c.out[0], (const float[]){-1, 1, -1, 1}, 4, 1e-6);
    kh_free(&c);
    /* Over the last axis only. */
    kh_init(&c, "MeanVarianceNormalization", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 2), (const float[]){1, 3, 2, 6});
    kh_attr_ints(&c, "axes", (const int64_t[]){0}, 1);
    run_threads(&c);
    expect_f32(&c.out[0], (const float[]){-1, -1, 1, 1}, 4, 1e-6);
    kh_free(&c);
    for (int p = 1; p <= 2; p++) {
        kh_init(&c, "LpNormalization", 1, 1, 1);
        kh_input(&c, 0, KN_FLOAT, DIMS(2, 2), (const float[]){3, 4, -6, 8});
        kh_attr_int(&c, "p", p);
        run_threads(&c);
        if (p == 1)
            expect_f32(&c.out[0], (const float[]){3.0f / 7, 4.0f / 7, -6.0f / 14, 8.0f / 14}, 4,
                       1e-6);
        else
            expect_f32(&c.out[0], (const float[]){0.6f, 0.8f, -0.6f, 0.8f}, 4, 1e-6);
        kh_free(&c);
    }
    /* A zero vector stays zero. */
    kh_init(&c, "LpNormalization", 22, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 2), (const float[]){0, 4, 0, 3});
    kh_attr_int(&c, "axis", 0);
    run_threads(&c);
    expect_f32(&c.out[0], (const float[]){0, 0.8f, 0, 0.6f}, 4, 1e-6);
    kh_free(&c);
    kh_init(&c, "LpNormalization", 1, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 2), (const float[]){3, 4, -6, 8});
    kh_attr_int(&c, "p", 3);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "p must be 1 or 2");
}

/* ---- TopK --------------------------------------------------------------- */

Test(topk, values_indices_ties_and_errors)
{
    float x[12];
    for (int i = 0; i < 12; i++)
        x[i] = (float)i;
    kh_case c;
    const int64_t k3[1] = {3};
    kh_init(&c, "TopK", 11, 2, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 4), x);
    kh_input(&c, 1, KN_INT64, DIMS(1), k3);
    run_threads(&c);
    expect_shape(&c.out[0], DIMS(3, 3));
    expect_f32(&c.out[0], (const float[]){3, 2, 1, 7, 6, 5, 11, 10, 9}, 9, 0);
    expect_data(&c.out[1], KN_INT64, (const int64_t[]){3, 2, 1, 3, 2, 1, 3, 2, 1});
    kh_free(&c);
    /* Smallest along axis 0 (strided). */
    const int64_t k2[1] = {2};
    kh_init(&c, "TopK", 11, 2, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 4), x);
    kh_input(&c, 1, KN_INT64, DIMS(1), k2);
    kh_attr_int(&c, "axis", 0);
    kh_attr_int(&c, "largest", 0);
    run_threads(&c);
    expect_f32(&c.out[0], (const float[]){0, 1, 2, 3, 4, 5, 6, 7}, 8, 0);
    expect_data(&c.out[1], KN_INT64, (const int64_t[]){0, 0, 0, 0, 1, 1, 1, 1});
    kh_free(&c);
    /* Ties keep the lower index first, largest or smallest. */
    const int64_t t[5] = {1, 3, 3, 1, 3};
    for (int largest = 0; largest < 2; largest++) {
        kh_init(&c, "TopK", 11, 2, 2);
        kh_input(&c, 0, KN_INT64, DIMS(5), t);
        kh_input(&c, 1, KN_INT64, DIMS(1), k3);
        kh_attr_int(&c, "largest", largest);
        run_ok(&c);
        expect_data(&c.out[0], KN_INT64,
                    largest ? (const int64_t[]){3, 3, 3} : (const int64_t[]){1, 1, 3});
        expect_data(&c.out[1], KN_INT64,
                    largest ? (const int64_t[]){1, 2, 4} : (const int64_t[]){0, 3, 1});
        kh_free(&c);
    }
    /* uint64 above 2^63; opset 1 takes k as an attribute. */
    const uint64_t u[3] = {5, UINT64_MAX, (uint64_t)1 << 63};
    kh_init(&c, "TopK", 1, 1, 2);
    kh_input(&c, 0, KN_UINT64, DIMS(3), u);
    kh_attr_int(&c, "k", 2);
    run_ok(&c);
    expect_data(&c.out[0], KN_UINT64, (const uint64_t[]){UINT64_MAX, (uint64_t)1 << 63});
    expect_data(&c.out[1], KN_INT64, (const int64_t[]){1, 2});
    kh_free(&c);
    const int64_t k5[1] = {5};
    kh_init(&c, "TopK", 11, 2, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 4), x);
    kh_input(&c, 1, KN_INT64, DIMS(1), k5);
    expect_fail(&c, KN_ERR_SHAPE, "K = 5");
    kh_init(&c, "TopK", 11, 2, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 4), x);
    kh_input(&c, 1, KN_INT64, DIMS(1), k3);
    c.inputs_constant_in_prepare = 0;
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "input 'K'");
}

Test(topk, random_against_sort)
{
    float *x = rand_f32(64 * 500);
    const int64_t k[1] = {17};
    kh_case c;
    kh_init(&c, "TopK", 11, 2, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(64, 500), x);
    kh_input(&c, 1, KN_INT64, DIMS(1), k);
    run_threads(&c);
    const float *v = c.out[0].data;
    const int64_t *ix = c.out[1].data;
    for (int r = 0; r < 64; r++) {
        for (int i = 0; i < 17; i++) {
            cr_assert_eq(v[r * 17 + i], x[r * 500 + ix[r * 17 + i]]);
            if (i)
                cr_assert(v[r * 17 + i] <= v[r * 17 + i - 1]);
        }
        int above = 0; /* exactly 16 elements exceed the 17th largest */
        for (int j = 0; j < 500; j++)
            above += x[r * 500 + j] > v[r * 17 + 16];
        cr_assert_eq(above, 16);
    }
    kh_free(&c);
    free(x);
}

/* ---- Einsum ------------------------------------------------------------- */

static void einsum1(kh_case *c, const char *eq, int32_t dtype, const int64_t *d, int32_t r,
                    const void *x)
{
    kh_init(c, "Einsum", 12, 1, 1);
    kh_input(c, 0, dtype, d, r, x);
    kh_attr_string(c, "equation", eq);
}

static void einsum2(kh_case *c, const char *eq, const int64_t *da, int32_t ra, const double *a,
                    const int64_t *db, int32_t rb, const double *b)
{
    kh_init(c, "Einsum", 12, 2, 1);
    kh_input(c, 0, KN_DOUBLE, da, ra, a);
    kh_input(c, 1, KN_DOUBLE, db, rb, b);
    kh_attr_string(c, "equation", eq);
}

Test(einsum, single_operand_forms)
{
    const double m[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    kh_case c;
    einsum1(&c, "ii->i", KN_DOUBLE, DIMS(3, 3), m);
    run_threads(&c);
    expect_f64(&c.out[0], (const double[]){1, 5, 9}, 3, 0);
    kh_free(&c);
    einsum1(&c, "ii", KN_DOUBLE, DIMS(3, 3), m); /* implicit: trace */
    run_threads(&c);
    expect_shape(&c.out[0], NULL, 0);
    expect_f64(&c.out[0], (const double[]){15}, 1, 0);
    kh_free(&c);
    einsum1(&c, "ij -> ji", KN_DOUBLE, DIMS(3, 3), m);
    run_threads(&c);
    expect_f64(&c.out[0], (const double[]){1, 4, 7, 2, 5, 8, 3, 6, 9}, 9, 0);
    kh_free(&c);
    einsum1(&c, "ba", KN_DOUBLE, DIMS(3, 3), m); /* implicit output sorts: "ab" = transpose */
    run_threads(&c);
    expect_f64(&c.out[0], (const double[]){1, 4, 7, 2, 5, 8, 3, 6, 9}, 9, 0);
    kh_free(&c);
    einsum1(&c, "...ii->...i", KN_DOUBLE, DIMS(1, 3, 3), m);
    run_threads(&c);
    expect_shape(&c.out[0], DIMS(1, 3));
    expect_f64(&c.out[0], (const double[]){1, 5, 9}, 3, 0);
    kh_free(&c);
    const int32_t mi[6] = {1, 2, 3, 4, 5, 6};
    einsum1(&c, "ij->j", KN_INT32, DIMS(2, 3), mi);
    run_threads(&c);
    expect_n(&c.out[0], KN_INT32, (const int32_t[]){5, 7, 9}, 3);
    kh_free(&c);
}

Test(einsum, contractions)
{
    const double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 2, 1, 0, 3};
    kh_case c;
    /* [[1,2,3],[4,5,6]] x [[1,0],[2,1],[0,3]] = [[5,11],[14,23]] */
    einsum2(&c, "ij,jk->ik", DIMS(2, 3), a, DIMS(3, 2), b);
    run_threads(&c);
    expect_f64(&c.out[0], (const double[]){5, 11, 14, 23}, 4, 0);
    kh_free(&c);
    einsum2(&c, "ij,jk", DIMS(2, 3), a, DIMS(3, 2), b); /* implicit */
    run_threads(&c);
    expect_f64(&c.out[0], (const double[]){5, 11, 14, 23}, 4, 0);
    kh_free(&c);
    einsum2(&c, "ij,jk->ki", DIMS(2, 3), a, DIMS(3, 2), b);
    run_threads(&c);
    expect_f64(&c.out[0], (const double[]){5, 14, 11, 23}, 4, 0);
    kh_free(&c);
    einsum2(&c, "i,i", DIMS(6), a, DIMS(6), b); /* 1 + 0 + 6 + 4 + 0 + 18 */
    run_threads(&c);
    expect_f64(&c.out[0], (const double[]){29}, 1, 0);
    kh_free(&c);
    /* i summed inside A alone: the direct loop. sum_i a[i][j] * b[j] */
    einsum2(&c, "ij,j->", DIMS(2, 3), a, DIMS(3), b);
    run_threads(&c);
    expect_f64(&c.out[0], (const double[]){5 * 1 + 7 * 0 + 9 * 2}, 1, 0);
    kh_free(&c);
    /* Ellipsis broadcast: A [2, 1, 3] batches against B [3] */
    einsum2(&c, "...j,j->...", DIMS(2, 1, 3), a, DIMS(3), b);
    run_threads(&c);
    expect_shape(&c.out[0], DIMS(2, 1));
    expect_f64(&c.out[0], (const double[]){7, 16}, 2, 0);
    kh_free(&c);
    /* Three operands: outer product */
    kh_init(&c, "Einsum", 12, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2), (const float[]){1, 2});
    kh_input(&c, 1, KN_FLOAT, DIMS(2), (const float[]){3, 4});
    kh_input(&c, 2, KN_FLOAT, DIMS(1), (const float[]){10});
    kh_attr_string(&c, "equation", "i,j,k->ijk");
    run_threads(&c);
    expect_f32(&c.out[0], (const float[]){30, 40, 60, 80}, 4, 0);
    kh_free(&c);
}

Test(einsum, batched_gemm_against_naive)
{
    int64_t B = 3, M = 17, K = 29, N = 23;
    double *a = malloc((size_t)(B * M * K) * sizeof *a);
    double *b = malloc((size_t)(B * K * N) * sizeof *b);
    for (int64_t i = 0; i < B * M * K; i++)
        a[i] = urand();
    for (int64_t i = 0; i < B * K * N; i++)
        b[i] = urand();
    kh_case c;
    /* B's operand is stored [k][b][n]: a permuted gather. */
    einsum2(&c, "bmk,kbn->mbn", (const int64_t[]){B, M, K}, 3, a, (const int64_t[]){K, B, N}, 3, b);
    run_threads(&c);
    const double *y = c.out[0].data;
    for (int64_t m = 0; m < M; m++)
        for (int64_t bb = 0; bb < B; bb++)
            for (int64_t n = 0; n < N; n++) {
                double s = 0;
                for (int64_t k = 0; k < K; k++)
                    s += a[(bb * M + m) * K + k] * b[(k * B + bb) * N + n];
                cr_assert(fabs(y[(m * B + bb) * N + n] - s) < 1e-12);
            }
    kh_free(&c);
    free(a);
    free(b);
}

Test(einsum, errors)
{
    const double m[4] = {1, 2, 3, 4};
    kh_case c;
    einsum1(&c, "ijk->i", KN_DOUBLE, DIMS(2, 2), m);
    expect_fail(&c, KN_ERR_SHAPE, "rank 2");
    einsum1(&c, "ij,jk->ik", KN_DOUBLE, DIMS(2, 2), m);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "one term per operand");
    einsum1(&c, "ij->iz", KN_DOUBLE, DIMS(2, 2), m);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "names one no operand has");
    einsum1(&c, "i.j", KN_DOUBLE, DIMS(2, 2), m);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "malformed ellipsis");
    einsum2(&c, "ij,jk->ik", DIMS(2, 2), m, DIMS(3, 1), m);
    expect_fail(&c, KN_ERR_SHAPE, "size 3 in operand 1");
}

/* ---- Det ---------------------------------------------------------------- */

Test(det, values_pivoting_and_errors)
{
    kh_case c;
    const float m[12] = {1, 2, 3, 4, 1, 2, 2, 1, 1, 3, 3, 1};
    kh_init(&c, "Det", 11, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 2, 2), m);
    run_threads(&c);
    expect_shape(&c.out[0], DIMS(3));
    expect_f32(&c.out[0], (const float[]){-2, -3, -8}, 3, 1e-6);
    kh_free(&c);
    /* A zero first pivot needs a row swap; det = -2 by cofactors. */
    const double p[9] = {0, 1, 2, 1, 0, 3, 4, -3, 8};
    kh_init(&c, "Det", 11, 1, 1);
    kh_input(&c, 0, KN_DOUBLE, DIMS(3, 3), p);
    run_ok(&c);
    expect_shape(&c.out[0], NULL, 0);
    expect_f64(&c.out[0], (const double[]){-2}, 1, 1e-14);
    kh_free(&c);
    const double sing[4] = {1, 2, 2, 4};
    kh_init(&c, "Det", 11, 1, 1);
    kh_input(&c, 0, KN_DOUBLE, DIMS(2, 2), sing);
    run_ok(&c);
    expect_f64(&c.out[0], (const double[]){0}, 1, 0);
    kh_free(&c);
    kh_init(&c, "Det", 11, 1, 1);
    kh_input(&c, 0, KN_DOUBLE, DIMS(2, 3), p);
    expect_fail(&c, KN_ERR_SHAPE, "not a batch of square matrices");
}
