/* CPU kernels: reductions, normalisations, losses, TopK, Einsum. One row per kn_op_def. */
#include <stddef.h>

#include "core/op.h"

const kn_op_def *const kn_cpu_reduce_ops[] = {
    NULL,
};
