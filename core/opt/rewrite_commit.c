/* Ending a pass (rewrite.h): the live nodes, original and added, are put
 * back into the graph in a topological order close to their old one. */
#include <stdlib.h>
#include <string.h>

#include "core/opt/rewrite.h"

/* ---- commit: order the live nodes topologically, close to their old order ---- */

typedef struct topo {
    kn_opt *o;
    int32_t *seq, n_seq;    /* live ids in preferred order */
    int32_t *out, n_out;    /* result */
    uint8_t *state;         /* per id: 0 new, 1 on stack, 2 placed */
    int32_t *stack, *cursor;
} topo;

/* Places id after everything it reads (depth first, no recursion). */
static int place(topo *t, int32_t root)
{
    kn_opt *o = t->o;
    int32_t depth = 0;
    t->stack[depth] = root;
    t->cursor[depth] = 0;
    t->state[root] = 1;
    while (depth >= 0) {
        int32_t id = t->stack[depth];
        const kn_node *n = kn_opt_node(o, id);
        int pushed = 0;
        while (t->cursor[depth] < n->n_inputs && !pushed) {
            int32_t v = n->inputs[t->cursor[depth]++];
            int32_t p = v >= 0 ? o->producer[v] : -1;
            if (p < 0 || t->state[p] == 2)
                continue;
            if (t->state[p] == 1)
                return kn_fail(o->err, KN_ERR_INTERNAL, "optimizer made a cycle at node '%s'",
                               n->name);
            t->state[p] = 1;
            depth++;
            t->stack[depth] = p;
            t->cursor[depth] = 0;
            pushed = 1;
        }
        if (!pushed) {
            t->state[id] = 2;
            t->out[t->n_out++] = id;
            depth--;
        }
    }
    return KN_OK;
}

int kn_opt_commit(kn_opt *o)
{
    if (!o->changed || (o->err && o->err->code != KN_OK)) {
        int rc = o->err && o->err->code != KN_OK ? o->err->code : KN_OK;
        kn_opt_end(o);
        return rc;
    }
    int32_t total = kn_opt_node_count(o);
    size_t n = (size_t)(total ? total : 1);
    topo t = {.o = o};
    t.seq = malloc(sizeof *t.seq * n);
    t.out = malloc(sizeof *t.out * n);
    t.state = calloc(n, 1);
    t.stack = malloc(sizeof *t.stack * n);
    t.cursor = malloc(sizeof *t.cursor * n);
    /* Added nodes listed per anchor (first_added -> next_added), in order. */
    int32_t *first_added = malloc(sizeof *first_added * (size_t)(o->n_orig + 1));
    int32_t *next_added = malloc(sizeof *next_added * (size_t)(o->n_added + 1));
    kn_node *nodes = malloc(sizeof *nodes * n);
    int rc = t.seq && t.out && t.state && t.stack && t.cursor && first_added && next_added && nodes
                 ? KN_OK
                 : kn_opt_oom(o);
    if (rc == KN_OK) {
        for (int32_t i = 0; i < o->n_orig; i++)
            first_added[i] = -1;
        for (int32_t a = o->n_added - 1; a >= 0; a--) {
            next_added[a] = first_added[o->anchor[a]];
            first_added[o->anchor[a]] = a;
        }
    }
    for (int32_t i = 0; rc == KN_OK && i < o->n_orig; i++) {
        if (!o->removed[i])
            t.seq[t.n_seq++] = i;
        for (int32_t a = first_added[i]; a >= 0; a = next_added[a])
            if (!o->removed[o->n_orig + a])
                t.seq[t.n_seq++] = o->n_orig + a;
    }
    for (int32_t s = 0; rc == KN_OK && s < t.n_seq; s++)
        if (t.state[t.seq[s]] == 0)
            rc = place(&t, t.seq[s]);
    if (rc == KN_OK) {
        kn_graph *g = o->g;
        for (int32_t i = 0; i < t.n_out; i++)
            nodes[i] = *kn_opt_node(o, t.out[i]);
        /* The old array is reused when the graph did not grow, so repeated
         * passes do not pile node arrays up in the model's memory. */
        kn_node *dst = t.n_out <= o->n_orig ? g->nodes
                                            : kn_opt_alloc(o, sizeof *dst * (size_t)t.n_out);
        if (!dst) {
            rc = KN_ERR_LIMIT;
        } else {
            memcpy(dst, nodes, sizeof *dst * (size_t)t.n_out);
            for (int32_t v = 0; v < g->n_values; v++)
                g->values[v].producer = -1;
            for (int32_t i = 0; i < t.n_out; i++)
                for (int32_t j = 0; j < dst[i].n_outputs; j++)
                    if (dst[i].outputs[j] >= 0)
                        g->values[dst[i].outputs[j]].producer = i;
            g->nodes = dst;
            g->n_nodes = t.n_out;
        }
    }
    free(first_added);
    free(next_added);
    free(nodes);
    free(t.seq);
    free(t.out);
    free(t.state);
    free(t.stack);
    free(t.cursor);
    kn_opt_end(o);
    return rc;
}
