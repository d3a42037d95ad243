/* Transcendental functions on kv vectors, written once over the vec.h
 * primitives, for the activation and normalisation kernels. Accuracy
 * (float, measured against double libm in tests/test_simd.c):
 *   kv_exp      ~1 ulp; under -87.3 gives 0, over 88.7 gives +inf, NaN stays NaN
 *   kv_sigmoid  ~2 ulp; kv_tanh ~2 ulp (odd polynomial near 0, so small x
 *               keep their relative precision)
 *   kv_erfc_pos relative error < 2e-7 for x >= 0 (Chebyshev fit from
 *               Numerical Recipes' erfcc); kv_erf and kv_gelu_erf build on it
 *               so that the negative tail of Gelu keeps relative precision. */
#ifndef KN_SIMD_VEC_MATH_H
#define KN_SIMD_VEC_MATH_H

#include "core/simd/vec.h"

#ifndef KV_HAS_SCALE2_RECIP
/* Backends without a scale or reciprocal instruction build them here. */
static inline kv kv_scale2(kv p, kv n)
{
    /* 2^n as 2^n1 * 2^(n - n1), n1 within pow2i's range, n - n1 in [-1, 1] */
    kv n1 = kv_min(kv_set1(127.0f), kv_max(kv_set1(-126.0f), n));
    return kv_mul(kv_mul(p, kv_pow2i(n1)), kv_pow2i(kv_sub(n, n1)));
}
static inline kv kv_recip(kv d) { return kv_div(kv_set1(1.0f), d); }
#endif

/* x = n ln2 + r with |r| <= ln2 / 2, for |x| under ~88: returns r and
 * sets *n (ln2 split in two so n * ln2 is exact). Then e^x = 2^n e^r. */
static inline kv kv_ln2_reduce_(kv x, kv *n_out)
{
    kv n = kv_round(kv_mul(x, kv_set1(1.44269504088896341f)));
    kv r = kv_fma(n, kv_set1(-0.693359375f), x);
    *n_out = n;
    return kv_fma(n, kv_set1(2.12194440e-4f), r);
}

static inline kv kv_exp(kv x)
{
    const kv hi = kv_set1(88.72283935546875f), lo = kv_set1(-87.3365447504f);
    kv n, r = kv_ln2_reduce_(kv_min(kv_max(x, lo), hi), &n);
    /* e^r = 1 + r + r^2 P(r), Cephes' expf coefficients */
    kv p = kv_set1(1.9875691500e-4f);
    p = kv_fma(p, r, kv_set1(1.3981999507e-3f));
    p = kv_fma(p, r, kv_set1(8.3334519073e-3f));
    p = kv_fma(p, r, kv_set1(4.1665795894e-2f));
    p = kv_fma(p, r, kv_set1(1.6666665459e-1f));
    p = kv_fma(p, r, kv_set1(5.0000001201e-1f));
    kv y = kv_scale2(kv_fma(kv_mul(p, r), r, kv_add(r, kv_set1(1.0f))), n);
    y = kv_select(kv_lt(x, lo), kv_zero(), y);
    y = kv_select(kv_gt(x, hi), kv_set1(__builtin_inff()), y);
    return kv_select(kv_ne(x, x), x, y);
}

/* 1 / (1 + e^-x), on the hot path of SiLU (EfficientNet runs it on every
 * expanded activation), so lean: -x is clamped to [-87, 88], where e^-x
 * stays finite and the answer is already 1 below and 0 above;
 * NaN passes through the clamp and the arithmetic; e^r is one degree-5
 * polynomial (a Lawson-weighted fit of relative error, 1.9e-7 on
 * |r| <= ln2 / 2 in float) instead of Cephes' form; a reciprocal, not a
 * divide. 19 vector operations in all. */
static inline kv kv_sigmoid(kv x)
{
    kv t = kv_min(kv_set1(88.0f), kv_max(kv_set1(-87.0f), kv_sub(kv_zero(), x)));
    kv n, r = kv_ln2_reduce_(t, &n);
    kv p = kv_set1(0.008297654800117016f);
    p = kv_fma(p, r, kv_set1(0.04191538318991661f));
    p = kv_fma(p, r, kv_set1(0.16667574644088745f));
    p = kv_fma(p, r, kv_set1(0.49998894333839417f));
    p = kv_fma(p, r, kv_set1(0.9999997019767761f));
    p = kv_fma(p, r, kv_set1(1.0000001192092896f));
    kv y = kv_recip(kv_add(kv_set1(1.0f), kv_scale2(p, n)));
    /* exactly 0 past the clamp, as 1 / (1 + e^-x) rounds there: so
     * x * sigmoid(x) at x = -inf is NaN, like the unfused graph */
    return kv_select(kv_lt(x, kv_set1(-88.0f)), kv_zero(), y);
}

static inline kv kv_tanh(kv x)
{
    kv a = kv_abs(x);
    /* |x| >= 0.625: 1 - 2 / (e^2|x| + 1); saturates to 1 past 9 */
    kv e = kv_exp(kv_add(a, a));
    kv big = kv_sub(kv_set1(1.0f), kv_div(kv_set1(2.0f), kv_add(e, kv_set1(1.0f))));
    big = kv_select(kv_gt(a, kv_set1(9.0f)), kv_set1(1.0f), big);
    /* |x| < 0.625: x + x^3 P(x^2), Cephes' tanhf coefficients */
    kv z = kv_mul(x, x);
    kv p = kv_set1(-5.70498872745e-3f);
    p = kv_fma(p, z, kv_set1(2.06390887954e-2f));
    p = kv_fma(p, z, kv_set1(-5.37397155531e-2f));
    p = kv_fma(p, z, kv_set1(1.33314422036e-1f));
    p = kv_fma(p, z, kv_set1(-3.33332819422e-1f));
    kv small = kv_fma(kv_mul(p, z), x, x);
    kv signed_big = kv_select(kv_lt(x, kv_zero()), kv_sub(kv_zero(), big), big);
    kv y = kv_select(kv_lt(a, kv_set1(0.625f)), small, signed_big);
    return kv_select(kv_ne(x, x), x, y);
}

/* erfc(a) for a >= 0. */
static inline kv kv_erfc_pos(kv a)
{
    const kv one = kv_set1(1.0f);
    kv t = kv_div(one, kv_fma(kv_set1(0.5f), a, one));
    kv p = kv_set1(0.17087277f);
    p = kv_fma(p, t, kv_set1(-0.82215223f));
    p = kv_fma(p, t, kv_set1(1.48851587f));
    p = kv_fma(p, t, kv_set1(-1.13520398f));
    p = kv_fma(p, t, kv_set1(0.27886807f));
    p = kv_fma(p, t, kv_set1(-0.18628806f));
    p = kv_fma(p, t, kv_set1(0.09678418f));
    p = kv_fma(p, t, kv_set1(0.37409196f));
    p = kv_fma(p, t, kv_set1(1.00002368f));
    p = kv_fma(p, t, kv_set1(-1.26551223f));
    kv arg = kv_sub(p, kv_mul(a, a));
    return kv_mul(t, kv_exp(arg));
}

static inline kv kv_erf(kv x)
{
    kv a = kv_abs(x);
    /* |x| < 0.5: Taylor series to x^11 (relative error < 1e-7 there), which
     * avoids the cancellation in 1 - erfc(x) near 0 */
    kv z = kv_mul(x, x);
    kv p = kv_set1(-1.0f / 1320.0f);
    p = kv_fma(p, z, kv_set1(1.0f / 216.0f));
    p = kv_fma(p, z, kv_set1(-1.0f / 42.0f));
    p = kv_fma(p, z, kv_set1(1.0f / 10.0f));
    p = kv_fma(p, z, kv_set1(-1.0f / 3.0f));
    p = kv_fma(p, z, kv_set1(1.0f));
    kv small = kv_mul(kv_mul(p, x), kv_set1(1.12837916709551257f));
    kv big = kv_sub(kv_set1(1.0f), kv_erfc_pos(a));
    big = kv_select(kv_lt(x, kv_zero()), kv_sub(kv_zero(), big), big);
    kv y = kv_select(kv_lt(a, kv_set1(0.5f)), small, big);
    return kv_select(kv_ne(x, x), x, y);
}

/* 0.5 x (1 + erf(x / sqrt 2)), with 1 + erf(-u) taken as erfc(u) so the
 * negative tail is not a difference of nearly equal numbers. */
static inline kv kv_gelu_erf(kv x)
{
    kv u = kv_mul(x, kv_set1(0.70710678118654752f));
    kv c = kv_erfc_pos(kv_abs(u));
    kv one_plus = kv_select(kv_lt(u, kv_zero()), c, kv_sub(kv_set1(2.0f), c));
    return kv_mul(kv_mul(kv_set1(0.5f), x), one_plus);
}

#endif
