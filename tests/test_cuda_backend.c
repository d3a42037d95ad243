/* The CUDA backend (core/cuda/) as far as a machine goes. Everywhere: the
 * descriptor is there in every build (absent/ without nvcc), opt-in and
 * not offered eager plans; without a driver it is not available and says
 * why in the loader's words; each .cu file was compiled by nvcc into a
 * fatbin that is embedded in the library; the kernel tables are well
 * formed (every op is one Kiln's CPU backend knows, at sane opsets); every
 * kernel declines a node when it was given no device. On a machine with an
 * NVIDIA GPU (tests/gpu/run.sh): the device opens and describes itself,
 * memory round-trips, and the kernels are compared with Kiln's CPU kernels
 * on the same nodes, untuned and tuned; without one those tests skip and
 * say so. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/kernel/backend.h"
#include "kernel_harness.h"
#include "test_support.h"

extern const kn_backend kn_backend_cuda;

Test(cuda_backend, the_descriptor_is_in_every_build)
{
    cr_assert_str_eq(kn_backend_cuda.name, "cuda");
    cr_assert_eq(kn_backend_cuda.memory.kind, KN_MEMORY_DEVICE);
    cr_assert(kn_backend_cuda.flags & KN_BACKEND_OPT_IN, "a CPU user must never load CUDA");
    cr_assert(kn_backend_cuda.flags & KN_BACKEND_NOT_EAGER);
    cr_assert_not_null(kn_backend_cuda.available);
}

#ifndef KILN_WITH_CUDA

Test(cuda_backend, without_nvcc_it_is_never_available)
{
    cr_assert_eq(kn_backend_cuda.available(), 0);
    cr_assert_null(kn_backend_cuda.kernel_tables);
}

#else

#include "core/cuda/cuda_device.h"
#include "core/cuda/cuda_fatbins.h"
#include "tests/cuda/cuda_cases.h"
#include "tests/cuda/half_sessions.h"
#include "tests/cuda/image_cases.h"

extern const kn_backend kn_backend_cuda;

Test(cuda_backend, every_memory_hook_is_there)
{
    const kn_backend_memory *m = &kn_backend_cuda.memory;
    cr_assert(m->open && m->close && m->alloc && m->free && m->copy && m->stream_create &&
              m->stream_destroy && m->stream_sync && m->describe);
}

Test(cuda_backend, without_a_driver_it_is_unavailable_and_says_why)
{
    if (kn_backend_cuda.available())
        cr_skip_test("a CUDA device is present here: nothing to decline");
    const char *why = kn_cuda_unavailable_reason();
    cr_assert_not_null(why);
    /* the loader's words: a missing library named, or the driver missing */
    cr_assert(strstr(why, "CUDA") != NULL, "reason: %s", why);
    cr_log_info("CUDA backend unavailable: %s", why);
    kn_err err = {0};
    cr_assert_null(kn_backend_cuda.memory.open(0, &err));
    cr_assert_eq(err.code, KN_ERR_UNSUPPORTED, "%s", err.msg);
}

/* Every .cu file of core/cuda was compiled into a fatbin and embedded. */
Test(cuda_backend, every_cu_file_is_an_embedded_fatbin)
{
    DIR *dir = opendir(KILN_SOURCE_DIR "/core/cuda");
    cr_assert_not_null(dir);
    int n_cu = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".cu") != 0)
            continue;
        n_cu++;
        int found = 0;
        for (int i = 0; kn_cuda_fatbins[i].name; i++)
            found |= strlen(kn_cuda_fatbins[i].name) == len - 3 &&
                     strncmp(kn_cuda_fatbins[i].name, e->d_name, len - 3) == 0;
        cr_assert(found, "core/cuda/%s has no embedded fatbin", e->d_name);
    }
    closedir(dir);
    int n_fatbins = 0;
    for (int i = 0; kn_cuda_fatbins[i].name; i++, n_fatbins++) {
        const kn_cuda_fatbin *f = &kn_cuda_fatbins[i];
        cr_assert_gt(f->size, 16u, "%s", f->name);
        uint32_t magic = (uint32_t)f->data[0] | (uint32_t)f->data[1] << 8 |
                         (uint32_t)f->data[2] << 16 | (uint32_t)f->data[3] << 24;
        cr_assert_eq(magic, KN_CUDA_FATBIN_MAGIC, "%s: magic %08x", f->name, magic);
        /* header: magic, version (1), header size (16), then the payload's size */
        uint16_t version = (uint16_t)(f->data[4] | f->data[5] << 8);
        uint16_t header = (uint16_t)(f->data[6] | f->data[7] << 8);
        uint64_t payload = 0;
        for (int b = 7; b >= 0; b--)
            payload = payload << 8 | f->data[8 + b];
        cr_assert_eq(version, 1, "%s", f->name);
        cr_assert_eq(header, 16, "%s", f->name);
        cr_assert_eq(payload + header, f->size, "%s: header says %llu + %u bytes, embedded %zu",
                     f->name, (unsigned long long)payload, header, f->size);
        cr_assert_eq((uintptr_t)f->data % 8, 0, "%s: the driver reads the header in place",
                     f->name);
    }
    cr_assert_eq(n_fatbins, n_cu);
}

/* Each row names an op Kiln's CPU backend serves at its first opset (so a
 * declined node always has somewhere to go), with a sane opset range. */
Test(cuda_backend, kernel_tables_are_well_formed)
{
    int rows = 0;
    for (const kn_op_def *const *const *t = kn_backend_cuda.kernel_tables; *t; t++)
        for (const kn_op_def *const *row = *t; *row; row++, rows++) {
            const kn_op_def *d = *row;
            cr_assert_not_null(d->op_type);
            cr_assert(d->prepare && d->run, "%s", d->op_type);
            cr_assert_geq(d->since_version, 1, "%s", d->op_type);
            cr_assert(d->until_version == 0 || d->until_version >= d->since_version, "%s",
                      d->op_type);
            cr_assert_leq(d->since_version, 26, "%s", d->op_type);
            cr_assert_not_null(
                kn_backend_kernel_any(&kn_backend_cpu, d->domain, d->op_type, d->since_version),
                "%s (domain %s) opset %d: no CPU kernel to fall back on", d->op_type,
                d->domain ? d->domain : "ai.onnx", d->since_version);
        }
    cr_assert_gt(rows, 30);
    cr_log_info("CUDA backend: %d kernel rows", rows);
}

/* With no device in the kernel context every kernel declines (the engine
 * gives one only to nodes of a session that asked for the GPU). */
Test(cuda_backend, every_kernel_declines_without_a_device)
{
    static float data[4 * 3 * 8 * 8];
    const int64_t dims[] = {4, 3, 8, 8};
    for (const kn_op_def *const *const *t = kn_backend_cuda.kernel_tables; *t; t++)
        for (const kn_op_def *const *row = *t; *row; row++) {
            const kn_op_def *d = *row;
            kh_case c;
            kh_init(&c, d->op_type, d->since_version, 3, 1);
            c.node.domain = d->domain ? d->domain : "";
            /* input 0 of a dtype the row serves (float where it does) */
            int32_t dtype = KN_FLOAT;
            while (d->dtypes && !(d->dtypes & KN_BIT(dtype)))
                dtype = (dtype + 1) % 32;
            for (int32_t i = 0; i < 3; i++)
                kh_input(&c, i, i == 0 ? dtype : KN_FLOAT, dims, 4, data);
            size_t scratch = 0;
            int rc = kh_prepare_kernel(&c, &kn_backend_cuda, ~0u, &scratch);
            cr_assert_eq(rc, KN_ERR_DECLINE, "%s: prepare without a device returned %d (%s)",
                         d->op_type, rc, c.err.msg);
            kh_free(&c);
        }
}

/* --- On a GPU: each kernel against Kiln's CPU kernel for the same node.
 * Inputs in const_mask are shown to prepare() as constants (host bytes),
 * as the engine shows initializers; every input is then uploaded and the
 * kernel runs on the device with its own stream, the way the engine will
 * run it. */

static void *the_device;

static void *gpu_or_skip(void)
{
    if (!kn_backend_cuda.available())
        cr_skip_test("no CUDA device here (%s): tests/gpu/run.sh runs this on a GPU",
                     kn_cuda_unavailable_reason());
    if (!the_device) {
        kn_err err = {0};
        the_device = kn_backend_cuda.memory.open(0, &err);
        cr_assert_not_null(the_device, "opening cuda:0: %s", err.msg);
        cr_log_info("cuda:0: %s", kn_backend_cuda.memory.describe(the_device));
    }
    return the_device;
}

/* The device's memory hooks as a cuda_target (tests/cuda/cuda_cases.h). */
static void *gpu_upload(const cuda_target *t, const void *host, size_t bytes)
{
    const kn_backend_memory *mem = &kn_backend_cuda.memory;
    kn_err err = {0};
    void *p = mem->alloc(t->device, bytes, &err);
    cr_assert_not_null(p, "%s", err.msg);
    cr_assert_eq(mem->copy(t->device, p, host, bytes, KN_COPY_TO_DEVICE, t->stream, &err), KN_OK,
                 "%s", err.msg);
    return p;
}

static void *gpu_alloc(const cuda_target *t, size_t bytes)
{
    kn_err err = {0};
    void *p = kn_backend_cuda.memory.alloc(t->device, bytes, &err);
    cr_assert_not_null(p, "%s", err.msg);
    return p;
}

static void gpu_download(const cuda_target *t, void *host, const void *dev, size_t bytes)
{
    const kn_backend_memory *mem = &kn_backend_cuda.memory;
    kn_err err = {0};
    cr_assert_eq(mem->copy(t->device, host, dev, bytes, KN_COPY_TO_HOST, t->stream, &err), KN_OK,
                 "%s", err.msg);
    cr_assert_eq(mem->stream_sync(t->device, t->stream, &err), KN_OK, "%s", err.msg);
}

static void gpu_release(const cuda_target *t, void *dev)
{
    kn_backend_cuda.memory.free(t->device, dev);
}

/* A target on the GPU with a stream of its own, kernels given
 * `precision`; gpu_target_close gives the stream back. */
static cuda_target gpu_target_open(int32_t precision)
{
    cuda_target t = {.device = gpu_or_skip(),
                     .precision = precision,
                     .upload = gpu_upload,
                     .alloc = gpu_alloc,
                     .download = gpu_download,
                     .release = gpu_release};
    kn_err err = {0};
    t.stream = kn_backend_cuda.memory.stream_create(t.device, &err);
    cr_assert_not_null(t.stream, "%s", err.msg);
    return t;
}

static void gpu_target_close(cuda_target *t)
{
    kn_backend_cuda.memory.stream_destroy(t->device, t->stream);
}

/* Runs c on the GPU, with a stream of its own, and on the CPU, and compares
 * them (cuda_case_check). */
static int32_t gpu_precision; /* KN_PRECISION_* the kernels are given */

static void gpu_compare(kh_case *c, uint32_t const_mask, double tol, const char *what)
{
    cuda_target t = gpu_target_open(gpu_precision);
    cuda_case_check(&t, c, const_mask, tol, what);
    gpu_target_close(&t);
}

Test(cuda_gpu, device_opens_and_memory_round_trips)
{
    void *dev = gpu_or_skip();
    const kn_backend_memory *mem = &kn_backend_cuda.memory;
    kn_err err = {0};
    void *stream = mem->stream_create(dev, &err);
    cr_assert_not_null(stream, "%s", err.msg);
    float src[1000], back[1000];
    fill(src, 1000, 7);
    void *a = mem->alloc(dev, sizeof src, &err), *b = mem->alloc(dev, sizeof src, &err);
    cr_assert(a && b, "%s", err.msg);
    cr_assert_eq((uintptr_t)a % 256, 0);
    cr_assert_eq(mem->copy(dev, a, src, sizeof src, KN_COPY_TO_DEVICE, stream, &err), KN_OK);
    cr_assert_eq(mem->copy(dev, b, a, sizeof src, KN_COPY_ON_DEVICE, stream, &err), KN_OK);
    cr_assert_eq(mem->copy(dev, back, b, sizeof src, KN_COPY_TO_HOST, stream, &err), KN_OK);
    cr_assert_eq(mem->stream_sync(dev, stream, &err), KN_OK, "%s", err.msg);
    cr_assert(memcmp(src, back, sizeof src) == 0, "the bytes came back changed");
    mem->free(dev, a);
    mem->free(dev, b);
    mem->stream_destroy(dev, stream);
    cr_assert_not_null(strstr(mem->describe(dev), "cuDNN"));
}

Test(cuda_gpu, unary_ops)
{
    static const char *const ops[] = {"Relu", "Sigmoid", "Tanh",     "Exp",       "Erf",
                                      "Abs",  "Neg",     "Softplus", "HardSwish", "LeakyRelu"};
    const int64_t dims[] = {3, 5, 70};
    unary_cases(gpu_compare, ops, sizeof ops / sizeof ops[0], 14, dims, 1e-5);
    kh_case g;
    kh_init(&g, "Gelu", 1, 1, 1);
    g.node.domain = "kiln";
    rand_input(&g, 0, dims, 3, 21);
    gpu_compare(&g, 0, 1e-5, "kiln.Gelu");
    free_inputs(&g);
}

Test(cuda_gpu, clip_with_constant_bounds)
{
    const int64_t dims[] = {1000};
    clip_case(gpu_compare, dims, 1);
}

Test(cuda_gpu, binary_ops_broadcast)
{
    static const char *const ops[] = {"Add", "Sub", "Mul", "Div", "Max", "Min", "Pow"};
    const int64_t a[] = {2, 3, 1, 8}, b[] = {5, 1}, same[] = {2, 3, 5, 8};
    binary_cases(gpu_compare, ops, sizeof ops / sizeof ops[0], a, b, 2, 1e-5);
    binary_cases(gpu_compare, ops, sizeof ops / sizeof ops[0], same, same, 4, 1e-5);
}

Test(cuda_gpu, elementwise_chain)
{
    const int64_t x[] = {3, 7, 50};
    elementwise_chain_case(gpu_compare, x, 1e-5);
}

Test(cuda_gpu, comparisons_where_cast) { compare_where_cast_cases(gpu_compare); }

Test(cuda_gpu, data_movement) { data_movement_cases(gpu_compare); }

Test(cuda_gpu, resize) { resize_cases(gpu_compare, 1e-5); }

Test(cuda_gpu, pad) { pad_cases(gpu_compare); }

Test(cuda_gpu, pooling_windows_cudnn_cannot_take) { pool_window_cases(gpu_compare, 1e-5); }

Test(cuda_gpu, convolutions_with_uneven_pads) { uneven_pad_conv_cases(gpu_compare, 1e-4); }

Test(cuda_gpu, matmul_shapes)
{
    matmul_cases(gpu_compare, 1e-4);
    const int64_t a[] = {64, 768}, b[] = {768, 3072}; /* BERT's FFN size */
    kh_case c;
    kh_init(&c, "MatMul", 13, 2, 1);
    rand_input(&c, 0, a, 2, 16);
    rand_input(&c, 1, b, 2, 17);
    gpu_compare(&c, 0x2, 1e-4, "MatMul");
    free_inputs(&c);
}

Test(cuda_gpu, fused_matmul_and_gemm)
{
    fused_matmul_case(gpu_compare, "Relu", 18, 1e-4);
    fused_matmul_case(gpu_compare, "Gelu", 21, 1e-4);
    gemm_cases(gpu_compare, 1e-4);
}

Test(cuda_gpu, convolutions)
{
    static const int64_t pads1[] = {1, 1, 1, 1}, s2[] = {2, 2}, pads3[] = {3, 3, 3, 3},
                         p1[] = {2, 2};
    // clang-format off
    static const conv_spec cases[] = {
        {.op = "Conv", .what = "Conv 3x3 pad 1 + bias", .pads = pads1, .n_pads = 4,
            .x = {2, 16, 14, 14}, .w = {32, 16, 3, 3}, .rank = 4, .bias = 1},
        /* ResNet's stem: 7x7 stride 2 */
        {.op = "Conv", .what = "Conv 7x7 stride 2", .pads = pads3, .n_pads = 4, .strides = s2,
            .n_strides = 2, .x = {1, 3, 64, 64}, .w = {16, 3, 7, 7}, .rank = 4, .bias = 1},
        /* a ResNet block's end: conv + bias + residual + relu in one call */
        {.op = "FusedConv", .activation = "Relu", .what = "FusedConv bias + Z + Relu",
            .x = {2, 16, 14, 14}, .w = {16, 16, 1, 1}, .z = {2, 16, 14, 14}, .rank = 4,
            .z_rank = 4, .bias = 1},
        /* grouped, another activation: conv, then Kiln's epilogue */
        {.op = "FusedConv", .activation = "Sigmoid", .what = "FusedConv grouped + Sigmoid",
            .group = 4, .pads = pads1, .n_pads = 4, .x = {2, 16, 14, 14}, .w = {16, 4, 3, 3},
            .rank = 4, .bias = 1},
        /* channels-last, as the oneDNN layout pass writes it */
        {.op = "NhwcConv", .activation = "Relu", .what = "NhwcConv bias + Z + Relu",
            .pads = pads1, .n_pads = 4, .x = {2, 14, 14, 16}, .w = {24, 16, 3, 3},
            .z = {2, 14, 14, 24}, .rank = 4, .z_rank = 4, .bias = 1},
        {.op = "Conv", .what = "Conv 1-D", .pads = p1, .n_pads = 2, .x = {2, 8, 50},
            .w = {12, 8, 5}, .rank = 3},
    };
    // clang-format on
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        conv_case(gpu_compare, &cases[i], 30 + 4 * (unsigned)i, 1e-4);
}

/* Tensor Core precisions against the CPU's float32: float16 inputs keep 11
 * significant bits and TF32 ones 11 too (10 stored), so a product of K
 * terms in [-1, 1) stays well within 1e-2 of max(1, |reference|). */
Test(cuda_gpu, fp16_and_tf32_products_and_convolutions)
{
    static const int64_t pads1[] = {1, 1, 1, 1};
    static const conv_spec conv = {.op = "Conv",
                                   .what = "Conv 3x3 pad 1 + bias",
                                   .pads = pads1,
                                   .n_pads = 4,
                                   .x = {2, 16, 14, 14},
                                   .w = {32, 16, 3, 3},
                                   .rank = 4,
                                   .bias = 1};
    static const int32_t precisions[] = {KN_PRECISION_FP16, KN_PRECISION_TF32};
    for (int i = 0; i < 2; i++) {
        gpu_precision = precisions[i];
        fused_matmul_case(gpu_compare, "Relu", 18, 1e-2);
        gemm_cases(gpu_compare, 1e-2);
        conv_case(gpu_compare, &conv, 30, 1e-2);
    }
    gpu_precision = KN_PRECISION_FP32;
}

/* The device's float16 conversions (__float2half_rn, __half2float) agree
 * with the host's that made the weights' half copies. */
Test(cuda_gpu, half_conversion_kernels)
{
    cuda_target t = gpu_target_open(KN_PRECISION_FP32);
    half_conversion_case(&t);
    gpu_target_close(&t);
}

/* FP16 sessions of whole models keep the shared weights of products and
 * convolutions as half on the GPU (core/cuda/half_weights.h): within 1e-2
 * of the FP32 session's largest output, the half copies half the float
 * ones' bytes, uploaded once for two sessions. */
Test(cuda_gpu, fp16_sessions_keep_weights_in_half_once_per_model)
{
    gpu_or_skip();
    static const struct {
        const char *path;
        int64_t half_bytes;
    } models[] = {
        {"tests/data/models/bf16_mlp.onnx", (128 * 128 + 128 * 64) * 2},
        {"tests/data/models/opt_conv_residual_inplace.onnx", 4 * 16 * 16 * 9 * 2},
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        half_sessions r;
        half_sessions_compare(models[i].path, NULL, &r);
        cr_log_info("%s: FP16 against FP32 %.2e of max %.3g; device weights %lld bytes at FP32, "
                    "%lld at FP16",
                    models[i].path, r.worst, r.largest, (long long)r.fp32_weight_bytes,
                    (long long)r.fp16_weight_bytes);
        cr_expect_leq(r.worst, 1e-2, "%s: FP16 differs from FP32 by %.3g", models[i].path, r.worst);
        cr_expect_eq(r.fp32_weight_bytes - r.fp16_weight_bytes, models[i].half_bytes, "%s",
                     models[i].path);
        cr_expect_eq(r.fp16_uploads[1], r.fp16_uploads[0], "%s: uploaded again", models[i].path);
        cr_expect(r.second_same, "%s: the second FP16 session's output differs", models[i].path);
    }
}

/* Tuning (core/cuda/cuda_tuning.h): the first session times cuBLASLt's and
 * cuDNN's candidates on the device and keeps the fastest in the cache, the
 * second reads them back; both give what the untuned kernels give (the
 * CPU's results within the same tolerance). */
static const char *gpu_tuning_cache;

static void gpu_tuned_compare(kh_case *c, uint32_t const_mask, double tol, const char *what)
{
    cuda_target t = gpu_target_open(KN_PRECISION_FP32);
    cuda_tuning tu;
    cuda_tuning_begin(&tu, &t, c, 1, gpu_tuning_cache);
    cuda_case_check(&t, c, const_mask, tol, what);
    cuda_tuning_end(&tu, &t);
    gpu_target_close(&t);
}

Test(cuda_gpu, tuned_algorithms_match_untuned)
{
    gpu_or_skip();
    static const int64_t pads1[] = {1, 1, 1, 1};
    // clang-format off
    static const conv_spec convs[] = {
        {.op = "Conv", .what = "Conv 3x3 pad 1 + bias", .pads = pads1, .n_pads = 4,
            .x = {2, 64, 28, 28}, .w = {64, 64, 3, 3}, .rank = 4, .bias = 1},
        {.op = "FusedConv", .activation = "Relu", .what = "FusedConv bias + Z + Relu",
            .x = {2, 64, 28, 28}, .w = {64, 64, 1, 1}, .z = {2, 64, 28, 28}, .rank = 4,
            .z_rank = 4, .bias = 1},
    };
    // clang-format on
    char path[] = "/tmp/kiln_cuda_gpu_tuning_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    remove(path);
    gpu_tuning_cache = path;
    for (int session = 0; session < 2; session++) {
        fused_matmul_case(gpu_tuned_compare, "Relu", 18, 1e-4);
        gemm_cases(gpu_tuned_compare, 1e-4);
        for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++)
            conv_case(gpu_tuned_compare, &convs[i], 30 + 4 * (unsigned)i, 1e-4);
    }
    size_t size = 0;
    char *text = kt_read_file(path, &size);
    cr_assert_not_null(text, "the tuning cache was not written");
    char *z = realloc(text, size + 1);
    cr_assert_not_null(z);
    z[size] = '\0';
    cr_log_info("tuning cache:\n%s", z);
    cr_assert_not_null(strstr(z, " cuda/lt:"), "no product choice in the cache");
    cr_assert_not_null(strstr(z, " cuda/dnn:"), "no convolution choice in the cache");
    free(z);
    remove(path);
}

Test(cuda_gpu, pooling)
{
    static const int64_t k3[] = {3, 3}, s2[] = {2, 2}, p1[] = {1, 1, 1, 1};
    // clang-format off
    static const pool_spec cases[] = {
        {.op = "MaxPool", .what = "MaxPool 3x3 s2 p1", .opset = 12, .kernel = k3, .n_kernel = 2,
            .strides = s2, .n_strides = 2, .pads = p1, .n_pads = 4, .count_include_pad = -1,
            .x = {2, 8, 15, 15}},
        {.op = "AveragePool", .what = "AveragePool count_include_pad", .opset = 19, .kernel = k3,
            .n_kernel = 2, .pads = p1, .n_pads = 4, .count_include_pad = 1, .x = {2, 8, 15, 15}},
        {.op = "GlobalAveragePool", .what = "GlobalAveragePool", .opset = 1,
            .count_include_pad = -1, .x = {2, 8, 15, 15}},
        {.op = "NhwcMaxPool", .what = "NhwcMaxPool", .opset = 1, .kernel = k3, .n_kernel = 2,
            .strides = s2, .n_strides = 2, .pads = p1, .n_pads = 4, .count_include_pad = -1,
            .x = {2, 15, 15, 8}},
        {.op = "NhwcGlobalAveragePool", .what = "NhwcGlobalAveragePool", .opset = 1,
            .count_include_pad = -1, .x = {2, 15, 15, 8}},
    };
    // clang-format on
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        /* max is exact; an average may sum in another order */
        pool_case(gpu_compare, &cases[i], 45 + (unsigned)i, strstr(cases[i].op, "Max") ? 0 : 1e-5);
}

Test(cuda_gpu, rows) { row_cases(gpu_compare, 130, 1e-5); }

Test(cuda_gpu, attention)
{
    /* BERT's shape per head: batch 2, 12 heads, 128 tokens, 64 dims, with
     * the padding mask broadcast over heads and query rows */
    const int64_t q[] = {2, 12, 128, 64}, mask[] = {2, 1, 1, 128}, kt[] = {2, 12, 64, 128};
    attention_case(gpu_compare, q, q, q, mask, 4, 0, 0.125f, 61, 1e-4, "Attention with mask");
    attention_case(gpu_compare, q, kt, q, NULL, 0, 1, 0.125f, 65, 1e-4, "Attention, K transposed");
}

#endif
