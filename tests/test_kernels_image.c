/* Image and spatial kernels (core/cpu/image/resize.c, pad.c, center_crop_pad.c,
 * conv_transpose.c, col2im.c, grid_sample.c, affine_grid.c, roi_align.c,
 * roi_pool.c, nms.c, unpool.c, lp_pool.c, reverse_sequence.c): values
 * worked out by hand in the comments, ConvTranspose against a naive
 * scatter written here, 1 vs 2 threads bit for bit, and error cases with
 * their codes and messages (value-dependent shapes must ask for the value
 * with KN_ERR_NEEDS_VALUE). */
#include "kernel_checks.h"

static kh_case c; /* one case per test; freed by the fini hook */
static void fini(void) { kh_free(&c); }
TestSuite(resize, .fini = fini);
TestSuite(pad, .fini = fini);
TestSuite(convt, .fini = fini);
TestSuite(sample, .fini = fini);
TestSuite(roi, .fini = fini);
TestSuite(misc, .fini = fini);

/* kh_init for a new case, freeing the previous case's outputs. */
static void start(const char *op, int64_t opset, int32_t n_in, int32_t n_out)
{
    kh_free(&c);
    kh_init(&c, op, opset, n_in, n_out);
}

static const float EMPTY_F[1] = {0};

/* ---- Resize / Upsample ------------------------------------------------- */

/* 1-D Resize (opset 13) of x to `size` outputs. */
static void resize_1d(const char *mode, const char *ctm, const float *x, int64_t n, int64_t size)
{
    static int64_t sz[1];
    sz[0] = size;
    start("Resize", 13, 4, 1);
    kh_attr_string(&c, "mode", mode);
    kh_attr_string(&c, "coordinate_transformation_mode", ctm);
    kh_input(&c, 0, KN_FLOAT, (int64_t[]){n}, 1, x);
    kh_input(&c, 3, KN_INT64, DIMS(1), sz);
}

Test(resize, nearest_and_linear_2d)
{
    static const float x[] = {1, 2, 3, 4};
    static const float scales[] = {1, 1, 2, 3};
    /* the Upsample spec example: each pixel repeated 2 x 3 times */
    start("Resize", 13, 3, 1);
    kh_attr_string(&c, "coordinate_transformation_mode", "asymmetric");
    kh_attr_string(&c, "nearest_mode", "floor");
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 2, 2), x);
    kh_input(&c, 2, KN_FLOAT, DIMS(4), scales);
    run_both(&c);
    expect_shape(&c.out[0], DIMS(1, 1, 4, 6));
    expect_f32(&c.out[0], (const float[]){1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2,
                                          3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4},
               24, 0);
    /* linear, half_pixel, x2: x_in = (x + 0.5) / 2 - 0.5 = -0.25, 0.25,
     * 0.75, 1.25; the ends clamp; 0.25 -> 0.75 * 1 + 0.25 * 2 = 1.25 */
    start("Resize", 13, 3, 1);
    kh_attr_string(&c, "mode", "linear");
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 2, 2), x);
    kh_input(&c, 2, KN_FLOAT, DIMS(4), (const float[]){1, 1, 2, 2});
    run_both(&c);
    expect_f32(&c.out[0],
               (const float[]){1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f,
                               3.5f, 3, 3.25f, 3.75f, 4},
               16, 1e-6);
}

Test(resize, coordinate_modes_and_cubic)
{
    static const float x[] = {1, 2, 3, 4};
    /* align_corners, 4 -> 7: x_in = x * 3 / 6 */
    resize_1d("linear", "align_corners", x, 4, 7);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){1, 1.5f, 2, 2.5f, 3, 3.5f, 4}, 7, 1e-6);
    /* cubic (a = -0.75), asymmetric, 4 -> 8 over 0..3: weights at half a
     * pixel are -0.09375, 0.59375, 0.59375, -0.09375, edges clamp:
     * x_in 0.5 reads 0,0,1,2 -> 0.40625; 2.5 reads 1,2,3,3 -> 2.59375 */
    static const float ramp[] = {0, 1, 2, 3};
    resize_1d("cubic", "asymmetric", ramp, 4, 8);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){0, 0.40625f, 1, 1.5f, 2, 2.59375f, 3, 3.09375f}, 8, 1e-6);
    /* tf_crop_and_resize, roi [0.5, 1.5], 3 outputs: x_in = 1.5 x + 1.5 =
     * 1.5, 3, 4.5; the last is outside [0, 3] -> extrapolation_value */
    start("Resize", 13, 4, 1);
    kh_attr_string(&c, "mode", "linear");
    kh_attr_string(&c, "coordinate_transformation_mode", "tf_crop_and_resize");
    kh_attr_float(&c, "extrapolation_value", 9);
    kh_input(&c, 0, KN_FLOAT, DIMS(4), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(2), (const float[]){0.5f, 1.5f});
    kh_input(&c, 3, KN_INT64, DIMS(1), (const int64_t[]){3});
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){2.5f, 4, 9}, 3, 1e-6);
}

Test(resize, nearest_modes)
{
    static const float x[] = {10, 20, 30, 40};
    /* asymmetric x2: x_in = 0, 0.5, 1, 1.5, ..., 3.5 */
    static const struct {
        const char *mode;
        float want[8];
    } cases[] = {
        {"round_prefer_floor", {10, 10, 20, 20, 30, 30, 40, 40}},
        {"round_prefer_ceil", {10, 20, 20, 30, 30, 40, 40, 40}},
        {"floor", {10, 10, 20, 20, 30, 30, 40, 40}},
        {"ceil", {10, 20, 20, 30, 30, 40, 40, 40}},
    };
    for (int i = 0; i < 4; i++) {
        resize_1d("nearest", "asymmetric", x, 4, 8);
        kh_attr_string(&c, "nearest_mode", cases[i].mode);
        run_ok(&c);
        expect_f32(&c.out[0], cases[i].want, 8, 0);
    }
}

Test(resize, integers_antialias_axes)
{
    /* uint8 linear rounds: x_in -0.25, 0.25, 0.75, 1.25 over {0, 255} give
     * 0, 63.75, 191.25, 255 */
    start("Resize", 13, 4, 1);
    kh_attr_string(&c, "mode", "linear");
    kh_input(&c, 0, KN_UINT8, DIMS(2), (const uint8_t[]){0, 255});
    kh_input(&c, 3, KN_INT64, DIMS(1), (const int64_t[]){4});
    run_ok(&c);
    expect_n(&c.out[0], KN_UINT8, (const uint8_t[]){0, 64, 191, 255}, 4);
    /* antialias halving 0..3: the triangle stretched x2 gives weights
     * 1/8, 3/8, 3/8, 1/8 around x_in = 0.5 and 2.5 (edges clamp) */
    start("Resize", 18, 3, 1);
    kh_attr_string(&c, "mode", "linear");
    kh_attr_int(&c, "antialias", 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(4), (const float[]){0, 1, 2, 3});
    kh_input(&c, 2, KN_FLOAT, DIMS(1), (const float[]){0.5f});
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){0.625f, 2.375f}, 2, 1e-6);
    /* axes + keep_aspect_ratio_policy: sizes (1, 3) on 2 x 4; not_larger
     * takes min(1/2, 3/4) for both axes -> 1 x 2 */
    static float x8[8];
    start("Resize", 18, 4, 1);
    kh_attr_ints(&c, "axes", (const int64_t[]){-2, -1}, 2);
    kh_attr_string(&c, "keep_aspect_ratio_policy", "not_larger");
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 4), x8);
    kh_input(&c, 3, KN_INT64, DIMS(2), (const int64_t[]){1, 3});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(1, 1, 2));
    /* bool goes through the gather path (nearest) */
    start("Resize", 13, 3, 1);
    kh_input(&c, 0, KN_BOOL, DIMS(2), (const uint8_t[]){1, 0});
    kh_input(&c, 2, KN_FLOAT, DIMS(1), (const float[]){2});
    run_ok(&c);
    expect_n(&c.out[0], KN_BOOL, (const uint8_t[]){1, 1, 0, 0}, 4);
}

Test(resize, upsample_and_opset10)
{
    /* Upsample 7: scales attribute; 9 and Resize 10: scales input; all
     * asymmetric + floor */
    start("Upsample", 7, 1, 1);
    kh_attr_floats(&c, "scales", (const float[]){2}, 1);
    kh_input(&c, 0, KN_INT32, DIMS(2), (const int32_t[]){5, 7});
    run_ok(&c);
    expect_n(&c.out[0], KN_INT32, (const int32_t[]){5, 5, 7, 7}, 4);
    start("Upsample", 9, 2, 1);
    kh_attr_string(&c, "mode", "linear");
    kh_input(&c, 0, KN_FLOAT, DIMS(2), (const float[]){0, 4});
    kh_input(&c, 1, KN_FLOAT, DIMS(1), (const float[]){2});
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){0, 2, 4, 4}, 4, 1e-6);
    start("Resize", 10, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), (const float[]){1, 2, 3});
    kh_input(&c, 1, KN_FLOAT, DIMS(1), (const float[]){0.7f}); /* floor(2.1) = 2 */
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){1, 2}, 2, 0); /* x_in 0, 1.43 */
}

Test(resize, threads_agree)
{
    static float x[3 * 17 * 19];
    for (int i = 0; i < 3 * 17 * 19; i++)
        x[i] = (float)((i * 37) % 101) / 7.0f;
    static const char *const modes[] = {"nearest", "linear", "cubic"};
    for (int m = 0; m < 3; m++) {
        start("Resize", 18, 3, 1);
        kh_attr_string(&c, "mode", modes[m]);
        kh_attr_int(&c, "antialias", m == 2);
        kh_input(&c, 0, KN_FLOAT, DIMS(1, 3, 17, 19), x);
        kh_input(&c, 2, KN_FLOAT, DIMS(4), (const float[]){1, 1, 1.7f, 0.6f});
        run_both(&c);
        expect_shape(&c.out[0], DIMS(1, 3, 28, 11));
    }
}

Test(resize, errors)
{
    static const float x[4];
    /* scales only known at run time: ask for the value */
    start("Resize", 13, 3, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_FLOAT, DIMS(4), x);
    kh_input(&c, 2, KN_FLOAT, DIMS(1), (const float[]){2});
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "value of input 'scales'");
    start("Resize", 13, 4, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(4), x);
    kh_input(&c, 2, KN_FLOAT, DIMS(1), (const float[]){2});
    kh_input(&c, 3, KN_INT64, DIMS(1), (const int64_t[]){8});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "only one of scales and sizes");
    start("Resize", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(4), x);
    kh_input(&c, 2, KN_FLOAT, DIMS(2), (const float[]){2, 2});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "scales has 2 values for 1 axes");
    start("Resize", 13, 3, 1);
    kh_attr_string(&c, "mode", "area");
    kh_input(&c, 0, KN_FLOAT, DIMS(4), x);
    kh_input(&c, 2, KN_FLOAT, DIMS(1), (const float[]){2});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "unknown mode 'area'");
    start("Resize", 13, 3, 1);
    kh_attr_string(&c, "mode", "linear");
    kh_input(&c, 0, KN_BOOL, DIMS(4), x);
    kh_input(&c, 2, KN_FLOAT, DIMS(1), (const float[]){2});
    expect_fail(&c, KN_ERR_DTYPE, "numeric type");
    start("Resize", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(4), x);
    kh_input(&c, 2, KN_FLOAT, DIMS(1), (const float[]){-1});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "must be > 0");
    start("Resize", 13, 4, 1);
    kh_attr_string(&c, "coordinate_transformation_mode", "tf_crop_and_resize");
    kh_input(&c, 0, KN_FLOAT, DIMS(4), x);
    kh_input(&c, 3, KN_INT64, DIMS(1), (const int64_t[]){2});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "roi");
    start("Resize", 13, 4, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(0), EMPTY_F);
    kh_input(&c, 3, KN_INT64, DIMS(1), (const int64_t[]){2});
    expect_fail(&c, KN_ERR_SHAPE, "empty");
}

/* ---- Pad / CenterCropPad ------------------------------------------------ */

static void pad_1d(int64_t opset, const char *mode, const float *x, int64_t n, int64_t pb,
                   int64_t pe)
{
    static int64_t pads[2];
    pads[0] = pb;
    pads[1] = pe;
    start("Pad", opset, 2, 1);
    kh_attr_string(&c, "mode", mode);
    kh_input(&c, 0, KN_FLOAT, (int64_t[]){n}, 1, x);
    kh_input(&c, 1, KN_INT64, DIMS(2), pads);
}

Test(pad, modes)
{
    static const float x[] = {1, 2, 3};
    pad_1d(13, "reflect", x, 3, 2, 2);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){3, 2, 1, 2, 3, 2, 1}, 7, 0);
    pad_1d(13, "edge", x, 3, 2, 1);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){1, 1, 1, 2, 3, 3}, 6, 0);
    pad_1d(19, "wrap", x, 3, 2, 2);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){2, 3, 1, 2, 3, 1, 2}, 7, 0);
    pad_1d(13, "constant", (const float[]){1, 2, 3, 4}, 4, -1, 1); /* crops in front */
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){2, 3, 4, 0}, 4, 0);
}

Test(pad, constant_2d_axes_and_attributes)
{
    /* pads [1, 0, 0, 2]: a row on top, two columns on the right, value 9 */
    start("Pad", 11, 3, 1);
    kh_input(&c, 0, KN_INT32, DIMS(2, 2), (const int32_t[]){1, 2, 3, 4});
    kh_input(&c, 1, KN_INT64, DIMS(4), (const int64_t[]){1, 0, 0, 2});
    kh_input(&c, 2, KN_INT32, (const int64_t[]){1}, 0, (const int32_t[]){9}); /* scalar */
    run_both(&c);
    expect_shape(&c.out[0], DIMS(3, 4));
    expect_data(&c.out[0], KN_INT32, (const int32_t[]){9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9});
    /* opset 18 axes: only the last axis, one on each side */
    start("Pad", 18, 4, 1);
    kh_input(&c, 0, KN_UINT16, DIMS(2, 2), (const uint16_t[]){1, 2, 3, 4});
    kh_input(&c, 1, KN_INT64, DIMS(2), (const int64_t[]){1, 1});
    kh_input(&c, 3, KN_INT64, DIMS(1), (const int64_t[]){-1});
    run_ok(&c);
    expect_data(&c.out[0], KN_UINT16, (const uint16_t[]){0, 1, 2, 0, 0, 3, 4, 0});
    /* opset 2: pads and value are attributes */
    start("Pad", 2, 1, 1);
    kh_attr_ints(&c, "pads", (const int64_t[]){0, 1}, 2);
    kh_attr_float(&c, "value", 1.5f);
    kh_input(&c, 0, KN_DOUBLE, DIMS(1), (const double[]){7});
    run_ok(&c);
    expect_data(&c.out[0], KN_DOUBLE, (const double[]){7, 1.5});
}

Test(pad, errors)
{
    static const float x[3];
    start("Pad", 13, 2, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_FLOAT, DIMS(3), x);
    kh_input(&c, 1, KN_INT64, DIMS(2), (const int64_t[]){1, 1});
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "value of input 'pads'");
    start("Pad", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), x);
    kh_input(&c, 1, KN_INT64, DIMS(3), (const int64_t[]){1, 1, 1});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "3 pads for 1 axes");
    pad_1d(18, "wrap", x, 3, 1, 1);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "unknown mode 'wrap'");
    pad_1d(13, "constant", x, 3, -2, -2);
    expect_fail(&c, KN_ERR_SHAPE, "negative size");
    pad_1d(13, "edge", EMPTY_F, 0, 1, 1);
    expect_fail(&c, KN_ERR_SHAPE, "empty axis");
    start("Pad", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), x);
    kh_input(&c, 1, KN_INT64, DIMS(2), (const int64_t[]){1, 1});
    kh_input(&c, 2, KN_DOUBLE, (const int64_t[]){1}, 0, (const double[]){1});
    expect_fail(&c, KN_ERR_DTYPE, "constant_value is float64");
}

Test(pad, center_crop_pad)
{
    static const float x[] = {1, 2, 3, 4, 5};
    static const struct {
        int64_t size, n;
        float want[5];
    } cases[] = {
        {3, 3, {2, 3, 4}},       /* crop 2: one from each end */
        {4, 4, {1, 2, 3, 4}},    /* crop 1: the odd one from the end */
        {5, 5, {1, 2, 3, 4, 5}}, /* unchanged */
    };
    for (int i = 0; i < 3; i++) {
        start("CenterCropPad", 18, 2, 1);
        kh_input(&c, 0, KN_FLOAT, DIMS(5), x);
        kh_input(&c, 1, KN_INT64, DIMS(1), &cases[i].size);
        run_ok(&c);
        expect_f32(&c.out[0], cases[i].want, cases[i].n, 0);
    }
    /* pad 3 along axis 1 only (axes attribute): one before, two after */
    start("CenterCropPad", 18, 2, 1);
    kh_attr_ints(&c, "axes", (const int64_t[]){1}, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2), x);
    kh_input(&c, 1, KN_INT64, DIMS(1), (const int64_t[]){5});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(1, 5));
    expect_f32(&c.out[0], (const float[]){0, 1, 2, 0, 0}, 5, 0);
    start("CenterCropPad", 18, 2, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_FLOAT, DIMS(5), x);
    kh_input(&c, 1, KN_INT64, DIMS(1), (const int64_t[]){3});
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "value of input 'shape'");
}

/* ---- ConvTranspose / Col2Im --------------------------------------------- */

typedef struct convt_spec {
    int nsp;
    int64_t n, cin, cout, group, in[3], k[3], s[3], d[3], pads[6], opad[3];
} convt_spec;

/* The definition: every input element scatters w * x into the output
 * window it spans. Output size from the spec formula. */
static void convt_reference(const convt_spec *p, const double *x, const double *w, const double *b,
                            double *y, int64_t *out)
{
    int64_t osz = 1, isz = 1, kvol = 1;
    for (int i = 0; i < p->nsp; i++) {
        out[i] = p->s[i] * (p->in[i] - 1) + p->opad[i] + (p->k[i] - 1) * p->d[i] + 1 - p->pads[i] -
                 p->pads[p->nsp + i];
        osz *= out[i];
        isz *= p->in[i];
        kvol *= p->k[i];
    }
    int64_t cg = p->cin / p->group, mg = p->cout / p->group;
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t m = 0; m < p->cout; m++)
            for (int64_t o = 0; o < osz; o++)
                y[(n * p->cout + m) * osz + o] = b ? b[m] : 0;
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t ci = 0; ci < p->cin; ci++)
            for (int64_t i = 0; i < isz; i++)
                for (int64_t m = 0; m < mg; m++)
                    for (int64_t t = 0; t < kvol; t++) {
                        int64_t pos = 0, ri = i, rt = t, inside = 1;
                        int64_t idx[3], tap[3];
                        for (int dd = p->nsp - 1; dd >= 0; dd--) {
                            idx[dd] = ri % p->in[dd];
                            ri /= p->in[dd];
                            tap[dd] = rt % p->k[dd];
                            rt /= p->k[dd];
                        }
                        for (int dd = 0; dd < p->nsp; dd++) {
                            int64_t q = idx[dd] * p->s[dd] - p->pads[dd] + tap[dd] * p->d[dd];
                            inside &= q >= 0 && q < out[dd];
                            pos = pos * out[dd] + q;
                        }
                        if (!inside)
                            continue;
                        int64_t g = ci / cg, oc = g * mg + m;
                        y[(n * p->cout + oc) * osz + pos] +=
                            x[(n * p->cin + ci) * isz + i] * w[(ci * mg + m) * kvol + t];
                    }
}

static void convt_check(const convt_spec *p, int with_bias)
{
    int64_t isz = 1, kvol = 1, out[3], osz = 1;
    for (int i = 0; i < p->nsp; i++) {
        isz *= p->in[i];
        kvol *= p->k[i];
    }
    int64_t nx = p->n * p->cin * isz, nw = p->cin * (p->cout / p->group) * kvol;
    double *x = malloc(sizeof(double) * (size_t)nx), *w = malloc(sizeof(double) * (size_t)nw);
    double b[16];
    for (int64_t i = 0; i < nx; i++)
        x[i] = (double)((i * 7) % 13) - 6;
    for (int64_t i = 0; i < nw; i++)
        w[i] = (double)((i * 5) % 11) / 4 - 1;
    for (int i = 0; i < 16; i++)
        b[i] = i * 0.5 - 2;
    double *ref = malloc(sizeof(double) * 65536);
    convt_reference(p, x, w, with_bias ? b : NULL, ref, out);
    for (int i = 0; i < p->nsp; i++)
        osz *= out[i];
    int64_t xd[5] = {p->n, p->cin}, wd[5] = {p->cin, p->cout / p->group};
    for (int i = 0; i < p->nsp; i++) {
        xd[2 + i] = p->in[i];
        wd[2 + i] = p->k[i];
    }
    start("ConvTranspose", 11, with_bias ? 3 : 2, 1);
    kh_attr_int(&c, "group", p->group);
    kh_attr_ints(&c, "strides", p->s, p->nsp);
    kh_attr_ints(&c, "dilations", p->d, p->nsp);
    kh_attr_ints(&c, "pads", p->pads, 2 * p->nsp);
    kh_attr_ints(&c, "output_padding", p->opad, p->nsp);
    kh_input(&c, 0, KN_DOUBLE, xd, 2 + p->nsp, x);
    kh_input(&c, 1, KN_DOUBLE, wd, 2 + p->nsp, w);
    if (with_bias)
        kh_input(&c, 2, KN_DOUBLE, (int64_t[]){p->cout}, 1, b);
    run_both(&c);
    cr_assert_eq(kn_tensor_numel(&c.out[0]), p->n * p->cout * osz);
    for (int64_t i = 0; i < p->n * p->cout * osz; i++)
        cr_assert(fabs(((double *)c.out[0].data)[i] - ref[i]) < 1e-9, "[%lld] = %g, expected %g",
                  (long long)i, ((double *)c.out[0].data)[i], ref[i]);
    free(x);
    free(w);
    free(ref);
}

Test(convt, hand_values)
{
    /* x = [1, 2], w = [1, 1, 1]: stride 1 -> [1, 3, 3, 2]; stride 2 ->
     * windows at 0 and 2 overlap once -> [1, 1, 3, 2, 2] */
    static const float x[] = {1, 2}, w[] = {1, 1, 1};
    start("ConvTranspose", 11, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 1, 3), w);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){1, 3, 3, 2}, 4, 0);
    start("ConvTranspose", 11, 2, 1);
    kh_attr_ints(&c, "strides", (const int64_t[]){2}, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 1, 3), w);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){1, 1, 3, 2, 2}, 5, 0);
    /* output_shape 4 with stride 2: full size 5, total padding 1, which
     * NOTSET puts in front (SAME_UPPER would put it at the end) */
    start("ConvTranspose", 11, 2, 1);
    kh_attr_ints(&c, "strides", (const int64_t[]){2}, 1);
    kh_attr_ints(&c, "output_shape", (const int64_t[]){4}, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 1, 3), w);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){1, 3, 2, 2}, 4, 0);
    start("ConvTranspose", 11, 2, 1);
    kh_attr_ints(&c, "strides", (const int64_t[]){2}, 1);
    kh_attr_string(&c, "auto_pad", "SAME_UPPER");
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 1, 3), w);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){1, 1, 3, 2}, 4, 0);
}

Test(convt, against_reference)
{
    static const convt_spec specs[] = {
        {2, 2, 3, 4, 1, {5, 4}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, {0, 0}},
        {2, 1, 4, 6, 2, {4, 5}, {3, 2}, {2, 3}, {1, 2}, {1, 0, 2, 1}, {1, 2}},
        {1, 3, 2, 2, 2, {7}, {4}, {3}, {2}, {2, 1}, {0}},
        {3, 1, 2, 3, 1, {3, 4, 2}, {2, 3, 2}, {2, 1, 2}, {1, 1, 1}, {0, 1, 0, 0, 1, 1}, {1, 0, 0}},
        {2, 2, 6, 3, 3, {6, 6}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, {0, 0}}, /* pointwise */
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        for (int bias = 0; bias < 2; bias++)
            convt_check(&specs[i], bias);
}

Test(convt, errors)
{
    static const float x[8], w[8];
    start("ConvTranspose", 11, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(3, 1, 2), w);
    expect_fail(&c, KN_ERR_SHAPE, "input channels");
    start("ConvTranspose", 11, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(2, 1, 2), w);
    kh_input(&c, 2, KN_FLOAT, DIMS(3), w);
    expect_fail(&c, KN_ERR_SHAPE, "B must be 1-D of 1");
    start("ConvTranspose", 11, 2, 1);
    kh_attr_ints(&c, "strides", (const int64_t[]){0}, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(2, 1, 2), w);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "strides[0] = 0 is outside");
    start("ConvTranspose", 11, 2, 1);
    kh_attr_ints(&c, "pads", (const int64_t[]){3, 3}, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(2, 1, 2), w);
    expect_fail(&c, KN_ERR_SHAPE, "gives output -3");
}

Test(convt, col2im)
{
    /* a 1-D image of 3 from windows of 2 at positions 0 and 1: rows are
     * taps, columns positions: image = [c00, c01 + c10, c11] */
    start("Col2Im", 18, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 2), (const float[]){1, 2, 3, 4});
    kh_input(&c, 1, KN_INT64, DIMS(1), (const int64_t[]){3});
    kh_input(&c, 2, KN_INT64, DIMS(1), (const int64_t[]){2});
    run_both(&c);
    expect_shape(&c.out[0], DIMS(1, 1, 3));
    expect_f32(&c.out[0], (const float[]){1, 5, 4}, 3, 0);
    start("Col2Im", 18, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 3), (const float[]){1, 2, 3, 4, 5, 6});
    kh_input(&c, 1, KN_INT64, DIMS(1), (const int64_t[]){3});
    kh_input(&c, 2, KN_INT64, DIMS(1), (const int64_t[]){2});
    expect_fail(&c, KN_ERR_SHAPE, "2 columns");
    start("Col2Im", 18, 3, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 2), (const float[]){1, 2, 3, 4});
    kh_input(&c, 1, KN_INT64, DIMS(1), (const int64_t[]){3});
    kh_input(&c, 2, KN_INT64, DIMS(1), (const int64_t[]){2});
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "value of input 'image_shape'");
}

/* ---- GridSample / AffineGrid -------------------------------------------- */

static void grid_case(int64_t opset, const char *mode, const char *padding, int align,
                      const float *x, const float *grid, int64_t points)
{
    start("GridSample", opset, 2, 1);
    kh_attr_string(&c, "mode", mode);
    kh_attr_string(&c, "padding_mode", padding);
    kh_attr_int(&c, "align_corners", align);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 2, 2), x);
    kh_input(&c, 1, KN_FLOAT, (int64_t[]){1, 1, points, 2}, 4, grid);
}

Test(sample, grid_sample)
{
    static const float x[] = {1, 2, 3, 4};
    /* align_corners: -1 and 1 are pixel centres; (x, y) pairs */
    static const float g[] = {-1, -1, 1, 1, 0, 0, 1, -1, -3, -3, -1.5f, -1};
    grid_case(20, "linear", "zeros", 1, x, g, 6);
    run_both(&c);
    /* (0,0) is the centre: 2.5; (-3,-3) reads padding: 0; (-1.5,-1):
     * x = -0.25 mixes 0.75 of column 0 with padding -> 0.75 */
    expect_f32(&c.out[0], (const float[]){1, 4, 2.5f, 2, 0, 0.75f}, 6, 1e-6);
    grid_case(20, "linear", "border", 1, x, g, 6);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){1, 4, 2.5f, 2, 1, 1}, 6, 1e-6);
    /* reflection: x = -0.25 folds back to 0.25 -> 0.75 * 1 + 0.25 * 2 */
    grid_case(20, "linear", "reflection", 1, x, g, 6);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){1, 4, 2.5f, 2, 4, 1.25f}, 6, 1e-6);
    /* nearest, opset 16 spelling; 0.1 -> x = 0.55 rounds to 1 */
    grid_case(16, "nearest", "zeros", 1, x, (const float[]){0.1f, 0.1f, -0.1f, 0.1f}, 2);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){4, 3}, 2, 0);
    /* bicubic weights sum to one: a flat image stays flat (border) */
    static const float flat[] = {5, 5, 5, 5};
    grid_case(16, "bicubic", "border", 0, flat, (const float[]){0.3f, -0.7f, 0.9f, 0.2f}, 2);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){5, 5}, 2, 1e-6);
}

Test(sample, grid_sample_errors)
{
    static const float x[8];
    start("GridSample", 16, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 2, 2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 1, 2, 3), x);
    expect_fail(&c, KN_ERR_SHAPE, "grid N x spatial x 2");
    start("GridSample", 16, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 2, 2, 2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 1, 1, 1, 3), x);
    expect_fail(&c, KN_ERR_SHAPE, "4-D input only");
    grid_case(20, "area", "zeros", 0, x, x, 1);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "unknown mode 'area'");
}

Test(sample, affine_grid)
{
    /* theta = [[1, 0, 0.5], [0, 2, 0]] on a 2 x 2 grid: pixel centres at
     * -0.5 and 0.5, so x + 0.5 and 2y */
    start("AffineGrid", 20, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 3), (const float[]){1, 0, 0.5f, 0, 2, 0});
    kh_input(&c, 1, KN_INT64, DIMS(4), (const int64_t[]){1, 3, 2, 2});
    run_both(&c);
    expect_shape(&c.out[0], DIMS(1, 2, 2, 2));
    expect_f32(&c.out[0], (const float[]){0, -1, 1, -1, 0, 1, 1, 1}, 8, 1e-6);
    /* align_corners: corners at -1 and 1 */
    start("AffineGrid", 20, 2, 1);
    kh_attr_int(&c, "align_corners", 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 3), (const float[]){1, 0, 0, 0, 1, 0});
    kh_input(&c, 1, KN_INT64, DIMS(4), (const int64_t[]){1, 1, 1, 3});
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){-1, -1, 0, -1, 1, -1}, 6, 1e-6);
    start("AffineGrid", 20, 2, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 3), (const float[]){1, 0, 0, 0, 1, 0});
    kh_input(&c, 1, KN_INT64, DIMS(4), (const int64_t[]){1, 1, 1, 3});
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "value of input 'size'");
}

/* ---- RoiAlign / MaxRoiPool / NonMaxSuppression --------------------------- */

static float ramp16[16]; /* value = column index, 4 x 4 */

static void roi_align(int64_t opset, const char *mode, const float *x, const float *roi,
                      const int64_t *batch)
{
    start("RoiAlign", opset, 3, 1);
    kh_attr_string(&c, "mode", mode);
    kh_attr_int(&c, "sampling_ratio", 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 4, 4), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 4), roi);
    kh_input(&c, 2, KN_INT64, DIMS(1), batch);
}

Test(roi, roi_align)
{
    for (int i = 0; i < 16; i++)
        ramp16[i] = (float)(i % 4);
    static const float box[] = {0, 0, 3, 3};
    static const int64_t b0[] = {0}, b1[] = {1};
    /* opset 10 (output_half_pixel): one sample at the box centre 1.5 */
    roi_align(10, "avg", ramp16, box, b0);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){1.5f}, 1, 1e-6);
    /* opset 16 half_pixel: the box shifts by -0.5, centre 1.0 */
    roi_align(16, "avg", ramp16, box, b0);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){1.0f}, 1, 1e-6);
    /* max takes the largest weighted corner: 2 * 0.25 on a flat map */
    static float twos[16];
    for (int i = 0; i < 16; i++)
        twos[i] = 2;
    roi_align(10, "max", twos, box, b0);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){0.5f}, 1, 1e-6);
    roi_align(16, "avg", ramp16, box, b1);
    expect_fail(&c, KN_ERR_INVALID_ARGUMENT, "batch index 1");
}

Test(roi, max_roi_pool)
{
    static float x[16];
    for (int i = 0; i < 16; i++)
        x[i] = (float)i;
    /* the whole 4 x 4 map in 2 x 2 bins of 2 x 2: each bin's corner max */
    start("MaxRoiPool", 1, 2, 1);
    kh_attr_ints(&c, "pooled_shape", (const int64_t[]){2, 2}, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 4, 4), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 5), (const float[]){0, 0, 0, 3, 3});
    run_both(&c);
    expect_f32(&c.out[0], (const float[]){5, 7, 13, 15}, 4, 0);
    start("MaxRoiPool", 1, 2, 1);
    kh_attr_ints(&c, "pooled_shape", (const int64_t[]){2, 2}, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 4, 4), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 5), (const float[]){3, 0, 0, 3, 3});
    expect_fail(&c, KN_ERR_INVALID_ARGUMENT, "batch index");
}

static void nms_case(int center, const float *boxes, float iou, float score_min, int64_t max_out)
{
    static float sc[3] = {0.9f, 0.8f, 0.7f}, thr[2];
    static int64_t mo[1];
    thr[0] = iou;
    thr[1] = score_min;
    mo[0] = max_out;
    start("NonMaxSuppression", 11, 5, 1);
    kh_attr_int(&c, "center_point_box", center);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 3, 4), boxes);
    kh_input(&c, 1, KN_FLOAT, DIMS(1, 1, 3), sc);
    kh_input(&c, 2, KN_INT64, DIMS(1), mo);
    kh_input(&c, 3, KN_FLOAT, DIMS(1), &thr[0]);
    kh_input(&c, 4, KN_FLOAT, DIMS(1), &thr[1]);
}

Test(roi, non_max_suppression)
{
    /* boxes 0 and 1 overlap with IoU 0.9 / 1.1 = 0.82; box 2 is apart */
    static const float corners[] = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 2, 1, 3};
    static const float centres[] = {0.5f, 0.5f, 1, 1, 0.6f, 0.5f, 1, 1, 2.5f, 0.5f, 1, 1};
    nms_case(0, corners, 0.5f, 0, 3);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 3));
    expect_data(&c.out[0], KN_INT64, (const int64_t[]){0, 0, 0, 0, 0, 2});
    nms_case(1, centres, 0.5f, 0, 3);
    run_ok(&c);
    expect_data(&c.out[0], KN_INT64, (const int64_t[]){0, 0, 0, 0, 0, 2});
    nms_case(0, corners, 0.9f, 0, 3); /* 0.82 <= 0.9: nothing suppressed */
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(3, 3));
    nms_case(0, corners, 0.5f, 0.75f, 3); /* only box 0 scores above 0.75 */
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(1, 3));
    nms_case(0, corners, 0.5f, 0, 1); /* one box per class */
    run_ok(&c);
    expect_data(&c.out[0], KN_INT64, (const int64_t[]){0, 0, 0});
    nms_case(0, corners, 0.5f, 0, 3);
    c.inputs_constant_in_prepare = 0;
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "value of input 'boxes'");
}

/* ---- MaxUnpool / LpPool / ReverseSequence ------------------------------- */

Test(misc, max_unpool)
{
    /* the spec example: 2 x 2 values to indices 5, 7, 13, 15 of 4 x 4 */
    static const float x[] = {1, 2, 3, 4};
    static const int64_t ind[] = {5, 7, 13, 15};
    start("MaxUnpool", 11, 2, 1);
    kh_attr_ints(&c, "kernel_shape", (const int64_t[]){2, 2}, 2);
    kh_attr_ints(&c, "strides", (const int64_t[]){2, 2}, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 2, 2), x);
    kh_input(&c, 1, KN_INT64, DIMS(1, 1, 2, 2), ind);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(1, 1, 4, 4));
    expect_f32(&c.out[0], (const float[]){0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4}, 16, 0);
    /* output_shape 5 x 5: the same coordinates, an extra zero row/column */
    start("MaxUnpool", 11, 3, 1);
    kh_attr_ints(&c, "kernel_shape", (const int64_t[]){2, 2}, 2);
    kh_attr_ints(&c, "strides", (const int64_t[]){2, 2}, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 2, 2), x);
    kh_input(&c, 1, KN_INT64, DIMS(1, 1, 2, 2), ind);
    kh_input(&c, 2, KN_INT64, DIMS(4), (const int64_t[]){1, 1, 5, 5});
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0,
                                          0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0, 0},
               25, 0);
    start("MaxUnpool", 11, 2, 1);
    kh_attr_ints(&c, "kernel_shape", (const int64_t[]){2, 2}, 2);
    kh_attr_ints(&c, "strides", (const int64_t[]){2, 2}, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 2, 2), x);
    kh_input(&c, 1, KN_INT64, DIMS(1, 1, 2, 2), (const int64_t[]){5, 7, 13, 16});
    expect_fail(&c, KN_ERR_INVALID_ARGUMENT, "index 16");
}

Test(misc, lp_pool)
{
    /* windows of 2 over [3, 4, 0]: p = 2 -> 5, 4; p = 1 -> 7, 4 */
    static const float x[] = {3, 4, 0};
    start("LpPool", 18, 1, 1);
    kh_attr_ints(&c, "kernel_shape", (const int64_t[]){2}, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 3), x);
    run_both(&c);
    expect_f32(&c.out[0], (const float[]){5, 4}, 2, 1e-6);
    start("LpPool", 1, 1, 1); /* opset 1: p is a float */
    kh_attr_ints(&c, "kernel_shape", (const int64_t[]){2}, 1);
    kh_attr_float(&c, "p", 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 3), x);
    run_ok(&c);
    expect_f32(&c.out[0], (const float[]){7, 4}, 2, 1e-6);
    start("LpPool", 11, 1, 1);
    kh_attr_ints(&c, "kernel_shape", (const int64_t[]){2}, 1);
    kh_attr_int(&c, "p", 0);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 3), x);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "must be positive");
}

Test(misc, reverse_sequence)
{
    /* the spec example: time on axis 0, lengths 4, 3, 2, 1 per column */
    static int64_t x[16];
    for (int i = 0; i < 16; i++)
        x[i] = i;
    start("ReverseSequence", 10, 2, 1);
    kh_attr_int(&c, "time_axis", 0);
    kh_attr_int(&c, "batch_axis", 1);
    kh_input(&c, 0, KN_INT64, DIMS(4, 4), x);
    kh_input(&c, 1, KN_INT64, DIMS(4), (const int64_t[]){4, 3, 2, 1});
    run_both(&c);
    expect_data(&c.out[0], KN_INT64,
                (const int64_t[]){12, 9, 6, 3, 8, 5, 2, 7, 4, 1, 10, 11, 0, 13, 14, 15});
    /* batch on axis 0: rows reversed in place */
    start("ReverseSequence", 10, 2, 1);
    kh_attr_int(&c, "time_axis", 1);
    kh_attr_int(&c, "batch_axis", 0);
    kh_input(&c, 0, KN_INT64, DIMS(2, 3), x);
    kh_input(&c, 1, KN_INT64, DIMS(2), (const int64_t[]){3, 2});
    run_ok(&c);
    expect_data(&c.out[0], KN_INT64, (const int64_t[]){2, 1, 0, 4, 3, 5});
    start("ReverseSequence", 10, 2, 1);
    kh_input(&c, 0, KN_INT64, DIMS(2, 3), x);
    kh_input(&c, 1, KN_INT64, DIMS(3), (const int64_t[]){1, 2, 5});
    expect_fail(&c, KN_ERR_INVALID_ARGUMENT, "sequence_lens[2] = 5");
}
