/* Graph rewriting for the optimizer passes. A pass works on one kn_opt
 * context: it removes nodes (marked, not moved, so node ids stay valid for
 * the whole pass), adds nodes (appended after an anchor node, in the pool),
 * adds values and initializers, and redirects uses of values. At the end of
 * the pass kn_opt_commit() rebuilds the node array in topological order
 * and refreshes every value's producer.
 *
 * Node ids: 0 .. g->n_nodes-1 are the graph's nodes when the pass began;
 * ids from there on are nodes the pass added. */
#ifndef KN_OPT_REWRITE_H
#define KN_OPT_REWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "core/ir/graph.h"
#include "core/base/status.h"
#include "core/opt/optimize.h"

typedef struct kn_opt {
    kn_model_ir *ir;
    kn_graph *g;
    kn_err *err;
    int32_t cap_values;    /* g->values has room for this many */
    int32_t n_orig;        /* nodes when the pass began */
    kn_node *added;        /* malloc'ed; nodes added by the pass */
    int32_t *anchor;       /* per added node: original node id it follows */
    int32_t n_added, cap_added;
    uint8_t *removed;      /* per node id (original and added) */
    int32_t *producer;     /* per value: live producing node id or -1 */
    uint8_t *observed;     /* per value: read by a subgraph by name */
    /* Readers of each value: a list per value (use_head -> use_next) of
     * node ids that read or once read it; queries skip dead entries. */
    int32_t *use_head;     /* per value */
    int32_t *use_node, *use_next;
    int32_t n_uses, cap_uses;
    uint32_t *seen;        /* per node id: query stamp, to count a node once */
    uint32_t stamp;
    int changed;           /* the pass edited something */
    int32_t cap_ids;       /* size of removed[] / seen[] */
    int32_t cap_prod;      /* size of producer[] / observed[] */
    int32_t name_counter;
} kn_opt;

int kn_opt_begin(kn_opt *o, kn_model_ir *ir, kn_err *err);
/* Applies the pass's edits to the graph (order, producers); ends the pass. */
int kn_opt_commit(kn_opt *o);
/* Frees the context without touching the graph further (after an error). */
void kn_opt_end(kn_opt *o);

/* ---- reading the graph ---- */
int32_t kn_opt_node_count(const kn_opt *o);           /* ids in use (live or not) */
kn_node *kn_opt_node(kn_opt *o, int32_t id);
int kn_opt_live(const kn_opt *o, int32_t id);
kn_value *kn_opt_value(kn_opt *o, int32_t v);
int32_t kn_opt_producer(const kn_opt *o, int32_t v);   /* live node id or -1 */
/* Node id producing v when it is op `op_type` of the default domain; else -1. */
int32_t kn_opt_producer_op(kn_opt *o, int32_t v, const char *op_type);
/* Number of inputs of live nodes reading v. */
int32_t kn_opt_use_count(kn_opt *o, int32_t v);
/* Fills ids (up to cap) with the live nodes reading v; returns how many. */
int32_t kn_opt_consumers(kn_opt *o, int32_t v, int32_t *ids, int32_t cap);
/* v is a graph output or read by a subgraph: it must keep existing. */
int kn_opt_is_observed(const kn_opt *o, int32_t v);
/* v may vanish into a fused op: produced by a node, read by exactly one
 * node input and not observed. */
int kn_opt_is_private(kn_opt *o, int32_t v);
int kn_opt_is_op(const kn_node *n, const char *op_type); /* default domain */
/* The one node reading v when v is private to it (kn_opt_is_private); else -1. */
int32_t kn_opt_sole_reader(kn_opt *o, int32_t v);
/* The operand of two-input node n other than v; -1 when v is neither. */
int32_t kn_opt_other_operand(const kn_node *n, int32_t v);
/* Initializer data of v as float when v is a float initializer, else NULL;
 * *count gets the element count. */
const float *kn_opt_const_floats(kn_opt *o, int32_t v, int64_t *count);
/* v is a float initializer holding one value (any rank): stores it. */
int kn_opt_const_scalar(kn_opt *o, int32_t v, float *out);
int64_t kn_opt_opset(const kn_opt *o);  /* default-domain opset */

/* ---- editing ---- */
void kn_opt_remove(kn_opt *o, int32_t id);
/* Every input of a live node reading `from` reads `to` instead. */
void kn_opt_replace_uses(kn_opt *o, int32_t from, int32_t to);
/* Node `id`, about to be removed, passes value `in` through unchanged as
 * `out`: make readers of out read in. When out must keep its name (graph
 * output), in's producer is made to produce out instead. Returns 0 (and
 * changes nothing) when neither is possible. */
int kn_opt_bypass(kn_opt *o, int32_t in, int32_t out);
/* New value (tensor kind, unknown shape) named after hint; -1 when out of memory. */
int32_t kn_opt_add_value(kn_opt *o, const char *hint, int32_t dtype);
/* New initializer holding a copy of `data`. */
int32_t kn_opt_add_initializer(kn_opt *o, const char *hint, int32_t dtype, int32_t rank,
                               const int64_t *dims, const void *data, size_t nbytes);
void *kn_opt_alloc(kn_opt *o, size_t bytes); /* pool memory, zeroed */
/* Adds a node placed right after node `anchor` (an original id; an added id
 * resolves to its own anchor). Inputs/outputs are copied; attrs must be pool
 * memory (see kn_opt_attrs_*). Returns its id or -1 (error set). */
int32_t kn_opt_add_node(kn_opt *o, int32_t anchor, const char *op_type, const char *domain,
                        const int32_t *inputs, int32_t n_inputs, const int32_t *outputs,
                        int32_t n_outputs, kn_attr *attrs, int32_t n_attrs);
/* Makes the model import the kiln domain (needed by any kiln op). */
int kn_opt_import_kiln(kn_opt *o);
/* The same for any domain (`domain` must outlive the model: a literal). */
int kn_opt_import_domain(kn_opt *o, const char *domain, int64_t version);

/* Attribute building in the pool. */
kn_attr *kn_opt_attrs(kn_opt *o, int32_t n);
void kn_opt_attr_int(kn_attr *a, const char *name, int64_t v);
void kn_opt_attr_float(kn_attr *a, const char *name, float v);
int kn_opt_attr_string(kn_opt *o, kn_attr *a, const char *name, const char *s);
int kn_opt_attr_floats(kn_opt *o, kn_attr *a, const char *name, const float *v, int32_t n);

/* Bookkeeping shared by rewrite*.c: node id reads v (KN_OK, or out of
 * memory). Passes never call it. */
int kn_opt_note_use(kn_opt *o, int32_t v, int32_t id);

/* Fails with out of memory on the context's error. */
int kn_opt_oom(kn_opt *o);

#endif
