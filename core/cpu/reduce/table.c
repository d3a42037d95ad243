/* The reduce family of CPU kernels: reductions, ArgMin/ArgMax and cumulative
 * sums and products. One row per kn_op_def, grouped by the file that defines
 * it; several rows for one op where opset ranges or dtypes differ.
 * core/cpu/backend_cpu.c lists this table. */
#include <stddef.h>

#include "core/kernel/op.h"

extern const kn_op_def kn_op_CumSum;
extern const kn_op_def kn_op_ReduceSum_1, kn_op_ReduceSum_13, kn_op_ReduceMean_1,
    kn_op_ReduceMean_18, kn_op_ReduceProd_1, kn_op_ReduceProd_18, kn_op_ReduceMax_1,
    kn_op_ReduceMax_18, kn_op_ReduceMin_1, kn_op_ReduceMin_18, kn_op_ReduceL1_1, kn_op_ReduceL1_18,
    kn_op_ReduceL2_1, kn_op_ReduceL2_18, kn_op_ReduceLogSum_1, kn_op_ReduceLogSum_18,
    kn_op_ReduceLogSumExp_1, kn_op_ReduceLogSumExp_18, kn_op_ReduceSumSquare_1,
    kn_op_ReduceSumSquare_18;
extern const kn_op_def kn_op_ArgMax, kn_op_ArgMin;
extern const kn_op_def kn_op_CumProd;

const kn_op_def *const kn_cpu_reduce_ops[] = {
    /* cumsum.c */
    &kn_op_CumSum,
    /* reduce.c */
    &kn_op_ReduceSum_1, &kn_op_ReduceSum_13, &kn_op_ReduceMean_1, &kn_op_ReduceMean_18,
    &kn_op_ReduceProd_1, &kn_op_ReduceProd_18, &kn_op_ReduceMax_1, &kn_op_ReduceMax_18,
    &kn_op_ReduceMin_1, &kn_op_ReduceMin_18, &kn_op_ReduceL1_1, &kn_op_ReduceL1_18,
    &kn_op_ReduceL2_1, &kn_op_ReduceL2_18, &kn_op_ReduceLogSum_1, &kn_op_ReduceLogSum_18,
    &kn_op_ReduceLogSumExp_1, &kn_op_ReduceLogSumExp_18, &kn_op_ReduceSumSquare_1,
    &kn_op_ReduceSumSquare_18,
    /* argminmax.c */
    &kn_op_ArgMax, &kn_op_ArgMin,
    /* cumprod.c */
    &kn_op_CumProd,
    NULL,
};
