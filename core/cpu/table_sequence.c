/* CPU kernels: sequence and optional values (sequence_ops.c). One row per
 * kn_op_def. */
#include <stddef.h>

#include "core/op.h"

#define SEQUENCE_OPS(X)                                                       \
    X(SequenceEmpty) X(SequenceConstruct) X(SequenceInsert) X(SequenceErase)  \
    X(SequenceAt) X(SequenceLength) X(SplitToSequence) X(ConcatFromSequence) \
    X(SequenceMap) X(Optional) X(OptionalHasElement) X(OptionalGetElement)

#define DECLARE(name) extern const kn_op_def kn_op_##name;
#define ENTRY(name) &kn_op_##name,

SEQUENCE_OPS(DECLARE)

const kn_op_def *const kn_cpu_sequence_ops[] = {
    SEQUENCE_OPS(ENTRY)
    NULL,
};
