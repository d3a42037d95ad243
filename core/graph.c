#include "graph.h"

#include <stdlib.h>
#include <string.h>

void kn_model_ir_free(kn_model_ir *ir)
{
    if (!ir)
        return;
    kn_pool *pool = ir->pool; /* ir itself lives in the pool */
    kn_pool_destroy(pool);
}

static int is_default_domain(const char *d)
{
    return d == NULL || d[0] == 0 || strcmp(d, "ai.onnx") == 0;
}

int64_t kn_model_opset_for(const kn_model_ir *ir, const char *domain)
{
    for (int32_t i = 0; i < ir->n_opsets; i++) {
        const char *d = ir->opsets[i].domain;
        if ((is_default_domain(d) && is_default_domain(domain)) ||
            (d && domain && strcmp(d, domain) == 0))
            return ir->opsets[i].version;
    }
    return -1;
}

const kn_attr *kn_node_attr(const kn_node *node, const char *name)
{
    for (int32_t i = 0; i < node->n_attrs; i++)
        if (strcmp(node->attrs[i].name, name) == 0)
            return &node->attrs[i];
    return NULL;
}

int64_t kn_attr_int(const kn_node *node, const char *name, int64_t dflt)
{
    const kn_attr *a = kn_node_attr(node, name);
    return a && a->type == KN_ATTR_INT ? a->i : dflt;
}

float kn_attr_float(const kn_node *node, const char *name, float dflt)
{
    const kn_attr *a = kn_node_attr(node, name);
    if (a && a->type == KN_ATTR_FLOAT)
        return a->f;
    if (a && a->type == KN_ATTR_INT) /* some exporters write ints for floats */
        return (float)a->i;
    return dflt;
}

const char *kn_attr_string(const kn_node *node, const char *name, const char *dflt)
{
    const kn_attr *a = kn_node_attr(node, name);
    return a && a->type == KN_ATTR_STRING ? a->s : dflt;
}

const int64_t *kn_attr_ints(const kn_node *node, const char *name, int32_t *count)
{
    const kn_attr *a = kn_node_attr(node, name);
    if (a && a->type == KN_ATTR_INTS) {
        *count = a->count;
        return a->ints;
    }
    *count = 0;
    return NULL;
}

const float *kn_attr_floats(const kn_node *node, const char *name, int32_t *count)
{
    const kn_attr *a = kn_node_attr(node, name);
    if (a && a->type == KN_ATTR_FLOATS) {
        *count = a->count;
        return a->floats;
    }
    *count = 0;
    return NULL;
}
