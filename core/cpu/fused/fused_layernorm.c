/* kiln.LayerNormalization: ai.onnx LayerNormalization (opset 17 semantics:
 * X, Scale, B?; axis, epsilon, stash_type) for models importing an older
 * opset, where the optimizer found the formula written out. Runs the
 * standard kernel. */
#include <stdlib.h>

#include "core/kernel/fused_common.h"

static void ln_release(kn_kctx *k)
{
    kn_inner_op *in = k->state;
    if (in)
        kn_inner_release(in);
    free(in);
    k->state = NULL;
}

static int ln_prepare(kn_kctx *k)
{
    kn_inner_op *in = calloc(1, sizeof *in);
    if (!in)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "LayerNormalization: out of memory");
    k->state = in;
    int rc = kn_inner_prepare(in, k, "LayerNormalization", 17, 3);
    if (rc != KN_OK)
        ln_release(k);
    return rc;
}

static int ln_run(kn_kctx *k) { return kn_inner_run(k->state, k); }

const kn_op_def kn_op_kiln_LayerNormalization = {
    .domain = "kiln", .op_type = "LayerNormalization", .since_version = 1,
    .dtypes = KN_BIT(KN_FLOAT), .prepare = ln_prepare, .run = ln_run, .release = ln_release
};
