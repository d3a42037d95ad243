/* CPU kernels: string tensors (string_ops.c). One row per kn_op_def. */
#include <stddef.h>

#include "core/op.h"

#define STRING_OPS(X) X(StringNormalizer) X(StringConcat) X(StringSplit)

#define DECLARE(name) extern const kn_op_def kn_op_##name;
#define ENTRY(name) &kn_op_##name,

STRING_OPS(DECLARE)

const kn_op_def *const kn_cpu_string_ops[] = {
    STRING_OPS(ENTRY)
    NULL,
};
