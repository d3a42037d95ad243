/* The float8 element types (core/ir/float8.c), Cast/CastLike to and from them
 * (core/cpu/elementwise/cast.c through kn_convert_cast), the ONNX reader and the public
 * API. Expected values come from the format definitions written out here
 * (sign, exponent bias, subnormals, NaN and inf encodings), not from the code
 * under test:
 *   E4M3FN   S.EEEE.MMM  bias 7   max 448    NaN S.1111.111, no inf
 *   E4M3FNUZ S.EEEE.MMM  bias 8   max 240    NaN 0x80 only, no -0, no inf
 *   E5M2     S.EEEEE.MM  bias 15  max 57344  inf S.11111.00, NaN S.11111.{01,10,11}
 *   E5M2FNUZ S.EEEEE.MM  bias 16  max 57344  NaN 0x80 only, no -0, no inf
 *   E8M0     EEEEEEEE    bias 127 2^(E-127), 0xFF NaN, no sign, no zero */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_checks.h"
#include "kiln.h"
#include "core/onnx/onnx.h"
#include "core/base/bump_alloc.h"

enum { FN, UZ, IEEE }; /* how a format spells NaN and inf */

typedef struct fmt {
    int32_t dtype;
    const char *name;
    int man, bias; /* mantissa bits, exponent bias */
    int kind;
    double max;
    uint8_t max_byte;
} fmt;

static const fmt FMTS[] = {
    {KN_FLOAT8E4M3FN, "E4M3FN", 3, 7, FN, 448, 0x7E},
    {KN_FLOAT8E4M3FNUZ, "E4M3FNUZ", 3, 8, UZ, 240, 0x7F},
    {KN_FLOAT8E5M2, "E5M2", 2, 15, IEEE, 57344, 0x7B},
    {KN_FLOAT8E5M2FNUZ, "E5M2FNUZ", 2, 16, UZ, 57344, 0x7F},
};
#define N_FMTS 4

/* The value of byte b from the definition: (-1)^S * 2^(E-bias) * 1.M for
 * E > 0, (-1)^S * 2^(1-bias) * 0.M for E = 0. 0 for NaN, else 1 and *v. */
static int ref_value(const fmt *f, unsigned b, double *v)
{
    unsigned s = b >> 7, e = (b & 0x7Fu) >> f->man, m = b & ((1u << f->man) - 1);
    unsigned e_ones = (1u << (7 - f->man)) - 1, m_ones = (1u << f->man) - 1;
    if (f->kind == UZ && b == 0x80)
        return 0;
    if (f->kind == FN && e == e_ones && m == m_ones)
        return 0;
    if (f->kind == IEEE && e == e_ones) {
        if (m)
            return 0;
        *v = s ? -INFINITY : INFINITY;
        return 1;
    }
    double frac = (double)m / (double)(1u << f->man);
    double mag = e ? pow(2.0, (double)e - f->bias) * (1.0 + frac) : pow(2.0, 1.0 - f->bias) * frac;
    *v = s ? -mag : mag;
    return 1;
}

static int same_value(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

/* ---- decoding: all 256 bytes of each format ----------------------------- */

TestSuite(float8_decode);

Test(float8_decode, every_byte_matches_the_definition)
{
    for (int k = 0; k < N_FMTS; k++) {
        const fmt *f = &FMTS[k];
        int nans = 0, infs = 0;
        double biggest = 0;
        for (unsigned b = 0; b < 256; b++) {
            double want;
            int finite_or_inf = ref_value(f, b, &want);
            float got = kn_f8_to_f32(f->dtype, (uint8_t)b);
            if (!finite_or_inf) {
                nans++;
                cr_assert(isnan(got), "%s 0x%02x = %g, expected NaN", f->name, b, got);
                continue;
            }
            cr_assert(same_value(got, want), "%s 0x%02x = %.9g, expected %.9g", f->name, b, got,
                      want);
            if (isinf(want))
                infs++;
            else if (fabs(want) > biggest)
                biggest = fabs(want);
        }
        cr_assert_eq(nans, f->kind == UZ ? 1 : f->kind == FN ? 2 : 6, "%s: %d NaNs", f->name,
                     nans);
        cr_assert_eq(infs, f->kind == IEEE ? 2 : 0, "%s: %d infinities", f->name, infs);
        cr_assert_eq(biggest, f->max, "%s: max %g", f->name, biggest);
        cr_assert_eq(kn_f8_to_f32(f->dtype, f->max_byte), (float)f->max);
        cr_assert_eq(kn_f8_to_f32(f->dtype, (uint8_t)(0x80 | f->max_byte)), (float)-f->max);
    }
}

Test(float8_decode, known_values)
{
    static const struct {
        int32_t dt;
        uint8_t b;
        double v;
    } cases[] = {
        {KN_FLOAT8E4M3FN, 0x38, 1.0},       {KN_FLOAT8E4M3FN, 0xB8, -1.0},
        {KN_FLOAT8E4M3FN, 0x01, 0x1p-9},    {KN_FLOAT8E4M3FN, 0x07, 7 * 0x1p-9},
        {KN_FLOAT8E4M3FN, 0x08, 0x1p-6},    {KN_FLOAT8E4M3FN, 0x7E, 448},
        {KN_FLOAT8E4M3FN, 0x78, 256},       {KN_FLOAT8E4M3FN, 0x3C, 1.5},
        {KN_FLOAT8E4M3FNUZ, 0x40, 1.0},     {KN_FLOAT8E4M3FNUZ, 0x01, 0x1p-10},
        {KN_FLOAT8E4M3FNUZ, 0x7F, 240},     {KN_FLOAT8E4M3FNUZ, 0xFF, -240},
        {KN_FLOAT8E4M3FNUZ, 0x08, 0x1p-7},  {KN_FLOAT8E5M2, 0x3C, 1.0},
        {KN_FLOAT8E5M2, 0x01, 0x1p-16},     {KN_FLOAT8E5M2, 0x04, 0x1p-14},
        {KN_FLOAT8E5M2, 0x7B, 57344},       {KN_FLOAT8E5M2, 0x7C, INFINITY},
        {KN_FLOAT8E5M2, 0xFC, -INFINITY},   {KN_FLOAT8E5M2, 0xC0, -2.0},
        {KN_FLOAT8E5M2FNUZ, 0x40, 1.0},     {KN_FLOAT8E5M2FNUZ, 0x01, 0x1p-17},
        {KN_FLOAT8E5M2FNUZ, 0x7F, 57344},   {KN_FLOAT8E5M2FNUZ, 0x7C, 32768},
        {KN_FLOAT8E8M0, 0x7F, 1.0},         {KN_FLOAT8E8M0, 0x80, 2.0},
        {KN_FLOAT8E8M0, 0x00, 0x1p-127},    {KN_FLOAT8E8M0, 0xFE, 0x1p127},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert(same_value(kn_f8_to_f32(cases[i].dt, cases[i].b), cases[i].v),
                  "%s 0x%02x = %g, expected %g", kn_dtype_name(cases[i].dt), cases[i].b,
                  kn_f8_to_f32(cases[i].dt, cases[i].b), cases[i].v);
    /* NaN encodings, and the zero that is negative only where -0 exists */
    const uint8_t e4_nan[] = {0x7F, 0xFF}, e5_nan[] = {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF};
    for (int i = 0; i < 2; i++)
        cr_assert(isnan(kn_f8_to_f32(KN_FLOAT8E4M3FN, e4_nan[i])));
    for (int i = 0; i < 6; i++)
        cr_assert(isnan(kn_f8_to_f32(KN_FLOAT8E5M2, e5_nan[i])));
    cr_assert(isnan(kn_f8_to_f32(KN_FLOAT8E4M3FNUZ, 0x80)));
    cr_assert(isnan(kn_f8_to_f32(KN_FLOAT8E5M2FNUZ, 0x80)));
    cr_assert(isnan(kn_f8_to_f32(KN_FLOAT8E8M0, 0xFF)));
    cr_assert(signbit(kn_f8_to_f32(KN_FLOAT8E4M3FN, 0x80)) && kn_f8_to_f32(KN_FLOAT8E4M3FN, 0x80) == 0);
    cr_assert(signbit(kn_f8_to_f32(KN_FLOAT8E5M2, 0x80)) && kn_f8_to_f32(KN_FLOAT8E5M2, 0x80) == 0);
    cr_assert(isnan(kn_f8_to_f32(KN_FLOAT, 0x38)), "not a float8 dtype: NaN");
}

Test(float8_decode, e8m0_every_byte)
{
    for (unsigned b = 0; b < 256; b++) {
        float got = kn_f8_to_f32(KN_FLOAT8E8M0, (uint8_t)b);
        if (b == 0xFF)
            cr_assert(isnan(got));
        else
            cr_assert_eq((double)got, pow(2.0, (double)b - 127), "0x%02x = %g", b, got);
    }
}

/* ---- encoding ----------------------------------------------------------- */

TestSuite(float8_encode);

Test(float8_encode, every_finite_value_round_trips)
{
    for (int k = 0; k < N_FMTS; k++) {
        const fmt *f = &FMTS[k];
        for (unsigned b = 0; b < 256; b++) {
            double v;
            if (!ref_value(f, b, &v) || isinf(v))
                continue;
            for (int sat = 0; sat < 2; sat++) {
                cr_assert_eq(kn_f32_to_f8(f->dtype, (float)v, sat), b, "%s 0x%02x (%g) sat %d -> 0x%02x",
                             f->name, b, v, sat, kn_f32_to_f8(f->dtype, (float)v, sat));
                cr_assert_eq(kn_f64_to_f8(f->dtype, v, sat), b, "%s 0x%02x from double", f->name, b);
            }
        }
    }
    /* E5M2's infinities survive only without saturation */
    cr_assert_eq(kn_f32_to_f8(KN_FLOAT8E5M2, INFINITY, 0), 0x7C);
    cr_assert_eq(kn_f32_to_f8(KN_FLOAT8E5M2, -INFINITY, 0), 0xFC);
    /* NaN stays NaN in every format */
    for (int k = 0; k < N_FMTS; k++)
        for (int sat = 0; sat < 2; sat++) {
            cr_assert(isnan(kn_f8_to_f32(FMTS[k].dtype, kn_f32_to_f8(FMTS[k].dtype, NAN, sat))));
            cr_assert(isnan(kn_f8_to_f32(FMTS[k].dtype, kn_f32_to_f8(FMTS[k].dtype, -NAN, sat))));
        }
    cr_assert_eq(kn_f32_to_f8(KN_FLOAT8E4M3FNUZ, NAN, 1), 0x80);
    cr_assert_eq(kn_f32_to_f8(KN_FLOAT8E5M2FNUZ, -NAN, 0), 0x80);
    cr_assert_eq(kn_f32_to_f8(KN_FLOAT, 1.0f, 1), 0, "not a float8 dtype: 0");
}

/* Halfway between two neighbours goes to the one with an even last bit
 * (the byte's low bit is the mantissa's); a hair off halfway decides. */
Test(float8_encode, ties_to_even)
{
    for (int k = 0; k < N_FMTS; k++) {
        const fmt *f = &FMTS[k];
        for (unsigned b = 0; b < f->max_byte; b++) {
            double lo, hi;
            cr_assert(ref_value(f, b, &lo) && ref_value(f, b + 1, &hi));
            float mid = (float)((lo + hi) / 2); /* exact: at most 5 significant bits */
            cr_assert_eq((double)mid, (lo + hi) / 2);
            unsigned even = (b & 1) ? b + 1 : b;
            for (int sat = 0; sat < 2; sat++) {
                cr_assert_eq(kn_f32_to_f8(f->dtype, mid, sat), even, "%s: %g between 0x%02x and 0x%02x",
                             f->name, mid, b, b + 1);
                cr_assert_eq(kn_f32_to_f8(f->dtype, nextafterf(mid, INFINITY), sat), b + 1);
                cr_assert_eq(kn_f32_to_f8(f->dtype, nextafterf(mid, 0), sat), b);
                /* negative: the mirror image, except a zero result is +0 in FNUZ */
                unsigned neg_even = even == 0 && f->kind == UZ ? 0 : (0x80 | even);
                cr_assert_eq(kn_f32_to_f8(f->dtype, -mid, sat), neg_even, "%s: %g", f->name, -mid);
                cr_assert_eq(kn_f32_to_f8(f->dtype, -nextafterf(mid, INFINITY), sat), 0x80 | (b + 1));
                cr_assert_eq(kn_f64_to_f8(f->dtype, (double)mid, sat), even);
            }
        }
    }
    /* a double just above a tie rounds up; through float it would be the tie */
    double d = 1.0625 + 0x1p-40; /* between 1.0 (0x38) and 1.125 (0x39) */
    cr_assert_eq(kn_f64_to_f8(KN_FLOAT8E4M3FN, d, 1), 0x39);
    cr_assert_eq(kn_f32_to_f8(KN_FLOAT8E4M3FN, (float)d, 1), 0x38);
}

typedef struct extreme {
    int32_t dt;
    float x;
    uint8_t sat, nosat;
} extreme;

Test(float8_encode, saturate_at_the_extremes)
{
    const float big = 1e9f, tiny = 1e-30f;
    const extreme cases[] = {
        /* E4M3FN: 464 is halfway from 448 to the (NaN) 480 slot: even is 448 */
        {KN_FLOAT8E4M3FN, 448, 0x7E, 0x7E},
        {KN_FLOAT8E4M3FN, 464, 0x7E, 0x7E},
        {KN_FLOAT8E4M3FN, 464.0001f, 0x7E, 0x7F},
        {KN_FLOAT8E4M3FN, -464.0001f, 0xFE, 0xFF},
        {KN_FLOAT8E4M3FN, big, 0x7E, 0x7F},
        {KN_FLOAT8E4M3FN, -big, 0xFE, 0xFF},
        {KN_FLOAT8E4M3FN, INFINITY, 0x7E, 0x7F},
        {KN_FLOAT8E4M3FN, -INFINITY, 0xFE, 0xFF},
        {KN_FLOAT8E4M3FN, -0.0f, 0x80, 0x80},
        {KN_FLOAT8E4M3FN, -tiny, 0x80, 0x80},
        {KN_FLOAT8E4M3FN, 0x1p-10f, 0x00, 0x00}, /* half the smallest subnormal: tie to 0 */
        {KN_FLOAT8E4M3FN, 0x1.8p-10f, 0x01, 0x01},
        /* E4M3FNUZ: 248 is halfway from 240 (odd mantissa) to 256: up, overflow */
        {KN_FLOAT8E4M3FNUZ, 240, 0x7F, 0x7F},
        {KN_FLOAT8E4M3FNUZ, 247.9f, 0x7F, 0x7F},
        {KN_FLOAT8E4M3FNUZ, 248, 0x7F, 0x80},
        {KN_FLOAT8E4M3FNUZ, -248, 0xFF, 0x80},
        {KN_FLOAT8E4M3FNUZ, INFINITY, 0x7F, 0x80},
        {KN_FLOAT8E4M3FNUZ, -INFINITY, 0xFF, 0x80},
        {KN_FLOAT8E4M3FNUZ, -0.0f, 0x00, 0x00},
        {KN_FLOAT8E4M3FNUZ, -tiny, 0x00, 0x00},
        /* E5M2: 61440 is halfway from 57344 (odd mantissa) to inf: up */
        {KN_FLOAT8E5M2, 57344, 0x7B, 0x7B},
        {KN_FLOAT8E5M2, 61439, 0x7B, 0x7B},
        {KN_FLOAT8E5M2, 61440, 0x7B, 0x7C},
        {KN_FLOAT8E5M2, -61440, 0xFB, 0xFC},
        {KN_FLOAT8E5M2, big, 0x7B, 0x7C},
        {KN_FLOAT8E5M2, INFINITY, 0x7B, 0x7C},
        {KN_FLOAT8E5M2, -INFINITY, 0xFB, 0xFC},
        {KN_FLOAT8E5M2, -0.0f, 0x80, 0x80},
        {KN_FLOAT8E5M2, 0x1p-17f, 0x00, 0x00},
        /* E5M2FNUZ */
        {KN_FLOAT8E5M2FNUZ, 61439, 0x7F, 0x7F},
        {KN_FLOAT8E5M2FNUZ, 61440, 0x7F, 0x80},
        {KN_FLOAT8E5M2FNUZ, -big, 0xFF, 0x80},
        {KN_FLOAT8E5M2FNUZ, INFINITY, 0x7F, 0x80},
        {KN_FLOAT8E5M2FNUZ, -INFINITY, 0xFF, 0x80},
        {KN_FLOAT8E5M2FNUZ, -0.0f, 0x00, 0x00},
        {KN_FLOAT8E5M2FNUZ, -0x1p-18f, 0x00, 0x00},
        {KN_FLOAT8E5M2FNUZ, -0x1.1p-18f, 0x81, 0x81},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const extreme *c = &cases[i];
        cr_assert_eq(kn_f32_to_f8(c->dt, c->x, 1), c->sat, "%s %g saturate: 0x%02x, expected 0x%02x",
                     kn_dtype_name(c->dt), c->x, kn_f32_to_f8(c->dt, c->x, 1), c->sat);
        cr_assert_eq(kn_f32_to_f8(c->dt, c->x, 0), c->nosat, "%s %g no saturate: 0x%02x, expected 0x%02x",
                     kn_dtype_name(c->dt), c->x, kn_f32_to_f8(c->dt, c->x, 0), c->nosat);
    }
    /* doubles beyond float's range */
    cr_assert_eq(kn_f64_to_f8(KN_FLOAT8E4M3FN, 1e300, 1), 0x7E);
    cr_assert_eq(kn_f64_to_f8(KN_FLOAT8E5M2, -1e300, 0), 0xFC);
    cr_assert_eq(kn_f64_to_f8(KN_FLOAT8E5M2FNUZ, 1e-300, 0), 0x00);
}

/* E8M0 follows ONNX's reference (numpy_helper.to_float8e8m0): the float's
 * exponent field, the sign ignored, rounded by round_mode. */
Test(float8_encode, e8m0)
{
    const int modes[] = {KN_E8M0_ROUND_UP, KN_E8M0_ROUND_DOWN, KN_E8M0_ROUND_NEAREST};
    for (unsigned b = 1; b < 0xFF; b++)
        for (int m = 0; m < 3; m++)
            for (int sat = 0; sat < 2; sat++)
                cr_assert_eq(kn_f32_to_e8m0((float)pow(2.0, (double)b - 127), sat, modes[m]), b,
                             "0x%02x mode %d", b, modes[m]);
    /* 2^-127 is a float subnormal with a fraction: "up" takes it to 2^-126 */
    cr_assert_eq(kn_f32_to_e8m0(0x1p-127f, 1, KN_E8M0_ROUND_UP), 0x01);
    cr_assert_eq(kn_f32_to_e8m0(0x1p-127f, 1, KN_E8M0_ROUND_DOWN), 0x00);
    cr_assert_eq(kn_f32_to_e8m0(0x1p-127f, 1, KN_E8M0_ROUND_NEAREST), 0x00);
    static const struct {
        float x;
        uint8_t up, down, nearest;
    } cases[] = {
        {0.0f, 0x00, 0x00, 0x00},   {-0.0f, 0x00, 0x00, 0x00}, {1.1f, 0x80, 0x7F, 0x7F},
        {1.4999f, 0x80, 0x7F, 0x7F}, {1.5f, 0x80, 0x7F, 0x80},  {1.9f, 0x80, 0x7F, 0x80},
        {3.0f, 0x81, 0x80, 0x81},   {-4.0f, 0x81, 0x81, 0x81}, {0.124f, 0x7C, 0x7B, 0x7C},
        {NAN, 0xFF, 0xFF, 0xFF},    {INFINITY, 0xFF, 0xFF, 0xFF}, {-INFINITY, 0xFF, 0xFF, 0xFF},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_assert_eq(kn_f32_to_e8m0(cases[i].x, 1, KN_E8M0_ROUND_UP), cases[i].up, "%g up", cases[i].x);
        cr_assert_eq(kn_f32_to_e8m0(cases[i].x, 1, KN_E8M0_ROUND_DOWN), cases[i].down, "%g down",
                     cases[i].x);
        cr_assert_eq(kn_f32_to_e8m0(cases[i].x, 1, KN_E8M0_ROUND_NEAREST), cases[i].nearest,
                     "%g nearest", cases[i].x);
    }
    /* the top: saturation stops at 2^127, without it rounding reaches NaN */
    cr_assert_eq(kn_f32_to_e8m0(FLT_MAX, 1, KN_E8M0_ROUND_UP), 0xFE);
    cr_assert_eq(kn_f32_to_e8m0(FLT_MAX, 0, KN_E8M0_ROUND_UP), 0xFF);
    cr_assert_eq(kn_f32_to_e8m0(FLT_MAX, 1, KN_E8M0_ROUND_NEAREST), 0xFE);
    cr_assert_eq(kn_f32_to_e8m0(FLT_MAX, 0, KN_E8M0_ROUND_NEAREST), 0xFF);
    cr_assert_eq(kn_f32_to_e8m0(FLT_MAX, 0, KN_E8M0_ROUND_DOWN), 0xFE);
    /* the generic entry points round up */
    cr_assert_eq(kn_f32_to_f8(KN_FLOAT8E8M0, 1.1f, 1), 0x80);
    cr_assert_eq(kn_f64_to_f8(KN_FLOAT8E8M0, 0.5, 0), 0x7E);
}

Test(float8_encode, dtype_table)
{
    static const struct {
        int32_t dt;
        const char *name;
    } names[] = {{KN_FLOAT8E4M3FN, "float8e4m3fn"},     {KN_FLOAT8E4M3FNUZ, "float8e4m3fnuz"},
                 {KN_FLOAT8E5M2, "float8e5m2"},         {KN_FLOAT8E5M2FNUZ, "float8e5m2fnuz"},
                 {KN_FLOAT8E8M0, "float8e8m0"}};
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(kn_dtype_size(names[i].dt), 1);
        cr_assert_str_eq(kn_dtype_name(names[i].dt), names[i].name);
        cr_assert_eq(kn_dtype_from_name(names[i].name), names[i].dt);
        cr_assert(kn_dtype_is_float8(names[i].dt));
        cr_assert(KN_MASK_FLOAT8 & KN_BIT(names[i].dt));
    }
    /* the packed sub-byte types have names but no byte size
     * (tests/test_packed.c covers them); unassigned codes stay unknown */
    const int32_t packed[] = {21, 22, 23, 25, 26};
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(kn_dtype_size(packed[i]), 0);
        cr_assert_str_neq(kn_dtype_name(packed[i]), "unknown");
        cr_assert(!kn_dtype_is_float8(packed[i]));
    }
    for (int32_t dt = 27; dt < 30; dt++)
        cr_assert_str_eq(kn_dtype_name(dt), "unknown");
    cr_assert_eq(kn_dtype_from_name("unknown"), KN_UNDEFINED);
    cr_assert(!kn_dtype_is_float8(KN_UINT8) && !kn_dtype_is_float8(KN_BFLOAT16));
    cr_assert_eq(KILN_DTYPE_FLOAT8E4M3FN, KN_FLOAT8E4M3FN);
    cr_assert_eq(KILN_DTYPE_FLOAT8E4M3FNUZ, KN_FLOAT8E4M3FNUZ);
    cr_assert_eq(KILN_DTYPE_FLOAT8E5M2, KN_FLOAT8E5M2);
    cr_assert_eq(KILN_DTYPE_FLOAT8E5M2FNUZ, KN_FLOAT8E5M2FNUZ);
    cr_assert_eq(KILN_DTYPE_FLOAT8E8M0, KN_FLOAT8E8M0);
}

/* ---- Cast and CastLike -------------------------------------------------- */

static kh_case c;
static void fini(void) { kh_free(&c); }
TestSuite(float8_cast, .fini = fini);

/* Cast (opset 19, or 24 with round_mode) of n elements; saturate < 0: not
 * given (the default, 1). */
static void cast(int32_t from, const void *x, int64_t n, int32_t to, int saturate,
                 const char *round_mode, const void *want)
{
    kh_init(&c, "Cast", round_mode ? 24 : 19, 1, 1);
    kh_attr_int(&c, "to", to);
    if (saturate >= 0)
        kh_attr_int(&c, "saturate", saturate);
    if (round_mode)
        kh_attr_string(&c, "round_mode", round_mode);
    kh_input(&c, 0, from, (int64_t[]){n}, 1, x);
    run_ok(&c);
    expect_data(&c.out[0], to, want);
    kh_free(&c);
}

Test(float8_cast, from_float)
{
    const float x[] = {0, -0.0f, 1, 1000, -1000, NAN, INFINITY, 0.3f, -3, 17};
    /* 0.3 = 1.2 * 2^-2 -> 1.25 * 2^-2 = 0 0101 010; -3 = -1.5 * 2 = 1 1000 100;
     * 17 = 1.0625 * 16: a tie, to even 16 = 0 1011 000 */
    cast(KN_FLOAT, x, 10, KN_FLOAT8E4M3FN, -1, NULL,
         (uint8_t[]){0x00, 0x80, 0x38, 0x7E, 0xFE, 0x7F, 0x7E, 0x2A, 0xC4, 0x58});
    cast(KN_FLOAT, x, 10, KN_FLOAT8E4M3FN, 0, NULL,
         (uint8_t[]){0x00, 0x80, 0x38, 0x7F, 0xFF, 0x7F, 0x7F, 0x2A, 0xC4, 0x58});
    /* E5M2: 1000 = 1.953 * 2^9 -> 2^10 = 0 11001 00; 0.3 -> 1.25 * 2^-2 = 0 01101 01;
     * 17 -> 16 = 0 10011 00 */
    cast(KN_FLOAT, x, 10, KN_FLOAT8E5M2, 1, NULL,
         (uint8_t[]){0x00, 0x80, 0x3C, 0x64, 0xE4, 0x7E, 0x7B, 0x35, 0xC2, 0x4C});
    cast(KN_FLOAT, x, 10, KN_FLOAT8E5M2, 0, NULL,
         (uint8_t[]){0x00, 0x80, 0x3C, 0x64, 0xE4, 0x7E, 0x7C, 0x35, 0xC2, 0x4C});
    /* FNUZ: no -0, one NaN; E4M3FNUZ 1000 is out of range */
    cast(KN_FLOAT, x, 10, KN_FLOAT8E4M3FNUZ, 1, NULL,
         (uint8_t[]){0x00, 0x00, 0x40, 0x7F, 0xFF, 0x80, 0x7F, 0x32, 0xCC, 0x60});
    cast(KN_FLOAT, x, 10, KN_FLOAT8E4M3FNUZ, 0, NULL,
         (uint8_t[]){0x00, 0x00, 0x40, 0x80, 0x80, 0x80, 0x80, 0x32, 0xCC, 0x60});
    cast(KN_FLOAT, x, 10, KN_FLOAT8E5M2FNUZ, 0, NULL,
         (uint8_t[]){0x00, 0x00, 0x40, 0x68, 0xE8, 0x80, 0x80, 0x39, 0xC6, 0x50});
}

Test(float8_cast, to_other_types)
{
    /* E5M2 -> float: inf, -inf, NaN, 1, smallest subnormal, -0 */
    kh_init(&c, "Cast", 19, 1, 1);
    kh_attr_int(&c, "to", KN_FLOAT);
    kh_input(&c, 0, KN_FLOAT8E5M2, DIMS(6), (uint8_t[]){0x7C, 0xFC, 0x7F, 0x3C, 0x01, 0x80});
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){INFINITY, -INFINITY, NAN, 1, 0x1p-16f, 0}, 6, 0);
    cr_assert(signbit(((float *)c.out[0].data)[5]));
    kh_free(&c);
    /* E4M3FN -> int32: 448, -448, NaN -> 0, 1.5 -> 1 */
    cast(KN_FLOAT8E4M3FN, (uint8_t[]){0x7E, 0xFE, 0x7F, 0x3C}, 4, KN_INT32, -1, NULL,
         (int32_t[]){448, -448, 0, 1});
    cast(KN_FLOAT8E4M3FNUZ, (uint8_t[]){0x7F, 0x80, 0x40}, 3, KN_DOUBLE, -1, NULL,
         (double[]){240, NAN, 1}); /* NaN bytes compared: both default NaN */
    cast(KN_FLOAT8E8M0, (uint8_t[]){0x00, 0x7F, 0x81}, 3, KN_FLOAT, -1, NULL,
         (float[]){0x1p-127f, 1, 4});
    cast(KN_FLOAT8E5M2, (uint8_t[]){0x3C, 0x00, 0xBC}, 3, KN_BOOL, -1, NULL,
         (uint8_t[]){1, 0, 1});
    uint16_t h[] = {kn_f32_to_f16(448), kn_f32_to_f16(-0.5f)};
    cast(KN_FLOAT8E4M3FN, (uint8_t[]){0x7E, 0xB0}, 2, KN_FLOAT16, -1, NULL, h);
}

Test(float8_cast, from_other_types)
{
    cast(KN_INT64, (int64_t[]){1000, -3, 17, 0}, 4, KN_FLOAT8E4M3FN, -1, NULL,
         (uint8_t[]){0x7E, 0xC4, 0x58, 0x00});
    cast(KN_INT64, (int64_t[]){1000, -3}, 2, KN_FLOAT8E4M3FN, 0, NULL, (uint8_t[]){0x7F, 0xC4});
    cast(KN_UINT8, (uint8_t[]){255, 1}, 2, KN_FLOAT8E5M2, -1, NULL, (uint8_t[]){0x5C, 0x3C});
    cast(KN_BOOL, (uint8_t[]){1, 0}, 2, KN_FLOAT8E5M2FNUZ, -1, NULL, (uint8_t[]){0x40, 0x00});
    /* float16 65504 is past E5M2's halfway point to inf */
    uint16_t h[] = {kn_f32_to_f16(65504), kn_f32_to_f16(-65504)};
    cast(KN_FLOAT16, h, 2, KN_FLOAT8E5M2, 1, NULL, (uint8_t[]){0x7B, 0xFB});
    cast(KN_FLOAT16, h, 2, KN_FLOAT8E5M2, 0, NULL, (uint8_t[]){0x7C, 0xFC});
    uint16_t bf[] = {kn_f32_to_bf16(2), kn_f32_to_bf16(-0.25f)};
    cast(KN_BFLOAT16, bf, 2, KN_FLOAT8E4M3FNUZ, -1, NULL, (uint8_t[]){0x48, 0xB0});
    /* a double is rounded once, not through float */
    cast(KN_DOUBLE, (double[]){1.0625 + 0x1p-40, 1.0625}, 2, KN_FLOAT8E4M3FN, -1, NULL,
         (uint8_t[]){0x39, 0x38});
    /* float8 -> float8: 57344 does not fit E4M3FN; 448 = 1.75 * 2^8 fits E5M2 */
    cast(KN_FLOAT8E5M2, (uint8_t[]){0x7B, 0x7C}, 2, KN_FLOAT8E4M3FN, 1, NULL,
         (uint8_t[]){0x7E, 0x7E});
    cast(KN_FLOAT8E5M2, (uint8_t[]){0x7B, 0x7C}, 2, KN_FLOAT8E4M3FN, 0, NULL,
         (uint8_t[]){0x7F, 0x7F});
    cast(KN_FLOAT8E4M3FN, (uint8_t[]){0x7E, 0x80}, 2, KN_FLOAT8E5M2, -1, NULL,
         (uint8_t[]){0x5F, 0x80});
    cast(KN_FLOAT8E4M3FN, (uint8_t[]){0x7E, 0x80}, 2, KN_FLOAT8E4M3FNUZ, 0, NULL,
         (uint8_t[]){0x80, 0x00});
    /* E8M0 and round_mode */
    const float x[] = {1.5f, 1.4f, 3, 0.124f};
    cast(KN_FLOAT, x, 4, KN_FLOAT8E8M0, 1, "up", (uint8_t[]){0x80, 0x80, 0x81, 0x7C});
    cast(KN_FLOAT, x, 4, KN_FLOAT8E8M0, 1, "down", (uint8_t[]){0x7F, 0x7F, 0x80, 0x7B});
    cast(KN_FLOAT, x, 4, KN_FLOAT8E8M0, 1, "nearest", (uint8_t[]){0x80, 0x7F, 0x81, 0x7C});
    cast(KN_FLOAT, x, 4, KN_FLOAT8E8M0, -1, NULL, (uint8_t[]){0x80, 0x80, 0x81, 0x7C});
}

Test(float8_cast, castlike_and_threads)
{
    kh_init(&c, "CastLike", 19, 2, 1);
    kh_attr_int(&c, "saturate", 0);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), (float[]){1e6f, -0.0f, 1});
    kh_input(&c, 1, KN_FLOAT8E5M2FNUZ, DIMS(1), (uint8_t[]){0});
    run_ok(&c);
    expect_data(&c.out[0], KN_FLOAT8E5M2FNUZ, (uint8_t[]){0x80, 0x00, 0x40});
    kh_free(&c);
    kh_init(&c, "CastLike", 19, 2, 1);
    kh_input(&c, 0, KN_FLOAT8E4M3FN, DIMS(2), (uint8_t[]){0x38, 0xFE});
    kh_input(&c, 1, KN_FLOAT16, DIMS(1), (uint16_t[]){0});
    run_ok(&c);
    expect_data(&c.out[0], KN_FLOAT16, (uint16_t[]){kn_f32_to_f16(1), kn_f32_to_f16(-448)});
    kh_free(&c);

    /* many elements over two threads: every float8 value, repeated */
    enum { N = 70000 };
    float *big = malloc(sizeof(float) * N);
    uint8_t *want = malloc(N);
    cr_assert(big && want);
    for (int i = 0; i < N; i++) {
        uint8_t b = (uint8_t)(i % 256);
        if ((b & 0x7F) == 0x7F)
            b = 0x38; /* skip NaN */
        big[i] = kn_f8_to_f32(KN_FLOAT8E4M3FN, b);
        want[i] = b;
    }
    kh_init(&c, "Cast", 19, 1, 1);
    kh_attr_int(&c, "to", KN_FLOAT8E4M3FN);
    kh_input(&c, 0, KN_FLOAT, DIMS(N), big);
    run_both(&c);
    expect_data(&c.out[0], KN_FLOAT8E4M3FN, want);
    kh_free(&c);
    free(big);
    free(want);
}

Test(float8_cast, errors)
{
    kh_init(&c, "Cast", 24, 1, 1);
    kh_attr_int(&c, "to", KN_FLOAT8E8M0);
    kh_attr_string(&c, "round_mode", "sideways");
    kh_input(&c, 0, KN_FLOAT, DIMS(1), (float[]){1});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "round_mode 'sideways'");
    kh_free(&c);
    kh_init(&c, "Cast", 19, 1, 1);
    kh_attr_int(&c, "to", KN_FLOAT8E4M3FN);
    kh_attr_int(&c, "saturate", 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(1), (float[]){1});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "saturate");
    kh_free(&c);
    /* an unassigned type code is refused by number */
    kh_init(&c, "Cast", 21, 1, 1);
    kh_attr_int(&c, "to", 27);
    kh_input(&c, 0, KN_FLOAT, DIMS(1), (float[]){1});
    expect_fail(&c, KN_ERR_UNSUPPORTED, "float32 to element type 27 is not supported");
    kh_free(&c);
}

/* ---- reading tensors and models ----------------------------------------- */

/* A tiny protobuf writer. */
typedef struct pb {
    uint8_t p[512];
    size_t n;
} pb;

static void put_varint(pb *w, uint64_t v)
{
    do {
        cr_assert(w->n < sizeof w->p);
        w->p[w->n++] = (uint8_t)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
        v >>= 7;
    } while (v);
}
static void put_int(pb *w, uint32_t field, int64_t v)
{
    put_varint(w, (uint64_t)field << 3);
    put_varint(w, (uint64_t)v);
}
static void put_bytes(pb *w, uint32_t field, const void *d, size_t n)
{
    put_varint(w, (uint64_t)field << 3 | 2);
    put_varint(w, n);
    cr_assert(w->n + n <= sizeof w->p);
    memcpy(w->p + w->n, d, n);
    w->n += n;
}
static void put_str(pb *w, uint32_t field, const char *s) { put_bytes(w, field, s, strlen(s)); }
static void put_msg(pb *w, uint32_t field, const pb *m) { put_bytes(w, field, m->p, m->n); }

static int read_tensor(const pb *t, kn_bump *pool, kn_tensor *out, kn_err *e)
{
    memset(e, 0, sizeof *e);
    return kn_onnx_read_tensor(pool, t->p, t->n, out, NULL, e);
}

TestSuite(float8_reader);

Test(float8_reader, tensors)
{
    kn_bump *pool = kn_bump_create();
    kn_tensor t;
    kn_err e;
    /* raw_data */
    pb raw = {0};
    put_int(&raw, 1, 3);
    put_int(&raw, 2, KN_FLOAT8E4M3FN);
    put_bytes(&raw, 9, (uint8_t[]){0x38, 0x7E, 0xFF}, 3);
    cr_assert_eq(read_tensor(&raw, pool, &t, &e), KN_OK, "%s", e.msg);
    cr_assert_eq(t.dtype, KN_FLOAT8E4M3FN);
    cr_assert_eq(kn_tensor_nbytes(&t), 3);
    cr_assert(memcmp(t.data, (uint8_t[]){0x38, 0x7E, 0xFF}, 3) == 0);
    /* int32_data: one byte pattern per value, as ONNX stores float8 */
    for (int32_t dt = KN_FLOAT8E4M3FN; dt <= KN_FLOAT8E8M0; dt++) {
        if (!kn_dtype_is_float8(dt))
            continue;
        pb typed = {0};
        put_int(&typed, 1, 2);
        put_int(&typed, 2, dt);
        put_int(&typed, 5, 0x7C);
        put_int(&typed, 5, 0xFB);
        cr_assert_eq(read_tensor(&typed, pool, &t, &e), KN_OK, "%s", e.msg);
        cr_assert_eq(t.dtype, dt);
        cr_assert(memcmp(t.data, (uint8_t[]){0x7C, 0xFB}, 2) == 0);
    }
    /* unassigned type codes are refused (the packed sub-byte types are
     * read in tests/test_packed.c) */
    const int32_t unassigned[] = {27, 28, 29, 32, 99};
    for (int i = 0; i < 5; i++) {
        pb p = {0};
        put_int(&p, 1, 2);
        put_int(&p, 2, unassigned[i]);
        put_bytes(&p, 9, (uint8_t[]){0x12}, 1);
        cr_assert_eq(read_tensor(&p, pool, &t, &e), KN_ERR_UNSUPPORTED);
        char want[64];
        snprintf(want, sizeof want, "unsupported data_type %d", (int)unassigned[i]);
        cr_assert(strstr(e.msg, want), "'%s' lacks '%s'", e.msg, want);
    }
    /* writing and reading back */
    kn_tensor w = {.dtype = KN_FLOAT8E5M2, .rank = 1, .dims = {2}, .data = (uint8_t[]){0x7C, 0x01}};
    uint8_t buf[64];
    size_t need = 0;
    cr_assert_eq(kn_onnx_write_tensor("w", &w, buf, sizeof buf, &need, &e), KN_OK, "%s", e.msg);
    cr_assert_eq(kn_onnx_read_tensor(pool, buf, need, &t, NULL, &e), KN_OK, "%s", e.msg);
    cr_assert_eq(t.dtype, KN_FLOAT8E5M2);
    cr_assert(memcmp(t.data, (uint8_t[]){0x7C, 0x01}, 2) == 0);
    kn_bump_destroy(pool);
}

static pb value_info(const char *name, int elem, int64_t dim)
{
    pb vi = {0}, type = {0}, tt = {0}, shape = {0}, d = {0};
    put_str(&vi, 1, name);
    put_int(&tt, 1, elem);
    put_int(&d, 1, dim);
    put_msg(&shape, 1, &d);
    put_msg(&tt, 2, &shape);
    put_msg(&type, 1, &tt);
    put_msg(&vi, 2, &type);
    return vi;
}

static pb cast_node(const char *in, const char *out, int64_t to, int64_t saturate)
{
    pb n = {0}, a = {0};
    put_str(&n, 1, in);
    put_str(&n, 2, out);
    put_str(&n, 4, "Cast");
    put_str(&a, 1, "to");
    put_int(&a, 3, to);
    put_int(&a, 20, 2); /* INT */
    put_msg(&n, 5, &a);
    if (saturate >= 0) {
        pb s = {0};
        put_str(&s, 1, "saturate");
        put_int(&s, 3, saturate);
        put_int(&s, 20, 2);
        put_msg(&n, 5, &s);
    }
    return n;
}

/* x float[4] -Cast(E4M3FN, saturate 0)-> y; initializer w E5M2[2] -Cast(float)-> z;
 * input u E4M3FNUZ[2] -Cast(double)-> v. `bad_elem` != 0 declares u with
 * that element type instead. */
static size_t float8_model(uint8_t *out, size_t cap, int bad_elem)
{
    pb g = {0}, m = {0}, op = {0}, tmp;
    tmp = cast_node("x", "y", KN_FLOAT8E4M3FN, 0);
    put_msg(&g, 1, &tmp);
    tmp = cast_node("w", "z", KN_FLOAT, -1);
    put_msg(&g, 1, &tmp);
    tmp = cast_node("u", "v", KN_DOUBLE, -1);
    put_msg(&g, 1, &tmp);
    put_str(&g, 2, "float8");
    pb init = {0};
    put_int(&init, 1, 2);
    put_int(&init, 2, KN_FLOAT8E5M2);
    put_str(&init, 8, "w");
    put_int(&init, 5, 0x7C); /* inf */
    put_int(&init, 5, 0xC1); /* -(1.25 * 2) */
    put_msg(&g, 5, &init);
    tmp = value_info("x", KN_FLOAT, 4);
    put_msg(&g, 11, &tmp);
    tmp = value_info("u", bad_elem ? bad_elem : KN_FLOAT8E4M3FNUZ, 2);
    put_msg(&g, 11, &tmp);
    tmp = value_info("y", KN_FLOAT8E4M3FN, 4);
    put_msg(&g, 12, &tmp);
    tmp = value_info("z", KN_FLOAT, 2);
    put_msg(&g, 12, &tmp);
    tmp = value_info("v", KN_DOUBLE, 2);
    put_msg(&g, 12, &tmp);
    put_int(&m, 1, 9);
    put_str(&op, 1, "");
    put_int(&op, 2, 21);
    put_msg(&m, 8, &op);
    cr_assert(g.n < 400);
    put_msg(&m, 7, &g);
    cr_assert(m.n <= cap);
    memcpy(out, m.p, m.n);
    return m.n;
}

#define API_OK(call)                                                                    \
    do {                                                                                \
        int32_t rc_ = (call);                                                           \
        char msg_[256];                                                                 \
        kiln_last_error(msg_, sizeof msg_);                                             \
        cr_assert_eq(rc_, KILN_OK, "%s -> %d (%s)", #call, (int)rc_, msg_);            \
    } while (0)

Test(float8_reader, model_end_to_end)
{
    uint8_t bytes[512];
    size_t n = float8_model(bytes, sizeof bytes, 0);
    kiln_runtime *rt = NULL;
    kiln_model *m = NULL;
    kiln_session *s = NULL;
    API_OK(kiln_runtime_create(NULL, &rt));
    API_OK(kiln_model_load_memory(rt, bytes, n, NULL, &m));
    int32_t dt = 0;
    API_OK(kiln_model_output_dtype(m, 0, &dt));
    cr_assert_eq(dt, KILN_DTYPE_FLOAT8E4M3FN);
    API_OK(kiln_model_input_dtype(m, 1, &dt));
    cr_assert_eq(dt, KILN_DTYPE_FLOAT8E4M3FNUZ);
    API_OK(kiln_session_create(m, NULL, &s));
    const float x[4] = {1, 500, -0.3f, NAN};
    const uint8_t u[2] = {0x7F, 0x80};
    API_OK(kiln_session_set_input(s, "x", KILN_DTYPE_FLOAT, (int64_t[]){4}, 1, x, sizeof x, 0));
    API_OK(kiln_session_set_input(s, "u", KILN_DTYPE_FLOAT8E4M3FNUZ, (int64_t[]){2}, 1, u,
                                  sizeof u, 0));
    API_OK(kiln_session_run(s));
    uint8_t y[4];
    float z[2];
    double v[2];
    int64_t dims[4];
    int32_t rank = 0;
    API_OK(kiln_session_output_info(s, 0, &dt, dims, 4, &rank));
    cr_assert_eq(dt, KILN_DTYPE_FLOAT8E4M3FN);
    cr_assert(rank == 1 && dims[0] == 4);
    API_OK(kiln_session_output_copy(s, 0, y, sizeof y, NULL));
    API_OK(kiln_session_output_copy(s, 1, z, sizeof z, NULL));
    API_OK(kiln_session_output_copy(s, 2, v, sizeof v, NULL));
    /* -0.3 -> -(1.25 * 2^-2) = 1 0101 010 */
    cr_assert(memcmp(y, (uint8_t[]){0x38, 0x7F, 0xAA, 0x7F}, 4) == 0, "y = %02x %02x %02x %02x",
              y[0], y[1], y[2], y[3]);
    cr_assert(isinf(z[0]) && z[0] > 0);
    cr_assert_eq(z[1], -2.5f);
    cr_assert_eq(v[0], 240.0);
    cr_assert(isnan(v[1]));
    kiln_session_destroy(s);
    kiln_model_destroy(m);

    /* a declared unassigned type is refused at load, by number */
    n = float8_model(bytes, sizeof bytes, 27);
    int32_t rc = kiln_model_load_memory(rt, bytes, n, NULL, &m);
    char msg[256];
    kiln_last_error(msg, sizeof msg);
    cr_assert_eq(rc, KILN_ERR_UNSUPPORTED, "%d: %s", (int)rc, msg);
    cr_assert(strstr(msg, "element type 27"), "%s", msg);
    kiln_runtime_destroy(rt);
}
