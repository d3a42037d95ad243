/* Requantization of 16 int32 accumulators straight to 8-bit outputs, the
 * plain QLinearConv epilogue of the integer kernels (core/cpu/quant):
 *
 *   y[i] = rint(clamp((acc[i] + b) mult, lo, hi)) + zp
 *
 * in float, one vector of 16 bytes stored, with no int32 row written and
 * read back between the product and the bytes. The float product can round
 * differently from the exact one only near a tie (p within a few float
 * steps of k + 1/2) or when acc + b is not exact in float (|.| >= 2^24,
 * tested unless the caller knows it cannot happen); such a group returns
 * nonzero and the caller redoes its 16 elements in double. With the margin
 * the callers use (2^-12 from a tie) that is about one group in a hundred.
 *
 * p + 1.5 2^23 is p rounded to an integer (ties to even) plus the constant
 * for |p| < 2^22, and that integer is the sum's bits less 0x4B400000; the
 * caller's off = zp - 0x4B400000 turns the bits into y directly. lo and hi
 * are the output's range less zp, so the clamped values fit the narrowing
 * packs below without saturating.
 *
 * One instance per instruction set, as in vec_i16.h: WebAssembly SIMD128,
 * x86-64 SSE2, and plain C (also with KN_VEC_I16_PORTABLE). */
#ifndef KN_SIMD_VEC_REQUANT_H
#define KN_SIMD_VEC_REQUANT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define KQ_ROUNDER 0x1.8p23f
#define KQ_ROUNDER_BITS 0x4B400000
#define KQ_F32_EXACT 0x1p24f

/* The loop-invariant operands, set once per row by kq_requant_setup. */
typedef struct kq_requant {
    int32_t bias, off; /* off: zp - KQ_ROUNDER_BITS */
    float mult, lo, hi, tie;
} kq_requant;

static inline kq_requant kq_requant_setup(int32_t bias, float mult, float lo, float hi, int32_t zp,
                                          float tie_margin)
{
    kq_requant r = {
        bias, (int32_t)((uint32_t)zp - (uint32_t)KQ_ROUNDER_BITS), mult, lo, hi, 0.5f - tie_margin};
    return r;
}

#if defined(__wasm_simd128__) && !defined(KN_VEC_I16_PORTABLE)
#include <wasm_simd128.h>

/* 16 results as int32 lanes (y's values, not yet narrowed) in n[0..3];
 * returns the lanes to redo as a mask. */
static inline __attribute__((always_inline)) v128_t
kq_requant16_lanes(const kq_requant *r, int exact, const int32_t *acc, v128_t n[4])
{
    const v128_t b = wasm_i32x4_splat(r->bias), off = wasm_i32x4_splat(r->off);
    const v128_t m = wasm_f32x4_splat(r->mult), lo = wasm_f32x4_splat(r->lo),
                 hi = wasm_f32x4_splat(r->hi), tie = wasm_f32x4_splat(r->tie),
                 k = wasm_f32x4_splat(KQ_ROUNDER);
    v128_t redo = wasm_i32x4_splat(0);
    for (int v = 0; v < 4; v++) {
        v128_t af = wasm_f32x4_convert_i32x4(wasm_i32x4_add(wasm_v128_load(acc + 4 * v), b));
        /* pmax(x, lo) = x < lo ? lo : x, pmin(hi, x) = x < hi ? x : hi:
         * one instruction each, where min/max order NaN and -0 */
        v128_t p = wasm_f32x4_pmin(hi, wasm_f32x4_pmax(wasm_f32x4_mul(af, m), lo));
        v128_t t = wasm_f32x4_add(p, k);
        v128_t d = wasm_f32x4_sub(p, wasm_f32x4_sub(t, k));
        redo = wasm_v128_or(redo, wasm_f32x4_gt(wasm_f32x4_abs(d), tie));
        if (exact)
            redo = wasm_v128_or(redo,
                                wasm_f32x4_ge(wasm_f32x4_abs(af), wasm_f32x4_splat(KQ_F32_EXACT)));
        n[v] = wasm_i32x4_add(t, off);
    }
    return redo;
}

/* y: unsigned bytes for u8, else signed (both saturating packs) */
static inline __attribute__((always_inline)) int kq_requant16(const kq_requant *r, int exact,
                                                              int u8, const int32_t *acc, void *y)
{
    v128_t n[4];
    v128_t redo = kq_requant16_lanes(r, exact, acc, n);
    v128_t lo = wasm_i16x8_narrow_i32x4(n[0], n[1]), hi = wasm_i16x8_narrow_i32x4(n[2], n[3]);
    wasm_v128_store(y, u8 ? wasm_u8x16_narrow_i16x8(lo, hi) : wasm_i8x16_narrow_i16x8(lo, hi));
    return wasm_v128_any_true(redo);
}

#elif defined(__SSE2__) && !defined(KN_VEC_I16_PORTABLE)
#include <emmintrin.h>

static inline __attribute__((always_inline)) __m128
kq_requant16_lanes(const kq_requant *r, int exact, const int32_t *acc, __m128i n[4])
{
    const __m128i b = _mm_set1_epi32(r->bias), off = _mm_set1_epi32(r->off);
    const __m128 m = _mm_set1_ps(r->mult), lo = _mm_set1_ps(r->lo), hi = _mm_set1_ps(r->hi),
                 tie = _mm_set1_ps(r->tie), k = _mm_set1_ps(KQ_ROUNDER),
                 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    __m128 redo = _mm_setzero_ps();
    for (int v = 0; v < 4; v++) {
        __m128i a = _mm_add_epi32(_mm_loadu_si128((const __m128i *)(acc + 4 * v)), b);
        __m128 af = _mm_cvtepi32_ps(a);
        __m128 p = _mm_min_ps(_mm_max_ps(_mm_mul_ps(af, m), lo), hi);
        __m128 t = _mm_add_ps(p, k);
        __m128 d = _mm_sub_ps(p, _mm_sub_ps(t, k));
        redo = _mm_or_ps(redo, _mm_cmpgt_ps(_mm_and_ps(d, abs_mask), tie));
        if (exact)
            redo =
                _mm_or_ps(redo, _mm_cmpge_ps(_mm_and_ps(af, abs_mask), _mm_set1_ps(KQ_F32_EXACT)));
        n[v] = _mm_add_epi32(_mm_castps_si128(t), off);
    }
    return redo;
}

static inline __attribute__((always_inline)) int kq_requant16(const kq_requant *r, int exact,
                                                              int u8, const int32_t *acc, void *y)
{
    __m128i n[4];
    __m128 redo = kq_requant16_lanes(r, exact, acc, n);
    __m128i lo = _mm_packs_epi32(n[0], n[1]), hi = _mm_packs_epi32(n[2], n[3]);
    _mm_storeu_si128((__m128i *)y, u8 ? _mm_packus_epi16(lo, hi) : _mm_packs_epi16(lo, hi));
    return _mm_movemask_ps(redo);
}

#else
/* One element as the vector lanes do it; returns whether to redo it. */
static inline int kq_requant1(const kq_requant *r, int exact, int32_t acc, int32_t *y)
{
    float af = (float)(int32_t)((uint32_t)acc + (uint32_t)r->bias);
    float p = af * r->mult;
    p = p < r->lo ? r->lo : p;
    p = p < r->hi ? p : r->hi;
    float t = p + KQ_ROUNDER;
    int32_t bits;
    memcpy(&bits, &t, sizeof bits);
    *y = (int32_t)((uint32_t)bits + (uint32_t)r->off);
    return fabsf(p - (t - KQ_ROUNDER)) > r->tie || (exact && fabsf(af) >= KQ_F32_EXACT);
}

static inline int kq_requant16(const kq_requant *r, int exact, int u8, const int32_t *acc, void *y)
{
    int redo = 0;
    for (int i = 0; i < 16; i++) {
        int32_t v;
        redo |= kq_requant1(r, exact, acc[i], &v);
        if (u8)
            ((uint8_t *)y)[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        else
            ((int8_t *)y)[i] = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
    }
    return redo;
}
#endif

#endif
