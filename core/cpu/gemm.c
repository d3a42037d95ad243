/* Cache-blocked, packed GEMM for float and double (algorithm in
 * gemm_impl.h). The micro-kernels here compute one register tile from
 * packed panels; on x86-64 an AVX2+FMA version is chosen at run time when
 * the CPU has it, otherwise a portable 16-byte-vector version runs (SSE2,
 * NEON, wasm SIMD). Build with -DKN_GEMM_PORTABLE_ONLY to force the latter
 * (tests use it to check both). */
#include "gemm.h"

#include "core/tensor.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(KN_GEMM_PORTABLE_ONLY)
#define KN_GEMM_X86 1
#include <immintrin.h>

static int has_avx2_fma(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

/* 6x16 floats: 12 ymm accumulators + 2 for B + 1 broadcast = 15 of 16. */
__attribute__((target("avx2,fma"))) static void micro_avx2_s(int64_t kc, const float *a,
                                                             const float *b, float *tile)
{
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int64_t p = 0; p < kc; p++, a += 6, b += 16) {
        __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8), av;
#define KN_ROW(r)                                                                                  \
    av = _mm256_broadcast_ss(a + r);                                                               \
    c##r##0 = _mm256_fmadd_ps(av, b0, c##r##0);                                                    \
    c##r##1 = _mm256_fmadd_ps(av, b1, c##r##1);
        KN_ROW(0) KN_ROW(1) KN_ROW(2) KN_ROW(3) KN_ROW(4) KN_ROW(5)
#undef KN_ROW
    }
#define KN_OUT(r)                                                                                  \
    _mm256_storeu_ps(tile + r * 16, c##r##0);                                                      \
    _mm256_storeu_ps(tile + r * 16 + 8, c##r##1);
    KN_OUT(0) KN_OUT(1) KN_OUT(2) KN_OUT(3) KN_OUT(4) KN_OUT(5)
#undef KN_OUT
}

/* 6x8 doubles, same register budget. */
__attribute__((target("avx2,fma"))) static void micro_avx2_d(int64_t kc, const double *a,
                                                             const double *b, double *tile)
{
    __m256d c00 = _mm256_setzero_pd(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256d c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int64_t p = 0; p < kc; p++, a += 6, b += 8) {
        __m256d b0 = _mm256_loadu_pd(b), b1 = _mm256_loadu_pd(b + 4), av;
#define KN_ROW(r)                                                                                  \
    av = _mm256_broadcast_sd(a + r);                                                               \
    c##r##0 = _mm256_fmadd_pd(av, b0, c##r##0);                                                    \
    c##r##1 = _mm256_fmadd_pd(av, b1, c##r##1);
        KN_ROW(0) KN_ROW(1) KN_ROW(2) KN_ROW(3) KN_ROW(4) KN_ROW(5)
#undef KN_ROW
    }
#define KN_OUT(r)                                                                                  \
    _mm256_storeu_pd(tile + r * 8, c##r##0);                                                       \
    _mm256_storeu_pd(tile + r * 8 + 4, c##r##1);
    KN_OUT(0) KN_OUT(1) KN_OUT(2) KN_OUT(3) KN_OUT(4) KN_OUT(5)
#undef KN_OUT
}
#endif

/* float: 6x16 tiles; A block 144x256 (144 KiB) for L2, B sliver 256x16
 * (16 KiB) for L1, B block up to 256x1024 (1 MiB) for L3. */
#define GT float
#define GS s
#define GMR 6
#define GNR 16
#define GMC 144
#define GKC 256
#define GNC 1024
#ifdef KN_GEMM_X86
#define GMICRO() (has_avx2_fma() ? micro_avx2_s : micro_generic_s)
#else
#define GMICRO() micro_generic_s
#endif
#include "gemm_impl.h"
#undef GT
#undef GS
#undef GMR
#undef GNR
#undef GMC
#undef GKC
#undef GNC
#undef GMICRO

/* double: 6x8 tiles, the same bytes per block. */
#define GT double
#define GS d
#define GMR 6
#define GNR 8
#define GMC 72
#define GKC 256
#define GNC 512
#ifdef KN_GEMM_X86
#define GMICRO() (has_avx2_fma() ? micro_avx2_d : micro_generic_d)
#else
#define GMICRO() micro_generic_d
#endif
#include "gemm_impl.h"
#undef GT
#undef GS
#undef GMR
#undef GNR
#undef GMC
#undef GKC
#undef GNC
#undef GMICRO

size_t kn_gemm_workspace_size(int32_t dtype, int64_t m, int64_t n, int64_t k, int32_t threads)
{
    return dtype == KN_DOUBLE ? kn_dgemm_workspace_size(m, n, k, threads)
                              : kn_sgemm_workspace_size(m, n, k, threads);
}

void kn_gemm(int32_t dtype, kn_threadpool *pool, const kn_gemm_args *g, void *workspace,
             size_t ws_bytes)
{
    if (dtype == KN_DOUBLE) {
        kn_dgemm_args d = {g->trans_a, g->trans_b, g->m, g->n, g->k, g->alpha, g->beta, g->a,
                           g->lda, g->b, g->ldb, g->c, g->ldc, g->bias, g->packed_a};
        kn_dgemm(pool, &d, workspace, ws_bytes);
    } else {
        kn_sgemm_args s = {g->trans_a, g->trans_b, g->m, g->n, g->k, (float)g->alpha,
                           (float)g->beta, g->a, g->lda, g->b, g->ldb, g->c, g->ldc, g->bias,
                           g->packed_a};
        kn_sgemm(pool, &s, workspace, ws_bytes);
    }
}

size_t kn_gemm_packed_a_size(int32_t dtype, int64_t m, int64_t k)
{
    return dtype == KN_DOUBLE ? kn_dgemm_packed_a_size(m, k) : kn_sgemm_packed_a_size(m, k);
}

void kn_gemm_pack_a(int32_t dtype, int trans_a, int64_t m, int64_t k, const void *a, int64_t lda,
                    void *dst)
{
    if (dtype == KN_DOUBLE)
        kn_dgemm_pack_a(trans_a, m, k, a, lda, dst);
    else
        kn_sgemm_pack_a(trans_a, m, k, a, lda, dst);
}
