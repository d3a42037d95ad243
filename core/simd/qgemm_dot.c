/* The dot-product GEMM of qgemm_dot.h: a 4 x 8 micro-kernel like qgemm.c's
 * (8 int32 accumulators, 2 B vectors and one broadcast A quad), each step a
 * depth quad: 8 dot instructions for 128 products. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/simd/qgemm.h"
#include "core/simd/qgemm_dot.h"
#include "core/simd/vec_i8dot.h"

#define MR KN_QGEMM_MR
#define NR KN_QGEMM_NR
/* panel headers: int32 sums (and shifts) */
#define A_HEAD (2 * MR * (int64_t)sizeof(int32_t))
#define B_HEAD (NR * (int64_t)sizeof(int32_t))

#if !KD_HAS_DOT
int kd_portable_reading = KD_READ_UNSIGNED;
#endif

static atomic_int dot_mode = -1; /* not probed yet */

/* Through kd_dot_add itself: a = 127, b = 255 in every byte (exact
 * unsigned: 4 x 32385 per lane); a = -128, b = 255; then bytes within
 * [0, 127] with a sum to add to, which every reading gets exactly. Inputs
 * through volatile, so that nothing is worked out at compile time. */
int kn_qgemm_dot_probe(int32_t lanes[4])
{
    if (!KD_HAS_DOT) {
        memset(lanes, 0, 4 * sizeof(int32_t));
        return KN_QDOT_OFF;
    }
    static volatile uint8_t a0 = 127, a1 = 0x80, b_hi = 255;
    static volatile int32_t c0 = 1000003;
    uint8_t a[16], b[16], one_a = a0, two_a = a1, bh = b_hi;
    int32_t c[4] = {c0, -c0, 7, 0x7fffffff}, got[4];
    int exact_high = 1, exact_low = 1;
    memset(a, one_a, 16);
    memset(b, bh, 16);
    kd_store(lanes, kd_dot_add(kd_zero(), kd_load(a), kd_load(b)));
    for (int i = 0; i < 4; i++)
        exact_high &= lanes[i] == 4 * 127 * 255;
    memset(a, two_a, 16);
    kd_store(got, kd_dot_add(kd_zero(), kd_load(a), kd_load(b)));
    for (int i = 0; i < 4; i++)
        exact_high &= got[i] == 4 * -128 * 255;
    for (int j = 0; j < 16; j++) {
        a[j] = (uint8_t)(j & 1 ? 0x80 : 127 - 5 * j); /* -128 and 127 .. 57 */
        b[j] = (uint8_t)(127 - 3 * j);
    }
    kd_store(got, kd_dot_add(kd_load(c), kd_load(a), kd_load(b)));
    for (int i = 0; i < 4; i++) {
        uint32_t want = (uint32_t)c[i];
        for (int q = 0; q < 4; q++) {
            int j = 4 * i + q;
            want += (uint32_t)((int8_t)a[j] * b[j]);
        }
        exact_low &= got[i] == (int32_t)want;
    }
    return !exact_low ? KN_QDOT_OFF : exact_high ? KN_QDOT_UNSIGNED : KN_QDOT_HALVES;
}

/* KILN_QGEMM_DOT=off|unsigned|halves narrows the probe's choice, for
 * tests: halves wherever the instruction is exact within [0, 127], unsigned
 * only where the probe found it exact above; plain C (native builds) takes
 * either, emulated. */
static int mode_from_env(int probed, const int32_t lanes[4])
{
    const char *e = getenv("KILN_QGEMM_DOT");
    if (!e) {
        /* Where pairs saturate (V8 on x64 without AVX-VNNI: pmaddubsw,
         * pmaddwd, paddd for one dot) halves take 6 instructions per 16
         * products against the int16 GEMM's 4: keep that. Elsewhere (ARM's
         * sdot: one instruction per dot) halves pay. */
        int saturating = lanes[0] == 2 * 32767;
        return probed == KN_QDOT_HALVES && saturating ? KN_QDOT_OFF : probed;
    }
    int any = !KD_HAS_DOT || probed != KN_QDOT_OFF;
    if (!strcmp(e, "halves"))
        return any ? KN_QDOT_HALVES : KN_QDOT_OFF;
    if (!strcmp(e, "unsigned"))
        return !KD_HAS_DOT || probed == KN_QDOT_UNSIGNED ? KN_QDOT_UNSIGNED : KN_QDOT_OFF;
    return !strcmp(e, "off") ? KN_QDOT_OFF : probed;
}

int kn_qgemm_dot_mode(void)
{
    int mode = atomic_load_explicit(&dot_mode, memory_order_relaxed);
    if (mode < 0) { /* every thread that gets here computes the same */
        int32_t lanes[4];
        int probed = kn_qgemm_dot_probe(lanes);
        mode = mode_from_env(probed, lanes);
        atomic_store_explicit(&dot_mode, mode, memory_order_relaxed);
    }
    return mode;
}

int kn_qgemm_dot_set_mode(int mode)
{
    int before = kn_qgemm_dot_mode();
    atomic_store_explicit(&dot_mode, mode, memory_order_relaxed);
    return before;
}

size_t kn_qgemm_dot_packed_a_bytes(int64_t m, int64_t k)
{
    return (size_t)(((m + MR - 1) / MR) * (A_HEAD + kn_qgemm_quads(k) * MR * 4));
}

size_t kn_qgemm_dot_packed_b_bytes(int64_t k, int64_t n)
{
    return (size_t)(((n + NR - 1) / NR) * (B_HEAD + 2 * kn_qgemm_quads(k) * NR * 4));
}

int kn_qgemm_dot_pack_a(int64_t m, int64_t k, const int16_t *a, int64_t lda, void *dst)
{
    int64_t kq = kn_qgemm_quads(k);
    uint8_t *d = dst;
    int shifted = 0;
    for (int64_t m0 = 0; m0 < m; m0 += MR, d += A_HEAD + kq * MR * 4) {
        int32_t head[2 * MR] = {0};
        for (int64_t r = 0; r < MR && m0 + r < m; r++) {
            const int16_t *row = a + (m0 + r) * lda;
            int32_t lo = 0, hi = 0, sum = 0;
            for (int64_t i = 0; i < k; i++) {
                lo = row[i] < lo ? row[i] : lo;
                hi = row[i] > hi ? row[i] : hi;
            }
            if (hi - lo > 255)
                return 0;
            /* symmetric weights stay as they are */
            int32_t t = lo >= -128 && hi <= 127 ? 0 : -128 - lo;
            for (int64_t q = 0; q < kq; q++)
                for (int64_t i = 0; i < 4; i++) {
                    int32_t v = 4 * q + i < k ? row[4 * q + i] + t : 0;
                    d[A_HEAD + (q * MR + r) * 4 + i] = (uint8_t)(int8_t)v;
                    sum += v;
                }
            head[r] = sum;
            head[MR + r] = t;
            shifted |= t != 0;
        }
        for (int64_t r = m - m0; r < MR; r++)
            for (int64_t q = 0; q < kq; q++)
                memset(d + A_HEAD + (q * MR + r) * 4, 0, 4);
        memcpy(d, head, sizeof head);
    }
    return shifted ? KN_QDOT_ROWS_SHIFTED : KN_QDOT_ROWS_AS_THEY_ARE;
}
/* Depth quad q of a panel's 8 columns (out[0]: columns 0-3, out[1]: 4-7)
 * into the panel's quads: as they are, or as two 7-bit halves, the low
 * ones in the first kq quads and the high bits in the next kq. */
static void store_quad(uint8_t *quads, int64_t q, int64_t kq, int mode, const kd out[2])
{
    if (mode == KN_QDOT_HALVES) {
        kd_store(quads + q * NR * 4, kd_low7(out[0]));
        kd_store(quads + q * NR * 4 + 16, kd_low7(out[1]));
        kd_store(quads + (kq + q) * NR * 4, kd_high1(out[0]));
        kd_store(quads + (kq + q) * NR * 4 + 16, kd_high1(out[1]));
    } else {
        kd_store(quads + q * NR * 4, out[0]);
        kd_store(quads + q * NR * 4 + 16, out[1]);
    }
}


void kn_qgemm_dot_pack_b(int64_t k, int64_t n, const int16_t *packed16, int32_t z, int mode,
                         int sums, void *dst)
{
    int64_t kp = kn_qgemm_pairs(k), kq = kn_qgemm_quads(k);
    uint8_t *d = dst;
    for (int64_t n0 = 0; n0 < n; n0 += NR) {
        const int16_t *src = packed16 + n0 / NR * kp * NR * 2;
        uint8_t *quads = d + B_HEAD;
        kd colsum[2] = {kd_zero(), kd_zero()}, out[2];
        for (int64_t q = 0; q < kq; q++) {
            const int16_t *r0 = src + 2 * q * NR * 2;
            kd_quads_from_pairs(r0, 2 * q + 1 < kp ? r0 + NR * 2 : NULL, (int16_t)z, out,
                                sums ? colsum : NULL);
            store_quad(quads, q, kq, mode, out);
        }
        kd_store(d, colsum[0]);
        kd_store(d + 16, colsum[1]);
        d += B_HEAD + (mode == KN_QDOT_HALVES ? 2 : 1) * kq * NR * 4;
    }
}

size_t kn_qgemm_dot_panel_b_bytes(int64_t k, int mode)
{
    return (size_t)(B_HEAD + (mode == KN_QDOT_HALVES ? 2 : 1) * kn_qgemm_quads(k) * NR * 4);
}

void kn_qgemm_dot_pack_b_rows(int64_t k, const uint8_t *rows, int32_t z, int mode, int sums,
                              void *dst)
{
    int64_t kq = kn_qgemm_quads(k);
    uint8_t *d = dst, *quads = d + B_HEAD;
    int32_t colsum[NR] = {0};
    for (int64_t q = 0; q < kq; q++, rows += 4 * NR) {
        kd out[2];
        kd_quads_from_rows(rows, out);
        store_quad(quads, q, kq, mode, out);
        if (sums)
            for (int r = 0; r < 4; r++)
                for (int j = 0; j < NR; j++)
                    colsum[j] += rows[r * NR + j];
    }
    /* rows past k hold z: every row less z */
    for (int j = 0; j < NR; j++)
        colsum[j] = sums ? colsum[j] - (int32_t)(4 * kq) * z : 0;
    memcpy(d, colsum, sizeof colsum);
}

typedef struct acc8 {
    kd c[MR][2];
} acc8;

/* acc += A panel x B quads, kq of them */
static inline void dot_quads(int64_t kq, const uint8_t *pa, const uint8_t *pb, acc8 *acc)
{
    kd c00 = acc->c[0][0], c01 = acc->c[0][1], c10 = acc->c[1][0], c11 = acc->c[1][1];
    kd c20 = acc->c[2][0], c21 = acc->c[2][1], c30 = acc->c[3][0], c31 = acc->c[3][1];
#define QDOT_STEP                                                                                  \
    do {                                                                                           \
        kd b0 = kd_load(pb), b1 = kd_load(pb + 16);                                                \
        kd a = kd_splat4(pa);                                                                      \
        c00 = kd_dot_add(c00, a, b0);                                                              \
        c01 = kd_dot_add(c01, a, b1);                                                              \
        a = kd_splat4(pa + 4);                                                                     \
        c10 = kd_dot_add(c10, a, b0);                                                              \
        c11 = kd_dot_add(c11, a, b1);                                                              \
        a = kd_splat4(pa + 8);                                                                     \
        c20 = kd_dot_add(c20, a, b0);                                                              \
        c21 = kd_dot_add(c21, a, b1);                                                              \
        a = kd_splat4(pa + 12);                                                                    \
        c30 = kd_dot_add(c30, a, b0);                                                              \
        c31 = kd_dot_add(c31, a, b1);                                                              \
        pa += 4 * MR;                                                                              \
        pb += 4 * NR;                                                                              \
    } while (0)
    /* unrolled by hand, as qgemm.c's: V8 does not unroll */
    int64_t q = 0;
    for (; q + 4 <= kq; q += 4) {
        QDOT_STEP;
        QDOT_STEP;
        QDOT_STEP;
        QDOT_STEP;
    }
    for (; q < kq; q++)
        QDOT_STEP;
#undef QDOT_STEP
    acc->c[0][0] = c00, acc->c[0][1] = c01, acc->c[1][0] = c10, acc->c[1][1] = c11;
    acc->c[2][0] = c20, acc->c[2][1] = c21, acc->c[3][0] = c30, acc->c[3][1] = c31;
}

static void tile_4x8(int64_t kq, const uint8_t *pa, const uint8_t *pb, int32_t z, int mode,
                     int32_t *c, int64_t ldc, int64_t rows, int64_t cols)
{
    acc8 acc;
    for (int r = 0; r < MR; r++)
        acc.c[r][0] = acc.c[r][1] = kd_zero();
    dot_quads(kq, pa + A_HEAD, pb + B_HEAD, &acc);
    if (mode == KN_QDOT_HALVES) {
        /* the high bits' products, then scaled by 128 and added */
        acc8 high;
        for (int r = 0; r < MR; r++)
            high.c[r][0] = high.c[r][1] = kd_zero();
        dot_quads(kq, pa + A_HEAD, pb + B_HEAD + kq * NR * 4, &high);
        for (int r = 0; r < MR; r++)
            for (int h = 0; h < 2; h++)
                acc.c[r][h] = kd_add32(acc.c[r][h], kd_shl32(high.c[r][h], 7));
    }
    /* less z sum(a) per row and t sum(b' - z) per column */
    int32_t head[2 * MR];
    memcpy(head, pa, sizeof head);
    kd colsum[2] = {kd_load(pb), kd_load(pb + 16)};
    int32_t t[MR][NR];
    for (int r = 0; r < MR; r++) {
        kd row = kd_splat32((int32_t)((uint32_t)z * (uint32_t)head[r]));
        kd shift = kd_splat32(head[MR + r]);
        for (int h = 0; h < 2; h++) {
            kd v = kd_sub32(kd_sub32(acc.c[r][h], row), kd_mul32(shift, colsum[h]));
            if (rows == MR && cols == NR)
                kd_store(c + r * ldc + 4 * h, v);
            else
                kd_store(t[r] + 4 * h, v);
        }
    }
    if (rows == MR && cols == NR)
        return;
    for (int64_t r = 0; r < rows; r++)
        memcpy(c + r * ldc, t[r], (size_t)cols * sizeof(int32_t));
}

void kn_qgemm_dot_packed(int64_t m, int64_t n, int64_t k, const void *pa, const void *pb, int32_t z,
                         int mode, int32_t *c, int64_t ldc)
{
    int64_t kq = kn_qgemm_quads(k);
    int64_t a_panel = A_HEAD + kq * MR * 4;
    int64_t b_panel = B_HEAD + (mode == KN_QDOT_HALVES ? 2 : 1) * kq * NR * 4;
    for (int64_t m0 = 0; m0 < m; m0 += MR) {
        const uint8_t *a = (const uint8_t *)pa + m0 / MR * a_panel;
        int64_t rows = m - m0 < MR ? m - m0 : MR;
        for (int64_t n0 = 0; n0 < n; n0 += NR)
            tile_4x8(kq, a, (const uint8_t *)pb + n0 / NR * b_panel, z, mode, c + m0 * ldc + n0,
                     ldc, rows, n - n0 < NR ? n - n0 : NR);
    }
}

const char *kn_qgemm_dot_isa(void) { return KD_NAME; }
