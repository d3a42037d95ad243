/* Conversions between numeric dtypes, element fills and readers of the
 * constant inputs that decide output shapes. See tensor_common.h. */
#include "core/kernel/tensor_common.h"

#include <string.h>

#include "core/kernel/packed.h"

/* ---- conversions ---- */

static int is_integral(int32_t dt)
{
    return dt == KN_BOOL || (KN_BIT(dt) & KN_MASK_INTS) != 0;
}

int kn_convert_supported(int32_t dt)
{
    return dt > 0 && dt < KN_DTYPE_COUNT && (KN_BIT(dt) & KN_MASK_ALL) != 0;
}

int kn_cast_supported(int32_t dt)
{
    return kn_convert_supported(dt) || kn_dtype_is_float8(dt) || kn_dtype_is_packed(dt);
}

/* Float to integer conversions in C are undefined out of range and for NaN;
 * saturating to 64 bits first makes them defined, and the later narrowing
 * through the unsigned type wraps the way numpy does on common hardware. */
static inline int64_t sat_i64(double v)
{
    if (v != v)
        return 0;
    if (v >= 9223372036854775807.0)
        return INT64_MAX;
    if (v <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}

static inline uint64_t sat_u64(double v)
{
    if (v != v)
        return 0;
    if (v >= 18446744073709551615.0)
        return UINT64_MAX;
    if (v >= 0)
        return (uint64_t)v;
    return (uint64_t)sat_i64(v);
}

#define STORE_F(T, v) ((T)(v))
#define STORE_S(T, v) ((T)sat_i64(v))
#define STORE_U(T, v) ((T)sat_u64(v))

#define LOAD_F64_CASE(arg, C, DT, T, U)                                       \
    case DT:                                                                  \
        for (int64_t i = 0; i < n; i++)                                       \
            dst[i] = (double)((const T *)src)[i];                             \
        break;

static void load_f64(int32_t dt, const void *src, double *dst, int64_t n)
{
    const uint16_t *h = src;
    switch (dt) {
    KN_TYPES_REAL(LOAD_F64_CASE, _)
    case KN_BOOL:
        for (int64_t i = 0; i < n; i++)
            dst[i] = ((const uint8_t *)src)[i] != 0;
        break;
    case KN_FLOAT16:
        for (int64_t i = 0; i < n; i++)
            dst[i] = kn_f16_to_f32(h[i]);
        break;
    case KN_BFLOAT16:
        for (int64_t i = 0; i < n; i++)
            dst[i] = kn_bf16_to_f32(h[i]);
        break;
    case KN_FLOAT8E4M3FN:
    case KN_FLOAT8E4M3FNUZ:
    case KN_FLOAT8E5M2:
    case KN_FLOAT8E5M2FNUZ:
    case KN_FLOAT8E8M0:
        for (int64_t i = 0; i < n; i++)
            dst[i] = kn_f8_to_f32(dt, ((const uint8_t *)src)[i]);
        break;
    default: break;
    }
}

#define STORE_F64_CASE(arg, C, DT, T, U)                                      \
    case DT:                                                                  \
        for (int64_t i = 0; i < n; i++)                                       \
            ((T *)dst)[i] = STORE_##C(T, src[i]);                             \
        break;

/* saturate and e8m0_round apply to float8 destinations only. */
static void store_f64(int32_t dt, const double *src, void *dst, int64_t n, int saturate,
                      int e8m0_round)
{
    uint16_t *h = dst;
    uint8_t *b = dst;
    switch (dt) {
    KN_TYPES_REAL(STORE_F64_CASE, _)
    case KN_BOOL:
        for (int64_t i = 0; i < n; i++)
            ((uint8_t *)dst)[i] = src[i] != 0;
        break;
    case KN_FLOAT16:
        for (int64_t i = 0; i < n; i++)
            h[i] = kn_f32_to_f16((float)src[i]);
        break;
    case KN_BFLOAT16:
        for (int64_t i = 0; i < n; i++)
            h[i] = kn_f32_to_bf16((float)src[i]);
        break;
    case KN_FLOAT8E4M3FN:
    case KN_FLOAT8E4M3FNUZ:
    case KN_FLOAT8E5M2:
    case KN_FLOAT8E5M2FNUZ:
        for (int64_t i = 0; i < n; i++)
            b[i] = kn_f64_to_f8(dt, src[i], saturate);
        break;
    case KN_FLOAT8E8M0: /* ONNX rounds E8M0 from the float32 value */
        for (int64_t i = 0; i < n; i++)
            b[i] = kn_f32_to_e8m0((float)src[i], saturate, e8m0_round);
        break;
    default: break;
    }
}

#define LOAD_I64_CASE(arg, C, DT, T, U)                                       \
    case DT:                                                                  \
        for (int64_t i = 0; i < n; i++)                                       \
            dst[i] = (int64_t)((const T *)src)[i];                            \
        break;

static void load_i64(int32_t dt, const void *src, int64_t *dst, int64_t n)
{
    switch (dt) {
    KN_TYPES_INT(LOAD_I64_CASE, _)
    case KN_BOOL:
        for (int64_t i = 0; i < n; i++)
            dst[i] = ((const uint8_t *)src)[i] != 0;
        break;
    default: break;
    }
}

#define STORE_I64_CASE(arg, C, DT, T, U)                                      \
    case DT:                                                                  \
        for (int64_t i = 0; i < n; i++)                                       \
            ((T *)dst)[i] = (T)(U)src[i];                                     \
        break;

static void store_i64(int32_t dt, const int64_t *src, void *dst, int64_t n)
{
    switch (dt) {
    KN_TYPES_INT(STORE_I64_CASE, _)
    case KN_BOOL:
        for (int64_t i = 0; i < n; i++)
            ((uint8_t *)dst)[i] = src[i] != 0;
        break;
    default: break;
    }
}

/* float <-> float16/bfloat16 directly: the hot case of half-precision
 * kernels computing in float. Returns 0 when not such a pair. */
static int convert_half(int32_t sdt, const void *src, int32_t ddt, void *dst, int64_t n)
{
    if (sdt == KN_FLOAT && (ddt == KN_FLOAT16 || ddt == KN_BFLOAT16)) {
        const float *s = src;
        uint16_t *d = dst;
        for (int64_t i = 0; i < n; i++)
            d[i] = ddt == KN_FLOAT16 ? kn_f32_to_f16(s[i]) : kn_f32_to_bf16(s[i]);
        return 1;
    }
    if (ddt == KN_FLOAT && (sdt == KN_FLOAT16 || sdt == KN_BFLOAT16)) {
        const uint16_t *s = src;
        float *d = dst;
        for (int64_t i = 0; i < n; i++)
            d[i] = sdt == KN_FLOAT16 ? kn_f16_to_f32(s[i]) : kn_bf16_to_f32(s[i]);
        return 1;
    }
    return 0;
}

void kn_convert(int32_t sdt, const void *src, int32_t ddt, void *dst, int64_t n)
{
    kn_convert_cast(sdt, src, ddt, dst, n, 1, KN_E8M0_ROUND_UP);
}

/* Either side packed: a chunk of the source is unpacked to one byte per
 * element (float4 decoded to double), converted through the byte-sized
 * paths, and packed into the destination: integers keep their low bits
 * (wrapping, as Cast does for every integer type), float4 is rounded from
 * the double. */
static void convert_packed(int32_t sdt, const void *src, int64_t sf, int32_t ddt, void *dst,
                           int64_t df, int64_t n, int saturate, int e8m0_round)
{
    for (int64_t off = 0; off < n; off += KN_CHUNK) {
        int64_t m = n - off < KN_CHUNK ? n - off : KN_CHUNK;
        uint8_t codes[KN_CHUNK];
        double f[KN_CHUNK];
        const void *s;
        int32_t st = sdt;
        if (kn_dtype_is_packed(sdt)) {
            kn_packed_unpack(sdt, src, sf + off, m, codes);
            st = kn_packed_unpacked_dtype(sdt);
            s = codes;
            if (st == KN_FLOAT4E2M1) {
                for (int64_t i = 0; i < m; i++)
                    f[i] = kn_f4_to_f32(codes[i]);
                st = KN_DOUBLE;
                s = f;
            }
        } else {
            s = (const char *)src + (size_t)(sf + off) * kn_dtype_size(sdt);
        }
        if (!kn_dtype_is_packed(ddt)) {
            kn_convert_cast(st, s, ddt, (char *)dst + (size_t)(df + off) * kn_dtype_size(ddt), m,
                            saturate, e8m0_round);
            continue;
        }
        uint8_t out[KN_CHUNK];
        if (ddt == KN_FLOAT4E2M1) {
            double t[KN_CHUNK];
            kn_convert(st, s, KN_DOUBLE, t, m);
            for (int64_t i = 0; i < m; i++)
                out[i] = kn_f64_to_f4(t[i]);
        } else {
            int64_t t[KN_CHUNK];
            kn_convert(st, s, KN_INT64, t, m);
            for (int64_t i = 0; i < m; i++)
                out[i] = (uint8_t)(uint64_t)t[i];
        }
        kn_packed_pack(ddt, out, m, dst, df + off);
    }
}

void kn_convert_span(int32_t sdt, const void *src, int64_t src_first, int32_t ddt, void *dst,
                     int64_t dst_first, int64_t n, int saturate, int e8m0_round)
{
    if (kn_dtype_is_packed(sdt) || kn_dtype_is_packed(ddt)) {
        convert_packed(sdt, src, src_first, ddt, dst, dst_first, n, saturate, e8m0_round);
        return;
    }
    kn_convert_cast(sdt, (const char *)src + (size_t)src_first * kn_dtype_size(sdt), ddt,
                    (char *)dst + (size_t)dst_first * kn_dtype_size(ddt), n, saturate,
                    e8m0_round);
}

void kn_convert_cast(int32_t sdt, const void *src, int32_t ddt, void *dst, int64_t n,
                     int saturate, int e8m0_round)
{
    if (kn_dtype_is_packed(sdt) || kn_dtype_is_packed(ddt)) {
        convert_packed(sdt, src, 0, ddt, dst, 0, n, saturate, e8m0_round);
        return;
    }
    if (sdt == ddt) {
        if (dst != src && n > 0)
            memmove(dst, src, (size_t)n * kn_dtype_size(sdt));
        return;
    }
    if (convert_half(sdt, src, ddt, dst, n))
        return;
    size_t ss = kn_dtype_size(sdt), ds = kn_dtype_size(ddt);
    const char *s = src;
    char *d = dst;
    int via_int = is_integral(sdt) && is_integral(ddt);
    /* Chunks go through a stack buffer; each chunk is read whole before it
     * is written, so dst may equal src when the element sizes match. */
    for (int64_t off = 0; off < n; off += KN_CHUNK) {
        int64_t m = n - off < KN_CHUNK ? n - off : KN_CHUNK;
        if (via_int) {
            int64_t tmp[KN_CHUNK];
            load_i64(sdt, s + (size_t)off * ss, tmp, m);
            store_i64(ddt, tmp, d + (size_t)off * ds, m);
        } else {
            double tmp[KN_CHUNK];
            load_f64(sdt, s + (size_t)off * ss, tmp, m);
            store_f64(ddt, tmp, d + (size_t)off * ds, m, saturate, e8m0_round);
        }
    }
}

void kn_scalar_from_double(int32_t dtype, double v, void *elem)
{
    kn_convert(KN_DOUBLE, &v, dtype, elem, 1);
}

void kn_fill_pattern(void *dst, const void *elem, size_t es, int64_t n)
{
    char *d = dst;
    switch (es) {
    case 1: memset(d, *(const uint8_t *)elem, (size_t)n); return;
    case 2: {
        uint16_t v;
        memcpy(&v, elem, 2);
        for (int64_t i = 0; i < n; i++)
            ((uint16_t *)dst)[i] = v;
        return;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, elem, 4);
        for (int64_t i = 0; i < n; i++)
            ((uint32_t *)dst)[i] = v;
        return;
    }
    case 8: {
        uint64_t v;
        memcpy(&v, elem, 8);
        for (int64_t i = 0; i < n; i++)
            ((uint64_t *)dst)[i] = v;
        return;
    }
    default:
        for (int64_t i = 0; i < n; i++)
            memcpy(d + (size_t)i * es, elem, es);
    }
}

/* ---- constant inputs ---- */

int kn_const_ints(kn_kctx *k, int32_t idx, const char *what, int64_t *vals, int32_t cap,
                  int32_t *count)
{
    const char *op = k->node->op_type;
    const kn_tensor *t = kn_input(k, idx);
    if (!t)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: input '%s' is missing", op, what);
    if (t->dtype != KN_INT64 && t->dtype != KN_INT32)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input '%s' must be int64 or int32, not %s", op,
                       what, kn_dtype_name(t->dtype));
    if (!t->data)
        return kn_fail(k->err, KN_ERR_NEEDS_VALUE,
                       "%s: input '%s' output shape depends on its value", op, what);
    if (t->rank > 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: input '%s' must be 1-D, not rank %d", op, what,
                       (int)t->rank);
    int64_t n = kn_tensor_numel(t);
    if (n < 0 || n > cap)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: input '%s' has %lld values, at most %d supported",
                       op, what, (long long)n, (int)cap);
    for (int64_t i = 0; i < n; i++)
        vals[i] = kn_read_int(t, i);
    *count = (int32_t)n;
    return KN_OK;
}

int kn_need_inputs(kn_kctx *k, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        if (i >= k->n_in || !k->in[i])
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: input %d is required but missing",
                           k->node->op_type, (int)i);
    if (k->n_out < 1 || !k->out[0])
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: output 0 is required but missing",
                       k->node->op_type);
    return KN_OK;
}

int kn_norm_axes(kn_kctx *k, const int64_t *axes, int32_t n, int32_t rank, int allow_negative,
                 int32_t *out)
{
    const char *op = k->node->op_type;
    for (int32_t i = 0; i < n; i++) {
        int64_t a = axes[i];
        if (a < (allow_negative ? -(int64_t)rank : 0) || a >= rank)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: axis %lld out of range for rank %d",
                           op, (long long)a, (int)rank);
        out[i] = (int32_t)(a < 0 ? a + rank : a);
        for (int32_t j = 0; j < i; j++)
            if (out[j] == out[i])
                return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: axis %lld given twice", op,
                               (long long)a);
    }
    return KN_OK;
}

void kn_copy_desc(kn_tensor *dst, const kn_tensor *src)
{
    dst->dtype = src->dtype;
    dst->rank = src->rank;
    memcpy(dst->dims, src->dims, sizeof dst->dims);
}
