/* The packed sub-byte types UINT4, INT4, FLOAT4E2M1, UINT2, INT2: byte
 * counts, packing, the float4 codec, Cast, QuantizeLinear and
 * DequantizeLinear on them, TensorProto reading and writing, the planner's
 * refusal of kernels that do not take them, and a model run through the
 * public API. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_helpers.h"
#include "core/kernel/packed.h"
#include "core/onnx/onnx.h"
#include "core/base/bump_alloc.h"
#include "kernel_checks.h"

static const int32_t PACKED[] = {KN_UINT4, KN_INT4, KN_FLOAT4E2M1, KN_UINT2, KN_INT2};
#define N_PACKED 5

/* Packed bytes equal want, all ceil(numel * bits / 8) of them. */
static void expect_bytes(const kn_tensor *t, int32_t dtype, const uint8_t *want, int64_t numel)
{
    cr_assert_eq(t->dtype, dtype, "dtype %s, expected %s", kn_dtype_name(t->dtype),
                 kn_dtype_name(dtype));
    cr_assert_eq(kn_tensor_numel(t), numel);
    int64_t nb = kn_tensor_nbytes(t);
    const uint8_t *g = t->data;
    for (int64_t i = 0; i < nb; i++)
        cr_assert_eq(g[i], want[i], "byte %lld is %02x, expected %02x", (long long)i, g[i],
                     want[i]);
}

/* ---- dtype table and byte counts ---------------------------------------- */

Test(packed_dtype, table_and_nbytes)
{
    static const struct {
        int32_t dt;
        const char *name;
        int32_t bits;
    } t[] = {{KN_UINT4, "uint4", 4}, {KN_INT4, "int4", 4}, {KN_FLOAT4E2M1, "float4e2m1", 4},
             {KN_UINT2, "uint2", 2}, {KN_INT2, "int2", 2}};
    for (int i = 0; i < N_PACKED; i++) {
        cr_assert_eq(kn_dtype_size(t[i].dt), 0, "byte arithmetic must refuse %s", t[i].name);
        cr_assert_eq(kn_dtype_bits(t[i].dt), t[i].bits);
        cr_assert(kn_dtype_is_packed(t[i].dt));
        cr_assert(KN_MASK_PACKED & KN_BIT(t[i].dt));
        cr_assert(!(KN_MASK_ALL & KN_BIT(t[i].dt)) && !(KN_MASK_FLOAT8 & KN_BIT(t[i].dt)));
        cr_assert_str_eq(kn_dtype_name(t[i].dt), t[i].name);
        cr_assert_eq(kn_dtype_from_name(t[i].name), t[i].dt);
        cr_assert_eq(kn_packed_per_byte(t[i].dt), 8 / t[i].bits);
    }
    cr_assert_eq(kn_dtype_bits(KN_FLOAT), 32);
    cr_assert_eq(kn_dtype_bits(KN_FLOAT8E8M0), 8);
    cr_assert_eq(kn_dtype_bits(KN_STRING), 8 * (int32_t)sizeof(kn_string));
    cr_assert_eq(kn_dtype_bits(27), 0);
    cr_assert(!kn_dtype_is_packed(KN_FLOAT8E8M0) && !kn_dtype_is_packed(KN_UINT8));
    cr_assert_eq(kn_packed_per_byte(KN_FLOAT), 1);
    /* ceil(numel * bits / 8) */
    const int64_t counts[] = {0, 1, 2, 3, 4, 5, 7, 8, 9};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        int64_t n = counts[i];
        cr_assert_eq(kn_shape_nbytes(KN_INT4, &n, 1), (n + 1) / 2, "int4 x %lld", (long long)n);
        cr_assert_eq(kn_shape_nbytes(KN_FLOAT4E2M1, &n, 1), (n + 1) / 2);
        cr_assert_eq(kn_shape_nbytes(KN_UINT2, &n, 1), (n + 3) / 4, "uint2 x %lld", (long long)n);
    }
    kn_tensor s = {.dtype = KN_INT2, .rank = 0};
    cr_assert_eq(kn_tensor_nbytes(&s), 1, "a scalar takes one byte");
    kn_tensor m = {.dtype = KN_UINT4, .rank = 3, .dims = {3, 1, 5}};
    cr_assert_eq(kn_tensor_nbytes(&m), 8);
    /* no overflow in between: 2^62 int4 elements are 2^61 bytes, the
     * largest count INT64_MAX is 2^62 bytes (2^61 of uint2) */
    int64_t big = (int64_t)1 << 62, huge = INT64_MAX;
    cr_assert_eq(kn_shape_nbytes(KN_INT4, &big, 1), (int64_t)1 << 61);
    cr_assert_eq(kn_shape_nbytes(KN_INT4, &huge, 1), (int64_t)1 << 62);
    cr_assert_eq(kn_shape_nbytes(KN_UINT2, &huge, 1), (int64_t)1 << 61);
    int64_t two[2] = {INT64_MAX, 2};
    cr_assert_eq(kn_shape_nbytes(KN_INT4, two, 2), -1, "the element count overflows");
    int64_t neg = -1;
    cr_assert_eq(kn_shape_nbytes(KN_INT4, &neg, 1), -1);
    cr_assert_eq(KILN_DTYPE_UINT4, KN_UINT4);
    cr_assert_eq(KILN_DTYPE_INT4, KN_INT4);
    cr_assert_eq(KILN_DTYPE_FLOAT4E2M1, KN_FLOAT4E2M1);
    cr_assert_eq(KILN_DTYPE_UINT2, KN_UINT2);
    cr_assert_eq(KILN_DTYPE_INT2, KN_INT2);
}

/* ---- packing ------------------------------------------------------------ */

Test(packed_pack, layout_low_bits_first)
{
    uint8_t b[2] = {0, 0};
    kn_packed_pack(KN_UINT4, (uint8_t[]){0x1, 0x2, 0x3}, 3, b, 0);
    cr_assert(b[0] == 0x21 && b[1] == 0x03, "%02x %02x", b[0], b[1]);
    uint8_t q[2] = {0, 0};
    kn_packed_pack(KN_UINT2, (uint8_t[]){0, 1, 2, 3, 1}, 5, q, 0);
    cr_assert(q[0] == 0xE4 && q[1] == 0x01, "%02x %02x", q[0], q[1]); /* 11 10 01 00 */
    /* signed: int4 -1 is nibble 0xF and reads back as -1; int2 -2 is 0b10 */
    uint8_t s[1] = {0};
    kn_packed_pack(KN_INT4, (uint8_t[]){(uint8_t)-8, 7}, 2, s, 0);
    cr_assert_eq(s[0], 0x78);
    int8_t back[4];
    kn_packed_unpack(KN_INT4, s, 0, 2, (uint8_t *)back);
    cr_assert(back[0] == -8 && back[1] == 7);
    kn_packed_pack(KN_INT2, (uint8_t[]){(uint8_t)-2, (uint8_t)-1, 0, 1}, 4, s, 0);
    cr_assert_eq(s[0], 0x4E); /* 01 00 11 10 */
    kn_packed_unpack(KN_INT2, s, 0, 4, (uint8_t *)back);
    cr_assert(back[0] == -2 && back[1] == -1 && back[2] == 0 && back[3] == 1);
    /* wider values keep their low bits */
    kn_packed_pack(KN_UINT4, (uint8_t[]){0x3A}, 1, s, 1);
    cr_assert_eq(s[0] >> 4, 0xA);
    cr_assert_eq(kn_packed_unpacked_dtype(KN_INT4), KN_INT8);
    cr_assert_eq(kn_packed_unpacked_dtype(KN_UINT2), KN_UINT8);
    cr_assert_eq(kn_packed_unpacked_dtype(KN_FLOAT4E2M1), KN_FLOAT4E2M1);
    cr_assert_eq(kn_packed_unpacked_dtype(KN_FLOAT), KN_UNDEFINED);
}

/* Packs a span at every start and length into a buffer of known bytes:
 * the span reads back, everything around it is untouched. */
Test(packed_pack, round_trip_any_offset_and_count)
{
    for (int d = 0; d < N_PACKED; d++) {
        int32_t dt = PACKED[d];
        int bits = kn_dtype_bits(dt);
        unsigned mask = (1u << bits) - 1;
        int64_t per = 8 / bits;
        for (int64_t first = 0; first < 9; first++) {
            for (int64_t n = 0; n < 13; n++) {
                /* up to 20 elements: 5 bytes of 2-bit, 10 of 4-bit */
                uint8_t buf[16], orig[16], vals[16], got[16];
                for (int i = 0; i < 16; i++)
                    buf[i] = orig[i] = (uint8_t)(0x5A ^ (i * 37));
                for (int64_t i = 0; i < n; i++)
                    vals[i] = (uint8_t)((i * 7 + first * 3 + 1) & mask);
                kn_packed_pack(dt, vals, n, buf, first);
                kn_packed_unpack(dt, buf, first, n, got);
                for (int64_t i = 0; i < n; i++) {
                    unsigned g = got[i] & mask;
                    cr_assert_eq(g, vals[i], "%s first %lld n %lld [%lld]", kn_dtype_name(dt),
                                 (long long)first, (long long)n, (long long)i);
                    if (dt == KN_INT4 || dt == KN_INT2) /* sign-extended */
                        cr_assert_eq((int8_t)got[i], (vals[i] >> (bits - 1))
                                                         ? (int)vals[i] - (1 << bits)
                                                         : (int)vals[i]);
                    else
                        cr_assert_eq(got[i], vals[i]);
                }
                /* other elements unchanged */
                uint8_t all_now[64], all_orig[64];
                kn_packed_unpack(dt, buf, 0, 16 * per, all_now);
                kn_packed_unpack(dt, orig, 0, 16 * per, all_orig);
                for (int64_t e = 0; e < 16 * per; e++)
                    if (e < first || e >= first + n)
                        cr_assert_eq(all_now[e], all_orig[e], "%s element %lld was touched",
                                     kn_dtype_name(dt), (long long)e);
            }
        }
    }
}

Test(packed_pack, clear_tail)
{
    uint8_t b[3] = {0xFF, 0xFF, 0xFF};
    kn_packed_clear_tail(KN_INT4, b, 5); /* elements 0..4: byte 2's low nibble */
    cr_assert(b[0] == 0xFF && b[1] == 0xFF && b[2] == 0x0F);
    uint8_t q[2] = {0xFF, 0xFF};
    kn_packed_clear_tail(KN_UINT2, q, 5); /* byte 1 keeps element 4 only */
    cr_assert(q[0] == 0xFF && q[1] == 0x03);
    kn_packed_clear_tail(KN_UINT2, q, 4); /* whole bytes: nothing to clear */
    cr_assert(q[0] == 0xFF && q[1] == 0x03);
    kn_packed_clear_tail(KN_FLOAT, q, 1); /* not packed: no-op */
    cr_assert(q[0] == 0xFF);
}

/* ---- FLOAT4E2M1 codec ---------------------------------------------------- */

Test(packed_float4, all_sixteen_codes)
{
    static const float want[16] = {0,  0.5f,  1,  1.5f,  2,  3,  4,  6,
                                   -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6};
    for (unsigned c = 0; c < 16; c++) {
        float v = kn_f4_to_f32((uint8_t)c);
        cr_assert_eq(v, want[c], "code %x = %g, expected %g", c, v, want[c]);
        cr_assert_eq(signbit(v) != 0, c >= 8, "code %x sign", c);
        cr_assert_eq(kn_f64_to_f4(v), c, "code %x does not round-trip", c);
        /* the reference formula: e == 0: m * 0.5; else (1 + m/2) * 2^(e-1) */
        unsigned e = (c >> 1) & 3, m = c & 1;
        double ref = e == 0 ? m * 0.5 : (1 + m / 2.0) * ldexp(1, (int)e - 1);
        cr_assert_eq(fabs(v), ref, "code %x", c);
    }
}

Test(packed_float4, rounding_and_saturation)
{
    static const struct {
        double v;
        uint8_t code;
    } t[] = {
        {0.25, 0x0},  {0.2500001, 0x1}, {0.74, 0x1},  {0.75, 0x2},  {1.25, 0x2},
        {1.2500001, 0x3}, {1.75, 0x4},  {2.5, 0x4},   {2.51, 0x5},  {3.5, 0x6},
        {4.9, 0x6},   {5.0, 0x6},       {5.01, 0x7},  {6.0, 0x7},   {7.0, 0x7},
        {1e30, 0x7},  {INFINITY, 0x7},  {-INFINITY, 0xF}, {-3.5, 0xE}, {-8, 0xF},
        {-0.1, 0x8},  {-0.0, 0x8},      {1e-40, 0x0}, {NAN, 0x8},   {-NAN, 0x8},
        {0.48, 0x1},  {1.05, 0x2},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        cr_assert_eq(kn_f64_to_f4(t[i].v), t[i].code, "%g -> %x, expected %x", t[i].v,
                     kn_f64_to_f4(t[i].v), t[i].code);
}

/* ---- Cast ---------------------------------------------------------------- */

static kh_case c;
static void fini(void) { kh_free(&c); }
TestSuite(packed_cast, .fini = fini);
TestSuite(packed_qdq, .fini = fini);

static void cast(int32_t from, const void *x, int64_t n, int32_t to)
{
    kh_init(&c, "Cast", 25, 1, 1);
    kh_attr_int(&c, "to", to);
    kh_input(&c, 0, from, (int64_t[]){n}, 1, x);
    run_ok(&c);
}

Test(packed_cast, to_packed_integers_wraps)
{
    /* as ONNX's reference (ml_dtypes): the integer value's low bits */
    const float x[] = {-9, -8, -1, 0, 7, 8, 15, 2.7f, -2.7f};
    cast(KN_FLOAT, x, 9, KN_INT4);
    /* 7 8 | f 0 | 7 8 | f 2 | e */
    expect_bytes(&c.out[0], KN_INT4, (uint8_t[]){0x87, 0x0F, 0x87, 0x2F, 0x0E}, 9);
    kh_free(&c);
    cast(KN_FLOAT, x, 9, KN_UINT4);
    expect_bytes(&c.out[0], KN_UINT4, (uint8_t[]){0x87, 0x0F, 0x87, 0x2F, 0x0E}, 9);
    kh_free(&c);
    const float y[] = {-3, -2, -1, 0, 1, 2, 3};
    cast(KN_FLOAT, y, 7, KN_UINT2);
    expect_bytes(&c.out[0], KN_UINT2, (uint8_t[]){0x39, 0x39}, 7); /* 1 2 3 0 | 1 2 3 */
    kh_free(&c);
    cast(KN_FLOAT, y, 7, KN_INT2);
    expect_bytes(&c.out[0], KN_INT2, (uint8_t[]){0x39, 0x39}, 7);
    kh_free(&c);
    /* from integers and bool, exactly */
    cast(KN_INT64, (int64_t[]){-8, 7, 16 + 3}, 3, KN_INT4);
    expect_bytes(&c.out[0], KN_INT4, (uint8_t[]){0x78, 0x03}, 3);
    kh_free(&c);
    cast(KN_BOOL, (uint8_t[]){1, 0, 1}, 3, KN_UINT2);
    expect_bytes(&c.out[0], KN_UINT2, (uint8_t[]){0x11}, 3);
    kh_free(&c);
}

Test(packed_cast, from_packed)
{
    const uint8_t i4[] = {0x87, 0x0F, 0x07}; /* 7 -8 -1 0 7 */
    cast(KN_INT4, i4, 5, KN_FLOAT);
    expect_f32(&c.out[0], (float[]){7, -8, -1, 0, 7}, 5, 0);
    kh_free(&c);
    cast(KN_INT4, i4, 5, KN_INT8);
    expect_n(&c.out[0], KN_INT8, (int8_t[]){7, -8, -1, 0, 7}, 5);
    kh_free(&c);
    cast(KN_UINT4, i4, 5, KN_UINT8);
    expect_n(&c.out[0], KN_UINT8, (uint8_t[]){7, 8, 15, 0, 7}, 5);
    kh_free(&c);
    cast(KN_INT4, i4, 5, KN_FLOAT16);
    uint16_t h[5];
    for (int i = 0; i < 5; i++)
        h[i] = kn_f32_to_f16((float[]){7, -8, -1, 0, 7}[i]);
    expect_n(&c.out[0], KN_FLOAT16, h, 5);
    kh_free(&c);
    cast(KN_INT2, (uint8_t[]){0xE4, 0x02}, 5, KN_INT32); /* 0 1 -2 -1 | -2 */
    expect_n(&c.out[0], KN_INT32, (int32_t[]){0, 1, -2, -1, -2}, 5);
    kh_free(&c);
    cast(KN_UINT2, (uint8_t[]){0xE4, 0x02}, 5, KN_DOUBLE);
    expect_n(&c.out[0], KN_DOUBLE, (double[]){0, 1, 2, 3, 2}, 5);
    kh_free(&c);
    /* packed to packed: int4 -> int2 wraps; same type copies */
    cast(KN_INT4, i4, 5, KN_INT2); /* 7 -> -1 (11), -8 -> 0, -1 -> -1, 0, 7 -> -1 */
    expect_bytes(&c.out[0], KN_INT2, (uint8_t[]){0x33, 0x03}, 5);
    kh_free(&c);
    cast(KN_INT4, i4, 5, KN_INT4);
    expect_bytes(&c.out[0], KN_INT4, i4, 5);
    kh_free(&c);
    cast(KN_INT4, i4, 5, KN_FLOAT4E2M1); /* 7 -> 6, -8 -> -6, -1, 0, 7 -> 6 */
    expect_bytes(&c.out[0], KN_FLOAT4E2M1, (uint8_t[]){0xF7, 0x0A, 0x07}, 5);
    kh_free(&c);
}

Test(packed_cast, float4)
{
    /* ONNX's test data: 0.48 1 | 1.05 -3.5 | -8 9 | 1e6 1e-7 | NaN inf | inf -inf |
     * -4 0.01 | -0 */
    const float x[] = {0.48f, 0.25f, 1.05f, -3.5f, -8, 9, 1e6f, 1e-7f,
                       NAN, INFINITY, INFINITY, -INFINITY, -4, 0.01f, -0.0f};
    cast(KN_FLOAT, x, 15, KN_FLOAT4E2M1);
    expect_bytes(&c.out[0], KN_FLOAT4E2M1,
                 (uint8_t[]){0x01, 0xE2, 0x7F, 0x07, 0x78, 0xF7, 0x0E, 0x08}, 15);
    kh_free(&c);
    /* saturate=0 changes nothing: float4 has no inf or NaN to give */
    kh_init(&c, "Cast", 25, 1, 1);
    kh_attr_int(&c, "to", KN_FLOAT4E2M1);
    kh_attr_int(&c, "saturate", 0);
    kh_input(&c, 0, KN_FLOAT, DIMS(15), x);
    run_ok(&c);
    expect_bytes(&c.out[0], KN_FLOAT4E2M1,
                 (uint8_t[]){0x01, 0xE2, 0x7F, 0x07, 0x78, 0xF7, 0x0E, 0x08}, 15);
    kh_free(&c);
    const uint8_t codes[] = {0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE};
    cast(KN_FLOAT4E2M1, codes, 16, KN_FLOAT);
    expect_f32(&c.out[0],
               (float[]){0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6},
               16, 0);
    cr_assert(signbit(((float *)c.out[0].data)[8]));
    kh_free(&c);
    cast(KN_FLOAT4E2M1, codes, 16, KN_INT8); /* truncates: 1.5 -> 1 */
    expect_n(&c.out[0], KN_INT8, (int8_t[]){0, 0, 1, 1, 2, 3, 4, 6, 0, 0, -1, -1, -2, -3, -4, -6},
             16);
    kh_free(&c);
    /* float16 and bfloat16 sources round once */
    uint16_t h[3] = {kn_f32_to_f16(2.5f), kn_f32_to_f16(5.5f), kn_f32_to_f16(-0.3f)};
    cast(KN_FLOAT16, h, 3, KN_FLOAT4E2M1);
    expect_bytes(&c.out[0], KN_FLOAT4E2M1, (uint8_t[]){0x74, 0x09}, 3);
    kh_free(&c);
}

Test(packed_cast, castlike_and_threads)
{
    kh_init(&c, "CastLike", 25, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), (float[]){1, -2, 9});
    kh_input(&c, 1, KN_INT4, DIMS(1), (uint8_t[]){0});
    run_ok(&c);
    expect_bytes(&c.out[0], KN_INT4, (uint8_t[]){0xE1, 0x09}, 3);
    kh_free(&c);
    /* big odd tensors, both directions: split at whole bytes, so 1 and 2
     * threads agree bit for bit */
    enum { N = 100003 };
    float *x = malloc(sizeof(float) * N);
    uint8_t *p = malloc((N + 1) / 2);
    cr_assert(x && p);
    for (int i = 0; i < N; i++)
        x[i] = (float)((i * 37) % 29) * 0.25f - 3.5f;
    for (int i = 0; i < (N + 1) / 2; i++)
        p[i] = (uint8_t)(i * 131 + 7);
    const int32_t to[] = {KN_INT4, KN_UINT2, KN_FLOAT4E2M1};
    for (int t = 0; t < 3; t++) {
        kh_init(&c, "Cast", 25, 1, 1);
        kh_attr_int(&c, "to", to[t]);
        kh_input(&c, 0, KN_FLOAT, DIMS(N), x);
        run_both(&c);
        /* spot check against the scalar codec */
        uint8_t e[1];
        kn_packed_unpack(to[t], c.out[0].data, N - 1, 1, e);
        if (to[t] == KN_FLOAT4E2M1)
            cr_assert_eq(e[0], kn_f64_to_f4(x[N - 1]));
        kh_free(&c);
    }
    kh_init(&c, "Cast", 25, 1, 1);
    kh_attr_int(&c, "to", KN_FLOAT);
    kh_input(&c, 0, KN_FLOAT4E2M1, DIMS(N), p);
    run_both(&c);
    cr_assert_eq(((float *)c.out[0].data)[N - 1], kn_f4_to_f32(p[N / 2] & 0xF));
    kh_free(&c);
    free(x);
    free(p);
}

/* ---- QuantizeLinear / DequantizeLinear ------------------------------------ */

Test(packed_qdq, quantize_per_axis_saturates)
{
    /* x 3x4 as in ONNX's int4 case, scales per row 2 3 4, zero points
     * 1 -1 0 */
    const float x[] = {0, 2.5f, 4.8f, 8.6f, -30, -20, 6, 9, 12, 15, 16, 40};
    kh_init(&c, "QuantizeLinear", 25, 3, 1);
    kh_attr_int(&c, "axis", 0);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 4), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(3), (float[]){2, 3, 4});
    kh_input(&c, 2, KN_INT4, DIMS(3), (uint8_t[]){0xF1, 0x00}); /* 1, -1, 0 */
    run_both(&c);
    /* row 0: 0+1, 1.25->1 +1, 2.4->2 +1, 4.3->4 +1 = 1 2 3 5
     * row 1: -10-1 -> -8, -6.67->-7 -1 = -8, 2-1 = 1, 3-1 = 2
     * row 2: 3, 3.75->4, 4, 10 -> 7 */
    expect_bytes(&c.out[0], KN_INT4, (uint8_t[]){0x21, 0x53, 0x88, 0x21, 0x43, 0x74}, 12);
    kh_free(&c);
    const float y[] = {-1, 0, 1.5f, 2.5f, 3.5f, 100, -100};
    /* uint4: 0 0 2 2 4 15 0 */
    kh_init(&c, "QuantizeLinear", 25, 2, 1);
    kh_attr_int(&c, "output_dtype", KN_UINT4);
    kh_input(&c, 0, KN_FLOAT, DIMS(7), y);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, (float[]){1});
    run_ok(&c);
    expect_bytes(&c.out[0], KN_UINT4, (uint8_t[]){0x00, 0x22, 0xF4, 0x00}, 7);
    kh_free(&c);
    /* int2 [-2, 1]: -1 0 2->1 2->1 4->1 1 -2 */
    kh_init(&c, "QuantizeLinear", 25, 2, 1);
    kh_attr_int(&c, "output_dtype", KN_INT2);
    kh_input(&c, 0, KN_FLOAT, DIMS(7), y);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, (float[]){1});
    run_ok(&c);
    /* 11 00 01 01 = -1 0 1 1 -> 0x53; 01 01 10 = 1 1 -2 -> 0x25 */
    expect_bytes(&c.out[0], KN_INT2, (uint8_t[]){0x53, 0x25}, 7);
    kh_free(&c);
    /* uint2 with zero point 1: -1+1 = 0, 1, 2+1 -> 3, 3, 3, 3, 0 */
    kh_init(&c, "QuantizeLinear", 25, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(7), y);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, (float[]){1});
    kh_input(&c, 2, KN_UINT2, NULL, 0, (uint8_t[]){0x01});
    run_ok(&c);
    expect_bytes(&c.out[0], KN_UINT2, (uint8_t[]){0xF4, 0x0F}, 7);
    kh_free(&c);
}

Test(packed_qdq, quantize_float4_and_blocked)
{
    /* ONNX's float4 case: per-axis scales 2 3 4, zero points 0 */
    const float x[] = {0, 2.5f, 4.8f, 8.6f, -30, -20, 6, 9, -0.0f, -2.5f, -4.8f, -8.6f};
    kh_init(&c, "QuantizeLinear", 25, 3, 1);
    kh_attr_int(&c, "axis", 0);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 4), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(3), (float[]){2, 3, 4});
    kh_input(&c, 2, KN_FLOAT4E2M1, DIMS(3), (uint8_t[]){0, 0});
    run_ok(&c);
    expect_bytes(&c.out[0], KN_FLOAT4E2M1, (uint8_t[]){32, 100, 255, 84, 144, 202}, 12);
    kh_free(&c);
    /* blocked int4: x 2x5, blocks of 2 along axis 1 -> scale 2x3 */
    const float b[] = {1, 2, 3, 4, 5, -1, -2, -3, -4, -50};
    kh_init(&c, "QuantizeLinear", 25, 3, 1);
    kh_attr_int(&c, "axis", 1);
    kh_attr_int(&c, "block_size", 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 5), b);
    kh_input(&c, 1, KN_FLOAT, DIMS(2, 3), (float[]){1, 2, 0.5f, 1, 2, 0.5f});
    kh_input(&c, 2, KN_INT4, DIMS(2, 3), (uint8_t[]){0x00, 0x00, 0x00});
    run_ok(&c);
    /* row 0: 1 2 | 1.5->2 2 | 10->7; row 1: -1 -2 | -1.5->-2 -2 | -100->-8 */
    expect_bytes(&c.out[0], KN_INT4, (uint8_t[]){0x21, 0x22, 0xF7, 0xEE, 0x8E}, 10);
    kh_free(&c);
    /* opset gates: int2 needs 25, float4 23, int4 21 */
    kh_init(&c, "QuantizeLinear", 23, 2, 1);
    kh_attr_int(&c, "output_dtype", KN_INT2);
    kh_input(&c, 0, KN_FLOAT, DIMS(2), (float[]){1, 2});
    kh_input(&c, 1, KN_FLOAT, NULL, 0, (float[]){1});
    expect_fail(&c, KN_ERR_DTYPE, "int2");
    kh_free(&c);
    kh_init(&c, "QuantizeLinear", 21, 2, 1);
    kh_attr_int(&c, "output_dtype", KN_FLOAT4E2M1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2), (float[]){1, 2});
    kh_input(&c, 1, KN_FLOAT, NULL, 0, (float[]){1});
    expect_fail(&c, KN_ERR_DTYPE, "float4e2m1");
    kh_free(&c);
    kh_init(&c, "QuantizeLinear", 21, 2, 1);
    kh_attr_int(&c, "output_dtype", KN_INT4);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), (float[]){1, 2, 9});
    kh_input(&c, 1, KN_FLOAT, NULL, 0, (float[]){1});
    run_ok(&c);
    expect_bytes(&c.out[0], KN_INT4, (uint8_t[]){0x21, 0x07}, 3);
    kh_free(&c);
}

Test(packed_qdq, dequantize)
{
    /* ONNX's int4 case: x 0 1 7 -4 -8, scale 2, zero point 1 */
    kh_init(&c, "DequantizeLinear", 25, 3, 1);
    kh_input(&c, 0, KN_INT4, DIMS(5), (uint8_t[]){16, 199, 8});
    kh_input(&c, 1, KN_FLOAT, NULL, 0, (float[]){2});
    kh_input(&c, 2, KN_INT4, DIMS(1), (uint8_t[]){1});
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-2, 0, 12, -10, -18}, 5, 0);
    kh_free(&c);
    /* float4: 0 1 -1 1.5 -4 times 2 */
    kh_init(&c, "DequantizeLinear", 25, 3, 1);
    kh_input(&c, 0, KN_FLOAT4E2M1, DIMS(5), (uint8_t[]){32, 58, 14});
    kh_input(&c, 1, KN_FLOAT, NULL, 0, (float[]){2});
    kh_input(&c, 2, KN_FLOAT4E2M1, DIMS(1), (uint8_t[]){0});
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){0, 2, -2, 3, -8}, 5, 0);
    kh_free(&c);
    /* uint2 per axis (axis 1 of 2x3), zero points 0 1 2, scales 1 10 100 */
    kh_init(&c, "DequantizeLinear", 25, 3, 1);
    kh_attr_int(&c, "axis", 1);
    kh_input(&c, 0, KN_UINT2, DIMS(2, 3), (uint8_t[]){0xE4, 0x0B}); /* 0 1 2 3 | 3 2 */
    kh_input(&c, 1, KN_FLOAT, DIMS(3), (float[]){1, 10, 100});
    kh_input(&c, 2, KN_UINT2, DIMS(3), (uint8_t[]){0x24}); /* 0 1 2 */
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){0, 0, 0, 3, 20, 0}, 6, 0);
    kh_free(&c);
    /* blocked int2 with float16 output (output_dtype) */
    kh_init(&c, "DequantizeLinear", 25, 2, 1);
    kh_attr_int(&c, "axis", 0);
    kh_attr_int(&c, "block_size", 2);
    kh_attr_int(&c, "output_dtype", KN_FLOAT16);
    kh_input(&c, 0, KN_INT2, DIMS(3), (uint8_t[]){0x2E}); /* -2 -1 -2 */
    kh_input(&c, 1, KN_FLOAT, DIMS(2), (float[]){1, 4});
    run_ok(&c);
    uint16_t h[3] = {kn_f32_to_f16(-2), kn_f32_to_f16(-1), kn_f32_to_f16(-8)};
    expect_n(&c.out[0], KN_FLOAT16, h, 3);
    kh_free(&c);
    /* int2 x before opset 25 is refused */
    kh_init(&c, "DequantizeLinear", 24, 2, 1);
    kh_input(&c, 0, KN_INT2, DIMS(3), (uint8_t[]){0x2E});
    kh_input(&c, 1, KN_FLOAT, NULL, 0, (float[]){1});
    expect_fail(&c, KN_ERR_DTYPE, "int2");
    kh_free(&c);
    /* zero point type must match x */
    kh_init(&c, "DequantizeLinear", 25, 3, 1);
    kh_input(&c, 0, KN_INT4, DIMS(3), (uint8_t[]){0x21, 0x03});
    kh_input(&c, 1, KN_FLOAT, NULL, 0, (float[]){1});
    kh_input(&c, 2, KN_UINT4, DIMS(1), (uint8_t[]){0});
    expect_fail(&c, KN_ERR_DTYPE, "zero point");
    kh_free(&c);
}

/* ---- TensorProto ----------------------------------------------------------- */

/* A tiny protobuf writer. */
typedef struct pb {
    uint8_t p[2048];
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
    if (n)
        memcpy(w->p + w->n, d, n);
    w->n += n;
}
static void put_str(pb *w, uint32_t field, const char *s) { put_bytes(w, field, s, strlen(s)); }
static void put_msg(pb *w, uint32_t field, const pb *m) { put_bytes(w, field, m->p, m->n); }

/* TensorProto: dims, data_type, name, then raw bytes or int32_data values. */
static pb tensor_proto(const char *name, int32_t dtype, const int64_t *dims, int32_t rank,
                       const uint8_t *raw, size_t n_raw, const int32_t *ints, size_t n_ints)
{
    pb t = {0};
    for (int32_t i = 0; i < rank; i++)
        put_int(&t, 1, dims[i]);
    put_int(&t, 2, dtype);
    for (size_t i = 0; i < n_ints; i++)
        put_int(&t, 5, ints[i]);
    if (name)
        put_str(&t, 8, name);
    if (raw)
        put_bytes(&t, 9, raw, n_raw);
    return t;
}

/* kn_onnx_read_tensor with a fresh error (the first failure's message stays). */
static int read_pb(kn_bump *pool, const pb *p, kn_tensor *t, kn_err *e)
{
    memset(e, 0, sizeof *e);
    return kn_onnx_read_tensor(pool, p->p, p->n, t, NULL, e);
}

Test(packed_tensorproto, decode_encode_round_trip)
{
    kn_bump *pool = kn_bump_create();
    kn_err e = {0};
    kn_tensor t;
    for (int d = 0; d < N_PACKED; d++) {
        int32_t dt = PACKED[d];
        int64_t n = 7; /* 4 bytes of 4-bit, 2 of 2-bit */
        size_t nb = (size_t)kn_shape_nbytes(dt, &n, 1);
        const uint8_t raw[8] = {0x21, 0x43, 0x65, 0x07, 0x99};
        pb p = tensor_proto("w", dt, &n, 1, raw, nb, NULL, 0);
        cr_assert_eq(read_pb(pool, &p, &t, &e), KN_OK, "%s", e.msg);
        cr_assert_eq(t.dtype, dt);
        cr_assert_eq(kn_tensor_nbytes(&t), (int64_t)nb);
        cr_assert(memcmp(t.data, raw, nb) == 0);
        /* written back: the same raw_data bytes, byte for byte */
        uint8_t buf[64];
        size_t need = 0;
        cr_assert_eq(kn_onnx_write_tensor("w", &t, buf, sizeof buf, &need, &e), KN_OK, "%s",
                     e.msg);
        cr_assert_eq(need, p.n);
        cr_assert(memcmp(buf, p.p, need) == 0, "%s: re-encoding differs", kn_dtype_name(dt));
        /* int32_data: one packed byte per value, as ONNX writes them */
        int32_t ints[4] = {0x21, 0x43, 0x65, 0x07};
        pb q = tensor_proto("w", dt, &n, 1, NULL, 0, ints, nb);
        cr_assert_eq(read_pb(pool, &q, &t, &e), KN_OK, "%s", e.msg);
        cr_assert(memcmp(t.data, raw, nb) == 0);
        /* counts must match the packed byte count, not the element count */
        pb bad = tensor_proto("w", dt, &n, 1, NULL, 0, ints, nb - 1);
        cr_assert_eq(read_pb(pool, &bad, &t, &e), KN_ERR_INVALID_MODEL);
        cr_assert(strstr(e.msg, "int32_data"), "%s", e.msg);
        pb bad_raw = tensor_proto("w", dt, &n, 1, raw, nb + 1, NULL, 0);
        cr_assert_eq(read_pb(pool, &bad_raw, &t, &e),
                     KN_ERR_INVALID_MODEL);
        cr_assert(strstr(e.msg, "raw_data"), "%s", e.msg);
        /* float_data is not where packed data lives */
        pb wrong = {0};
        put_int(&wrong, 1, 1);
        put_int(&wrong, 2, dt);
        put_bytes(&wrong, 4, (float[]){1}, 4);
        cr_assert_eq(read_pb(pool, &wrong, &t, &e),
                     KN_ERR_INVALID_MODEL);
    }
    kn_bump_destroy(pool);
}

Test(packed_tensorproto, public_api)
{
    int64_t dims[2] = {3, 3}; /* 9 int4: 5 bytes */
    const uint8_t raw[5] = {0x87, 0x0F, 0x21, 0x43, 0x05};
    pb p = tensor_proto("q", KN_INT4, dims, 2, raw, 5, NULL, 0);
    kiln_tensor *t = NULL;
    KT_OK(kiln_tensor_decode(p.p, p.n, &t));
    int32_t dt = 0, rank = 0;
    int64_t got_dims[4];
    KT_OK(kiln_tensor_info(t, &dt, got_dims, 4, &rank));
    cr_assert(dt == KILN_DTYPE_INT4 && rank == 2 && got_dims[0] == 3 && got_dims[1] == 3);
    const void *data = NULL;
    size_t nbytes = 0;
    KT_OK(kiln_tensor_data(t, &data, &nbytes));
    cr_assert_eq(nbytes, 5);
    cr_assert(memcmp(data, raw, 5) == 0);
    uint8_t buf[64];
    size_t need = 0;
    KT_OK(kiln_tensor_encode("q", dt, got_dims, rank, data, nbytes, buf, sizeof buf, &need));
    cr_assert(need == p.n && memcmp(buf, p.p, need) == 0);
    /* the byte count is the packed one */
    KT_FAILS(kiln_tensor_encode("q", dt, got_dims, rank, data, 9, buf, sizeof buf, &need),
             KILN_ERR_INVALID_ARGUMENT);
    kiln_tensor_destroy(t);
}

/* ---- a model through the public API ------------------------------------------ */

static pb value_info(const char *name, int elem, const int64_t *dims, int32_t rank)
{
    pb vi = {0}, type = {0}, tt = {0}, shape = {0};
    put_str(&vi, 1, name);
    put_int(&tt, 1, elem);
    for (int32_t i = 0; i < rank; i++) {
        pb d = {0};
        put_int(&d, 1, dims[i]);
        put_msg(&shape, 1, &d);
    }
    put_msg(&tt, 2, &shape);
    put_msg(&type, 1, &tt);
    put_msg(&vi, 2, &type);
    return vi;
}

/* op(inputs) -> output, with an optional int attribute. */
static pb node(const char *op, const char *const *in, int n_in, const char *out,
               const char *attr, int64_t value)
{
    pb n = {0};
    for (int i = 0; i < n_in; i++)
        put_str(&n, 1, in[i]);
    put_str(&n, 2, out);
    put_str(&n, 4, op);
    if (attr) {
        pb a = {0};
        put_str(&a, 1, attr);
        put_int(&a, 3, value);
        put_int(&a, 20, 2); /* INT */
        put_msg(&n, 5, &a);
    }
    return n;
}

/* x float[5] -Cast(int4)-> q -Reshape([5])-> y (output, int4);
 * q -Cast(float)-> z (output);
 * u uint2[6] -DequantizeLinear(scale 0.5, zero point uint2 1)-> w (output).
 * With `transpose`, also q -Transpose-> t (output): Transpose does not take
 * packed types, so the session must refuse it. */
static size_t packed_model(uint8_t *out, size_t cap, int transpose)
{
    pb g = {0}, m = {0}, op = {0}, tmp;
    tmp = node("Cast", (const char *[]){"x"}, 1, "q", "to", KN_INT4);
    put_msg(&g, 1, &tmp);
    tmp = node("Reshape", (const char *[]){"q", "shape"}, 2, "y", NULL, 0);
    put_msg(&g, 1, &tmp);
    tmp = node("Cast", (const char *[]){"q"}, 1, "z", "to", KN_FLOAT);
    put_msg(&g, 1, &tmp);
    tmp = node("DequantizeLinear", (const char *[]){"u", "scale", "zp"}, 3, "w", NULL, 0);
    put_msg(&g, 1, &tmp);
    if (transpose) {
        tmp = node("Transpose", (const char *[]){"q"}, 1, "t", NULL, 0);
        put_msg(&g, 1, &tmp);
    }
    put_str(&g, 2, "packed");
    tmp = tensor_proto("shape", KN_INT64, (int64_t[]){1}, 1, (uint8_t *)(int64_t[]){5}, 8, NULL, 0);
    put_msg(&g, 5, &tmp);
    tmp = tensor_proto("scale", KN_FLOAT, NULL, 0, (uint8_t *)(float[]){0.5f}, 4, NULL, 0);
    put_msg(&g, 5, &tmp);
    tmp = tensor_proto("zp", KN_UINT2, NULL, 0, NULL, 0, (int32_t[]){1}, 1);
    put_msg(&g, 5, &tmp);
    tmp = value_info("x", KN_FLOAT, (int64_t[]){5}, 1);
    put_msg(&g, 11, &tmp);
    tmp = value_info("u", KN_UINT2, (int64_t[]){6}, 1);
    put_msg(&g, 11, &tmp);
    tmp = value_info("y", KN_INT4, (int64_t[]){5}, 1);
    put_msg(&g, 12, &tmp);
    tmp = value_info("z", KN_FLOAT, (int64_t[]){5}, 1);
    put_msg(&g, 12, &tmp);
    tmp = value_info("w", KN_FLOAT, (int64_t[]){6}, 1);
    put_msg(&g, 12, &tmp);
    if (transpose) {
        tmp = value_info("t", KN_INT4, (int64_t[]){5}, 1);
        put_msg(&g, 12, &tmp);
    }
    put_int(&m, 1, 11);
    put_str(&op, 1, "");
    put_int(&op, 2, 25);
    put_msg(&m, 8, &op);
    put_msg(&m, 7, &g);
    cr_assert(m.n <= cap);
    memcpy(out, m.p, m.n);
    return m.n;
}

Test(packed_model, runs_through_the_api)
{
    uint8_t bytes[2048];
    size_t n = packed_model(bytes, sizeof bytes, 0);
    kiln_runtime *rt = kt_runtime(2);
    kiln_model *m = NULL;
    kiln_session *s = NULL;
    KT_OK(kiln_model_load_memory(rt, bytes, n, NULL, &m));
    int32_t dt = 0;
    KT_OK(kiln_model_input_dtype(m, 1, &dt));
    cr_assert_eq(dt, KILN_DTYPE_UINT2);
    KT_OK(kiln_model_output_dtype(m, 0, &dt));
    cr_assert_eq(dt, KILN_DTYPE_INT4);
    KT_OK(kiln_session_create(m, NULL, &s));
    const float x[5] = {1, -2, 9, 7.9f, -8};
    const uint8_t u[2] = {0xE4, 0x01}; /* 0 1 2 3 | 1 0 */
    KT_OK(kiln_session_set_input(s, "x", KILN_DTYPE_FLOAT, (int64_t[]){5}, 1, x, sizeof x, 0));
    /* a packed input's byte length is the packed one */
    KT_FAILS(kiln_session_set_input(s, "u", KILN_DTYPE_UINT2, (int64_t[]){6}, 1, u, 6, 0),
             KILN_ERR_INVALID_ARGUMENT);
    KT_OK(kiln_session_set_input(s, "u", KILN_DTYPE_UINT2, (int64_t[]){6}, 1, u, 2, 0));
    KT_OK(kiln_session_run(s));
    int64_t dims[4];
    int32_t rank = 0;
    KT_OK(kiln_session_output_info(s, 0, &dt, dims, 4, &rank));
    cr_assert(dt == KILN_DTYPE_INT4 && rank == 1 && dims[0] == 5);
    uint8_t y[3] = {0xAA, 0xAA, 0xAA};
    size_t need = 0;
    KT_FAILS(kiln_session_output_copy(s, 0, y, 2, &need), KILN_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(need, 3);
    KT_OK(kiln_session_output_copy(s, 0, y, sizeof y, NULL));
    /* 1 -2 | 9 -> -7 (wraps), 7 | -8, the unused nibble zero */
    cr_assert(y[0] == 0xE1 && y[1] == 0x79 && y[2] == 0x08, "y = %02x %02x %02x", y[0], y[1],
              y[2]);
    float z[5], w[6];
    KT_OK(kiln_session_output_copy(s, 1, z, sizeof z, NULL));
    cr_assert(z[0] == 1 && z[1] == -2 && z[2] == -7 && z[3] == 7 && z[4] == -8);
    KT_OK(kiln_session_output_copy(s, 2, w, sizeof w, NULL));
    const float want_w[6] = {-0.5f, 0, 0.5f, 1, 0, -0.5f};
    for (int i = 0; i < 6; i++)
        cr_assert_eq(w[i], want_w[i], "w[%d] = %g", i, w[i]);
    kiln_session_destroy(s);
    kiln_model_destroy(m);

    /* a kernel that does not take packed types is refused, naming the type */
    n = packed_model(bytes, sizeof bytes, 1);
    KT_OK(kiln_model_load_memory(rt, bytes, n, NULL, &m));
    int32_t rc = kiln_session_create(m, NULL, &s);
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    cr_assert_eq(rc, KILN_ERR_UNSUPPORTED, "%d: %s", (int)rc, msg);
    cr_assert(strstr(msg, "int4") && strstr(msg, "Transpose"), "%s", msg);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}
