/* What the CUDA backend's two suites share: random float inputs, and one
 * case run through the backend's CUDA kernel and compared with Kiln's CPU
 * kernel on the same node. test_cuda_backend runs it on a real device,
 * test_cuda_emulated on host memory under a test double of the CUDA
 * libraries; a cuda_target says where. */
#ifndef KN_TEST_CUDA_CASES_H
#define KN_TEST_CUDA_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "core/engine/plan.h"
#include "kernel_harness.h"

/* Where a case's CUDA kernel runs: its device and stream (kn_kctx), and how
 * that device's memory is filled, allocated, read back and freed. */
typedef struct cuda_target {
    void *device, *stream;
    int32_t precision; /* the kernel's kn_kctx.precision (0: KN_PRECISION_FP32) */
    /* the kernel's kn_kctx.engine_api and engine (NULL: no engine, so no
     * tuning) */
    const kn_engine_api *engine_api;
    void *engine;
    /* device memory holding a copy of `bytes` host bytes */
    void *(*upload)(const struct cuda_target *t, const void *host, size_t bytes);
    /* device memory for an output or the kernel's scratch */
    void *(*alloc)(const struct cuda_target *t, size_t bytes);
    /* copies device bytes to host and waits until they are there */
    void (*download)(const struct cuda_target *t, void *host, const void *dev, size_t bytes);
    void (*release)(const struct cuda_target *t, void *dev);
} cuda_target;

/* The engine's side of kernel tuning for one case, through the engine's
 * own code (kn_plan_engine_api's tuned_choice, core/engine/tuning.c): a
 * plan reduced to what that needs, the case's node as a one-node graph on
 * the target's device, with a tuner over the cache file `cache` (NULL
 * there: a tuner without a file; tune 0: no tuner, the session does not
 * tune). begin points t's engine at it; end closes the tuner, which writes
 * the file. */
typedef struct cuda_tuning {
    kn_plan plan;
    kn_model model;
    kn_graph graph;
    kn_model_ir ir;
    kn_plan_device device;
} cuda_tuning;
void cuda_tuning_begin(cuda_tuning *tu, cuda_target *t, kh_case *c, int tune, const char *cache);
void cuda_tuning_end(cuda_tuning *tu, cuda_target *t);

/* Fills x with n deterministic values in [-1, 1) from seed. */
void fill(float *x, size_t n, unsigned seed);

/* Sets input i of c to a random float tensor of the given dims; the data
 * is malloc'd, freed by free_inputs. */
void rand_input(kh_case *c, int32_t i, const int64_t *dims, int32_t rank, unsigned seed);
void free_inputs(kh_case *c);

/* Runs c's CUDA kernel on t and its CPU kernel, and asserts that every
 * output has the CPU's shape and matches it: float outputs within tol
 * (absolute, relative to max(1, |reference|)), others byte for byte.
 * Inputs in const_mask are shown to prepare() as constants (host bytes), as
 * the engine shows initializers; every input is then put on the device. */
void cuda_case_check(const cuda_target *t, kh_case *c, uint32_t const_mask, double tol,
                     const char *what);

/* A suite's way to check one case: cuda_case_check on its own target. */
typedef void (*cuda_check_fn)(kh_case *c, uint32_t const_mask, double tol, const char *what);

/* The cases both suites run through their check: the data movement ops
 * (Transpose, Slice, Gather with int64 and int32 indices, Concat, Split,
 * Expand, Reshape), exact; the comparisons, Where and Cast on float, int64
 * and bool, exact; MatMul's batch and vector shapes and kiln.ElementwiseChain
 * on float x of dims x[3], within tol. */
void data_movement_cases(cuda_check_fn check);
void compare_where_cast_cases(cuda_check_fn check);
void matmul_cases(cuda_check_fn check, double tol);
void elementwise_chain_case(cuda_check_fn check, const int64_t x[3], double tol);

/* Each unary op of ops[0..n) at `opset`, on float X of dims x[3]. */
void unary_cases(cuda_check_fn check, const char *const *ops, size_t n, int64_t opset,
                 const int64_t x[3], double tol);

/* Each binary op of ops[0..n) at opset 14 on float A of dims a[4] and B of
 * dims b[b_rank]; Pow gets positive bases (real powers). */
void binary_cases(cuda_check_fn check, const char *const *ops, size_t n, const int64_t a[4],
                  const int64_t *b, int32_t b_rank, double tol);

/* Clip (opset 13) with constant bounds on float X of dims x[rank]: exact. */
void clip_case(cuda_check_fn check, const int64_t *x, int32_t rank);

/* Gemm (opset 13) on A 6x32 and B 32x24, each maybe transposed: with a
 * bias row, and with alpha 0.5, beta 2 and a full C. */
void gemm_cases(cuda_check_fn check, double tol);

/* One kiln.Attention node on float Q, K, V of dims q, k, v (rank 4; K
 * given as K^T when k_transposed) with a mask of dims mask[mask_rank] when
 * mask_rank is not 0. */
void attention_case(cuda_check_fn check, const int64_t q[4], const int64_t k[4], const int64_t v[4],
                    const int64_t *mask, int32_t mask_rank, int k_transposed, float scale,
                    unsigned seed, double tol, const char *what);

/* The row kernels on float X of dims {4, 6, cols}: Softmax, LogSoftmax,
 * LayerNormalization (within 10 tol: a mean and a variance) and the
 * reductions (sums within tol, max and min exact). */
void row_cases(cuda_check_fn check, int64_t cols, double tol);

/* kiln.FusedMatMul {4, 6, 32} x {32, 24} + bias, then `activation` ("" for
 * none), with an empty activation_params attribute. */
void fused_matmul_case(cuda_check_fn check, const char *activation, unsigned seed, double tol);

/* One Conv (opset 11), kiln.FusedConv or kiln.NhwcConv node: X and W of
 * rank `rank`, a bias of W's output channels when bias, a residual Z of
 * dims z when z_rank, the pads and strides given (n_pads / n_strides 0:
 * the attribute left out), random inputs from seed. */
typedef struct conv_spec {
    const char *op, *activation, *what;
    int64_t group;
    const int64_t *pads, *strides;
    int32_t n_pads, n_strides;
    int64_t x[4], w[4], z[4];
    int32_t rank, z_rank;
    int bias;
} conv_spec;
void conv_case(cuda_check_fn check, const conv_spec *s, unsigned seed, double tol);

/* One pooling node of opset `opset` on float X: the attributes with a
 * count of 0 are left out, count_include_pad when it is not negative. */
typedef struct pool_spec {
    const char *op, *what;
    int64_t opset;
    const int64_t *kernel, *strides, *pads;
    int32_t n_kernel, n_strides, n_pads;
    int count_include_pad;
    int64_t x[4];
} pool_spec;
void pool_case(cuda_check_fn check, const pool_spec *s, unsigned seed, double tol);

/* The FP16 sessions' conversion kernels (core/cuda/half_weights.h) on t
 * against Kiln's host conversions, which made the weights' half copies:
 * float -> half bit for bit on values that test the rounding (ties to even,
 * subnormals, overflow, infinities, -0; any NaN for a NaN), and half ->
 * float on all 65536 half values. */
void half_conversion_case(const cuda_target *t);

#endif
