/* The packed sub-byte element types: UINT4, INT4, FLOAT4E2M1 (4 bits) and
 * UINT2, INT2 (2 bits). Element i of a tensor sits in byte i / per at bit
 * (i % per) * bits, low bits first (per = 8 / bits elements per byte); the
 * tensor holds ceil(numel * bits / 8) bytes and the bits past the last
 * element of its last byte are zero in every output a kernel writes.
 *
 * Kernels never compute on packed data directly: they unpack a span to one
 * byte per element (sign-extended int8 for INT4/INT2, uint8 for UINT4/UINT2,
 * the 4-bit code for FLOAT4E2M1), work on that, and pack the result back.
 * Private to core/cpu. */
#ifndef KN_CPU_PACKED_H
#define KN_CPU_PACKED_H

#include <stdint.h>

#include "core/ir/tensor.h"

/* Elements per byte: 2 (4-bit) or 4 (2-bit); 1 for every other dtype, so
 * callers can use it to align work for any dtype. */
static inline int64_t kn_packed_per_byte(int32_t dtype)
{
    return kn_dtype_is_packed(dtype) ? 8 / kn_dtype_bits(dtype) : 1;
}

/* The one-byte dtype an unpacked element has: KN_INT8 (INT4, INT2),
 * KN_UINT8 (UINT4, UINT2) or KN_FLOAT4E2M1 itself (the code, decoded with
 * kn_f4_to_f32); KN_UNDEFINED for a dtype that is not packed. */
int32_t kn_packed_unpacked_dtype(int32_t dtype);

/* Reads elements [first, first + n) of packed src into dst[0..n), one byte
 * each (see above). */
void kn_packed_unpack(int32_t dtype, const void *src, int64_t first, int64_t n, uint8_t *dst);
/* Writes elements [first, first + n) of packed dst from the low bits of
 * src[0..n) (higher bits are ignored: an integer wraps); the other
 * elements' bits are kept. A byte is read and rewritten, so two threads
 * must never write elements of one byte: split work at multiples of
 * kn_packed_per_byte. */
void kn_packed_pack(int32_t dtype, const uint8_t *src, int64_t n, void *dst, int64_t first);
/* Zeroes the bits past element numel - 1 in the last byte of a tensor of
 * numel elements (what a kernel calls once its output is written). */
void kn_packed_clear_tail(int32_t dtype, void *data, int64_t numel);

/* FLOAT4E2M1: 1 sign, 2 exponent (bias 1), 1 mantissa bit; magnitudes
 * 0, 0.5, 1, 1.5, 2, 3, 4, 6 for codes 0..7, bit 3 the sign; no infinity,
 * no NaN. */
float kn_f4_to_f32(uint8_t code);
/* Rounds to nearest, ties to even; finite values beyond 6 and infinities
 * saturate to +-6 (ONNX casts to float4 always saturate); values that
 * round to zero keep their sign; NaN gives 0x8 (-0), as ONNX's reference
 * (ml_dtypes) does. */
uint8_t kn_f64_to_f4(double v);

#endif
