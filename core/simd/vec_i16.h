/* 128-bit integer vectors for the 8-bit kernels (qgemm.c): int16 pairs
 * multiplied and summed into int32 lanes, the one integer operation their
 * inner loops need. One instance per instruction set below, chosen by the
 * compiler's target (these kernels are built once, for the default target):
 *
 *   WebAssembly SIMD128   i32x4.dot_i16x8_s (no relaxed SIMD)
 *   x86-64 (SSE2, its baseline)   pmaddwd
 *   anything else         4 x int32 lanes in plain C (also where
 *                         KN_VEC_I16_PORTABLE is defined: tests/test_qgemm.c)
 *
 * ki holds 8 int16 or 4 int32 lanes. ki_dot_add(acc, a, b) adds
 * a[2i] b[2i] + a[2i+1] b[2i+1] to int32 lane i of acc; the sum wraps as
 * the hardware's does (operands here are at most 255 in magnitude, so a
 * pair cannot overflow). ki_zip_lo16 / ki_zip_hi16 interleave two vectors'
 * int16 lanes, ki_even16 keeps the even int16 lanes of two (a stride-2
 * gather), ki_even_u8 / ki_even_s8 widen the even bytes of 16 (the same
 * from 8-bit data). */
#ifndef KN_SIMD_VEC_I16_H
#define KN_SIMD_VEC_I16_H

#include <stdint.h>
#include <string.h>

#if defined(__wasm_simd128__) && !defined(KN_VEC_I16_PORTABLE)
#include <wasm_simd128.h>
typedef v128_t ki;
static inline ki ki_zero(void) { return wasm_i32x4_splat(0); }
static inline ki ki_load(const void *p) { return wasm_v128_load(p); }
static inline void ki_store(void *p, ki v) { wasm_v128_store(p, v); }
/* int16 p[0], p[1] in every pair of lanes */
static inline ki ki_splat_pair(const int16_t *p) { return wasm_v128_load32_splat(p); }
static inline ki ki_dot_add(ki acc, ki a, ki b)
{
    return wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(a, b));
}
/* a0 b0 a1 b1 a2 b2 a3 b3 and a4 b4 .. a7 b7 (int16 lanes) */
static inline ki ki_zip_lo16(ki a, ki b)
{
    return wasm_i16x8_shuffle(a, b, 0, 8, 1, 9, 2, 10, 3, 11);
}
static inline ki ki_zip_hi16(ki a, ki b)
{
    return wasm_i16x8_shuffle(a, b, 4, 12, 5, 13, 6, 14, 7, 15);
}
/* a0 a2 a4 a6 b0 b2 b4 b6 (int16 lanes): every other element of 16 */
static inline ki ki_even16(ki a, ki b)
{
    return wasm_i16x8_shuffle(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
}
static inline ki ki_splat16(int16_t v) { return wasm_i16x8_splat(v); }
static inline ki ki_sub16(ki a, ki b) { return wasm_i16x8_sub(a, b); }
/* bytes p[0], p[2], .. p[14] as int16: the low byte of each 16-bit lane,
 * unsigned or signed */
static inline ki ki_even_u8(const void *p)
{
    return wasm_v128_and(wasm_v128_load(p), wasm_i16x8_splat(0xff));
}
static inline ki ki_even_s8(const void *p)
{
    return wasm_i16x8_shr(wasm_i16x8_shl(wasm_v128_load(p), 8), 8);
}
#define KI_NAME "wasm128"
/* the int16 GEMM outruns the float one on exact integers (8 products an
 * instruction against 4 per f32x4 multiply-add) */
#define KI_BEATS_FLOAT 1
#elif defined(__SSE2__) && !defined(KN_VEC_I16_PORTABLE)
#include <emmintrin.h>
typedef __m128i ki;
static inline ki ki_zero(void) { return _mm_setzero_si128(); }
static inline ki ki_load(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline void ki_store(void *p, ki v) { _mm_storeu_si128((__m128i *)p, v); }
static inline ki ki_splat_pair(const int16_t *p)
{
    int32_t v;
    memcpy(&v, p, sizeof v);
    return _mm_set1_epi32(v);
}
static inline ki ki_dot_add(ki acc, ki a, ki b) { return _mm_add_epi32(acc, _mm_madd_epi16(a, b)); }
static inline ki ki_zip_lo16(ki a, ki b) { return _mm_unpacklo_epi16(a, b); }
static inline ki ki_zip_hi16(ki a, ki b) { return _mm_unpackhi_epi16(a, b); }
/* SSE2 has no even-lane shuffle of int16: each even lane sign-extended to
 * int32, then packed back, which saturates nothing */
static inline ki ki_even16(ki a, ki b)
{
    return _mm_packs_epi32(_mm_srai_epi32(_mm_slli_epi32(a, 16), 16),
                           _mm_srai_epi32(_mm_slli_epi32(b, 16), 16));
}
static inline ki ki_splat16(int16_t v) { return _mm_set1_epi16(v); }
static inline ki ki_sub16(ki a, ki b) { return _mm_sub_epi16(a, b); }
static inline ki ki_even_u8(const void *p)
{
    return _mm_and_si128(ki_load(p), _mm_set1_epi16(0xff));
}
static inline ki ki_even_s8(const void *p)
{
    return _mm_srai_epi16(_mm_slli_epi16(ki_load(p), 8), 8);
}
#define KI_NAME "sse2"
/* native x86 floats have AVX2 / AVX-512 FMA: 8-16 products an instruction */
#define KI_BEATS_FLOAT 0
#else
typedef struct ki {
    int16_t h[8];
} ki;
static inline ki ki_zero(void)
{
    ki v;
    memset(&v, 0, sizeof v);
    return v;
}
static inline ki ki_load(const void *p)
{
    ki v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void ki_store(void *p, ki v) { memcpy(p, &v, sizeof v); }
static inline ki ki_splat_pair(const int16_t *p)
{
    ki v;
    for (int i = 0; i < 8; i++)
        v.h[i] = p[i & 1];
    return v;
}
static inline ki ki_dot_add(ki acc, ki a, ki b)
{
    int32_t s[4];
    memcpy(s, acc.h, sizeof s);
    for (int i = 0; i < 4; i++)
        s[i] = (int32_t)((uint32_t)s[i] +
                         (uint32_t)(a.h[2 * i] * b.h[2 * i] + a.h[2 * i + 1] * b.h[2 * i + 1]));
    memcpy(acc.h, s, sizeof s);
    return acc;
}
static inline ki ki_zip_lo16(ki a, ki b)
{
    ki v;
    for (int i = 0; i < 4; i++) {
        v.h[2 * i] = a.h[i];
        v.h[2 * i + 1] = b.h[i];
    }
    return v;
}
static inline ki ki_zip_hi16(ki a, ki b)
{
    ki v;
    for (int i = 0; i < 4; i++) {
        v.h[2 * i] = a.h[4 + i];
        v.h[2 * i + 1] = b.h[4 + i];
    }
    return v;
}
static inline ki ki_even16(ki a, ki b)
{
    ki v;
    for (int i = 0; i < 4; i++) {
        v.h[i] = a.h[2 * i];
        v.h[4 + i] = b.h[2 * i];
    }
    return v;
}
static inline ki ki_splat16(int16_t x)
{
    ki v;
    for (int i = 0; i < 8; i++)
        v.h[i] = x;
    return v;
}
static inline ki ki_sub16(ki a, ki b)
{
    for (int i = 0; i < 8; i++)
        a.h[i] = (int16_t)(a.h[i] - b.h[i]);
    return a;
}
static inline ki ki_even_u8(const void *p)
{
    ki v;
    for (int i = 0; i < 8; i++)
        v.h[i] = ((const uint8_t *)p)[2 * i];
    return v;
}
static inline ki ki_even_s8(const void *p)
{
    ki v;
    for (int i = 0; i < 8; i++)
        v.h[i] = ((const int8_t *)p)[2 * i];
    return v;
}
#define KI_NAME "portable"
#define KI_BEATS_FLOAT 0
#endif

#endif
