/* The ml family of CPU kernels: the ai.onnx.ml domain ops on numeric tensors.
 * One row per kn_op_def, grouped by the file that defines it; several rows for
 * one op where opset ranges or dtypes differ. core/cpu/backend_cpu.c lists
 * this table. */
#include <stddef.h>

#include "core/kernel/op.h"

extern const kn_op_def kn_op_Binarizer, kn_op_ArrayFeatureExtractor, kn_op_TreeEnsemble;

const kn_op_def *const kn_cpu_ml_ops[] = {
    /* misc_ml.c */
    &kn_op_Binarizer, &kn_op_ArrayFeatureExtractor, &kn_op_TreeEnsemble,
    NULL,
};
