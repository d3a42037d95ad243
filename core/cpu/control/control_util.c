#include "core/cpu/control/control_util.h"

#include <stdlib.h>
#include <string.h>

int kn_owned_set(kn_owned *o, const kn_tensor *src, kn_err *err)
{
    int64_t nb = kn_tensor_nbytes(src), refs = nb;
    if (nb >= 0 && src->dtype == KN_STRING) { /* deep copy: refs, then bytes */
        int64_t chars = kn_strings_bytes(src->data, kn_tensor_numel(src));
        nb = chars < 0 || chars > INT64_MAX / 2 - nb ? -1 : nb + chars;
    }
    if (nb < 0)
        return kn_fail(err, KN_ERR_INTERNAL, "control flow: value without a valid shape");
    void *data = malloc(nb ? (size_t)nb : 1);
    if (!data)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "control flow: out of memory");
    if (src->dtype == KN_STRING)
        kn_strings_copy(data, (char *)data + refs, src->data, kn_tensor_numel(src));
    else if (nb)
        memcpy(data, src->data, (size_t)nb);
    free(o->t.data);
    o->t = *src;
    o->t.data = data;
    return KN_OK;
}

void kn_owned_free(kn_owned *o)
{
    free(o->t.data);
    o->t.data = NULL;
}

static void split_at(const kn_tensor *t, int32_t axis, int64_t *outer, int64_t *len, int64_t *inner)
{
    *outer = kn_shape_numel(t->dims, axis);
    *len = t->dims[axis];
    *inner = kn_shape_numel(t->dims + axis + 1, t->rank - axis - 1) * (int64_t)kn_dtype_size(t->dtype);
}

void kn_slice_axis(const kn_tensor *src, int32_t axis, int64_t index, void *dst)
{
    int64_t outer, len, inner;
    split_at(src, axis, &outer, &len, &inner);
    const unsigned char *s = src->data;
    for (int64_t o = 0; o < outer; o++)
        memcpy((unsigned char *)dst + o * inner, s + (o * len + index) * inner, (size_t)inner);
}

void kn_place_axis(kn_tensor *dst, int32_t axis, int64_t index, const void *slice)
{
    int64_t outer, len, inner;
    split_at(dst, axis, &outer, &len, &inner);
    unsigned char *d = dst->data;
    for (int64_t o = 0; o < outer; o++)
        memcpy(d + (o * len + index) * inner, (const unsigned char *)slice + o * inner, (size_t)inner);
}

int kn_copy_result(const kn_kctx *k, kn_tensor *dst, const kn_tensor *src)
{
    int64_t nb = kn_tensor_nbytes(src);
    if (nb <= 0)
        return KN_OK;
    if (src->dtype != KN_STRING) {
        memcpy(dst->data, src->data, (size_t)nb);
        return KN_OK;
    }
    int64_t n = kn_tensor_numel(src);
    int64_t chars = kn_strings_bytes(src->data, n);
    char *mem = chars > 0 && k->engine_api && k->engine_api->alloc
                    ? k->engine_api->alloc(k->engine, (size_t)chars)
                    : NULL;
    if (chars > 0 && !mem)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory for strings",
                       k->node->op_type);
    kn_strings_copy(dst->data, mem, src->data, n);
    return KN_OK;
}

const kn_graph *kn_graph_attr(const kn_kctx *k, const char *name)
{
    const kn_attr *a = kn_node_attr(k->node, name);
    if (!a || a->type != KN_ATTR_GRAPH || !a->g) {
        kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: graph attribute '%s' is missing",
                k->node->op_type, name);
        return NULL;
    }
    return a->g;
}

int kn_run_body(const kn_kctx *k, const kn_graph *g, const kn_tensor *const *inputs, int32_t n,
                kn_subgraph_result **result)
{
    if (!k->engine_api)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: no engine to run subgraphs",
                       k->node->op_type);
    int rc = k->engine_api->run_subgraph(k->engine, g, inputs, n, result, k->err);
    if (rc != KN_OK && rc != KN_ERR_NEEDS_VALUE)
        kn_err_prefix(k->err, "in %s body '%s'", k->node->op_type, g->name ? g->name : "");
    return rc;
}
