/* `kiln info --dot/--svg`: writes a model's graph as Graphviz DOT and, when
 * Graphviz is installed, renders it to SVG. */
#ifndef KILN_CLI_INFO_GRAPH_H
#define KILN_CLI_INFO_GRAPH_H

#include "kiln.h"

typedef struct graph_files {
    const char *dot; /* DOT output, or NULL */
    const char *svg; /* SVG output, or NULL */
} graph_files;

/* model was loaded from path at level `optimize`; above 0 the file is
 * loaded once more unoptimized, to name what each fused node stands for.
 * A --dot name ending in ".svg" means an SVG. Prints what it wrote;
 * returns 0 or -1 after printing why. */
int write_graph_files(kiln_runtime *runtime, const char *path, const kiln_model *model,
                      int optimize, graph_files files);

#endif
