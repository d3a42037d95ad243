/* oneDNN matrix-product and pooling kernels (core/dnnl/dnnl_matmul.c,
 * dnnl_pool.c) against Kiln's CPU kernels: MatMul with batches, broadcast
 * and 1-D operands, constant and computed B; FusedMatMul; Gemm's
 * transposes and C shapes; FusedGemm; MaxPool / AveragePool with pads,
 * strides, dilations, ceil_mode, count_include_pad; GlobalAveragePool;
 * the NHWC pools against their CPU fallbacks, and Kiln's NHWC global pool
 * against means taken in double; declines. */
#include "test_dnnl_util.h"

#ifdef KILN_WITH_DNNL

static void check_matmul(const int64_t *a, int32_t ar, const int64_t *b, int32_t br,
                         const char *what)
{
    kh_case c;
    kh_init(&c, "MatMul", 13, 2, 1);
    dt_input(&c, 0, a, ar, 3);
    dt_input(&c, 1, b, br, 4);
    dt_check(&c, 0x2, 1, what); /* constant B: reordered once */
    dt_check(&c, 0x0, 2, what); /* B computed at run time */
    dt_free_inputs(&c);
}

Test(dnnl_matmul, batched_and_broadcast)
{
    check_matmul((int64_t[]){2, 3, 20, 30}, 4, (int64_t[]){30, 40}, 2, "batched A, 2-D B");
    check_matmul((int64_t[]){3, 1, 20, 30}, 4, (int64_t[]){2, 30, 40}, 3, "broadcast batches");
    check_matmul((int64_t[]){30}, 1, (int64_t[]){4, 30, 600}, 3, "1-D A");
    check_matmul((int64_t[]){5, 64, 300}, 3, (int64_t[]){300}, 1, "1-D B");
    check_matmul((int64_t[]){128, 256}, 2, (int64_t[]){256, 64}, 2, "2-D");
}

Test(dnnl_matmul, fused_bias_activation)
{
    /* Silu is applied by Kiln after the primitive (kn_dnnl_take_activation) */
    const char *names[] = {"", "Relu", "Gelu", "Tanh", "Silu"};
    for (int i = 0; i < 5; i++) {
        kh_case c;
        kh_init(&c, "FusedMatMul", 1, 3, 1);
        c.node.domain = "kiln";
        kh_attr_string(&c, "activation", names[i]);
        dt_input(&c, 0, (int64_t[]){2, 33, 70}, 3, 5);
        dt_input(&c, 1, (int64_t[]){70, 50}, 2, 6);
        dt_input(&c, 2, (int64_t[]){50}, 1, 7);
        dt_check(&c, 0x6, 1, names[i]);
        dt_free_inputs(&c);
    }
}

static void check_gemm(int trans_a, int trans_b, const int64_t *cdims, int32_t cr, int fused,
                       const char *what)
{
    int64_t m = 40, k = 64, n = 50;
    kh_case c;
    kh_init(&c, fused ? "FusedGemm" : "Gemm", fused ? 1 : 13, cdims ? 3 : 2, 1);
    if (fused) {
        c.node.domain = "kiln";
        kh_attr_string(&c, "activation", "LeakyRelu");
        static const float alpha = 0.2f;
        kh_attr_floats(&c, "activation_params", &alpha, 1);
    }
    kh_attr_int(&c, "transA", trans_a);
    kh_attr_int(&c, "transB", trans_b);
    int64_t ad[2] = {trans_a ? k : m, trans_a ? m : k}, bd[2] = {trans_b ? n : k, trans_b ? k : n};
    dt_input(&c, 0, ad, 2, 8);
    dt_input(&c, 1, bd, 2, 9);
    if (cdims)
        dt_input(&c, 2, cdims, cr, 10);
    dt_check(&c, 0x6, 1, what);
    dt_free_inputs(&c);
}

Test(dnnl_gemm, transposes_and_bias_shapes)
{
    check_gemm(0, 0, NULL, 0, 0, "no C");
    check_gemm(1, 0, (int64_t[]){50}, 1, 0, "transA, C [N]");
    check_gemm(1, 1, (int64_t[]){1, 50}, 2, 0, "both, C [1, N]");
    check_gemm(0, 1, (int64_t[]){50}, 1, 1, "FusedGemm LeakyRelu");
}

Test(dnnl_matmul, declines)
{
    kh_case c;
    kh_init(&c, "Gemm", 13, 2, 1);
    kh_attr_float(&c, "alpha", 2.0f);
    dt_input(&c, 0, (int64_t[]){64, 64}, 2, 1);
    dt_input(&c, 1, (int64_t[]){64, 64}, 2, 2);
    dt_check_declines(&c, 0x2, "alpha 2");
    dt_free_inputs(&c);
    /* C other than [N] or [1, N]: oneDNN 2.6 has only its reference matmul
     * for such a bias */
    static const int64_t cshapes[3][2] = {{64, 64}, {64, 1}, {1, 1}};
    for (int i = 0; i < 3; i++) {
        kh_init(&c, "Gemm", 13, 3, 1);
        dt_input(&c, 0, (int64_t[]){64, 64}, 2, 1);
        dt_input(&c, 1, (int64_t[]){64, 64}, 2, 2);
        dt_input(&c, 2, cshapes[i], 2, 3);
        dt_check_declines(&c, 0x6, "C not a row");
        dt_free_inputs(&c);
    }
    kh_init(&c, "MatMul", 13, 2, 1);
    dt_input(&c, 0, (int64_t[]){4, 8}, 2, 1);
    dt_input(&c, 1, (int64_t[]){8, 4}, 2, 2);
    dt_check_declines(&c, 0x2, "tiny");
    dt_free_inputs(&c);
}

typedef struct pool_spec {
    const char *op;
    int64_t kernel[2], pads[4], strides[2], dilations[2];
    int ceil_mode, include_pad, has_dil;
} pool_spec;

static void pool_case(kh_case *c, const pool_spec *p, const int64_t *x, unsigned seed)
{
    int global = strcmp(p->op, "GlobalAveragePool") == 0;
    kh_init(c, p->op, global ? 1 : 19, 1, 1);
    if (!global) {
        kh_attr_ints(c, "kernel_shape", p->kernel, 2);
        kh_attr_ints(c, "pads", p->pads, 4);
        kh_attr_ints(c, "strides", p->strides, 2);
        kh_attr_int(c, "ceil_mode", p->ceil_mode);
        if (p->has_dil)
            kh_attr_ints(c, "dilations", p->dilations, 2);
        if (strcmp(p->op, "AveragePool") == 0)
            kh_attr_int(c, "count_include_pad", p->include_pad);
    }
    if (strcmp(p->op, "MaxPool") == 0)
        c->opset = 12;
    dt_input(c, 0, x, 4, seed);
}

static void check_pool(const pool_spec *p, const char *what)
{
    static const int64_t x[4] = {2, 32, 21, 19}, xh[4] = {2, 21, 19, 32};
    kh_case c;
    pool_case(&c, p, x, 17);
    dt_check(&c, 0, 1, what);
    dt_free_inputs(&c);
    if (strcmp(p->op, "GlobalAveragePool") == 0)
        return; /* Kiln's own kernel serves the NHWC op (nhwc_global_average_pool) */
    /* the NHWC op: oneDNN against the CPU fallback */
    char op[48];
    snprintf(op, sizeof op, "Nhwc%s", p->op);
    pool_case(&c, p, xh, 18);
    c.node.op_type = op;
    c.node.domain = "kiln";
    c.opset = 1;
    dt_check(&c, 0, 2, op);
    dt_free_inputs(&c);
}

Test(dnnl_pool, max_and_average)
{
    check_pool(
        &(pool_spec){.op = "MaxPool", .kernel = {3, 3}, .pads = {1, 1, 1, 1}, .strides = {2, 2}},
        "max 3x3 s2 p1");
    check_pool(&(pool_spec){.op = "MaxPool",
                            .kernel = {2, 3},
                            .pads = {0, 1, 1, 0},
                            .strides = {2, 2},
                            .ceil_mode = 1},
               "max ceil_mode, asymmetric pads");
    check_pool(
        &(pool_spec){
            .op = "AveragePool", .kernel = {3, 3}, .pads = {1, 1, 1, 1}, .strides = {1, 1}},
        "avg exclude pad");
    check_pool(&(pool_spec){.op = "AveragePool",
                            .kernel = {3, 3},
                            .pads = {1, 1, 1, 1},
                            .strides = {2, 2},
                            .include_pad = 1},
               "avg include pad");
    check_pool(
        &(pool_spec){.op = "AveragePool", .kernel = {2, 2}, .strides = {2, 2}, .ceil_mode = 1},
        "avg ceil_mode");
    check_pool(&(pool_spec){.op = "GlobalAveragePool"}, "global average");
}

/* kiln.NhwcGlobalAveragePool (Kiln's kernel, nhwc_global_pool.c) against
 * means taken in double: pixels split between threads (112x112), channels
 * split (7x7 with 1280 channels), channel tails, a batch of 2, and sums
 * long enough (12544 values near 1) that one running float sum would
 * drift. */
static void check_nhwc_global_average(const int64_t *x, int32_t threads, float offset)
{
    kh_case c;
    kh_init(&c, "NhwcGlobalAveragePool", 1, 1, 1);
    c.node.domain = "kiln";
    float *in = dt_input(&c, 0, x, 4, 23);
    int64_t pixels = x[1] * x[2], ch = x[3];
    for (int64_t i = 0; i < x[0] * pixels * ch; i++)
        in[i] += offset;
    float *y = NULL;
    kn_tensor yd;
    int rc = dt_run(&c, &kn_backend_cpu, 0, threads, &y, &yd);
    cr_assert_eq(rc, KN_OK, "%s", c.err.msg);
    int64_t want[4] = {x[0], 1, 1, ch};
    cr_assert(kn_shape_equal(yd.dims, yd.rank, want, 4), "Y is [N, 1, 1, C]");
    for (int64_t n = 0; n < x[0]; n++)
        for (int64_t k = 0; k < ch; k++) {
            double sum = 0;
            for (int64_t p = 0; p < pixels; p++)
                sum += in[(n * pixels + p) * ch + k];
            double mean = sum / (double)pixels, got = y[n * ch + k];
            cr_assert(fabs(got - mean) <= 1e-6 * (1 + fabs(mean)),
                      "%lldx%lldx%lldx%lld, %d threads: image %lld channel %lld: %.9g vs %.9g",
                      (long long)x[0], (long long)x[1], (long long)x[2], (long long)x[3],
                      (int)threads, (long long)n, (long long)k, got, mean);
        }
    free(y);
    dt_free_inputs(&c);
}

Test(dnnl_pool, nhwc_global_average_pool)
{
    static const int64_t shapes[][4] = {{1, 112, 112, 32}, {1, 7, 7, 1280}, {2, 14, 14, 40},
                                        {1, 3, 5, 7},      {1, 28, 28, 1},  {2, 9, 11, 200}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int32_t t = 1; t <= 3; t++)
            check_nhwc_global_average(shapes[s], t, s == 0 ? 1.0f : 0.0f);
}

Test(dnnl_pool, declines)
{
    static const int64_t x[4] = {1, 16, 21, 19};
    kh_case c;
    pool_case(&c,
              &(pool_spec){.op = "AveragePool",
                           .kernel = {2, 2},
                           .pads = {1, 1, 1, 1},
                           .strides = {2, 2},
                           .ceil_mode = 1,
                           .include_pad = 1},
              x, 3);
    dt_check_declines(&c, 0, "count_include_pad with a ceil_mode window");
    dt_free_inputs(&c);
    pool_case(&c, &(pool_spec){.op = "MaxPool", .kernel = {2, 2}, .strides = {2, 2}}, x, 3);
    c.n_out = c.node.n_outputs = 2;
    dt_check_declines(&c, 0, "Indices output");
    dt_free_inputs(&c);
    /* oneDNN 2.6 has only its reference code for these: Kiln's is faster */
    pool_case(&c,
              &(pool_spec){.op = "MaxPool",
                           .kernel = {3, 3},
                           .pads = {2, 2, 2, 2},
                           .strides = {1, 2},
                           .dilations = {2, 2},
                           .has_dil = 1},
              x, 3);
    dt_check_declines(&c, 0, "dilated max pool");
    dt_free_inputs(&c);
}

static void check_binary(const char *op, const int64_t *a, int32_t ar, const int64_t *b, int32_t br,
                         uint32_t const_mask)
{
    kh_case c;
    kh_init(&c, op, 14, 2, 1);
    dt_input(&c, 0, a, ar, 51);
    dt_input(&c, 1, b, br, 52);
    for (int64_t i = 0; i < kn_tensor_numel(&c.in[1]); i++) /* no division by ~0 */
        ((float *)c.in[1].data)[i] += ((float *)c.in[1].data)[i] < 0 ? -0.5f : 0.5f;
    dt_check(&c, const_mask, 2, op);
    dt_free_inputs(&c);
}

Test(dnnl_binary, broadcast_either_side)
{
    const char *ops[] = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
    for (int i = 0; i < 6; i++) {
        check_binary(ops[i], (int64_t[]){2, 14, 14, 96}, 4, (int64_t[]){2, 1, 1, 96}, 4, 0);
        check_binary(ops[i], (int64_t[]){2, 14, 14, 96}, 4, (int64_t[]){1}, 1, 0x2);
        check_binary(ops[i], (int64_t[]){3, 80, 100}, 3, (int64_t[]){3, 80, 100}, 3, 0);
    }
    /* broadcast first operand: swapped where the op commutes */
    check_binary("Mul", (int64_t[]){2, 1, 1, 96}, 4, (int64_t[]){2, 14, 14, 96}, 4, 0);
    check_binary("Add", (int64_t[]){1}, 1, (int64_t[]){3, 80, 100}, 3, 0x1);
    kh_case c;
    kh_init(&c, "Mul", 14, 2, 1);
    dt_input(&c, 0, (int64_t[]){1, 14, 14, 96}, 4, 1);
    dt_input(&c, 1, (int64_t[]){1, 1, 1, 96}, 4, 2);
    dt_check_declines(&c, 0, "a row over the innermost axis");
    dt_free_inputs(&c);
    kh_init(&c, "Sub", 14, 2, 1);
    dt_input(&c, 0, (int64_t[]){1, 50}, 2, 1);
    dt_input(&c, 1, (int64_t[]){400, 50}, 2, 2);
    dt_check_declines(&c, 0, "Sub with the first operand broadcast");
    dt_free_inputs(&c);
    kh_init(&c, "Add", 14, 2, 1);
    dt_input(&c, 0, (int64_t[]){40, 1}, 2, 1);
    dt_input(&c, 1, (int64_t[]){1, 500}, 2, 2);
    dt_check_declines(&c, 0, "both operands broadcast");
    dt_free_inputs(&c);
}

Test(dnnl_concat, any_axis)
{
    for (int axis = -1; axis < 4; axis++) {
        kh_case c;
        kh_init(&c, "Concat", 13, 3, 1);
        kh_attr_int(&c, "axis", axis);
        int64_t d[3][4];
        for (int j = 0; j < 3; j++) {
            int64_t base[4] = {2, 13, 11, 24};
            memcpy(d[j], base, sizeof base);
            d[j][axis < 0 ? 3 : axis] += 3 * j;
            dt_input(&c, j, d[j], 4, 60 + (unsigned)j);
        }
        char what[32];
        snprintf(what, sizeof what, "Concat axis %d", axis);
        dt_check(&c, 0, 1, what);
        dt_free_inputs(&c);
    }
}

#else

Test(dnnl_ops, needs_onednn)
{
    cr_skip_test("Kiln was built without oneDNN (KILN_WITH_DNNL): no oneDNN kernels to test");
}

#endif
