/* The control family of CPU kernels: control flow (If, Loop, Scan) and
 * sequence and optional values. One row per kn_op_def, grouped by the file
 * that defines it; several rows for one op where opset ranges or dtypes
 * differ. core/cpu/backend_cpu.c lists this table. */
#include <stddef.h>

#include "core/kernel/op.h"

extern const kn_op_def kn_op_If, kn_op_Loop;
extern const kn_op_def kn_op_Scan8, kn_op_Scan;
extern const kn_op_def kn_op_SequenceEmpty, kn_op_SequenceConstruct, kn_op_SequenceInsert,
    kn_op_SequenceErase, kn_op_SequenceAt, kn_op_SequenceLength, kn_op_SplitToSequence,
    kn_op_ConcatFromSequence, kn_op_SequenceMap, kn_op_Optional, kn_op_OptionalHasElement,
    kn_op_OptionalGetElement;

const kn_op_def *const kn_cpu_control_ops[] = {
    /* control_if_loop.c */
    &kn_op_If, &kn_op_Loop,
    /* control_scan.c */
    &kn_op_Scan8, &kn_op_Scan,
    /* sequence_ops.c */
    &kn_op_SequenceEmpty, &kn_op_SequenceConstruct, &kn_op_SequenceInsert,
    &kn_op_SequenceErase, &kn_op_SequenceAt, &kn_op_SequenceLength, &kn_op_SplitToSequence,
    &kn_op_ConcatFromSequence, &kn_op_SequenceMap, &kn_op_Optional, &kn_op_OptionalHasElement,
    &kn_op_OptionalGetElement,
    NULL,
};
