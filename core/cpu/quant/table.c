/* The quant family of CPU kernels: quantization:
 * QuantizeLinear/DequantizeLinear, the integer and QLinear ops, and the
 * com.microsoft quantized ops of QOperator models. One row per
 * kn_op_def, grouped by the file that defines it; several rows for one op
 * where opset ranges or dtypes differ. core/cpu/backend_cpu.c lists this
 * table. */
#include <stddef.h>

#include "core/kernel/op.h"

extern const kn_op_def kn_op_MatMulInteger, kn_op_ConvInteger;
extern const kn_op_def kn_op_QuantizeLinear, kn_op_QuantizeLinear_13, kn_op_QuantizeLinear_19,
    kn_op_QuantizeLinear_21, kn_op_DequantizeLinear, kn_op_DequantizeLinear_13,
    kn_op_DequantizeLinear_19, kn_op_DequantizeLinear_21, kn_op_DynamicQuantizeLinear;
extern const kn_op_def kn_op_QLinearMatMul, kn_op_QLinearMatMul_21, kn_op_QLinearConv,
    kn_op_QFusedConv;
/* com.microsoft contrib ops of QOperator models (ms_*.c) */
extern const kn_op_def kn_op_QLinearAdd, kn_op_QLinearMul, kn_op_QLinearSigmoid,
    kn_op_QLinearLeakyRelu, kn_op_QLinearAveragePool, kn_op_QLinearGlobalAveragePool,
    kn_op_QLinearConcat, kn_op_QLinearSoftmax, kn_op_QGemm, kn_op_DynamicQuantizeMatMul,
    kn_op_MatMulIntegerToFloat, kn_op_QAttention, kn_op_MsQuantizeLinear,
    kn_op_MsDequantizeLinear;
/* kiln.QFusedMatMul: MatMulIntegerToFloat with its epilogue (ms_matmul_float.c) */
extern const kn_op_def kn_op_QFusedMatMul;

const kn_op_def *const kn_cpu_quant_ops[] = {
    /* integer_ops.c */
    &kn_op_MatMulInteger, &kn_op_ConvInteger,
    /* quantize.c */
    &kn_op_QuantizeLinear, &kn_op_QuantizeLinear_13, &kn_op_QuantizeLinear_19,
    &kn_op_QuantizeLinear_21, &kn_op_DequantizeLinear, &kn_op_DequantizeLinear_13,
    &kn_op_DequantizeLinear_19, &kn_op_DequantizeLinear_21, &kn_op_DynamicQuantizeLinear,
    /* qlinear.c */
    &kn_op_QLinearMatMul, &kn_op_QLinearMatMul_21, &kn_op_QLinearConv, &kn_op_QFusedConv,
    /* ms_binary.c, ms_lookup.c, ms_pool.c, ms_concat.c, ms_softmax.c */
    &kn_op_QLinearAdd, &kn_op_QLinearMul, &kn_op_QLinearSigmoid, &kn_op_QLinearLeakyRelu,
    &kn_op_QLinearAveragePool, &kn_op_QLinearGlobalAveragePool, &kn_op_QLinearConcat,
    &kn_op_QLinearSoftmax,
    /* ms_gemm.c, ms_matmul_float.c, ms_attention.c */
    &kn_op_QGemm, &kn_op_DynamicQuantizeMatMul, &kn_op_MatMulIntegerToFloat, &kn_op_QAttention,
    &kn_op_QFusedMatMul,
    /* ms_qdq.c */
    &kn_op_MsQuantizeLinear, &kn_op_MsDequantizeLinear,
    NULL,
};
