#include "core/ir/tensor.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    size_t size;
} dtype_table[KN_DTYPE_COUNT] = {
    [KN_UNDEFINED] = {"undefined", 0}, [KN_FLOAT] = {"float", 4},
    [KN_UINT8] = {"uint8", 1},         [KN_INT8] = {"int8", 1},
    [KN_UINT16] = {"uint16", 2},       [KN_INT16] = {"int16", 2},
    [KN_INT32] = {"int32", 4},         [KN_INT64] = {"int64", 8},
    [KN_STRING] = {"string", sizeof(kn_string)},       [KN_BOOL] = {"bool", 1},
    [KN_FLOAT16] = {"float16", 2},     [KN_DOUBLE] = {"double", 8},
    [KN_UINT32] = {"uint32", 4},       [KN_UINT64] = {"uint64", 8},
    [KN_COMPLEX64] = {"complex64", 8}, [KN_COMPLEX128] = {"complex128", 16},
    [KN_BFLOAT16] = {"bfloat16", 2},
    [KN_FLOAT8E4M3FN] = {"float8e4m3fn", 1},
    [KN_FLOAT8E4M3FNUZ] = {"float8e4m3fnuz", 1},
    [KN_FLOAT8E5M2] = {"float8e5m2", 1},
    [KN_FLOAT8E5M2FNUZ] = {"float8e5m2fnuz", 1},
    [KN_FLOAT8E8M0] = {"float8e8m0", 1},
    /* packed sub-byte types: size 0, see kn_dtype_bits */
    [KN_UINT4] = {"uint4", 0},         [KN_INT4] = {"int4", 0},
    [KN_FLOAT4E2M1] = {"float4e2m1", 0},
    [KN_UINT2] = {"uint2", 0},         [KN_INT2] = {"int2", 0},
};

size_t kn_dtype_size(int32_t dtype)
{
    if (dtype == KN_SEQUENCE || dtype == KN_OPTIONAL)
        return 1; /* a blob of bytes */
    return (dtype >= 0 && dtype < KN_DTYPE_COUNT) ? dtype_table[dtype].size : 0;
}

int kn_dtype_is_packed(int32_t dtype)
{
    return dtype > 0 && dtype < KN_DTYPE_COUNT && (KN_BIT(dtype) & KN_MASK_PACKED) != 0;
}

int32_t kn_dtype_bits(int32_t dtype)
{
    if (kn_dtype_is_packed(dtype))
        return dtype == KN_UINT2 || dtype == KN_INT2 ? 2 : 4;
    return 8 * (int32_t)kn_dtype_size(dtype);
}

const char *kn_dtype_onnx_name(int32_t dtype)
{
    if (dtype == KN_SEQUENCE)
        return "sequence";
    if (dtype == KN_OPTIONAL)
        return "optional";
    return (dtype >= 0 && dtype < KN_DTYPE_COUNT && dtype_table[dtype].name)
               ? dtype_table[dtype].name
               : "unknown";
}

/* Every binding (NumPy, JS typed arrays, Go, Java) says float32 and
 * float64, so messages do too; the other names are the same in both. */
const char *kn_dtype_name(int32_t dtype)
{
    if (dtype == KN_FLOAT)
        return "float32";
    if (dtype == KN_DOUBLE)
        return "float64";
    return kn_dtype_onnx_name(dtype);
}

int32_t kn_dtype_from_name(const char *name)
{
    for (int32_t d = 1; d < KN_DTYPE_COUNT; d++)
        if (dtype_table[d].name &&
            (strcmp(dtype_table[d].name, name) == 0 || strcmp(kn_dtype_name(d), name) == 0))
            return d;
    return KN_UNDEFINED;
}

int64_t kn_shape_numel(const int64_t *dims, int32_t rank)
{
    if (rank < 0 || rank > KN_MAX_RANK)
        return -1;
    int64_t n = 1;
    for (int32_t i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return -1;
        if (dims[i] != 0 && n > INT64_MAX / dims[i])
            return -1;
        n *= dims[i];
    }
    return n;
}

int64_t kn_shape_nbytes(int32_t dtype, const int64_t *dims, int32_t rank)
{
    int64_t n = kn_shape_numel(dims, rank);
    int64_t es = (int64_t)kn_dtype_size(dtype), bits = kn_dtype_bits(dtype);
    if (n < 0 || bits == 0)
        return -1;
    if (es == 0) { /* packed: whole bytes, rounded up (never overflows) */
        int64_t per = 8 / bits;
        return n / per + (n % per != 0);
    }
    if (n > INT64_MAX / es)
        return -1;
    return n * es;
}

int64_t kn_tensor_numel(const kn_tensor *t) { return kn_shape_numel(t->dims, t->rank); }

int64_t kn_tensor_nbytes(const kn_tensor *t)
{
    return kn_shape_nbytes(t->dtype, t->dims, t->rank);
}

int kn_shape_equal(const int64_t *a, int32_t ra, const int64_t *b, int32_t rb)
{
    if (ra != rb)
        return 0;
    for (int32_t i = 0; i < ra; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

void kn_shape_format(const int64_t *dims, int32_t rank, char *buf, size_t cap)
{
    if (cap == 0)
        return;
    if (rank == 0) {
        snprintf(buf, cap, "scalar");
        return;
    }
    size_t used = 0;
    buf[0] = 0;
    for (int32_t i = 0; i < rank && used < cap; i++) {
        int n = dims[i] < 0 ? snprintf(buf + used, cap - used, "%s?", i ? "x" : "")
                            : snprintf(buf + used, cap - used, "%s%lld", i ? "x" : "",
                                       (long long)dims[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float kn_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f) /* inf / nan */
        return bits_f32(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
        if (man == 0)
            return bits_f32(sign);
        /* subnormal: value = man * 2^-24 */
        float v = (float)man * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    return bits_f32(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t kn_f32_to_f16(float f)
{
    uint32_t u = f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    uint32_t abs = u & 0x7fffffffu;
    if (abs >= 0x7f800000u) /* inf or nan */
        return (uint16_t)(sign | 0x7c00 | (abs > 0x7f800000u ? 0x200 : 0));
    if (abs >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
        return (uint16_t)(sign | 0x7c00);
    if (abs < 0x38800000u) { /* below smallest normal half: subnormal or zero */
        float a = bits_f32(abs) * 16777216.0f; /* in units of 2^-24 */
        uint32_t m = (uint32_t)a;
        float rem = a - (float)m;
        if (rem > 0.5f || (rem == 0.5f && (m & 1)))
            m++;
        return (uint16_t)(sign | m);
    }
    uint32_t mant = abs & 0x7fffff, exp = (abs >> 23) - 112;
    uint32_t h = (exp << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}

float kn_bf16_to_f32(uint16_t b) { return bits_f32((uint32_t)b << 16); }

uint16_t kn_f32_to_bf16(float f)
{
    uint32_t u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

int64_t kn_strings_bytes(const kn_string *src, int64_t n)
{
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        if (src[i].len < 0 || src[i].len > INT64_MAX - total)
            return -1;
        total += src[i].len;
    }
    return total;
}

void kn_strings_copy(kn_string *dst, char *chars, const kn_string *src, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t len = src[i].len;
        if (len > 0)
            memcpy(chars, src[i].ptr, (size_t)len);
        dst[i].ptr = chars;
        dst[i].len = len;
        chars += len;
    }
}
