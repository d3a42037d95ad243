#include "core/ir/graph.h"

#include <stdlib.h>
#include <string.h>

void kn_model_ir_free(kn_model_ir *ir)
{
    if (!ir)
        return;
    kn_bump *bump = ir->bump; /* ir itself lives in the bump */
    kn_bump_destroy(bump);
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

/* The first attribute a typed getter found with the wrong type since the
 * last kn_attr_take_mismatch() on this thread. Getters cannot fail, so the
 * planner asks after each prepare() and turns a mismatch into an error
 * instead of letting a default silently replace what the model said. */
static _Thread_local const kn_attr *attr_mismatch;

const kn_attr *kn_attr_take_mismatch(void)
{
    const kn_attr *a = attr_mismatch;
    attr_mismatch = NULL;
    return a;
}

static const kn_attr *typed(const kn_node *node, const char *name, int32_t t1, int32_t t2)
{
    const kn_attr *a = kn_node_attr(node, name);
    if (a && a->type != t1 && a->type != t2) {
        if (!attr_mismatch)
            attr_mismatch = a;
        return NULL;
    }
    return a;
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
    const kn_attr *a = typed(node, name, KN_ATTR_INT, KN_ATTR_INT);
    return a ? a->i : dflt;
}

float kn_attr_float(const kn_node *node, const char *name, float dflt)
{
    /* some exporters write ints for floats */
    const kn_attr *a = typed(node, name, KN_ATTR_FLOAT, KN_ATTR_INT);
    if (!a)
        return dflt;
    return a->type == KN_ATTR_FLOAT ? a->f : (float)a->i;
}

const char *kn_attr_string(const kn_node *node, const char *name, const char *dflt)
{
    const kn_attr *a = typed(node, name, KN_ATTR_STRING, KN_ATTR_STRING);
    return a ? a->s : dflt;
}

const int64_t *kn_attr_ints(const kn_node *node, const char *name, int32_t *count)
{
    const kn_attr *a = typed(node, name, KN_ATTR_INTS, KN_ATTR_INTS);
    if (a) {
        *count = a->count;
        return a->ints;
    }
    *count = 0;
    return NULL;
}

const float *kn_attr_floats(const kn_node *node, const char *name, int32_t *count)
{
    const kn_attr *a = typed(node, name, KN_ATTR_FLOATS, KN_ATTR_FLOATS);
    if (a) {
        *count = a->count;
        return a->floats;
    }
    *count = 0;
    return NULL;
}
