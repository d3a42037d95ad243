/* Machinery shared by the elementwise and data-movement CPU kernels (unary,
 * binary, shape ops, Transpose, Slice, Expand, Cast, ...):
 *  - dtype lists that generate typed loops from one definition,
 *  - conversions between any two numeric dtypes,
 *  - a strided copy engine (Transpose, Slice, Expand, Tile are all "copy a
 *    strided view of the input into a dense output"),
 *  - broadcast plans (binary ops, Where, variadic ops),
 *  - readers for constant inputs that decide output shapes.
 * Private to core/cpu; kernels of other families need not use it. */
#ifndef KN_CPU_TENSOR_COMMON_H
#define KN_CPU_TENSOR_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "core/kernel/op.h"

/* Typed-loop generators. Each list calls X(arg, CLASS, DTYPE, T, U) once per
 * dtype: CLASS is F (floating), S (signed integer) or U (unsigned integer)
 * so expressions can be chosen per class by token pasting (F_add, S_add);
 * T is the C element type and U its unsigned counterpart (integer
 * arithmetic wraps through U instead of overflowing, which C leaves
 * undefined). `arg` is passed through untouched (usually an op name). */
#define KN_TYPES_F(X, arg)                                                    \
    X(arg, F, KN_FLOAT, float, float)                                         \
    X(arg, F, KN_DOUBLE, double, double)
#define KN_TYPES_S(X, arg)                                                    \
    X(arg, S, KN_INT8, int8_t, uint8_t)                                       \
    X(arg, S, KN_INT16, int16_t, uint16_t)                                    \
    X(arg, S, KN_INT32, int32_t, uint32_t)                                    \
    X(arg, S, KN_INT64, int64_t, uint64_t)
#define KN_TYPES_U(X, arg)                                                    \
    X(arg, U, KN_UINT8, uint8_t, uint8_t)                                     \
    X(arg, U, KN_UINT16, uint16_t, uint16_t)                                  \
    X(arg, U, KN_UINT32, uint32_t, uint32_t)                                  \
    X(arg, U, KN_UINT64, uint64_t, uint64_t)
#define KN_TYPES_INT(X, arg) KN_TYPES_S(X, arg) KN_TYPES_U(X, arg)
/* Every dtype with a native C arithmetic type (float16/bfloat16 are
 * computed in float through kn_convert; bool is uint8_t where allowed). */
#define KN_TYPES_REAL(X, arg) KN_TYPES_F(X, arg) KN_TYPES_INT(X, arg)

#define KN_MASK_HALF (KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))
#define KN_MASK_SINTS                                                         \
    (KN_BIT(KN_INT8) | KN_BIT(KN_INT16) | KN_BIT(KN_INT32) | KN_BIT(KN_INT64))
/* Anything a data-movement op can carry: every fixed-size dtype. */
#define KN_MASK_ANY_FIXED                                                     \
    (KN_MASK_ALL | KN_BIT(KN_COMPLEX64) | KN_BIT(KN_COMPLEX128))

/* Elements per chunk when a loop computes through a temporary buffer on the
 * stack (float16 math in float, Cast through double or int64). */
#define KN_CHUNK 256

/* Elementwise work below this many elements runs on one thread: handing it
 * to the pool costs more than it saves. */
#define KN_GRAIN 16384

/* ---- conversions (tensor_common.c) ---- */

/* 1 for every dtype kernels compute through kn_convert: all numeric ones,
 * bool, float16, bfloat16 (not string, not complex, not float8: an op
 * taking float8 says so with kn_cast_supported). */
int kn_convert_supported(int32_t dtype);
/* kn_convert_supported plus the float8 and the packed sub-byte dtypes: what
 * Cast, CastLike and the quantizers convert between. */
int kn_cast_supported(int32_t dtype);
/* Converts n elements. Integer/bool to integer/bool is exact (through
 * int64, wrapping like C's unsigned conversions); anything involving a
 * floating type goes through double. Float to integer saturates to int64
 * first and NaN becomes 0, so no conversion is undefined behaviour. To bool:
 * nonzero is true. To float8: rounded once from the double, saturating
 * (ONNX's default; E8M0 rounds up), see kn_convert_cast. A packed sub-byte
 * dtype (packed.h) is converted from / into its packed bytes starting at
 * element 0; kn_convert_span starts elsewhere. Never allocates. */
void kn_convert(int32_t src_dtype, const void *src, int32_t dst_dtype, void *dst, int64_t n);
/* kn_convert with Cast's attributes for a float8 destination: saturate
 * (0: out-of-range values become inf or NaN, see kn_f32_to_f8) and, for
 * E8M0, round_mode (KN_E8M0_ROUND_*). Other destinations ignore both. */
void kn_convert_cast(int32_t src_dtype, const void *src, int32_t dst_dtype, void *dst,
                     int64_t n, int saturate, int e8m0_round);
/* kn_convert_cast of elements [src_first, src_first + n) of src into
 * elements [dst_first, dst_first + n) of dst: the form that also serves
 * the packed dtypes, whose elements have no byte address. To packed
 * integers the value wraps to the low bits (as Cast wraps every integer
 * type); to FLOAT4E2M1 it is rounded to nearest even and saturates. A
 * packed dst byte is read and rewritten: parallel callers split at
 * multiples of kn_packed_per_byte (packed.h). */
void kn_convert_span(int32_t src_dtype, const void *src, int64_t src_first, int32_t dst_dtype,
                     void *dst, int64_t dst_first, int64_t n, int saturate, int e8m0_round);
/* Writes n copies of one elem_size-byte element. */
void kn_fill_pattern(void *dst, const void *elem, size_t elem_size, int64_t n);
/* Stores v converted to dtype into elem (which has room for 8 bytes). */
void kn_scalar_from_double(int32_t dtype, double v, void *elem);

/* ---- constant inputs that decide shapes (tensor_common.c) ---- */

/* Reads integer input `idx` (int32 or int64, rank 0 or 1) into vals[0..cap).
 * Fails with KN_ERR_NEEDS_VALUE when the value is not known at prepare
 * time, KN_ERR_DTYPE / KN_ERR_SHAPE when it is not a short integer list. */
int kn_const_ints(kn_kctx *k, int32_t idx, const char *what, int64_t *vals, int32_t cap,
                  int32_t *count);
/* The input, or NULL when omitted (index past n_in or a NULL slot). */
static inline kn_tensor *kn_input(const kn_kctx *k, int32_t idx)
{
    return idx < k->n_in ? k->in[idx] : NULL;
}
static inline kn_tensor *kn_output(const kn_kctx *k, int32_t idx)
{
    return idx < k->n_out ? k->out[idx] : NULL;
}
/* Fails with KN_ERR_INVALID_MODEL unless inputs 0..n-1 and output 0 are
 * all present (a malformed model can leave a required one empty). */
int kn_need_inputs(kn_kctx *k, int32_t n);
/* Normalises a list of axes against rank, rejecting duplicates and values
 * out of range ([-rank, rank) when allow_negative, else [0, rank)). */
int kn_norm_axes(kn_kctx *k, const int64_t *axes, int32_t n, int32_t rank, int allow_negative,
                 int32_t *out);
/* Copies dtype/rank/dims (not data) from src to dst. */
void kn_copy_desc(kn_tensor *dst, const kn_tensor *src);

/* ---- strided copy (strided.c) ---- */

#define KN_STRIDED_MAX_RANK (2 * KN_MAX_RANK)

/* Copy of a strided view of a source into a dense, row-major destination:
 * dst[i0..ik] = src[offset + sum(i_j * stride_j)]. Strides are in elements
 * and may be zero (broadcast) or negative (reversed Slice). */
typedef struct kn_strided_plan {
    int32_t rank;
    size_t elem_size;
    int64_t numel;
    int64_t dims[KN_STRIDED_MAX_RANK];
    int64_t strides[KN_STRIDED_MAX_RANK];
    int64_t offset;
} kn_strided_plan;

/* Builds a plan, dropping size-1 dims and merging dims the view walks
 * contiguously, so a Transpose that moves only size-1 dims becomes one
 * memcpy. */
void kn_strided_init(kn_strided_plan *p, size_t elem_size, int32_t rank, const int64_t *dims,
                     const int64_t *strides, int64_t offset);
/* Runs the plan, split across the pool. Never allocates. */
void kn_strided_run(const kn_strided_plan *p, const void *src, void *dst, kn_threadpool *pool);
/* Row-major element strides of a tensor's dims. */
void kn_dense_strides(const int64_t *dims, int32_t rank, int64_t *strides);

/* ---- broadcast plans (broadcast.c) ---- */

#define KN_BCAST_MAX_IN 3

/* How up to three inputs are read while walking the output in row-major
 * order: dims are the output's (size-1 dims dropped, compatible dims
 * merged), strides per input in elements with 0 where it is broadcast. The
 * innermost stride of each input is always 0 or 1. */
typedef struct kn_bcast_plan {
    int32_t n_in;
    int32_t rank; /* >= 1 */
    int64_t numel;
    int64_t dims[KN_MAX_RANK];
    int64_t strides[KN_BCAST_MAX_IN][KN_MAX_RANK];
} kn_bcast_plan;

/* Plans reading in[0..n_in) broadcast to out's shape (which must be their
 * broadcast, e.g. from kn_broadcast_shape). */
void kn_bcast_init(kn_bcast_plan *p, const kn_tensor *out, int32_t n_in, const kn_tensor *const *in);

/* Called for each contiguous run of n output elements: in_off[i] and
 * out_off are element offsets where the run starts; input i advances by
 * p->strides[i][p->rank - 1] (0 or 1) per element. */
typedef void (*kn_bcast_row_fn)(void *ctx, const int64_t *in_off, int64_t out_off, int64_t n);

/* Visits output elements [begin, end) row by row. */
void kn_bcast_walk(const kn_bcast_plan *p, int64_t begin, int64_t end, kn_bcast_row_fn row,
                   void *ctx);

#endif
