/* KILN_OPT_PRECISION: a session allowed bfloat16 runs a small MLP
 * (tests/data/models/bf16_mlp.onnx, tools/make_precision_model.py) within
 * bfloat16's accuracy of the float32 session, and on a CPU with bf16
 * instructions and oneDNN it does compute in bfloat16 (the results are not
 * float32's bit for bit); the option's bad values are refused. */
#include <math.h>
#include <string.h>

#include "api_helpers.h"

enum { ROWS = 64, COLS_IN = 128, COLS_OUT = 64 };

static void run_mlp(kiln_model *m, int32_t precision, const float *x, float *y)
{
    kiln_options *o = NULL;
    kiln_session *s = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_int(o, KILN_OPT_PRECISION, precision));
    KT_OK(kiln_session_create(m, o, &s));
    kiln_options_destroy(o);
    const int64_t dims[2] = {ROWS, COLS_IN};
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 2, x,
                                 sizeof(float) * ROWS * COLS_IN, 0));
    KT_OK(kiln_session_run(s));
    size_t needed = 0;
    KT_OK(kiln_session_output_copy(s, 0, y, sizeof(float) * ROWS * COLS_OUT, &needed));
    cr_assert_eq(needed, sizeof(float) * ROWS * COLS_OUT);
    kiln_session_destroy(s);
}

#ifdef KILN_WITH_DNNL /* only the oneDNN build has a bf16 path to check */
static int cpu_has_bf16(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    return __builtin_cpu_supports("avx512bf16") || __builtin_cpu_supports("amx-bf16");
#else
    return 0;
#endif
}
#endif

Test(precision, bf16_within_its_accuracy)
{
    static float x[ROWS * COLS_IN], fp32[ROWS * COLS_OUT], bf16[ROWS * COLS_OUT];
    unsigned seed = 5;
    for (int i = 0; i < ROWS * COLS_IN; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, "tests/data/models/bf16_mlp.onnx");
    run_mlp(m, KILN_PRECISION_FP32, x, fp32);
    run_mlp(m, KILN_PRECISION_BF16, x, bf16);
    double num = 0, den = 0;
    int differ = 0;
    for (int i = 0; i < ROWS * COLS_OUT; i++) {
        num += (double)(bf16[i] - fp32[i]) * (bf16[i] - fp32[i]);
        den += (double)fp32[i] * fp32[i];
        differ |= bf16[i] != fp32[i];
    }
    double rel = sqrt(num / den);
    /* bf16 keeps 8 significant bits: ~0.4 % per product, less once summed */
    cr_assert(rel < 2e-2, "bf16 relative L2 error %.3g against float32", rel);
#ifdef KILN_WITH_DNNL
    if (cpu_has_bf16())
        cr_assert(differ, "bf16 session gave float32's bits: bf16 arithmetic did not run");
    else
        cr_log_info("no bf16 instructions here: the bf16 session computed in float32");
#else
    cr_assert(!differ, "without oneDNN a bf16 session computes in float32");
#endif
    cr_log_info("bf16 relative L2 error %.3g", rel);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

/* A trained CNN (tests/data/quant_nets/mnist_cnn.onnx: residual blocks,
 * depthwise-separable convolutions, squeeze-excitation) on 8 images: its
 * convolutions run in bf16 too where the CPU has bf16 instructions, within
 * bfloat16's accuracy, and give the float32 session's classes. */
Test(precision, bf16_convolutions_within_their_accuracy)
{
    enum { N = 8, PIXELS = 28 * 28, CLASSES = 10 };
    static float x[N * PIXELS], y[2][N * CLASSES];
    unsigned seed = 7;
    for (int i = 0; i < N * PIXELS; i++) { /* strokes on a dark ground, like digits */
        seed = seed * 1664525u + 1013904223u;
        x[i] = (seed >> 28) < 3 ? (float)(seed >> 8 & 0xffff) / 65535.0f : 0.0f;
    }
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, "tests/data/quant_nets/mnist_cnn.onnx");
    const int32_t precisions[2] = {KILN_PRECISION_FP32, KILN_PRECISION_BF16};
    for (int p = 0; p < 2; p++) {
        kiln_options *o = NULL;
        kiln_session *s = NULL;
        KT_OK(kiln_options_create(&o));
        KT_OK(kiln_options_set_int(o, KILN_OPT_PRECISION, precisions[p]));
        KT_OK(kiln_session_create(m, o, &s));
        kiln_options_destroy(o);
        /* one image a run: the classifier is then one row, which Kiln's
         * own float32 kernel takes, so a difference comes from the
         * convolutions */
        const int64_t dims[4] = {1, 1, 28, 28};
        for (int n = 0; n < N; n++) {
            KT_OK(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, dims, 4, x + n * PIXELS,
                                         sizeof(float) * PIXELS, 0));
            KT_OK(kiln_session_run(s));
            size_t needed = 0;
            KT_OK(kiln_session_output_copy(s, 0, y[p] + n * CLASSES, sizeof(float) * CLASSES,
                                           &needed));
            cr_assert_eq(needed, sizeof(float) * CLASSES);
        }
        kiln_session_destroy(s);
    }
    double num = 0, den = 0;
    int differ = 0, same_class = 0;
    for (int n = 0; n < N; n++) {
        int best[2] = {0, 0};
        for (int c = 0; c < CLASSES; c++) {
            float a = y[0][n * CLASSES + c], b = y[1][n * CLASSES + c];
            num += (double)(b - a) * (b - a);
            den += (double)a * a;
            differ |= a != b;
            for (int p = 0; p < 2; p++)
                best[p] = y[p][n * CLASSES + c] > y[p][n * CLASSES + best[p]] ? c : best[p];
        }
        same_class += best[0] == best[1];
    }
    double rel = sqrt(num / den);
    cr_assert(rel < 2e-2, "bf16 relative L2 error %.3g against float32", rel);
    cr_assert_eq(same_class, N, "bf16 changed the class of %d of %d images", N - same_class, N);
#ifdef KILN_WITH_DNNL
    if (cpu_has_bf16())
        cr_assert(differ, "bf16 session gave float32's bits: no bf16 convolution ran");
#else
    cr_assert(!differ, "without oneDNN a bf16 session computes in float32");
#endif
    cr_log_info("CNN bf16 relative L2 error %.3g", rel);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

/* FP16 and TF32 are device-backend precisions: a CPU session computes them
 * as float32, bit for bit (the host kernels must not read them as BF16). */
Test(precision, device_precisions_are_fp32_on_the_cpu)
{
    static float x[ROWS * COLS_IN], fp32[ROWS * COLS_OUT], other[ROWS * COLS_OUT];
    unsigned seed = 11;
    for (int i = 0; i < ROWS * COLS_IN; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, "tests/data/models/bf16_mlp.onnx");
    run_mlp(m, KILN_PRECISION_FP32, x, fp32);
    const int32_t device_only[2] = {KILN_PRECISION_FP16, KILN_PRECISION_TF32};
    for (int p = 0; p < 2; p++) {
        run_mlp(m, device_only[p], x, other);
        cr_assert(!memcmp(fp32, other, sizeof fp32), "precision %d differs from fp32 on the cpu",
                  device_only[p]);
    }
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(precision, bad_values_are_refused)
{
    kiln_options *o = NULL;
    KT_OK(kiln_options_create(&o));
    KT_FAILS(kiln_options_set_int(o, KILN_OPT_PRECISION, 4), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_options_set_int(o, KILN_OPT_PRECISION, -1), KILN_ERR_INVALID_ARGUMENT);
    char msg[256];
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "precision must be 0 (fp32), 1 (bf16), 2 (fp16) or 3 (tf32)"), "message: %s", msg);
    kiln_options_destroy(o);
}
