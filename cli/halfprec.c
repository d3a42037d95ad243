/* float16 / bfloat16 <-> float32 (see halfprec.h). */
#include "halfprec.h"

#include <string.h>

static float bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t float_to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t mant = h & 0x3FFu;
    if (exp == 0x1F) /* inf or NaN: keep the payload's top bits */
        return bits_to_float(sign | 0x7F800000u | (mant << 13));
    if (exp != 0) /* normal: rebias 15 -> 127 */
        return bits_to_float(sign | ((exp + 112) << 23) | (mant << 13));
    if (mant == 0)
        return bits_to_float(sign);
    /* Subnormal half: value is mant * 2^-24, exact in float. */
    float v = (float)mant * (1.0f / 16777216.0f);
    return sign ? -v : v;
}

uint16_t float_to_half(float f)
{
    uint32_t u = float_to_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t exp = (u >> 23) & 0xFFu;
    uint32_t mant = u & 0x7FFFFFu;
    if (exp == 0xFF) /* inf stays inf; any NaN becomes a quiet NaN */
        return (uint16_t)(sign | 0x7C00u | (mant ? 0x200u : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 0x1F)
        return (uint16_t)(sign | 0x7C00u);
    if (e <= 0) {
        /* Subnormal or zero in half: shift the full significand into place
         * and round the dropped bits to nearest even. */
        if (e < -10)
            return sign;
        uint32_t m = mant | 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t half_m = m >> shift;
        uint32_t rest = m & ((1u << shift) - 1);
        uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half_m & 1)))
            half_m++;
        return (uint16_t)(sign | half_m);
    }
    uint32_t h = ((uint32_t)e << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1FFFu;
    /* Rounding may carry into the exponent, which correctly yields the next
     * power of two or infinity. */
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}

float bfloat16_to_float(uint16_t b)
{
    return bits_to_float((uint32_t)b << 16);
}

uint16_t float_to_bfloat16(float f)
{
    uint32_t u = float_to_bits(f);
    if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu))
        return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN, never rounded to inf */
    uint32_t bias = 0x7FFFu + ((u >> 16) & 1u);
    return (uint16_t)((u + bias) >> 16);
}
