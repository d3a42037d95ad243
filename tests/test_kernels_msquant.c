/* The com.microsoft quantized ops of QOperator models (core/cpu/quant/ms_*.c):
 * hand-computed values for each op (ties rounded half to even, saturation at
 * both ends, uint8 and int8, broadcasting, channels_last, per-column
 * scales), constant and run-time scales giving the same bytes, random data
 * against naive references written here (1 and 2 threads bit-identical),
 * and the errors a malformed node gets. */
#include "kernel_checks.h"

#define MS_DOMAIN "com.microsoft"
#define MS_MAX_IN 16

/* A node of the com.microsoft domain with up to MS_MAX_IN inputs (QGemm has
 * 9, QLinearConcat 2 + 3 per tensor): kh_case holds the node and its
 * attributes, the inputs live here. */
static kh_case c;
static kn_tensor ins[MS_MAX_IN];
static int32_t ids[MS_MAX_IN];
static kn_tensor out;
static kn_err err;

static void fini(void)
{
    free(out.data);
    out.data = NULL;
}
TestSuite(qbinary, .fini = fini);
TestSuite(qlookup, .fini = fini);
TestSuite(qpool, .fini = fini);
TestSuite(qconcat, .fini = fini);
TestSuite(qsoftmax, .fini = fini);
TestSuite(qgemm, .fini = fini);
TestSuite(qmatmul_float, .fini = fini);
TestSuite(qattention, .fini = fini);
TestSuite(qdq, .fini = fini);
TestSuite(qerrors, .fini = fini);

static void ms_init(const char *op, int32_t n_in)
{
    fini();
    kh_init(&c, op, 1, 0, 1);
    c.node.domain = MS_DOMAIN;
    c.node.n_inputs = n_in;
    c.node.inputs = ids;
    c.n_in = n_in;
    memset(ins, 0, sizeof ins);
    for (int32_t i = 0; i < MS_MAX_IN; i++)
        ids[i] = i;
    memset(&err, 0, sizeof err);
}

/* Input i; data NULL leaves it omitted. */
static void ms_in(int32_t i, int32_t dtype, const int64_t *dims, int32_t rank, const void *data)
{
    kh_input(&c, 0, dtype, dims, rank, data); /* reuse its dims copy */
    ins[i] = c.in[0];
}

/* A per-tensor scale or zero point (rank 0). */
static float scalars_f[MS_MAX_IN];
static uint8_t scalars_q[MS_MAX_IN];
static void ms_scale(int32_t i, float v)
{
    scalars_f[i] = v;
    ms_in(i, KN_FLOAT, NULL, 0, &scalars_f[i]);
}
static void ms_zp(int32_t i, int32_t dtype, int v)
{
    scalars_q[i] = (uint8_t)v; /* an int8 value's byte */
    ms_in(i, dtype, NULL, 0, &scalars_q[i]);
}

/* Prepares (inputs in `hidden` show no data then, as run-time values) and
 * runs the kernel with `threads` threads; the result is in `out`. */
static int ms_run_hidden(int threads, uint32_t hidden)
{
    fini();
    kn_tensor view[MS_MAX_IN], *in_ptrs[MS_MAX_IN], *out_ptrs[1] = {&out};
    for (int32_t i = 0; i < c.n_in; i++) {
        view[i] = ins[i];
        if (hidden & (1u << i))
            view[i].data = NULL;
        in_ptrs[i] = ins[i].data ? &view[i] : NULL;
    }
    memset(&out, 0, sizeof out);
    const kn_op_def *d = kn_backend_kernel(&kn_backend_cpu, MS_DOMAIN, c.node.op_type, 1,
                                           ins[0].dtype);
    cr_assert(d, "no com.microsoft kernel for %s", c.node.op_type);
    kn_threadpool *pool = threads > 1 ? kn_threadpool_create(threads) : NULL;
    kn_kctx k = {.node = &c.node, .opset = 1, .n_in = c.n_in, .n_out = 1, .in = in_ptrs,
                 .out = out_ptrs, .threads = pool, .err = &err};
    int rc = d->prepare(&k);
    if (rc == KN_OK) {
        for (int32_t i = 0; i < c.n_in; i++)
            view[i].data = ins[i].data;
        out.data = calloc(1, (size_t)kn_tensor_nbytes(&out) + 1);
        k.scratch = k.scratch_bytes ? aligned_alloc(64, (k.scratch_bytes + 63) & ~(size_t)63) : NULL;
        rc = d->run(&k);
        free(k.scratch);
    }
    if (d->release)
        d->release(&k);
    kn_threadpool_destroy(pool);
    return rc;
}

static void ms_ok(void)
{
    int rc = ms_run_hidden(1, 0);
    cr_assert_eq(rc, KN_OK, "%s: %s", c.node.op_type, err.msg);
}

static void ms_fail(int code, const char *needle)
{
    int rc = ms_run_hidden(1, 0);
    cr_assert_eq(rc, code, "%s: got %s (%s), expected %s", c.node.op_type, kn_status_name(rc),
                 err.msg, kn_status_name(code));
    cr_assert(strstr(err.msg, needle), "message '%s' lacks '%s'", err.msg, needle);
    cr_assert(strstr(err.msg, c.node.op_type), "message '%s' lacks the op name", err.msg);
}

static uint32_t rng = 99;
static int rand_int(int lo, int hi) /* [lo, hi] */
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (int)((rng >> 8) % (uint32_t)(hi - lo + 1));
}

static int rint_even(double v) { return (int)nearbyint(v); }
static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* ---- QLinearAdd / QLinearMul --------------------------------------------- */

Test(qbinary, add_uint8_broadcast_and_ties)
{
    /* A: 0.5 (A - 10) = 0.5, 1.5, 10, 15; B along the last axis: 0, 1;
     * sums 0.5, 2.5, 10, 16 round half to even to 0, 2, 10, 16 */
    ms_init("QLinearAdd", 8);
    ms_in(0, KN_UINT8, DIMS(2, 2), (uint8_t[]){11, 13, 30, 40});
    ms_scale(1, 0.5f);
    ms_zp(2, KN_UINT8, 10);
    ms_in(3, KN_UINT8, DIMS(2), (uint8_t[]){0, 4});
    ms_scale(4, 0.25f);
    ms_zp(5, KN_UINT8, 0);
    ms_scale(6, 1.0f);
    ms_zp(7, KN_UINT8, 100);
    ms_ok();
    expect_shape(&out, DIMS(2, 2));
    expect_data(&out, KN_UINT8, (uint8_t[]){100, 102, 110, 116});
}

Test(qbinary, add_int8_saturates_both_ends)
{
    ms_init("QLinearAdd", 8);
    ms_in(0, KN_INT8, DIMS(3), (int8_t[]){127, -128, 0});
    ms_scale(1, 1.0f);
    ms_in(3, KN_INT8, DIMS(3), (int8_t[]){127, -128, 1});
    ms_scale(4, 1.0f);
    ms_scale(6, 1.0f);
    ms_zp(7, KN_INT8, -3); /* zero points 2 and 5 omitted: 0 */
    ms_ok();
    expect_data(&out, KN_INT8, (int8_t[]){127, -128, -2});
}

Test(qbinary, mul_int8_scalar_b)
{
    /* (A - 0) 0.5 = -1, 1.5, 5; B = 0.25 (4 - 2) = 0.5; products -0.5,
     * 0.75, 2.5; over C_scale 0.5: -1, 1.5 -> 2, 5; plus zero point 1 */
    ms_init("QLinearMul", 8);
    ms_in(0, KN_INT8, DIMS(3), (int8_t[]){-2, 3, 10});
    ms_scale(1, 0.5f);
    ms_zp(2, KN_INT8, 0);
    ms_in(3, KN_INT8, NULL, 0, (int8_t[]){4});
    ms_scale(4, 0.25f);
    ms_zp(5, KN_INT8, 2);
    ms_scale(6, 0.5f);
    ms_zp(7, KN_INT8, 1);
    ms_ok();
    expect_data(&out, KN_INT8, (int8_t[]){0, 3, 6});
    /* uint8: 255 * 255 saturates, 0 stays at the zero point */
    ms_init("QLinearMul", 8);
    ms_in(0, KN_UINT8, DIMS(2), (uint8_t[]){255, 0});
    ms_scale(1, 1.0f);
    ms_in(3, KN_UINT8, DIMS(2), (uint8_t[]){255, 200});
    ms_scale(4, 1.0f);
    ms_scale(6, 1.0f);
    ms_zp(7, KN_UINT8, 7);
    ms_ok();
    expect_data(&out, KN_UINT8, (uint8_t[]){255, 7});
}

/* Both ops on random data with 4-D broadcasting against the formula, int8
 * and uint8, scales known at prepare or only at run, 1 and 2 threads. */
Test(qbinary, random_broadcast_matches_formula)
{
    enum { A0 = 3, A1 = 1, A2 = 70, A3 = 97, B1 = 5, B3 = 97 };
    int64_t na = A0 * A1 * A2 * A3, nb = B1 * B3, ny = A0 * B1 * A2 * A3;
    uint8_t *a = malloc((size_t)na), *b = malloc((size_t)nb), *first = malloc((size_t)ny);
    for (int64_t i = 0; i < na; i++)
        a[i] = (uint8_t)rand_int(0, 255);
    for (int64_t i = 0; i < nb; i++)
        b[i] = (uint8_t)rand_int(0, 255);
    for (int mul = 0; mul <= 1; mul++)
        for (int dt = 0; dt < 2; dt++)
            for (int variant = 0; variant < 3; variant++) {
                int32_t dtype = dt ? KN_INT8 : KN_UINT8;
                int lo = dt ? -128 : 0, hi = dt ? 127 : 255;
                int az = dt ? -5 : 120, bz = dt ? 3 : 130, cz = dt ? 2 : 125;
                float as = 0.037f, bs = mul ? 0.021f : 0.053f, cs = mul ? 0.3f : 0.061f;
                ms_init(mul ? "QLinearMul" : "QLinearAdd", 8);
                ms_in(0, dtype, DIMS(A0, A1, A2, A3), a);
                ms_scale(1, as);
                ms_zp(2, dtype, az);
                ms_in(3, dtype, DIMS(B1, 1, B3), b); /* [5, 1, 97] against [3, 1, 70, 97] */
                ms_scale(4, bs);
                ms_zp(5, dtype, bz);
                ms_scale(6, cs);
                ms_zp(7, dtype, cz);
                int threads = variant == 2 ? 2 : 1;
                cr_assert_eq(ms_run_hidden(threads, variant == 1 ? 0xF6u : 0), KN_OK, "%s", err.msg);
                expect_shape(&out, DIMS(A0, B1, A2, A3));
                const uint8_t *y = out.data;
                for (int64_t i = 0; i < ny; i++) {
                    int64_t i3 = i % A3, i2 = i / A3 % A2, i1 = i / (A3 * A2) % B1,
                            i0 = i / (A3 * A2 * B1);
                    int va = dt ? (int8_t)a[(i0 * A2 + i2) * A3 + i3] : a[(i0 * A2 + i2) * A3 + i3];
                    int vb = dt ? (int8_t)b[i1 * B3 + i3] : b[i1 * B3 + i3];
                    double v = mul ? (double)(va - az) * (vb - bz) * ((double)as * bs / cs)
                                   : (double)as / cs * (va - az) + (double)bs / cs * (vb - bz);
                    int want = clampi(rint_even(v) + cz, lo, hi);
                    int got = dt ? (int8_t)y[i] : y[i];
                    cr_assert_eq(got, want, "%s %s element %lld: got %d, want %d (%.9g)",
                                 c.node.op_type, kn_dtype_name(dtype), (long long)i, got, want, v);
                }
                if (variant == 0)
                    memcpy(first, y, (size_t)ny);
                else
                    cr_assert(memcmp(first, y, (size_t)ny) == 0, "variant %d differs", variant);
            }
    free(a);
    free(b);
    free(first);
}

/* ---- QLinearSigmoid / QLinearLeakyRelu ------------------------------------ */

Test(qlookup, sigmoid_uint8_ends_and_middle)
{
    /* 0.1 (X - 128) = 0, -12.8, 12.7: sigmoid 0.5, ~0, ~1 in 1/256 steps */
    ms_init("QLinearSigmoid", 5);
    ms_in(0, KN_UINT8, DIMS(3), (uint8_t[]){128, 0, 255});
    ms_scale(1, 0.1f);
    ms_zp(2, KN_UINT8, 128);
    ms_scale(3, 1.0f / 256);
    ms_zp(4, KN_UINT8, 0);
    ms_ok();
    expect_data(&out, KN_UINT8, (uint8_t[]){128, 0, 255});
}

Test(qlookup, leaky_relu_int8)
{
    /* 0.5 X = -5, 0, 5, 50; alpha 0.1: -0.5, 0, 5, 50; over 0.5: -1, 0, 10,
     * 100; plus zero point 30, the last saturating */
    ms_init("QLinearLeakyRelu", 5);
    kh_attr_float(&c, "alpha", 0.1f);
    ms_in(0, KN_INT8, DIMS(4), (int8_t[]){-10, 0, 10, 100});
    ms_scale(1, 0.5f);
    ms_scale(3, 0.5f);
    ms_zp(4, KN_INT8, 30);
    ms_ok();
    expect_data(&out, KN_INT8, (int8_t[]){29, 30, 40, 127});
}

/* The three paths (table built in prepare, table per run, per element)
 * give the same bytes for every input byte. */
Test(qlookup, table_and_per_element_paths_agree)
{
    uint8_t all[300];
    for (int i = 0; i < 300; i++)
        all[i] = (uint8_t)(i * 7);
    const char *ops[] = {"QLinearSigmoid", "QLinearLeakyRelu"};
    for (int op = 0; op < 2; op++)
        for (int dt = 0; dt < 2; dt++) {
            int32_t dtype = dt ? KN_INT8 : KN_UINT8;
            uint8_t ref[300];
            for (int path = 0; path < 3; path++) {
                int64_t n = path == 2 ? 256 : 300; /* <= 256 elements: per element */
                ms_init(ops[op], 5);
                kh_attr_float(&c, "alpha", 0.2f);
                ms_in(0, dtype, DIMS(n), all);
                ms_scale(1, 0.047f);
                ms_zp(2, dtype, dt ? -7 : 131);
                ms_scale(3, op ? 0.031f : 1.0f / 256);
                ms_zp(4, dtype, dt ? (op ? 11 : -128) : (op ? 90 : 0));
                cr_assert_eq(ms_run_hidden(1, path ? 0x1Eu : 0), KN_OK, "%s", err.msg);
                if (path == 0)
                    memcpy(ref, out.data, 300);
                else
                    cr_assert(memcmp(ref, out.data, (size_t)n) == 0, "%s %s: path %d differs",
                              ops[op], kn_dtype_name(dtype), path);
            }
        }
}

/* ---- QLinearAveragePool / QLinearGlobalAveragePool ------------------------ */

Test(qpool, average_pads_and_count_include_pad)
{
    /* 1..9 as 3x3, 2x2 windows at stride 2 with one unit of end padding:
     * {1,2,4,5} = 3, {3,6} = 4.5 -> 4, {7,8} = 7.5 -> 8, {9} = 9 */
    static const uint8_t x[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    for (int include = 0; include <= 1; include++) {
        ms_init("QLinearAveragePool", 5);
        kh_attr_ints(&c, "kernel_shape", (int64_t[]){2, 2}, 2);
        kh_attr_ints(&c, "strides", (int64_t[]){2, 2}, 2);
        kh_attr_ints(&c, "pads", (int64_t[]){0, 0, 1, 1}, 4);
        kh_attr_int(&c, "count_include_pad", include);
        ms_in(0, KN_UINT8, DIMS(1, 1, 3, 3), x);
        ms_scale(1, 1.0f);
        ms_zp(2, KN_UINT8, 0);
        ms_scale(3, 1.0f);
        ms_zp(4, KN_UINT8, 0);
        ms_ok();
        expect_shape(&out, DIMS(1, 1, 2, 2));
        /* counting the padding: 9/4, 15/4, 9/4 */
        expect_data(&out, KN_UINT8, include ? (uint8_t[]){3, 2, 4, 2} : (uint8_t[]){3, 4, 8, 9});
    }
}

Test(qpool, average_channels_last_int8)
{
    /* [N=1, H=2, W=2, C=2], one 2x2 window: channel 0 {-4, -2, 0, 2} - (-1)
     * = mean 0 -> zero point 3; channel 1 {10, 10, 10, 11} + 1: mean 11.25,
     * 0.5 x 11.25 / 0.25 = 22.5 -> 22, plus 3 */
    ms_init("QLinearAveragePool", 5);
    kh_attr_ints(&c, "kernel_shape", (int64_t[]){2, 2}, 2);
    kh_attr_int(&c, "channels_last", 1);
    ms_in(0, KN_INT8, DIMS(1, 2, 2, 2), (int8_t[]){-4, 10, -2, 10, 0, 10, 2, 11});
    ms_scale(1, 0.5f);
    ms_zp(2, KN_INT8, -1);
    ms_scale(3, 0.25f);
    ms_zp(4, KN_INT8, 3);
    ms_ok();
    expect_shape(&out, DIMS(1, 1, 1, 2));
    expect_data(&out, KN_INT8, (int8_t[]){3, 25});
}

Test(qpool, global_nchw_and_nhwc_agree)
{
    /* the same data as [1, 2, 2, 2] NCHW and as NHWC (transposed) */
    static const int8_t nchw[] = {-4, -2, 0, 2, 10, 10, 10, 11};
    static const int8_t nhwc[] = {-4, 10, -2, 10, 0, 10, 2, 11};
    for (int last = 0; last <= 1; last++) {
        ms_init("QLinearGlobalAveragePool", 5);
        kh_attr_int(&c, "channels_last", last);
        ms_in(0, KN_INT8, DIMS(1, 2, 2, 2), last ? nhwc : nchw);
        ms_scale(1, 0.5f);
        ms_zp(2, KN_INT8, -1);
        ms_scale(3, 0.25f);
        ms_zp(4, KN_INT8, 3);
        ms_ok();
        if (last)
            expect_shape(&out, DIMS(1, 1, 1, 2));
        else
            expect_shape(&out, DIMS(1, 2, 1, 1));
        expect_data(&out, KN_INT8, (int8_t[]){3, 25});
    }
    /* uint8 saturating at the top: mean 200 - 0 over scale 0.5 -> 400 */
    ms_init("QLinearGlobalAveragePool", 5);
    ms_in(0, KN_UINT8, DIMS(1, 1, 3), (uint8_t[]){200, 200, 200});
    ms_scale(1, 1.0f);
    ms_zp(2, KN_UINT8, 0);
    ms_scale(3, 0.5f);
    ms_zp(4, KN_UINT8, 0);
    ms_ok();
    expect_shape(&out, DIMS(1, 1, 1));
    expect_data(&out, KN_UINT8, (uint8_t[]){255});
}

/* ---- QLinearConcat -------------------------------------------------------- */

Test(qconcat, requantizes_each_input)
{
    /* X0 has the output's parameters (copied); X1: 2 (7 - 0) = 14 -> 24;
     * X2 (int8 below): 2 (100) + 10 saturates */
    ms_init("QLinearConcat", 8);
    kh_attr_int(&c, "axis", 1);
    ms_scale(0, 1.0f);
    ms_zp(1, KN_UINT8, 10);
    ms_in(2, KN_UINT8, DIMS(1, 2), (uint8_t[]){10, 20});
    ms_scale(3, 1.0f);
    ms_zp(4, KN_UINT8, 10);
    ms_in(5, KN_UINT8, DIMS(1, 1), (uint8_t[]){7});
    ms_scale(6, 2.0f);
    ms_zp(7, KN_UINT8, 0);
    ms_ok();
    expect_shape(&out, DIMS(1, 3));
    expect_data(&out, KN_UINT8, (uint8_t[]){10, 20, 24});
    /* three int8 tensors along axis 0 (rows interleave nothing) */
    ms_init("QLinearConcat", 11);
    kh_attr_int(&c, "axis", -2);
    ms_scale(0, 1.0f);
    ms_zp(1, KN_INT8, 10);
    ms_in(2, KN_INT8, DIMS(1, 2), (int8_t[]){1, 2});
    ms_scale(3, 1.0f);
    ms_zp(4, KN_INT8, 0);
    ms_in(5, KN_INT8, DIMS(2, 2), (int8_t[]){100, -100, 3, -3});
    ms_scale(6, 2.0f);
    ms_zp(7, KN_INT8, 0);
    ms_in(8, KN_INT8, DIMS(1, 2), (int8_t[]){5, 6});
    ms_scale(9, 1.0f);
    ms_zp(10, KN_INT8, 10);
    ms_ok();
    expect_shape(&out, DIMS(4, 2));
    expect_data(&out, KN_INT8, (int8_t[]){11, 12, 127, -128, 16, 4, 5, 6});
}

Test(qconcat, inner_axis_interleaves_rows)
{
    /* axis 1 of [2, 1] and [2, 2]: each row takes one chunk of each */
    ms_init("QLinearConcat", 8);
    kh_attr_int(&c, "axis", 1);
    ms_scale(0, 1.0f);
    ms_zp(1, KN_UINT8, 0);
    ms_in(2, KN_UINT8, DIMS(2, 1), (uint8_t[]){1, 2});
    ms_scale(3, 1.0f);
    ms_zp(4, KN_UINT8, 0);
    ms_in(5, KN_UINT8, DIMS(2, 2), (uint8_t[]){10, 11, 20, 21});
    ms_scale(6, 0.5f); /* halves */
    ms_zp(7, KN_UINT8, 0);
    ms_ok();
    expect_data(&out, KN_UINT8, (uint8_t[]){1, 5, 6, 2, 10, 10}); /* 5.5 -> 6, 10.5 -> 10 */
}

/* ---- QLinearSoftmax ------------------------------------------------------- */

Test(qsoftmax, opset13_axis_and_types)
{
    /* exp(-10 x_scale) = 1/3: p = 1/4, 3/4 -> 64, 192 in 1/256 steps */
    float xs = 0.109861229f; /* ln(3) / 10 */
    ms_init("QLinearSoftmax", 5);
    kh_attr_int(&c, "opset", 13);
    ms_in(0, KN_UINT8, DIMS(1, 2), (uint8_t[]){0, 10});
    ms_scale(1, xs);
    ms_zp(2, KN_UINT8, 0);
    ms_scale(3, 1.0f / 256);
    ms_zp(4, KN_UINT8, 0);
    ms_ok();
    expect_data(&out, KN_UINT8, (uint8_t[]){64, 192});
    /* int8, zero point -128, along axis 0 of [2, 2]: columns {0, 10}, {0, 0} */
    ms_init("QLinearSoftmax", 5);
    kh_attr_int(&c, "opset", 13);
    kh_attr_int(&c, "axis", 0);
    ms_in(0, KN_INT8, DIMS(2, 2), (int8_t[]){-5, 7, 5, 7});
    ms_scale(1, xs);
    ms_zp(2, KN_INT8, 3);
    ms_scale(3, 1.0f / 256);
    ms_zp(4, KN_INT8, -128);
    ms_ok();
    expect_data(&out, KN_INT8, (int8_t[]){-64, 0, 64, 0});
}

Test(qsoftmax, opset12_flattens_from_axis)
{
    /* opset 12, axis 0: one softmax over all four elements */
    ms_init("QLinearSoftmax", 5);
    kh_attr_int(&c, "opset", 12);
    kh_attr_int(&c, "axis", 0);
    ms_in(0, KN_UINT8, DIMS(2, 2), (uint8_t[]){9, 9, 9, 9});
    ms_scale(1, 0.5f);
    ms_scale(3, 1.0f / 256);
    ms_ok();
    expect_data(&out, KN_UINT8, (uint8_t[]){64, 64, 64, 64});
}

Test(qsoftmax, multiplier_is_floor_of_reciprocal)
{
    /* ONNX Runtime multiplies by floor(1 / y_scale): 1 / 0.28 = 3.57 gives
     * 3, where rounding 1 / 0.28 would give 4 */
    ms_init("QLinearSoftmax", 5);
    kh_attr_int(&c, "opset", 13);
    ms_in(0, KN_UINT8, DIMS(2, 1), (uint8_t[]){0, 200});
    ms_scale(1, 0.1f);
    ms_scale(3, 0.28f);
    ms_zp(4, KN_UINT8, 1);
    ms_ok();
    expect_data(&out, KN_UINT8, (uint8_t[]){4, 4});
}

/* ---- QGemm ---------------------------------------------------------------- */

/* A uint8 [2, 3] with zero point 1, B int8 [3, 2] per-column scales 1 and
 * 0.5, C [2] int32: acc + C = [4, -1; 10, 5], times 0.5 (col 0) / 0.25
 * (col 1): [2, -0.25; 5, 1.25]. */
static void qgemm_case(int trans_a, int trans_b, int quantized)
{
    static const uint8_t a[] = {1, 2, 3, 4, 5, 6}, at[] = {1, 4, 2, 5, 3, 6};
    static const int8_t b[] = {1, 0, 0, 1, 1, 1}, bt[] = {1, 0, 1, 0, 1, 1};
    static const float bs[] = {1.0f, 0.5f};
    static const int8_t bz[] = {0, 0};
    static const int32_t bias[] = {2, -4};
    ms_init("QGemm", quantized ? 9 : 7);
    kh_attr_int(&c, "transA", trans_a);
    kh_attr_int(&c, "transB", trans_b);
    int64_t ad[2] = {trans_a ? 3 : 2, trans_a ? 2 : 3}, bd[2] = {trans_b ? 2 : 3, trans_b ? 3 : 2};
    ms_in(0, KN_UINT8, ad, 2, trans_a ? at : a);
    ms_scale(1, 0.5f);
    ms_zp(2, KN_UINT8, 1);
    ms_in(3, KN_INT8, bd, 2, trans_b ? bt : b);
    ms_in(4, KN_FLOAT, DIMS(2), bs);
    ms_in(5, KN_INT8, DIMS(2), bz);
    ms_in(6, KN_INT32, DIMS(2), bias);
    if (quantized) {
        ms_scale(7, 1.0f);
        ms_zp(8, KN_UINT8, 10);
    }
}

Test(qgemm, quantized_and_float_outputs)
{
    for (int t = 0; t < 4; t++) {
        qgemm_case(t & 1, t >> 1, 1);
        ms_ok();
        expect_shape(&out, DIMS(2, 2));
        /* 2, -0.25 -> -0, 5, 1.25 -> 1; plus 10 */
        expect_data(&out, KN_UINT8, (uint8_t[]){12, 10, 15, 11});
        /* B's data only at run time: transposed per run instead of once */
        cr_assert_eq(ms_run_hidden(1, 1u << 3), KN_OK, "%s", err.msg);
        expect_data(&out, KN_UINT8, (uint8_t[]){12, 10, 15, 11});
    }
    qgemm_case(0, 1, 0);
    kh_attr_float(&c, "alpha", 2.0f);
    ms_ok();
    expect_f32(&out, (float[]){4, -0.5f, 10, 2.5f}, 4, 0);
}

Test(qgemm, bias_per_row_and_int8_output)
{
    /* C [2, 1]: rows get 100 and -100; y int8 zero point -2, scale 0.25:
     * ((acc + C) 0.5 a_scale) / 0.25 saturates at both ends */
    ms_init("QGemm", 9);
    ms_in(0, KN_INT8, DIMS(2, 1), (int8_t[]){1, 1});
    ms_scale(1, 1.0f);
    ms_zp(2, KN_INT8, 0);
    ms_in(3, KN_INT8, DIMS(1, 2), (int8_t[]){1, -1});
    ms_scale(4, 0.5f);
    ms_zp(5, KN_INT8, 0);
    ms_in(6, KN_INT32, DIMS(2, 1), (int32_t[]){100, -100});
    ms_scale(7, 0.25f);
    ms_zp(8, KN_INT8, -2);
    ms_ok();
    /* (101, 99; -99, -101) x 2 -> 202, 198, -198, -202 -> 127, 127, -128, -128 */
    expect_data(&out, KN_INT8, (int8_t[]){127, 127, -128, -128});
}

/* Random shapes against a naive reference: per-column scales and zero
 * points, every transpose, 1 and 2 threads. */
Test(qgemm, random_matches_reference)
{
    for (int t = 0; t < 8; t++) {
        int m = rand_int(1, 40), k = rand_int(1, 300), n = rand_int(1, 33);
        int ta = t & 1, tb = (t >> 1) & 1, hide_b = t >> 2;
        uint8_t *a = malloc((size_t)(m * k)), *b = malloc((size_t)(k * n));
        float *bs = malloc(sizeof(float) * (size_t)n);
        uint8_t *bz = malloc((size_t)n);
        int32_t *bias = malloc(sizeof(int32_t) * (size_t)n);
        for (int i = 0; i < m * k; i++)
            a[i] = (uint8_t)rand_int(0, 255);
        for (int i = 0; i < k * n; i++)
            b[i] = (uint8_t)rand_int(0, 255);
        for (int j = 0; j < n; j++) {
            bs[j] = 0.001f * (float)rand_int(1, 20);
            bz[j] = (uint8_t)rand_int(-5, 5);
            bias[j] = rand_int(-30000, 30000);
        }
        ms_init("QGemm", 9);
        kh_attr_int(&c, "transA", ta);
        kh_attr_int(&c, "transB", tb);
        int64_t ad[2] = {ta ? k : m, ta ? m : k}, bd[2] = {tb ? n : k, tb ? k : n};
        ms_in(0, KN_UINT8, ad, 2, a);
        ms_scale(1, 0.02f);
        ms_zp(2, KN_UINT8, 128);
        ms_in(3, KN_INT8, bd, 2, b);
        ms_in(4, KN_FLOAT, DIMS(n), bs);
        ms_in(5, KN_INT8, DIMS(n), bz);
        ms_in(6, KN_INT32, DIMS(n), bias);
        ms_scale(7, 0.7f);
        ms_zp(8, KN_UINT8, 120);
        cr_assert_eq(ms_run_hidden(2, hide_b ? 1u << 3 : 0), KN_OK, "%s", err.msg);
        const uint8_t *y = out.data;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                int64_t acc = bias[j];
                for (int p = 0; p < k; p++) {
                    int av = a[ta ? p * m + i : i * k + p] - 128;
                    int bv = (int8_t)b[tb ? j * k + p : p * n + j] - (int8_t)bz[j];
                    acc += (int64_t)av * bv;
                }
                float mult = 1.0f * 0.02f * bs[j] / 0.7f;
                int want = clampi(rint_even((double)acc * mult) + 120, 0, 255);
                cr_assert_eq(y[i * n + j], want, "t %d [%d, %d]: got %d, want %d", t, i, j,
                             y[i * n + j], want);
            }
        free(a);
        free(b);
        free(bs);
        free(bz);
        free(bias);
    }
}

/* ---- DynamicQuantizeMatMul / MatMulIntegerToFloat ------------------------- */

Test(qmatmul_float, dynamic_quantize_matmul)
{
    /* A [-1, 1.55]: range [-1, 1.55] -> scale 0.01, zero point 100, A
     * quantized 0, 255; B int8 [2, -1] scale 0.5: acc = -100 x 2 + 155 x -1
     * = -355; x 0.01 x 0.5 = -1.775; + bias 1 */
    ms_init("DynamicQuantizeMatMul", 5);
    ms_in(0, KN_FLOAT, DIMS(1, 2), (float[]){-1.0f, 1.55f});
    ms_in(1, KN_INT8, DIMS(2, 1), (int8_t[]){2, -1});
    ms_scale(2, 0.5f);
    ms_in(4, KN_FLOAT, DIMS(1), (float[]){1.0f});
    ms_ok();
    expect_shape(&out, DIMS(1, 1));
    expect_f32(&out, (float[]){-0.775f}, 1, 1e-6);
    /* all zeros: scale 1 (ORT's choice), result = bias; batched A [2, 1, 2] */
    ms_init("DynamicQuantizeMatMul", 5);
    ms_in(0, KN_FLOAT, DIMS(2, 1, 2), (float[]){0, 0, 0, 0});
    ms_in(1, KN_UINT8, DIMS(2, 2), (uint8_t[]){1, 2, 3, 4});
    ms_in(2, KN_FLOAT, DIMS(2), (float[]){0.5f, 0.25f});
    ms_in(3, KN_UINT8, DIMS(2), (uint8_t[]){1, 2});
    ms_in(4, KN_FLOAT, DIMS(2), (float[]){3.0f, -3.0f});
    ms_ok();
    expect_shape(&out, DIMS(2, 1, 2));
    expect_f32(&out, (float[]){3, -3, 3, -3}, 4, 0);
}

Test(qmatmul_float, matmul_integer_to_float)
{
    /* (A - 1) = [0 1; 2 3], (B - 10) = [0 1; 2 3]: product [2 3; 6 11];
     * scales 0.1 x (0.5, 1): [0.1 0.3; 0.3 1.1]; bias (1, -1) */
    ms_init("MatMulIntegerToFloat", 7);
    ms_in(0, KN_UINT8, DIMS(2, 2), (uint8_t[]){1, 2, 3, 4});
    ms_in(1, KN_UINT8, DIMS(2, 2), (uint8_t[]){10, 11, 12, 13});
    ms_scale(2, 0.1f);
    ms_in(3, KN_FLOAT, DIMS(2), (float[]){0.5f, 1.0f});
    ms_zp(4, KN_UINT8, 1);
    ms_in(5, KN_UINT8, DIMS(2), (uint8_t[]){10, 10});
    ms_in(6, KN_FLOAT, DIMS(2), (float[]){1.0f, -1.0f});
    ms_ok();
    expect_f32(&out, (float[]){1.1f, -0.7f, 1.3f, 0.1f}, 4, 1e-6);
}

/* ---- QAttention --------------------------------------------------------- */

/* input [[1, 0], [0, 1]] (one batch, two tokens), weight [I I I]: Q = K =
 * V = I (2 x 2, one head). scale ln 3: row 0 scores (ln 3, 0) -> weights
 * (3/4, 1/4), row 1 (1/4, 3/4). */
static void qattention_case(int32_t n_in)
{
    static const uint8_t x[] = {1, 0, 0, 1};
    static const int8_t w[] = {1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1};
    static const float bias[6] = {0};
    ms_init("QAttention", n_in);
    kh_attr_int(&c, "num_heads", 1);
    kh_attr_float(&c, "scale", 1.0986123f);
    ms_in(0, KN_UINT8, DIMS(1, 2, 2), x);
    ms_in(1, KN_INT8, DIMS(2, 6), w);
    ms_in(2, KN_FLOAT, DIMS(6), bias);
    ms_scale(3, 1.0f);
    ms_scale(4, 1.0f);
}

Test(qattention, scores_masks_and_causal)
{
    qattention_case(5);
    ms_ok();
    expect_shape(&out, DIMS(1, 2, 2));
    expect_f32(&out, (float[]){0.75f, 0.25f, 0.25f, 0.75f}, 4, 1e-6);
    /* unidirectional: token 0 sees only itself */
    qattention_case(5);
    kh_attr_int(&c, "unidirectional", 1);
    ms_ok();
    expect_f32(&out, (float[]){1, 0, 0.25f, 0.75f}, 4, 1e-6);
    /* keys from index 1 on masked (-10000 added): both tokens see key 0 */
    qattention_case(6);
    ms_in(5, KN_INT32, DIMS(1), (int32_t[]){1});
    ms_ok();
    expect_f32(&out, (float[]){1, 0, 1, 0}, 4, 1e-6);
    /* the same as a raw 0/1 mask per key */
    qattention_case(6);
    ms_in(5, KN_INT32, DIMS(1, 2), (int32_t[]){1, 0});
    ms_ok();
    expect_f32(&out, (float[]){1, 0, 1, 0}, 4, 1e-6);
    /* a mask of another shape is refused by name */
    qattention_case(6);
    ms_in(5, KN_INT32, DIMS(3), (int32_t[]){1, 1, 1});
    ms_fail(KN_ERR_UNSUPPORTED, "mask_index of shape 3 is not supported; expected 1 (ends)");
}

/* past keys and values join in front; present returns all of them */
Test(qattention, past_and_present)
{
    static const float past[] = {/* K */ 0, 0, /* V */ 4, 8};
    qattention_case(9);
    ms_in(8, KN_FLOAT, DIMS(2, 1, 1, 1, 2), past);
    /* scores against the past key (0, 0) are 0: row 0 (0, ln 3, 0) ->
     * (1, 3, 1) / 5, row 1 (1, 1, 3) / 5, over V rows (4, 8), (1, 0), (0, 1) */
    ms_ok();
    expect_shape(&out, DIMS(1, 2, 2));
    expect_f32(&out, (float[]){(4 + 3) / 5.0f, 8 / 5.0f + 0.2f, (4 + 1) / 5.0f, 8 / 5.0f + 0.6f},
               4, 1e-6);
}

/* ---- com.microsoft QuantizeLinear / DequantizeLinear ---------------------- */

Test(qdq, uint16_round_trip)
{
    /* x / 0.5 = 0, 2, 5, -2, 0.5 -> 0, 1.5 -> 2 (ties to even); + 10 */
    static const uint16_t zp = 10;
    ms_init("QuantizeLinear", 3);
    ms_in(0, KN_FLOAT, DIMS(6), (float[]){0, 1, 2.5f, -1, 0.25f, 0.75f});
    ms_scale(1, 0.5f);
    ms_in(2, KN_UINT16, NULL, 0, &zp);
    ms_ok();
    expect_data(&out, KN_UINT16, (uint16_t[]){10, 12, 15, 8, 10, 12});
    ms_init("DequantizeLinear", 3);
    ms_in(0, KN_UINT16, DIMS(4), (uint16_t[]){10, 12, 15, 8});
    ms_scale(1, 0.5f);
    ms_in(2, KN_UINT16, NULL, 0, &zp);
    ms_ok();
    expect_f32(&out, (float[]){0, 1, 2.5f, -1}, 4, 0);
}

/* ---- errors --------------------------------------------------------------- */

Test(qerrors, bad_nodes_are_named)
{
    uint8_t u[4] = {0};
    int8_t s[4] = {0};
    ms_init("QLinearAdd", 8);
    ms_in(0, KN_UINT8, DIMS(4), u);
    ms_scale(1, 1.0f);
    ms_in(3, KN_INT8, DIMS(4), s);
    ms_scale(4, 1.0f);
    ms_scale(6, 1.0f);
    ms_fail(KN_ERR_DTYPE, "B is int8");
    ms_init("QLinearAdd", 8);
    ms_in(0, KN_UINT8, DIMS(4), u);
    ms_in(1, KN_FLOAT, DIMS(2), (float[]){1, 2});
    ms_in(3, KN_UINT8, DIMS(4), u);
    ms_scale(4, 1.0f);
    ms_scale(6, 1.0f);
    ms_fail(KN_ERR_SHAPE, "A_scale must be a scalar");
    ms_init("QLinearAdd", 8);
    ms_in(0, KN_UINT8, DIMS(4), u);
    ms_scale(1, 1.0f);
    ms_in(3, KN_UINT8, DIMS(3), u);
    ms_scale(4, 1.0f);
    ms_scale(6, 1.0f);
    ms_fail(KN_ERR_SHAPE, "broadcast");
    ms_init("QLinearConcat", 5);
    ms_scale(0, 1.0f);
    ms_zp(1, KN_UINT8, 0);
    ms_in(2, KN_UINT8, DIMS(4), u);
    ms_scale(3, 1.0f);
    ms_zp(4, KN_UINT8, 0);
    ms_fail(KN_ERR_INVALID_MODEL, "axis is required");
    ms_init("QLinearConcat", 8);
    kh_attr_int(&c, "axis", 0);
    ms_scale(0, 1.0f);
    ms_zp(1, KN_UINT8, 0);
    ms_in(2, KN_UINT8, DIMS(2, 2), u);
    ms_scale(3, 1.0f);
    ms_zp(4, KN_UINT8, 0);
    ms_in(5, KN_UINT8, DIMS(1, 3), u);
    ms_scale(6, 1.0f);
    ms_zp(7, KN_UINT8, 0);
    ms_fail(KN_ERR_SHAPE, "may differ only on axis 0");
    ms_init("QLinearConcat", 6);
    kh_attr_int(&c, "axis", 0);
    ms_scale(0, 1.0f);
    ms_zp(1, KN_UINT8, 0);
    ms_fail(KN_ERR_INVALID_MODEL, "got 6 inputs");
    ms_init("QLinearSoftmax", 5);
    ms_in(0, KN_UINT8, DIMS(4), u);
    ms_scale(1, 1.0f);
    ms_scale(3, 1.0f);
    ms_fail(KN_ERR_INVALID_MODEL, "opset");
    ms_init("QGemm", 6);
    ms_in(0, KN_UINT8, DIMS(2, 3), u);
    ms_scale(1, 1.0f);
    ms_in(3, KN_INT8, DIMS(2, 2), s);
    ms_scale(4, 1.0f);
    ms_fail(KN_ERR_SHAPE, "K = 3");
    ms_init("QGemm", 6);
    ms_in(0, KN_UINT8, DIMS(2, 2), u);
    ms_scale(1, 1.0f);
    ms_in(3, KN_INT8, DIMS(2, 2), s);
    ms_in(4, KN_FLOAT, DIMS(3), (float[]){1, 2, 3});
    ms_fail(KN_ERR_SHAPE, "b_scale");
    ms_init("QLinearAveragePool", 5);
    ms_in(0, KN_UINT8, DIMS(1, 1, 2, 2), u);
    ms_scale(1, 1.0f);
    ms_scale(3, 1.0f);
    ms_fail(KN_ERR_INVALID_MODEL, "kernel_shape");
    ms_init("QLinearGlobalAveragePool", 5);
    ms_in(0, KN_UINT8, DIMS(4), u);
    ms_scale(1, 1.0f);
    ms_scale(3, 1.0f);
    ms_fail(KN_ERR_SHAPE, "rank 1");
    ms_init("MatMulIntegerToFloat", 7);
    ms_in(0, KN_UINT8, DIMS(2, 2), u);
    ms_in(1, KN_UINT8, DIMS(2, 2), u);
    ms_scale(2, 1.0f);
    ms_scale(3, 1.0f);
    ms_in(6, KN_FLOAT, DIMS(3), (float[]){1, 2, 3});
    ms_fail(KN_ERR_SHAPE, "bias");
}
