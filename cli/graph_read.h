/* A model's graph read through the public API into plain arrays: each
 * node's name, op, domain and the names of the values it reads and writes,
 * plus the graph's inputs and outputs. Values with the same name are the
 * same tensor, so edges follow from the names. */
#ifndef KILN_CLI_GRAPH_READ_H
#define KILN_CLI_GRAPH_READ_H

#include "kiln.h"

typedef struct graph_node {
    char *name, *op, *domain; /* domain "" for ai.onnx */
    int n_inputs, n_outputs;
    char **inputs, **outputs; /* "" for an omitted optional value */
} graph_node;

typedef struct model_graph {
    graph_node *nodes; /* in execution order */
    int n_nodes;
    char **inputs, **outputs;
    int n_inputs, n_outputs;
} model_graph;

/* Reads the graph; returns a status (on failure g is emptied). */
int32_t graph_read(const kiln_model *model, model_graph *g);
void graph_free(model_graph *g);

/* Names mapped to numbers (a value's producing node), looked up by binary
 * search: graphs of thousands of nodes stay fast. */
typedef struct name_entry {
    const char *name; /* borrowed from the graph */
    int number;
} name_entry;

typedef struct name_map {
    name_entry *entries;
    int count;
} name_map;

/* Maps every value a node writes to that node's index; with with_inputs,
 * also every value a node reads (to -1 when no node writes it) and the
 * graph inputs: the set of all names the graph knows. Returns 0, or -1 when
 * out of memory. */
int name_map_build(const model_graph *g, int with_inputs, name_map *map);
/* Maps every node's name to its index. */
int name_map_build_nodes(const model_graph *g, name_map *map);
/* The number mapped to name, or `missing` if name is not in the map. */
int name_map_find(const name_map *map, const char *name, int missing);
void name_map_free(name_map *map);

#endif
