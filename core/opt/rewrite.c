/* Graph rewriting for the optimizer passes (see rewrite.h): the pass
 * context, queries, the per-value reader index, removing nodes and
 * redirecting uses. Adding things is rewrite_add.c, committing
 * rewrite_commit.c. */
#include "core/opt/rewrite.h"

#include <stdlib.h>
#include <string.h>

int kn_opt_oom(kn_opt *o) { return kn_fail(o->err, KN_ERR_OUT_OF_MEMORY, "out of memory optimizing"); }

/* Marks the top-level values a subgraph reads by name (at any depth). */
static void mark_outer_reads(kn_opt *o, const kn_graph *sub)
{
    for (int32_t v = 0; v < sub->n_values; v++) {
        if (!sub->values[v].is_outer)
            continue;
        for (int32_t u = 0; u < o->g->n_values; u++)
            if (strcmp(o->g->values[u].name, sub->values[v].name) == 0)
                o->observed[u] = 1;
    }
    for (int32_t i = 0; i < sub->n_nodes; i++) {
        const kn_node *n = &sub->nodes[i];
        for (int32_t a = 0; a < n->n_attrs; a++) {
            if (n->attrs[a].type == KN_ATTR_GRAPH && n->attrs[a].g)
                mark_outer_reads(o, n->attrs[a].g);
            for (int32_t j = 0; n->attrs[a].type == KN_ATTR_GRAPHS && j < n->attrs[a].count; j++)
                mark_outer_reads(o, n->attrs[a].graphs[j]);
        }
    }
}

int kn_opt_note_use(kn_opt *o, int32_t v, int32_t id)
{
    if (o->n_uses == o->cap_uses) {
        int32_t cap = o->cap_uses * 2 + 64;
        int32_t *node = realloc(o->use_node, sizeof *node * (size_t)cap);
        if (node)
            o->use_node = node;
        int32_t *next = realloc(o->use_next, sizeof *next * (size_t)cap);
        if (next)
            o->use_next = next;
        if (!node || !next)
            return KN_ERR_OUT_OF_MEMORY;
        o->cap_uses = cap;
    }
    o->use_node[o->n_uses] = id;
    o->use_next[o->n_uses] = o->use_head[v];
    o->use_head[v] = o->n_uses++;
    return KN_OK;
}

/* A walk over the live nodes reading value v, each node once (a node that
 * reads v twice is twice in v's use list). Beginning a walk takes a fresh
 * stamp, so walks must not nest, and queries inside one would reset it. */
typedef struct reader_walk {
    int32_t use; /* the next entry of v's use list, -1 at the end */
} reader_walk;

static reader_walk readers_begin(kn_opt *o, int32_t v)
{
    o->stamp++;
    return (reader_walk){o->use_head[v]};
}

/* The next reader's node id, or -1 when there are no more. The next entry
 * is read before the caller sees the node, so the caller may add uses. */
static int32_t readers_next(kn_opt *o, reader_walk *w)
{
    while (w->use >= 0) {
        int32_t id = o->use_node[w->use];
        w->use = o->use_next[w->use];
        if (!o->removed[id] && o->seen[id] != o->stamp) {
            o->seen[id] = o->stamp;
            return id;
        }
    }
    return -1;
}

int kn_opt_begin(kn_opt *o, kn_model_ir *ir, kn_err *err)
{
    memset(o, 0, sizeof *o);
    o->ir = ir;
    o->g = ir->graph;
    o->err = err;
    o->cap_values = o->g->n_values;
    o->n_orig = o->g->n_nodes;
    o->cap_ids = o->n_orig + 16;
    o->cap_prod = o->g->n_values + 16;
    o->removed = calloc((size_t)o->cap_ids, 1);
    o->seen = calloc((size_t)o->cap_ids, sizeof *o->seen);
    o->producer = malloc(sizeof *o->producer * (size_t)o->cap_prod);
    o->observed = calloc((size_t)o->cap_prod, 1);
    o->use_head = malloc(sizeof *o->use_head * (size_t)o->cap_prod);
    if (!o->removed || !o->seen || !o->producer || !o->observed || !o->use_head) {
        kn_opt_end(o);
        return kn_opt_oom(o);
    }
    for (int32_t v = 0; v < o->cap_prod; v++)
        o->use_head[v] = -1;
    for (int32_t v = 0; v < o->g->n_values; v++)
        o->producer[v] = o->g->values[v].producer;
    for (int32_t id = 0; id < o->n_orig; id++) {
        const kn_node *n = &o->g->nodes[id];
        for (int32_t j = 0; j < n->n_inputs; j++)
            if (n->inputs[j] >= 0 && kn_opt_note_use(o, n->inputs[j], id) != KN_OK) {
                kn_opt_end(o);
                return kn_opt_oom(o);
            }
    }
    /* The node array may hold subgraph-reading nodes: the names they read
     * are as good as graph outputs. */
    kn_graph top = *o->g;
    top.n_values = 0; /* only the nodes' attribute graphs, not top-level values */
    mark_outer_reads(o, &top);
    return KN_OK;
}

void kn_opt_end(kn_opt *o)
{
    free(o->added);
    free(o->anchor);
    free(o->removed);
    free(o->producer);
    free(o->observed);
    free(o->use_head);
    free(o->use_node);
    free(o->use_next);
    free(o->seen);
    o->use_head = o->use_node = o->use_next = NULL;
    o->seen = NULL;
    o->added = NULL;
    o->anchor = NULL;
    o->removed = NULL;
    o->producer = NULL;
    o->observed = NULL;
}

int32_t kn_opt_node_count(const kn_opt *o) { return o->n_orig + o->n_added; }

kn_node *kn_opt_node(kn_opt *o, int32_t id)
{
    return id < o->n_orig ? &o->g->nodes[id] : &o->added[id - o->n_orig];
}

int kn_opt_live(const kn_opt *o, int32_t id) { return !o->removed[id]; }

kn_value *kn_opt_value(kn_opt *o, int32_t v) { return &o->g->values[v]; }

int32_t kn_opt_producer(const kn_opt *o, int32_t v) { return v < 0 ? -1 : o->producer[v]; }

int kn_opt_is_op(const kn_node *n, const char *op_type)
{
    int default_domain = !n->domain || !n->domain[0] || strcmp(n->domain, "ai.onnx") == 0;
    return default_domain && strcmp(n->op_type, op_type) == 0;
}

int32_t kn_opt_producer_op(kn_opt *o, int32_t v, const char *op_type)
{
    int32_t p = kn_opt_producer(o, v);
    return p >= 0 && kn_opt_is_op(kn_opt_node(o, p), op_type) ? p : -1;
}

int32_t kn_opt_consumers(kn_opt *o, int32_t v, int32_t *ids, int32_t cap)
{
    int32_t n = 0;
    if (v < 0)
        return 0;
    reader_walk w = readers_begin(o, v);
    for (int32_t id; (id = readers_next(o, &w)) >= 0;) {
        const kn_node *node = kn_opt_node(o, id);
        for (int32_t j = 0; j < node->n_inputs; j++) {
            if (node->inputs[j] != v)
                continue;
            if (n < cap)
                ids[n] = id;
            n++;
            break;
        }
    }
    return n;
}

int32_t kn_opt_use_count(kn_opt *o, int32_t v)
{
    int32_t n = 0;
    if (v < 0)
        return 0;
    reader_walk w = readers_begin(o, v);
    for (int32_t id; (id = readers_next(o, &w)) >= 0;) {
        const kn_node *node = kn_opt_node(o, id);
        for (int32_t j = 0; j < node->n_inputs; j++)
            n += node->inputs[j] == v;
    }
    return n;
}

int kn_opt_is_observed(const kn_opt *o, int32_t v)
{
    return o->g->values[v].is_graph_output || o->observed[v];
}

int kn_opt_is_private(kn_opt *o, int32_t v)
{
    return v >= 0 && o->producer[v] >= 0 && !kn_opt_is_observed(o, v) &&
           kn_opt_use_count(o, v) == 1;
}

int32_t kn_opt_sole_reader(kn_opt *o, int32_t v)
{
    int32_t id;
    return kn_opt_is_private(o, v) && kn_opt_consumers(o, v, &id, 1) == 1 ? id : -1;
}

int32_t kn_opt_other_operand(const kn_node *n, int32_t v)
{
    if (n->n_inputs != 2)
        return -1;
    return n->inputs[0] == v ? n->inputs[1] : n->inputs[1] == v ? n->inputs[0] : -1;
}

const float *kn_opt_const_floats(kn_opt *o, int32_t v, int64_t *count)
{
    *count = 0;
    if (v < 0)
        return NULL;
    const kn_value *val = &o->g->values[v];
    if (!val->is_initializer || val->dtype != KN_FLOAT || val->rank < 0)
        return NULL;
    int64_t n = 1;
    for (int32_t d = 0; d < val->rank; d++)
        n *= val->dims[d];
    if (n * (int64_t)sizeof(float) != val->init_nbytes || (n > 0 && !val->init_data))
        return NULL;
    *count = n;
    return val->init_data;
}

int kn_opt_const_scalar(kn_opt *o, int32_t v, float *out)
{
    int64_t n;
    const float *f = kn_opt_const_floats(o, v, &n);
    if (!f || n != 1)
        return 0;
    memcpy(out, f, sizeof *out); /* initializer bytes need not be aligned */
    return 1;
}

int64_t kn_opt_opset(const kn_opt *o) { return kn_model_opset_for(o->ir, ""); }

void kn_opt_remove(kn_opt *o, int32_t id)
{
    if (o->removed[id])
        return;
    o->removed[id] = 1;
    o->changed = 1;
    const kn_node *n = kn_opt_node(o, id);
    for (int32_t j = 0; j < n->n_outputs; j++)
        if (n->outputs[j] >= 0 && o->producer[n->outputs[j]] == id)
            o->producer[n->outputs[j]] = -1;
}

void kn_opt_replace_uses(kn_opt *o, int32_t from, int32_t to)
{
    if (from < 0 || from == to)
        return;
    o->changed = 1;
    reader_walk w = readers_begin(o, from);
    for (int32_t id; (id = readers_next(o, &w)) >= 0;) {
        kn_node *node = kn_opt_node(o, id);
        int hit = 0;
        for (int32_t j = 0; j < node->n_inputs; j++)
            if (node->inputs[j] == from) {
                node->inputs[j] = to;
                hit = 1;
            }
        /* Out of memory is reported on o->err, which the driver checks. */
        if (hit && to >= 0 && kn_opt_note_use(o, to, id) != KN_OK)
            kn_opt_oom(o);
    }
}

int kn_opt_bypass(kn_opt *o, int32_t in, int32_t out)
{
    if (in < 0 || out < 0 || o->g->values[in].kind != o->g->values[out].kind)
        return 0;
    if (!kn_opt_is_observed(o, out)) {
        kn_opt_replace_uses(o, out, in);
        return 1;
    }
    /* out keeps its name: in's producer writes out directly, if in itself
     * is not needed under its own name. */
    int32_t p = o->producer[in];
    if (p < 0 || kn_opt_is_observed(o, in))
        return 0;
    kn_node *pn = kn_opt_node(o, p);
    for (int32_t j = 0; j < pn->n_outputs; j++)
        if (pn->outputs[j] == in)
            pn->outputs[j] = out;
    o->producer[in] = -1;
    o->producer[out] = p;
    o->changed = 1;
    kn_opt_replace_uses(o, in, out);
    return 1;
}
