/* The CUDA backend's host code on a machine without a GPU, against a test
 * double of the libraries it calls (tests/cuda/fake_cuda_libs.c): an
 * emulated cuBLASLt and cuDNN (and the few runtime calls) that compute on
 * host memory what the real ones document. Each kernel's prepare and run
 * then go through their real code paths: the row-major to column-major
 * mapping of matmul.c, the layouts and descriptors of conv.c and pool.c
 * (NCHW and channels-last), the bias and activation epilogues,
 * kiln.Attention's two products. The results are compared with Kiln's CPU
 * kernels on the same nodes. Kiln's own device kernels (the .cu files) run
 * as host builds where a C++ compiler exists (tests/cuda/host_shim.h);
 * tests/gpu/run.sh runs all of them on a GPU. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/kernel/backend.h"
#include "kernel_harness.h"

extern const kn_backend kn_backend_cuda;

#ifndef KILN_WITH_CUDA

Test(cuda_emulated, needs_the_cuda_backend)
{
    cr_skip_test("Kiln was built without the CUDA backend (KILN_WITH_CUDA): nothing to emulate");
}

#else

#include "core/cuda/cuda_device.h"
#include "core/cuda/cuda_fatbins.h"
#include "core/cuda/cuda_tuning.h"
#include "core/cuda/device_params.h"
#include "core/engine/registry.h"
#include "test_support.h"
#include "tests/cuda/cuda_cases.h"
#include "tests/cuda/fake_cuda_libs.h"
#include "tests/cuda/half_sessions.h"
#include "tests/cuda/image_cases.h"
#include "tests/cuda/model_coverage.h"

/* Host memory as the emulated device's (a cuda_target, tests/cuda/cuda_cases.h);
 * outputs and scratch start poisoned, so every element must be written. */
static void *host_upload(const cuda_target *t, const void *host, size_t bytes)
{
    (void)t;
    void *p = malloc(bytes + 4);
    cr_assert_not_null(p);
    memcpy(p, host, bytes);
    return p;
}

static void *host_alloc(const cuda_target *t, size_t bytes)
{
    (void)t;
    void *p = malloc(bytes + 4);
    cr_assert_not_null(p);
    memset(p, 0x7f, bytes);
    return p;
}

static void host_download(const cuda_target *t, void *host, const void *dev, size_t bytes)
{
    (void)t;
    memcpy(host, dev, bytes);
}

static void host_release(const cuda_target *t, void *dev)
{
    (void)t;
    free(dev);
}

/* The CUDA kernel for c, run on the emulated device, against the CPU
 * kernel; every kernel it launches must be one this double emulates. */
static int32_t emulated_precision; /* KN_PRECISION_* the kernels are given */

static void emulated_compare(kh_case *c, uint32_t const_mask, double tol, const char *what)
{
    const cuda_target t = {.device = emulated_device(),
                           .stream = (void *)(uintptr_t)1,
                           .precision = emulated_precision,
                           .upload = host_upload,
                           .alloc = host_alloc,
                           .download = host_download,
                           .release = host_release};
    int before = unemulated_launches;
    cuda_case_check(&t, c, const_mask, tol, what);
    cr_assert_eq(unemulated_launches, before,
                 "%s: launched a device kernel this double does not emulate", what);
}

Test(cuda_emulated, matmul_batches_and_vectors) { matmul_cases(emulated_compare, 1e-5); }

Test(cuda_emulated, gemm_transposes_bias_and_full_c) { gemm_cases(emulated_compare, 1e-5); }

Test(cuda_emulated, fused_matmul_epilogues)
{
    static const char *const acts[] = {"Relu", "", "Sigmoid"};
    for (int i = 0; i < 3; i++)
        fused_matmul_case(emulated_compare, acts[i], 31, 1e-5);
}

Test(cuda_emulated, convolutions)
{
    static const int64_t pads1[] = {1, 1, 1, 1}, s2[] = {2, 2}, p1[] = {2, 2};
    // clang-format off
    static const conv_spec cases[] = {
        {.op = "Conv", .what = "Conv 3x3/2 + bias", .pads = pads1, .n_pads = 4, .strides = s2,
            .n_strides = 2, .x = {2, 8, 9, 9}, .w = {12, 8, 3, 3}, .rank = 4, .bias = 1},
        /* one cuDNN call: bias + residual + Relu */
        {.op = "FusedConv", .activation = "Relu", .what = "FusedConv bias + Z + Relu",
            .pads = pads1, .n_pads = 4, .strides = s2, .n_strides = 2, .x = {2, 8, 9, 9},
            .w = {12, 8, 3, 3}, .z = {2, 12, 5, 5}, .rank = 4, .z_rank = 4, .bias = 1},
        /* grouped, residual, another activation: conv, then the epilogue */
        {.op = "FusedConv", .activation = "Tanh", .what = "FusedConv grouped + Z + Tanh",
            .group = 4, .pads = pads1, .n_pads = 4, .strides = s2, .n_strides = 2,
            .x = {2, 8, 9, 9}, .w = {12, 2, 3, 3}, .z = {2, 12, 5, 5}, .rank = 4, .z_rank = 4,
            .bias = 1},
        /* channels-last */
        {.op = "NhwcConv", .activation = "Relu", .what = "NhwcConv bias + Z + Relu",
            .pads = pads1, .n_pads = 4, .strides = s2, .n_strides = 2, .x = {2, 9, 9, 8},
            .w = {12, 8, 3, 3}, .z = {2, 5, 5, 12}, .rank = 4, .z_rank = 4, .bias = 1},
        {.op = "NhwcConv", .activation = "Sigmoid", .what = "NhwcConv bias + Sigmoid",
            .pads = pads1, .n_pads = 4, .x = {2, 9, 9, 8}, .w = {12, 8, 3, 3}, .rank = 4,
            .bias = 1},
        /* 1-D, as 2-D with a unit dim */
        {.op = "Conv", .what = "Conv 1-D", .pads = p1, .n_pads = 2, .x = {2, 4, 20},
            .w = {6, 4, 5}, .rank = 3},
    };
    // clang-format on
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        conv_case(emulated_compare, &cases[i], 41 + 4 * (unsigned)i, 1e-5);
}

/* The session's precision reaches cuBLASLt as the product's compute type
 * and cuDNN as the convolution's math type: FP32 strict float32 (TF32
 * off), TF32 and BF16 TF32 Tensor Cores, FP16 float16 Tensor Cores. The
 * double computes float32 whatever it is told, so results still match. */
Test(cuda_emulated, precision_picks_compute_and_math_types)
{
    static const int64_t pads1[] = {1, 1, 1, 1};
    static const conv_spec conv = {.op = "Conv", .what = "Conv 3x3", .pads = pads1, .n_pads = 4,
                                   .x = {1, 4, 6, 6}, .w = {8, 4, 3, 3}, .rank = 4, .bias = 1};
    static const struct {
        int32_t precision;
        int compute, math;
    } want[] = {
        {KN_PRECISION_FP32, KN_CUBLAS_COMPUTE_32F, KN_CUDNN_FMA_MATH},
        {KN_PRECISION_BF16, KN_CUBLAS_COMPUTE_32F_FAST_TF32, KN_CUDNN_DEFAULT_MATH},
        {KN_PRECISION_FP16, KN_CUBLAS_COMPUTE_32F_FAST_16F, KN_CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION},
        {KN_PRECISION_TF32, KN_CUBLAS_COMPUTE_32F_FAST_TF32, KN_CUDNN_DEFAULT_MATH},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        emulated_precision = want[i].precision;
        last_compute_type = last_conv_math = -1;
        fused_matmul_case(emulated_compare, "Relu", 7, 1e-5);
        conv_case(emulated_compare, &conv, 9, 1e-5);
        cr_assert_eq(last_compute_type, want[i].compute, "precision %d: compute type %d",
                     want[i].precision, last_compute_type);
        cr_assert_eq(last_conv_math, want[i].math, "precision %d: math type %d",
                     want[i].precision, last_conv_math);
    }
    emulated_precision = KN_PRECISION_FP32;
}

/* The conversion kernels' host builds are Kiln's host conversions; this
 * runs the launch path (tests/gpu/run.sh compares the device's). */
Test(cuda_emulated, half_conversion_kernels)
{
    const cuda_target t = {.device = emulated_device(),
                           .stream = (void *)(uintptr_t)1,
                           .upload = host_upload,
                           .alloc = host_alloc,
                           .download = host_download,
                           .release = host_release};
    int before = unemulated_launches;
    half_conversion_case(&t);
    cr_assert_eq(unemulated_launches, before, "a conversion launch the double lacks");
}

/* A fused GELU goes into cuBLASLt's epilogue, which computes the tanh
 * approximation (the double too): in an FP16 session, whose budget covers
 * the 4.8e-4 between the two forms, the exact (erf) GELU of
 * kiln.FusedMatMul is GELU_BIAS and within 1e-3 of the CPU's exact one; an
 * FP32 session keeps the bias epilogue and Kiln's exact pass after it. */
Test(cuda_emulated, gelu_goes_into_the_epilogue_in_fp16_only)
{
    static const struct {
        int32_t precision;
        uint32_t epilogue;
        double tol;
    } want[] = {
        {KN_PRECISION_FP32, KN_CUBLASLT_EPILOGUE_BIAS, 1e-5},
        {KN_PRECISION_TF32, KN_CUBLASLT_EPILOGUE_BIAS, 1e-5},
        {KN_PRECISION_FP16, KN_CUBLASLT_EPILOGUE_GELU_BIAS, 1e-3},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        emulated_precision = want[i].precision;
        last_lt_epilogue = 0;
        fused_matmul_case(emulated_compare, "Gelu", 13, want[i].tol);
        cr_expect_eq(last_lt_epilogue, want[i].epilogue, "precision %d: epilogue %u",
                     want[i].precision, last_lt_epilogue);
    }
    /* Relu is exact in every precision */
    emulated_precision = KN_PRECISION_FP16;
    fused_matmul_case(emulated_compare, "Relu", 15, 1e-5);
    cr_expect_eq(last_lt_epilogue, KN_CUBLASLT_EPILOGUE_RELU_BIAS);
    emulated_precision = KN_PRECISION_FP32;
}

/* --- tuning (core/cuda/cuda_tuning.h) */

static int tune_on;             /* whether the checks below run a tuning session */
static const char *tune_cache;  /* its cache file */

/* emulated_compare inside a session of its own (cuda_tuning_begin): the
 * case's kernel asks the engine for tuned choices as in a real plan. */
static void tuned_compare(kh_case *c, uint32_t const_mask, double tol, const char *what)
{
    cuda_target t = {.device = emulated_device(),
                     .stream = (void *)(uintptr_t)1,
                     .upload = host_upload,
                     .alloc = host_alloc,
                     .download = host_download,
                     .release = host_release};
    cuda_tuning tu;
    cuda_tuning_begin(&tu, &t, c, tune_on, tune_cache);
    int before = unemulated_launches;
    cuda_case_check(&t, c, const_mask, tol, what);
    cuda_tuning_end(&tu, &t);
    cr_assert_eq(unemulated_launches, before, "%s: an unemulated launch", what);
}

/* A ResNet block's convolution (bias, residual, Relu: one cuDNN call) and
 * a product with a bias and Relu epilogue, each its own session. */
static void run_both(void)
{
    static const int64_t pads1[] = {1, 1, 1, 1};
    static const conv_spec conv = {.op = "FusedConv", .activation = "Relu",
                                   .what = "FusedConv bias + Z + Relu", .pads = pads1,
                                   .n_pads = 4, .x = {1, 4, 6, 6}, .w = {8, 4, 3, 3},
                                   .z = {1, 8, 6, 6}, .rank = 4, .z_rank = 4, .bias = 1};
    event_records = device_mallocs = lt_requested = 0;
    last_lt_algo = 0;
    last_dnn_algo = -1;
    fused_matmul_case(tuned_compare, "Relu", 7, 1e-5);
    conv_case(tuned_compare, &conv, 9, 1e-5);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot read %s", path);
    char *text = calloc(1, 1 << 16);
    size_t n = fread(text, 1, (1 << 16) - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* text with every `from` made `to` (malloc'd) */
static char *replace_all(const char *text, const char *from, const char *to)
{
    size_t n = 0, lf = strlen(from), lt = strlen(to);
    for (const char *p = strstr(text, from); p; p = strstr(p + lf, from))
        n++;
    char *out = malloc(strlen(text) + n * (lt + 1) + 1), *o = out;
    for (const char *p = text, *hit; (hit = strstr(p, from)) || (strcpy(o, p), 0); p = hit + lf) {
        memcpy(o, p, (size_t)(hit - p));
        o += hit - p;
        memcpy(o, to, lt);
        o += lt;
    }
    return out;
}

static int cache_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n' && p[1] && p[1] != '#';
    return n + (text[0] != '#' && text[0]);
}

/* A fresh cache file path (absent: the first tuned session writes it). */
/* Tuning on, into a tuning cache at a fresh path that does not exist yet. */
static void tune_into_fresh_cache(char *path)
{
    strcpy(path, "/tmp/kiln_cuda_tuning_XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    remove(path);
    tune_on = 1;
    tune_cache = path;
}

/* The device's description as the key holds it (blanks made '_'). */
#define TEST_GPU_KEY                                                                               \
    "KilnTestGPU_9000_(sm_90,_4_SMs),_driver_CUDA_13.0,_runtime_CUDA_13.0,_cuBLASLt_13.1.2,_"   \
    "cuDNN_9.19.1|p0|n0|"

Test(cuda_emulated, untuned_takes_the_heuristics_first_and_times_nothing)
{
    tune_on = 0;
    run_both();
    cr_assert_eq(last_lt_algo, lt_algos[0].id, "product ran algorithm %u", last_lt_algo);
    cr_assert_eq(lt_requested, 1, "asked cuBLASLt's heuristic for %d results", lt_requested);
    cr_assert_eq(last_dnn_algo, dnn_algos[0].algo, "convolution ran algorithm %d", last_dnn_algo);
    cr_assert_eq(event_records, 0, "untuned kernels timed something");
    cr_assert_eq(device_mallocs, 0, "untuned kernels allocated timing buffers");
}

Test(cuda_emulated, tuned_keeps_the_fastest_in_the_cache_and_reads_it_back)
{
    char path[64];
    tune_into_fresh_cache(path);
    run_both();
    cr_assert_eq(last_lt_algo, 11, "the fastest product algorithm is 11, ran %u", last_lt_algo);
    cr_assert_eq(lt_requested, KN_CUDA_TUNE_CANDIDATES);
    cr_assert_eq(last_dnn_algo, 6, "the fastest usable convolution algorithm is 6, ran %d",
                 last_dnn_algo);
    cr_assert_gt(event_records, 0, "nothing was timed");
    char *text = read_text(path);
    cr_log_info("cache:\n%s", text);
    cr_assert_eq(cache_lines(text), 2, "%s", text);
    cr_assert_not_null(strstr(text, TEST_GPU_KEY), "the key lacks the device: %s", text);
    cr_assert_not_null(strstr(text, " cuda/lt:2:11.20.16.0.0.0.0\n"), "%s", text);
    cr_assert_not_null(strstr(text, " cuda/dnn:6\n"), "%s", text);

    /* a second session of the same model reads the choices, times nothing */
    run_both();
    cr_assert_eq(event_records, 0, "a cached choice was timed again");
    cr_assert_eq(device_mallocs, 0);
    cr_assert_eq(last_lt_algo, 11);
    cr_assert_eq(last_dnn_algo, 6);
    char *again = read_text(path);
    cr_assert_str_eq(again, text, "the cache changed without new choices");
    free(again);
    free(text);
    remove(path);
}

Test(cuda_emulated, a_cache_from_another_gpu_or_library_is_not_applied)
{
    char path[64];
    tune_into_fresh_cache(path);
    run_both();
    char *text = read_text(path);
    /* the same choices, said to be from another GPU, then from another
     * cuDNN: each times afresh and adds its own lines */
    static const char *const others[][2] = {{"KilnTestGPU_9000", "OtherGPU_9000"},
                                            {"cuDNN_9.19.1", "cuDNN_9.20.0"}};
    for (int i = 0; i < 2; i++) {
        char *other = replace_all(text, others[i][0], others[i][1]);
        /* a choice the double would never pick, so taking it would show */
        char *planted = replace_all(other, "lt:2:11.20.16", "lt:3:31.15.8");
        write_text(path, planted);
        run_both();
        cr_assert_gt(event_records, 0, "%s: a line for %s was applied", others[i][1],
                     others[i][1]);
        cr_assert_eq(last_lt_algo, 11);
        char *now = read_text(path);
        cr_assert_eq(cache_lines(now), 4, "%s", now);
        free(now);
        free(planted);
        free(other);
    }
    free(text);
    remove(path);
}

Test(cuda_emulated, a_stale_cached_choice_falls_back_to_the_heuristic)
{
    char path[64];
    tune_into_fresh_cache(path);
    run_both();
    char *text = read_text(path);

    /* an algorithm the heuristic no longer offers, a convolution algorithm
     * that does not run for these descriptors: the heuristic's first, no
     * error, nothing timed */
    char *a = replace_all(text, "lt:2:11.20", "lt:2:99.20");
    char *stale = replace_all(a, "dnn:6", "dnn:5");
    write_text(path, stale);
    run_both();
    cr_assert_eq(event_records, 0);
    cr_assert_eq(last_lt_algo, lt_algos[0].id, "ran %u", last_lt_algo);
    cr_assert_eq(last_dnn_algo, dnn_algos[0].algo, "ran %d", last_dnn_algo);

    /* one the library's check refuses now */
    write_text(path, text);
    rejected_lt_algo = 11;
    run_both();
    cr_assert_eq(last_lt_algo, lt_algos[0].id, "ran %u", last_lt_algo);
    rejected_lt_algo = 9999;

    /* found by its configuration when the heuristic lists it elsewhere */
    char *moved = replace_all(text, "lt:2:11.20", "lt:0:11.20");
    write_text(path, moved);
    run_both();
    cr_assert_eq(event_records, 0);
    cr_assert_eq(last_lt_algo, 11, "ran %u", last_lt_algo);
    free(moved);
    free(stale);
    free(a);
    free(text);
    remove(path);
}

Test(cuda_emulated, pooling)
{
    static const int64_t k3[] = {3, 3}, s2[] = {2, 2}, p1[] = {1, 1, 1, 1};
    static const char *const ops[] = {"MaxPool", "AveragePool"};
    const int64_t x[] = {2, 4, 11, 11}, xn[] = {2, 11, 11, 4};
    for (int nhwc = 0; nhwc < 2; nhwc++)
        for (int op = 0; op < 2; op++)
            for (int include = 0; include < 2; include++) {
                kh_case c;
                kh_init(&c, nhwc ? (op ? "NhwcAveragePool" : "NhwcMaxPool") : ops[op],
                        nhwc ? 1 : 19, 1, 1);
                if (nhwc)
                    c.node.domain = "kiln";
                kh_attr_ints(&c, "kernel_shape", k3, 2);
                kh_attr_ints(&c, "strides", s2, 2);
                kh_attr_ints(&c, "pads", p1, 4);
                if (op)
                    kh_attr_int(&c, "count_include_pad", include);
                rand_input(&c, 0, nhwc ? xn : x, 4, 61);
                emulated_compare(&c, 0, 1e-5, c.node.op_type);
                free_inputs(&c);
            }
}

Test(cuda_emulated, attention)
{
    const int64_t q[] = {2, 3, 10, 8}, kt[] = {2, 3, 8, 12}, k[] = {2, 3, 12, 8},
                  v[] = {2, 3, 12, 5}, mask[] = {2, 1, 1, 12}, mask2[] = {10, 12};
    attention_case(emulated_compare, q, k, v, mask, 4, 0, 0.35f, 71, 1e-5, "Attention");
    attention_case(emulated_compare, q, kt, v, mask2, 2, 1, 0.35f, 71, 1e-5,
                   "Attention, K transposed");
}

#ifdef KILN_CUDA_HOST_KERNELS

Test(cuda_emulated, elementwise_kernels)
{
    static const char *const unary[] = {"Relu", "Sigmoid",  "Tanh",      "Exp",       "Erf",
                                        "Abs",  "Softplus", "HardSwish", "LeakyRelu", "Gelu"};
    static const char *const binary[] = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
    const int64_t x[] = {3, 5, 7}, a[] = {2, 3, 1, 8}, b[] = {5, 1};
    unary_cases(emulated_compare, unary, sizeof unary / sizeof unary[0], 20, x, 1e-6);
    binary_cases(emulated_compare, binary, sizeof binary / sizeof binary[0], a, b, 2, 1e-6);
    clip_case(emulated_compare, x, 3);
    elementwise_chain_case(emulated_compare, x, 1e-6);

    /* the products' epilogue with an activation cuBLASLt has not */
    fused_matmul_case(emulated_compare, "Gelu", 97, 1e-5);

    /* a residual that only broadcasts: conv, bias pass, binary add + act */
    static const int64_t pads1[] = {1, 1, 1, 1};
    // clang-format off
    static const conv_spec broadcast_z = {.op = "FusedConv", .activation = "Relu",
        .what = "FusedConv with a broadcast residual", .pads = pads1, .n_pads = 4,
        .x = {2, 4, 6, 6}, .w = {8, 4, 3, 3}, .z = {8, 1, 1}, .rank = 4, .z_rank = 3, .bias = 1};
    // clang-format on
    conv_case(emulated_compare, &broadcast_z, 100, 1e-5);
}

Test(cuda_emulated, comparisons_where_cast) { compare_where_cast_cases(emulated_compare); }

Test(cuda_emulated, data_movement_kernels) { data_movement_cases(emulated_compare); }

Test(cuda_emulated, resize_kernels)
{
    resize_cases(emulated_compare, 1e-5);
    resize_declined_cases(emulated_device());
}

Test(cuda_emulated, pad_kernels) { pad_cases(emulated_compare); }

Test(cuda_emulated, pooling_windows_cudnn_cannot_take)
{
    pool_window_cases(emulated_compare, 1e-6);
}

Test(cuda_emulated, convolutions_with_uneven_pads) { uneven_pad_conv_cases(emulated_compare, 1e-5); }

/* --- whole models: a device backend named "cuda" made of the CUDA
 * backend's kernel tables over this emulated device, with host memory as
 * its "device" memory. Sessions on it are planned as on a GPU: every node
 * offered to its CUDA kernel's prepare first. */

static void *emu_open(int32_t index, kn_err *err)
{
    if (index != 0) {
        kn_fail(err, KN_ERR_INVALID_ARGUMENT, "the emulated CUDA device has only device 0");
        return NULL;
    }
    return emulated_device();
}
static void emu_close(void *dev) { (void)dev; }
static void *emu_alloc(void *dev, size_t bytes, kn_err *err)
{
    (void)dev;
    void *p = aligned_alloc(256, bytes ? (bytes + 255) & ~(size_t)255 : 256);
    if (!p)
        kn_fail(err, KN_ERR_OUT_OF_MEMORY, "emulated CUDA device: out of memory");
    return p;
}
static void emu_free(void *dev, void *ptr)
{
    (void)dev;
    free(ptr);
}
static int emu_copy(void *dev, void *dst, const void *src, size_t bytes, int32_t direction,
                    void *stream, kn_err *err)
{
    (void)dev, (void)direction, (void)stream, (void)err;
    memmove(dst, src, bytes);
    return KN_OK;
}
static void *emu_stream_create(void *dev, kn_err *err)
{
    (void)dev, (void)err;
    return (void *)(uintptr_t)1;
}
static void emu_stream_destroy(void *dev, void *stream) { (void)dev, (void)stream; }
static int emu_stream_sync(void *dev, void *stream, kn_err *err)
{
    (void)dev, (void)stream, (void)err;
    return KN_OK;
}
static const char *emu_describe(void *dev)
{
    (void)dev;
    return "emulated CUDA device (test double)";
}
static int emu_available(void) { return 1; }

static kn_backend emulated_cuda;
static const kn_backend *const with_emulated_cuda[] = {&emulated_cuda, &kn_backend_dnnl,
                                                       &kn_backend_cpu, NULL};

static void plug_emulated_cuda(void)
{
    emulated_cuda = kn_backend_cuda; /* name, kernel tables, passes, flags */
    emulated_cuda.available = emu_available;
    emulated_cuda.memory = (kn_backend_memory){.kind = KN_MEMORY_DEVICE,
                                               .open = emu_open,
                                               .close = emu_close,
                                               .alloc = emu_alloc,
                                               .free = emu_free,
                                               .copy = emu_copy,
                                               .stream_create = emu_stream_create,
                                               .stream_destroy = emu_stream_destroy,
                                               .stream_sync = emu_stream_sync,
                                               .describe = emu_describe};
    kn_backends_override_for_testing(with_emulated_cuda);
}

static void kn_backends_restore(void) { kn_backends_override_for_testing(NULL); }

static const char *models_dir(void)
{
    const char *env = getenv("KILN_MODELS_DIR");
    return env && env[0] ? env : KILN_BINARY_DIR "/models";
}

/* The six benchmark models, exported by tools/export_models.py into
 * BUILD/models (the export_models ctest writes the four CNNs; bert_encoder
 * and vit_b_16 are checked when they were exported there too), run every
 * node on the GPU and copy nothing back to the host but their outputs. */
Test(cuda_emulated, benchmark_models_run_wholly_on_the_device, .fini = kn_backends_restore)
{
    static const char *const models[] = {"resnet50",        "mobilenet_v2", "squeezenet1_1",
                                         "efficientnet_b0", "bert_encoder", "vit_b_16"};
    plug_emulated_cuda();
    int found = 0;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char path[1200], input[1200];
        snprintf(path, sizeof path, "%s/%s/model.onnx", models_dir(), models[i]);
        snprintf(input, sizeof input, "%s/%s/input_0.pb", models_dir(), models[i]);
        model_coverage c;
        if (cuda_model_coverage(path, input, &c) != 0) {
            cr_log_info("%s: absent (%s), not checked", models[i], path);
            continue;
        }
        found++;
        cr_log_info("%s: %d of %d steps on the device; on the CPU: %s; copied back mid-run: %s",
                    models[i], c.device_steps, c.steps, c.host_steps ? c.host_ops : "none",
                    c.bounces ? c.bounced : "none");
        cr_expect_eq(c.host_steps, 0, "%s: nodes left on the CPU: %s", models[i], c.host_ops);
        cr_expect_eq(c.bounces, 0, "%s: values copied back to the host mid-run: %s", models[i],
                     c.bounced);
    }
    if (!found)
        cr_skip_test("no benchmark model in %s (the export_models ctest writes them; it needs "
                     "python3-torch)",
                     models_dir());
}

/* The convolutional test models of tests/data (float; the QDQ ones are
 * int8 graphs the backend leaves to the CPU) on the emulated device. Each
 * runs its nodes on the GPU but for the forms cuDNN cannot take, which the
 * table names; a model made wholly of served forms must stay whole. */
Test(cuda_emulated, cnn_test_models_run_on_the_device, .fini = kn_backends_restore)
{
    static const struct {
        const char *path;
        int on_cpu; /* steps left to the CPU backends, and why */
    } models[] = {
        {"models/layout_dense.onnx", 0},
        {"models/layout_keras.onnx", 0},
        {"models/layout_stack.onnx", 0},
        {"models/layout_stops.onnx", 0},
        {"models/opt_conv_acts.onnx", 0},
        {"models/opt_conv_bn.onnx", 0},
        {"models/opt_conv_clip_silu.onnx", 0},
        /* a conv whose residual only broadcasts ([N, 1, 1, C]) in NHWC */
        {"models/opt_conv_residual.onnx", 1},
        {"models/opt_conv_residual_inplace.onnx", 0},
        {"models/opt_horizontal_conv.onnx", 0},
        {"models/opt_kiln_fusedconv.onnx", 0},
        {"models/opt_pad_fold.onnx", 0},
        {"quant_nets/mnist_cnn.onnx", 0},
        {"quant_nets/mnist_vit.onnx", 0},
    };
    plug_emulated_cuda();
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "tests/data/%s", models[i].path);
        model_coverage c;
        cr_assert_eq(cuda_model_coverage(kt_src_path(rel), NULL, &c), 0, "%s is missing", rel);
        cr_log_info("%s: %d of %d steps on the device; on the CPU: %s; copied back mid-run: %s",
                    models[i].path, c.device_steps, c.steps, c.host_steps ? c.host_ops : "none",
                    c.bounces ? c.bounced : "none");
        cr_expect_eq(c.host_steps, models[i].on_cpu, "%s: %d steps on the CPU, expected %d: %s",
                     models[i].path, c.host_steps, models[i].on_cpu, c.host_ops);
        if (models[i].on_cpu == 0)
            cr_expect_eq(c.bounces, 0, "%s: copied back mid-run: %s", models[i].path, c.bounced);
    }
}

#ifdef KILN_CUDA_HOST_KERNELS
/* The same models run end to end on the emulated device (Kiln's kernels
 * compiled for the host, the doubles of cuBLASLt and cuDNN) agree with the
 * CPU: the partitioning, copies, uploaded weights and every kernel's
 * arguments together, as on a GPU. */
Test(cuda_emulated, cnn_test_models_match_the_cpu, .fini = kn_backends_restore)
{
    static const char *const models[] = {
        "models/layout_dense.onnx",
        "models/layout_keras.onnx",
        "models/layout_stack.onnx",
        "models/layout_stops.onnx",
        "models/opt_conv_acts.onnx",
        "models/opt_conv_bn.onnx",
        "models/opt_conv_clip_silu.onnx",
        "models/opt_conv_residual.onnx",
        "models/opt_conv_residual_inplace.onnx",
        "models/opt_horizontal_conv.onnx",
        "models/opt_kiln_fusedconv.onnx",
        "models/opt_pad_fold.onnx",
        "quant_nets/mnist_cnn.onnx",
        "quant_nets/mnist_vit.onnx",
    };
    plug_emulated_cuda();
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "tests/data/%s", models[i]);
        int before = unemulated_launches;
        double d = cuda_model_difference(kt_src_path(rel), NULL);
        cr_log_info("%s: worst relative difference %.2e", models[i], d);
        cr_expect_eq(unemulated_launches, before, "%s: launched a kernel the double lacks",
                     models[i]);
        cr_expect_leq(d, 1e-4, "%s: device and CPU differ by %.3g", models[i], d);
    }
}

/* FP16 sessions keep the shared weights of products and convolutions as
 * half on the device (core/cuda/half_weights.h): the double reads the half
 * operands as their values, so the outputs carry float16's rounding and
 * must stay within 1e-2 of the FP32 session's largest output; the store's
 * device copies lose half the bytes of those weights, which are the only
 * cudaMalloc calls the untuned sessions make here (the emulated backend's
 * arena is host memory); a second FP16 session uploads nothing and gives
 * the same output, and so does a third that times the algorithms (the half
 * operands then sit in the timing's scratch). */
Test(cuda_emulated, fp16_sessions_keep_weights_in_half_once_per_model, .fini = kn_backends_restore)
{
    static const struct {
        const char *path;
        int64_t half_bytes; /* the shared weights' elements, two bytes each */
        int convolutions;
    } models[] = {
        /* W1 [128, 128] and W2 [128, 64]; B1 (512 bytes) is not shared */
        {"tests/data/models/bf16_mlp.onnx", (128 * 128 + 128 * 64) * 2, 0},
        /* four 16x16x3x3 filters of kiln.NhwcConv with a residual */
        {"tests/data/models/opt_conv_residual_inplace.onnx", 4 * 16 * 16 * 9 * 2, 1},
    };
    plug_emulated_cuda();
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        half_products = half_convolutions = 0;
        int64_t mallocs_before = device_malloc_bytes;
        int launches_before = unemulated_launches;
        half_sessions r;
        half_sessions_compare(models[i].path, &device_malloc_bytes, &r);
        int64_t malloced = r.watched - mallocs_before;
        cr_log_info("%s: FP16 against FP32 %.2e of max %.3g; device weights %lld bytes at FP32, "
                    "%lld at FP16 (%lld through cudaMalloc); %d half products, %d half "
                    "convolutions",
                    models[i].path, r.worst, r.largest, (long long)r.fp32_weight_bytes,
                    (long long)r.fp16_weight_bytes, (long long)malloced, half_products,
                    half_convolutions);
        cr_expect_eq(unemulated_launches, launches_before, "%s: a launch the double lacks",
                     models[i].path);
        cr_expect(models[i].convolutions ? half_convolutions > 0 : half_products > 0,
                  "%s: nothing ran on half operands", models[i].path);
        cr_expect_leq(r.worst, 1e-2, "%s: FP16 differs from FP32 by %.3g of the largest output",
                      models[i].path, r.worst);
        cr_expect_gt(r.worst, 0.0, "%s: FP16 gave FP32's results bit for bit: nothing rounded",
                     models[i].path);
        cr_expect_eq(r.fp32_weight_bytes - r.fp16_weight_bytes, models[i].half_bytes,
                     "%s: FP32 weights %lld bytes, FP16 %lld", models[i].path,
                     (long long)r.fp32_weight_bytes, (long long)r.fp16_weight_bytes);
        cr_expect_eq(malloced, models[i].half_bytes, "%s: %lld bytes through cudaMalloc",
                     models[i].path, (long long)malloced);
        cr_expect_eq(r.fp16_uploads[1], r.fp16_uploads[0],
                     "%s: the second FP16 session uploaded again (%lld, then %lld)", models[i].path,
                     (long long)r.fp16_uploads[0], (long long)r.fp16_uploads[1]);
        cr_expect(r.second_same, "%s: the second FP16 session's output differs", models[i].path);
        /* the double's algorithms all compute alike: timing them changes nothing */
        cr_expect(r.tuned_same, "%s: the tuned FP16 session's output differs", models[i].path);
    }
}

/* ONNX's own node test cases (libonnx-testdata), each run with device
 * cuda on the emulated device and on the CPU from its first data set: the
 * nodes the CUDA kernels take must give the CPU's results (floats within
 * 1e-4 of max(1, |CPU|), other types exactly), and a device session must
 * run wherever the CPU's does. Left out: random-valued ops, and 3-D
 * convolutions and pooling, which the cuDNN double does not emulate. */
Test(cuda_emulated, onnx_node_cases_match_the_cpu, .fini = kn_backends_restore, .timeout = 600)
{
    /* Debian's suite (opsets up to 17) and the newer one beside the
     * checkout when present (tests/conformance/run_conformance.sh) */
    const char *roots[] = {"/usr/share/libonnx-testdata/data/node",
                           KILN_SOURCE_DIR "/../shared/onnx-tests/node"};
    plug_emulated_cuda();
    int compared = 0, on_device = 0, bad = 0;
    for (int r = 0; r < 2; r++) {
        const char *root = roots[r];
        DIR *d = opendir(root);
        if (!d) {
            cr_log_info("%s is absent, not run", root);
            continue;
        }
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            const char *name = e->d_name;
            if (strncmp(name, "test_", 5) != 0 || strstr(name, "_3d") ||
                strstr(name, "bernoulli") || strstr(name, "dropout") || strstr(name, "random"))
                continue;
            char dir[1200], why[512];
            snprintf(dir, sizeof dir, "%s/%s", root, name);
            double diff = 0;
            int steps = 0, before = unemulated_launches;
            if (!cuda_case_difference(dir, &diff, &steps, why, sizeof why))
                continue;
            compared++;
            on_device += steps > 0;
            if (diff > 1e-4 || unemulated_launches != before) {
                bad++;
                cr_log_error("%s: %d device steps, difference %.3g%s%s%s", name, steps, diff,
                             why[0] ? ": " : "", why,
                             unemulated_launches != before ? " (a launch the double lacks)" : "");
            }
        }
        closedir(d);
    }
    if (compared == 0)
        cr_skip_test("no ONNX node cases here (libonnx-testdata)");
    cr_log_info("%d node cases compared, %d with nodes on the device, %d differ", compared,
                on_device, bad);
    cr_expect_gt(on_device, 100);
    cr_expect_eq(bad, 0, "%d of %d node cases differ on the device", bad, compared);
}

/* The smaller exported benchmark CNNs end to end on the emulated device,
 * on their own input_0.pb, against the CPU (resnet50 agrees within 1.9e-5
 * too, but its 4 GFLOP through the doubles' plain loops take half a minute
 * here; the transformers longer still). */
Test(cuda_emulated, benchmark_models_match_the_cpu, .fini = kn_backends_restore, .timeout = 600)
{
    static const char *const models[] = {"squeezenet1_1", "mobilenet_v2", "efficientnet_b0"};
    plug_emulated_cuda();
    int found = 0;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char path[1200], input[1200];
        snprintf(path, sizeof path, "%s/%s/model.onnx", models_dir(), models[i]);
        snprintf(input, sizeof input, "%s/%s/input_0.pb", models_dir(), models[i]);
        if (access(path, R_OK) != 0)
            continue;
        found++;
        int before = unemulated_launches;
        double d = cuda_model_difference(path, input);
        cr_log_info("%s: worst relative difference %.2e", models[i], d);
        cr_expect_eq(unemulated_launches, before, "%s: launched a kernel the double lacks",
                     models[i]);
        cr_expect_leq(d, 1e-4, "%s: device and CPU differ by %.3g", models[i], d);
    }
    if (!found)
        cr_skip_test("no benchmark model in %s", models_dir());
}
#endif

#endif

#endif
