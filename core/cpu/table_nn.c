/* CPU kernels for neural-network layers (convolution, pooling,
 * normalisation, matrix products, softmax). One row per kn_op_def. */
#include "core/op.h"

const kn_op_def *const kn_cpu_nn_ops[] = {
    NULL,
};
