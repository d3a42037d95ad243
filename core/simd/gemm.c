/* Cache-blocked, packed GEMM for float and double (algorithm in
 * gemm_impl.h).
 *
 * float: instantiated once per instruction set in core/cpu/simd_*.c with
 * a micro-kernel written over core/simd/vec.h; the entry points here pick
 * the instance of the table kn_simd() chose for this CPU.
 *
 * double: instantiated here. The micro-kernels compute one register tile
 * from packed panels; on x86-64 an AVX2+FMA version is chosen at run time
 * when the CPU has it, otherwise a portable 16-byte-vector version runs
 * (SSE2, NEON, wasm SIMD). Build with -DKN_GEMM_PORTABLE_ONLY to force the
 * latter. */
#include "core/simd/gemm.h"

#include "core/simd/gemm_tiles.h"
#include "core/simd/kernels.h"
#include "core/ir/tensor.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(KN_GEMM_PORTABLE_ONLY)
#define KN_GEMM_X86 1
#include <immintrin.h>

static int has_avx2_fma(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

/* 6x8 doubles: 12 ymm accumulators + 2 for B + 1 broadcast = 15 of 16. */
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

/* Portable micro-kernel: GMR x GNR tile as column groups of two 16-byte
 * vectors, so that 2 * GMR accumulators fit the 16 registers of SSE2. */
#if defined(__GNUC__)
typedef double vec_d __attribute__((vector_size(16)));

static void micro_generic_d(int64_t kc, const double *a, const double *b, double *tile)
{
    enum { MR = 6, NR = 8, L = 2 };
    for (int g0 = 0; g0 < NR; g0 += 2 * L) {
        vec_d acc[MR][2];
        for (int r = 0; r < MR; r++)
            acc[r][0] = acc[r][1] = (vec_d){0};
        for (int64_t p = 0; p < kc; p++) {
            vec_d b0, b1;
            memcpy(&b0, b + p * NR + g0, sizeof b0);
            memcpy(&b1, b + p * NR + g0 + L, sizeof b1);
            const double *ap = a + p * MR;
            for (int r = 0; r < MR; r++) {
                vec_d av = (vec_d){0} + ap[r];
                acc[r][0] += av * b0;
                acc[r][1] += av * b1;
            }
        }
        for (int r = 0; r < MR; r++) {
            memcpy(tile + r * NR + g0, &acc[r][0], sizeof acc[r][0]);
            memcpy(tile + r * NR + g0 + L, &acc[r][1], sizeof acc[r][1]);
        }
    }
}
#else
static void micro_generic_d(int64_t kc, const double *a, const double *b, double *tile)
{
    for (int i = 0; i < 6 * 8; i++)
        tile[i] = 0;
    for (int64_t p = 0; p < kc; p++)
        for (int r = 0; r < 6; r++)
            for (int j = 0; j < 8; j++)
                tile[r * 8 + j] += a[p * 6 + r] * b[p * 8 + j];
}
#endif

/* double: 6x8 tiles; A block 72x256 (144 KiB) for L2, B sliver 256x8
 * (16 KiB) for L1, B block up to 256x512 (1 MiB) for L3. */
#define GT double
#define GS d
#define GISA
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
#include "core/simd/gemm_impl.h"
#undef GT
#undef GS
#undef GISA
#undef GMR
#undef GNR
#undef GMC
#undef GKC
#undef GNC
#undef GMICRO

/* float: the chosen micro-tile (gemm_tiles.h). Weights packed for a tile
 * carry its index in a 64-byte header, so a product on them runs the tile
 * that packed them even after the process has chosen another (a page
 * times its tiles when the first large model loads, after smaller ones
 * were packed with the default). Sizes are the largest over the tiles, so
 * scratch reserved before a change still fits after it. */
#define PACK_HEADER 64
#define PACK_MAGIC 0x4b4e5054u /* "KNPT" */

typedef struct pack_header {
    uint32_t magic;
    int32_t tile;
} pack_header;

size_t kn_sgemm_workspace_size(int64_t m, int64_t n, int64_t k, int32_t threads)
{
    kn_sgemm_census_note(m, n, k); /* kernels size their products when prepared */
    size_t need = 0;
    for (int32_t i = 0; i < kn_sgemm_tile_count(); i++) {
        size_t s = kn_sgemm_tile_at(i)->workspace_size(m, n, k, threads);
        need = s > need ? s : need;
    }
    return need;
}

size_t kn_sgemm_packed_a_size(int64_t m, int64_t k)
{
    size_t need = 0;
    for (int32_t i = 0; i < kn_sgemm_tile_count(); i++) {
        size_t s = kn_sgemm_tile_at(i)->packed_a_size(m, k);
        need = s > need ? s : need;
    }
    return PACK_HEADER + need;
}

void kn_sgemm_pack_a(int trans_a, int64_t m, int64_t k, const float *a, int64_t lda, float *dst)
{
    const kn_sgemm_tile *t = kn_sgemm_tile_active();
    pack_header h = {PACK_MAGIC, kn_sgemm_tile_index(t)};
    memcpy(dst, &h, sizeof h);
    t->pack_a(trans_a, m, k, a, lda, (float *)((char *)dst + PACK_HEADER));
}

void kn_sgemm(kn_threadpool *pool, const kn_sgemm_args *g, void *workspace, size_t ws_bytes)
{
    if (!g->packed_a) {
        kn_sgemm_tile_active()->sgemm(pool, g, workspace, ws_bytes);
        return;
    }
    pack_header h;
    memcpy(&h, g->packed_a, sizeof h);
    const kn_sgemm_tile *t = h.magic == PACK_MAGIC ? kn_sgemm_tile_at(h.tile) : NULL;
    kn_sgemm_args body = *g;
    body.packed_a = (const float *)((const char *)g->packed_a + PACK_HEADER);
    if (!t) { /* not packed by kn_sgemm_pack_a: run without it */
        body.packed_a = NULL;
        t = kn_sgemm_tile_active();
    }
    t->sgemm(pool, &body, workspace, ws_bytes);
}

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
