/* Adding values, initializers, nodes, attributes and the kiln opset import
 * to the graph a pass rewrites (rewrite.h). Everything added lives in the
 * model's pool, so a failed allocation is the model memory limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opt/rewrite.h"

/* Model-pool copy of s; a failure is the model memory limit (or memory). */
static char *opt_strdup(kn_opt *o, const char *s)
{
    char *p = kn_bump_strdup(o->ir->bump, s);
    if (!p)
        kn_fail(o->err, KN_ERR_LIMIT, "the optimized graph does not fit the model memory limit");
    return p;
}

void *kn_opt_alloc(kn_opt *o, size_t bytes)
{
    void *p = kn_bump_alloc(o->ir->bump, bytes ? bytes : 1);
    if (!p)
        kn_fail(o->err, KN_ERR_LIMIT, "the optimized graph does not fit the model memory limit");
    return p;
}

static int grow_values(kn_opt *o)
{
    kn_graph *g = o->g;
    if (g->n_values == o->cap_values) {
        int32_t cap = o->cap_values * 2 + 16;
        kn_value *vals = kn_opt_alloc(o, sizeof *vals * (size_t)cap);
        if (!vals)
            return KN_ERR_OUT_OF_MEMORY;
        if (g->n_values)
            memcpy(vals, g->values, sizeof *vals * (size_t)g->n_values);
        g->values = vals;
        o->cap_values = cap;
    }
    if (g->n_values >= o->cap_prod) {
        int32_t cap = o->cap_prod * 2 + 16;
        int32_t *prod = realloc(o->producer, sizeof *prod * (size_t)cap);
        if (prod)
            o->producer = prod;
        uint8_t *obs = realloc(o->observed, (size_t)cap);
        if (obs)
            o->observed = obs;
        int32_t *heads = realloc(o->use_head, sizeof *heads * (size_t)cap);
        if (heads)
            o->use_head = heads;
        if (!prod || !obs || !heads)
            return kn_opt_oom(o);
        for (int32_t v = o->cap_prod; v < cap; v++)
            o->use_head[v] = -1;
        o->cap_prod = cap;
    }
    return KN_OK;
}

int32_t kn_opt_add_value(kn_opt *o, const char *hint, int32_t dtype)
{
    if (grow_values(o) != KN_OK)
        return -1;
    char name[256];
    snprintf(name, sizeof name, "%.200s/kiln_opt_%d", hint ? hint : "", (int)o->name_counter++);
    int32_t v = o->g->n_values;
    kn_value *val = &o->g->values[v];
    memset(val, 0, sizeof *val);
    val->name = opt_strdup(o, name);
    if (!val->name)
        return -1;
    val->dtype = dtype;
    val->elem_dtype = KN_UNDEFINED;
    val->rank = -1;
    for (int32_t d = 0; d < KN_MAX_RANK; d++)
        val->dims[d] = -1;
    val->producer = -1;
    val->kind = KN_KIND_TENSOR;
    o->producer[v] = -1;
    o->observed[v] = 0;
    o->g->n_values++;
    return v;
}

int32_t kn_opt_add_initializer(kn_opt *o, const char *hint, int32_t dtype, int32_t rank,
                               const int64_t *dims, const void *data, size_t nbytes)
{
    void *copy = kn_opt_alloc(o, nbytes);
    if (!copy)
        return -1;
    int32_t v = kn_opt_add_value(o, hint, dtype);
    if (v < 0)
        return -1;
    kn_value *val = &o->g->values[v];
    memcpy(copy, data, nbytes);
    val->rank = rank;
    for (int32_t d = 0; d < rank; d++)
        val->dims[d] = dims[d];
    val->init_data = copy;
    val->init_nbytes = (int64_t)nbytes;
    val->is_initializer = 1;
    return v;
}

int32_t kn_opt_add_node(kn_opt *o, int32_t anchor, const char *op_type, const char *domain,
                        const int32_t *inputs, int32_t n_inputs, const int32_t *outputs,
                        int32_t n_outputs, kn_attr *attrs, int32_t n_attrs)
{
    if (anchor >= o->n_orig)
        anchor = o->anchor[anchor - o->n_orig];
    if (o->n_added == o->cap_added) {
        int32_t cap = o->cap_added * 2 + 16;
        kn_node *nodes = realloc(o->added, sizeof *nodes * (size_t)cap);
        if (nodes)
            o->added = nodes;
        int32_t *anchors = realloc(o->anchor, sizeof *anchors * (size_t)cap);
        if (anchors)
            o->anchor = anchors;
        if (!nodes || !anchors)
            return kn_opt_oom(o), -1;
        o->cap_added = cap;
    }
    if (kn_opt_node_count(o) >= o->cap_ids) {
        int32_t cap = o->cap_ids * 2 + 16;
        uint8_t *rm = realloc(o->removed, (size_t)cap);
        if (rm)
            o->removed = rm;
        uint32_t *seen = realloc(o->seen, sizeof *seen * (size_t)cap);
        if (seen)
            o->seen = seen;
        if (!rm || !seen)
            return kn_opt_oom(o), -1;
        memset(rm + o->cap_ids, 0, (size_t)(cap - o->cap_ids));
        memset(seen + o->cap_ids, 0, sizeof *seen * (size_t)(cap - o->cap_ids));
        o->cap_ids = cap;
    }
    kn_node n = {0};
    /* Named after the anchor (without an earlier pass's suffix). */
    char name[256];
    const char *base = kn_opt_node(o, anchor)->name;
    const char *suffix = strstr(base, "/kiln_opt_");
    int base_len = suffix ? (int)(suffix - base) : (int)strlen(base);
    snprintf(name, sizeof name, "%.*s/kiln_opt_%d", base_len < 200 ? base_len : 200, base,
             (int)o->name_counter++);
    if (!(n.name = opt_strdup(o, name)) || !(n.op_type = opt_strdup(o, op_type)) ||
        !(n.domain = opt_strdup(o, domain ? domain : "")) ||
        !(n.inputs = kn_opt_alloc(o, sizeof *n.inputs * (size_t)(n_inputs + 1))) ||
        !(n.outputs = kn_opt_alloc(o, sizeof *n.outputs * (size_t)(n_outputs + 1))))
        return -1;
    memcpy(n.inputs, inputs, sizeof *inputs * (size_t)n_inputs);
    memcpy(n.outputs, outputs, sizeof *outputs * (size_t)n_outputs);
    n.n_inputs = n_inputs;
    n.n_outputs = n_outputs;
    n.attrs = attrs;
    n.n_attrs = n_attrs;
    int32_t id = kn_opt_node_count(o);
    o->added[o->n_added] = n;
    o->anchor[o->n_added] = anchor;
    o->n_added++;
    o->removed[id] = 0;
    o->changed = 1;
    for (int32_t j = 0; j < n_outputs; j++)
        if (outputs[j] >= 0)
            o->producer[outputs[j]] = id;
    for (int32_t j = 0; j < n_inputs; j++)
        if (inputs[j] >= 0 && kn_opt_note_use(o, inputs[j], id) != KN_OK)
            return kn_opt_oom(o), -1;
    return id;
}

int kn_opt_import_kiln(kn_opt *o) { return kn_opt_import_domain(o, KN_OPT_DOMAIN_NAME, 1); }

int kn_opt_import_domain(kn_opt *o, const char *domain, int64_t version)
{
    kn_model_ir *ir = o->ir;
    if (kn_model_opset_for(ir, domain) >= 0)
        return KN_OK;
    kn_opset *ops = kn_opt_alloc(o, sizeof *ops * (size_t)(ir->n_opsets + 1));
    if (!ops)
        return o->err->code;
    if (ir->n_opsets)
        memcpy(ops, ir->opsets, sizeof *ops * (size_t)ir->n_opsets);
    ops[ir->n_opsets].domain = domain;
    ops[ir->n_opsets].version = version;
    ir->opsets = ops;
    ir->n_opsets++;
    return KN_OK;
}

kn_attr *kn_opt_attrs(kn_opt *o, int32_t n) { return kn_opt_alloc(o, sizeof(kn_attr) * (size_t)n); }

void kn_opt_attr_int(kn_attr *a, const char *name, int64_t v)
{
    a->name = name;
    a->type = KN_ATTR_INT;
    a->i = v;
}

void kn_opt_attr_float(kn_attr *a, const char *name, float v)
{
    a->name = name;
    a->type = KN_ATTR_FLOAT;
    a->f = v;
}

int kn_opt_attr_string(kn_opt *o, kn_attr *a, const char *name, const char *s)
{
    a->name = name;
    a->type = KN_ATTR_STRING;
    a->s = opt_strdup(o, s);
    a->s_len = (int64_t)strlen(s);
    return a->s ? KN_OK : o->err->code;
}

int kn_opt_attr_floats(kn_opt *o, kn_attr *a, const char *name, const float *v, int32_t n)
{
    a->name = name;
    a->type = KN_ATTR_FLOATS;
    a->count = n;
    float *copy = kn_opt_alloc(o, sizeof *copy * (size_t)(n ? n : 1));
    if (!copy)
        return o->err->code;
    if (n)
        memcpy(copy, v, sizeof *copy * (size_t)n);
    a->floats = copy;
    return KN_OK;
}
