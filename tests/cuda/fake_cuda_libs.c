/* The test double of the CUDA runtime, cuBLASLt and cuDNN that
 * test_cuda_emulated runs the CUDA backend's host code against
 * (fake_cuda_libs.h): column-major products with transposes, batch strides
 * and bias/Relu epilogues; convolutions and pooling over the strides of the
 * tensor descriptors; the runtime calls the backend makes, with launches
 * of Kiln's own kernels run by their host builds (host_kernels.cpp) or, for
 * the block kernels, by the rewrites below. */
#ifdef KILN_WITH_CUDA

#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda/cuda_fatbins.h"
#include "core/cuda/device_params.h"
#include "tests/cuda/fake_cuda_libs.h"

/* --- the double: runtime */

enum { MAX_NAMES = 64 };
static char kernel_names[MAX_NAMES][64];
static int n_kernel_names;
int unemulated_launches;

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
void kn_f32_to_half(const float *x, uint16_t *y, int64_t n);
void kn_half_to_f32(const uint16_t *x, float *y, int64_t n);
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
    else if (strcmp(name, "kn_f32_to_half") == 0)
        kn_f32_to_half(ARG(0, const float *), ARG(1, uint16_t *), ARG(2, int64_t));
    else if (strcmp(name, "kn_half_to_f32") == 0)
        kn_half_to_f32(ARG(0, const uint16_t *), ARG(1, float *), ARG(2, int64_t));
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
double device_clock_ms;
int event_records, device_mallocs;
int64_t device_malloc_bytes;
typedef struct fake_event {
    double ms;
} fake_event;

static kn_cudaError fake_malloc(void **p, size_t n)
{
    device_mallocs++;
    device_malloc_bytes += (int64_t)n;
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
/* streams of their own (the weight store's uploads): work runs as it is
 * queued, so a stream is only a token */
static kn_cudaError fake_stream_create(kn_cudaStream *s, unsigned int flags)
{
    (void)flags;
    *s = (kn_cudaStream)(void *)(uintptr_t)2;
    return 0;
}
static kn_cudaError fake_stream_destroy(kn_cudaStream s)
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
const fake_lt_algo lt_algos[N_LT_ALGOS] = {{21, 15, 8, 3.0}, {6, 18, 12, 2.0}, {11, 20, 16, 0.5}, {31, 15, 8, 1.0}};
uint32_t last_lt_algo;            /* the id the last product ran */
int lt_requested;                 /* results the last heuristic query asked for */
uint32_t rejected_lt_algo = 9999; /* an id cublasLtMatmulAlgoCheck refuses */

typedef struct fake_desc {
    int transa, transb, compute;
    uint32_t epilogue;
    const float *bias;
} fake_desc;
typedef struct fake_layout {
    uint64_t rows, cols;
    int64_t ld, stride;
    int32_t batch;
    int type; /* CUDA_R_32F, or CUDA_R_16F: half bits, read as their float value */
} fake_layout;

/* What the last product and convolution asked cuBLASLt and cuDNN for. */
int last_compute_type = -1, last_conv_math = -1;
int half_products, half_convolutions;
uint32_t last_lt_epilogue;

static kn_cublasStatus fake_desc_create(kn_cublasLtMatmulDesc *d, kn_cublasComputeType c,
                                        kn_cudaDataType t)
{
    last_compute_type = (int)c;
    cr_assert_eq(t, KN_CUDA_R_32F);
    fake_desc *f = calloc(1, sizeof *f);
    f->epilogue = KN_CUBLASLT_EPILOGUE_DEFAULT;
    f->compute = (int)c;
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
    cr_assert(t == KN_CUDA_R_32F || t == KN_CUDA_R_16F, "matrix type %d", (int)t);
    cr_assert_geq(ld, (int64_t)rows, "column-major: ld %lld below rows %llu", (long long)ld,
                  (unsigned long long)rows);
    fake_layout *f = calloc(1, sizeof *f);
    *f = (fake_layout){.rows = rows, .cols = cols, .ld = ld, .batch = 1, .type = (int)t};
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
static float at(const fake_layout *l, const void *m, int32_t b, uint64_t r, uint64_t c)
{
    int64_t i = (int64_t)b * l->stride + (int64_t)r + (int64_t)c * l->ld;
    return l->type == KN_CUDA_R_16F ? kn_f16_to_f32(((const uint16_t *)m)[i])
                                    : ((const float *)m)[i];
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
    last_lt_epilogue = f->epilogue;
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
    /* the combinations cuBLASLt lists: A and B of one type, C and D float;
     * half operands accumulate in float32 */
    cr_assert_eq(A->type, B->type, "A is type %d, B %d", A->type, B->type);
    cr_assert(C->type == KN_CUDA_R_32F && D->type == KN_CUDA_R_32F, "C or D is not float");
    if (A->type == KN_CUDA_R_16F) {
        cr_assert_eq(f->compute, KN_CUBLAS_COMPUTE_32F, "half operands with compute %d",
                     f->compute);
        half_products++;
    }
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
                if (f->epilogue & KN_CUBLASLT_EPILOGUE_GELU) /* cuBLASLt's: tanh */
                    v = 0.5f * v *
                        (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
                ((float *)d)[(int64_t)bt * D->stride + (int64_t)i + (int64_t)j * D->ld] = v;
            }
    return 0;
}

/* --- the double: cuDNN (2-D) */

/* type: CUDNN_DATA_FLOAT, or CUDNN_DATA_HALF (half bits, read as their
 * float value and written rounded to nearest even) */
typedef struct fake_tensor {
    int n, dims[8], strides[8], type;
} fake_tensor;
typedef struct fake_filter {
    int n, dims[8], type;
} fake_filter;
typedef struct fake_conv {
    int pads[3], strides[3], dil[3], groups, type;
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
    cr_assert(t == KN_CUDNN_DATA_FLOAT || t == KN_CUDNN_DATA_HALF, "tensor type %d", (int)t);
    cr_assert(n >= 4 && n <= 5, "cuDNN's Nd descriptors start at 4 dims, got %d", n);
    fake_tensor *f = (void *)d;
    f->n = n;
    f->type = (int)t;
    memcpy(f->dims, dims, sizeof(int) * (size_t)n);
    memcpy(f->strides, strides, sizeof(int) * (size_t)n);
    return 0;
}
static kn_cudnnStatus fake_filter_set(kn_cudnnFilterDesc d, kn_cudnnDataType t,
                                      kn_cudnnTensorFormat fmt, int n, const int *dims)
{
    cr_assert((t == KN_CUDNN_DATA_FLOAT || t == KN_CUDNN_DATA_HALF) && fmt == KN_CUDNN_TENSOR_NCHW);
    fake_filter *f = (void *)d;
    f->n = n;
    f->type = (int)t;
    memcpy(f->dims, dims, sizeof(int) * (size_t)n);
    return 0;
}
static kn_cudnnStatus fake_conv_set(kn_cudnnConvDesc d, int n, const int *pads, const int *strides,
                                    const int *dil, kn_cudnnConvolutionMode mode,
                                    kn_cudnnDataType t)
{
    cr_assert(n == 2 && mode == KN_CUDNN_CROSS_CORRELATION && t == KN_CUDNN_DATA_FLOAT);
    fake_conv *f = (void *)d;
    f->type = (int)t;
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
const fake_dnn_algo dnn_algos[N_DNN_ALGOS] = {
    {KN_CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, 0, 128, 2.0},
    {5 /* FFT_TILING */, 3000 /* CUDNN_STATUS_NOT_SUPPORTED */, 0, 0.01},
    {0 /* IMPLICIT_GEMM */, 0, 0, 3.0},
    {2 /* GEMM */, 0, (size_t)1 << 34, 0.02},
    {6 /* WINOGRAD */, 0, 256, 0.7},
    {7 /* WINOGRAD_NONFUSED */, 0, 512, 1.5},
};
int last_dnn_algo = -1; /* the algorithm the last convolution ran */

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
static float value_at(int type, const void *p, int64_t i)
{
    return type == KN_CUDNN_DATA_HALF ? kn_f16_to_f32(((const uint16_t *)p)[i])
                                      : ((const float *)p)[i];
}
static int64_t toff(const fake_tensor *t, int n, int c, int h, int w)
{
    return (int64_t)n * t->strides[0] + (int64_t)c * t->strides[1] + (int64_t)h * t->strides[2] +
           (int64_t)w * t->strides[3];
}
static float tget(const fake_tensor *t, const void *p, int n, int c, int h, int w)
{
    return value_at(t->type, p, toff(t, n, c, h, w));
}
static void tset(const fake_tensor *t, void *p, int n, int c, int h, int w, float v)
{
    int64_t i = toff(t, n, c, h, w);
    if (t->type == KN_CUDNN_DATA_HALF)
        ((uint16_t *)p)[i] = kn_f32_to_f16(v);
    else
        ((float *)p)[i] = v;
}
static float conv_at(const fake_tensor *X, const void *x, const fake_filter *W, const void *w,
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
                       value_at(W->type, w, ((co * cin_g + ci) * W->dims[2] + r) * W->dims[3] + s);
            }
    return (float)sum;
}
static void conv_all(kn_cudnnTensorDesc xd, const void *x, kn_cudnnFilterDesc wd, const void *w,
                     kn_cudnnConvDesc cd, kn_cudnnTensorDesc yd, void *y, float alpha, float beta,
                     const void *z, float alpha2, const float *bias, int relu)
{
    const fake_tensor *X = (void *)xd, *Y = (void *)yd;
    const fake_filter *W = (void *)wd;
    const fake_conv *cv = (void *)cd;
    cr_assert(X->n == 4 && Y->n == 4 && W->n == 4, "2-D convolutions only in this double");
    /* the legacy API's configurations: all float (FLOAT_CONFIG), or X, W
     * and Y half computing in float (PSEUDO_HALF_CONFIG) */
    int half = W->type == KN_CUDNN_DATA_HALF;
    cr_assert(X->type == W->type && Y->type == W->type && cv->type == KN_CUDNN_DATA_FLOAT,
              "X %d, W %d, Y %d, convolution %d: not a configuration cuDNN supports", X->type,
              W->type, Y->type, cv->type);
    half_convolutions += half;
    for (int n = 0; n < Y->dims[0]; n++)
        for (int c = 0; c < Y->dims[1]; c++)
            for (int h = 0; h < Y->dims[2]; h++)
                for (int wi = 0; wi < Y->dims[3]; wi++) {
                    float v = alpha * conv_at(X, x, W, w, cv, n, c, h, wi);
                    if (z)
                        v += alpha2 * tget(Y, z, n, c, h, wi);
                    else if (beta != 0.0f)
                        v += beta * tget(Y, y, n, c, h, wi);
                    if (bias)
                        v += bias[c];
                    tset(Y, y, n, c, h, wi, relu && v < 0 ? 0 : v);
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
                    tset(Y, y, n, c, oh, ow,
                         p->mode == KN_CUDNN_POOLING_MAX ? best
                         : p->mode == KN_CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                             ? (float)(sum / (p->window[0] * p->window[1]))
                             : (float)(sum / count));
                }
    return 0;
}

/* --- the emulated device */

static kn_cuda_api fake_api;
static kn_cuda_device fake_device;

kn_cuda_device *emulated_device(void)
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
    a->cudaStreamCreateWithFlags = fake_stream_create;
    a->cudaStreamDestroy = fake_stream_destroy;
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

#endif
