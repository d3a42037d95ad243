/* A model's graph as Graphviz DOT: one box per node, an ellipse per graph
 * input and output, an edge per value from the node writing it to each node
 * reading it. Nodes the optimizer made (domain "kiln": FusedConv,
 * FusedGemm, Gelu, ...) are filled orange and list the ops of the file
 * they stand for ("Conv + BatchNormalization + Relu"). */
#ifndef KILN_CLI_GRAPH_DOT_H
#define KILN_CLI_GRAPH_DOT_H

#include "graph_read.h"

#include <stdio.h>

/* Writes g to out. original, when not NULL, is the same model loaded
 * without optimization: each optimizer-made node's list of fused ops comes
 * from the part of it between the node's inputs and outputs. title heads
 * the picture. Returns how many optimizer-made nodes were marked, or -1
 * when out of memory. */
int graph_write_dot(FILE *out, const model_graph *g, const model_graph *original,
                    const char *title);

/* 1 if the node was made by Kiln's optimizer. */
int graph_node_is_fused(const graph_node *node);

#endif
