/* A zero-valued constant Pad of the spatial dims in front of an AveragePool
 * or a Conv becomes that node's own padding: torch writes
 * avg_pool2d(padding=1) as Pad + AveragePool (Inception's branches), and
 * tf2onnx writes ZeroPadding2D + Conv. Left as a node, the Pad is a copy of
 * the whole tensor, and a border the NHWC layout pass stops at.
 *
 * AveragePool: the padded zeros count in its divisor, which is exactly
 * count_include_pad = 1 with the pads as attributes (only when the pool
 * had no padding of its own and did not already count it: otherwise the
 * two kinds of padding would mix). Conv: zeros padded or implicit are the
 * same, so the pads add up. Either way the node reads the Pad's input; the
 * Pad goes when nothing else reads it. */
#include <string.h>

#include "core/opt/passes.h"

/* The Pad's pads when it is a zero-valued constant pad of a rank-r tensor
 * touching only dims 2.. (the spatial ones): 2r ints. NULL otherwise. */
static const int64_t *spatial_zero_pads(kn_opt *o, const kn_node *pad, int32_t *rank)
{
    if (!kn_opt_is_op(pad, "Pad") || pad->n_inputs < 2 || pad->n_outputs != 1 ||
        pad->inputs[1] < 0 || (pad->n_inputs > 3 && pad->inputs[3] >= 0))
        return NULL; /* opset 18 axes: not handled */
    const char *mode = kn_attr_string(pad, "mode", "constant");
    if (strcmp(mode, "constant") != 0)
        return NULL;
    if (pad->n_inputs > 2 && pad->inputs[2] >= 0) {
        float v = 1;
        if (!kn_opt_const_scalar(o, pad->inputs[2], &v) || v != 0)
            return NULL;
    }
    const kn_value *p = kn_opt_value(o, pad->inputs[1]);
    if (!p->is_initializer || p->dtype != KN_INT64 || !p->init_data || p->init_nbytes % 16 ||
        p->init_nbytes < 16 * 3)
        return NULL;
    const int64_t *pads = p->init_data;
    int32_t r = (int32_t)(p->init_nbytes / 16);
    for (int32_t i = 0; i < 2 * r; i++)
        if (pads[i] < 0 || ((i % r) < 2 && pads[i] != 0))
            return NULL;
    *rank = r;
    return pads;
}

/* attrs of n with "pads" set to the spatial pads (begins, then ends) plus
 * `extra` for each (the node's own), and count_include_pad = 1 when asked. */
static kn_attr *padded_attrs(kn_opt *o, const kn_node *n, const int64_t *pads, int32_t rank,
                             const int64_t *own, int include_pad, int32_t *n_attrs)
{
    int32_t nsp = rank - 2, n_new = n->n_attrs + 2;
    kn_attr *a = kn_opt_attrs(o, n_new);
    int64_t *ints = kn_opt_alloc(o, sizeof(int64_t) * (size_t)(2 * nsp));
    if (!a || !ints)
        return NULL;
    for (int32_t i = 0; i < nsp; i++) {
        ints[i] = pads[2 + i] + (own ? own[i] : 0);
        ints[nsp + i] = pads[rank + 2 + i] + (own ? own[nsp + i] : 0);
    }
    int32_t m = 0;
    for (int32_t i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, "pads") != 0 && strcmp(n->attrs[i].name, "count_include_pad"))
            a[m++] = n->attrs[i];
    a[m].name = "pads";
    a[m].type = KN_ATTR_INTS;
    a[m].count = 2 * nsp;
    a[m++].ints = ints;
    if (include_pad)
        kn_opt_attr_int(&a[m++], "count_include_pad", 1);
    *n_attrs = m;
    return a;
}

/* Node id (AveragePool or Conv) reading a foldable Pad's output as X. */
static int fold(kn_opt *o, int32_t id)
{
    kn_node n = *kn_opt_node(o, id);
    int pool = kn_opt_is_op(&n, "AveragePool"), conv = kn_opt_is_op(&n, "Conv");
    if ((!pool && !conv) || n.n_inputs < 1 || n.inputs[0] < 0)
        return KN_OK;
    int32_t pid = kn_opt_producer(o, n.inputs[0]);
    if (pid < 0)
        return KN_OK;
    int32_t rank = 0;
    const kn_node *pad = kn_opt_node(o, pid);
    const int64_t *pads = spatial_zero_pads(o, pad, &rank);
    const char *auto_pad = kn_attr_string(&n, "auto_pad", "NOTSET");
    if (!pads || strcmp(auto_pad, "NOTSET") != 0)
        return KN_OK;
    int32_t count = 0, nsp = rank - 2;
    const int64_t *own = kn_attr_ints(&n, "pads", &count);
    if (own && count != 2 * nsp)
        return KN_OK;
    if (pool) {
        for (int32_t i = 0; own && i < count; i++)
            if (own[i] != 0)
                return KN_OK;
        if (kn_attr_int(&n, "count_include_pad", 0) != 0 || kn_attr_int(&n, "ceil_mode", 0))
            return KN_OK;
        own = NULL;
    }
    int32_t n_attrs = 0;
    kn_attr *attrs = padded_attrs(o, &n, pads, rank, own, pool, &n_attrs);
    if (!attrs)
        return kn_opt_oom(o);
    int32_t *inputs = kn_opt_alloc(o, sizeof(int32_t) * (size_t)n.n_inputs);
    if (!inputs)
        return kn_opt_oom(o);
    memcpy(inputs, n.inputs, sizeof(int32_t) * (size_t)n.n_inputs);
    inputs[0] = pad->inputs[0];
    kn_opt_remove(o, id);
    return kn_opt_add_node(o, id, n.op_type, n.domain ? n.domain : "", inputs, n.n_inputs,
                           n.outputs, n.n_outputs, attrs, n_attrs) < 0 ? o->err->code : KN_OK;
}

int kn_pass_pad_fold(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        if (!kn_opt_live(o, id))
            continue;
        int rc = fold(o, id);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
