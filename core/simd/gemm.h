/* The matrix product every dense CPU kernel (Conv, Gemm, MatMul) rests on:
 *
 *     C[m x n] = alpha * op(A) * op(B) + beta * C  (+ bias[i] on row i)
 *
 * op(X) is X or its transpose; matrices are row-major with leading
 * dimensions (distance between rows in elements). When beta is 0, C is
 * not read (it may hold garbage, NaN included), as in BLAS.
 *
 * The routine never allocates: the caller passes a packing workspace of at
 * least kn_sgemm_workspace_size(m, n, k, threads) bytes, sized once in a
 * kernel's prepare(). It parallelises over blocks of C with
 * kn_parallel_for, using at most as many tasks as the workspace was sized
 * for (a smaller workspace just means fewer tasks, down to one). */
#ifndef KN_CPU_GEMM_H
#define KN_CPU_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/thread_pool.h"

typedef struct kn_sgemm_args {
    int trans_a, trans_b;
    int64_t m, n, k;
    float alpha, beta;
    const float *a;
    int64_t lda;
    const float *b;
    int64_t ldb;
    float *c;
    int64_t ldc;
    const float *bias;     /* optional: bias[i] added to row i of C */
    const float *packed_a; /* optional: op(A) packed by kn_sgemm_pack_a; a is still
                              needed (matrix-vector shapes read it directly) */
} kn_sgemm_args;

typedef struct kn_dgemm_args {
    int trans_a, trans_b;
    int64_t m, n, k;
    double alpha, beta;
    const double *a;
    int64_t lda;
    const double *b;
    int64_t ldb;
    double *c;
    int64_t ldc;
    const double *bias;
    const double *packed_a;
} kn_dgemm_args;

/* Bytes of workspace for a product of this size run by up to `threads`
 * tasks (use kn_threadpool_threads(pool)). Never 0, so it can be added to
 * other scratch sizes without special cases. */
size_t kn_sgemm_workspace_size(int64_t m, int64_t n, int64_t k, int32_t threads);
size_t kn_dgemm_workspace_size(int64_t m, int64_t n, int64_t k, int32_t threads);

/* A operand packed ahead of time, for constant weights: products that
 * reuse the same A (Conv per image, per run) then skip packing it. The
 * layout is private to this file; only kn_*gemm reads it. */
size_t kn_sgemm_packed_a_size(int64_t m, int64_t k);
size_t kn_dgemm_packed_a_size(int64_t m, int64_t k);
void kn_sgemm_pack_a(int trans_a, int64_t m, int64_t k, const float *a, int64_t lda, float *dst);
void kn_dgemm_pack_a(int trans_a, int64_t m, int64_t k, const double *a, int64_t lda,
                     double *dst);

/* workspace must be 16-byte aligned (kernel scratch is). */
void kn_sgemm(kn_threadpool *pool, const kn_sgemm_args *g, void *workspace, size_t ws_bytes);
void kn_dgemm(kn_threadpool *pool, const kn_dgemm_args *g, void *workspace, size_t ws_bytes);

/* Dtype-dispatching front end for kernels written once for float and
 * double: pointers are to elements of `dtype` (KN_FLOAT or KN_DOUBLE),
 * scalars are converted. */
typedef struct kn_gemm_args {
    int trans_a, trans_b;
    int64_t m, n, k;
    double alpha, beta;
    const void *a;
    int64_t lda;
    const void *b;
    int64_t ldb;
    void *c;
    int64_t ldc;
    const void *bias;
    const void *packed_a;
} kn_gemm_args;

size_t kn_gemm_workspace_size(int32_t dtype, int64_t m, int64_t n, int64_t k, int32_t threads);
size_t kn_gemm_packed_a_size(int32_t dtype, int64_t m, int64_t k);
void kn_gemm_pack_a(int32_t dtype, int trans_a, int64_t m, int64_t k, const void *a, int64_t lda,
                    void *dst);
void kn_gemm(int32_t dtype, kn_threadpool *pool, const kn_gemm_args *g, void *workspace,
             size_t ws_bytes);

#endif
