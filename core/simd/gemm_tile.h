/* One float GEMM instance (gemm_impl.h's blocked algorithm) with a
 * micro-tile of GTILE_ROWS rows by GTILE_VECS vectors of vec.h, giving the
 * entry points kn_sgemm<GTILE_SFX>, kn_sgemm_workspace_size<GTILE_SFX>,
 * kn_sgemm_packed_a_size<GTILE_SFX> and kn_sgemm_pack_a<GTILE_SFX>.
 * Included by kernels_body.h for each table's own tile and by
 * gemm_tiles.c for the alternatives a page can choose at run time; the
 * includer has vec.h's backend set and undefines the three macros after.
 * GTILE_VECS is even (the half-width kernel computes GTILE_VECS / 2). */
#define GTILE_CAT_(a, b) a##b
#define GTILE_CAT(a, b) GTILE_CAT_(a, b)
#define GTILE(name) GTILE_CAT(name, GTILE_SFX)
#define GTILE_NR (GTILE_VECS * KV_W)

_Static_assert(GTILE_VECS % 2 == 0, "the half-width kernel needs an even vector count");

/* NV vectors per row of the tile (a constant at each call site, so the
 * loops unroll); the packed B panel is GTILE_NR wide whatever NV is. The
 * depth loop is left rolled: unrolling it by 2 or 4 made the wasm build
 * slower (V8 then spills), and native compilers unroll on their own.
 * The result goes to out (rows ldo apart): stored plus bias[r] when bias
 * is given, or added to what out holds when accumulate is set. */
static inline __attribute__((always_inline)) void
GTILE(sgemm_tile)(int64_t kc, const float *a, const float *b, float *out, int64_t ldo,
                  const float *bias, int accumulate, const int NV)
{
    kv c[GTILE_ROWS][GTILE_VECS];
    for (int r = 0; r < GTILE_ROWS; r++)
        for (int v = 0; v < NV; v++)
            c[r][v] = kv_zero();
    for (int64_t p = 0; p < kc; p++, a += GTILE_ROWS, b += GTILE_NR) {
        kv bv[GTILE_VECS];
        for (int v = 0; v < NV; v++)
            bv[v] = kv_loadu(b + v * KV_W);
        for (int r = 0; r < GTILE_ROWS; r++) {
            kv av = kv_set1(a[r]);
            for (int v = 0; v < NV; v++)
                c[r][v] = kv_fma(av, bv[v], c[r][v]);
        }
    }
    for (int r = 0; r < GTILE_ROWS; r++) {
        float *o = out + r * ldo;
        for (int v = 0; v < NV; v++) {
            kv x = c[r][v];
            if (accumulate)
                x = kv_add(kv_loadu(o + v * KV_W), x);
            else if (bias)
                x = kv_add(x, kv_set1(bias[r]));
            kv_storeu(o + v * KV_W, x);
        }
    }
}

static void GTILE(sgemm_micro)(int64_t kc, const float *a, const float *b, float *tile)
{
    GTILE(sgemm_tile)(kc, a, b, tile, GTILE_NR, NULL, 0, GTILE_VECS);
}

/* The last column panel of a product often holds half a tile or less
 * (14x14 images: 196 = 6 x 32 + 4): computing half the vectors per row
 * there saves the wasted half. */
static void GTILE(sgemm_micro_half)(int64_t kc, const float *a, const float *b, float *tile)
{
    GTILE(sgemm_tile)(kc, a, b, tile, GTILE_NR, NULL, 0, GTILE_VECS / 2);
}

/* Whole tiles straight into C (gemm_impl.h's GMICRO_C): skips the round
 * trip through the tile buffer, which costs most on shallow products
 * (a first 3x3 Conv has a depth of 27). */
static void GTILE(sgemm_micro_c)(int64_t kc, const float *a, const float *b, float *c,
                                 int64_t ldc, const float *bias, int accumulate)
{
    static const float zero_bias[GTILE_ROWS];
    GTILE(sgemm_tile)(kc, a, b, c, ldc, bias ? bias : zero_bias, accumulate, GTILE_VECS);
}

/* The matrix-vector path's dot product (gemm_impl.h GDOT): four vector
 * accumulators, so the adds overlap and the loads run ahead (a CNN's
 * classifier reads its weights once per run, from L3 at best). */
static float GTILE(sgemm_dot)(const float *x, const float *v, int64_t k)
{
    kv s0 = kv_zero(), s1 = kv_zero(), s2 = kv_zero(), s3 = kv_zero();
    int64_t p = 0;
    for (; p + 4 * KV_W <= k; p += 4 * KV_W) {
        s0 = kv_fma(kv_loadu(x + p), kv_loadu(v + p), s0);
        s1 = kv_fma(kv_loadu(x + p + KV_W), kv_loadu(v + p + KV_W), s1);
        s2 = kv_fma(kv_loadu(x + p + 2 * KV_W), kv_loadu(v + p + 2 * KV_W), s2);
        s3 = kv_fma(kv_loadu(x + p + 3 * KV_W), kv_loadu(v + p + 3 * KV_W), s3);
    }
    for (; p + KV_W <= k; p += KV_W)
        s0 = kv_fma(kv_loadu(x + p), kv_loadu(v + p), s0);
    if (p < k)
        s1 = kv_fma(kv_load_part(x + p, (int)(k - p), 0.0f),
                    kv_load_part(v + p, (int)(k - p), 0.0f), s1);
    return kv_hsum(kv_add(kv_add(s0, s1), kv_add(s2, s3)));
}

#define GT float
#define GS s
#define GISA GTILE_SFX
#define GDOT() GTILE(sgemm_dot)
#define GMR GTILE_ROWS
#define GNR GTILE_NR
#define GMC (144 / GTILE_ROWS * GTILE_ROWS) /* whole panels (gemm_impl.h); 144 for 6 rows */
#define GKC 256
#define GNC 1024 /* B block 256 x 1024 (1 MiB): L2-sized whatever the tile width */
#define GMICRO() GTILE(sgemm_micro)
#define GMICRO_HALF() GTILE(sgemm_micro_half)
#define GMICRO_C() GTILE(sgemm_micro_c)
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
#undef GMICRO_HALF
#undef GMICRO_C
#undef GDOT
#undef GTILE_NR
#undef GTILE
#undef GTILE_CAT
#undef GTILE_CAT_
