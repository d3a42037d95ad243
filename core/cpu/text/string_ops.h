/* String tensors in CPU kernels (string_ops.c): Cast to and from STRING,
 * used by cast.c. See kn_string in core/ir/tensor.h for where bytes live. */
#ifndef KN_CPU_STRING_OPS_H
#define KN_CPU_STRING_OPS_H

#include "core/kernel/op.h"

/* Cast/CastLike prepare when input 0 or the target is KN_STRING (the
 * other side must be numeric or bool). To STRING it needs input 0's value
 * (KN_ERR_NEEDS_VALUE otherwise) since it creates strings. */
int kn_cast_string_prepare(kn_kctx *k, int32_t to);
/* Cast/CastLike run for those cases. */
int kn_cast_string_run(kn_kctx *k);

#endif
