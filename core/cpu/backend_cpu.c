/* The portable CPU backend: Kiln's own kernels, one table per operator
 * family (core/cpu/<family>/table.c). Always available, host memory, no
 * variants to tune; it serves every op Kiln knows, so it comes last. */
#include <stddef.h>

#include "core/kernel/backend.h"

extern const kn_op_def *const kn_cpu_nn_ops[];
extern const kn_op_def *const kn_cpu_elementwise_ops[];
extern const kn_op_def *const kn_cpu_tensor_ops[];
extern const kn_op_def *const kn_cpu_reduce_ops[];
extern const kn_op_def *const kn_cpu_image_ops[];
extern const kn_op_def *const kn_cpu_rnn_ops[];
extern const kn_op_def *const kn_cpu_signal_ops[];
extern const kn_op_def *const kn_cpu_quant_ops[];
extern const kn_op_def *const kn_cpu_text_ops[];
extern const kn_op_def *const kn_cpu_ml_ops[];
extern const kn_op_def *const kn_cpu_control_ops[];
extern const kn_op_def *const kn_cpu_fused_ops[];

static const kn_op_def *const *const cpu_tables[] = {
    kn_cpu_nn_ops,
    kn_cpu_elementwise_ops,
    kn_cpu_tensor_ops,
    kn_cpu_reduce_ops,
    kn_cpu_image_ops,
    kn_cpu_rnn_ops,
    kn_cpu_signal_ops,
    kn_cpu_quant_ops,
    kn_cpu_text_ops,
    kn_cpu_ml_ops,
    kn_cpu_control_ops,
    kn_cpu_fused_ops,
    NULL,
};

const kn_backend kn_backend_cpu = {
    .name = "cpu",
    .kernel_tables = cpu_tables,
    .memory = {.kind = KN_MEMORY_HOST},
};
