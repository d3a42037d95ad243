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
    KN_DTYPE_COUNT = 17
};

/* Bit for a dtype in a type mask (kernel registry, op type constraints). */
#define KN_BIT(dtype) (1u << (dtype))
#define KN_MASK_FLOATS (KN_BIT(KN_FLOAT) | KN_BIT(KN_DOUBLE))
#define KN_MASK_INTS                                                          \
    (KN_BIT(KN_INT8) | KN_BIT(KN_INT16) | KN_BIT(KN_INT32) | KN_BIT(KN_INT64) | \
     KN_BIT(KN_UINT8) | KN_BIT(KN_UINT16) | KN_BIT(KN_UINT32) | KN_BIT(KN_UINT64))
#define KN_MASK_NUMERIC (KN_MASK_FLOATS | KN_MASK_INTS)
#define KN_MASK_ALL                                                           \
    (KN_MASK_NUMERIC | KN_BIT(KN_BOOL) | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))

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

/* Bytes per element; 0 for KN_UNDEFINED, KN_STRING and unknown values. */
size_t kn_dtype_size(int32_t dtype);
/* ONNX spelling ("float", "int64", ...); "unknown" for bad values. */
const char *kn_dtype_name(int32_t dtype);
/* Parses the ONNX spelling; returns KN_UNDEFINED if not recognised. */
int32_t kn_dtype_from_name(const char *name);

/* Number of elements, or -1 if a dim is negative or the product overflows
 * int64. rank 0 means a scalar (1 element). */
int64_t kn_shape_numel(const int64_t *dims, int32_t rank);
/* numel * element size, or -1 on overflow / unknown dtype / bad dims. */
int64_t kn_shape_nbytes(int32_t dtype, const int64_t *dims, int32_t rank);
int64_t kn_tensor_numel(const kn_tensor *t);
int64_t kn_tensor_nbytes(const kn_tensor *t);
int kn_shape_equal(const int64_t *a, int32_t ra, const int64_t *b, int32_t rb);
/* Writes "1x3x224x224" (or "scalar") into buf. */
void kn_shape_format(const int64_t *dims, int32_t rank, char *buf, size_t cap);

/* IEEE half and bfloat16 conversions (round to nearest even). */
float kn_f16_to_f32(uint16_t h);
uint16_t kn_f32_to_f16(float f);
float kn_bf16_to_f32(uint16_t b);
uint16_t kn_f32_to_bf16(float f);

#endif
