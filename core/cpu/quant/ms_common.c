/* Checks and helpers the com.microsoft quantized ops share (ms_quant.h). */
#include "core/cpu/quant/ms_quant.h"
#include "core/kernel/tensor_common.h"

int ms_require(kn_kctx *k, uint32_t slots, const char *names)
{
    for (int32_t i = 0; i < 32; i++)
        if ((slots >> i & 1u) && !kn_input(k, i))
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: input %d is missing (%s are required)",
                           k->node->op_type, (int)i, names);
    if (k->n_out < 1 || !k->out[0])
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: output 0 is required but missing",
                       k->node->op_type);
    return KN_OK;
}

int ms_check_q8(kn_kctx *k, const char *what, const kn_tensor *t)
{
    if (!q8_is(t->dtype))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: %s must be int8 or uint8, not %s",
                       k->node->op_type, what, kn_dtype_name(t->dtype));
    return KN_OK;
}

int ms_check_scalar_pair(kn_kctx *k, const char *what, const kn_tensor *scale,
                         const kn_tensor *zp, int32_t dtype)
{
    if (!scale)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: %s_scale is required", k->node->op_type,
                       what);
    return quant_check_pair(k, what, scale, zp, dtype, -1);
}

void ms_transpose_bytes(const uint8_t *src, uint8_t *dst, int64_t rows, int64_t cols)
{
    /* blocks of 32 x 32 keep both sides in cache */
    for (int64_t r0 = 0; r0 < rows; r0 += 32)
        for (int64_t c0 = 0; c0 < cols; c0 += 32) {
            int64_t r1 = r0 + 32 < rows ? r0 + 32 : rows, c1 = c0 + 32 < cols ? c0 + 32 : cols;
            for (int64_t r = r0; r < r1; r++)
                for (int64_t c = c0; c < c1; c++)
                    dst[c * rows + r] = src[r * cols + c];
        }
}
