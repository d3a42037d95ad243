/* The CUDA backend's host code on a machine without a GPU, against a test
 * double of the libraries it calls: an emulated cuBLASLt and cuDNN (and
 * the few runtime calls) that compute on host memory what the real ones
 * document (column-major products with transposes, batch strides and
 * bias/Relu epilogues; convolutions and pooling over the strides of the
 * tensor descriptors). Each kernel's prepare and run then go through their
 * real code paths: the row-major to column-major mapping of matmul.c, the
 * layouts and descriptors of conv.c and pool.c (NCHW and channels-last),
 * the bias and activation epilogues, kiln.Attention's two products. The
 * results are compared with Kiln's CPU kernels on the same nodes. Kiln's
 * own device kernels (the .cu files) are not run by this double, except
 * the bias + activation epilogue, written again below from its definition;
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
#include "tests/cuda/image_cases.h"
#include "tests/cuda/model_coverage.h"

/* --- the double: runtime */

enum { MAX_NAMES = 64 };
static char kernel_names[MAX_NAMES][64];
static int n_kernel_names;
static int unemulated_launches;

static kn_cudaError fake_set_device(int d) { return d == 0 ? 0 : 101; }
static kn_cudaError fake_memcpy(void *dst, const void *src, size_t n, kn_cudaMemcpyKind kind,
                                kn_cudaStream s)
{
    (void)kind, (void)s;
    memmove(dst, src, n);
    return 0;
}
static kn_cudaError fake_memcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                                  size_t width, size_t height, kn_cudaMemcpyKind kind,
                                  kn_cudaStream s)
{
    (void)kind, (void)s;
    for (size_t r = 0; r < height; r++)
        memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    return 0;
}
/* a kernel handle is its interned name */
static kn_cudaError fake_get_kernel(kn_cudaKernel *kernel, kn_cudaLibrary lib, const char *name)
{
    (void)lib;
    for (int i = 0; i < n_kernel_names; i++)
        if (strcmp(kernel_names[i], name) == 0) {
            *kernel = (kn_cudaKernel)(void *)kernel_names[i];
            return 0;
        }
    cr_assert_lt(n_kernel_names, MAX_NAMES);
    strncpy(kernel_names[n_kernel_names], name, 63);
    *kernel = (kn_cudaKernel)(void *)kernel_names[n_kernel_names++];
    return 0;
}
/* Operand 1's offset of element i of a walk (device_math.cuh's rule). */
static int64_t walk_offset1(const kn_cuda_walk *w, int64_t i)
{
    if (w->flat)
        return i;
    int64_t off = 0;
    for (int d = w->rank - 1; d >= 0; d--) {
        off += i % w->dims[d] * w->stride[1][d];
        i /= w->dims[d];
    }
    return off;
}

/* rows.cu's kn_masked_softmax_rows_f32, one row per block of the grid */
static void masked_softmax(kn_dim3 grid, void **args)
{
    float *s = *(float **)args[0];
    const float *mask = *(const float **)args[1];
    int64_t cols = *(int64_t *)args[2];
    const kn_cuda_walk *w = args[3];
    for (int64_t r = 0; r < (int64_t)grid.x; r++) {
        float *row = s + r * cols, mx = -INFINITY;
        double sum = 0;
        for (int64_t c = 0; c < cols; c++) {
            if (mask)
                row[c] += mask[walk_offset1(w, r * cols + c)];
            mx = row[c] > mx ? row[c] : mx;
        }
        for (int64_t c = 0; c < cols; c++)
            sum += exp((double)row[c] - mx);
        for (int64_t c = 0; c < cols; c++)
            row[c] = (float)(exp((double)row[c] - mx) / sum);
    }
}

/* rows.cu's kn_softmax_rows_f32, kn_layernorm_rows_f32 and
 * kn_reduce_rows_f32 (block kernels: one row per block) */
static void softmax_rows(kn_dim3 grid, void **args)
{
    const float *x = *(const float **)args[0];
    float *y = *(float **)args[1];
    int64_t cols = *(int64_t *)args[2];
    int log_softmax = *(int *)args[3];
    for (int64_t r = 0; r < (int64_t)grid.x; r++) {
        const float *xr = x + r * cols;
        float mx = -INFINITY;
        double sum = 0;
        for (int64_t c = 0; c < cols; c++)
            mx = xr[c] > mx ? xr[c] : mx;
        for (int64_t c = 0; c < cols; c++)
            sum += exp((double)xr[c] - mx);
        for (int64_t c = 0; c < cols; c++)
            y[r * cols + c] = log_softmax ? (float)(xr[c] - mx - log(sum))
                                          : (float)(exp((double)xr[c] - mx) / sum);
    }
}
static void layernorm_rows(kn_dim3 grid, void **args)
{
    const float *x = *(const float **)args[0], *scale = *(const float **)args[1];
    const float *bias = *(const float **)args[2];
    float *y = *(float **)args[3];
    int64_t cols = *(int64_t *)args[4];
    float eps = *(float *)args[5];
    for (int64_t r = 0; r < (int64_t)grid.x; r++) {
        const float *xr = x + r * cols;
        double mean = 0, var = 0;
        for (int64_t c = 0; c < cols; c++)
            mean += xr[c];
        mean /= (double)cols;
        for (int64_t c = 0; c < cols; c++)
            var += (xr[c] - mean) * (xr[c] - mean);
        double inv = 1.0 / sqrt(var / (double)cols + eps);
        for (int64_t c = 0; c < cols; c++)
            y[r * cols + c] = (float)((xr[c] - mean) * inv * scale[c] + (bias ? bias[c] : 0));
    }
}
static void reduce_rows(kn_dim3 grid, void **args)
{
    const float *x = *(const float **)args[0];
    float *y = *(float **)args[1];
    int64_t cols = *(int64_t *)args[2];
    int op = *(int *)args[3]; /* sum, mean, max, min */
    for (int64_t r = 0; r < (int64_t)grid.x; r++) {
        double v = op == 2 ? -INFINITY : op == 3 ? INFINITY : 0;
        for (int64_t c = 0; c < cols; c++) {
            double e = x[r * cols + c];
            v = op == 2 ? fmax(v, e) : op == 3 ? fmin(v, e) : v + e;
        }
        y[r] = (float)(op == 1 ? v / (double)cols : v);
    }
}

#ifdef KILN_CUDA_HOST_KERNELS
/* the .cu kernels compiled for the host (tests/cuda/host_kernels.cpp) */
void kn_unary_f32(const float *x, float *y, int64_t n, kn_cuda_act a);
void kn_binary_f32(const float *a, const float *b, float *y, kn_cuda_walk w, int op,
                   kn_cuda_act act);
void kn_bias_act_f32(float *y, const float *bias, int64_t n, int64_t inner, int64_t channels,
                     kn_cuda_act act);
void kn_chain_f32(const float *x, float *y, kn_cuda_chain c, kn_cuda_chain_operands ops);
void kn_reduce_strided_f32(const float *x, float *y, kn_cuda_walk out, kn_cuda_walk red, int op);
typedef void (*compare_fn)(const void *a, const void *b, uint8_t *y, kn_cuda_walk w, int op);
void kn_compare_f32(const void *, const void *, uint8_t *, kn_cuda_walk, int);
void kn_compare_i32(const void *, const void *, uint8_t *, kn_cuda_walk, int);
void kn_compare_i64(const void *, const void *, uint8_t *, kn_cuda_walk, int);
typedef void (*where_fn)(const uint8_t *c, const void *x, const void *y, void *out, kn_cuda_walk cx,
                         kn_cuda_walk yw);
void kn_where_4(const uint8_t *, const void *, const void *, void *, kn_cuda_walk, kn_cuda_walk);
void kn_where_8(const uint8_t *, const void *, const void *, void *, kn_cuda_walk, kn_cuda_walk);
void kn_cast(const void *x, void *y, int64_t n, int from, int to);
typedef void (*strided_fn)(const void *x, void *y, kn_cuda_walk w);
typedef void (*gather_fn)(const void *x, const void *idx, void *y, int64_t outer, int64_t axis,
                          int64_t n_idx, int64_t inner);
void kn_strided_copy_1(const void *, void *, kn_cuda_walk);
void kn_strided_copy_2(const void *, void *, kn_cuda_walk);
void kn_strided_copy_4(const void *, void *, kn_cuda_walk);
void kn_strided_copy_8(const void *, void *, kn_cuda_walk);
#define GATHER_DECL(bytes)                                                                         \
    void kn_gather_##bytes##_i32(const void *, const void *, void *, int64_t, int64_t, int64_t,    \
                                 int64_t);                                                         \
    void kn_gather_##bytes##_i64(const void *, const void *, void *, int64_t, int64_t, int64_t,    \
                                 int64_t)
GATHER_DECL(1);
GATHER_DECL(2);
GATHER_DECL(4);
GATHER_DECL(8);
typedef void (*resize_fn)(const void *x, void *y, kn_cuda_resize p);
void kn_resize_nearest_1(const void *, void *, kn_cuda_resize);
void kn_resize_nearest_2(const void *, void *, kn_cuda_resize);
void kn_resize_nearest_4(const void *, void *, kn_cuda_resize);
void kn_resize_nearest_8(const void *, void *, kn_cuda_resize);
void kn_resize_interp_f32(const void *, void *, kn_cuda_resize);
typedef void (*pad_fn)(const void *x, void *y, kn_cuda_pad p);
void kn_pad_1(const void *, void *, kn_cuda_pad);
void kn_pad_2(const void *, void *, kn_cuda_pad);
void kn_pad_4(const void *, void *, kn_cuda_pad);
void kn_pad_8(const void *, void *, kn_cuda_pad);
void kn_pool_f32(const float *, float *, kn_cuda_pool);

#define ARG(i, type) (*(type *)args[i])
static int host_kernel(const char *name, void **args)
{
    static const struct {
        const char *name;
        strided_fn fn;
    } strided[] = {{"kn_strided_copy_1", kn_strided_copy_1},
                   {"kn_strided_copy_2", kn_strided_copy_2},
                   {"kn_strided_copy_4", kn_strided_copy_4},
                   {"kn_strided_copy_8", kn_strided_copy_8}};
    static const struct {
        const char *name;
        gather_fn fn;
    } gathers[] = {{"kn_gather_1_i32", kn_gather_1_i32}, {"kn_gather_1_i64", kn_gather_1_i64},
                   {"kn_gather_2_i32", kn_gather_2_i32}, {"kn_gather_2_i64", kn_gather_2_i64},
                   {"kn_gather_4_i32", kn_gather_4_i32}, {"kn_gather_4_i64", kn_gather_4_i64},
                   {"kn_gather_8_i32", kn_gather_8_i32}, {"kn_gather_8_i64", kn_gather_8_i64}};
    static const struct {
        const char *name;
        resize_fn fn;
    } resizes[] = {{"kn_resize_nearest_1", kn_resize_nearest_1},
                   {"kn_resize_nearest_2", kn_resize_nearest_2},
                   {"kn_resize_nearest_4", kn_resize_nearest_4},
                   {"kn_resize_nearest_8", kn_resize_nearest_8},
                   {"kn_resize_interp_f32", kn_resize_interp_f32}};
    static const struct {
        const char *name;
        pad_fn fn;
    } pads[] = {{"kn_pad_1", kn_pad_1},
                {"kn_pad_2", kn_pad_2},
                {"kn_pad_4", kn_pad_4},
                {"kn_pad_8", kn_pad_8}};
    if (strcmp(name, "kn_unary_f32") == 0)
        kn_unary_f32(ARG(0, const float *), ARG(1, float *), ARG(2, int64_t), ARG(3, kn_cuda_act));
    else if (strcmp(name, "kn_binary_f32") == 0)
        kn_binary_f32(ARG(0, const float *), ARG(1, const float *), ARG(2, float *),
                      ARG(3, kn_cuda_walk), ARG(4, int), ARG(5, kn_cuda_act));
    else if (strcmp(name, "kn_bias_act_f32") == 0)
        kn_bias_act_f32(ARG(0, float *), ARG(1, const float *), ARG(2, int64_t), ARG(3, int64_t),
                        ARG(4, int64_t), ARG(5, kn_cuda_act));
    else if (strcmp(name, "kn_chain_f32") == 0)
        kn_chain_f32(ARG(0, const float *), ARG(1, float *), ARG(2, kn_cuda_chain),
                     ARG(3, kn_cuda_chain_operands));
    else if (strcmp(name, "kn_reduce_strided_f32") == 0)
        kn_reduce_strided_f32(ARG(0, const float *), ARG(1, float *), ARG(2, kn_cuda_walk),
                              ARG(3, kn_cuda_walk), ARG(4, int));
    else if (strncmp(name, "kn_compare_", 11) == 0) {
        compare_fn fn = strcmp(name, "kn_compare_f32") == 0   ? kn_compare_f32
                        : strcmp(name, "kn_compare_i32") == 0 ? kn_compare_i32
                                                              : kn_compare_i64;
        fn(ARG(0, const void *), ARG(1, const void *), ARG(2, uint8_t *), ARG(3, kn_cuda_walk),
           ARG(4, int));
    } else if (strncmp(name, "kn_where_", 9) == 0) {
        where_fn fn = strcmp(name, "kn_where_4") == 0 ? kn_where_4 : kn_where_8;
        fn(ARG(0, const uint8_t *), ARG(1, const void *), ARG(2, const void *), ARG(3, void *),
           ARG(4, kn_cuda_walk), ARG(5, kn_cuda_walk));
    } else if (strcmp(name, "kn_cast") == 0)
        kn_cast(ARG(0, const void *), ARG(1, void *), ARG(2, int64_t), ARG(3, int), ARG(4, int));
    else {
        for (size_t i = 0; i < sizeof strided / sizeof strided[0]; i++)
            if (strcmp(name, strided[i].name) == 0) {
                strided[i].fn(ARG(0, const void *), ARG(1, void *), ARG(2, kn_cuda_walk));
                return 1;
            }
        for (size_t i = 0; i < sizeof gathers / sizeof gathers[0]; i++)
            if (strcmp(name, gathers[i].name) == 0) {
                gathers[i].fn(ARG(0, const void *), ARG(1, const void *), ARG(2, void *),
                              ARG(3, int64_t), ARG(4, int64_t), ARG(5, int64_t), ARG(6, int64_t));
                return 1;
            }
        for (size_t i = 0; i < sizeof resizes / sizeof resizes[0]; i++)
            if (strcmp(name, resizes[i].name) == 0) {
                resizes[i].fn(ARG(0, const void *), ARG(1, void *), ARG(2, kn_cuda_resize));
                return 1;
            }
        if (strcmp(name, "kn_pool_f32") == 0) {
            kn_pool_f32(ARG(0, const float *), ARG(1, float *), ARG(2, kn_cuda_pool));
            return 1;
        }
        for (size_t i = 0; i < sizeof pads / sizeof pads[0]; i++)
            if (strcmp(name, pads[i].name) == 0) {
                pads[i].fn(ARG(0, const void *), ARG(1, void *), ARG(2, kn_cuda_pad));
                return 1;
            }
        return 0;
    }
    return 1;
}
#else
static int host_kernel(const char *name, void **args)
{
    (void)name, (void)args;
    return 0;
}
#endif

/* A launch runs the kernel's host build, or its rewrite above for the
 * block kernels; any other launch is counted, and the test that made it
 * fails. */
static kn_cudaError fake_launch(const void *func, kn_dim3 grid, kn_dim3 block, void **args,
                                size_t shm, kn_cudaStream s)
{
    (void)block, (void)shm, (void)s;
    const char *name = func;
    if (strcmp(name, "kn_masked_softmax_rows_f32") == 0)
        masked_softmax(grid, args);
    else if (strcmp(name, "kn_softmax_rows_f32") == 0)
        softmax_rows(grid, args);
    else if (strcmp(name, "kn_layernorm_rows_f32") == 0)
        layernorm_rows(grid, args);
    else if (strcmp(name, "kn_reduce_rows_f32") == 0)
        reduce_rows(grid, args);
    else if (!host_kernel(name, args))
        unemulated_launches++;
    return 0;
}
static const char *fake_error_string(int e)
{
    (void)e;
    return "emulated error";
}

/* Simulated device time, for tuning: each product and convolution adds
 * its algorithm's cost (below) to one clock, which an event records. The
 * counters tell whether a kernel timed anything. */
static double device_clock_ms;
static int event_records, device_mallocs;
typedef struct fake_event {
    double ms;
} fake_event;

static kn_cudaError fake_malloc(void **p, size_t n)
{
    device_mallocs++;
    *p = malloc(n ? n : 1);
    return *p ? 0 : 2;
}
static kn_cudaError fake_free(void *p)
{
    free(p);
    return 0;
}
static kn_cudaError fake_memset(void *p, int v, size_t n, kn_cudaStream s)
{
    (void)s;
    memset(p, v, n);
    return 0;
}
static kn_cudaError fake_stream_sync(kn_cudaStream s)
{
    (void)s;
    return 0;
}
static kn_cudaError fake_event_create(kn_cudaEvent *e)
{
    *e = (kn_cudaEvent)calloc(1, sizeof(fake_event));
    return 0;
}
static kn_cudaError fake_event_destroy(kn_cudaEvent e)
{
    free((void *)e);
    return 0;
}
static kn_cudaError fake_event_record(kn_cudaEvent e, kn_cudaStream s)
{
    (void)s;
    event_records++;
    ((fake_event *)(void *)e)->ms = device_clock_ms;
    return 0;
}
static kn_cudaError fake_event_sync(kn_cudaEvent e)
{
    (void)e;
    return 0;
}
static kn_cudaError fake_elapsed(float *ms, kn_cudaEvent start, kn_cudaEvent stop)
{
    *ms = (float)(((fake_event *)(void *)stop)->ms - ((fake_event *)(void *)start)->ms);
    return 0;
}

/* What the device says of itself: the tuning cache's key must hold it. */
static kn_cudaError fake_properties(kn_cudaDeviceProp *prop, int device)
{
    (void)device;
    strcpy((char *)prop, "KilnTestGPU 9000");
    return 0;
}
static int fake_driver_version(int *v)
{
    *v = 13000;
    return 0;
}
static int fake_runtime_version(int *v)
{
    *v = 13000;
    return 0;
}
static size_t fake_lt_version(void) { return 130102; }
static size_t fake_dnn_version(void) { return 91901; }

/* --- the double: cuBLASLt */

/* The algorithms its heuristic offers, best first, and what each costs:
 * the third is the fastest. An algorithm is its id, tile and stages, kept
 * in the first words of cublasLtMatmulAlgo_t. */
static const struct {
    uint32_t id, tile, stages;
    double ms;
} lt_algos[] = {{21, 15, 8, 3.0}, {6, 18, 12, 2.0}, {11, 20, 16, 0.5}, {31, 15, 8, 1.0}};
enum { N_LT_ALGOS = sizeof lt_algos / sizeof lt_algos[0] };
static uint32_t last_lt_algo;            /* the id the last product ran */
static int lt_requested;                 /* results the last heuristic query asked for */
static uint32_t rejected_lt_algo = 9999; /* an id cublasLtMatmulAlgoCheck refuses */

typedef struct fake_desc {
    int transa, transb;
    uint32_t epilogue;
    const float *bias;
} fake_desc;
typedef struct fake_layout {
    uint64_t rows, cols;
    int64_t ld, stride;
    int32_t batch;
} fake_layout;

/* What the last product and convolution asked cuBLASLt and cuDNN for. */
static int last_compute_type = -1, last_conv_math = -1;

static kn_cublasStatus fake_desc_create(kn_cublasLtMatmulDesc *d, kn_cublasComputeType c,
                                        kn_cudaDataType t)
{
    last_compute_type = (int)c;
    cr_assert_eq(t, KN_CUDA_R_32F);
    fake_desc *f = calloc(1, sizeof *f);
    f->epilogue = KN_CUBLASLT_EPILOGUE_DEFAULT;
    *d = (kn_cublasLtMatmulDesc)(void *)f;
    return 0;
}
static kn_cublasStatus fake_desc_destroy(kn_cublasLtMatmulDesc d)
{
    free((void *)d);
    return 0;
}
static kn_cublasStatus fake_desc_set(kn_cublasLtMatmulDesc d, kn_cublasLtMatmulDescAttr attr,
                                     const void *buf, size_t size)
{
    fake_desc *f = (fake_desc *)(void *)d;
    if (attr == KN_CUBLASLT_MATMUL_DESC_TRANSA || attr == KN_CUBLASLT_MATMUL_DESC_TRANSB) {
        cr_assert_eq(size, sizeof(int32_t));
        *(attr == KN_CUBLASLT_MATMUL_DESC_TRANSA ? &f->transa : &f->transb) = *(const int32_t *)buf;
    } else if (attr == KN_CUBLASLT_MATMUL_DESC_EPILOGUE) {
        cr_assert_eq(size, sizeof(uint32_t));
        f->epilogue = *(const uint32_t *)buf;
    } else if (attr == KN_CUBLASLT_MATMUL_DESC_BIAS_POINTER) {
        cr_assert_eq(size, sizeof(void *));
        memcpy(&f->bias, buf, sizeof f->bias);
    } else {
        cr_assert_fail("unexpected product attribute %d", attr);
    }
    return 0;
}
static kn_cublasStatus fake_layout_create(kn_cublasLtMatrixLayout *l, kn_cudaDataType t,
                                          uint64_t rows, uint64_t cols, int64_t ld)
{
    cr_assert_eq(t, KN_CUDA_R_32F);
    cr_assert_geq(ld, (int64_t)rows, "column-major: ld %lld below rows %llu", (long long)ld,
                  (unsigned long long)rows);
    fake_layout *f = calloc(1, sizeof *f);
    *f = (fake_layout){.rows = rows, .cols = cols, .ld = ld, .batch = 1};
    *l = (kn_cublasLtMatrixLayout)(void *)f;
    return 0;
}
static kn_cublasStatus fake_layout_destroy(kn_cublasLtMatrixLayout l)
{
    free((void *)l);
    return 0;
}
static kn_cublasStatus fake_layout_set(kn_cublasLtMatrixLayout l, kn_cublasLtMatrixLayoutAttr a,
                                       const void *buf, size_t size)
{
    fake_layout *f = (fake_layout *)(void *)l;
    if (a == KN_CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT) {
        cr_assert_eq(size, sizeof(int32_t));
        f->batch = *(const int32_t *)buf;
    } else if (a == KN_CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET) {
        cr_assert_eq(size, sizeof(int64_t));
        f->stride = *(const int64_t *)buf;
    } else {
        cr_assert_fail("unexpected layout attribute %d", a);
    }
    return 0;
}
static kn_cublasStatus fake_pref_create(kn_cublasLtMatmulPreference *p)
{
    *p = (kn_cublasLtMatmulPreference)(void *)malloc(1);
    return 0;
}
static kn_cublasStatus fake_pref_destroy(kn_cublasLtMatmulPreference p)
{
    free((void *)p);
    return 0;
}
static kn_cublasStatus fake_pref_set(kn_cublasLtMatmulPreference p,
                                     kn_cublasLtMatmulPreferenceAttr a, const void *b, size_t s)
{
    (void)p, (void)a, (void)b, (void)s;
    return 0;
}
static kn_cublasStatus fake_heuristic(kn_cublasLtHandle h, kn_cublasLtMatmulDesc d,
                                      kn_cublasLtMatrixLayout a, kn_cublasLtMatrixLayout b,
                                      kn_cublasLtMatrixLayout c, kn_cublasLtMatrixLayout dd,
                                      kn_cublasLtMatmulPreference p, int req,
                                      kn_cublasLtMatmulHeuristicResult *r, int *ret)
{
    (void)h, (void)d, (void)a, (void)b, (void)c, (void)dd, (void)p;
    cr_assert_geq(req, 1);
    lt_requested = req;
    int n = req < N_LT_ALGOS ? req : N_LT_ALGOS;
    for (int i = 0; i < n; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].algo.data[0] = lt_algos[i].id;
        r[i].algo.data[1] = lt_algos[i].tile;
        r[i].algo.data[2] = lt_algos[i].stages;
        r[i].workspaceSize = 64 * (size_t)(i + 1); /* some: the scratch must be passed through */
    }
    *ret = n;
    return 0;
}
static kn_cublasStatus fake_algo_check(kn_cublasLtHandle h, kn_cublasLtMatmulDesc d,
                                       kn_cublasLtMatrixLayout a, kn_cublasLtMatrixLayout b,
                                       kn_cublasLtMatrixLayout c, kn_cublasLtMatrixLayout dd,
                                       const kn_cublasLtMatmulAlgo *algo,
                                       kn_cublasLtMatmulHeuristicResult *r)
{
    (void)h, (void)d, (void)a, (void)b, (void)c, (void)dd;
    if (algo->data[0] == rejected_lt_algo)
        return 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
    memset(r, 0, sizeof *r);
    r->algo = *algo;
    r->workspaceSize = 64;
    return 0;
}
static kn_cublasStatus fake_algo_config(const kn_cublasLtMatmulAlgo *algo,
                                        kn_cublasLtMatmulAlgoConfigAttr attr, void *buf,
                                        size_t size, size_t *written)
{
    cr_assert_eq(size, sizeof(uint32_t));
    uint32_t v = attr == KN_CUBLASLT_ALGO_CONFIG_ID        ? (uint32_t)algo->data[0]
                 : attr == KN_CUBLASLT_ALGO_CONFIG_TILE_ID   ? (uint32_t)algo->data[1]
                 : attr == KN_CUBLASLT_ALGO_CONFIG_STAGES_ID ? (uint32_t)algo->data[2]
                                                             : 0;
    memcpy(buf, &v, sizeof v);
    *written = sizeof v;
    return 0;
}
static float at(const fake_layout *l, const float *m, int32_t b, uint64_t r, uint64_t c)
{
    return m[(int64_t)b * l->stride + (int64_t)r + (int64_t)c * l->ld];
}
/* D = alpha op(A) op(B) + beta C, column-major, what cuBLASLt documents */
static kn_cublasStatus fake_matmul(kn_cublasLtHandle h, kn_cublasLtMatmulDesc desc,
                                   const void *alpha, const void *a, kn_cublasLtMatrixLayout la,
                                   const void *b, kn_cublasLtMatrixLayout lb, const void *beta,
                                   const void *c, kn_cublasLtMatrixLayout lc, void *d,
                                   kn_cublasLtMatrixLayout ld, const kn_cublasLtMatmulAlgo *algo,
                                   void *ws, size_t ws_bytes, kn_cudaStream s)
{
    (void)h, (void)s;
    const fake_desc *f = (const fake_desc *)(void *)desc;
    last_lt_algo = (uint32_t)algo->data[0];
    for (int i = 0; i < N_LT_ALGOS; i++)
        if (lt_algos[i].id == last_lt_algo)
            device_clock_ms += lt_algos[i].ms;
    const fake_layout *A = (void *)la, *B = (void *)lb, *C = (void *)lc, *D = (void *)ld;
    cr_assert(ws_bytes == 0 || ws != NULL, "the workspace the heuristic asked for is missing");
    uint64_t m = f->transa ? A->cols : A->rows, k = f->transa ? A->rows : A->cols;
    uint64_t kb = f->transb ? B->cols : B->rows, n = f->transb ? B->rows : B->cols;
    cr_assert_eq(k, kb, "inner dims %llu and %llu", (unsigned long long)k, (unsigned long long)kb);
    cr_assert(D->rows == m && D->cols == n && C->rows == m && C->cols == n, "D is not m x n");
    cr_assert(A->batch == D->batch && B->batch == D->batch && C->batch == D->batch);
    float al = *(const float *)alpha, be = *(const float *)beta;
    for (int32_t bt = 0; bt < D->batch; bt++)
        for (uint64_t i = 0; i < m; i++)
            for (uint64_t j = 0; j < n; j++) {
                double sum = 0;
                for (uint64_t p = 0; p < k; p++)
                    sum += (double)(f->transa ? at(A, a, bt, p, i) : at(A, a, bt, i, p)) *
                           (f->transb ? at(B, b, bt, j, p) : at(B, b, bt, p, j));
                float v = al * (float)sum;
                if (be != 0.0f)
                    v += be * at(C, c, bt, i, j);
                if (f->epilogue & KN_CUBLASLT_EPILOGUE_BIAS)
                    v += f->bias[i]; /* one bias entry per row of D */
                if (f->epilogue & KN_CUBLASLT_EPILOGUE_RELU)
                    v = v < 0 ? 0 : v;
                ((float *)d)[(int64_t)bt * D->stride + (int64_t)i + (int64_t)j * D->ld] = v;
            }
    return 0;
}

/* --- the double: cuDNN (2-D) */

typedef struct fake_tensor {
    int n, dims[8], strides[8];
} fake_tensor;
typedef struct fake_filter {
    int n, dims[8];
} fake_filter;
typedef struct fake_conv {
    int pads[3], strides[3], dil[3], groups;
} fake_conv;
typedef struct fake_pool {
    int mode, window[3], pads[3], strides[3];
} fake_pool;

static kn_cudnnStatus fake_create(void **p, size_t size)
{
    *p = calloc(1, size);
    return 0;
}
#define FAKE_CREATE(fn, type, real)                                                                \
    static kn_cudnnStatus fn(real *d) { return fake_create((void **)d, sizeof(type)); }            \
    static kn_cudnnStatus fn##_destroy(real d)                                                     \
    {                                                                                              \
        free((void *)d);                                                                           \
        return 0;                                                                                  \
    }
FAKE_CREATE(fake_tensor_create, fake_tensor, kn_cudnnTensorDesc)
FAKE_CREATE(fake_filter_create, fake_filter, kn_cudnnFilterDesc)
FAKE_CREATE(fake_conv_create, fake_conv, kn_cudnnConvDesc)
FAKE_CREATE(fake_pool_create, fake_pool, kn_cudnnPoolingDesc)
FAKE_CREATE(fake_act_create, int, kn_cudnnActivationDesc)

static kn_cudnnStatus fake_tensor_set(kn_cudnnTensorDesc d, kn_cudnnDataType t, int n,
                                      const int *dims, const int *strides)
{
    cr_assert_eq(t, KN_CUDNN_DATA_FLOAT);
    cr_assert(n >= 4 && n <= 5, "cuDNN's Nd descriptors start at 4 dims, got %d", n);
    fake_tensor *f = (void *)d;
    f->n = n;
    memcpy(f->dims, dims, sizeof(int) * (size_t)n);
    memcpy(f->strides, strides, sizeof(int) * (size_t)n);
    return 0;
}
static kn_cudnnStatus fake_filter_set(kn_cudnnFilterDesc d, kn_cudnnDataType t,
                                      kn_cudnnTensorFormat fmt, int n, const int *dims)
{
    cr_assert(t == KN_CUDNN_DATA_FLOAT && fmt == KN_CUDNN_TENSOR_NCHW);
    fake_filter *f = (void *)d;
    f->n = n;
    memcpy(f->dims, dims, sizeof(int) * (size_t)n);
    return 0;
}
static kn_cudnnStatus fake_conv_set(kn_cudnnConvDesc d, int n, const int *pads, const int *strides,
                                    const int *dil, kn_cudnnConvolutionMode mode,
                                    kn_cudnnDataType t)
{
    cr_assert(n == 2 && mode == KN_CUDNN_CROSS_CORRELATION && t == KN_CUDNN_DATA_FLOAT);
    fake_conv *f = (void *)d;
    for (int i = 0; i < n; i++) {
        f->pads[i] = pads[i];
        f->strides[i] = strides[i];
        f->dil[i] = dil[i];
    }
    f->groups = 1;
    return 0;
}
static kn_cudnnStatus fake_conv_groups(kn_cudnnConvDesc d, int g)
{
    ((fake_conv *)(void *)d)->groups = g;
    return 0;
}
static kn_cudnnStatus fake_conv_math(kn_cudnnConvDesc d, kn_cudnnMathType m)
{
    (void)d;
    last_conv_math = (int)m;
    return 0;
}
/* The forward algorithms its heuristic lists, best first: one that does
 * not run for the descriptors and one whose workspace is over Kiln's
 * limit, both cheapest, must never be taken; of the rest Winograd (6) is
 * the fastest. */
static const struct {
    int algo, status;
    size_t memory;
    double ms;
} dnn_algos[] = {
    {KN_CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, 0, 128, 2.0},
    {5 /* FFT_TILING */, 3000 /* CUDNN_STATUS_NOT_SUPPORTED */, 0, 0.01},
    {0 /* IMPLICIT_GEMM */, 0, 0, 3.0},
    {2 /* GEMM */, 0, (size_t)1 << 34, 0.02},
    {6 /* WINOGRAD */, 0, 256, 0.7},
    {7 /* WINOGRAD_NONFUSED */, 0, 512, 1.5},
};
enum { N_DNN_ALGOS = sizeof dnn_algos / sizeof dnn_algos[0] };
static int last_dnn_algo = -1; /* the algorithm the last convolution ran */

static kn_cudnnStatus fake_algo(kn_cudnnHandle h, kn_cudnnTensorDesc x, kn_cudnnFilterDesc w,
                                kn_cudnnConvDesc c, kn_cudnnTensorDesc y, int req, int *ret,
                                kn_cudnnConvolutionFwdAlgoPerf *perf)
{
    (void)h, (void)x, (void)w, (void)c, (void)y;
    cr_assert_geq(req, 1);
    int n = req < N_DNN_ALGOS ? req : N_DNN_ALGOS;
    for (int i = 0; i < n; i++) {
        memset(&perf[i], 0, sizeof perf[i]);
        perf[i].algo = dnn_algos[i].algo;
        perf[i].status = dnn_algos[i].status;
        perf[i].memory = dnn_algos[i].memory;
    }
    *ret = n;
    return 0;
}

/* Runs algo on the simulated clock; its workspace must be there. */
static void dnn_ran(int algo, const void *ws, size_t ws_bytes)
{
    last_dnn_algo = algo;
    for (int i = 0; i < N_DNN_ALGOS; i++)
        if (dnn_algos[i].algo == algo) {
            cr_assert_eq(dnn_algos[i].status, 0, "algorithm %d does not run here", algo);
            cr_assert(ws_bytes >= dnn_algos[i].memory && (ws_bytes == 0 || ws),
                      "algorithm %d without its workspace", algo);
            device_clock_ms += dnn_algos[i].ms;
        }
}
static kn_cudnnStatus fake_set_stream(kn_cudnnHandle h, kn_cudaStream s)
{
    (void)h, (void)s;
    return 0;
}
static kn_cudnnStatus fake_act_set(kn_cudnnActivationDesc d, kn_cudnnActivationMode m,
                                   kn_cudnnNanPropagation nan, double coef)
{
    (void)nan, (void)coef;
    *(int *)(void *)d = m;
    return 0;
}
static float tget(const fake_tensor *t, const float *p, int n, int c, int h, int w)
{
    return p[(int64_t)n * t->strides[0] + (int64_t)c * t->strides[1] + (int64_t)h * t->strides[2] +
             (int64_t)w * t->strides[3]];
}
static float *tptr(const fake_tensor *t, float *p, int n, int c, int h, int w)
{
    return &p[(int64_t)n * t->strides[0] + (int64_t)c * t->strides[1] + (int64_t)h * t->strides[2] +
              (int64_t)w * t->strides[3]];
}
static float conv_at(const fake_tensor *X, const float *x, const fake_filter *W, const float *w,
                     const fake_conv *cv, int n, int co, int oh, int ow)
{
    int cin_g = W->dims[1], cout_g = W->dims[0] / cv->groups, g = co / cout_g;
    double sum = 0;
    for (int ci = 0; ci < cin_g; ci++)
        for (int r = 0; r < W->dims[2]; r++)
            for (int s = 0; s < W->dims[3]; s++) {
                int ih = oh * cv->strides[0] - cv->pads[0] + r * cv->dil[0];
                int iw = ow * cv->strides[1] - cv->pads[1] + s * cv->dil[1];
                if (ih < 0 || iw < 0 || ih >= X->dims[2] || iw >= X->dims[3])
                    continue;
                sum += (double)tget(X, x, n, g * cin_g + ci, ih, iw) *
                       w[((co * cin_g + ci) * W->dims[2] + r) * W->dims[3] + s];
            }
    return (float)sum;
}
static void conv_all(kn_cudnnTensorDesc xd, const void *x, kn_cudnnFilterDesc wd, const void *w,
                     kn_cudnnConvDesc cd, kn_cudnnTensorDesc yd, float *y, float alpha, float beta,
                     const float *z, float alpha2, const float *bias, int relu)
{
    const fake_tensor *X = (void *)xd, *Y = (void *)yd;
    const fake_filter *W = (void *)wd;
    const fake_conv *cv = (void *)cd;
    cr_assert(X->n == 4 && Y->n == 4 && W->n == 4, "2-D convolutions only in this double");
    for (int n = 0; n < Y->dims[0]; n++)
        for (int c = 0; c < Y->dims[1]; c++)
            for (int h = 0; h < Y->dims[2]; h++)
                for (int wi = 0; wi < Y->dims[3]; wi++) {
                    float *out = tptr(Y, y, n, c, h, wi);
                    float v = alpha * conv_at(X, x, W, w, cv, n, c, h, wi);
                    if (z)
                        v += alpha2 * tget(Y, z, n, c, h, wi);
                    else if (beta != 0.0f)
                        v += beta * *out;
                    if (bias)
                        v += bias[c];
                    *out = relu && v < 0 ? 0 : v;
                }
}
static kn_cudnnStatus fake_conv_fwd(kn_cudnnHandle h, const void *alpha, kn_cudnnTensorDesc xd,
                                    const void *x, kn_cudnnFilterDesc wd, const void *w,
                                    kn_cudnnConvDesc cd, kn_cudnnConvolutionFwdAlgo algo, void *ws,
                                    size_t ws_bytes, const void *beta, kn_cudnnTensorDesc yd,
                                    void *y)
{
    (void)h;
    dnn_ran(algo, ws, ws_bytes);
    conv_all(xd, x, wd, w, cd, yd, y, *(const float *)alpha, *(const float *)beta, NULL, 0, NULL,
             0);
    return 0;
}
static kn_cudnnStatus fake_conv_bias_act(kn_cudnnHandle h, const void *alpha1,
                                         kn_cudnnTensorDesc xd, const void *x,
                                         kn_cudnnFilterDesc wd, const void *w, kn_cudnnConvDesc cd,
                                         kn_cudnnConvolutionFwdAlgo algo, void *ws, size_t ws_bytes,
                                         const void *alpha2, kn_cudnnTensorDesc zd, const void *z,
                                         kn_cudnnTensorDesc bd, const void *bias,
                                         kn_cudnnActivationDesc ad, kn_cudnnTensorDesc yd, void *y)
{
    (void)h, (void)bd;
    dnn_ran(algo, ws, ws_bytes);
    cr_assert_eq(zd, yd, "Z is described as Y");
    int mode = *(int *)(void *)ad;
    float a2 = *(const float *)alpha2;
    /* with alpha2 = 0 Z may be Y itself: copy it before Y is written */
    size_t bytes = 0;
    const fake_tensor *Y = (void *)yd;
    bytes = (size_t)Y->dims[0] * (size_t)Y->strides[0] * sizeof(float);
    float *zc = malloc(bytes);
    memcpy(zc, z, bytes);
    conv_all(xd, x, wd, w, cd, yd, y, *(const float *)alpha1, 0, zc, a2, bias,
             mode == KN_CUDNN_ACTIVATION_RELU);
    free(zc);
    return 0;
}
static kn_cudnnStatus fake_pool_set(kn_cudnnPoolingDesc d, kn_cudnnPoolingMode mode,
                                    kn_cudnnNanPropagation nan, int n, const int *win,
                                    const int *pads, const int *strides)
{
    (void)nan;
    cr_assert_eq(n, 2, "2-D pooling only in this double");
    fake_pool *f = (void *)d;
    f->mode = mode;
    for (int i = 0; i < n; i++) {
        f->window[i] = win[i];
        f->pads[i] = pads[i];
        f->strides[i] = strides[i];
    }
    return 0;
}
static kn_cudnnStatus fake_pool_fwd(kn_cudnnHandle h, kn_cudnnPoolingDesc pd, const void *alpha,
                                    kn_cudnnTensorDesc xd, const void *x, const void *beta,
                                    kn_cudnnTensorDesc yd, void *y)
{
    (void)h, (void)alpha, (void)beta;
    const fake_pool *p = (void *)pd;
    const fake_tensor *X = (void *)xd, *Y = (void *)yd;
    for (int n = 0; n < Y->dims[0]; n++)
        for (int c = 0; c < Y->dims[1]; c++)
            for (int oh = 0; oh < Y->dims[2]; oh++)
                for (int ow = 0; ow < Y->dims[3]; ow++) {
                    float best = -INFINITY;
                    double sum = 0;
                    int count = 0;
                    for (int r = 0; r < p->window[0]; r++)
                        for (int s = 0; s < p->window[1]; s++) {
                            int ih = oh * p->strides[0] - p->pads[0] + r;
                            int iw = ow * p->strides[1] - p->pads[1] + s;
                            if (ih < 0 || iw < 0 || ih >= X->dims[2] || iw >= X->dims[3])
                                continue;
                            float v = tget(X, x, n, c, ih, iw);
                            best = v > best ? v : best;
                            sum += v;
                            count++;
                        }
                    float *out = tptr(Y, y, n, c, oh, ow);
                    *out = p->mode == KN_CUDNN_POOLING_MAX ? best
                           : p->mode == KN_CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                               ? (float)(sum / (p->window[0] * p->window[1]))
                               : (float)(sum / count);
                }
    return 0;
}

/* --- the emulated device */

static kn_cuda_api fake_api;
static kn_cuda_device fake_device;

static kn_cuda_device *emulated_device(void)
{
    if (fake_device.api)
        return &fake_device;
    kn_cuda_api *a = &fake_api;
    a->libs.cudaGetErrorString = fake_error_string;
    a->cudaSetDevice = fake_set_device;
    a->cudaMemcpyAsync = fake_memcpy;
    a->cudaMemcpy2DAsync = fake_memcpy2d;
    a->cudaLibraryGetKernel = fake_get_kernel;
    a->cudaLaunchKernel = fake_launch;
    a->cudaMalloc = fake_malloc;
    a->cudaFree = fake_free;
    a->cudaMemsetAsync = fake_memset;
    a->cudaStreamSynchronize = fake_stream_sync;
    a->cudaEventCreate = fake_event_create;
    a->cudaEventDestroy = fake_event_destroy;
    a->cudaEventRecord = fake_event_record;
    a->cudaEventSynchronize = fake_event_sync;
    a->cudaEventElapsedTime = fake_elapsed;
    a->cudaGetDeviceProperties = fake_properties;
    a->libs.cudaDriverGetVersion = fake_driver_version;
    a->libs.cudaRuntimeGetVersion = fake_runtime_version;
    a->libs.cublasLtGetVersion = fake_lt_version;
    a->libs.cudnnGetVersion = fake_dnn_version;
    a->cublasLtMatmulAlgoCheck = fake_algo_check;
    a->cublasLtMatmulAlgoConfigGetAttribute = fake_algo_config;
    a->cublasLtMatmulDescCreate = fake_desc_create;
    a->cublasLtMatmulDescDestroy = fake_desc_destroy;
    a->cublasLtMatmulDescSetAttribute = fake_desc_set;
    a->cublasLtMatrixLayoutCreate = fake_layout_create;
    a->cublasLtMatrixLayoutDestroy = fake_layout_destroy;
    a->cublasLtMatrixLayoutSetAttribute = fake_layout_set;
    a->cublasLtMatmulPreferenceCreate = fake_pref_create;
    a->cublasLtMatmulPreferenceDestroy = fake_pref_destroy;
    a->cublasLtMatmulPreferenceSetAttribute = fake_pref_set;
    a->cublasLtMatmulAlgoGetHeuristic = fake_heuristic;
    a->cublasLtMatmul = fake_matmul;
    a->cudnnCreateTensorDescriptor = fake_tensor_create;
    a->cudnnDestroyTensorDescriptor = fake_tensor_create_destroy;
    a->cudnnSetTensorNdDescriptor = fake_tensor_set;
    a->cudnnCreateFilterDescriptor = fake_filter_create;
    a->cudnnDestroyFilterDescriptor = fake_filter_create_destroy;
    a->cudnnSetFilterNdDescriptor = fake_filter_set;
    a->cudnnCreateConvolutionDescriptor = fake_conv_create;
    a->cudnnDestroyConvolutionDescriptor = fake_conv_create_destroy;
    a->cudnnSetConvolutionNdDescriptor = fake_conv_set;
    a->cudnnSetConvolutionGroupCount = fake_conv_groups;
    a->cudnnSetConvolutionMathType = fake_conv_math;
    a->cudnnGetConvolutionForwardAlgorithm_v7 = fake_algo;
    a->cudnnConvolutionForward = fake_conv_fwd;
    a->cudnnConvolutionBiasActivationForward = fake_conv_bias_act;
    a->cudnnSetStream = fake_set_stream;
    a->cudnnCreatePoolingDescriptor = fake_pool_create;
    a->cudnnDestroyPoolingDescriptor = fake_pool_create_destroy;
    a->cudnnSetPoolingNdDescriptor = fake_pool_set;
    a->cudnnPoolingForward = fake_pool_fwd;
    a->cudnnCreateActivationDescriptor = fake_act_create;
    a->cudnnDestroyActivationDescriptor = fake_act_create_destroy;
    a->cudnnSetActivationDescriptor = fake_act_set;
    kn_cuda_device *d = &fake_device;
    d->api = a;
    d->cc_major = 9;
    d->sm_count = 4;
    pthread_mutex_init(&d->dnn_lock, NULL);
    for (int i = 0; kn_cuda_fatbins[i].name && i < KN_CUDA_MAX_MODULES; i++)
        d->modules[d->n_modules++] = (kn_cudaLibrary)(void *)(uintptr_t)(i + 1);
    fake_get_kernel(&d->bias_act, NULL, "kn_bias_act_f32");
    fake_get_kernel(&d->binary, NULL, "kn_binary_f32");
    kn_cuda_device_read_description(d);
    return d;
}

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
static void fresh_cache(char *path)
{
    strcpy(path, "/tmp/kiln_cuda_tuning_XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    remove(path);
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
    fresh_cache(path);
    tune_on = 1;
    tune_cache = path;
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
    fresh_cache(path);
    tune_on = 1;
    tune_cache = path;
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
    fresh_cache(path);
    tune_on = 1;
    tune_cache = path;
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
