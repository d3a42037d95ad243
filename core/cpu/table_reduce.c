/* CPU kernels: reductions, normalisations, losses, TopK, Einsum. One row per kn_op_def. */
#include <stddef.h>

#include "core/op.h"

/* reduce.c: axes as an attribute / as an input */
#define KN_REDUCE_DECL(NAME, SPLIT) extern const kn_op_def kn_op_##NAME##_1, kn_op_##NAME##_##SPLIT;
KN_REDUCE_DECL(ReduceSum, 13)
KN_REDUCE_DECL(ReduceMean, 18)
KN_REDUCE_DECL(ReduceProd, 18)
KN_REDUCE_DECL(ReduceMax, 18)
KN_REDUCE_DECL(ReduceMin, 18)
KN_REDUCE_DECL(ReduceL1, 18)
KN_REDUCE_DECL(ReduceL2, 18)
KN_REDUCE_DECL(ReduceLogSum, 18)
KN_REDUCE_DECL(ReduceLogSumExp, 18)
KN_REDUCE_DECL(ReduceSumSquare, 18)
extern const kn_op_def kn_op_ArgMax, kn_op_ArgMin;
extern const kn_op_def kn_op_NegativeLogLikelihoodLoss, kn_op_SoftmaxCrossEntropyLoss;
extern const kn_op_def kn_op_LayerNormalization, kn_op_RMSNormalization,
    kn_op_InstanceNormalization, kn_op_GroupNormalization;
extern const kn_op_def kn_op_LRN, kn_op_MeanVarianceNormalization, kn_op_LpNormalization;
extern const kn_op_def kn_op_TopK_1, kn_op_TopK_10;
extern const kn_op_def kn_op_Einsum;
extern const kn_op_def kn_op_Det;

const kn_op_def *const kn_cpu_reduce_ops[] = {
    /* reduce.c */
    &kn_op_ReduceSum_1,
    &kn_op_ReduceSum_13,
    &kn_op_ReduceMean_1,
    &kn_op_ReduceMean_18,
    &kn_op_ReduceProd_1,
    &kn_op_ReduceProd_18,
    &kn_op_ReduceMax_1,
    &kn_op_ReduceMax_18,
    &kn_op_ReduceMin_1,
    &kn_op_ReduceMin_18,
    &kn_op_ReduceL1_1,
    &kn_op_ReduceL1_18,
    &kn_op_ReduceL2_1,
    &kn_op_ReduceL2_18,
    &kn_op_ReduceLogSum_1,
    &kn_op_ReduceLogSum_18,
    &kn_op_ReduceLogSumExp_1,
    &kn_op_ReduceLogSumExp_18,
    &kn_op_ReduceSumSquare_1,
    &kn_op_ReduceSumSquare_18,
    /* argminmax.c */
    &kn_op_ArgMax,
    &kn_op_ArgMin,
    /* loss.c */
    &kn_op_NegativeLogLikelihoodLoss,
    &kn_op_SoftmaxCrossEntropyLoss,
    /* norm.c */
    &kn_op_LayerNormalization,
    &kn_op_RMSNormalization,
    &kn_op_InstanceNormalization,
    &kn_op_GroupNormalization,
    /* norm_lrn.c, norm_mvn.c, norm_lp.c */
    &kn_op_LRN,
    &kn_op_MeanVarianceNormalization,
    &kn_op_LpNormalization,
    /* topk.c */
    &kn_op_TopK_1,
    &kn_op_TopK_10,
    /* einsum.c */
    &kn_op_Einsum,
    /* det.c */
    &kn_op_Det,
    NULL,
};
