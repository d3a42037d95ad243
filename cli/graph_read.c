/* Reading a graph through the API (see graph_read.h). */
#include "graph_read.h"

#include "api.h"

#include <stdlib.h>
#include <string.h>

static void free_strings(char **s, int n)
{
    for (int i = 0; s && i < n; i++)
        free(s[i]);
    free(s);
}

void graph_free(model_graph *g)
{
    for (int i = 0; g->nodes && i < g->n_nodes; i++) {
        graph_node *n = &g->nodes[i];
        free(n->name);
        free(n->op);
        free(n->domain);
        free_strings(n->inputs, n->n_inputs);
        free_strings(n->outputs, n->n_outputs);
    }
    free(g->nodes);
    free_strings(g->inputs, g->n_inputs);
    free_strings(g->outputs, g->n_outputs);
    memset(g, 0, sizeof *g);
}

static int32_t read_node(const kiln_model *model, int32_t index, graph_node *n)
{
    int32_t status = model_node_op(model, index, &n->op, &n->domain);
    if (status == KILN_OK)
        n->name = model_node_name(model, index, &status);
    int32_t in = 0, out = 0;
    if (status == KILN_OK)
        status = kiln_model_node_io_count(model, index, &in, &out);
    if (status != KILN_OK)
        return status;
    n->inputs = calloc((size_t)in + 1, sizeof *n->inputs);
    n->outputs = calloc((size_t)out + 1, sizeof *n->outputs);
    if (!n->inputs || !n->outputs)
        return KILN_ERR_OUT_OF_MEMORY;
    /* Counted as they are read, so graph_free frees exactly what exists. */
    for (; n->n_inputs < in && status == KILN_OK; n->n_inputs++)
        n->inputs[n->n_inputs] = model_node_value(model, index, 0, n->n_inputs, &status);
    for (; n->n_outputs < out && status == KILN_OK; n->n_outputs++)
        n->outputs[n->n_outputs] = model_node_value(model, index, 1, n->n_outputs, &status);
    return status;
}

/* The graph's input or output names. */
static int32_t read_io(const kiln_model *model, int outputs, char ***names, int *count)
{
    int32_t n = 0;
    int32_t status = outputs ? kiln_model_output_count(model, &n)
                             : kiln_model_input_count(model, &n);
    if (status != KILN_OK)
        return status;
    if (!(*names = calloc((size_t)n + 1, sizeof **names)))
        return KILN_ERR_OUT_OF_MEMORY;
    for (*count = 0; *count < n && status == KILN_OK; (*count)++)
        (*names)[*count] = outputs ? model_output_name(model, *count, &status)
                                   : model_input_name(model, *count, &status);
    return status;
}

int32_t graph_read(const kiln_model *model, model_graph *g)
{
    memset(g, 0, sizeof *g);
    int32_t count = 0;
    int32_t status = kiln_model_node_count(model, &count);
    if (status == KILN_OK && !(g->nodes = calloc((size_t)count + 1, sizeof *g->nodes)))
        status = KILN_ERR_OUT_OF_MEMORY;
    for (; status == KILN_OK && g->n_nodes < count; g->n_nodes++)
        status = read_node(model, g->n_nodes, &g->nodes[g->n_nodes]);
    if (status == KILN_OK)
        status = read_io(model, 0, &g->inputs, &g->n_inputs);
    if (status == KILN_OK)
        status = read_io(model, 1, &g->outputs, &g->n_outputs);
    if (status != KILN_OK)
        graph_free(g);
    return status;
}

/* ---- name map ---- */

static int by_name(const void *a, const void *b)
{
    return strcmp(((const name_entry *)a)->name, ((const name_entry *)b)->name);
}

int name_map_build(const model_graph *g, int with_inputs, name_map *map)
{
    size_t cap = (size_t)g->n_inputs + 1;
    for (int i = 0; i < g->n_nodes; i++)
        cap += (size_t)g->nodes[i].n_outputs + (with_inputs ? (size_t)g->nodes[i].n_inputs : 0);
    map->count = 0;
    if (!(map->entries = malloc(cap * sizeof *map->entries)))
        return -1;
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_outputs; k++)
            if (g->nodes[i].outputs[k][0])
                map->entries[map->count++] = (name_entry){g->nodes[i].outputs[k], i};
    if (with_inputs) {
        for (int i = 0; i < g->n_inputs; i++)
            map->entries[map->count++] = (name_entry){g->inputs[i], -1};
        for (int i = 0; i < g->n_nodes; i++)
            for (int k = 0; k < g->nodes[i].n_inputs; k++)
                if (g->nodes[i].inputs[k][0])
                    map->entries[map->count++] = (name_entry){g->nodes[i].inputs[k], -1};
    }
    qsort(map->entries, (size_t)map->count, sizeof *map->entries, by_name);
    /* Keep one entry per name, preferring a writer (number >= 0). */
    int kept = 0;
    for (int i = 0; i < map->count; i++) {
        if (kept > 0 && strcmp(map->entries[kept - 1].name, map->entries[i].name) == 0) {
            if (map->entries[kept - 1].number < 0)
                map->entries[kept - 1].number = map->entries[i].number;
            continue;
        }
        map->entries[kept++] = map->entries[i];
    }
    map->count = kept;
    return 0;
}

int name_map_build_nodes(const model_graph *g, name_map *map)
{
    map->count = 0;
    if (!(map->entries = malloc(((size_t)g->n_nodes + 1) * sizeof *map->entries)))
        return -1;
    for (int i = 0; i < g->n_nodes; i++)
        map->entries[map->count++] = (name_entry){g->nodes[i].name, i};
    qsort(map->entries, (size_t)map->count, sizeof *map->entries, by_name);
    return 0;
}

int name_map_find(const name_map *map, const char *name, int missing)
{
    name_entry key = {name, 0};
    const name_entry *e = map->count ? bsearch(&key, map->entries, (size_t)map->count,
                                               sizeof *map->entries, by_name)
                                     : NULL;
    return e ? e->number : missing;
}

void name_map_free(name_map *map)
{
    free(map->entries);
    map->entries = NULL;
    map->count = 0;
}
