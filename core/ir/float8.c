/* The ONNX float8 formats: decoding to float and encoding from float or
 * double with rounding to nearest even and the saturate rule of Cast-19.
 * The formats are described in tensor.h. Everything is arithmetic on the
 * value (frexp/ldexp), not bit tricks on a float's encoding, so one routine
 * serves every sign/exponent/mantissa split and a double is rounded once. */
#include "core/ir/tensor.h"

#include <math.h>
#include <string.h>

typedef struct f8_format {
    int man_bits;     /* mantissa bits: 3 or 2 */
    int bias;         /* exponent bias */
    uint8_t max_bits; /* largest finite magnitude (sign clear) */
    int uz;           /* FNUZ: no -0, the only NaN is 0x80, no infinities */
    int has_inf;      /* E5M2: S.11111.00 is +-inf */
} f8_format;

static const f8_format formats[] = {
    [KN_FLOAT8E4M3FN - KN_FLOAT8E4M3FN] = {3, 7, 0x7E, 0, 0},
    [KN_FLOAT8E4M3FNUZ - KN_FLOAT8E4M3FN] = {3, 8, 0x7F, 1, 0},
    [KN_FLOAT8E5M2 - KN_FLOAT8E4M3FN] = {2, 15, 0x7B, 0, 1},
    [KN_FLOAT8E5M2FNUZ - KN_FLOAT8E4M3FN] = {2, 16, 0x7F, 1, 0},
};

static const f8_format *format_of(int32_t dtype)
{
    if (dtype < KN_FLOAT8E4M3FN || dtype > KN_FLOAT8E5M2FNUZ)
        return NULL;
    return &formats[dtype - KN_FLOAT8E4M3FN];
}

int kn_dtype_is_float8(int32_t dtype)
{
    return dtype > 0 && dtype < KN_DTYPE_COUNT && (KN_BIT(dtype) & KN_MASK_FLOAT8) != 0;
}

/* |value| of a byte with the sign bit clear that is not NaN or inf. */
static double magnitude(const f8_format *f, unsigned b)
{
    unsigned e = b >> f->man_bits, m = b & ((1u << f->man_bits) - 1);
    if (e == 0) /* subnormal: m * 2^(1 - bias - M) */
        return ldexp((double)m, 1 - f->bias - f->man_bits);
    return ldexp((double)(m | (1u << f->man_bits)), (int)e - f->bias - f->man_bits);
}

static int is_nan(const f8_format *f, unsigned b)
{
    if (f->uz)
        return b == 0x80;
    if (f->has_inf) /* exponent all ones, mantissa non-zero */
        return (b & 0x7C) == 0x7C && (b & 0x03) != 0;
    return (b & 0x7F) == 0x7F;
}

static float e8m0_to_f32(uint8_t b)
{
    if (b == 0xFF)
        return NAN;
    /* 2^(b-127): a normal float for b >= 1, the subnormal 2^-127 for 0. */
    uint32_t u = b ? (uint32_t)b << 23 : 0x00400000u;
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

float kn_f8_to_f32(int32_t dtype, uint8_t b)
{
    if (dtype == KN_FLOAT8E8M0)
        return e8m0_to_f32(b);
    const f8_format *f = format_of(dtype);
    if (!f || is_nan(f, b))
        return NAN;
    int neg = (b & 0x80) != 0;
    if (f->has_inf && (b & 0x7F) == 0x7C)
        return neg ? -INFINITY : INFINITY;
    float v = (float)magnitude(f, b & 0x7Fu); /* exact: at most 4 significant bits */
    return neg ? -v : v;
}

/* What an out-of-range value becomes (sign: 0 or 0x80). */
static uint8_t overflow(const f8_format *f, uint8_t sign, int saturate)
{
    if (saturate)
        return (uint8_t)(sign | f->max_bits);
    if (f->has_inf)
        return (uint8_t)(sign | 0x7C);
    return f->uz ? 0x80 : (uint8_t)(sign | 0x7F);
}

static uint8_t encode(const f8_format *f, double v, int saturate)
{
    uint8_t sign = signbit(v) ? 0x80 : 0;
    if (isnan(v)) /* E5M2: the quiet NaN S.11111.10, as IEEE narrowing gives */
        return f->uz ? 0x80 : (uint8_t)(sign | (f->has_inf ? 0x7E : 0x7F));
    double a = fabs(v);
    if (isinf(a))
        return overflow(f, sign, saturate);
    /* a in [2^ue, 2^(ue+1)); below the smallest normal the spacing stays
     * that of the subnormals. k counts steps of q = 2^(ue - M): a / q is
     * exact (a power-of-two scaling) and below 2^(M+1). */
    int e2;
    (void)frexp(a, &e2);
    int ue = e2 - 1, emin = 1 - f->bias, one = 1 << f->man_bits;
    if (ue < emin)
        ue = emin;
    double k = ldexp(a, f->man_bits - ue);
    double fl = floor(k);
    uint32_t ki = (uint32_t)fl;
    double rest = k - fl;
    if (rest > 0.5 || (rest == 0.5 && (ki & 1u)))
        ki++;
    if (ki == 0) /* rounds to zero: FNUZ has only +0 */
        return f->uz ? 0 : sign;
    if (ldexp((double)ki, ue - f->man_bits) > magnitude(f, f->max_bits))
        return overflow(f, sign, saturate);
    if (ki < (uint32_t)one) /* subnormal (ue == emin): exponent field 0 */
        return (uint8_t)(sign | ki);
    if (ki == (uint32_t)(2 * one)) { /* rounded up into the next binade */
        ki = (uint32_t)one;
        ue++;
    }
    unsigned field = (unsigned)(ue + f->bias);
    return (uint8_t)(sign | (field << f->man_bits) | (ki - (uint32_t)one));
}

uint8_t kn_f32_to_e8m0(float x, int saturate, int round_mode)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    uint32_t e = (u >> 23) & 0xFF;
    if (e == 0xFF) /* inf and NaN */
        return 0xFF;
    int up = 0;
    if (round_mode == KN_E8M0_ROUND_UP) {
        up = (u & 0x7FFFFF) != 0;
    } else if (round_mode == KN_E8M0_ROUND_NEAREST) {
        /* ONNX's rule: the first fraction bit decides for a normal float
         * (ties, 1.5 * 2^e, go up); a subnormal needs a further bit too. */
        int g = (u & 0x400000) != 0, r = (u & 0x200000) != 0, s = (u & 0x1FFFFF) != 0;
        up = g && (r || s || e > 0);
    }
    if (up && saturate && e == 0xFE)
        up = 0;
    return (uint8_t)(e + (uint32_t)up);
}

uint8_t kn_f64_to_f8(int32_t dtype, double v, int saturate)
{
    if (dtype == KN_FLOAT8E8M0)
        return kn_f32_to_e8m0((float)v, saturate, KN_E8M0_ROUND_UP);
    const f8_format *f = format_of(dtype);
    return f ? encode(f, v, saturate) : 0;
}

uint8_t kn_f32_to_f8(int32_t dtype, float x, int saturate)
{
    return kn_f64_to_f8(dtype, (double)x, saturate);
}
