/* The quant family of CPU kernels: quantization:
 * QuantizeLinear/DequantizeLinear and the integer and QLinear ops. One row per
 * kn_op_def, grouped by the file that defines it; several rows for one op
 * where opset ranges or dtypes differ. core/cpu/backend_cpu.c lists this
 * table. */
#include <stddef.h>

#include "core/kernel/op.h"

extern const kn_op_def kn_op_MatMulInteger, kn_op_ConvInteger;
extern const kn_op_def kn_op_QuantizeLinear, kn_op_QuantizeLinear_13, kn_op_QuantizeLinear_19,
    kn_op_QuantizeLinear_21, kn_op_DequantizeLinear, kn_op_DequantizeLinear_13,
    kn_op_DequantizeLinear_19, kn_op_DequantizeLinear_21, kn_op_DynamicQuantizeLinear;
extern const kn_op_def kn_op_QLinearMatMul, kn_op_QLinearMatMul_21, kn_op_QLinearConv;

const kn_op_def *const kn_cpu_quant_ops[] = {
    /* integer_ops.c */
    &kn_op_MatMulInteger, &kn_op_ConvInteger,
    /* quantize.c */
    &kn_op_QuantizeLinear, &kn_op_QuantizeLinear_13, &kn_op_QuantizeLinear_19,
    &kn_op_QuantizeLinear_21, &kn_op_DequantizeLinear, &kn_op_DequantizeLinear_13,
    &kn_op_DequantizeLinear_19, &kn_op_DequantizeLinear_21, &kn_op_DynamicQuantizeLinear,
    /* qlinear.c */
    &kn_op_QLinearMatMul, &kn_op_QLinearMatMul_21, &kn_op_QLinearConv,
    NULL,
};
