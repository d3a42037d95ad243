/* DOT output of a graph (see graph_dot.h). */
#include "graph_dot.h"

#include <stdlib.h>
#include <string.h>

/* The optimizer's domain (core/opt/optimize.h, KN_OPT_DOMAIN_NAME); the
 * CLI sees it only as the domain string the API reports. */
#define OPTIMIZER_DOMAIN "kiln"
/* Fused-op lists longer than this are cut, so a long elementwise chain
 * does not make one node as wide as the page. */
#define MAX_LISTED_OPS 6
#define LINE_CHARS 30

int graph_node_is_fused(const graph_node *node)
{
    return strcmp(node->domain, OPTIMIZER_DOMAIN) == 0;
}

/* Text inside a DOT "..." string: quotes and backslashes escaped. */
static void put_escaped(FILE *out, const char *text)
{
    for (const char *c = text; *c; c++) {
        if (*c == '"' || *c == '\\')
            fputc('\\', out);
        fputc(*c, out);
    }
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* What the graph-reading side needs to attribute fused nodes. */
typedef struct attribution {
    const model_graph *original;
    name_map original_writers; /* value -> original node writing it */
    name_map original_nodes;   /* node name -> original node */
    name_map optimized_names;  /* every value the optimized graph has */
    char *claimed;             /* original nodes already attributed */
    int *stack;
} attribution;

/* Where to start walking back: the optimizer names a node it makes after
 * the node it replaced last ("<name>/kiln_opt_<N>", e.g. the Relu ending a
 * Conv + Relu chain), which also holds when a later pass rewrites the node
 * again (FusedConv -> NhwcConv keeps the base name). Without that suffix,
 * the nodes writing the fused node's outputs. */
static int push_start(attribution *at, const graph_node *fused, int top)
{
    const char *suffix = strstr(fused->name, "/kiln_opt_");
    if (suffix) {
        char base[512];
        snprintf(base, sizeof base, "%.*s", (int)(suffix - fused->name), fused->name);
        int w = name_map_find(&at->original_nodes, base, -1);
        if (w >= 0 && !at->claimed[w]) {
            at->claimed[w] = 1;
            at->stack[top++] = w;
        }
        return top;
    }
    for (int k = 0; k < fused->n_outputs; k++) {
        int w = name_map_find(&at->original_writers, fused->outputs[k], -1);
        if (w >= 0 && !at->claimed[w]) {
            at->claimed[w] = 1;
            at->stack[top++] = w;
        }
    }
    return top;
}

/* The original nodes a fused node replaced: from its start node back
 * through the nodes writing their inputs, stopping at values the optimized
 * graph still has (the fused node's inputs, other nodes' outputs), at
 * weights (no writer) and at nodes an earlier fused node claimed. Fills
 * ops[] with original node indices in execution order; returns the count. */
static int fused_ops(attribution *at, const graph_node *fused, int *ops)
{
    int top = push_start(at, fused, 0), count = 0;
    while (top > 0) {
        const graph_node *n = &at->original->nodes[at->stack[--top]];
        ops[count++] = (int)(n - at->original->nodes);
        for (int k = 0; k < n->n_inputs; k++) {
            const char *v = n->inputs[k];
            if (!v[0] || name_map_find(&at->optimized_names, v, -2) != -2)
                continue; /* still a value of the optimized graph */
            int w = name_map_find(&at->original_writers, v, -1);
            if (w >= 0 && !at->claimed[w]) {
                at->claimed[w] = 1;
                at->stack[top++] = w;
            }
        }
    }
    qsort(ops, (size_t)count, sizeof *ops, by_int);
    return count;
}

static void attribution_free(attribution *at)
{
    name_map_free(&at->original_writers);
    name_map_free(&at->original_nodes);
    name_map_free(&at->optimized_names);
    free(at->claimed);
    free(at->stack);
}

static int attribution_init(attribution *at, const model_graph *g, const model_graph *original)
{
    memset(at, 0, sizeof *at);
    at->original = original;
    size_t n = (size_t)original->n_nodes + 1;
    if (!(at->claimed = calloc(n, 1)) || !(at->stack = malloc(n * sizeof *at->stack)) ||
        name_map_build(original, 0, &at->original_writers) != 0 ||
        name_map_build_nodes(original, &at->original_nodes) != 0 ||
        name_map_build(g, 1, &at->optimized_names) != 0) {
        attribution_free(at);
        return -1;
    }
    return 0;
}

/* "FusedConv\nConv + BatchNormalization\n+ Relu" as a DOT label. */
static void put_fused_label(FILE *out, const graph_node *node, const model_graph *original,
                            const int *ops, int count)
{
    put_escaped(out, node->op);
    int line = LINE_CHARS; /* start the list on a new line */
    for (int i = 0; i < count && i < MAX_LISTED_OPS; i++) {
        const char *op = original->nodes[ops[i]].op;
        int len = (int)strlen(op) + 3;
        if (line + len > LINE_CHARS) {
            fputs(i ? "\\n+ " : "\\n", out);
            line = 2;
        } else if (i) {
            fputs(" + ", out);
        }
        put_escaped(out, op);
        line += len;
    }
    if (count > MAX_LISTED_OPS)
        fprintf(out, "\\n(%d ops in all)", count);
}

static int graph_input_index(const model_graph *g, const char *name)
{
    for (int i = 0; i < g->n_inputs; i++)
        if (strcmp(g->inputs[i], name) == 0)
            return i;
    return -1;
}

/* The DOT id of whatever writes value `name`: a node or a graph input;
 * NULL-terminated into id, or id[0] = 0 when nothing does (a weight). */
static void writer_id(const model_graph *g, const name_map *writers, const char *name, char *id,
                      size_t cap)
{
    int w = name_map_find(writers, name, -1);
    int in = w < 0 ? graph_input_index(g, name) : -1;
    if (w >= 0)
        snprintf(id, cap, "n%d", w);
    else if (in >= 0)
        snprintf(id, cap, "in%d", in);
    else
        id[0] = '\0';
}

int graph_write_dot(FILE *out, const model_graph *g, const model_graph *original,
                    const char *title)
{
    name_map writers = {0};
    attribution at;
    int *ops = original ? malloc(sizeof *ops * ((size_t)original->n_nodes + 1)) : NULL;
    int have_at = original && ops && attribution_init(&at, g, original) == 0;
    if (name_map_build(g, 0, &writers) != 0 || (original && !have_at)) {
        name_map_free(&writers);
        if (have_at)
            attribution_free(&at);
        free(ops);
        return -1;
    }
    int fused = 0;
    for (int i = 0; i < g->n_nodes; i++)
        fused += graph_node_is_fused(&g->nodes[i]);

    fputs("digraph kiln {\n"
          "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=14, labelloc=t, label=\"",
          out);
    put_escaped(out, title);
    fprintf(out, "\\n%d nodes", g->n_nodes);
    if (fused)
        fprintf(out, ", %d made by the optimizer (orange)", fused);
    fputs("\"];\n"
          "  node [fontname=\"Helvetica\", fontsize=11, shape=box, style=\"rounded,filled\", "
          "fillcolor=\"#eeeeee\", color=\"#777777\"];\n"
          "  edge [color=\"#666666\", arrowsize=0.6];\n",
          out);
    for (int i = 0; i < g->n_inputs; i++) {
        fprintf(out, "  in%d [shape=ellipse, fillcolor=\"#cfe2f3\", color=\"#3d85c6\", label=\"", i);
        put_escaped(out, g->inputs[i]);
        fputs("\"];\n", out);
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        fprintf(out, "  n%d [", i);
        if (graph_node_is_fused(n)) {
            fputs("fillcolor=\"#f6b26b\", color=\"#b45f06\", penwidth=2, label=\"", out);
            int count = have_at ? fused_ops(&at, n, ops) : 0;
            put_fused_label(out, n, original, ops, count);
        } else {
            fputs("label=\"", out);
            put_escaped(out, n->op);
        }
        fputs("\", tooltip=\"", out);
        put_escaped(out, n->name);
        fputs("\"];\n", out);
    }
    for (int i = 0; i < g->n_outputs; i++) {
        fprintf(out, "  out%d [shape=ellipse, fillcolor=\"#d9ead3\", color=\"#6aa84f\", label=\"",
                i);
        put_escaped(out, g->outputs[i]);
        fputs("\"];\n", out);
    }
    char from[32];
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_inputs; k++) {
            if (!n->inputs[k][0])
                continue;
            writer_id(g, &writers, n->inputs[k], from, sizeof from);
            if (from[0])
                fprintf(out, "  %s -> n%d;\n", from, i);
        }
    }
    for (int i = 0; i < g->n_outputs; i++) {
        writer_id(g, &writers, g->outputs[i], from, sizeof from);
        if (from[0])
            fprintf(out, "  %s -> out%d;\n", from, i);
    }
    fputs("}\n", out);
    name_map_free(&writers);
    if (have_at)
        attribution_free(&at);
    free(ops);
    return fused;
}
