/* Quantization kernels (quantize.c, integer_ops.c, qlinear.c): hand-computed
 * values (mostly the ONNX spec and test examples, ties checked for
 * round-half-to-even), integer products against naive references written
 * here on random data with odd sizes (tile tails, groups, strides,
 * per-channel zero points), 1 vs 2 threads, and error cases. */
#include "kernel_direct.h"
#include "core/cpu/nn/conv.h"
#include "core/cpu/quant/quant_common.h"

static kh_case c; /* one case per test; freed by the fini hook */
static void fini(void) { kh_free(&c); }
TestSuite(quantize, .fini = fini);
TestSuite(integer, .fini = fini);


Test(quantize, per_tensor_rounding_and_saturation)
{
    /* the spec example, then ties: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> 0,
     * -1.5 -> -2; NaN gives the zero point */
    float x[] = {0, 2, 3, 1000, -254, -1000, 1, 3, 5, -1, -3, NAN};
    float scale = 2;
    uint8_t zp = 128;
    kh_init(&c, "QuantizeLinear", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(12), x);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &scale);
    kh_input(&c, 2, KN_UINT8, NULL, 0, &zp);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(12));
    expect_data(&c.out[0], KN_UINT8,
                (uint8_t[]){128, 129, 130, 255, 1, 0, 128, 130, 130, 128, 126, 128});
    kh_free(&c);
    /* int8, no zero point input -> uint8 default is replaced by the zp type */
    int8_t zp8 = -1;
    float half = 0.5f;
    kh_init(&c, "QuantizeLinear", 10, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(4), (float[]){100, -100, 0.25f, 0.75f});
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &half);
    kh_input(&c, 2, KN_INT8, NULL, 0, &zp8);
    run_ok(&c);
    expect_data(&c.out[0], KN_INT8, (int8_t[]){127, -128, -1, 1});
    kh_free(&c);
    /* zero point omitted: uint8 with zero point 0; int32 input divides in double */
    kh_init(&c, "QuantizeLinear", 13, 2, 1);
    kh_input(&c, 0, KN_INT32, DIMS(3), (int32_t[]){7, -7, 5});
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &scale);
    run_ok(&c);
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){4, 0, 2});
}

/* The float <-> int8/uint8 loops QDQ models spend their time in
 * (quantize.c's fast path) against the formula written out here: 40,000
 * values over many chunks, exact ties (k + 0.5 steps) among them, values
 * past both ends, NaN, per tensor and per channel, 1 and 2 threads. */
Test(quantize, fast_path_matches_the_formula_on_random_data)
{
    enum { ROWS = 8, COLS = 5000, N = ROWS * COLS };
    float *x = malloc(N * sizeof *x), scales[ROWS];
    uint8_t zps[ROWS];
    for (int r = 0; r < ROWS; r++) {
        scales[r] = 0.01f * (float)(r + 1);
        zps[r] = (uint8_t)(r * 30);
    }
    for (int i = 0; i < N; i++) {
        int kind = rand_int(0, 9);
        float step = scales[i / COLS];
        x[i] = kind == 0   ? (float)(rand_int(-300, 300) + 0.5) * step /* a tie */
               : kind == 1 ? (float)rand_int(-100000, 100000)            /* far past the ends */
               : kind == 2 && i % 97 == 0 ? NAN
                           : (float)rand_int(-40000, 40000) / 997.0f * step;
    }
    for (int per_channel = 0; per_channel < 2; per_channel++)
        for (int threads = 1; threads <= 2; threads++) {
            kh_init(&c, "QuantizeLinear", 13, 3, 1);
            kh_attr_int(&c, "axis", 0);
            kh_input(&c, 0, KN_FLOAT, DIMS(ROWS, COLS), x);
            if (per_channel) {
                kh_input(&c, 1, KN_FLOAT, DIMS(ROWS), scales);
                kh_input(&c, 2, KN_UINT8, DIMS(ROWS), zps);
            } else {
                kh_input(&c, 1, KN_FLOAT, NULL, 0, &scales[3]);
                kh_input(&c, 2, KN_UINT8, NULL, 0, &zps[3]);
            }
            cr_assert_eq(kh_run(&c, threads), KN_OK, "%s", c.err.msg);
            const uint8_t *q = c.out[0].data;
            for (int i = 0; i < N; i++) {
                int r = per_channel ? i / COLS : 3;
                float v = x[i] / scales[r]; /* the reference divides in float */
                double want = v != v ? zps[r] : nearbyint((double)v) + zps[r];
                want = want < 0 ? 0 : want > 255 ? 255 : want;
                cr_assert_eq(q[i], (uint8_t)want, "x[%d] = %.9g: got %d, want %d (%s, %d threads)",
                             i, x[i], q[i], (int)want, per_channel ? "per channel" : "per tensor",
                             threads);
            }
            kh_free(&c);
        }
    /* and back: int8 per channel to float */
    int8_t *q8 = malloc(N);
    int8_t zp8[ROWS];
    for (int r = 0; r < ROWS; r++)
        zp8[r] = (int8_t)(r - 4);
    for (int i = 0; i < N; i++)
        q8[i] = (int8_t)rand_int(-128, 127);
    kh_init(&c, "DequantizeLinear", 13, 3, 1);
    kh_attr_int(&c, "axis", 0);
    kh_input(&c, 0, KN_INT8, DIMS(ROWS, COLS), q8);
    kh_input(&c, 1, KN_FLOAT, DIMS(ROWS), scales);
    kh_input(&c, 2, KN_INT8, DIMS(ROWS), zp8);
    cr_assert_eq(kh_run(&c, 2), KN_OK, "%s", c.err.msg);
    const float *y = c.out[0].data;
    for (int i = 0; i < N; i++) {
        int r = i / COLS;
        cr_assert_eq(y[i], ((float)q8[i] - (float)zp8[r]) * scales[r], "element %d", i);
    }
    free(q8);
    free(x);
}

Test(quantize, per_axis_and_blocked)
{
    kh_init(&c, "QuantizeLinear", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), (float[]){1, 2, 3, 4, 5, 6});
    kh_input(&c, 1, KN_FLOAT, DIMS(3), (float[]){1, 2, 4});
    kh_input(&c, 2, KN_UINT8, DIMS(3), (uint8_t[]){0, 10, 20});
    run_ok(&c);
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){1, 11, 21, 4, 12, 22});
    kh_free(&c);
    /* axis 0 of [2, 2, 2]: one scale per outer slice */
    kh_init(&c, "QuantizeLinear", 13, 2, 1);
    kh_attr_int(&c, "axis", -3);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 2, 2), (float[]){1, 2, 3, 4, 10, 20, 30, 40});
    kh_input(&c, 1, KN_FLOAT, DIMS(2), (float[]){1, 10});
    run_ok(&c);
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){1, 2, 3, 4, 1, 2, 3, 4});
    kh_free(&c);
    /* blocks of 2 along axis 1, int8 chosen by output_dtype */
    kh_init(&c, "QuantizeLinear", 21, 2, 1);
    kh_attr_int(&c, "axis", 1);
    kh_attr_int(&c, "block_size", 2);
    kh_attr_int(&c, "output_dtype", KN_INT8);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 4), (float[]){1, 2, 3, 4, 8, -8, 16, 100});
    kh_input(&c, 1, KN_FLOAT, DIMS(2, 2), (float[]){1, 2, 4, 8});
    run_ok(&c);
    expect_data(&c.out[0], KN_INT8, (int8_t[]){1, 2, 2, 2, 2, -2, 2, 12});
    kh_free(&c);
    /* int16 at opset 21 */
    int16_t zp16 = 256;
    float two = 2;
    kh_init(&c, "QuantizeLinear", 21, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), (float[]){70000, -70000, 3});
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &two);
    kh_input(&c, 2, KN_INT16, NULL, 0, &zp16);
    run_ok(&c);
    expect_data(&c.out[0], KN_INT16, (int16_t[]){32767, -32768, 258});
}

Test(quantize, float8)
{
    float x[] = {0, 1, 2, 100000, 200}, two = 2;
    uint8_t zp = 0;
    kh_init(&c, "QuantizeLinear", 19, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(5), x);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &two);
    kh_input(&c, 2, KN_FLOAT8E4M3FN, DIMS(1), &zp);
    run_ok(&c);
    expect_data(&c.out[0], KN_FLOAT8E4M3FN, (uint8_t[]){0, 48, 56, 126, 108}); /* 448 saturates */
    kh_free(&c);
    kh_init(&c, "QuantizeLinear", 19, 3, 1);
    kh_attr_int(&c, "saturate", 0);
    kh_input(&c, 0, KN_FLOAT, DIMS(5), x);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &two);
    kh_input(&c, 2, KN_FLOAT8E4M3FN, DIMS(1), &zp);
    run_ok(&c);
    expect_data(&c.out[0], KN_FLOAT8E4M3FN, (uint8_t[]){0, 48, 56, 0x7F, 108}); /* NaN */
    kh_free(&c);
    /* and back: e4m3fn 48 = 0.5, 56 = 1, 126 = 448, 237 = -104 (1.1101.101) */
    kh_init(&c, "DequantizeLinear", 19, 2, 1);
    kh_input(&c, 0, KN_FLOAT8E4M3FN, DIMS(5), (uint8_t[]){0, 48, 56, 126, 237});
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &two);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){0, 1, 2, 896, -208}, 5, 0);
}

Test(quantize, errors)
{
    float x[6] = {0}, s1 = 1;
    int32_t bad_scale = 1;
    kh_init(&c, "QuantizeLinear", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), x);
    kh_input(&c, 1, KN_INT32, NULL, 0, &bad_scale);
    expect_fail(&c, KN_ERR_DTYPE, "scale");
    kh_free(&c);
    kh_init(&c, "QuantizeLinear", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(2), (float[]){1, 2});
    expect_fail(&c, KN_ERR_SHAPE, "per-axis");
    kh_free(&c);
    kh_init(&c, "QuantizeLinear", 10, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(3), (float[]){1, 2, 3});
    expect_fail(&c, KN_ERR_SHAPE, "scalar");
    kh_free(&c);
    kh_init(&c, "QuantizeLinear", 21, 2, 1);
    kh_attr_int(&c, "output_dtype", KN_FLOAT8E8M0); /* a scale format */
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), x);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &s1);
    expect_fail(&c, KN_ERR_UNSUPPORTED, "E8M0");
    kh_free(&c);
    int8_t zp = 0;
    kh_init(&c, "QuantizeLinear", 21, 3, 1);
    kh_attr_int(&c, "output_dtype", KN_UINT8);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), x);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &s1);
    kh_input(&c, 2, KN_INT8, NULL, 0, &zp);
    expect_fail(&c, KN_ERR_DTYPE, "output_dtype");
    kh_free(&c);
    kh_init(&c, "QuantizeLinear", 21, 2, 1);
    kh_attr_int(&c, "axis", 1);
    kh_attr_int(&c, "block_size", 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(2, 1), (float[]){1, 2}); /* needs 2 x 2 */
    expect_fail(&c, KN_ERR_SHAPE, "blocked");
    kh_free(&c);
    kh_init(&c, "QuantizeLinear", 13, 2, 1); /* int16 only from 21 */
    kh_attr_int(&c, "output_dtype", KN_INT16);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), x);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &s1);
    int rc = kh_run(&c, 1);
    cr_assert_eq(rc, KN_OK, "output_dtype is ignored before opset 21: %s", c.err.msg);
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){0, 0, 0, 0, 0, 0});
}

Test(quantize, dequantize)
{
    float two = 2;
    uint8_t zp = 128;
    kh_init(&c, "DequantizeLinear", 10, 3, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(4), (uint8_t[]){0, 3, 128, 255});
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &two);
    kh_input(&c, 2, KN_UINT8, NULL, 0, &zp);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-256, -250, 0, 254}, 4, 0);
    kh_free(&c);
    float half = 0.5f;
    kh_init(&c, "DequantizeLinear", 13, 2, 1);
    kh_input(&c, 0, KN_INT32, DIMS(2), (int32_t[]){-5, 7});
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &half);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-2.5f, 3.5f}, 2, 0);
    kh_free(&c);
    kh_init(&c, "DequantizeLinear", 13, 3, 1);
    kh_attr_int(&c, "axis", 0);
    kh_input(&c, 0, KN_INT8, DIMS(2, 2), (int8_t[]){1, 2, 3, 4});
    kh_input(&c, 1, KN_FLOAT, DIMS(2), (float[]){1, 10});
    kh_input(&c, 2, KN_INT8, DIMS(2), (int8_t[]){1, -1});
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){0, 1, 40, 50}, 4, 0);
    kh_free(&c);
    /* float16 scale gives a float16 result: (10 - 4) * 0.5 = 3 = 0x4200 */
    uint16_t h_half = 0x3800;
    uint8_t zp4 = 4;
    kh_init(&c, "DequantizeLinear", 19, 3, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(1), (uint8_t[]){10});
    kh_input(&c, 1, KN_FLOAT16, NULL, 0, &h_half);
    kh_input(&c, 2, KN_UINT8, NULL, 0, &zp4);
    run_ok(&c);
    expect_data(&c.out[0], KN_FLOAT16, (uint16_t[]){0x4200});
    kh_free(&c);
    /* blocked, 16-bit */
    kh_init(&c, "DequantizeLinear", 21, 3, 1);
    kh_attr_int(&c, "axis", 0);
    kh_attr_int(&c, "block_size", 2);
    kh_input(&c, 0, KN_UINT16, DIMS(3), (uint16_t[]){40000, 40002, 7});
    kh_input(&c, 1, KN_FLOAT, DIMS(2), (float[]){1, 3});
    kh_input(&c, 2, KN_UINT16, DIMS(2), (uint16_t[]){40000, 5});
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){0, 2, 6}, 3, 0);
    kh_free(&c);
    kh_init(&c, "DequantizeLinear", 13, 3, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(1), (uint8_t[]){1});
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &two);
    kh_input(&c, 2, KN_INT8, NULL, 0, (int8_t[]){1});
    expect_fail(&c, KN_ERR_DTYPE, "zero point");
}

Test(quantize, big_per_axis_threads)
{
    /* [4, 3000, 3] per-axis on axis 1 with a varying scale: 1 and 2
     * threads agree and match a per-element computation */
    int64_t n = 4 * 3000 * 3;
    float *x = malloc(sizeof(float) * (size_t)n), *s = malloc(sizeof(float) * 3000);
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)rand_int(-40000, 40000) / 64.0f;
    for (int i = 0; i < 3000; i++)
        s[i] = 0.25f + (float)(i % 7);
    kh_init(&c, "QuantizeLinear", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(4, 3000, 3), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(3000), s);
    run_both(&c);
    const uint8_t *y = c.out[0].data;
    for (int64_t i = 0; i < n; i++) {
        float q = nearbyintf(x[i] / s[(i / 3) % 3000]);
        uint8_t want = q < 0 ? 0 : q > 255 ? 255 : (uint8_t)q;
        cr_assert_eq(y[i], want, "[%lld] %u vs %u", (long long)i, y[i], want);
    }
    free(x);
    free(s);
}

Test(quantize, dynamic)
{
    kh_init(&c, "DynamicQuantizeLinear", 11, 1, 3);
    kh_input(&c, 0, KN_FLOAT, DIMS(6), (float[]){0, 2, -3, -2.5f, 1.34f, 0.5f});
    run_ok(&c);
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){153, 255, 0, 26, 221, 179});
    expect_shape(&c.out[1], NULL, 0);
    expect_f32(&c.out[1], (float[]){5.0f / 255.0f}, 1, 1e-7);
    expect_data(&c.out[2], KN_UINT8, (uint8_t[]){153});
    kh_free(&c);
    /* all zeros: scale 0, zero point 0 */
    kh_init(&c, "DynamicQuantizeLinear", 11, 1, 3);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), (float[]){0, 0, 0});
    run_ok(&c);
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){0, 0, 0});
    expect_f32(&c.out[1], (float[]){0}, 1, 0);
    expect_data(&c.out[2], KN_UINT8, (uint8_t[]){0});
}

/* ---- MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv --------------- */

Test(integer, matmulinteger_examples)
{
    uint8_t azp = 12, bzp = 0;
    kh_init(&c, "MatMulInteger", 10, 4, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(4, 3), (uint8_t[]){11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0});
    kh_input(&c, 1, KN_UINT8, DIMS(3, 2), (uint8_t[]){1, 4, 2, 5, 3, 6});
    kh_input(&c, 2, KN_UINT8, DIMS(1), &azp);
    kh_input(&c, 3, KN_UINT8, DIMS(1), &bzp);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(4, 2));
    expect_data(&c.out[0], KN_INT32, (int32_t[]){-38, -83, -44, -98, -50, -113, -56, -128});
    kh_free(&c);
    /* int8 x uint8, zero points per row of A and per column of B:
     * A - zp = [[0, 1], [3, 4]], B - zp = [[1, 1], [3, 3]] */
    kh_init(&c, "MatMulInteger", 10, 4, 1);
    kh_input(&c, 0, KN_INT8, DIMS(2, 2), (int8_t[]){1, 2, 3, 4});
    kh_input(&c, 1, KN_UINT8, DIMS(2, 2), (uint8_t[]){1, 2, 3, 4});
    kh_input(&c, 2, KN_INT8, DIMS(2), (int8_t[]){1, 0});
    kh_input(&c, 3, KN_UINT8, DIMS(2), (uint8_t[]){0, 1});
    run_ok(&c);
    expect_data(&c.out[0], KN_INT32, (int32_t[]){3, 3, 15, 15});
    kh_free(&c);
    /* 1-D A and batched B: [3] x [2, 3, 1] -> [2, 1] */
    kh_init(&c, "MatMulInteger", 10, 2, 1);
    kh_input(&c, 0, KN_INT8, DIMS(3), (int8_t[]){-128, 127, 2});
    kh_input(&c, 1, KN_INT8, DIMS(2, 3, 1), (int8_t[]){-128, -128, 1, 1, 2, 3});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 1));
    expect_data(&c.out[0], KN_INT32, (int32_t[]){16384 - 16256 + 2, -128 + 254 + 6});
    kh_free(&c);
    kh_init(&c, "MatMulInteger", 10, 3, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(2, 2), (uint8_t[]){1, 2, 3, 4});
    kh_input(&c, 1, KN_UINT8, DIMS(3, 2), (uint8_t[]){1, 2, 3, 4, 5, 6});
    expect_fail(&c, KN_ERR_SHAPE, "inner dims");
    kh_free(&c);
    kh_init(&c, "MatMulInteger", 10, 3, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(2, 2), (uint8_t[]){1, 2, 3, 4});
    kh_input(&c, 1, KN_UINT8, DIMS(2, 2), (uint8_t[]){1, 2, 3, 4});
    kh_input(&c, 2, KN_UINT8, DIMS(3), (uint8_t[]){1, 2, 3});
    expect_fail(&c, KN_ERR_SHAPE, "a_zero_point");
    kh_free(&c);
    kh_init(&c, "MatMulInteger", 10, 3, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(2, 2), (uint8_t[]){1, 2, 3, 4});
    kh_input(&c, 1, KN_UINT8, DIMS(2, 2), (uint8_t[]){1, 2, 3, 4});
    kh_input(&c, 2, KN_INT8, DIMS(1), (int8_t[]){1});
    expect_fail(&c, KN_ERR_DTYPE, "a_zero_point");
}

/* Batched [B, M, K] x [K, N] with odd sizes (tile tails) against int64
 * loops; also QLinearMatMul on the same data against the spec formula. */
Test(integer, matmul_random)
{
    enum { B = 3, M = 9, K = 37, N = 70 };
    uint8_t *a = malloc(B * M * K), *b = malloc(K * N);
    uint8_t azp[M], bzp[N];
    for (int i = 0; i < B * M * K; i++)
        a[i] = (uint8_t)rand_int(0, 255);
    for (int i = 0; i < K * N; i++)
        b[i] = (uint8_t)rand_int(0, 255);
    for (int i = 0; i < M; i++)
        azp[i] = (uint8_t)rand_int(0, 255);
    for (int i = 0; i < N; i++)
        bzp[i] = (uint8_t)rand_int(0, 255);
    int32_t *want = malloc(sizeof(int32_t) * B * M * N);
    for (int bi = 0; bi < B; bi++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                int64_t acc = 0;
                for (int p = 0; p < K; p++)
                    acc += (int64_t)(a[(bi * M + i) * K + p] - azp[i]) * (b[p * N + j] - bzp[j]);
                want[(bi * M + i) * N + j] = (int32_t)acc;
            }
    kh_init(&c, "MatMulInteger", 10, 4, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(B, M, K), a);
    kh_input(&c, 1, KN_UINT8, DIMS(K, N), b);
    kh_input(&c, 2, KN_UINT8, DIMS(M), azp);
    kh_input(&c, 3, KN_UINT8, DIMS(N), bzp);
    run_both(&c);
    expect_shape(&c.out[0], DIMS(B, M, N));
    expect_data(&c.out[0], KN_INT32, want);
    kh_free(&c);
    c.inputs_constant_in_prepare = 0; /* weights converted per run, not in prepare */
    run_both(&c);
    expect_data(&c.out[0], KN_INT32, want);
    kh_free(&c);

    float as = 0.02f, ys = 0.7f, bs[N];
    uint8_t yzp = 100;
    for (int j = 0; j < N; j++)
        bs[j] = 0.01f + 0.001f * (float)j;
    uint8_t *qwant = malloc(B * M * N);
    for (int i = 0; i < B * M * N; i++) {
        float mult = as * bs[i % N] / ys;
        double v = nearbyint((double)want[i] * mult) + yzp;
        qwant[i] = v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
    }
    kh_init(&c, "QLinearMatMul", 10, 8, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(B, M, K), a);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &as);
    kh_input(&c, 2, KN_UINT8, DIMS(M), azp); /* zero points per row ... */
    kh_input(&c, 3, KN_UINT8, DIMS(K, N), b);
    kh_input(&c, 4, KN_FLOAT, DIMS(N), bs); /* ... scales per column */
    kh_input(&c, 5, KN_UINT8, DIMS(N), bzp);
    kh_input(&c, 6, KN_FLOAT, NULL, 0, &ys);
    kh_input(&c, 7, KN_UINT8, NULL, 0, &yzp);
    cr_assert_eq(kh_run(&c, 1), KN_ERR_SHAPE, "a_scale and a_zero_point differ: %s", c.err.msg);
    kh_input(&c, 2, KN_UINT8, NULL, 0, &azp[0]); /* per tensor for A */
    for (int i = 0; i < B * M * N; i++) {
        int bi = i / (M * N), r = (i / N) % M, j = i % N;
        int64_t acc = 0;
        for (int p = 0; p < K; p++)
            acc += (int64_t)(a[(bi * M + r) * K + p] - azp[0]) * (b[p * N + j] - bzp[j]);
        double v = nearbyint((double)acc * (as * bs[j] / ys)) + yzp;
        qwant[i] = v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
    }
    run_both(&c);
    expect_data(&c.out[0], KN_UINT8, qwant);
    free(a);
    free(b);
    free(want);
    free(qwant);
}

Test(integer, qlinearmatmul_example)
{
    float as = 0.0066f, bs = 0.00705f, ys = 0.0107f;
    uint8_t azp = 113, bzp = 114, yzp = 118;
    kh_init(&c, "QLinearMatMul", 10, 8, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(2, 4), (uint8_t[]){208, 236, 0, 238, 3, 214, 255, 29});
    kh_input(&c, 1, KN_FLOAT, DIMS(1), &as);
    kh_input(&c, 2, KN_UINT8, DIMS(1), &azp);
    kh_input(&c, 3, KN_UINT8, DIMS(4, 3),
             (uint8_t[]){152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247});
    kh_input(&c, 4, KN_FLOAT, DIMS(1), &bs);
    kh_input(&c, 5, KN_UINT8, DIMS(1), &bzp);
    kh_input(&c, 6, KN_FLOAT, DIMS(1), &ys);
    kh_input(&c, 7, KN_UINT8, DIMS(1), &yzp);
    run_ok(&c);
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){168, 115, 255, 1, 66, 151});
    kh_free(&c);
    /* float16 scales only from opset 21 */
    uint16_t h = 0x3c00;
    kh_init(&c, "QLinearMatMul", 10, 8, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(1, 1), &azp);
    kh_input(&c, 1, KN_FLOAT16, DIMS(1), &h);
    kh_input(&c, 2, KN_UINT8, DIMS(1), &azp);
    kh_input(&c, 3, KN_UINT8, DIMS(1, 1), &bzp);
    kh_input(&c, 4, KN_FLOAT16, DIMS(1), &h);
    kh_input(&c, 5, KN_UINT8, DIMS(1), &bzp);
    kh_input(&c, 6, KN_FLOAT16, DIMS(1), &h);
    kh_input(&c, 7, KN_UINT8, DIMS(1), &yzp);
    expect_fail(&c, KN_ERR_DTYPE, "opset 21");
    c.opset = 21;
    run_ok(&c);
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){118});
}

/* Naive 2-D integer convolution: y[n][m][oh][ow] with zero points. */
static void naive_conv(const uint8_t *x, int xzp, const int8_t *w, const int8_t *wzp, int wzp_n,
                       int N, int C, int H, int W, int M, int G, int KH, int KW, int sh, int sw,
                       int ph, int pw, int dh, int dw, int OH, int OW, int64_t *y)
{
    int cg = C / G, mg = M / G;
    for (int n = 0; n < N; n++)
        for (int m = 0; m < M; m++)
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++) {
                    int64_t acc = 0;
                    int g = m / mg, z = wzp_n > 1 ? wzp[m] : wzp[0];
                    for (int ci = 0; ci < cg; ci++)
                        for (int kh = 0; kh < KH; kh++)
                            for (int kw = 0; kw < KW; kw++) {
                                int ih = oh * sh - ph + kh * dh, iw = ow * sw - pw + kw * dw;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                                    continue;
                                int xv = x[((n * C + g * cg + ci) * H + ih) * W + iw] - xzp;
                                int wv = w[((m * cg + ci) * KH + kh) * KW + kw] - z;
                                acc += (int64_t)xv * wv;
                            }
                    y[((n * M + m) * OH + oh) * OW + ow] = acc;
                }
}

Test(integer, convinteger_examples)
{
    uint8_t x[] = {2, 3, 4, 5, 6, 7, 8, 9, 10}, one = 1;
    kh_init(&c, "ConvInteger", 10, 3, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(1, 1, 3, 3), x);
    kh_input(&c, 1, KN_UINT8, DIMS(1, 1, 2, 2), (uint8_t[]){1, 1, 1, 1});
    kh_input(&c, 2, KN_UINT8, NULL, 0, &one);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(1, 1, 2, 2));
    expect_data(&c.out[0], KN_INT32, (int32_t[]){12, 16, 24, 28});
    kh_free(&c);
    kh_init(&c, "ConvInteger", 10, 3, 1);
    kh_attr_ints(&c, "pads", (int64_t[]){1, 1, 1, 1}, 4);
    kh_input(&c, 0, KN_UINT8, DIMS(1, 1, 3, 3), x);
    kh_input(&c, 1, KN_UINT8, DIMS(1, 1, 2, 2), (uint8_t[]){1, 1, 1, 1});
    kh_input(&c, 2, KN_UINT8, NULL, 0, &one);
    run_ok(&c);
    expect_data(&c.out[0], KN_INT32,
                (int32_t[]){1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9});
    kh_free(&c);
    kh_init(&c, "ConvInteger", 10, 3, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(1, 1, 3, 3), x);
    kh_input(&c, 1, KN_UINT8, DIMS(1, 1, 2, 2), (uint8_t[]){1, 1, 1, 1});
    kh_input(&c, 2, KN_UINT8, DIMS(2), (uint8_t[]){1, 1});
    expect_fail(&c, KN_ERR_SHAPE, "x_zero_point");
    kh_free(&c);
    kh_init(&c, "ConvInteger", 10, 2, 1);
    kh_attr_int(&c, "group", 2);
    kh_input(&c, 0, KN_UINT8, DIMS(1, 1, 3, 3), x);
    kh_input(&c, 1, KN_UINT8, DIMS(2, 1, 2, 2), (uint8_t[]){1, 1, 1, 1, 1, 1, 1, 1});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "group");
}

/* Grouped, strided, dilated, padded 2-D convolution with per-channel
 * weight zero points, big enough for blocks and threads: ConvInteger
 * against the naive loops, QLinearConv (with bias) against the formula. */
Test(integer, conv_random)
{
    enum { N = 2, C = 6, H = 23, W = 19, M = 8, G = 2, KH = 3, KW = 2 };
    const int sh = 2, sw = 1, ph = 1, pw = 2, dh = 1, dw = 2;
    const int OH = (H + 2 * ph - ((KH - 1) * dh + 1)) / sh + 1;
    const int OW = (W + 2 * pw - ((KW - 1) * dw + 1)) / sw + 1;
    uint8_t *x = malloc(N * C * H * W);
    int8_t w[M * (C / G) * KH * KW], wzp[M];
    for (int i = 0; i < N * C * H * W; i++)
        x[i] = (uint8_t)rand_int(0, 255);
    for (int i = 0; i < (int)sizeof w; i++)
        w[i] = (int8_t)rand_int(-128, 127);
    for (int i = 0; i < M; i++)
        wzp[i] = (int8_t)rand_int(-10, 10);
    uint8_t xzp = 77;
    int64_t *ref = malloc(sizeof(int64_t) * N * M * OH * OW);
    naive_conv(x, xzp, w, wzp, M, N, C, H, W, M, G, KH, KW, sh, sw, ph, pw, dh, dw, OH, OW, ref);
    int32_t *want = malloc(sizeof(int32_t) * N * M * OH * OW);
    for (int i = 0; i < N * M * OH * OW; i++)
        want[i] = (int32_t)ref[i];

    kh_init(&c, "ConvInteger", 10, 4, 1);
    kh_attr_int(&c, "group", G);
    kh_attr_ints(&c, "strides", (int64_t[]){sh, sw}, 2);
    kh_attr_ints(&c, "pads", (int64_t[]){ph, pw, ph, pw}, 4);
    kh_attr_ints(&c, "dilations", (int64_t[]){dh, dw}, 2);
    kh_input(&c, 0, KN_UINT8, DIMS(N, C, H, W), x);
    kh_input(&c, 1, KN_INT8, DIMS(M, C / G, KH, KW), w);
    kh_input(&c, 2, KN_UINT8, NULL, 0, &xzp);
    kh_input(&c, 3, KN_INT8, DIMS(M), wzp);
    run_both(&c);
    expect_shape(&c.out[0], DIMS(N, M, OH, OW));
    expect_data(&c.out[0], KN_INT32, want);
    kh_free(&c);
    c.inputs_constant_in_prepare = 0; /* weights converted per run */
    run_both(&c);
    expect_data(&c.out[0], KN_INT32, want);
    kh_free(&c);

    float xs = 0.05f, ys = 0.9f, ws[M];
    int32_t bias[M];
    int8_t yzp = -5;
    for (int m = 0; m < M; m++) {
        ws[m] = 0.002f * (float)(m + 1);
        bias[m] = rand_int(-5000, 5000);
    }
    int8_t *qwant = malloc(N * M * OH * OW);
    for (int i = 0; i < N * M * OH * OW; i++) {
        int m = (i / (OH * OW)) % M;
        float mult = xs * ws[m] / ys;
        double v = nearbyint((double)(ref[i] + bias[m]) * mult) + yzp;
        qwant[i] = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
    }
    kh_init(&c, "QLinearConv", 10, 8, 1); /* + B through run_direct */
    kh_attr_int(&c, "group", G);
    kh_attr_ints(&c, "strides", (int64_t[]){sh, sw}, 2);
    kh_attr_ints(&c, "pads", (int64_t[]){ph, pw, ph, pw}, 4);
    kh_attr_ints(&c, "dilations", (int64_t[]){dh, dw}, 2);
    kh_input(&c, 0, KN_UINT8, DIMS(N, C, H, W), x);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &xs);
    kh_input(&c, 2, KN_UINT8, NULL, 0, &xzp);
    kh_input(&c, 3, KN_INT8, DIMS(M, C / G, KH, KW), w);
    kh_input(&c, 4, KN_FLOAT, DIMS(M), ws);
    kh_input(&c, 5, KN_INT8, DIMS(M), wzp);
    kh_input(&c, 6, KN_FLOAT, NULL, 0, &ys);
    kh_input(&c, 7, KN_INT8, NULL, 0, &yzp);
    kn_tensor tb = {.dtype = KN_INT32, .rank = 1, .dims = {M}, .data = bias};
    cr_assert_eq(run_direct(&c, "", &tb, 2), KN_OK, "%s", c.err.msg);
    int8_t *two = malloc(N * M * OH * OW);
    memcpy(two, c.out[0].data, N * M * OH * OW);
    cr_assert_eq(run_direct(&c, "", &tb, 1), KN_OK, "%s", c.err.msg);
    cr_assert(memcmp(two, c.out[0].data, N * M * OH * OW) == 0, "1 and 2 threads differ");
    free(two);
    expect_shape(&c.out[0], DIMS(N, M, OH, OW));
    expect_data(&c.out[0], KN_INT8, qwant);
    kh_free(&c);
    /* bias of the wrong length */
    kh_init(&c, "QLinearConv", 10, 8, 1);
    kh_attr_int(&c, "group", G);
    kh_input(&c, 0, KN_UINT8, DIMS(N, C, H, W), x);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &xs);
    kh_input(&c, 2, KN_UINT8, NULL, 0, &xzp);
    kh_input(&c, 3, KN_INT8, DIMS(M, C / G, KH, KW), w);
    kh_input(&c, 4, KN_FLOAT, DIMS(M), ws);
    kh_input(&c, 5, KN_INT8, DIMS(M), wzp);
    kh_input(&c, 6, KN_FLOAT, NULL, 0, &ys);
    kh_input(&c, 7, KN_INT8, NULL, 0, &yzp);
    tb.dims[0] = M - 1;
    cr_assert_eq(run_direct(&c, "", &tb, 1), KN_ERR_SHAPE);
    cr_assert(strstr(c.err.msg, "B must be"), "%s", c.err.msg);
    free(x);
    free(ref);
    free(want);
    free(qwant);
}

Test(integer, qlinearconv_example)
{
    /* a 1x1 kernel: y = round(x_real / y_scale) + y_zp, from the spec test */
    uint8_t x[] = {255, 174, 162, 25, 203, 168, 58};
    float xs = 0.003692047f, ws = 0.0017279458f, ys = 0.0016268126f;
    uint8_t xzp = 132, w = 0, wzp = 255, yzp = 123;
    kh_init(&c, "QLinearConv", 10, 8, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(1, 1, 1, 7), x);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &xs);
    kh_input(&c, 2, KN_UINT8, NULL, 0, &xzp);
    kh_input(&c, 3, KN_UINT8, DIMS(1, 1, 1, 1), &w);
    kh_input(&c, 4, KN_FLOAT, DIMS(1), &ws);
    kh_input(&c, 5, KN_UINT8, DIMS(1), &wzp);
    kh_input(&c, 6, KN_FLOAT, NULL, 0, &ys);
    kh_input(&c, 7, KN_UINT8, NULL, 0, &yzp);
    run_ok(&c);
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){0, 81, 93, 230, 52, 87, 197});
}

/* The integer convolution's kernels by shape: depthwise (stride 1 and 2,
 * channel by channel), pointwise (no im2col) and general (columns packed
 * from the image, quant_conv_pack.c) on the
 * packed int16 GEMM with row, column and odd-depth tails; uint8 and int8
 * inputs, per-channel weight zero points; exact int32 against the naive
 * loops, on 1 and 2 threads. */
typedef struct conv_shape {
    int n, c, h, w, m, g, kh, kw, sh, sw, ph, pw;
    int32_t x_dtype;
} conv_shape;

static void naive_conv_any(const int32_t *xv, const int32_t *wv, const conv_shape *s, int oh,
                           int ow, int32_t *y)
{
    int cg = s->c / s->g, mg = s->m / s->g;
    for (int n = 0; n < s->n; n++)
        for (int m = 0; m < s->m; m++)
            for (int i = 0; i < oh; i++)
                for (int j = 0; j < ow; j++) {
                    int64_t acc = 0;
                    for (int ci = 0; ci < cg; ci++)
                        for (int a = 0; a < s->kh; a++)
                            for (int b = 0; b < s->kw; b++) {
                                int ih = i * s->sh - s->ph + a, iw = j * s->sw - s->pw + b;
                                if (ih < 0 || ih >= s->h || iw < 0 || iw >= s->w)
                                    continue;
                                acc +=
                                    (int64_t)xv[((n * s->c + m / mg * cg + ci) * s->h + ih) * s->w +
                                                iw] *
                                    wv[((m * cg + ci) * s->kh + a) * s->kw + b];
                            }
                    y[((n * s->m + m) * oh + i) * ow + j] = (int32_t)acc;
                }
}

static void check_conv_shape(const conv_shape *s)
{
    int oh = (s->h + 2 * s->ph - s->kh) / s->sh + 1, ow = (s->w + 2 * s->pw - s->kw) / s->sw + 1;
    int nx = s->n * s->c * s->h * s->w, nw = s->m * (s->c / s->g) * s->kh * s->kw;
    int ny = s->n * s->m * oh * ow;
    int s8 = s->x_dtype == KN_INT8;
    void *x = malloc((size_t)nx);
    int8_t *w = malloc((size_t)nw), *wzp = malloc((size_t)s->m);
    int32_t *xv = malloc(sizeof(int32_t) * (size_t)nx), *wv = malloc(sizeof(int32_t) * (size_t)nw);
    int32_t *want = malloc(sizeof(int32_t) * (size_t)ny);
    int xz = s8 ? -7 : 131;
    for (int i = 0; i < nx; i++) {
        int v = s8 ? rand_int(-128, 127) : rand_int(0, 255);
        if (s8)
            ((int8_t *)x)[i] = (int8_t)v;
        else
            ((uint8_t *)x)[i] = (uint8_t)v;
        xv[i] = v - xz;
    }
    for (int m = 0; m < s->m; m++)
        wzp[m] = (int8_t)rand_int(-9, 9);
    for (int i = 0; i < nw; i++) {
        w[i] = (int8_t)rand_int(-128, 127);
        wv[i] = w[i] - wzp[i / (nw / s->m)];
    }
    naive_conv_any(xv, wv, s, oh, ow, want);
    uint8_t xzu = (uint8_t)xz;
    int8_t xzs = (int8_t)xz;
    for (int threads = 1; threads <= 2; threads++) {
        kh_init(&c, "ConvInteger", 10, 4, 1);
        kh_attr_int(&c, "group", s->g);
        kh_attr_ints(&c, "strides", (int64_t[]){s->sh, s->sw}, 2);
        kh_attr_ints(&c, "pads", (int64_t[]){s->ph, s->pw, s->ph, s->pw}, 4);
        kh_input(&c, 0, s->x_dtype, DIMS(s->n, s->c, s->h, s->w), x);
        kh_input(&c, 1, KN_INT8, DIMS(s->m, s->c / s->g, s->kh, s->kw), w);
        kh_input(&c, 2, s->x_dtype, NULL, 0, s8 ? (void *)&xzs : (void *)&xzu);
        kh_input(&c, 3, KN_INT8, DIMS(s->m), wzp);
        cr_assert_eq(run_direct(&c, "", NULL, threads), KN_OK, "%s", c.err.msg);
        expect_shape(&c.out[0], DIMS(s->n, s->m, oh, ow));
        const int32_t *y = c.out[0].data;
        for (int i = 0; i < ny; i++)
            cr_assert_eq(y[i], want[i], "%dx%d group %d stride %d, %d threads: [%d] %d vs %d",
                         s->kh, s->kw, s->g, s->sw, threads, i, y[i], want[i]);
        kh_free(&c);
    }
    free(x);
    free(w);
    free(wzp);
    free(xv);
    free(wv);
    free(want);
}

Test(integer, conv_kernel_shapes)
{
    const conv_shape shapes[] = {
        /* depthwise 3x3, stride 1 and 2 (odd and even sizes), 5x5 stride 2 */
        {1, 16, 13, 17, 16, 16, 3, 3, 1, 1, 1, 1, KN_UINT8},
        {2, 8, 14, 15, 8, 8, 3, 3, 2, 2, 1, 1, KN_UINT8},
        {1, 6, 11, 12, 6, 6, 5, 5, 2, 2, 2, 2, KN_INT8},
        {1, 5, 9, 9, 5, 5, 3, 3, 1, 2, 0, 1, KN_INT8},
        /* stride 2 on rows wide enough for the copy's 16-byte loads */
        {1, 4, 9, 41, 4, 4, 3, 3, 2, 2, 1, 1, KN_INT8},
        {1, 3, 7, 44, 3, 3, 3, 3, 1, 2, 1, 0, KN_UINT8},
        /* pointwise: rows, columns and depth not multiples of the tile */
        {1, 19, 7, 9, 37, 1, 1, 1, 1, 1, 0, 0, KN_UINT8},
        {2, 32, 5, 5, 16, 1, 1, 1, 1, 1, 0, 0, KN_INT8},
        /* packed from the image: 3x3 padded, a strided 1x1, a 7x7 stride 2 stem */
        {1, 5, 10, 11, 9, 1, 3, 3, 1, 1, 1, 1, KN_UINT8},
        {1, 12, 9, 9, 20, 1, 1, 1, 2, 2, 0, 0, KN_INT8},
        {1, 3, 20, 20, 8, 1, 7, 7, 2, 2, 3, 3, KN_UINT8},
        /* lines long enough for whole-vector loads at stride 1 and 2, odd
         * sizes (panels across lines), a line of exactly 8, stride 3, groups,
         * one input row, an odd depth */
        {1, 9, 33, 37, 12, 1, 3, 3, 2, 2, 1, 1, KN_UINT8},
        {1, 16, 40, 50, 20, 1, 1, 1, 2, 2, 0, 0, KN_INT8},
        {1, 4, 12, 35, 6, 1, 3, 3, 1, 1, 1, 1, KN_UINT8},
        {1, 3, 8, 8, 4, 1, 5, 5, 1, 1, 2, 2, KN_UINT8},
        {1, 3, 26, 50, 5, 1, 3, 3, 3, 3, 1, 1, KN_UINT8},
        {2, 8, 21, 34, 8, 2, 3, 3, 2, 2, 1, 1, KN_INT8},
        {1, 7, 1, 40, 5, 1, 1, 3, 1, 2, 0, 1, KN_INT8},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        check_conv_shape(&shapes[i]);
}

/* QLinearConv's depthwise path requantizes a strip of output rows per
 * call: rows of 7 and 14 (the padded vector tail on every strip), strides 1
 * and 2, a 5x5 kernel, and planes wide enough to take several strips;
 * against the formula in double, on 1 and 2 threads. Biases up to
 * bias_span: past 2^24 the sums are no longer exact in float, and the
 * requantization takes its checked loop. */
static void check_qlinearconv_depthwise(const conv_shape *s, int32_t bias_span, float ys)
{
    int oh = (s->h + 2 * s->ph - s->kh) / s->sh + 1, ow = (s->w + 2 * s->pw - s->kw) / s->sw + 1;
    int nx = s->n * s->c * s->h * s->w, nw = s->m * s->kh * s->kw, ny = s->n * s->m * oh * ow;
    uint8_t *x = malloc((size_t)nx), xz = 119;
    int8_t *w = malloc((size_t)nw), wzp[64], yzp = 3;
    int32_t *xv = malloc(sizeof(int32_t) * (size_t)nx), *wv = malloc(sizeof(int32_t) * (size_t)nw);
    int32_t *acc = malloc(sizeof(int32_t) * (size_t)ny), bias[64];
    int8_t *want = malloc((size_t)ny);
    float xs = 0.03f, ws[64];
    cr_assert_leq(s->m, 64);
    for (int i = 0; i < nx; i++) {
        x[i] = (uint8_t)rand_int(0, 255);
        xv[i] = x[i] - xz;
    }
    for (int m = 0; m < s->m; m++) {
        wzp[m] = (int8_t)rand_int(-5, 5);
        ws[m] = 0.004f * (float)(m + 1);
        bias[m] = rand_int(-bias_span, bias_span);
    }
    for (int i = 0; i < nw; i++) {
        w[i] = (int8_t)rand_int(-128, 127);
        wv[i] = w[i] - wzp[i / (s->kh * s->kw)];
    }
    naive_conv_any(xv, wv, s, oh, ow, acc);
    for (int i = 0; i < ny; i++) {
        int m = (i / (oh * ow)) % s->m;
        float mult = xs * ws[m] / ys;
        double v = nearbyint((double)(acc[i] + bias[m]) * mult) + yzp;
        want[i] = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
    }
    for (int threads = 1; threads <= 2; threads++) {
        kh_init(&c, "QLinearConv", 10, 9, 1);
        kh_attr_int(&c, "group", s->g);
        kh_attr_ints(&c, "strides", (int64_t[]){s->sh, s->sw}, 2);
        kh_attr_ints(&c, "pads", (int64_t[]){s->ph, s->pw, s->ph, s->pw}, 4);
        kh_input(&c, 0, KN_UINT8, DIMS(s->n, s->c, s->h, s->w), x);
        kh_input(&c, 1, KN_FLOAT, NULL, 0, &xs);
        kh_input(&c, 2, KN_UINT8, NULL, 0, &xz);
        kh_input(&c, 3, KN_INT8, DIMS(s->m, 1, s->kh, s->kw), w);
        kh_input(&c, 4, KN_FLOAT, DIMS(s->m), ws);
        kh_input(&c, 5, KN_INT8, DIMS(s->m), wzp);
        kh_input(&c, 6, KN_FLOAT, NULL, 0, &ys);
        kh_input(&c, 7, KN_INT8, NULL, 0, &yzp);
        kh_input(&c, 8, KN_INT32, DIMS(s->m), bias);
        cr_assert_eq(run_direct(&c, "", NULL, threads), KN_OK, "%s", c.err.msg);
        expect_shape(&c.out[0], DIMS(s->n, s->m, oh, ow));
        const int8_t *y = c.out[0].data;
        for (int i = 0; i < ny; i++)
            cr_assert_eq(y[i], want[i], "%dx%d plane %dx%d stride %d, %d threads: [%d] %d vs %d",
                         s->kh, s->kw, s->h, s->w, s->sh, threads, i, y[i], want[i]);
        kh_free(&c);
    }
    free(x);
    free(w);
    free(xv);
    free(wv);
    free(acc);
    free(want);
}

Test(integer, qlinearconv_depthwise_strips)
{
    const conv_shape shapes[] = {
        {1, 6, 13, 13, 6, 6, 3, 3, 2, 2, 1, 1, KN_UINT8},  /* 7x7 out */
        {2, 4, 14, 14, 4, 4, 3, 3, 1, 1, 1, 1, KN_UINT8},  /* 14x14 */
        {1, 5, 9, 11, 5, 5, 5, 5, 2, 2, 2, 2, KN_UINT8},   /* 5x5 stride 2 */
        {1, 3, 30, 301, 3, 3, 3, 3, 1, 1, 1, 1, KN_UINT8}, /* several strips */
        {1, 3, 31, 300, 3, 3, 3, 3, 2, 2, 1, 1, KN_UINT8},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        check_qlinearconv_depthwise(&shapes[i], 2000, 0.07f);
        check_qlinearconv_depthwise(&shapes[i], 20000000, 5000.0f);
    }
}

/* kiln.QMulFloat (the SE gate) on the CPU kernels: A [2, 5, 17, 23] (391
 * elements per channel, past the kernel's 256-element chunks) times B per
 * channel ([1, 5, 1, 1], the NCHW gate: rows with B's stride 0), per last
 * dim ([23], stride 1), or a scalar, against the graph's float arithmetic
 * (DequantizeLinear, Mul, QuantizeLinear), uint8 and int8: equal. */
Test(quantize, qmul_float_equals_the_graphs_arithmetic)
{
    enum { N = 2, C = 5, H = 17, W = 23 };
    const int64_t n = N * C * H * W;
    for (int dt = 0; dt < 2; dt++)
        for (int form = 0; form < 3; form++) {
            int32_t dtype = dt ? KN_INT8 : KN_UINT8;
            int8_t za8 = -3, zc8 = 10;
            uint8_t zau = 120, zcu = 90;
            int32_t za = dt ? za8 : zau, zc = dt ? zc8 : zcu;
            float sa = 0.03f, sc = 0.021f, b[W];
            for (int i = 0; i < W; i++)
                b[i] = 1.5f / (1.0f + expf(-0.3f * (float)(i - 9)));
            uint8_t *a = malloc((size_t)n);
            for (int64_t i = 0; i < n; i++)
                a[i] = (uint8_t)rand_int(0, 255);
            kh_init(&c, "QMulFloat", 1, 6, 1);
            kh_input(&c, 0, dtype, DIMS(N, C, H, W), a);
            if (form == 0)
                kh_input(&c, 3, KN_FLOAT, DIMS(1, C, 1, 1), b);
            else if (form == 1)
                kh_input(&c, 3, KN_FLOAT, DIMS(W), b);
            else
                kh_input(&c, 3, KN_FLOAT, NULL, 0, b);
            kh_input(&c, 1, KN_FLOAT, NULL, 0, &sa);
            kh_input(&c, 2, dtype, NULL, 0, dt ? (void *)&za8 : (void *)&zau);
            kh_input(&c, 4, KN_FLOAT, NULL, 0, &sc);
            kh_input(&c, 5, dtype, NULL, 0, dt ? (void *)&zc8 : (void *)&zcu);
            cr_assert_eq(run_direct(&c, "kiln", NULL, 1), KN_OK, "%s", c.err.msg);
            float lo = dt ? -128 : 0, hi = dt ? 127 : 255;
            const uint8_t *o = c.out[0].data;
            for (int64_t i = 0; i < n; i++) {
                float va = dt ? (float)(int8_t)a[i] : (float)a[i];
                float bi = form == 0 ? b[(i / (H * W)) % C] : form == 1 ? b[i % W] : b[0];
                volatile float x = (va - (float)za) * sa; /* DequantizeLinear */
                volatile float m = x * bi;                /* Mul */
                float q = nearbyintf(m / sc) + (float)zc; /* QuantizeLinear */
                q = q < lo ? lo : q > hi ? hi : q;
                int got = dt ? (int8_t)o[i] : o[i];
                cr_assert_eq(got, (int)q, "%s form %d: element %lld: %d, want %d",
                             kn_dtype_name(dtype), form, (long long)i, got, (int)q);
            }
            kh_free(&c);
            free(a);
        }
}

/* The integer Winograd F(2x2, 3x3) path (quant_winograd.c) against the
 * same naive loops: exactly equal, forced on small channel counts too, with
 * odd sizes (partial tiles), pads 0 to 2, odd channel counts (the packing's
 * zero pair), a 1x1 image, uint8 and int8, 1 and 2 threads; and forced off
 * (KILN_CONV_ALGO=im2col's override) the direct path gives the same. */
Test(integer, conv_winograd_matches_direct)
{
    const conv_shape shapes[] = {
        {1, 16, 13, 17, 20, 1, 3, 3, 1, 1, 1, 1, KN_UINT8},
        {2, 9, 8, 7, 12, 1, 3, 3, 1, 1, 0, 0, KN_INT8},
        {1, 33, 6, 5, 7, 1, 3, 3, 1, 1, 2, 2, KN_UINT8},
        {1, 3, 1, 1, 5, 1, 3, 3, 1, 1, 1, 1, KN_INT8},
        {1, 64, 15, 14, 16, 1, 3, 3, 1, 1, 1, 1, KN_INT8},
        {1, 5, 30, 3, 9, 1, 3, 3, 1, 1, 1, 0, KN_UINT8},
    };
    const int algos[] = {KN_CONV_ALGO_WINOGRAD, KN_CONV_ALGO_IM2COL};
    for (size_t a = 0; a < 2; a++) {
        kn_conv_algo_force(algos[a]);
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            check_conv_shape(&shapes[i]);
    }
    kn_conv_algo_force(-1);
}

/* A 3x3 quant_conv of cin channels for quant_wg_prepare. */
static quant_conv wg_conv(int64_t cin, int64_t cout)
{
    quant_conv q;
    memset(&q, 0, sizeof q);
    q.win.nsp = 2;
    for (int d = 0; d < KN_WIN_DIMS; d++) {
        q.win.in[d] = q.win.out[d] = d ? 8 : 1;
        q.win.kernel[d] = d ? 3 : 1;
        q.win.stride[d] = q.win.dilation[d] = 1;
        q.win.pad_begin[d] = q.win.pad_end[d] = d ? 1 : 0;
    }
    q.group = 1;
    q.cin = cin;
    q.cout = cout;
    q.cg = cin;
    q.mg = cout;
    q.kdim = cin * 9;
    q.in_size = q.out_size = 64;
    q.tasks = 1;
    return q;
}

/* Taken only where 4 * 255 * (sum of |w - zp| of an output channel) <
 * 2^31, so that 4 y cannot leave int32: with every weight at 255 from its
 * zero point that is up to 917 input channels, not 918; fewer channels of
 * smaller weights go further. */
Test(integer, conv_winograd_only_where_int32_is_exact)
{
    for (int64_t cin = 917; cin <= 918; cin++) {
        quant_conv q = wg_conv(cin, 8);
        int16_t *g = malloc(sizeof(int16_t) * (size_t)(8 * cin * 9));
        for (int64_t i = 0; i < 8 * cin * 9; i++) /* channel 1 at the limit */
            g[i] = (int16_t)(i / (cin * 9) != 1 ? 1 : (i & 1 ? 255 : -255));
        cr_assert_eq(quant_wg_prepare(&q, g, 1), cin == 917, "%lld channels", (long long)cin);
        cr_assert_eq(q.winograd, cin == 917);
        quant_conv_release(&q);
        free(g);
    }
    quant_conv q = wg_conv(2000, 8);
    int16_t *g = calloc((size_t)(8 * 2000 * 9), sizeof(int16_t));
    for (int i = 0; i < 8 * 2000 * 9; i++)
        g[i] = (int16_t)(i % 7 == 0 ? -100 : 0);
    cr_assert(quant_wg_prepare(&q, g, 1), "small weights, many channels");
    quant_conv_release(&q);
    free(g);
    /* strides and groups are not its */
    q = wg_conv(16, 16);
    q.win.stride[2] = 2;
    g = calloc(16 * 16 * 9, sizeof(int16_t));
    cr_assert(!quant_wg_prepare(&q, g, 1));
    q = wg_conv(16, 16);
    q.group = 2;
    cr_assert(!quant_wg_prepare(&q, g, 1));
    free(g);
}

/* The activations of kiln.QFusedConv's epilogue as the op defines them,
 * on the real value rounded to float: 0 none, 1 Relu, 2 Clip(-1, 2.5),
 * 3 Silu, 4 HardSwish. */
static float fused_act_def(int a, float f)
{
    switch (a) {
    case 1:
        return f < 0 ? 0 : f;
    case 2:
        return f < -1.0f ? -1.0f : f > 2.5f ? 2.5f : f;
    case 3:
        return (float)((double)f / (1.0 + exp(-(double)f)));
    case 4: {
        float v = f / 6.0f + 0.5f;
        return f * (v < 0 ? 0.0f : v > 1 ? 1.0f : v);
    }
    default:
        return f;
    }
}

/* kiln.QFusedConv's epilogue with a residual, vectorised: equal to its
 * definition worked out here in double (the real value rounded to float
 * before the activation, as the op's reference arithmetic does). The last
 * channel's scale reaches real values far past SiLU's bend (below -80
 * too); ys puts many results near rounding ties of the smooth curves. */
static void check_qfusedconv_epilogue(const char *const *acts, int first, int count)
{
    enum { C = 8, H = 9, W = 10, M = 12 };
    uint8_t x[C * H * W], z[M * H * W];
    int8_t w[M * C * 9], wzp[M] = {0};
    int32_t bias[M];
    float ws[M], xs = 0.02f, ys = 0.05f, zs = 0.03f;
    uint8_t xz = 128, yz = 100, zz = 90;
    for (int i = 0; i < C * H * W; i++)
        x[i] = (uint8_t)rand_int(0, 255);
    for (int i = 0; i < M * H * W; i++)
        z[i] = (uint8_t)rand_int(0, 255);
    for (int i = 0; i < M * C * 9; i++)
        w[i] = (int8_t)rand_int(-128, 127);
    for (int m = 0; m < M; m++) {
        bias[m] = rand_int(-3000, 3000);
        ws[m] = 0.001f * (float)(m + 3) * (m == M - 1 ? 8.0f : 1.0f);
    }
    int32_t xv[C * H * W], wv[M * C * 9], acc[M * H * W];
    for (int i = 0; i < C * H * W; i++)
        xv[i] = x[i] - xz;
    for (int i = 0; i < M * C * 9; i++)
        wv[i] = w[i];
    conv_shape s = {1, C, H, W, M, 1, 3, 3, 1, 1, 1, 1, KN_UINT8};
    naive_conv_any(xv, wv, &s, H, W, acc);
    static const float clip_range[2] = {-1.0f, 2.5f};
    for (int a = first; a < first + count; a++) {
        kh_init(&c, "QFusedConv", 1, 12, 1);
        kh_attr_ints(&c, "pads", (int64_t[]){1, 1, 1, 1}, 4);
        if (acts[a][0])
            kh_attr_string(&c, "activation", acts[a]);
        if (a == 2) /* the harness keeps the pointer: an array that outlives the run */
            kh_attr_floats(&c, "activation_params", clip_range, 2);
        kh_input(&c, 0, KN_UINT8, DIMS(1, C, H, W), x);
        kh_input(&c, 1, KN_FLOAT, NULL, 0, &xs);
        kh_input(&c, 2, KN_UINT8, NULL, 0, &xz);
        kh_input(&c, 3, KN_INT8, DIMS(M, C, 3, 3), w);
        kh_input(&c, 4, KN_FLOAT, DIMS(M), ws);
        kh_input(&c, 5, KN_INT8, DIMS(M), wzp);
        kh_input(&c, 6, KN_FLOAT, NULL, 0, &ys);
        kh_input(&c, 7, KN_UINT8, NULL, 0, &yz);
        kh_input(&c, 8, KN_INT32, DIMS(M), bias);
        kh_input(&c, 9, KN_UINT8, DIMS(1, M, H, W), z);
        kh_input(&c, 10, KN_FLOAT, NULL, 0, &zs);
        kh_input(&c, 11, KN_UINT8, NULL, 0, &zz);
        cr_assert_eq(run_direct(&c, "kiln", NULL, 1), KN_OK, "%s", c.err.msg);
        const uint8_t *y = c.out[0].data;
        int bent = 0;
        for (int i = 0; i < M * H * W; i++) {
            int m = i / (H * W);
            double real = (double)(acc[i] + bias[m]) * ((double)xs * ws[m]) +
                          (double)(z[i] - zz) * (double)zs;
            float f = fused_act_def(a, (float)real);
            bent += real < -80.0;
            double q = nearbyint((double)f / ys) + yz;
            uint8_t want = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
            cr_assert_eq(y[i], want, "activation '%s' [%d]: %u vs %u", acts[a], i, y[i], want);
        }
        cr_assert_gt(bent, 0);
        kh_free(&c);
    }
}

static const char *const fused_acts[] = {"", "Relu", "Clip", "Silu", "HardSwish"};

Test(integer, qfusedconv_clamp_epilogue)
{
    check_qfusedconv_epilogue(fused_acts, 0, 3);
}

/* SiLU and HardSwish in the float loops, flagged elements redone in double. */
Test(integer, qfusedconv_smooth_epilogue)
{
    check_qfusedconv_epilogue(fused_acts, 3, 2);
}

/* Requantization at exact ties (s_x s_w / s_y = 0.5: every odd sum is one)
 * rounds half to even, in QLinearConv and in kiln.QFusedConv with a
 * residual: the float loops hand these elements to the double reference.
 * A row of 303: its last 3 go through the loops as one padded vector, and
 * are made ties (sums 3, 5, 7: 2, 2, 4) so that the padded lane's flags
 * are tested too. */
Test(integer, requant_ties_round_to_even)
{
    enum { C = 3, HW = 303, TAIL = 300 };
    uint8_t x[C * HW], zres[HW];
    for (int i = 0; i < C * HW; i++)
        x[i] = (uint8_t)rand_int(0, 255);
    for (int i = 0; i < HW; i++)
        zres[i] = (uint8_t)rand_int(0, 255);
    for (int i = TAIL; i < HW; i++) {
        x[i] = (uint8_t)(2 * (i - TAIL) + 2);
        x[HW + i] = x[2 * HW + i] = 0;
        zres[i] = 100; /* zz: no residual */
    }
    int8_t w[C] = {1, -1, 1}, wzp = 0;
    float xs = 1.0f, ws = 1.0f, ys = 2.0f, zs = 1.0f;
    uint8_t xz = 0, yz = 0, zz = 100;
    int32_t bias = 1;
    for (int fused = 0; fused < 2; fused++) {
        kh_init(&c, fused ? "QFusedConv" : "QLinearConv", fused ? 1 : 10, fused ? 12 : 9, 1);
        kh_input(&c, 0, KN_UINT8, DIMS(1, C, 1, HW), x);
        kh_input(&c, 1, KN_FLOAT, NULL, 0, &xs);
        kh_input(&c, 2, KN_UINT8, NULL, 0, &xz);
        kh_input(&c, 3, KN_INT8, DIMS(1, C, 1, 1), w);
        kh_input(&c, 4, KN_FLOAT, NULL, 0, &ws);
        kh_input(&c, 5, KN_INT8, NULL, 0, &wzp);
        kh_input(&c, 6, KN_FLOAT, NULL, 0, &ys);
        kh_input(&c, 7, KN_UINT8, NULL, 0, &yz);
        kh_input(&c, 8, KN_INT32, DIMS(1), &bias);
        if (fused) {
            kh_input(&c, 9, KN_UINT8, DIMS(1, 1, 1, HW), zres);
            kh_input(&c, 10, KN_FLOAT, NULL, 0, &zs);
            kh_input(&c, 11, KN_UINT8, NULL, 0, &zz);
        }
        cr_assert_eq(run_direct(&c, fused ? "kiln" : "", NULL, 1), KN_OK, "%s", c.err.msg);
        const uint8_t *y = c.out[0].data;
        int ties = 0;
        for (int i = 0; i < HW; i++) {
            int sum = x[i] - x[HW + i] + x[2 * HW + i] + bias + (fused ? zres[i] - zz : 0);
            ties += sum % 2 != 0;
            double q = nearbyint(sum / 2.0);
            uint8_t want = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
            cr_assert_eq(y[i], want, "%s [%d]: sum %d gave %u, want %u", fused ? "fused" : "plain",
                         i, sum, y[i], want);
        }
        cr_assert_gt(ties, 50);
        cr_assert_eq(y[TAIL], 2);
        cr_assert_eq(y[TAIL + 1], 2);
        cr_assert_eq(y[TAIL + 2], 4);
        kh_free(&c);
    }
}
