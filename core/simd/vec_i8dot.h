/* 128-bit byte vectors for the 8-bit dot-product GEMM (qgemm_dot.c): one
 * instruction that adds, to each int32 lane, four products of a signed
 * byte of its first operand and a byte of its second.
 *
 *   WebAssembly with -mrelaxed-simd   i32x4.relaxed_dot_i8x16_i7x16_add_s.
 *       Exact when the second operand's bytes are within [0, 127]; above
 *       that the engine chooses (V8 on x64 with AVX-VNNI reads them as
 *       unsigned: vpdpbusd; without it pmaddubsw saturates each pair's sum
 *       to int16; ARM's sdot reads them as signed), which qgemm_dot.c
 *       probes at start. Emscripten 3.1.6's LLVM 14 has no builtin for it:
 *       it is written as the draft f64x2.fms, which Kiln uses nowhere else
 *       and which has the same operand and result types (three v128 in,
 *       one out), and wasm/postlink/standard_relaxed_opcodes.mjs gives the
 *       linked module the standard opcode. Operands in the standard's order.
 *   anything else   plain C, whose reading of bytes above 127 is chosen by
 *       kd_portable_reading (tests/test_qgemm.c checks the kernel under all
 *       three readings).
 *
 * kd holds 16 bytes or 4 int32 lanes. */
#ifndef KN_SIMD_VEC_I8DOT_H
#define KN_SIMD_VEC_I8DOT_H

#include <stdint.h>
#include <string.h>

#if defined(__wasm_relaxed_simd__) && !defined(KN_VEC_I8DOT_PORTABLE)
#include <wasm_simd128.h>
#define KD_HAS_DOT 1 /* a real instruction, to be probed */
typedef v128_t kd;
typedef double kd_f64x2 __attribute__((__vector_size__(16)));
static inline kd kd_zero(void) { return wasm_i32x4_splat(0); }
static inline kd kd_load(const void *p) { return wasm_v128_load(p); }
static inline void kd_store(void *p, kd v) { wasm_v128_store(p, v); }
/* the 4 bytes at p in every int32 lane */
static inline kd kd_splat4(const void *p) { return wasm_v128_load32_splat(p); }
static inline kd kd_dot_add(kd acc, kd a, kd b)
{
    /* the placeholder the post-link step rewrites to the i8 dot (see above) */
    return (kd)__builtin_wasm_fms_f64x2((kd_f64x2)a, (kd_f64x2)b, (kd_f64x2)acc);
}
static inline kd kd_splat32(int32_t v) { return wasm_i32x4_splat(v); }
static inline kd kd_add32(kd a, kd b) { return wasm_i32x4_add(a, b); }
static inline kd kd_sub32(kd a, kd b) { return wasm_i32x4_sub(a, b); }
static inline kd kd_mul32(kd a, kd b) { return wasm_i32x4_mul(a, b); }
static inline kd kd_shl32(kd a, int n) { return wasm_i32x4_shl(a, n); }
/* bytes & 127 and bytes >> 7 */
static inline kd kd_low7(kd a) { return wasm_v128_and(a, wasm_i8x16_splat(0x7f)); }
static inline kd kd_high1(kd a) { return wasm_u8x16_shr(a, 7); }
/* Two rows of a packed int16 GEMM panel (qgemm.c: 8 columns x a depth
 * pair each, 16 values), plus z, as one depth quad of bytes per column:
 * out[0] columns 0-3, out[1] columns 4-7; sums[0..1] (int32 per column),
 * unless NULL, gain the rows' values themselves (4 values within +-255
 * summed in int16 first: no overflow). Values plus z must lie in [0, 255]. */
static inline void kd_quads_from_pairs(const int16_t *r0, const int16_t *r1, int16_t z, kd out[2],
                                       kd sums[2])
{
    v128_t zv = wasm_i16x8_splat(z), one = wasm_i16x8_splat(1);
    v128_t x0 = wasm_v128_load(r0), x1 = wasm_v128_load(r0 + 8);
    v128_t y0 = r1 ? wasm_v128_load(r1) : wasm_i16x8_splat(0);
    v128_t y1 = r1 ? wasm_v128_load(r1 + 8) : wasm_i16x8_splat(0);
    if (sums) {
        sums[0] = wasm_i32x4_add(sums[0], wasm_i32x4_dot_i16x8(wasm_i16x8_add(x0, y0), one));
        sums[1] = wasm_i32x4_add(sums[1], wasm_i32x4_dot_i16x8(wasm_i16x8_add(x1, y1), one));
    }
    v128_t n0 = wasm_u8x16_narrow_i16x8(wasm_i16x8_add(x0, zv), wasm_i16x8_add(x1, zv));
    v128_t n1 = wasm_u8x16_narrow_i16x8(wasm_i16x8_add(y0, zv), wasm_i16x8_add(y1, zv));
    out[0] = wasm_i16x8_shuffle(n0, n1, 0, 8, 1, 9, 2, 10, 3, 11);
    out[1] = wasm_i16x8_shuffle(n0, n1, 4, 12, 5, 13, 6, 14, 7, 15);
}
/* Four rows of 8 bytes (rows[8 q + j]: row q, column j) as one depth quad
 * per column: out[0] columns 0-3, out[1] columns 4-7. */
static inline void kd_quads_from_rows(const uint8_t *rows, kd out[2])
{
    v128_t r01 = wasm_v128_load(rows), r23 = wasm_v128_load(rows + 16);
    out[0] = wasm_i8x16_shuffle(r01, r23, 0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27);
    out[1] =
        wasm_i8x16_shuffle(r01, r23, 4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31);
}
#define KD_NAME "wasm-relaxed-dot"
#else
#define KD_HAS_DOT 0
typedef struct kd {
    uint8_t b[16];
} kd;
/* How the plain-C dot reads second-operand bytes above 127: the three
 * behaviours engines have (see above). */
enum { KD_READ_UNSIGNED, KD_READ_SATURATED_PAIRS, KD_READ_SIGNED };
extern int kd_portable_reading;
static inline kd kd_zero(void)
{
    kd v;
    memset(&v, 0, sizeof v);
    return v;
}
static inline kd kd_load(const void *p)
{
    kd v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void kd_store(void *p, kd v) { memcpy(p, &v, sizeof v); }
static inline kd kd_splat4(const void *p)
{
    kd v;
    for (int i = 0; i < 16; i++)
        v.b[i] = ((const uint8_t *)p)[i & 3];
    return v;
}
static inline void kd_lanes(kd v, int32_t l[4]) { memcpy(l, v.b, 16); }
static inline kd kd_from_lanes(const int32_t l[4])
{
    kd v;
    memcpy(v.b, l, 16);
    return v;
}
static inline kd kd_dot_add(kd acc, kd a, kd b)
{
    int32_t l[4];
    kd_lanes(acc, l);
    for (int i = 0; i < 4; i++) {
        int32_t s = 0;
        for (int p = 0; p < 2; p++) {
            int32_t pair = 0;
            for (int q = 0; q < 2; q++) {
                int j = 4 * i + 2 * p + q;
                int32_t x = b.b[j];
                if (kd_portable_reading == KD_READ_SIGNED && x > 127)
                    x -= 256;
                pair += (int8_t)a.b[j] * x;
            }
            if (kd_portable_reading == KD_READ_SATURATED_PAIRS)
                pair = pair > 32767 ? 32767 : pair < -32768 ? -32768 : pair;
            s += pair;
        }
        l[i] = (int32_t)((uint32_t)l[i] + (uint32_t)s);
    }
    return kd_from_lanes(l);
}
static inline kd kd_splat32(int32_t v)
{
    int32_t l[4] = {v, v, v, v};
    return kd_from_lanes(l);
}
#define KD_LANEWISE(NAME, EXPR)                                                                    \
    static inline kd NAME(kd a, kd b)                                                              \
    {                                                                                              \
        int32_t x[4], y[4];                                                                        \
        kd_lanes(a, x);                                                                            \
        kd_lanes(b, y);                                                                            \
        for (int i = 0; i < 4; i++)                                                                \
            x[i] = (int32_t)(EXPR);                                                                \
        return kd_from_lanes(x);                                                                   \
    }
KD_LANEWISE(kd_add32, (uint32_t)x[i] + (uint32_t)y[i])
KD_LANEWISE(kd_sub32, (uint32_t)x[i] - (uint32_t)y[i])
KD_LANEWISE(kd_mul32, (uint32_t)x[i] * (uint32_t)y[i])
#undef KD_LANEWISE
static inline kd kd_shl32(kd a, int n)
{
    int32_t x[4];
    kd_lanes(a, x);
    for (int i = 0; i < 4; i++)
        x[i] = (int32_t)((uint32_t)x[i] << n);
    return kd_from_lanes(x);
}
static inline kd kd_low7(kd a)
{
    for (int i = 0; i < 16; i++)
        a.b[i] &= 0x7f;
    return a;
}
static inline kd kd_high1(kd a)
{
    for (int i = 0; i < 16; i++)
        a.b[i] >>= 7;
    return a;
}
static inline void kd_quads_from_pairs(const int16_t *r0, const int16_t *r1, int16_t z, kd out[2],
                                       kd sums[2])
{
    int32_t s[8] = {0};
    if (sums) {
        kd_lanes(sums[0], s);
        kd_lanes(sums[1], s + 4);
    }
    for (int j = 0; j < 8; j++) {
        int16_t v[4] = {r0[2 * j], r0[2 * j + 1], r1 ? r1[2 * j] : 0, r1 ? r1[2 * j + 1] : 0};
        for (int q = 0; q < 4; q++) {
            s[j] += v[q];
            out[j / 4].b[4 * (j % 4) + q] = (uint8_t)(v[q] + z);
        }
    }
    if (sums) {
        sums[0] = kd_from_lanes(s);
        sums[1] = kd_from_lanes(s + 4);
    }
}
static inline void kd_quads_from_rows(const uint8_t *rows, kd out[2])
{
    for (int j = 0; j < 8; j++)
        for (int q = 0; q < 4; q++)
            out[j / 4].b[4 * (j % 4) + q] = rows[8 * q + j];
}
#define KD_NAME "portable"
#endif

#endif
