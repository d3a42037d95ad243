/* Loading models and looking at them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "core/engine/load.h"
#include "core/engine/registry.h"
#include "core/engine/weight_store.h"
#include "core/opt/optimize.h"

/* The engine's load options from the API's. */
static kn_load_options load_options(const kiln_options *o)
{
    kn_load_options lo = {.max_bytes = o && o->max_model_mb ? (size_t)o->max_model_mb << 20 : 0,
                          .optimize = o ? o->optimize : KN_OPT_ALL,
                          .allow_unsupported = o ? o->allow_unsupported : 0};
    /* KILN_OPT_USE_DNNL 0 switches the oneDNN backend off (a build without
     * it has its never-available descriptor, so the name always resolves) */
    int32_t dnnl = kn_backend_index("dnnl");
    if (o && !o->use_dnnl && dnnl >= 0)
        lo.backends_off |= 1u << dnnl;
    return lo;
}

/* Wraps a loaded core model in its handle. */
static int32_t wrap(kiln_runtime *rt, int rc, kn_model *core, const kn_err *err,
                    kiln_model **out)
{
    if (rc != KN_OK)
        return kiln_fail_err(err);
    kiln_model *m = calloc(1, sizeof *m);
    if (!m) {
        kn_model_destroy(core);
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
    }
    m->runtime = rt;
    m->core = core;
    *out = m;
    return KILN_OK;
}

int32_t kiln_model_load_memory(kiln_runtime *rt, const void *data, size_t size,
                               const kiln_options *o, kiln_model **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    KILN_CHECK_ARG(rt, "runtime is NULL");
    KILN_CHECK_ARG(data || size == 0, "data is NULL");
    kn_err err = {0};
    kn_load_options lo = load_options(o);
    kn_model *core = NULL;
    int rc = kn_model_load(data, size, NULL, 0, &lo, &core, &err);
    return wrap(rt, rc, core, &err, out);
}

int32_t kiln_model_load_file(kiln_runtime *rt, const char *path, const kiln_options *o,
                             kiln_model **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    KILN_CHECK_ARG(rt, "runtime is NULL");
    KILN_CHECK_ARG(path, "path is NULL");
    kn_err err = {0};
    kn_load_options lo = load_options(o);
    kn_model *core = NULL;
    int rc = kn_model_load_file(path, &lo, &core, &err);
    return wrap(rt, rc, core, &err, out);
}

void kiln_model_destroy(kiln_model *m)
{
    if (!m)
        return;
    kn_model_destroy(m->core);
    free(m);
}

static const kn_graph *graph_of(const kiln_model *m) { return m->core->graph; }

int32_t kiln_model_input_count(const kiln_model *m, int32_t *count)
{
    KILN_CHECK_ARG(m && count, "NULL argument");
    *count = graph_of(m)->n_inputs;
    return KILN_OK;
}

int32_t kiln_model_output_count(const kiln_model *m, int32_t *count)
{
    KILN_CHECK_ARG(m && count, "NULL argument");
    *count = graph_of(m)->n_outputs;
    return KILN_OK;
}

/* The value behind input (is_output 0) or output (1) number `index`. */
static const kn_value *io_value(const kiln_model *m, int is_output, int32_t index)
{
    const kn_graph *g = graph_of(m);
    int32_t n = is_output ? g->n_outputs : g->n_inputs;
    if (index < 0 || index >= n)
        return NULL;
    return &g->values[is_output ? g->outputs[index] : g->inputs[index]];
}

static int32_t io_index_out_of_range(const kiln_model *m, int is_output, int32_t index)
{
    int32_t n = is_output ? graph_of(m)->n_outputs : graph_of(m)->n_inputs;
    const char *what = is_output ? "output" : "input";
    return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "%s index %d out of range: the model has %d %s%s",
                     what, (int)index, (int)n, what, n == 1 ? "" : "s");
}

#define IO_VALUE_OR_FAIL(v, m, is_output, index)                                           \
    KILN_CHECK_ARG(m, "model is NULL");                                                   \
    const kn_value *v = io_value(m, is_output, index);                                    \
    if (!v)                                                                               \
        return io_index_out_of_range(m, is_output, index)

static int32_t io_name(const kiln_model *m, int is_output, int32_t index, char *buf, int32_t cap,
                       int32_t *needed)
{
    IO_VALUE_OR_FAIL(v, m, is_output, index);
    return kiln_copy_string(v->name, buf, cap, needed);
}

static int32_t io_dtype(const kiln_model *m, int is_output, int32_t index, int32_t *dtype)
{
    IO_VALUE_OR_FAIL(v, m, is_output, index);
    KILN_CHECK_ARG(dtype, "dtype is NULL");
    /* A sequence or optional reports its tensors' element type. */
    *dtype = v->kind == KN_KIND_TENSOR ? v->dtype : v->elem_dtype;
    return KILN_OK;
}

static int32_t io_kind(const kiln_model *m, int is_output, int32_t index, int32_t *kind)
{
    IO_VALUE_OR_FAIL(v, m, is_output, index);
    KILN_CHECK_ARG(kind, "kind is NULL");
    *kind = v->kind;
    return KILN_OK;
}

static int32_t io_shape(const kiln_model *m, int is_output, int32_t index, int64_t *dims,
                        int32_t cap, int32_t *rank)
{
    IO_VALUE_OR_FAIL(v, m, is_output, index);
    KILN_CHECK_ARG(rank, "rank is NULL");
    if (v->rank < 0) {
        *rank = -1;
        return KILN_OK;
    }
    return kiln_copy_shape(v->dims, v->rank, dims, cap, rank);
}

/* A name the model does not have: the message lists the names it does
 * have, since the usual cause is a typo ("unknown input 'imgae'; the
 * model's inputs are: 'image'"). */
static int32_t unknown_name(const kiln_model *m, int is_output, const char *name)
{
    const kn_graph *g = graph_of(m);
    int32_t n = is_output ? g->n_outputs : g->n_inputs;
    const char *what = is_output ? "output" : "input";
    char list[640];
    size_t used = 0;
    list[0] = 0;
    for (int32_t i = 0; i < n && used < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s'%s'", i ? ", " : "",
                         io_value(m, is_output, i)->name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (n == 0)
        return kiln_fail(KILN_ERR_NOT_FOUND, "unknown %s '%s'; the model has no %ss", what, name,
                         what);
    return kiln_fail(KILN_ERR_NOT_FOUND, "unknown %s '%s'; the model's %ss are: %s", what, name,
                     what, list);
}

static int32_t io_index(const kiln_model *m, int is_output, const char *name, int32_t *index)
{
    KILN_CHECK_ARG(m && name && index, "NULL argument");
    const kn_graph *g = graph_of(m);
    int32_t n = is_output ? g->n_outputs : g->n_inputs;
    for (int32_t i = 0; i < n; i++) {
        if (strcmp(io_value(m, is_output, i)->name, name) == 0) {
            *index = i;
            return KILN_OK;
        }
    }
    return unknown_name(m, is_output, name);
}

int32_t kiln_model_input_name(const kiln_model *m, int32_t i, char *b, int32_t c, int32_t *n)
{
    return io_name(m, 0, i, b, c, n);
}
int32_t kiln_model_output_name(const kiln_model *m, int32_t i, char *b, int32_t c, int32_t *n)
{
    return io_name(m, 1, i, b, c, n);
}
int32_t kiln_model_input_dtype(const kiln_model *m, int32_t i, int32_t *d) { return io_dtype(m, 0, i, d); }
int32_t kiln_model_output_dtype(const kiln_model *m, int32_t i, int32_t *d) { return io_dtype(m, 1, i, d); }
int32_t kiln_model_input_shape(const kiln_model *m, int32_t i, int64_t *d, int32_t c, int32_t *r)
{
    return io_shape(m, 0, i, d, c, r);
}
int32_t kiln_model_output_shape(const kiln_model *m, int32_t i, int64_t *d, int32_t c, int32_t *r)
{
    return io_shape(m, 1, i, d, c, r);
}
int32_t kiln_model_input_kind(const kiln_model *m, int32_t i, int32_t *k) { return io_kind(m, 0, i, k); }
int32_t kiln_model_output_kind(const kiln_model *m, int32_t i, int32_t *k) { return io_kind(m, 1, i, k); }
int32_t kiln_model_input_index(const kiln_model *m, const char *n, int32_t *i) { return io_index(m, 0, n, i); }
int32_t kiln_model_output_index(const kiln_model *m, const char *n, int32_t *i) { return io_index(m, 1, n, i); }

int32_t kiln_model_opset_count(const kiln_model *m, int32_t *count)
{
    KILN_CHECK_ARG(m && count, "NULL argument");
    *count = m->core->ir->n_opsets;
    return KILN_OK;
}

int32_t kiln_model_opset(const kiln_model *m, int32_t index, char *domain, int32_t cap,
                         int32_t *needed, int32_t *version)
{
    KILN_CHECK_ARG(m, "model is NULL");
    if (index < 0 || index >= m->core->ir->n_opsets)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "opset index %d out of range", (int)index);
    const kn_opset *o = &m->core->ir->opsets[index];
    if (version)
        *version = o->version > INT32_MAX ? INT32_MAX : (int32_t)o->version;
    return kiln_copy_string(o->domain ? o->domain : "", domain, cap, needed);
}

int32_t kiln_model_node_count(const kiln_model *m, int32_t *count)
{
    KILN_CHECK_ARG(m && count, "NULL argument");
    *count = graph_of(m)->n_nodes;
    return KILN_OK;
}

#define NODE_OR_FAIL(node, m, index)                                                        \
    KILN_CHECK_ARG(m, "model is NULL");                                                     \
    if (index < 0 || index >= graph_of(m)->n_nodes)                                         \
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "node index %d out of range", (int)index); \
    const kn_node *node = &graph_of(m)->nodes[index]

int32_t kiln_model_node_op(const kiln_model *m, int32_t index, char *op_type, int32_t op_cap,
                           char *domain, int32_t domain_cap, int32_t *needed)
{
    NODE_OR_FAIL(node, m, index);
    int32_t need_op = 0, need_domain = 0;
    int32_t rc = kiln_copy_string(node->op_type, op_type, op_cap, &need_op);
    if (rc == KILN_OK)
        rc = kiln_copy_string(node->domain ? node->domain : "", domain, domain_cap, &need_domain);
    if (needed)
        *needed = need_op > need_domain ? need_op : need_domain;
    return rc;
}

int32_t kiln_model_node_name(const kiln_model *m, int32_t index, char *buf, int32_t cap,
                             int32_t *needed)
{
    NODE_OR_FAIL(node, m, index);
    return kiln_copy_string(node->name, buf, cap, needed);
}

int32_t kiln_model_node_supported(const kiln_model *m, int32_t index, int32_t *supported)
{
    NODE_OR_FAIL(node, m, index);
    (void)node;
    KILN_CHECK_ARG(supported, "supported is NULL");
    *supported = m->core->node_op[index] != NULL;
    return KILN_OK;
}

int32_t kiln_model_node_io_count(const kiln_model *m, int32_t index, int32_t *input_count,
                                 int32_t *output_count)
{
    NODE_OR_FAIL(node, m, index);
    KILN_CHECK_ARG(input_count && output_count, "NULL argument");
    *input_count = node->n_inputs;
    *output_count = node->n_outputs;
    return KILN_OK;
}

/* The name of the value in `slot` of a node's inputs or outputs. */
static int32_t node_value_name(const kiln_model *m, int32_t index, int is_output, int32_t slot,
                               char *buf, int32_t cap, int32_t *needed)
{
    NODE_OR_FAIL(node, m, index);
    int32_t n = is_output ? node->n_outputs : node->n_inputs;
    if (slot < 0 || slot >= n)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "node %d has %d %s; slot %d is out of range",
                         (int)index, (int)n, is_output ? "outputs" : "inputs", (int)slot);
    int32_t v = is_output ? node->outputs[slot] : node->inputs[slot];
    return kiln_copy_string(v < 0 ? "" : graph_of(m)->values[v].name, buf, cap, needed);
}

int32_t kiln_model_node_input(const kiln_model *m, int32_t index, int32_t slot, char *buf,
                              int32_t cap, int32_t *needed)
{
    return node_value_name(m, index, 0, slot, buf, cap, needed);
}

int32_t kiln_model_node_output(const kiln_model *m, int32_t index, int32_t slot, char *buf,
                               int32_t cap, int32_t *needed)
{
    return node_value_name(m, index, 1, slot, buf, cap, needed);
}

static int64_t initializer_bytes(const kn_graph *g)
{
    int64_t n = 0;
    for (int32_t v = 0; v < g->n_values; v++)
        if (g->values[v].is_initializer && g->values[v].init_data)
            n += g->values[v].init_nbytes;
    return n;
}

int32_t kiln_model_memory_info(const kiln_model *m, int64_t *weight_bytes,
                               int64_t *shared_prepared_bytes, int64_t *given_back_bytes)
{
    KILN_CHECK_ARG(m, "NULL model");
    const kn_model *core = m->core;
    if (weight_bytes) {
        int64_t n = initializer_bytes(core->graph);
        for (int32_t s = 0; s < core->n_subs; s++)
            n += initializer_bytes(core->subs[s]->graph);
        *weight_bytes = n;
    }
    kn_weight_store_stats st;
    kn_weight_store_get_stats(core->weights, &st); /* zeros without a store */
    if (shared_prepared_bytes)
        *shared_prepared_bytes = st.packed_bytes;
    if (given_back_bytes)
        *given_back_bytes = st.evicted_bytes;
    return KILN_OK;
}
