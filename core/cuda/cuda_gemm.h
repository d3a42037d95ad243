/* A float product on cuBLASLt as a building block for kernels made of
 * several steps (kiln.Attention): planned once in prepare (layouts and
 * cuBLASLt's algorithm for the shapes), queued on the node's stream in run.
 * matmul.c implements it, with the row-major to column-major mapping it
 * describes. */
#ifndef KN_CUDA_GEMM_H
#define KN_CUDA_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "core/kernel/op.h"

/* Y[b] = alpha * op(A[b]) op(B[b]) for b < batch, row-major: op(A) is
 * m x k (A stored k x m when trans_a), op(B) k x n (B stored n x k when
 * trans_b), Y m x n and contiguous across batches; stride_a / stride_b are
 * the elements between batches (0: the same matrix for every batch). */
typedef struct kn_cuda_gemm_shape {
    int64_t m, n, k, batch;
    int64_t stride_a, stride_b;
    int trans_a, trans_b;
} kn_cuda_gemm_shape;

typedef struct mm_state kn_cuda_gemm;

/* The plan, or NULL with *rc set (KN_ERR_DECLINE when cuBLASLt has no
 * algorithm for the shapes). */
kn_cuda_gemm *kn_cuda_gemm_plan(kn_kctx *k, const kn_cuda_gemm_shape *s, float alpha, int *rc);
/* Device workspace run() needs (bytes). */
size_t kn_cuda_gemm_workspace(const kn_cuda_gemm *g);
int kn_cuda_gemm_run(kn_kctx *k, const kn_cuda_gemm *g, const void *a, const void *b, void *y,
                     void *workspace);
void kn_cuda_gemm_free(kn_kctx *k, kn_cuda_gemm *g); /* NULL-safe */

#endif
