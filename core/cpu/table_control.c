/* CPU kernels: control flow (If, Loop, Scan), which run subgraphs through
 * the engine services in kn_kctx. One row per kn_op_def. */
#include <stddef.h>

#include "core/op.h"

extern const kn_op_def kn_op_If, kn_op_Loop, kn_op_Scan8, kn_op_Scan;

const kn_op_def *const kn_cpu_control_ops[] = {
    &kn_op_If,
    &kn_op_Loop,
    &kn_op_Scan8,
    &kn_op_Scan,
    NULL,
};
