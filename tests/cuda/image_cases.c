#include "tests/cuda/image_cases.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const kn_backend kn_backend_cuda;

typedef struct resize_spec {
    const char *what, *mode, *ctm, *nearest; /* NULL: the attribute left out */
    int64_t opset;
    int32_t dtype, rank;
    int64_t x[5];
    int32_t n_values; /* scales (float) when scales, else sizes */
    int scales;
    float sc[5];
    int64_t sz[5];
    int32_t n_axes; /* opset 18 axes when not 0 */
    int64_t axes[5];
    float cubic_a; /* 0: left out */
    int exclude_outside;
} resize_spec;

/* X of any dtype from the float fill: integers get small whole values. */
static void *fill_x(int32_t dtype, int64_t n, unsigned seed)
{
    float *f = malloc((size_t)n * sizeof *f + 4);
    fill(f, (size_t)n, seed);
    if (dtype == KN_FLOAT)
        return f;
    void *x = malloc((size_t)n * 8 + 4);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = (int64_t)(f[i] * 100);
        switch (dtype) {
        case KN_UINT8: ((uint8_t *)x)[i] = (uint8_t)(v + 100); break;
        case KN_INT16: ((int16_t *)x)[i] = (int16_t)v; break;
        default: ((int64_t *)x)[i] = v; break;
        }
    }
    free(f);
    return x;
}

/* Builds the node: inputs X, roi (omitted), scales, sizes at opset 11+;
 * X, scales at opset 10 and Upsample 9. */
static void build(kh_case *c, const resize_spec *s, const char *op, unsigned seed)
{
    int old = s->opset < 11;
    kh_init(c, op, s->opset, old ? 2 : 4, 1);
    kh_input(c, 0, s->dtype, s->x, s->rank, fill_x(s->dtype, kn_shape_numel(s->x, s->rank), seed));
    if (s->mode)
        kh_attr_string(c, "mode", s->mode);
    if (s->ctm)
        kh_attr_string(c, "coordinate_transformation_mode", s->ctm);
    if (s->nearest)
        kh_attr_string(c, "nearest_mode", s->nearest);
    if (s->cubic_a != 0)
        kh_attr_float(c, "cubic_coeff_a", s->cubic_a);
    if (s->exclude_outside)
        kh_attr_int(c, "exclude_outside", 1);
    if (s->n_axes)
        kh_attr_ints(c, "axes", s->axes, s->n_axes);
    const int64_t n[] = {s->n_values};
    if (s->scales)
        kh_input(c, old ? 1 : 2, KN_FLOAT, n, 1, s->sc);
    else
        kh_input(c, 3, KN_INT64, n, 1, s->sz);
}

#define SC(...) .scales = 1, .sc = {__VA_ARGS__}
#define SZ(...) .sz = {__VA_ARGS__}
// clang-format off
static const resize_spec CASES[] = {
    {.what = "nearest half_pixel round_prefer_floor x2 x3", .mode = "nearest", .opset = 13,
        .dtype = KN_FLOAT, .rank = 4, .x = {2, 3, 4, 5}, .n_values = 4, SC(1, 1, 2, 3)},
    {.what = "nearest asymmetric floor, downscale", .mode = "nearest", .ctm = "asymmetric",
        .nearest = "floor", .opset = 13, .dtype = KN_FLOAT, .rank = 4, .x = {2, 3, 8, 10},
        .n_values = 4, SC(1, 1, 0.5f, 0.6f)},
    {.what = "nearest align_corners round_prefer_ceil, sizes", .mode = "nearest",
        .ctm = "align_corners", .nearest = "round_prefer_ceil", .opset = 13, .dtype = KN_FLOAT,
        .rank = 4, .x = {2, 3, 4, 5}, .n_values = 4, SZ(2, 3, 7, 9)},
    {.what = "nearest tf_half_pixel_for_nn ceil, int64", .mode = "nearest",
        .ctm = "tf_half_pixel_for_nn", .nearest = "ceil", .opset = 13, .dtype = KN_INT64,
        .rank = 4, .x = {1, 2, 5, 4}, .n_values = 4, SZ(1, 2, 9, 7)},
    {.what = "nearest pytorch_half_pixel, uint8", .mode = "nearest",
        .ctm = "pytorch_half_pixel", .opset = 13, .dtype = KN_UINT8, .rank = 3, .x = {2, 6, 7},
        .n_values = 3, SC(1, 1.5f, 0.7f)},
    {.what = "nearest half_pixel_symmetric, int16", .mode = "nearest",
        .ctm = "half_pixel_symmetric", .opset = 19, .dtype = KN_INT16, .rank = 4,
        .x = {1, 2, 5, 6}, .n_values = 4, SC(1, 1, 1.7f, 2.5f)},
    {.what = "linear half_pixel x2", .mode = "linear", .opset = 13, .dtype = KN_FLOAT, .rank = 4,
        .x = {2, 3, 4, 5}, .n_values = 4, SC(1, 1, 2, 2)},
    {.what = "linear align_corners, sizes", .mode = "linear", .ctm = "align_corners",
        .opset = 13, .dtype = KN_FLOAT, .rank = 4, .x = {2, 3, 4, 5}, .n_values = 4,
        SZ(2, 3, 7, 11)},
    {.what = "linear pytorch_half_pixel, downscale to one column", .mode = "linear",
        .ctm = "pytorch_half_pixel", .opset = 13, .dtype = KN_FLOAT, .rank = 4,
        .x = {2, 3, 6, 5}, .n_values = 4, SZ(2, 3, 3, 1)},
    {.what = "linear half_pixel_symmetric", .mode = "linear", .ctm = "half_pixel_symmetric",
        .opset = 19, .dtype = KN_FLOAT, .rank = 4, .x = {1, 2, 5, 6}, .n_values = 4,
        SC(1, 1, 1.5f, 0.8f)},
    {.what = "linear asymmetric channels-last (axes 1, 2)", .mode = "linear",
        .ctm = "asymmetric", .opset = 18, .dtype = KN_FLOAT, .rank = 4, .x = {2, 5, 4, 3},
        .n_values = 2, SZ(8, 7), .n_axes = 2, .axes = {1, 2}},
    {.what = "linear half_pixel 5-D (trilinear)", .mode = "linear", .opset = 13,
        .dtype = KN_FLOAT, .rank = 5, .x = {1, 2, 3, 4, 5}, .n_values = 5, SC(1, 1, 2, 1.5f, 2)},
    {.what = "cubic half_pixel x2", .mode = "cubic", .opset = 13, .dtype = KN_FLOAT, .rank = 4,
        .x = {1, 2, 6, 7}, .n_values = 4, SC(1, 1, 2, 2)},
    {.what = "cubic align_corners a=-0.5, sizes", .mode = "cubic", .ctm = "align_corners",
        .opset = 13, .dtype = KN_FLOAT, .rank = 4, .x = {1, 2, 8, 9}, .n_values = 4,
        SZ(1, 2, 5, 13), .cubic_a = -0.5f},
    {.what = "opset 10 nearest", .mode = "nearest", .opset = 10, .dtype = KN_FLOAT, .rank = 4,
        .x = {1, 2, 3, 4}, .n_values = 4, SC(1, 1, 2, 2.5f)},
    {.what = "opset 10 linear", .mode = "linear", .opset = 10, .dtype = KN_FLOAT, .rank = 4,
        .x = {1, 2, 3, 4}, .n_values = 4, SC(1, 1, 2, 0.5f)},
};
// clang-format on

void resize_cases(cuda_check_fn check, double tol)
{
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const resize_spec *s = &CASES[i];
        kh_case c;
        build(&c, s, "Resize", 300 + (unsigned)i);
        /* scales and sizes are constants, as in exported models */
        check(&c, 0xe, s->mode && strcmp(s->mode, "nearest") == 0 ? 0 : tol, s->what);
        free(c.in[0].data);
    }
    const resize_spec up = {.what = "Upsample 9 linear",
                            .mode = "linear",
                            .opset = 9,
                            .dtype = KN_FLOAT,
                            .rank = 4,
                            .x = {1, 2, 3, 4},
                            .n_values = 4,
                            SC(1, 1, 2, 3)};
    kh_case c;
    build(&c, &up, "Upsample", 350);
    check(&c, 0x2, tol, up.what);
    free(c.in[0].data);
}

void pad_cases(cuda_check_fn check)
{
    static const char *const modes[] = {"constant", "reflect", "edge", "wrap"};
    static const int64_t pads[] = {0, 1, 2, 3, 0, 2, 1, 4}; /* begins, then ends */
    static const int64_t crop[] = {0, -1, 2, 1, 0, 1, -2, 3};
    static const int64_t axes[] = {-1, 1}, axes_pads[] = {3, 1, 2, 4};
    static const float value = 2.5f;
    static const int64_t four[] = {4}, eight[] = {8}, two[] = {2};
    const int64_t x[] = {2, 3, 4, 5};
    for (int m = 0; m < 4; m++)
        for (int negative = 0; negative < 2; negative++) {
            kh_case c;
            kh_init(&c, "Pad", 19, 3, 1);
            kh_attr_string(&c, "mode", modes[m]);
            rand_input(&c, 0, x, 4, 500 + (unsigned)m);
            kh_input(&c, 1, KN_INT64, eight, 1, negative ? crop : pads);
            if (m == 0)
                kh_input(&c, 2, KN_FLOAT, NULL, 0, &value);
            char what[64];
            snprintf(what, sizeof what, "Pad %s%s", modes[m], negative ? ", negative pads" : "");
            check(&c, 0x6, 0, what);
            free(c.in[0].data);
        }
    /* opset 18's axes, on int64 */
    kh_case c;
    kh_init(&c, "Pad", 18, 4, 1);
    kh_attr_string(&c, "mode", "reflect");
    int64_t *xi = malloc(sizeof(int64_t) * 120);
    for (int i = 0; i < 120; i++)
        xi[i] = i * 7 - 300;
    kh_input(&c, 0, KN_INT64, x, 4, xi);
    kh_input(&c, 1, KN_INT64, four, 1, axes_pads);
    kh_input(&c, 3, KN_INT64, two, 1, axes);
    check(&c, 0xe, 0, "Pad reflect with axes, int64");
    free(xi);
    /* opset 2's attributes, on uint8 with a constant */
    static const int64_t pads2[] = {1, 0, 2, 2, 1, 1};
    kh_init(&c, "Pad", 2, 1, 1);
    kh_attr_ints(&c, "pads", pads2, 6);
    kh_attr_float(&c, "value", 7);
    const int64_t x3[] = {3, 4, 5};
    uint8_t *xu = malloc(60);
    for (int i = 0; i < 60; i++)
        xu[i] = (uint8_t)(i * 13);
    kh_input(&c, 0, KN_UINT8, x3, 3, xu);
    check(&c, 0, 0, "Pad opset 2, uint8");
    free(xu);
}

typedef struct window_spec {
    const char *op, *what, *auto_pad;
    int64_t x[5];
    int32_t rank, nsp;
    int64_t kernel[3], strides[3], pads[6], dilations[3];
    int ceil_mode, has_pads, has_dilations, include_pad;
} window_spec;

void pool_window_cases(cuda_check_fn check, double tol)
{
    // clang-format off
    static const window_spec cases[] = {
        {.op = "MaxPool", .what = "MaxPool ceil_mode adds a window", .x = {2, 3, 10, 9}, .rank = 4,
            .nsp = 2, .kernel = {3, 3}, .strides = {2, 2}, .ceil_mode = 1},
        {.op = "MaxPool", .what = "MaxPool asymmetric pads", .x = {2, 3, 8, 7}, .rank = 4,
            .nsp = 2, .kernel = {3, 2}, .strides = {1, 2}, .pads = {0, 1, 2, 0}, .has_pads = 1},
        {.op = "MaxPool", .what = "MaxPool dilations", .x = {1, 2, 11, 10}, .rank = 4, .nsp = 2,
            .kernel = {3, 3}, .strides = {1, 1}, .dilations = {2, 3}, .has_dilations = 1},
        {.op = "MaxPool", .what = "MaxPool SAME_LOWER, stride 2", .auto_pad = "SAME_LOWER",
            .x = {1, 3, 8, 8}, .rank = 4, .nsp = 2, .kernel = {2, 2}, .strides = {2, 2}},
        {.op = "MaxPool", .what = "MaxPool 1-D asymmetric", .x = {2, 4, 15}, .rank = 3, .nsp = 1,
            .kernel = {4}, .strides = {3}, .pads = {2, 0}, .has_pads = 1},
        {.op = "MaxPool", .what = "MaxPool 3-D ceil_mode", .x = {1, 2, 5, 6, 7}, .rank = 5,
            .nsp = 3, .kernel = {2, 2, 2}, .strides = {2, 2, 2}, .ceil_mode = 1},
        {.op = "NhwcMaxPool", .what = "NhwcMaxPool ceil_mode", .x = {2, 10, 9, 5}, .rank = 4,
            .nsp = 2, .kernel = {3, 3}, .strides = {2, 2}, .ceil_mode = 1},
        {.op = "AveragePool", .what = "AveragePool asymmetric pads", .x = {2, 3, 8, 7},
            .rank = 4, .nsp = 2, .kernel = {3, 3}, .strides = {2, 1}, .pads = {1, 0, 0, 2},
            .has_pads = 1},
        {.op = "NhwcAveragePool", .what = "NhwcAveragePool ceil_mode", .x = {2, 10, 9, 5},
            .rank = 4, .nsp = 2, .kernel = {3, 3}, .strides = {2, 2}, .ceil_mode = 1},
        {.op = "AveragePool", .what = "AveragePool count_include_pad, asymmetric, ceil_mode",
            .x = {2, 3, 9, 8}, .rank = 4, .nsp = 2, .kernel = {3, 3}, .strides = {2, 2},
            .pads = {1, 0, 0, 1}, .has_pads = 1, .ceil_mode = 1, .include_pad = 1},
        {.op = "NhwcAveragePool", .what = "NhwcAveragePool count_include_pad, SAME_UPPER",
            .auto_pad = "SAME_UPPER", .x = {1, 7, 6, 4}, .rank = 4, .nsp = 2, .kernel = {2, 3},
            .strides = {2, 2}, .include_pad = 1},
    };
    // clang-format on
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const window_spec *s = &cases[i];
        int nhwc = strncmp(s->op, "Nhwc", 4) == 0;
        kh_case c;
        kh_init(&c, s->op, nhwc ? 1 : 19, 1, 1);
        if (nhwc)
            c.node.domain = "kiln";
        kh_attr_ints(&c, "kernel_shape", s->kernel, s->nsp);
        kh_attr_ints(&c, "strides", s->strides, s->nsp);
        if (s->has_pads)
            kh_attr_ints(&c, "pads", s->pads, 2 * s->nsp);
        if (s->has_dilations)
            kh_attr_ints(&c, "dilations", s->dilations, s->nsp);
        if (s->ceil_mode)
            kh_attr_int(&c, "ceil_mode", 1);
        if (s->auto_pad)
            kh_attr_string(&c, "auto_pad", s->auto_pad);
        if (s->include_pad)
            kh_attr_int(&c, "count_include_pad", 1);
        rand_input(&c, 0, s->x, s->rank, 600 + (unsigned)i);
        check(&c, 0, strstr(s->op, "Max") ? 0 : tol, s->what);
        free_inputs(&c);
    }
}

void uneven_pad_conv_cases(cuda_check_fn check, double tol)
{
    static const int64_t p0121[] = {0, 1, 2, 1}, p1001[] = {1, 0, 0, 1}, p1032[] = {1, 0, 3, 2},
                         p20[] = {2, 0}, s2[] = {2, 2}, s1x2[] = {1, 2}, s3[] = {3};
    // clang-format off
    const conv_spec cases[] = {
        {.op = "Conv", .what = "Conv pads 0,1,2,1", .pads = p0121, .n_pads = 4,
            .x = {2, 4, 7, 7}, .w = {6, 4, 3, 3}, .rank = 4, .bias = 1},
        {.op = "FusedConv", .activation = "Relu", .what = "FusedConv pads 1,0,0,1 stride 2 + Z",
            .pads = p1001, .n_pads = 4, .strides = s2, .n_strides = 2, .x = {2, 4, 9, 8},
            .w = {6, 4, 3, 3}, .z = {2, 6, 4, 4}, .rank = 4, .z_rank = 4, .bias = 1},
        {.op = "NhwcConv", .activation = "Sigmoid", .what = "NhwcConv pads 1,0,3,2 grouped",
            .group = 2, .pads = p1032, .n_pads = 4, .strides = s1x2, .n_strides = 2,
            .x = {1, 6, 7, 4}, .w = {6, 2, 3, 2}, .rank = 4, .bias = 1},
        {.op = "Conv", .what = "Conv 1-D pads 2,0 stride 3", .pads = p20, .n_pads = 2,
            .strides = s3, .n_strides = 1, .x = {2, 3, 16}, .w = {5, 3, 4}, .rank = 3},
    };
    // clang-format on
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        conv_case(check, &cases[i], 700 + 4 * (unsigned)i, tol);
    /* SAME_UPPER with a stride: 1 row of padding at the end only */
    static const int64_t x[] = {1, 3, 8, 8}, w[] = {4, 3, 3, 3};
    kh_case c;
    kh_init(&c, "Conv", 11, 2, 1);
    kh_attr_string(&c, "auto_pad", "SAME_UPPER");
    kh_attr_ints(&c, "strides", s2, 2);
    rand_input(&c, 0, x, 4, 720);
    rand_input(&c, 1, w, 4, 721);
    check(&c, 0x2, tol, "Conv SAME_UPPER stride 2");
    free_inputs(&c);
}

void resize_declined_cases(void *device)
{
    // clang-format off
    static const resize_spec declined[] = {
        {.what = "tf_crop_and_resize", .mode = "linear", .ctm = "tf_crop_and_resize",
            .opset = 13, .dtype = KN_FLOAT, .rank = 4, .x = {1, 1, 4, 4}, .n_values = 4,
            SZ(1, 1, 3, 3)},
        {.what = "linear on int64", .mode = "linear", .opset = 13, .dtype = KN_INT64, .rank = 4,
            .x = {1, 1, 4, 4}, .n_values = 4, SC(1, 1, 2, 2)},
        {.what = "exclude_outside", .mode = "cubic", .opset = 13, .dtype = KN_FLOAT, .rank = 4,
            .x = {1, 1, 4, 4}, .n_values = 4, SC(1, 1, 2, 2), .exclude_outside = 1},
    };
    // clang-format on
    for (size_t i = 0; i < sizeof declined / sizeof declined[0]; i++) {
        kh_case c;
        build(&c, &declined[i], "Resize", 400 + (unsigned)i);
        kn_err err = {0};
        kn_tensor in[4], out = {0}, *ins[4] = {NULL}, *outs[1] = {&out};
        for (int32_t j = 0; j < c.n_in; j++)
            if (c.in[j].data) {
                in[j] = c.in[j];
                ins[j] = &in[j];
            }
        kn_kctx k = {.node = &c.node,
                     .opset = c.opset,
                     .n_in = c.n_in,
                     .n_out = 1,
                     .in = ins,
                     .out = outs,
                     .err = &err,
                     .device = device};
        const kn_op_def *def =
            kn_backend_kernel(&kn_backend_cuda, "", "Resize", c.opset, c.in[0].dtype);
        cr_assert_not_null(def);
        cr_assert_eq(def->prepare(&k), KN_ERR_DECLINE, "%s: not declined", declined[i].what);
        free(c.in[0].data);
    }
}
