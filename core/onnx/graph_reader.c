/* GraphProto → kn_graph: one value per distinct name, every node input
 * resolved to a value, nodes in topological order.
 *
 * Steps: locate the repeated fields; decode initializers, value infos and
 * nodes (subgraphs recurse from the node's attributes); register names
 * (graph inputs, initializers, node outputs — each name has one producer —
 * then node inputs, subgraph outer references and graph outputs, which must
 * resolve; in a subgraph an unresolved name becomes an outer value); build
 * the values with their declared types; sort the nodes. */
#include <stdio.h>
#include <string.h>

#include "core/onnx/reader.h"

enum {
    G_NODE = 1, G_NAME = 2, G_INIT = 5, G_INPUT = 11, G_OUTPUT = 12, G_VINFO = 13,
    G_SPARSE = 15
};

static const char *const graph_fields[] = {
    [G_NODE] = "node",     [G_NAME] = "name",    [G_INIT] = "initializer", [10] = "doc_string",
    [G_INPUT] = "input",   [G_OUTPUT] = "output", [G_VINFO] = "value_info",
    [14] = "quantization_annotation", [G_SPARSE] = "sparse_initializer"};
static const pb_msg_desc graph_desc = PB_DESC("GraphProto", graph_fields);

enum { V_INPUT = 1, V_INIT = 2, V_OUTPUT = 4, V_OUTER = 8 };

typedef struct vmeta {
    kn_onnx_str name;
    int32_t producer; /* file index of the producing node, or -1 */
    int32_t init;     /* initializer index, or -1 */
    uint8_t flags;    /* V_* */
} vmeta;

typedef struct field_list {
    pb_field *f;
    size_t n;
} field_list;

/* One graph while it is assembled; everything but g is scratch. */
typedef struct graph_build {
    kn_onnx_ctx *c;
    pb_reader r;
    kn_graph *g;
    int depth;
    field_list nodes, inits, inputs, outputs, vinfos;
    kn_tensor *init_t;
    const char **init_names;
    kn_onnx_vinfo *in_vi, *out_vi, *vi;
    kn_onnx_node_names *names;
    kn_onnx_names table;
    vmeta *meta;
    int32_t *input_ids, *output_ids;
} graph_build;

#define SLICE(s) (int)((s).n > 200 ? 200 : (s).n), (s).p

static field_list *list_for(graph_build *b, uint32_t num)
{
    switch (num) {
    case G_NODE: return &b->nodes;
    case G_INIT: return &b->inits;
    case G_INPUT: return &b->inputs;
    case G_OUTPUT: return &b->outputs;
    case G_VINFO: return &b->vinfos;
    default: return NULL;
    }
}

/* Two passes over the GraphProto's own fields: count, then record. */
static int locate_fields(graph_build *b)
{
    kn_onnx_ctx *c = b->c;
    kn_onnx_str name = {"", 0};
    pb_field f;
    for (int pass = 0; pass < 2; pass++) {
        pb_reader r = b->r;
        int more;
        while ((more = pb_next(&r, &f)) > 0) {
            field_list *l = list_for(b, f.num);
            if (f.num == G_SPARSE)
                return kn_fail(c->err, KN_ERR_UNSUPPORTED,
                               "sparse initializers are not supported (field 15 at byte %zu)",
                               f.at);
            if (!l && f.num != G_NAME)
                continue;
            if (pb_want(&r, &f, PB_LEN) != KN_OK)
                return KN_ERR_INVALID_MODEL;
            if (f.num == G_NAME)
                name = kn_onnx_field_str(&r, &f);
            else if (pass == 0)
                l->n++;
            else
                l->f[l->n++] = f;
        }
        if (more < 0)
            return KN_ERR_INVALID_MODEL;
        if (pass == 1)
            break;
        field_list *lists[] = {&b->nodes, &b->inits, &b->inputs, &b->outputs, &b->vinfos};
        for (size_t k = 0; k < 5; k++) {
            if (lists[k]->n > INT32_MAX / 4)
                return kn_fail(c->err, KN_ERR_LIMIT, "graph has too many entries");
            lists[k]->f = kn_onnx_alloc(c, c->tmp, lists[k]->n, sizeof(pb_field), "graph");
            if (!lists[k]->f)
                return c->err->code;
            lists[k]->n = 0;
        }
    }
    if (!(b->g->name = kn_onnx_strdup(c, name)))
        return c->err->code;
    return KN_OK;
}

static int read_value_infos(graph_build *b, const field_list *l, kn_onnx_vinfo **out,
                            const char *what)
{
    kn_onnx_ctx *c = b->c;
    if (!(*out = kn_onnx_alloc(c, c->tmp, l->n, sizeof(kn_onnx_vinfo), what)))
        return c->err->code;
    for (size_t i = 0; i < l->n; i++) {
        int rc = kn_onnx_parse_value_info(c, &b->r, &l->f[i], &(*out)[i]);
        if (rc != KN_OK) {
            kn_onnx_prefix(c->err, "%s %zu", what, i);
            return rc;
        }
    }
    return KN_OK;
}

static int read_parts(graph_build *b)
{
    kn_onnx_ctx *c = b->c;
    size_t ni = b->inits.n, nn = b->nodes.n;
    b->init_t = kn_onnx_alloc(c, c->tmp, ni, sizeof(kn_tensor), "initializers");
    b->init_names = kn_onnx_alloc(c, c->tmp, ni, sizeof(char *), "initializers");
    if (!b->init_t || !b->init_names)
        return c->err->code;
    for (size_t i = 0; i < ni; i++) {
        int rc = kn_onnx_parse_tensor(c, &b->r, &b->inits.f[i], &b->init_t[i],
                                      &b->init_names[i]);
        if (rc != KN_OK) {
            kn_onnx_prefix(c->err, "initializer %zu", i);
            return rc;
        }
    }
    int rc;
    if ((rc = read_value_infos(b, &b->inputs, &b->in_vi, "graph input")) != KN_OK ||
        (rc = read_value_infos(b, &b->outputs, &b->out_vi, "graph output")) != KN_OK ||
        (rc = read_value_infos(b, &b->vinfos, &b->vi, "value_info")) != KN_OK)
        return rc;
    b->g->n_nodes = (int32_t)nn;
    b->g->nodes = kn_onnx_alloc(c, c->bump, nn, sizeof(kn_node), "nodes");
    b->names = kn_onnx_alloc(c, c->tmp, nn, sizeof(kn_onnx_node_names), "nodes");
    if (!b->g->nodes || !b->names)
        return c->err->code;
    for (size_t i = 0; i < nn; i++)
        if ((rc = kn_onnx_parse_node(c, &b->r, &b->nodes.f[i], b->g, b->depth, (int32_t)i,
                                     &b->g->nodes[i], &b->names[i])) != KN_OK)
            return rc;
    return KN_OK;
}

static int32_t add_value(graph_build *b, kn_onnx_str name, uint8_t flags, int32_t producer)
{
    int32_t id = kn_onnx_names_add(&b->table, name);
    vmeta *m = &b->meta[id];
    m->name = name;
    m->flags = flags;
    m->producer = producer;
    m->init = -1;
    return id;
}

/* "node 'x' (Op)", "a graph input" or "an initializer": who defines id. */
static const char *describe(const graph_build *b, int32_t id, char *buf, size_t cap)
{
    const vmeta *m = &b->meta[id];
    if (m->producer >= 0) {
        const kn_node *p = &b->g->nodes[m->producer];
        snprintf(buf, cap, "node '%s' (%s)", p->name, p->op_type);
        return buf;
    }
    return m->flags & V_INPUT ? "a graph input" : "an initializer";
}

static int register_defs(graph_build *b)
{
    kn_onnx_ctx *c = b->c;
    for (size_t i = 0; i < b->inputs.n; i++) {
        kn_onnx_str nm = b->in_vi[i].name;
        if (nm.n == 0)
            return kn_fail(c->err, KN_ERR_INVALID_MODEL, "graph input %zu has no name", i);
        if (kn_onnx_check_name(c, nm, "graph input") != KN_OK)
            return KN_ERR_INVALID_MODEL;
        if (kn_onnx_names_find(&b->table, nm) >= 0)
            return kn_fail(c->err, KN_ERR_INVALID_MODEL, "graph input '%.*s' is listed twice",
                           SLICE(nm));
        b->input_ids[i] = add_value(b, nm, V_INPUT, -1);
    }
    for (size_t i = 0; i < b->inits.n; i++) {
        kn_onnx_str nm = {b->init_names[i], strlen(b->init_names[i])};
        if (nm.n == 0)
            return kn_fail(c->err, KN_ERR_INVALID_MODEL, "initializer %zu has no name", i);
        int32_t id = kn_onnx_names_find(&b->table, nm);
        if (id >= 0 && (b->meta[id].flags & V_INIT))
            return kn_fail(c->err, KN_ERR_INVALID_MODEL, "initializer '%.*s' is listed twice",
                           SLICE(nm));
        if (id < 0)
            id = add_value(b, nm, 0, -1);
        b->meta[id].flags |= V_INIT; /* an initializer may also be a graph input */
        b->meta[id].init = (int32_t)i;
    }
    for (int32_t i = 0; i < b->g->n_nodes; i++) {
        kn_node *node = &b->g->nodes[i];
        for (int32_t j = 0; j < node->n_outputs; j++) {
            kn_onnx_str nm = b->names[i].out[j];
            node->outputs[j] = -1;
            if (nm.n == 0)
                continue; /* omitted optional output */
            int32_t id = kn_onnx_names_find(&b->table, nm);
            if (id >= 0) {
                char who[300];
                return kn_fail(c->err, KN_ERR_INVALID_MODEL,
                               "value '%.*s' is produced by node '%s' (%s) and by %s", SLICE(nm),
                               node->name, node->op_type, describe(b, id, who, sizeof who));
            }
            node->outputs[j] = add_value(b, nm, 0, i);
        }
    }
    return KN_OK;
}

/* Resolves a use; an unknown name is an error at top level and an outer
 * value in a subgraph. *id = -1 for the empty name (omitted input). */
static int resolve_use(graph_build *b, kn_onnx_str nm, const kn_node *user, const char *role,
                       int32_t *id)
{
    *id = -1;
    if (nm.n == 0)
        return KN_OK;
    *id = kn_onnx_names_find(&b->table, nm);
    if (*id >= 0)
        return KN_OK;
    if (b->g->parent) {
        *id = add_value(b, nm, V_OUTER, -1);
        return KN_OK;
    }
    if (user)
        return kn_fail(b->c->err, KN_ERR_INVALID_MODEL,
                       "node '%s' (%s): %s '%.*s' is not produced by any node, graph input or "
                       "initializer", user->name, user->op_type, role, SLICE(nm));
    return kn_fail(b->c->err, KN_ERR_INVALID_MODEL,
                   "graph output '%.*s' is not produced by any node, graph input or initializer",
                   SLICE(nm));
}

static int register_uses(graph_build *b)
{
    int32_t id;
    int rc;
    for (int32_t i = 0; i < b->g->n_nodes; i++) {
        kn_node *node = &b->g->nodes[i];
        for (int32_t j = 0; j < node->n_inputs; j++) {
            if ((rc = resolve_use(b, b->names[i].in[j], node, "input", &id)) != KN_OK)
                return rc;
            node->inputs[j] = id;
        }
        for (int32_t j = 0; j < b->names[i].n_implicit; j++)
            if ((rc = resolve_use(b, b->names[i].implicit[j], node,
                                  "value its subgraph uses", &id)) != KN_OK)
                return rc;
    }
    for (size_t i = 0; i < b->outputs.n; i++) {
        kn_onnx_str nm = b->out_vi[i].name;
        if (nm.n == 0)
            return kn_fail(b->c->err, KN_ERR_INVALID_MODEL, "graph output %zu has no name", i);
        if (kn_onnx_check_name(b->c, nm, "graph output") != KN_OK)
            return KN_ERR_INVALID_MODEL;
        if ((rc = resolve_use(b, nm, NULL, "output", &id)) != KN_OK)
            return rc;
        b->meta[id].flags |= V_OUTPUT;
        b->output_ids[i] = id;
    }
    return KN_OK;
}

static int register_names(graph_build *b)
{
    kn_onnx_ctx *c = b->c;
    size_t max = b->inputs.n + b->inits.n + b->outputs.n;
    for (int32_t i = 0; i < b->g->n_nodes; i++)
        max += (size_t)b->g->nodes[i].n_inputs + (size_t)b->g->nodes[i].n_outputs +
               (size_t)b->names[i].n_implicit;
    if (max > INT32_MAX / 2)
        return kn_fail(c->err, KN_ERR_LIMIT, "graph has too many names (%zu)", max);
    int rc = kn_onnx_names_init(c, &b->table, max);
    if (rc != KN_OK)
        return rc;
    b->meta = kn_onnx_alloc(c, c->tmp, max, sizeof(vmeta), "values");
    b->input_ids = kn_onnx_alloc(c, c->tmp, b->inputs.n, sizeof(int32_t), "graph inputs");
    b->output_ids = kn_onnx_alloc(c, c->tmp, b->outputs.n, sizeof(int32_t), "graph outputs");
    if (!b->meta || !b->input_ids || !b->output_ids)
        return c->err->code;
    if ((rc = register_defs(b)) != KN_OK)
        return rc;
    return register_uses(b);
}

static void apply_vinfo(graph_build *b, const kn_onnx_vinfo *vi)
{
    int typed = vi->is_tensor || vi->kind != KN_KIND_TENSOR;
    int32_t id = typed ? kn_onnx_names_find(&b->table, vi->name) : -1;
    if (id < 0)
        return;
    kn_value *v = &b->g->values[id];
    if (vi->kind != KN_KIND_TENSOR || v->kind != KN_KIND_TENSOR) {
        /* Sequence / optional (or a tensor declaration replacing one). */
        v->kind = vi->kind;
        v->elem_dtype = vi->elem_dtype;
        v->optional_of_sequence = (uint8_t)vi->optional_of_sequence;
        v->dtype = vi->dtype;
        v->rank = vi->rank;
        memcpy(v->dims, vi->dims, sizeof v->dims);
        memcpy(v->dim_params, vi->dim_params, sizeof v->dim_params);
        return;
    }
    if (vi->dtype != KN_UNDEFINED)
        v->dtype = vi->dtype;
    if (vi->rank >= 0) { /* a later declaration without a shape keeps an earlier shape */
        v->rank = vi->rank;
        memcpy(v->dims, vi->dims, sizeof v->dims);
        memcpy(v->dim_params, vi->dim_params, sizeof v->dim_params);
    }
}

static int build_values(graph_build *b)
{
    kn_onnx_ctx *c = b->c;
    kn_graph *g = b->g;
    int32_t n = b->table.count;
    g->n_values = n;
    if (!(g->values = kn_onnx_alloc(c, c->bump, (size_t)n, sizeof(kn_value), "values")))
        return c->err->code;
    for (int32_t id = 0; id < n; id++) {
        const vmeta *m = &b->meta[id];
        kn_value *v = &g->values[id];
        if (!(v->name = kn_onnx_strdup(c, m->name)))
            return c->err->code;
        v->dtype = KN_UNDEFINED;
        v->rank = -1;
        v->producer = m->producer;
        v->is_graph_input = (m->flags & V_INPUT) != 0;
        v->is_initializer = (m->flags & V_INIT) != 0;
        v->is_graph_output = (m->flags & V_OUTPUT) != 0;
        v->is_outer = (m->flags & V_OUTER) != 0;
    }
    /* Later declarations refine earlier ones; an initializer is the truth. */
    for (size_t i = 0; i < b->vinfos.n; i++)
        apply_vinfo(b, &b->vi[i]);
    for (size_t i = 0; i < b->outputs.n; i++)
        apply_vinfo(b, &b->out_vi[i]);
    for (size_t i = 0; i < b->inputs.n; i++)
        apply_vinfo(b, &b->in_vi[i]);
    for (int32_t id = 0; id < n; id++) {
        kn_value *v = &g->values[id];
        if (b->meta[id].init < 0)
            continue;
        const kn_tensor *t = &b->init_t[b->meta[id].init];
        v->kind = KN_KIND_TENSOR;
        v->dtype = t->dtype;
        v->rank = t->rank;
        memcpy(v->dims, t->dims, sizeof v->dims);
        memset(v->dim_params, 0, sizeof v->dim_params);
        v->init_data = t->data;
        v->init_nbytes = kn_tensor_nbytes(t);
    }
    return KN_OK;
}

/* Producer of a use, or -1 (graph input, initializer, outer value, none). */
static int32_t producer_of(const graph_build *b, int32_t id)
{
    return id >= 0 ? b->meta[id].producer : -1;
}

static int sort_nodes(graph_build *b)
{
    kn_onnx_ctx *c = b->c;
    kn_graph *g = b->g;
    int32_t n = g->n_nodes;
    int32_t *start = kn_onnx_alloc(c, c->tmp, (size_t)n + 1, sizeof(int32_t), "sort");
    if (!start)
        return c->err->code;
    int32_t *deps = NULL;
    for (int pass = 0; pass < 2; pass++) {
        int32_t m = 0;
        for (int32_t i = 0; i < n; i++) {
            start[i] = m;
            for (int32_t j = 0; j < g->nodes[i].n_inputs; j++) {
                int32_t p = producer_of(b, g->nodes[i].inputs[j]);
                if (p >= 0 && pass)
                    deps[m] = p;
                m += p >= 0;
            }
            for (int32_t j = 0; j < b->names[i].n_implicit; j++) {
                int32_t p = producer_of(b, kn_onnx_names_find(&b->table, b->names[i].implicit[j]));
                if (p >= 0 && pass)
                    deps[m] = p;
                m += p >= 0;
            }
        }
        start[n] = m;
        if (!pass && !(deps = kn_onnx_alloc(c, c->tmp, (size_t)m + 1, sizeof(int32_t), "sort")))
            return c->err->code;
    }
    int32_t *order = kn_onnx_alloc(c, c->tmp, (size_t)n + 1, sizeof(int32_t), "sort");
    int32_t *new_index = kn_onnx_alloc(c, c->tmp, (size_t)n + 1, sizeof(int32_t), "sort");
    kn_node *copy = kn_onnx_alloc(c, c->tmp, (size_t)n + 1, sizeof(kn_node), "sort");
    if (!order || !new_index || !copy)
        return c->err->code;
    int rc = kn_onnx_topo_sort(c, g->nodes, n, start, deps, order);
    if (rc != KN_OK)
        return rc;
    if (n)
        memcpy(copy, g->nodes, (size_t)n * sizeof(kn_node));
    for (int32_t k = 0; k < n; k++) {
        g->nodes[k] = copy[order[k]];
        new_index[order[k]] = k;
    }
    for (int32_t id = 0; id < g->n_values; id++)
        if (g->values[id].producer >= 0)
            g->values[id].producer = new_index[g->values[id].producer];
    return KN_OK;
}

static int set_graph_io(graph_build *b)
{
    kn_onnx_ctx *c = b->c;
    kn_graph *g = b->g;
    int32_t n_in = 0;
    for (size_t i = 0; i < b->inputs.n; i++)
        n_in += !g->values[b->input_ids[i]].is_initializer;
    g->inputs = kn_onnx_alloc(c, c->bump, (size_t)n_in, sizeof(int32_t), "graph inputs");
    g->outputs = kn_onnx_alloc(c, c->bump, b->outputs.n, sizeof(int32_t), "graph outputs");
    if (!g->inputs || !g->outputs)
        return c->err->code;
    for (size_t i = 0; i < b->inputs.n; i++)
        if (!g->values[b->input_ids[i]].is_initializer)
            g->inputs[g->n_inputs++] = b->input_ids[i];
    for (size_t i = 0; i < b->outputs.n; i++)
        g->outputs[g->n_outputs++] = b->output_ids[i];
    return KN_OK;
}

int kn_onnx_parse_graph(kn_onnx_ctx *c, const pb_reader *parent, const pb_field *f,
                        const kn_graph *parent_graph, int depth, kn_graph **out)
{
    *out = NULL;
    if (depth > KN_ONNX_MAX_DEPTH)
        return kn_fail(c->err, KN_ERR_UNSUPPORTED,
                       "subgraphs nested more than %d deep are not supported", KN_ONNX_MAX_DEPTH);
    if (pb_want(parent, f, PB_LEN) != KN_OK)
        return KN_ERR_INVALID_MODEL;
    graph_build *b = kn_onnx_alloc(c, c->tmp, 1, sizeof *b, "graph");
    kn_graph *g = kn_onnx_alloc(c, c->bump, 1, sizeof *g, "graph");
    if (!b || !g)
        return c->err->code;
    b->c = c;
    b->r = pb_sub(parent, f, &graph_desc);
    b->g = g;
    b->depth = depth;
    g->parent = parent_graph;
    g->name = "";
    int rc;
    if ((rc = locate_fields(b)) == KN_OK && (rc = read_parts(b)) == KN_OK &&
        (rc = register_names(b)) == KN_OK && (rc = build_values(b)) == KN_OK &&
        (rc = sort_nodes(b)) == KN_OK)
        rc = set_graph_io(b);
    if (rc != KN_OK) {
        if (depth > 0)
            kn_onnx_prefix(c->err, "subgraph '%s'", g->name);
        return rc;
    }
    *out = g;
    return KN_OK;
}
