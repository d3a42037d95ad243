/* The packed int16 GEMM of qgemm.h: a 4 x 8 micro-kernel of pairwise
 * multiply-adds. 8 int32 accumulators, 2 B vectors and one broadcast A
 * pair take 11 of the 16 vector registers V8 has on x64 (more rows spilled
 * in the float kernels' experience). */
#include <string.h>

#include "core/simd/qgemm.h"
#include "core/simd/vec_i16.h"

#define MR KN_QGEMM_MR
#define NR KN_QGEMM_NR

size_t kn_qgemm_packed_a_len(int64_t m, int64_t k)
{
    return (size_t)(((m + MR - 1) / MR) * kn_qgemm_pairs(k) * MR * 2);
}

size_t kn_qgemm_packed_b_len(int64_t k, int64_t n)
{
    return (size_t)(((n + NR - 1) / NR) * kn_qgemm_pairs(k) * NR * 2);
}

void kn_qgemm_pack_a(int64_t m, int64_t k, const int16_t *a, int64_t lda, int16_t *dst)
{
    int64_t kp = kn_qgemm_pairs(k);
    for (int64_t m0 = 0; m0 < m; m0 += MR)
        for (int64_t p = 0; p < kp; p++)
            for (int64_t r = 0; r < MR; r++, dst += 2) {
                const int16_t *row = a + (m0 + r) * lda;
                int in = m0 + r < m;
                dst[0] = in ? row[2 * p] : 0;
                dst[1] = in && 2 * p + 1 < k ? row[2 * p + 1] : 0;
            }
}

/* One panel's depth pairs of columns [n0, n0 + w), w < NR or at the
 * depth's odd end: element by element, zeros beyond. */
static void pack_b_edge(int64_t k, int64_t p, int64_t w, const int16_t *b, int64_t ldb,
                        int16_t *dst)
{
    for (int64_t j = 0; j < NR; j++) {
        dst[2 * j] = j < w ? b[2 * p * ldb + j] : 0;
        dst[2 * j + 1] = j < w && 2 * p + 1 < k ? b[(2 * p + 1) * ldb + j] : 0;
    }
}

void kn_qgemm_pack_b(int64_t k, int64_t n, const int16_t *b, int64_t ldb, int16_t *dst)
{
    int64_t kp = kn_qgemm_pairs(k), full = k / 2;
    for (int64_t n0 = 0; n0 < n; n0 += NR) {
        int64_t w = n - n0 < NR ? n - n0 : NR;
        const int16_t *col = b + n0;
        for (int64_t p = 0; p < kp; p++, dst += 2 * NR) {
            if (w == NR && p < full) {
                /* rows 2p and 2p+1 interleaved: two zips of 8 lanes */
                ki r0 = ki_load(col + 2 * p * ldb), r1 = ki_load(col + (2 * p + 1) * ldb);
                ki_store(dst, ki_zip_lo16(r0, r1));
                ki_store(dst + 8, ki_zip_hi16(r0, r1));
            } else {
                pack_b_edge(k, p, w, col, ldb, dst);
            }
        }
    }
}

/* One MR x NR tile of C; rows / cols below MR / NR at the edges. */
static void tile_4x8(int64_t kp, const int16_t *pa, const int16_t *pb, int32_t *c, int64_t ldc,
                     int64_t rows, int64_t cols)
{
    ki c00 = ki_zero(), c01 = ki_zero(), c10 = ki_zero(), c11 = ki_zero();
    ki c20 = ki_zero(), c21 = ki_zero(), c30 = ki_zero(), c31 = ki_zero();
/* one depth pair: 8 pairwise multiply-adds */
#define QGEMM_STEP                                                                                 \
    do {                                                                                           \
        ki b0 = ki_load(pb), b1 = ki_load(pb + 8);                                                 \
        ki a = ki_splat_pair(pa);                                                                  \
        c00 = ki_dot_add(c00, a, b0);                                                              \
        c01 = ki_dot_add(c01, a, b1);                                                              \
        a = ki_splat_pair(pa + 2);                                                                 \
        c10 = ki_dot_add(c10, a, b0);                                                              \
        c11 = ki_dot_add(c11, a, b1);                                                              \
        a = ki_splat_pair(pa + 4);                                                                 \
        c20 = ki_dot_add(c20, a, b0);                                                              \
        c21 = ki_dot_add(c21, a, b1);                                                              \
        a = ki_splat_pair(pa + 6);                                                                 \
        c30 = ki_dot_add(c30, a, b0);                                                              \
        c31 = ki_dot_add(c31, a, b1);                                                              \
        pa += 2 * MR;                                                                              \
        pb += 2 * NR;                                                                              \
    } while (0)
    /* unrolled by hand, two steps: V8 does not unroll. Node 20's V8 paid
     * a third of the speed for one step (64x576x224: 11 -> 17 GMAC/s with
     * four), but Chromium 156's runs two steps faster than four (AMD Zen 4,
     * 96x768x1152 alone: 44.7 -> 47.2 GMAC/s; four steps' code spilled),
     * and the browser is where this kernel serves. */
    int64_t p = 0;
    for (; p + 2 <= kp; p += 2) {
        QGEMM_STEP;
        QGEMM_STEP;
    }
    for (; p < kp; p++)
        QGEMM_STEP;
#undef QGEMM_STEP
    if (rows == MR && cols == NR) {
        ki_store(c, c00);
        ki_store(c + 4, c01);
        ki_store(c + ldc, c10);
        ki_store(c + ldc + 4, c11);
        ki_store(c + 2 * ldc, c20);
        ki_store(c + 2 * ldc + 4, c21);
        ki_store(c + 3 * ldc, c30);
        ki_store(c + 3 * ldc + 4, c31);
        return;
    }
    int32_t t[MR][NR];
    ki_store(t[0], c00);
    ki_store(t[0] + 4, c01);
    ki_store(t[1], c10);
    ki_store(t[1] + 4, c11);
    ki_store(t[2], c20);
    ki_store(t[2] + 4, c21);
    ki_store(t[3], c30);
    ki_store(t[3] + 4, c31);
    for (int64_t r = 0; r < rows; r++)
        memcpy(c + r * ldc, t[r], (size_t)cols * sizeof(int32_t));
}

void kn_qgemm_packed(int64_t m, int64_t n, int64_t k, const int16_t *pa, const int16_t *pb,
                     int32_t *c, int64_t ldc)
{
    int64_t kp = kn_qgemm_pairs(k);
    /* A's panel (MR rows, at most a few KiB deep) stays in L1 while the
     * packed B block, sized by the caller to fit L2, streams past it */
    for (int64_t m0 = 0; m0 < m; m0 += MR) {
        const int16_t *a = pa + m0 / MR * kp * MR * 2;
        int64_t rows = m - m0 < MR ? m - m0 : MR;
        for (int64_t n0 = 0; n0 < n; n0 += NR)
            tile_4x8(kp, a, pb + n0 / NR * kp * NR * 2, c + m0 * ldc + n0, ldc, rows,
                     n - n0 < NR ? n - n0 : NR);
    }
}

/* kn_qdw_taps for 3 x 3 kernels, the depthwise convolutions of MobileNet
 * and most of EfficientNet: the nine sources and five weight pairs (the
 * last with a zero) held in locals across the loop instead of read from
 * the pair arrays at every step; alone in headless Chromium 156 (AMD Zen
 * 4, a 56 x 56 plane) 0.63 -> 0.45 ns an output. */
static void qdw_taps9(int32_t *out, const int16_t *const *src, const int16_t *w, int64_t n)
{
    const int16_t wp[10] = {w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], 0};
    const ki w01 = ki_splat_pair(wp), w23 = ki_splat_pair(wp + 2), w45 = ki_splat_pair(wp + 4),
             w67 = ki_splat_pair(wp + 6), w8z = ki_splat_pair(wp + 8), zero = ki_zero();
    const int16_t *s0 = src[0], *s1 = src[1], *s2 = src[2], *s3 = src[3], *s4 = src[4],
                  *s5 = src[5], *s6 = src[6], *s7 = src[7], *s8 = src[8];
    for (int64_t f = 0; f < n; f += 8) {
        ki a = ki_load(s0 + f), b = ki_load(s1 + f);
        ki lo = ki_dot_add(zero, ki_zip_lo16(a, b), w01),
           hi = ki_dot_add(zero, ki_zip_hi16(a, b), w01);
#define QDW_PAIR(X, Y, W)                                                                          \
    a = ki_load(X + f), b = ki_load(Y + f);                                                        \
    lo = ki_dot_add(lo, ki_zip_lo16(a, b), W);                                                     \
    hi = ki_dot_add(hi, ki_zip_hi16(a, b), W)
        QDW_PAIR(s2, s3, w23);
        QDW_PAIR(s4, s5, w45);
        QDW_PAIR(s6, s7, w67);
#undef QDW_PAIR
        a = ki_load(s8 + f);
        lo = ki_dot_add(lo, ki_zip_lo16(a, zero), w8z);
        hi = ki_dot_add(hi, ki_zip_hi16(a, zero), w8z);
        ki_store(out + f, lo);
        ki_store(out + f + 4, hi);
    }
}

void kn_qdw_taps(int32_t *out, const int16_t *const *src, const int16_t *w, int32_t taps, int64_t n)
{
    if (taps == 9) {
        qdw_taps9(out, src, w, n);
        return;
    }
    enum { MAX_PAIRS = 64 };
    int16_t wp[2 * MAX_PAIRS];
    const int16_t *sp[2 * MAX_PAIRS];
    for (int32_t t0 = 0; t0 < taps; t0 += 2 * MAX_PAIRS) { /* more taps: add in rounds */
        int32_t count = taps - t0 < 2 * MAX_PAIRS ? taps - t0 : 2 * MAX_PAIRS;
        int32_t pairs = (count + 1) / 2;
        for (int32_t t = 0; t < 2 * pairs; t++) {
            /* an odd last tap pairs with a zero weight on the same source */
            wp[t] = t < count ? w[t0 + t] : 0;
            sp[t] = t < count ? src[t0 + t] : src[t0];
        }
        for (int64_t f = 0; f < n; f += 8) {
            ki lo = t0 ? ki_load(out + f) : ki_zero(), hi = t0 ? ki_load(out + f + 4) : ki_zero();
            for (int32_t p = 0; p < pairs; p++) {
                ki a = ki_load(sp[2 * p] + f), b = ki_load(sp[2 * p + 1] + f);
                ki t = ki_splat_pair(wp + 2 * p);
                lo = ki_dot_add(lo, ki_zip_lo16(a, b), t);
                hi = ki_dot_add(hi, ki_zip_hi16(a, b), t);
            }
            ki_store(out + f, lo);
            ki_store(out + f + 4, hi);
        }
    }
}

int kn_qgemm_beats_float(void) { return KI_BEATS_FLOAT; }

const char *kn_qgemm_isa(void) { return KI_NAME; }
