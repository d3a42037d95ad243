/* Element types, shapes and the tensor descriptor every layer of the core
 * shares. dtype values are ONNX's TensorProto.DataType numbers. */
#ifndef KN_TENSOR_H
#define KN_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#define KN_MAX_RANK 8

enum {
    KN_UNDEFINED = 0,
    KN_FLOAT = 1,
    KN_UINT8 = 2,
    KN_INT8 = 3,
    KN_UINT16 = 4,
    KN_INT16 = 5,
    KN_INT32 = 6,
    KN_INT64 = 7,
    KN_STRING = 8,
    KN_BOOL = 9,
    KN_FLOAT16 = 10,
    KN_DOUBLE = 11,
    KN_UINT32 = 12,
    KN_UINT64 = 13,
    KN_COMPLEX64 = 14,
    KN_COMPLEX128 = 15,
    KN_BFLOAT16 = 16,
    /* One-byte floats (ONNX opset 19+; E8M0 opset 24+). */
    KN_FLOAT8E4M3FN = 17,
    KN_FLOAT8E4M3FNUZ = 18,
    KN_FLOAT8E5M2 = 19,
    KN_FLOAT8E5M2FNUZ = 20,
    /* Sub-byte types (opset 21+, 2-bit 25+): several elements per byte,
     * element 0 in the low bits; a tensor holds ceil(numel * bits / 8)
     * bytes. kn_dtype_size() is 0 for them (byte arithmetic refuses them),
     * kn_dtype_bits() 4 or 2; only kernels flagged KN_OP_PACKED see them. */
    KN_UINT4 = 21,
    KN_INT4 = 22,
    KN_FLOAT4E2M1 = 23,
    KN_FLOAT8E8M0 = 24,
    KN_UINT2 = 25,
    KN_INT2 = 26,
    KN_DTYPE_COUNT = 27,
    /* Pseudo dtypes, not ONNX numbers: a tensor of this dtype holds one
     * sequence or optional value as a self-contained byte blob (layout in
     * core/ir/value_blob.h): element size 1, rank 1, dims[0] = blob bytes. They
     * are in no type mask, so only kernels that say so (mask 0: Identity,
     * If, Loop, the sequence ops) ever see them, and no file can declare
     * them (readers refuse dtypes >= KN_DTYPE_COUNT). */
    KN_SEQUENCE = 30,
    KN_OPTIONAL = 31
};

/* What kind of value a graph value or a tensor descriptor holds (the C
 * API's KILN_KIND_* numbers). */
enum { KN_KIND_TENSOR = 0, KN_KIND_SEQUENCE = 1, KN_KIND_OPTIONAL = 2 };
/* KN_KIND_SEQUENCE for KN_SEQUENCE, KN_KIND_OPTIONAL for KN_OPTIONAL, else
 * KN_KIND_TENSOR. */
static inline int32_t kn_dtype_kind(int32_t dtype)
{
    return dtype == KN_SEQUENCE ? KN_KIND_SEQUENCE
           : dtype == KN_OPTIONAL ? KN_KIND_OPTIONAL
                                  : KN_KIND_TENSOR;
}

/* Bit for a dtype in a type mask (kernel registry, op type constraints).
 * Masks are 32-bit, so every dtype number stays below 32. */
#define KN_BIT(dtype) (1u << (dtype))
_Static_assert(KN_DTYPE_COUNT <= 32 && KN_OPTIONAL < 32, "dtype masks are 32-bit");
#define KN_MASK_FLOATS (KN_BIT(KN_FLOAT) | KN_BIT(KN_DOUBLE))
#define KN_MASK_INTS                                                          \
    (KN_BIT(KN_INT8) | KN_BIT(KN_INT16) | KN_BIT(KN_INT32) | KN_BIT(KN_INT64) | \
     KN_BIT(KN_UINT8) | KN_BIT(KN_UINT16) | KN_BIT(KN_UINT32) | KN_BIT(KN_UINT64))
#define KN_MASK_NUMERIC (KN_MASK_FLOATS | KN_MASK_INTS)
#define KN_MASK_ALL                                                           \
    (KN_MASK_NUMERIC | KN_BIT(KN_BOOL) | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))
/* The one-byte float formats. Not part of KN_MASK_ALL: only kernels that
 * say so (Cast, CastLike, QuantizeLinear, DequantizeLinear, data movement)
 * accept them. */
#define KN_MASK_FLOAT8                                                        \
    (KN_BIT(KN_FLOAT8E4M3FN) | KN_BIT(KN_FLOAT8E4M3FNUZ) | KN_BIT(KN_FLOAT8E5M2) | \
     KN_BIT(KN_FLOAT8E5M2FNUZ) | KN_BIT(KN_FLOAT8E8M0))
/* The sub-byte packed types (see KN_UINT4). In no other mask. */
#define KN_MASK_PACKED                                                        \
    (KN_BIT(KN_UINT4) | KN_BIT(KN_INT4) | KN_BIT(KN_FLOAT4E2M1) | KN_BIT(KN_UINT2) | \
     KN_BIT(KN_INT2))

/* Where a tensor's bytes live. Only host memory exists today; a device
 * backend adds its own location and the executor inserts copies where a
 * value crosses backends. */
enum { KN_LOC_HOST = 0 };

/* A tensor descriptor. It never owns `data`: the planner's arena, the model
 * (initializers) or the caller (borrowed inputs) does. */
typedef struct kn_tensor {
    int32_t dtype;
    int32_t rank;
    int64_t dims[KN_MAX_RANK];
    void *data;
    int32_t location;
} kn_tensor;

/* One element of a KN_STRING tensor: a reference to bytes (not
 * NUL-terminated, may contain NULs) that live in memory outliving every
 * value pointing at them: the model pool (initializers, attributes), the
 * plan pool (strings kernels create), the session (bound inputs) or a
 * kiln_tensor handle's pool. Shape and data-movement kernels move the
 * references unchanged; kernels creating strings allocate the bytes with
 * kn_engine_api.alloc and only run eagerly. */
typedef struct kn_string {
    const char *ptr;
    int64_t len;
} kn_string;

/* Bytes per element (sizeof(kn_string) for KN_STRING); 0 for KN_UNDEFINED,
 * the packed sub-byte types and unknown values. */
size_t kn_dtype_size(int32_t dtype);
/* Bits per element: 8 * kn_dtype_size, or 4 / 2 for the packed types; 0
 * where kn_dtype_size is 0 otherwise. > 0 means "a tensor can hold it". */
int32_t kn_dtype_bits(int32_t dtype);
/* 1 for the packed sub-byte types (KN_MASK_PACKED). */
int kn_dtype_is_packed(int32_t dtype);
/* The name users see, in messages and in every binding: "float32",
 * "float64", "int64", "float16", ...; "unknown" for bad values. */
const char *kn_dtype_name(int32_t dtype);
/* ONNX's own spelling (TensorProto.DataType in lower case: "float",
 * "double", "int64", ...), as the operator docs list type constraints. */
const char *kn_dtype_onnx_name(int32_t dtype);
/* Parses either spelling; returns KN_UNDEFINED if not recognised. */
int32_t kn_dtype_from_name(const char *name);

/* Deep copies of string tensors: total character bytes of n refs (-1 on
 * overflow), and a copy of n refs into dst whose bytes go, back to back,
 * into chars (which must hold kn_strings_bytes(src, n) bytes). */
int64_t kn_strings_bytes(const kn_string *src, int64_t n);
void kn_strings_copy(kn_string *dst, char *chars, const kn_string *src, int64_t n);

/* Number of elements, or -1 if a dim is negative or the product overflows
 * int64. rank 0 means a scalar (1 element). */
int64_t kn_shape_numel(const int64_t *dims, int32_t rank);
/* ceil(numel * bits / 8): numel * element size for byte-sized types, whole
 * bytes for the packed ones; -1 on overflow / unknown dtype / bad dims. */
int64_t kn_shape_nbytes(int32_t dtype, const int64_t *dims, int32_t rank);
int64_t kn_tensor_numel(const kn_tensor *t);
int64_t kn_tensor_nbytes(const kn_tensor *t);
int kn_shape_equal(const int64_t *a, int32_t ra, const int64_t *b, int32_t rb);
/* Room for a formatted shape in a message (longer ones are cut short). */
#define KN_SHAPE_TEXT 256
/* Writes "1x3x224x224" (or "scalar") into buf; a dynamic (negative) dim
 * is written "?", as every binding writes one. */
void kn_shape_format(const int64_t *dims, int32_t rank, char *buf, size_t cap);

/* IEEE half and bfloat16 conversions (round to nearest even). */
float kn_f16_to_f32(uint16_t h);
uint16_t kn_f32_to_f16(float f);
float kn_bf16_to_f32(uint16_t b);
uint16_t kn_f32_to_bf16(float f);

/* ---- float8 (core/ir/float8.c) ----
 * Formats (sign, exponent bits, mantissa bits, bias):
 *   E4M3FN   1.4.3 bias 7:  max 448, no infinities, NaN = S.1111.111
 *   E4M3FNUZ 1.4.3 bias 8:  max 240, no -0, no infinities, NaN = 0x80 only
 *   E5M2     1.5.2 bias 15: IEEE-like: max 57344, inf S.11111.00,
 *                           NaN S.11111.{01,10,11}
 *   E5M2FNUZ 1.5.2 bias 16: max 57344, no -0, no infinities, NaN = 0x80 only
 *   E8M0     0.8.0 bias 127: 2^(b-127), no sign, no zero, NaN = 0xFF
 * Exponent field 0 holds subnormals (E8M0 has none: 0x00 is 2^-127). */

/* 1 for the five float8 dtypes. */
int kn_dtype_is_float8(int32_t dtype);

/* Decodes one float8 byte; exact (every float8 value is a float). NaN for a
 * dtype that is not float8. */
float kn_f8_to_f32(int32_t dtype, uint8_t b);

/* Encodes with rounding to nearest, ties to even (E8M0: rounding up, the
 * ONNX default, see kn_f32_to_e8m0). Out-of-range finite values: with
 * saturate, the largest finite value of that sign; without, E5M2 gives
 * +-inf and the others NaN. +-inf: with saturate, +-max (E8M0: NaN); without,
 * E5M2 keeps +-inf, the others give NaN. NaN stays NaN. The FNUZ formats
 * map -0 and negative values that round to zero to +0. Returns 0 for a
 * dtype that is not float8. */
uint8_t kn_f32_to_f8(int32_t dtype, float f, int saturate);
/* The same from a double, rounded once (no double rounding through float).
 * E8M0 converts the double to float first, as ONNX's reference does. */
uint8_t kn_f64_to_f8(int32_t dtype, double v, int saturate);

/* Rounding of values between two powers of two when encoding E8M0 (ONNX
 * Cast attribute round_mode). */
enum {
    KN_E8M0_ROUND_UP = 0,      /* "up": any fraction goes to the next power */
    KN_E8M0_ROUND_DOWN = 1,    /* "down": keep the exponent */
    KN_E8M0_ROUND_NEAREST = 2  /* "nearest": from 1.5 * 2^e up, the next power */
};
/* E8M0 the way ONNX's reference computes it: the float's exponent field,
 * rounded up by one per round_mode when the fraction asks for it; the sign
 * is ignored, +-0 gives 0x00 (2^-127, the smallest value), inf and NaN give
 * 0xFF. With saturate, rounding stops at 0xFE (2^127); without, it may
 * reach 0xFF (NaN). */
uint8_t kn_f32_to_e8m0(float f, int saturate, int round_mode);

#endif
