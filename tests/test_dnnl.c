/* oneDNN convolution kernels (core/dnnl/dnnl_conv.c) against Kiln's CPU
 * kernels: Conv with groups, depthwise, dilations, asymmetric pads,
 * strides, 1-D and 3-D; kiln.FusedConv with a residual and each
 * activation; kiln.NhwcConv against its CPU fallback, and that fallback
 * against FusedConv on transposed data; declines. The matmul and pooling
 * kernels are in test_dnnl_ops.c, the runtime promises in
 * test_dnnl_runtime.c. */
#include "test_dnnl_util.h"

#ifdef KILN_WITH_DNNL

typedef struct conv_spec {
    int64_t x[5], w[5];
    int32_t rank;
    int64_t group;
    int64_t pads[6], strides[3], dilations[3];
    int has_pads, has_strides, has_dil, bias;
    const char *auto_pad;
} conv_spec;

/* A Conv / FusedConv case; W and B constant. Returns the output dims in
 * y (NCHW) for a residual. */
static void conv_case(kh_case *c, const char *op, const conv_spec *s, int n_in, unsigned seed)
{
    kh_init(c, op, op[0] == 'C' ? 11 : 1, n_in, 1);
    if (op[0] != 'C')
        c->node.domain = "kiln";
    int32_t nsp = s->rank - 2;
    kh_attr_int(c, "group", s->group);
    if (s->has_pads)
        kh_attr_ints(c, "pads", s->pads, 2 * nsp);
    if (s->has_strides)
        kh_attr_ints(c, "strides", s->strides, nsp);
    if (s->has_dil)
        kh_attr_ints(c, "dilations", s->dilations, nsp);
    if (s->auto_pad)
        kh_attr_string(c, "auto_pad", s->auto_pad);
    dt_input(c, 0, s->x, s->rank, seed);
    dt_input(c, 1, s->w, s->rank, seed + 1);
    if (n_in > 2 && s->bias)
        dt_input(c, 2, s->w, 1, seed + 2);
}

static void check_conv(const conv_spec *s, const char *what)
{
    kh_case c;
    conv_case(&c, "Conv", s, s->bias ? 3 : 2, 11);
    dt_check(&c, 0x6, 1, what);
    dt_check(&c, 0x6, 2, what);
    dt_free_inputs(&c);
}

Test(dnnl_conv, plain_3x3)
{
    check_conv(&(conv_spec){{2, 8, 12, 10}, {16, 8, 3, 3}, 4, 1, .bias = 1}, "3x3");
}

Test(dnnl_conv, groups_pads_strides)
{
    check_conv(
        &(conv_spec){
            {1, 12, 17, 15}, {18, 4, 3, 5}, 4, 3, {1, 0, 2, 3}, {2, 1}, {1, 1}, 1, 1, 0, 1, NULL},
        "groups 3, asymmetric pads, stride 2x1");
}

Test(dnnl_conv, depthwise_dilated)
{
    check_conv(
        &(conv_spec){
            {1, 32, 20, 20}, {32, 1, 3, 3}, 4, 32, {2, 2, 2, 2}, {1, 1}, {2, 2}, 1, 0, 1, 1, NULL},
        "depthwise, dilation 2");
}

Test(dnnl_conv, auto_pad_same_upper)
{
    check_conv(&(conv_spec){{1, 16, 15, 13},
                            {16, 16, 3, 3},
                            4,
                            1,
                            .strides = {2, 2},
                            .has_strides = 1,
                            .auto_pad = "SAME_UPPER"},
               "SAME_UPPER stride 2");
}

Test(dnnl_conv, one_d_and_three_d)
{
    check_conv(&(conv_spec){{2, 16, 300}, {32, 16, 5}, 3, 1, {2, 1}, {1}, {1}, 1, 0, 0, 1, NULL},
               "1-D");
    check_conv(&(conv_spec){{1, 8, 6, 10, 9},
                            {8, 8, 3, 3, 3},
                            5,
                            1,
                            {1, 1, 1, 1, 1, 1},
                            {1, 1, 1},
                            {1, 1, 1},
                            1,
                            0,
                            0,
                            1,
                            NULL},
               "3-D");
}

Test(dnnl_conv, pointwise)
{
    check_conv(&(conv_spec){{1, 64, 14, 14}, {128, 64, 1, 1}, 4, 1, .bias = 1}, "1x1");
}

static const struct {
    const char *name;
    float params[2];
    int n_params;
} acts[] = {{"", {0}, 0},
            {"Relu", {0}, 0},
            {"Clip", {-0.5f, 0.7f}, 2},
            {"LeakyRelu", {0.1f}, 1},
            {"Sigmoid", {0}, 0},
            {"HardSigmoid", {0.3f, 0.4f}, 2},
            {"Tanh", {0}, 0},
            {"HardSwish", {0}, 0},
            {"Silu", {0}, 0},
            {"Gelu", {0}, 0}};

/* FusedConv(X, W, B, Z) with each activation. */
Test(dnnl_conv, fused_residual_each_activation)
{
    conv_spec s = {{2, 8, 11, 9}, {16, 8, 3, 3}, 4, 1, {1, 1, 1, 1}, .has_pads = 1, .bias = 1};
    int64_t y[4] = {2, 16, 11, 9};
    for (size_t a = 0; a < sizeof acts / sizeof acts[0]; a++) {
        kh_case c;
        conv_case(&c, "FusedConv", &s, 4, 21);
        dt_input(&c, 3, y, 4, 99);
        kh_attr_string(&c, "activation", acts[a].name);
        if (acts[a].n_params)
            kh_attr_floats(&c, "activation_params", acts[a].params, acts[a].n_params);
        char what[64];
        snprintf(what, sizeof what, "FusedConv + Z + '%s'", acts[a].name);
        dt_check(&c, 0x6, 1, what);
        dt_free_inputs(&c);
    }
}

/* 3-D FusedConv with a residual and an activation: oneDNN runs it in a
 * blocked layout (dnnl_conv_blocked.c), X and Z reordered in, Y out. */
Test(dnnl_conv, three_d_blocked_with_residual)
{
    conv_spec s = {{1, 16, 4, 9, 7}, {32, 16, 3, 3, 3}, 5, 1, {1, 1, 1, 1, 1, 1}, .has_pads = 1,
                   .bias = 1};
    int64_t y[5] = {1, 32, 4, 9, 7};
    static const char *const act[] = {"", "Relu"};
    for (int a = 0; a < 2; a++) {
        kh_case c;
        conv_case(&c, "FusedConv", &s, 4, 31);
        dt_input(&c, 3, y, 5, 77);
        kh_attr_string(&c, "activation", act[a]);
        dt_check(&c, 0x6, 1, act[a][0] ? "3-D FusedConv + Z + Relu" : "3-D FusedConv + Z");
        dt_check(&c, 0x6, 2, "3-D FusedConv + Z, 2 threads");
        dt_free_inputs(&c);
    }
}

static void to_layout(const float *src, float *dst, const int64_t *d, int to_nhwc)
{
    /* d: N, C, H, W */
    for (int64_t n = 0; n < d[0]; n++)
        for (int64_t ch = 0; ch < d[1]; ch++)
            for (int64_t h = 0; h < d[2]; h++)
                for (int64_t w = 0; w < d[3]; w++) {
                    int64_t nchw = ((n * d[1] + ch) * d[2] + h) * d[3] + w;
                    int64_t nhwc = ((n * d[2] + h) * d[3] + w) * d[1] + ch;
                    if (to_nhwc)
                        dst[nhwc] = src[nchw];
                    else
                        dst[nchw] = src[nhwc];
                }
}

/* kiln.NhwcConv: the oneDNN kernel against the CPU fallback, and the
 * fallback (transposed back) against FusedConv on the NCHW data. */
Test(dnnl_conv, nhwc_conv_and_its_cpu_fallback)
{
    conv_spec s = {
        {2, 12, 13, 11}, {24, 6, 3, 3}, 4, 2, {1, 2, 1, 0}, {2, 2}, {1, 1}, 1, 1, 0, 1, NULL};
    kh_case ref;
    conv_case(&ref, "FusedConv", &s, 4, 31);
    int64_t yn[4] = {2, 24, 7, 6}, yh[4] = {2, 7, 6, 24}, xh[4] = {2, 13, 11, 12};
    dt_input(&ref, 3, yn, 4, 41);
    kh_attr_string(&ref, "activation", "Relu");
    float *want = NULL;
    kn_tensor wd;
    cr_assert_eq(dt_run(&ref, &kn_backend_cpu, 0x6, 1, &want, &wd), KN_OK, "%s", ref.err.msg);
    cr_assert(kn_shape_equal(wd.dims, 4, yn, 4));

    kh_case c = ref; /* same attributes, NHWC data */
    c.node.op_type = "NhwcConv";
    c.node.attrs = c.attrs;
    float *x = malloc(sizeof(float) * 2 * 12 * 13 * 11), *z = malloc(sizeof(float) * 2 * 24 * 42);
    to_layout(ref.in[0].data, x, s.x, 1);
    to_layout(ref.in[3].data, z, yn, 1);
    kh_input(&c, 0, KN_FLOAT, xh, 4, x);
    kh_input(&c, 3, KN_FLOAT, yh, 4, z);
    dt_check(&c, 0x6, 2, "NhwcConv oneDNN vs CPU");
    float *got = NULL, *back = malloc(sizeof(float) * 2 * 24 * 42);
    kn_tensor gd;
    cr_assert_eq(dt_run(&c, &kn_backend_cpu, 0x6, 1, &got, &gd), KN_OK, "%s", c.err.msg);
    cr_assert(kn_shape_equal(gd.dims, 4, yh, 4));
    to_layout(got, back, yn, 0);
    dt_assert_close(back, want, kn_tensor_numel(&wd), 1e-6, "NhwcConv CPU vs FusedConv");
    free(got);
    free(back);
    free(want);
    free(x);
    free(z);
    dt_free_inputs(&ref);
}

/* One pixel (a squeeze-and-excitation block's 1x1 convolutions): NHWC and
 * NCHW are the same bytes, so the CPU NhwcConv runs its inner kernel in
 * place; it must still match FusedConv, residual and activation included. */
Test(dnnl_conv, nhwc_cpu_one_pixel)
{
    conv_spec s = {{2, 12, 1, 1}, {24, 12, 1, 1}, 4, 1, .bias = 1};
    kh_case ref;
    conv_case(&ref, "FusedConv", &s, 4, 51);
    int64_t y[4] = {2, 24, 1, 1};
    dt_input(&ref, 3, y, 4, 52);
    kh_attr_string(&ref, "activation", "Sigmoid");
    float *want = NULL, *got = NULL;
    kn_tensor wd, gd;
    cr_assert_eq(dt_run(&ref, &kn_backend_cpu, 0x6, 1, &want, &wd), KN_OK, "%s", ref.err.msg);
    kh_case c = ref; /* NHWC dims, the same data */
    c.node.op_type = "NhwcConv";
    c.node.attrs = c.attrs;
    c.in[0].dims[1] = 1, c.in[0].dims[2] = 1, c.in[0].dims[3] = 12;
    c.in[3].dims[1] = 1, c.in[3].dims[2] = 1, c.in[3].dims[3] = 24;
    cr_assert_eq(dt_run(&c, &kn_backend_cpu, 0x6, 2, &got, &gd), KN_OK, "%s", c.err.msg);
    cr_assert(kn_shape_equal(gd.dims, 4, (int64_t[]){2, 1, 1, 24}, 4));
    dt_assert_close(got, want, 48, 1e-6, "one-pixel NhwcConv vs FusedConv");
    free(want);
    free(got);
    dt_free_inputs(&ref);
}

/* A residual Z that only broadcasts to Y ([N, 1, 1, C]: the layout pass
 * folds an Add of a pooled value into the conv, as in
 * tests/data/models/opt_conv_residual.onnx). oneDNN's kernel declines it;
 * the CPU fallback adds it after the conv and gives what the same node
 * with Z spelled out at Y's shape gives (it used to refuse the node, and
 * with it the whole session). */
Test(dnnl_conv, nhwc_broadcast_residual)
{
    static const int64_t pads[] = {1, 1, 1, 1};
    const int64_t x[] = {2, 5, 6, 4}, w[] = {8, 4, 3, 3}, b[] = {8}, zb[] = {2, 1, 1, 8},
                  zf[] = {2, 5, 6, 8};
    kh_case c;
    kh_init(&c, "NhwcConv", 1, 4, 1);
    c.node.domain = "kiln";
    kh_attr_ints(&c, "pads", pads, 4);
    kh_attr_string(&c, "activation", "Relu");
    dt_input(&c, 0, x, 4, 71);
    dt_input(&c, 1, w, 4, 72);
    dt_input(&c, 2, b, 1, 73);
    dt_input(&c, 3, zb, 4, 74);
    float *got = NULL, *want = NULL, *full = malloc(sizeof(float) * 2 * 5 * 6 * 8);
    const float *z = c.in[3].data;
    for (int64_t i = 0; i < 2 * 5 * 6 * 8; i++)
        full[i] = z[i / (5 * 6 * 8) * 8 + i % 8];
    kn_tensor gd, wd;
    cr_assert_eq(dt_run(&c, &kn_backend_cpu, 0x6, 1, &got, &gd), KN_OK, "%s", c.err.msg);
    kh_case f = c;
    f.node.attrs = f.attrs;
    kh_input(&f, 3, KN_FLOAT, zf, 4, full);
    cr_assert_eq(dt_run(&f, &kn_backend_cpu, 0x6, 1, &want, &wd), KN_OK, "%s", f.err.msg);
    cr_assert(kn_shape_equal(gd.dims, 4, zf, 4));
    dt_assert_close(got, want, 2 * 5 * 6 * 8, 1e-6, "broadcast Z vs the same Z spelled out");
    free(got);
    free(want);
    free(full);
    dt_free_inputs(&c);
}

/* A kiln.NhwcConv case: X [1, h, w, c] NHWC, W [o, c, 3, 3], B [o],
 * pads 1, activation act. */
static void nhwc_3x3_case(kh_case *c, int64_t h, int64_t w, int64_t ci, int64_t co,
                          const char *act)
{
    static const int64_t pads[] = {1, 1, 1, 1}; /* the attribute keeps the pointer */
    kh_init(c, "NhwcConv", 1, 3, 1);
    c->node.domain = "kiln";
    kh_attr_ints(c, "pads", pads, 4);
    kh_attr_string(c, "activation", act);
    dt_input(c, 0, (int64_t[]){1, h, w, ci}, 4, 61);
    dt_input(c, 1, (int64_t[]){co, ci, 3, 3}, 4, 62);
    dt_input(c, 2, (int64_t[]){co}, 1, 63);
}

/* Scratch the oneDNN kernel asks for in prepare (W and B constant). */
static size_t dnnl_scratch_bytes(kh_case *c)
{
    size_t bytes = 0;
    cr_assert_eq(kh_prepare_kernel(c, &kn_backend_dnnl, 0x6, &bytes), KN_OK, "%s", c->err.msg);
    return bytes;
}

/* 3x3 stride-1 layers with whole 16-channel blocks take oneDNN's Winograd
 * kernel where it has one: X and Y staged in scratch as nChw16c (so the
 * scratch holds at least both). Either way the result agrees with Kiln's
 * direct CPU kernel. Silu runs after the primitive, on the reordered-back
 * Y. */
Test(dnnl_conv, winograd_3x3)
{
    const int wino = dt_winograd_available();
    if (!wino)
        cr_log_info("no AVX-512 for oneDNN: checking the direct fallback only");
    const char *acts[] = {"Relu", "Silu", ""};
    for (int a = 0; a < 3; a++)
        for (int threads = 1; threads <= 2; threads++) {
            kh_case c;
            nhwc_3x3_case(&c, 19, 23, 32, 48, acts[a]);
            size_t staged = sizeof(float) * 19 * 23 * (32 + 48);
            if (wino)
                cr_assert_geq(dnnl_scratch_bytes(&c), staged, "Winograd not taken ('%s')",
                              acts[a]);
            dt_check(&c, 0x6, threads, acts[a]);
            dt_free_inputs(&c);
        }
    /* 24 input channels are not whole 16-blocks: the direct kernel, with
     * only its own scratchpad */
    kh_case c;
    nhwc_3x3_case(&c, 19, 23, 24, 48, "Relu");
    cr_assert_lt(dnnl_scratch_bytes(&c), sizeof(float) * 19 * 23 * 24, "direct expected");
    dt_check(&c, 0x6, 1, "24 channels");
    dt_free_inputs(&c);
}

Test(dnnl_conv, declines)
{
    kh_case c;
    conv_spec s = {{1, 8, 12, 12}, {16, 8, 3, 3}, 4, 1, .bias = 1};
    conv_case(&c, "Conv", &s, 3, 5);
    dt_check_declines(&c, 0x4, "weights computed at run time");
    dt_free_inputs(&c);
    conv_spec tiny = {{1, 1, 8, 8}, {8, 1, 3, 3}, 4, 1, {1, 1, 1, 1}, .has_pads = 1};
    conv_case(&c, "Conv", &tiny, 2, 5);
    dt_check_declines(&c, 0x2, "too small to pay for a oneDNN call");
    dt_free_inputs(&c);
    /* a Conformer's depthwise 1-D layer: oneDNN would run it as GEMM */
    conv_spec dw1d = {{1, 80, 200}, {80, 1, 31}, 3, 80, {15, 15}, .has_pads = 1, .bias = 1};
    conv_case(&c, "Conv", &dw1d, 3, 5);
    dt_check_declines(&c, 0x6, "grouped 1-D convolution");
    dt_free_inputs(&c);
}

#else

Test(dnnl, needs_onednn)
{
    cr_skip_test("Kiln was built without oneDNN (KILN_WITH_DNNL): no oneDNN kernels to test");
}

#endif
