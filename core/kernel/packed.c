/* Packing, unpacking and the FLOAT4E2M1 codec (see packed.h). */
#include "core/kernel/packed.h"

#include <math.h>

int32_t kn_packed_unpacked_dtype(int32_t dtype)
{
    switch (dtype) {
    case KN_INT4: case KN_INT2: return KN_INT8;
    case KN_UINT4: case KN_UINT2: return KN_UINT8;
    case KN_FLOAT4E2M1: return KN_FLOAT4E2M1;
    default: return KN_UNDEFINED;
    }
}

void kn_packed_unpack(int32_t dtype, const void *src, int64_t first, int64_t n, uint8_t *dst)
{
    const uint8_t *s = src;
    unsigned bits = (unsigned)kn_dtype_bits(dtype), mask = (1u << bits) - 1;
    int64_t per = 8 / bits;
    /* INT4/INT2: shift the sign bit up to bit 7, then back (arithmetic). */
    int sign_extend = dtype == KN_INT4 || dtype == KN_INT2;
    for (int64_t i = 0; i < n; i++) {
        int64_t e = first + i;
        unsigned v = (s[e / per] >> ((unsigned)(e % per) * bits)) & mask;
        if (sign_extend && (v >> (bits - 1)))
            v |= ~mask & 0xFFu;
        dst[i] = (uint8_t)v;
    }
}

void kn_packed_pack(int32_t dtype, const uint8_t *src, int64_t n, void *dst, int64_t first)
{
    uint8_t *d = dst;
    unsigned bits = (unsigned)kn_dtype_bits(dtype), mask = (1u << bits) - 1;
    int64_t per = 8 / bits;
    for (int64_t i = 0; i < n; i++) {
        int64_t e = first + i;
        unsigned shift = (unsigned)(e % per) * bits;
        d[e / per] = (uint8_t)((d[e / per] & ~(mask << shift)) | ((src[i] & mask) << shift));
    }
}

void kn_packed_clear_tail(int32_t dtype, void *data, int64_t numel)
{
    int64_t per = kn_packed_per_byte(dtype);
    if (per == 1 || numel <= 0 || numel % per == 0)
        return;
    uint8_t *last = (uint8_t *)data + numel / per;
    unsigned used = (unsigned)(numel % per) * (unsigned)kn_dtype_bits(dtype);
    *last = (uint8_t)(*last & ((1u << used) - 1));
}

/* Magnitudes of codes 0..7: exponent field e, mantissa m: e == 0 is the
 * subnormal m * 0.5, otherwise (1 + m / 2) * 2^(e - 1). */
static const float f4_magnitude[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

float kn_f4_to_f32(uint8_t code)
{
    float m = f4_magnitude[code & 7];
    return (code & 8) ? -m : m;
}

uint8_t kn_f64_to_f4(double v)
{
    if (isnan(v))
        return 0x8;
    uint8_t sign = signbit(v) ? 0x8 : 0;
    double a = fabs(v);
    /* Between codes k and k + 1 the midpoint decides; a tie goes to the
     * even code (mantissa bit 0). Past the last midpoint (5): 6. */
    for (uint8_t k = 0; k < 7; k++) {
        double mid = 0.5 * ((double)f4_magnitude[k] + (double)f4_magnitude[k + 1]);
        if (a < mid || (a == mid && (k & 1) == 0))
            return (uint8_t)(sign | k);
    }
    return (uint8_t)(sign | 7);
}
