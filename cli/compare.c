/* Tensor comparison for `kiln check` (see compare.h). */
#include "compare.h"

#include "halfprec.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_float8(int32_t dtype)
{
    return dtype == KILN_DTYPE_FLOAT8E4M3FN || dtype == KILN_DTYPE_FLOAT8E4M3FNUZ ||
           dtype == KILN_DTYPE_FLOAT8E5M2 || dtype == KILN_DTYPE_FLOAT8E5M2FNUZ ||
           dtype == KILN_DTYPE_FLOAT8E8M0;
}

/* The packed sub-byte types (several elements per byte, low bits first). */
static int is_packed(int32_t dtype)
{
    return dtype == KILN_DTYPE_UINT4 || dtype == KILN_DTYPE_INT4 ||
           dtype == KILN_DTYPE_FLOAT4E2M1 || dtype == KILN_DTYPE_UINT2 || dtype == KILN_DTYPE_INT2;
}

/* Formats whose neighbouring values are far apart: compared exactly. */
static int is_exact_float(int32_t dtype)
{
    return is_float8(dtype) || dtype == KILN_DTYPE_FLOAT4E2M1;
}

static int is_floating(int32_t dtype)
{
    return dtype == KILN_DTYPE_FLOAT || dtype == KILN_DTYPE_DOUBLE ||
           dtype == KILN_DTYPE_FLOAT16 || dtype == KILN_DTYPE_BFLOAT16 || is_exact_float(dtype);
}

/* Element i of a packed tensor as a double: 4- and 2-bit integers
 * (two's complement for the signed ones) and FLOAT4E2M1 (1 sign, 2
 * exponent bits with bias 1, 1 mantissa bit; no inf or NaN). */
static double packed_value(int32_t dtype, const void *data, int64_t i)
{
    int bits = dtype_bits(dtype), per = 8 / bits;
    unsigned b = ((const unsigned char *)data)[i / per];
    unsigned v = (b >> ((unsigned)(i % per) * (unsigned)bits)) & ((1u << bits) - 1);
    if (dtype == KILN_DTYPE_FLOAT4E2M1) {
        static const double mag[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
        return (v & 8) ? -mag[v & 7] : mag[v & 7];
    }
    if ((dtype == KILN_DTYPE_INT4 || dtype == KILN_DTYPE_INT2) && (v >> (bits - 1)))
        return (double)v - (double)(1u << bits);
    return (double)v;
}

/* A float8 byte as a double (the CLI sees only the public API, so it has
 * its own decoder). man: mantissa bits; bias; fn: E4M3FN's NaN S.1111.111;
 * uz: FNUZ's single NaN 0x80; otherwise E5M2's IEEE inf and NaN. */
static double float8_value(uint8_t b, int man, int bias, int fn, int uz)
{
    int neg = (b & 0x80) != 0;
    unsigned mag = b & 0x7Fu;
    unsigned exp = mag >> man, frac = mag & ((1u << man) - 1);
    if (uz ? b == 0x80 : fn ? mag == 0x7F : exp == (1u << (7 - man)) - 1) {
        if (!uz && !fn && frac == 0)
            return neg ? -INFINITY : INFINITY;
        return NAN;
    }
    double v = exp == 0 ? ldexp((double)frac, 1 - bias - man)
                        : ldexp((double)(frac | (1u << man)), (int)exp - bias - man);
    return neg ? -v : v;
}

static double float8_to_double(int32_t dtype, uint8_t b)
{
    switch (dtype) {
    case KILN_DTYPE_FLOAT8E4M3FN: return float8_value(b, 3, 7, 1, 0);
    case KILN_DTYPE_FLOAT8E4M3FNUZ: return float8_value(b, 3, 8, 0, 1);
    case KILN_DTYPE_FLOAT8E5M2: return float8_value(b, 2, 15, 0, 0);
    case KILN_DTYPE_FLOAT8E5M2FNUZ: return float8_value(b, 2, 16, 0, 1);
    case KILN_DTYPE_FLOAT8E8M0: return b == 0xFF ? NAN : ldexp(1.0, (int)b - 127);
    }
    return NAN;
}

/* Element i as a double. Exact for every floating type and for integers up
 * to 2^53; integers are only converted for the max-abs-diff report. */
static double element_value(int32_t dtype, const void *data, int64_t i)
{
    if (is_packed(dtype))
        return packed_value(dtype, data, i);
    const unsigned char *p = (const unsigned char *)data + (size_t)i * dtype_size(dtype);
    union {
        float f; double d; uint16_t u16; int16_t i16; uint32_t u32; int32_t i32;
        uint64_t u64; int64_t i64; uint8_t u8; int8_t i8;
    } v;
    memcpy(&v, p, dtype_size(dtype));
    switch (dtype) {
    case KILN_DTYPE_FLOAT: return v.f;
    case KILN_DTYPE_DOUBLE: return v.d;
    case KILN_DTYPE_FLOAT16: return half_to_float(v.u16);
    case KILN_DTYPE_BFLOAT16: return bfloat16_to_float(v.u16);
    case KILN_DTYPE_UINT8: return v.u8;
    case KILN_DTYPE_INT8: return v.i8;
    case KILN_DTYPE_UINT16: return v.u16;
    case KILN_DTYPE_INT16: return v.i16;
    case KILN_DTYPE_UINT32: return v.u32;
    case KILN_DTYPE_INT32: return v.i32;
    case KILN_DTYPE_UINT64: return (double)v.u64;
    case KILN_DTYPE_INT64: return (double)v.i64;
    case KILN_DTYPE_BOOL: return v.u8 != 0;
    }
    if (is_float8(dtype))
        return float8_to_double(dtype, v.u8);
    return 0;
}

/* Exact text of element i, so large int64 values are not shown rounded. */
static void element_text(int32_t dtype, const void *data, int64_t i, char *buf, size_t cap)
{
    const unsigned char *p = (const unsigned char *)data + (size_t)i * dtype_size(dtype);
    if (dtype == KILN_DTYPE_INT64) {
        int64_t v;
        memcpy(&v, p, sizeof v);
        snprintf(buf, cap, "%lld", (long long)v);
    } else if (dtype == KILN_DTYPE_UINT64) {
        uint64_t v;
        memcpy(&v, p, sizeof v);
        snprintf(buf, cap, "%llu", (unsigned long long)v);
    } else if (dtype == KILN_DTYPE_BOOL) {
        snprintf(buf, cap, "%s", *p ? "true" : "false");
    } else {
        snprintf(buf, cap, "%.9g", element_value(dtype, data, i));
    }
}

static int elements_equal(int32_t dtype, const void *a, const void *b, int64_t i)
{
    if (is_packed(dtype)) /* by value: a byte also holds other elements */
        return packed_value(dtype, a, i) == packed_value(dtype, b, i);
    size_t size = dtype_size(dtype);
    const unsigned char *pa = (const unsigned char *)a + (size_t)i * size;
    const unsigned char *pb = (const unsigned char *)b + (size_t)i * size;
    if (dtype == KILN_DTYPE_BOOL) /* any non-zero byte is true */
        return (*pa != 0) == (*pb != 0);
    return memcmp(pa, pb, size) == 0;
}

/* NaN matches only NaN and an infinity only itself, because a tolerance
 * around a non-finite value means nothing. */
static int within_tolerance(double got, double want, double rtol, double atol)
{
    if (isnan(got) || isnan(want))
        return isnan(got) && isnan(want);
    if (isinf(got) || isinf(want))
        return got == want;
    return fabs(got - want) <= atol + rtol * fabs(want);
}

static int same_shape(const shape *a, const shape *b)
{
    if (a->rank != b->rank)
        return 0;
    for (int32_t i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return 0;
    return 1;
}

void compare_tensors(const tensor_view *got, const tensor_view *expected, double rtol,
                     double atol, compare_result *result)
{
    result->ok = 0;
    result->max_abs_diff = 0;
    result->reason[0] = '\0';
    if (got->dtype != expected->dtype) {
        snprintf(result->reason, sizeof result->reason, "dtype %s, expected %s",
                 dtype_name(got->dtype), dtype_name(expected->dtype));
        return;
    }
    if (!same_shape(got->shape, expected->shape)) {
        char a[200], b[200];
        format_shape(got->shape->dims, got->shape->rank, a, sizeof a);
        format_shape(expected->shape->dims, expected->shape->rank, b, sizeof b);
        snprintf(result->reason, sizeof result->reason, "shape %s, expected %s", a, b);
        return;
    }
    int64_t count = shape_elements(got->shape);
    int64_t need = dtype_nbytes(got->dtype, count);
    if (need < 0) {
        snprintf(result->reason, sizeof result->reason, "cannot compare %s tensors",
                 dtype_name(got->dtype));
        return;
    }
    if (got->nbytes != (size_t)need || expected->nbytes != (size_t)need) {
        snprintf(result->reason, sizeof result->reason, "%zu bytes, expected %zu",
                 got->nbytes, expected->nbytes);
        return;
    }

    int floating = is_floating(got->dtype);
    int64_t bad = 0, worst = -1;
    double worst_diff = -1;
    for (int64_t i = 0; i < count; i++) {
        double a = element_value(got->dtype, got->data, i);
        double b = element_value(got->dtype, expected->data, i);
        double diff = fabs(a - b);
        if (isfinite(diff) && diff > result->max_abs_diff)
            result->max_abs_diff = diff;
        /* float8 and float4 values are compared exactly: neighbours differ
         * by at least 6%, and a tolerance would only blur E8M0's tiny
         * powers. */
        int ok = is_exact_float(got->dtype) ? within_tolerance(a, b, 0, 0)
                 : floating            ? within_tolerance(a, b, rtol, atol)
                          : elements_equal(got->dtype, got->data, expected->data, i);
        if (ok)
            continue;
        bad++;
        /* A NaN or infinity mismatch counts as an infinite miss. */
        if (!isfinite(diff))
            diff = INFINITY;
        if (diff > worst_diff) {
            worst_diff = diff;
            worst = i;
        }
    }
    if (bad == 0) {
        result->ok = 1;
        return;
    }
    char a[64], b[64];
    element_text(got->dtype, got->data, worst, a, sizeof a);
    element_text(got->dtype, expected->data, worst, b, sizeof b);
    snprintf(result->reason, sizeof result->reason,
             "max abs diff %.6g at index %lld (got %s, expected %s); %lld of %lld elements differ",
             worst_diff, (long long)worst, a, b, (long long)bad, (long long)count);
}

int32_t compare_string_tensors(const kiln_tensor *got, const kiln_tensor *want,
                               compare_result *result)
{
    result->ok = 0;
    result->max_abs_diff = 0;
    result->reason[0] = '\0';
    int32_t gd = 0, wd = 0, gr = 0, wr = 0;
    int64_t gdims[16], wdims[16];
    int32_t status = kiln_tensor_info(got, &gd, gdims, 16, &gr);
    if (status == KILN_OK)
        status = kiln_tensor_info(want, &wd, wdims, 16, &wr);
    if (status != KILN_OK)
        return status;
    if (gd != wd || gr != wr || memcmp(gdims, wdims, sizeof gdims[0] * (size_t)gr) != 0) {
        snprintf(result->reason, sizeof result->reason,
                 "dtype or shape differs (got dtype %d rank %d, expected dtype %d rank %d)",
                 (int)gd, (int)gr, (int)wd, (int)wr);
        return KILN_OK;
    }
    int64_t n = 1;
    for (int32_t d = 0; d < gr; d++)
        n *= gdims[d];
    char *a = NULL, *b = NULL;
    for (int64_t i = 0; i < n && status == KILN_OK; i++) {
        int32_t na = 0, nb = 0;
        kiln_tensor_string(got, (int32_t)i, NULL, 0, &na);
        kiln_tensor_string(want, (int32_t)i, NULL, 0, &nb);
        free(a);
        free(b);
        a = malloc(na > 0 ? (size_t)na : 1);
        b = malloc(nb > 0 ? (size_t)nb : 1);
        if (!a || !b) {
            status = KILN_ERR_OUT_OF_MEMORY;
            break;
        }
        if ((status = kiln_tensor_string(got, (int32_t)i, a, na, NULL)) != KILN_OK ||
            (status = kiln_tensor_string(want, (int32_t)i, b, nb, NULL)) != KILN_OK)
            break;
        if (na != nb || memcmp(a, b, (size_t)na) != 0) {
            snprintf(result->reason, sizeof result->reason,
                     "string at index %lld differs (got \"%.200s\", expected \"%.200s\")",
                     (long long)i, a, b);
            free(a);
            free(b);
            return KILN_OK;
        }
    }
    free(a);
    free(b);
    if (status == KILN_OK)
        result->ok = 1;
    return status;
}
