/* Constant folding at load: a node whose inputs are all initializers (or
 * that has none, like Constant) is run once through its CPU kernel and its
 * outputs become initializers. Plans fold such nodes too, but only per
 * session and too late for the fusion passes, which need to see Clip's
 * bounds or a scale as constants.
 *
 * Bounded: outputs larger than twice the inputs plus 1 MiB (Expand, Tile,
 * ConstantOfShape of a big shape) stay computed at plan time, so a small
 * file cannot turn into a huge model; conversions element for element
 * (DequantizeLinear, Cast) grow only by their element sizes and fold. Nodes with subgraphs, random ops,
 * strings and sequences are left alone; a kernel refusing the node leaves
 * it too (the plan reports the problem with full context later). */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/backend.h"
#include "core/base/alloc.h"
#include "core/kernel/op.h"
#include "core/opt/passes.h"

enum { FOLD_SLACK_BYTES = 1 << 20, FOLD_MAX_IO = 64 };

/* Element-for-element conversions (a QDQ model's int8 weights through
 * DequantizeLinear, Cast): their growth is bounded by the element sizes,
 * not by any shape, and folding them is what lets the weights' consumers
 * see constants. */
static int is_conversion(const kn_node *n)
{
    return (!n->domain || !n->domain[0]) && n->n_outputs == 1 &&
           (!strcmp(n->op_type, "DequantizeLinear") || !strcmp(n->op_type, "Cast"));
}

static int plain_dtype(int32_t dtype)
{
    return dtype != KN_STRING && dtype < KN_DTYPE_COUNT && kn_dtype_size(dtype) > 0;
}

static int has_subgraph(const kn_node *n)
{
    for (int32_t a = 0; a < n->n_attrs; a++)
        if (n->attrs[a].type == KN_ATTR_GRAPH || n->attrs[a].type == KN_ATTR_GRAPHS)
            return 1;
    return 0;
}

/* Inputs all initializers of plain dtypes, outputs neither observed nor
 * sequences. */
static int candidate(kn_opt *o, const kn_node *n)
{
    if (n->n_inputs > FOLD_MAX_IO || n->n_outputs > FOLD_MAX_IO || n->n_outputs < 1 ||
        has_subgraph(n))
        return 0;
    for (int32_t j = 0; j < n->n_inputs; j++) {
        if (n->inputs[j] < 0)
            continue;
        const kn_value *v = kn_opt_value(o, n->inputs[j]);
        if (!v->is_initializer || !plain_dtype(v->dtype) || v->rank < 0)
            return 0;
    }
    for (int32_t j = 0; j < n->n_outputs; j++)
        if (n->outputs[j] < 0 || kn_opt_is_observed(o, n->outputs[j]) ||
            kn_opt_value(o, n->outputs[j])->kind != KN_KIND_TENSOR)
            return 0;
    return 1;
}

/* Runs node id; returns KN_OK whether or not it folded, an error only when
 * out of memory. */
static int fold_node(kn_opt *o, int32_t id)
{
    kn_node *n = kn_opt_node(o, id);
    int32_t dtype = n->n_inputs > 0 && n->inputs[0] >= 0 ? kn_opt_value(o, n->inputs[0])->dtype
                                                        : KN_UNDEFINED;
    int64_t opset = kn_model_opset_for(o->ir, n->domain);
    const kn_op_def *def = kn_backend_kernel(&kn_backend_cpu, n->domain, n->op_type, opset, dtype);
    if (!def || (def->flags & KN_OP_NONDETERMINISTIC))
        return KN_OK;
    kn_tensor tin[FOLD_MAX_IO], tout[FOLD_MAX_IO];
    kn_tensor *in[FOLD_MAX_IO + 1] = {0}, *out[FOLD_MAX_IO + 1] = {0};
    int64_t in_bytes = 0;
    for (int32_t j = 0; j < n->n_inputs; j++) {
        if (n->inputs[j] < 0)
            continue;
        const kn_value *v = kn_opt_value(o, n->inputs[j]);
        memset(&tin[j], 0, sizeof tin[j]);
        tin[j].dtype = v->dtype;
        tin[j].rank = v->rank;
        memcpy(tin[j].dims, v->dims, sizeof tin[j].dims);
        if (kn_tensor_nbytes(&tin[j]) != v->init_nbytes)
            return KN_OK; /* inconsistent: the plan will say so */
        static const char empty[16];
        tin[j].data = v->init_data ? (void *)v->init_data : (void *)empty;
        in_bytes += v->init_nbytes;
        in[j] = &tin[j];
    }
    for (int32_t j = 0; j < n->n_outputs; j++) {
        memset(&tout[j], 0, sizeof tout[j]);
        out[j] = &tout[j];
    }
    kn_err local = {0};
    kn_kctx k = {.node = n, .opset = opset, .n_in = n->n_inputs, .n_out = n->n_outputs,
                 .in = in, .out = out, .err = &local};
    kn_attr_take_mismatch();
    int rc = def->prepare(&k);
    if (kn_attr_take_mismatch())
        rc = KN_ERR_INVALID_MODEL;
    int64_t out_bytes = 0;
    for (int32_t j = 0; rc == KN_OK && j < n->n_outputs; j++) {
        int64_t nb = kn_tensor_nbytes(&tout[j]);
        if (!plain_dtype(tout[j].dtype) || tout[j].rank < 0 || nb < 0)
            rc = KN_ERR_UNSUPPORTED;
        out_bytes += nb;
    }
    if (rc == KN_OK && out_bytes > 2 * in_bytes + FOLD_SLACK_BYTES &&
        !(is_conversion(n) && kn_tensor_numel(&tout[0]) <= kn_tensor_numel(&tin[0])))
        rc = KN_ERR_LIMIT;
    for (int32_t j = 0; rc == KN_OK && j < n->n_outputs; j++) {
        int64_t nb = kn_tensor_nbytes(&tout[j]);
        tout[j].data = kn_bump_alloc(o->ir->bump, nb > 0 ? (size_t)nb : 1);
        if (!tout[j].data)
            rc = KN_ERR_LIMIT; /* model size limit: keep the node */
    }
    void *scratch = NULL;
    if (rc == KN_OK && k.scratch_bytes && !(scratch = kn_aligned_alloc(k.scratch_bytes)))
        rc = KN_ERR_OUT_OF_MEMORY;
    k.scratch = scratch;
    if (rc == KN_OK)
        rc = def->run(&k);
    kn_aligned_free(scratch);
    if (def->release && k.state)
        def->release(&k);
    if (rc != KN_OK)
        return KN_OK;
    for (int32_t j = 0; j < n->n_outputs; j++) {
        kn_value *v = kn_opt_value(o, n->outputs[j]);
        v->dtype = tout[j].dtype;
        v->rank = tout[j].rank;
        memcpy(v->dims, tout[j].dims, sizeof v->dims);
        for (int32_t d = 0; d < KN_MAX_RANK; d++)
            v->dim_params[d] = NULL;
        v->init_data = tout[j].data;
        v->init_nbytes = kn_tensor_nbytes(&tout[j]);
        v->is_initializer = 1;
    }
    kn_opt_remove(o, id);
    return KN_OK;
}

int kn_pass_const_fold(kn_opt *o)
{
    /* Topological order: a folded node's outputs are initializers by the
     * time its readers are looked at. */
    for (int32_t id = 0; id < kn_opt_node_count(o); id++) {
        if (!kn_opt_live(o, id) || !candidate(o, kn_opt_node(o, id)))
            continue;
        int rc = fold_node(o, id);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
