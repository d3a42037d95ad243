/* CPU kernels: quantized ops and value-dependent or random ops (QuantizeLinear, QLinearConv, NonZero, Unique, ...). One row per kn_op_def. */
#include <stddef.h>

#include "core/op.h"

const kn_op_def *const kn_cpu_quant_ops[] = {
    NULL,
};
