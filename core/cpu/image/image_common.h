/* Helpers shared by the image / spatial CPU kernels (Resize, GridSample,
 * RoiAlign, Pad, CenterCropPad, MaxUnpool, Col2Im, AffineGrid, ...):
 *  - a dtype list for kernels that compute in a wider accumulator type
 *    (float for float and the 16-bit floats, double otherwise), so one
 *    loop body serves every numeric dtype;
 *  - readers for inputs whose VALUE decides output shapes, failing with
 *    KN_ERR_NEEDS_VALUE (the runtime then re-plans eagerly) when the value
 *    is not known at prepare time;
 *  - the cubic convolution kernel Resize and GridSample share.
 * Header-only (static inline): core/cpu/image_*.h is this family's. */
#ifndef KN_CPU_IMAGE_COMMON_H
#define KN_CPU_IMAGE_COMMON_H

#include <math.h>
#include <stdint.h>

#include "core/kernel/tensor_common.h"

/* Saturating, NaN-safe conversions to integers: image kernels round their
 * result to nearest (ties away from zero) before narrowing, which is what a
 * user of an interpolated uint8 image expects (truncation would darken). */
static inline int64_t img_sat_i64(double v, double lo, double hi)
{
    if (v != v)
        return 0;
    v = round(v);
    return v <= lo ? (int64_t)lo : v >= hi ? (int64_t)hi : (int64_t)v;
}
static inline uint64_t img_sat_u64(double v)
{
    if (v != v || v <= 0)
        return 0;
    v = round(v);
    return v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
}

/* IMG_TYPES(X, arg) calls X(arg, DT, T, ACC, SFX, LOAD, STORE) per dtype:
 * T is the element type, ACC the arithmetic type, LOAD(p) reads *p as ACC
 * and STORE(p, v) writes an ACC value. */
#define IMG_LD_NATIVE(p) (*(p))
#define IMG_LD_F16(p) kn_f16_to_f32(*(p))
#define IMG_LD_BF16(p) kn_bf16_to_f32(*(p))
#define IMG_LD_INT(p) ((double)*(p))
#define IMG_ST_F32(p, v) (*(p) = (float)(v))
#define IMG_ST_F64(p, v) (*(p) = (double)(v))
#define IMG_ST_F16(p, v) (*(p) = kn_f32_to_f16((float)(v)))
#define IMG_ST_BF16(p, v) (*(p) = kn_f32_to_bf16((float)(v)))
#define IMG_ST_I8(p, v) (*(p) = (int8_t)img_sat_i64((v), INT8_MIN, INT8_MAX))
#define IMG_ST_I16(p, v) (*(p) = (int16_t)img_sat_i64((v), INT16_MIN, INT16_MAX))
#define IMG_ST_I32(p, v) (*(p) = (int32_t)img_sat_i64((v), INT32_MIN, INT32_MAX))
#define IMG_ST_I64(p, v) (*(p) = img_sat_i64((v), -9223372036854775808.0, 9223372036854775807.0))
#define IMG_ST_U8(p, v) (*(p) = (uint8_t)img_sat_i64((v), 0, UINT8_MAX))
#define IMG_ST_U16(p, v) (*(p) = (uint16_t)img_sat_i64((v), 0, UINT16_MAX))
#define IMG_ST_U32(p, v) (*(p) = (uint32_t)img_sat_i64((v), 0, UINT32_MAX))
#define IMG_ST_U64(p, v) (*(p) = img_sat_u64(v))

/* Floating types only (GridSample, RoiAlign, AffineGrid, LpPool, ...). */
#define IMG_TYPES_FLOAT(X, arg)                                                                    \
    X(arg, KN_FLOAT, float, float, f32, IMG_LD_NATIVE, IMG_ST_F32)                                 \
    X(arg, KN_DOUBLE, double, double, f64, IMG_LD_NATIVE, IMG_ST_F64)                              \
    X(arg, KN_FLOAT16, uint16_t, float, f16, IMG_LD_F16, IMG_ST_F16)                               \
    X(arg, KN_BFLOAT16, uint16_t, float, bf16, IMG_LD_BF16, IMG_ST_BF16)
/* Every numeric type (Resize). */
#define IMG_TYPES_NUMERIC(X, arg)                                                                  \
    IMG_TYPES_FLOAT(X, arg)                                                                        \
    X(arg, KN_INT8, int8_t, double, i8, IMG_LD_INT, IMG_ST_I8)                                     \
    X(arg, KN_INT16, int16_t, double, i16, IMG_LD_INT, IMG_ST_I16)                                 \
    X(arg, KN_INT32, int32_t, double, i32, IMG_LD_INT, IMG_ST_I32)                                 \
    X(arg, KN_INT64, int64_t, double, i64, IMG_LD_INT, IMG_ST_I64)                                 \
    X(arg, KN_UINT8, uint8_t, double, u8, IMG_LD_INT, IMG_ST_U8)                                   \
    X(arg, KN_UINT16, uint16_t, double, u16, IMG_LD_INT, IMG_ST_U16)                               \
    X(arg, KN_UINT32, uint32_t, double, u32, IMG_LD_INT, IMG_ST_U32)                               \
    X(arg, KN_UINT64, uint64_t, double, u64, IMG_LD_INT, IMG_ST_U64)

#define IMG_MASK_FLOAT (KN_BIT(KN_FLOAT) | KN_BIT(KN_DOUBLE) | KN_MASK_HALF)
#define IMG_MASK_NUMERIC (IMG_MASK_FLOAT | KN_MASK_INTS)

/* Input idx, rank 0 or 1, as doubles (any numeric dtype) into
 * vals[0..cap). An omitted input gives *count = -1 (so callers can tell
 * "absent" from "empty"). A value not known at prepare time fails with
 * KN_ERR_NEEDS_VALUE naming the input. */
static inline int img_const_doubles(kn_kctx *k, int32_t idx, const char *what, double *vals,
                                    int32_t cap, int32_t *count)
{
    const char *op = k->node->op_type;
    const kn_tensor *t = kn_input(k, idx);
    *count = -1;
    if (!t)
        return KN_OK;
    if (!kn_convert_supported(t->dtype) || t->dtype == KN_BOOL)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input '%s' has type %s, expected a number", op,
                       what, kn_dtype_name(t->dtype));
    if (t->rank > 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: input '%s' must be 1-D, not rank %d", op, what,
                       (int)t->rank);
    int64_t n = kn_tensor_numel(t);
    if (n < 0 || n > cap)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: input '%s' has %lld values, at most %d",
                       op, what, (long long)n, (int)cap);
    if (!t->data && n > 0)
        return kn_fail(k->err, KN_ERR_NEEDS_VALUE,
                       "%s: output shape depends on the value of input '%s'", op, what);
    for (int64_t i = 0; i < n; i++)
        vals[i] = kn_read_double(t, i);
    *count = (int32_t)n;
    return KN_OK;
}

/* The same for integer inputs (int32 or int64 only, as the specs say). */
static inline int img_const_ints(kn_kctx *k, int32_t idx, const char *what, int64_t *vals,
                                 int32_t cap, int32_t *count)
{
    const char *op = k->node->op_type;
    const kn_tensor *t = kn_input(k, idx);
    *count = -1;
    if (!t)
        return KN_OK;
    if (t->dtype != KN_INT64 && t->dtype != KN_INT32)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input '%s' must be int64 or int32, not %s", op,
                       what, kn_dtype_name(t->dtype));
    if (t->rank > 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: input '%s' must be 1-D, not rank %d", op, what,
                       (int)t->rank);
    int64_t n = kn_tensor_numel(t);
    if (n < 0 || n > cap)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: input '%s' has %lld values, at most %d",
                       op, what, (long long)n, (int)cap);
    if (!t->data && n > 0)
        return kn_fail(k->err, KN_ERR_NEEDS_VALUE,
                       "%s: output shape depends on the value of input '%s'", op, what);
    for (int64_t i = 0; i < n; i++)
        vals[i] = kn_read_int(t, i);
    *count = (int32_t)n;
    return KN_OK;
}

/* Keys' cubic convolution kernel with parameter a (-0.75 in Resize's
 * default and GridSample's bicubic, -0.5 in some libraries), at distance x. */
static inline double img_cubic(double x, double a)
{
    x = fabs(x);
    if (x <= 1)
        return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2)
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0;
}

/* Division rounding toward -infinity (b != 0). */
static inline int64_t img_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

#endif
