/* CPU kernels for neural-network layers (convolution, pooling,
 * normalisation, matrix products, softmax). One row per kn_op_def. */
#include "core/op.h"

extern const kn_op_def kn_op_conv_1, kn_op_conv_11;
extern const kn_op_def kn_op_maxpool_1, kn_op_maxpool_8, kn_op_maxpool_10, kn_op_maxpool_11,
    kn_op_maxpool_12;
extern const kn_op_def kn_op_averagepool_1, kn_op_averagepool_7, kn_op_averagepool_10,
    kn_op_averagepool_11, kn_op_averagepool_19;
extern const kn_op_def kn_op_globalaveragepool, kn_op_globalmaxpool;
extern const kn_op_def kn_op_batchnorm_1, kn_op_batchnorm_6, kn_op_batchnorm_7, kn_op_batchnorm_9,
    kn_op_batchnorm_14, kn_op_batchnorm_15;
extern const kn_op_def kn_op_gemm_1, kn_op_gemm_7, kn_op_gemm_9, kn_op_gemm_11, kn_op_gemm_13;
extern const kn_op_def kn_op_matmul_1, kn_op_matmul_9, kn_op_matmul_13;
extern const kn_op_def kn_op_softmax_1, kn_op_softmax_13, kn_op_logsoftmax_1,
    kn_op_logsoftmax_13, kn_op_hardmax_1, kn_op_hardmax_13;

const kn_op_def *const kn_cpu_nn_ops[] = {
    /* conv.c */
    &kn_op_conv_1,
    &kn_op_conv_11,
    /* pool.c */
    &kn_op_maxpool_1,
    &kn_op_maxpool_8,
    &kn_op_maxpool_10,
    &kn_op_maxpool_11,
    &kn_op_maxpool_12,
    &kn_op_averagepool_1,
    &kn_op_averagepool_7,
    &kn_op_averagepool_10,
    &kn_op_averagepool_11,
    &kn_op_averagepool_19,
    /* global_pool.c */
    &kn_op_globalaveragepool,
    &kn_op_globalmaxpool,
    /* batchnorm.c */
    &kn_op_batchnorm_1,
    &kn_op_batchnorm_6,
    &kn_op_batchnorm_7,
    &kn_op_batchnorm_9,
    &kn_op_batchnorm_14,
    &kn_op_batchnorm_15,
    /* gemm_op.c */
    &kn_op_gemm_1,
    &kn_op_gemm_7,
    &kn_op_gemm_9,
    &kn_op_gemm_11,
    &kn_op_gemm_13,
    /* matmul.c */
    &kn_op_matmul_1,
    &kn_op_matmul_9,
    &kn_op_matmul_13,
    /* softmax.c */
    &kn_op_softmax_1,
    &kn_op_softmax_13,
    &kn_op_logsoftmax_1,
    &kn_op_logsoftmax_13,
    &kn_op_hardmax_1,
    &kn_op_hardmax_13,
    NULL,
};
