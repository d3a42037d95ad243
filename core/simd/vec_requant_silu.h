/* kiln.QFusedConv's SiLU epilogue (core/cpu/quant/qlinear.c,
 * requant_smooth_row_f32) written with vec.h's kv_fma for WebAssembly,
 * where clang 14 never fuses the C loop's multiply-adds: in the relaxed
 * engine kv_fma is f32x4.relaxed_madd, one vfmadd in V8 on x64, and the
 * loop is bound by the latency of its chain of dependent steps (range
 * reduction, the exp series, the division, the rounding), which eight
 * fused pairs shorten by a multiply's latency each.
 *
 * Same values as the C loop, per element of a row of len accumulators
 * (len a multiple of 4), q as it writes them:
 *
 *   x = (acc + b) step + zq zs
 *   p = clamp(x / ((1 + e^-x) ys), lo, hi), rounded half to even
 *
 * with an element flagged (q = flagged) where p lies within the margin
 * tie + (|t1| + |t2|) margin of a tie, acc + b is not exact in float or
 * x < floor. A fused step rounds once where the C loop rounds twice, so
 * its error is at most the C loop's bound, which the margin was worked
 * out for; flagged elements are redone in double by the caller either
 * way, so both give the reference's result.
 *
 * KQ_SILU_ROW is 1 where this is compiled (WebAssembly SIMD128), else 0
 * and kq_silu_row is never called. */
#ifndef KN_SIMD_VEC_REQUANT_SILU_H
#define KN_SIMD_VEC_REQUANT_SILU_H

#include <stdint.h>

/* The SiLU / requantization loops' constants, shared with the C loops of
 * qlinear.c, which fills one and reads it through a pointer clang cannot
 * follow, so that none is rebuilt inside a loop (qlinear.c says why). */
typedef struct kq_consts {
    float rounder, tie_edge, half, one, f32_exact, smooth_margin, silu_floor, sixth_div;
    float log2e, ln2_hi, ln2_lo, c6, c5, c4, c3, c2;
    int32_t rounder_bits, flagged, exp_bias;
} kq_consts;

/* One row's operands. */
typedef struct kq_silu {
    int32_t bias;
    float step, zs, ys, lo, hi, in_lo, in_hi, margin;
} kq_silu;

#if defined(__wasm_simd128__) && !defined(KN_VEC_I16_PORTABLE)
#define KQ_SILU_ROW 1
#include "core/simd/vec.h"

static inline __attribute__((always_inline)) int kq_silu_row(const kq_consts *restrict k,
                                                             const kq_silu *restrict row, int has_z,
                                                             const int32_t *restrict acc,
                                                             const int32_t *restrict zq,
                                                             int64_t len, int32_t *restrict q)
{
    const v128_t b = wasm_i32x4_splat(row->bias), rbits = wasm_i32x4_splat(k->rounder_bits),
                 flagged = wasm_i32x4_splat(k->flagged), ebias = wasm_i32x4_splat(k->exp_bias);
    const kv step = kv_set1(row->step), zs = kv_set1(row->zs), ys = kv_set1(row->ys),
             lo = kv_set1(row->lo), hi = kv_set1(row->hi), in_lo = kv_set1(row->in_lo),
             in_hi = kv_set1(row->in_hi), tie = kv_set1(k->tie_edge), margin = kv_set1(row->margin),
             half = kv_set1(k->half), one = kv_set1(k->one), exact = kv_set1(k->f32_exact),
             silu_floor = kv_set1(k->silu_floor), rounder = kv_set1(k->rounder),
             log2e = kv_set1(k->log2e), ln2_hi = kv_set1(-k->ln2_hi), ln2_lo = kv_set1(-k->ln2_lo),
             c2 = kv_set1(k->c2), c3 = kv_set1(k->c3), c4 = kv_set1(k->c4), c5 = kv_set1(k->c5),
             c6 = kv_set1(k->c6);
    v128_t bad = wasm_i32x4_splat(0);
    for (int64_t i = 0; i < len; i += 4) {
        kv af = wasm_f32x4_convert_i32x4(wasm_i32x4_add(wasm_v128_load(acc + i), b));
        kv t1 = kv_mul(af, step), x = t1, size = kv_abs(t1);
        if (has_z) {
            kv z = wasm_f32x4_convert_i32x4(wasm_v128_load(zq + i));
            x = kv_fma(z, zs, t1);
            size = kv_add(size, kv_abs(kv_mul(z, zs)));
        }
        /* e^y, y = -x clamped to [-87, 88]: y = n ln2 + r, the series in
         * Estrin's order, 2^n in the exponent bits */
        kv y = wasm_f32x4_pmin(in_hi, wasm_f32x4_pmax(wasm_f32x4_neg(x), in_lo));
        kv t = kv_fma(y, log2e, rounder), n = kv_sub(t, rounder);
        kv r = kv_fma(n, ln2_lo, kv_fma(n, ln2_hi, y));
        kv r2 = kv_mul(r, r), r4 = kv_mul(r2, r2);
        kv high = kv_fma(r2, c6, kv_fma(r, c5, c4));
        kv e = kv_fma(r4, high, kv_fma(r2, kv_fma(r, c3, c2), kv_add(one, r)));
        e = kv_mul(e, wasm_i32x4_add(wasm_i32x4_shl(t, 23), ebias));
        /* SiLU over s_y: x / ((1 + e) s_y) */
        kv p = kv_div(x, kv_fma(e, ys, ys));
        p = wasm_f32x4_pmin(hi, wasm_f32x4_pmax(p, lo));
        kv u = kv_add(p, rounder), d = kv_sub(p, kv_sub(u, rounder));
        v128_t flag = wasm_f32x4_gt(kv_abs(d), kv_sub(half, kv_fma(size, margin, tie)));
        flag = wasm_v128_or(flag, wasm_f32x4_ge(kv_abs(af), exact));
        flag = wasm_v128_or(flag, wasm_f32x4_lt(x, silu_floor));
        bad = wasm_v128_or(bad, flag);
        wasm_v128_store(q + i, wasm_v128_bitselect(flagged, wasm_i32x4_sub(u, rbits), flag));
    }
    return wasm_v128_any_true(bad);
}
#else
#define KQ_SILU_ROW 0
static inline int kq_silu_row(const kq_consts *restrict k, const kq_silu *restrict row, int has_z,
                              const int32_t *restrict acc, const int32_t *restrict zq, int64_t len,
                              int32_t *restrict q)
{
    (void)k, (void)row, (void)has_z, (void)acc, (void)zq, (void)len, (void)q;
    return 0;
}
#endif

#endif
