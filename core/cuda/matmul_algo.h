/* cuBLASLt's algorithms for one planned product: the heuristic's
 * candidates, and a candidate written as a word for the tuning cache and
 * found again from it (matmul.c chooses among them). */
#ifndef KN_CUDA_MATMUL_ALGO_H
#define KN_CUDA_MATMUL_ALGO_H

#include <stddef.h>

#include "core/cuda/cuda_api.h"
#include "core/kernel/op.h"

/* The most workspace a product's algorithm may use. */
enum { KN_LT_MAX_WORKSPACE = 32 << 20 };

/* The product as cuBLASLt was told it: its descriptor and the layouts of
 * its A, B, C and D. */
typedef struct kn_lt_problem {
    kn_cublasLtMatmulDesc desc;
    const kn_cublasLtMatrixLayout *lay;
} kn_lt_problem;

/* Up to `want` candidates, best first by cuBLASLt's heuristic, each
 * within KN_LT_MAX_WORKSPACE; *n of them found (0: none for the shapes). */
int kn_lt_heuristics(kn_kctx *k, const kn_lt_problem *p, int want,
                     kn_cublasLtMatmulHeuristicResult *found, int *n);

/* Candidate `index` of the heuristic's list as a word for the tuning
 * cache: "lt:<index>:<id>.<tile>.<stages>.<split-k>.<reduction>.<swizzle>.<custom>",
 * the configuration read back from the algorithm. */
void kn_lt_algo_word(const kn_cuda_api *api, const kn_cublasLtMatmulHeuristicResult *r, int index,
                     char *buf, size_t cap);

/* Which of found[0..n) a cached word names: the one at its index when
 * its configuration is the word's, else any with that configuration, and
 * only when cublasLtMatmulAlgoCheck accepts it for this product (its
 * workspace within the limit, stored into that entry). -1 when none: a
 * word from another heuristic (a changed library or shape rule) or one the
 * library no longer accepts, and the caller takes the heuristic's first. */
int kn_lt_algo_refind(kn_kctx *k, const kn_lt_problem *p, kn_cublasLtMatmulHeuristicResult *found,
                      int n, const char *word);

#endif
