/* CPU kernels for elementwise math and tensor manipulation. One row per
 * kn_op_def. */
#include "core/op.h"

const kn_op_def *const kn_cpu_tensor_ops[] = {
    NULL,
};
