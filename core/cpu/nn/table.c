/* The nn family of CPU kernels: convolution, matrix products, pooling,
 * normalization, softmax, losses, attention and the other layers of a network.
 * One row per kn_op_def, grouped by the file that defines it; several rows for
 * one op where opset ranges or dtypes differ. core/cpu/backend_cpu.c lists
 * this table. */
#include <stddef.h>

#include "core/kernel/op.h"

extern const kn_op_def kn_op_conv_1, kn_op_conv_11;
extern const kn_op_def kn_op_maxpool_1, kn_op_maxpool_8, kn_op_maxpool_10, kn_op_maxpool_11,
    kn_op_maxpool_12, kn_op_averagepool_1, kn_op_averagepool_7, kn_op_averagepool_10,
    kn_op_averagepool_11, kn_op_averagepool_19;
extern const kn_op_def kn_op_globalaveragepool, kn_op_globalmaxpool;
extern const kn_op_def kn_op_batchnorm_1, kn_op_batchnorm_6, kn_op_batchnorm_7, kn_op_batchnorm_9,
    kn_op_batchnorm_14, kn_op_batchnorm_15;
extern const kn_op_def kn_op_gemm_1, kn_op_gemm_7, kn_op_gemm_9, kn_op_gemm_11, kn_op_gemm_13;
extern const kn_op_def kn_op_matmul_1, kn_op_matmul_9, kn_op_matmul_13;
extern const kn_op_def kn_op_softmax_1, kn_op_softmax_13, kn_op_logsoftmax_1, kn_op_logsoftmax_13,
    kn_op_hardmax_1, kn_op_hardmax_13;
extern const kn_op_def kn_op_NegativeLogLikelihoodLoss, kn_op_SoftmaxCrossEntropyLoss;
extern const kn_op_def kn_op_LayerNormalization, kn_op_RMSNormalization,
    kn_op_InstanceNormalization, kn_op_GroupNormalization;
extern const kn_op_def kn_op_LRN;
extern const kn_op_def kn_op_MeanVarianceNormalization;
extern const kn_op_def kn_op_LpNormalization;
extern const kn_op_def kn_op_Einsum;
extern const kn_op_def kn_op_Det;
extern const kn_op_def kn_op_convtranspose_1, kn_op_convtranspose_11;
extern const kn_op_def kn_op_maxunpool_9;
extern const kn_op_def kn_op_lppool_1, kn_op_lppool_18;
extern const kn_op_def kn_op_Adagrad, kn_op_Adam, kn_op_Momentum;
extern const kn_op_def kn_op_RotaryEmbedding, kn_op_SwiGLU;
extern const kn_op_def kn_op_Attention_23, kn_op_Attention_24;
extern const kn_op_def kn_op_FlexAttention;
extern const kn_op_def kn_op_LinearAttention;
extern const kn_op_def kn_op_CausalConvWithState;
extern const kn_op_def kn_op_DeformConv_19, kn_op_DeformConv_22;

const kn_op_def *const kn_cpu_nn_ops[] = {
    /* conv.c */
    &kn_op_conv_1, &kn_op_conv_11,
    /* pooling.c */
    &kn_op_maxpool_1, &kn_op_maxpool_8, &kn_op_maxpool_10, &kn_op_maxpool_11,
    &kn_op_maxpool_12, &kn_op_averagepool_1, &kn_op_averagepool_7, &kn_op_averagepool_10,
    &kn_op_averagepool_11, &kn_op_averagepool_19,
    /* global_pool.c */
    &kn_op_globalaveragepool, &kn_op_globalmaxpool,
    /* batchnorm.c */
    &kn_op_batchnorm_1, &kn_op_batchnorm_6, &kn_op_batchnorm_7, &kn_op_batchnorm_9,
    &kn_op_batchnorm_14, &kn_op_batchnorm_15,
    /* gemm_op.c */
    &kn_op_gemm_1, &kn_op_gemm_7, &kn_op_gemm_9, &kn_op_gemm_11, &kn_op_gemm_13,
    /* matmul.c */
    &kn_op_matmul_1, &kn_op_matmul_9, &kn_op_matmul_13,
    /* softmax.c */
    &kn_op_softmax_1, &kn_op_softmax_13, &kn_op_logsoftmax_1, &kn_op_logsoftmax_13,
    &kn_op_hardmax_1, &kn_op_hardmax_13,
    /* loss.c */
    &kn_op_NegativeLogLikelihoodLoss, &kn_op_SoftmaxCrossEntropyLoss,
    /* norm.c */
    &kn_op_LayerNormalization, &kn_op_RMSNormalization, &kn_op_InstanceNormalization,
    &kn_op_GroupNormalization,
    /* norm_lrn.c */
    &kn_op_LRN,
    /* norm_mvn.c */
    &kn_op_MeanVarianceNormalization,
    /* norm_lp.c */
    &kn_op_LpNormalization,
    /* einsum.c */
    &kn_op_Einsum,
    /* det.c */
    &kn_op_Det,
    /* conv_transpose.c */
    &kn_op_convtranspose_1, &kn_op_convtranspose_11,
    /* unpool.c */
    &kn_op_maxunpool_9,
    /* lp_pool.c */
    &kn_op_lppool_1, &kn_op_lppool_18,
    /* training.c */
    &kn_op_Adagrad, &kn_op_Adam, &kn_op_Momentum,
    /* misc_transformer.c */
    &kn_op_RotaryEmbedding, &kn_op_SwiGLU,
    /* attention.c */
    &kn_op_Attention_23, &kn_op_Attention_24,
    /* flex_attention.c */
    &kn_op_FlexAttention,
    /* linear_attention.c */
    &kn_op_LinearAttention,
    /* causal_conv.c */
    &kn_op_CausalConvWithState,
    /* deform_conv.c */
    &kn_op_DeformConv_19, &kn_op_DeformConv_22,
    NULL,
};
