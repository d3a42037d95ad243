/* Shared by the com.microsoft quantized ops (ms_*.c), the contrib ops ONNX
 * Runtime's quantization tool writes into QOperator models (QLinearAdd,
 * QLinearConcat, QGemm, ...). All are domain com.microsoft, version 1.
 *
 * Their 8-bit operands are handled as raw bytes: int8 and uint8 differ only
 * in what a byte means, so a table indexed by the byte (built once from the
 * decoded values) serves both types with one loop, and a result already
 * clamped to the type's range is stored as its low byte (two's complement
 * for int8). Sums use the order-preserving map value = (byte ^ flip) -
 * offset (flip 0x80 and offset 128 for int8, 0 and 0 for uint8), so
 * windows are summed as unsigned bytes and corrected once. */
#ifndef KN_CPU_QUANT_MS_QUANT_H
#define KN_CPU_QUANT_MS_QUANT_H

#include <stdint.h>

#include "core/cpu/quant/quant_common.h"

#define QUANT_MS_DOMAIN "com.microsoft"

static inline int q8_is(int32_t dtype) { return dtype == KN_INT8 || dtype == KN_UINT8; }

/* The integer a byte of an int8 or uint8 tensor holds. */
static inline int32_t q8_value(int32_t dtype, uint8_t byte)
{
    return dtype == KN_INT8 ? (int32_t)(int8_t)byte : (int32_t)byte;
}
static inline uint8_t q8_flip(int32_t dtype) { return dtype == KN_INT8 ? 0x80 : 0; }
static inline int32_t q8_offset(int32_t dtype) { return dtype == KN_INT8 ? 128 : 0; }

/* Quantizes v (already divided by the output scale) to dtype's range with
 * zero point zp, as the byte to store. */
static inline uint8_t q8_quantize(double v, int32_t zp, int32_t dtype)
{
    return dtype == KN_INT8 ? (uint8_t)quant_saturate(v, zp, INT8_MIN, INT8_MAX)
                            : (uint8_t)quant_saturate(v, zp, 0, UINT8_MAX);
}

/* Checks the per-tensor (one element) scale and optional zero point of an
 * 8-bit operand `what` whose type is dtype; the scale is required.
 * Returns KN_OK or fails naming the op and the operand. */
int ms_check_scalar_pair(kn_kctx *k, const char *what, const kn_tensor *scale,
                         const kn_tensor *zp, int32_t dtype);

/* Fails unless every input whose bit is set in `slots` (bit i: input i)
 * and output 0 are present; `names` says which inputs those are, for the
 * message. Zero points are optional in these ops (0 when omitted), so
 * kn_need_inputs, which wants every input up to some index, does not fit. */
int ms_require(kn_kctx *k, uint32_t slots, const char *names);

/* Fails unless t is int8 or uint8; `what` names it ("A", "X"). */
int ms_check_q8(kn_kctx *k, const char *what, const kn_tensor *t);

/* The scale as float and the zero point as int (0 when omitted). */
static inline float ms_scale(const kn_tensor *s) { return quant_scale_at(s, 0); }
static inline int32_t ms_zp(const kn_tensor *zp) { return quant_zp_at(zp, 0); }

/* Whether a value is known at prepare time (an initializer or folded
 * constant): optional inputs that are absent count as known. */
static inline int ms_known(const kn_tensor *t) { return !t || t->data != NULL; }

/* Copies rows x cols bytes of src into dst transposed (cols x rows). */
void ms_transpose_bytes(const uint8_t *src, uint8_t *dst, int64_t rows, int64_t cols);

#endif
