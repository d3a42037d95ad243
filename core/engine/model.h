/* A loaded, validated model: the graph IR plus, per node, the operator
 * definition that will serve it. Subgraphs (If/Loop/Scan bodies) get a
 * kn_model of their own, validated at load too and owned by the root.
 * Immutable after creation; shared by all sessions (and threads), except
 * for the packed-weight store, which guards itself. */
#ifndef KN_MODEL_H
#define KN_MODEL_H

#include "core/ir/graph.h"
#include "core/kernel/op.h"
#include "core/base/status.h"

typedef struct kn_model kn_model;

struct kn_model {
    kn_model_ir *ir;           /* owned by the root model only */
    const kn_graph *graph;     /* ir->graph, or a subgraph */
    const kn_op_def **node_op; /* per node: an entry for its op and opset (any dtype), or NULL */
    int64_t *node_opset;       /* per node: the opset version its domain imports */
    int32_t n_unsupported;     /* this graph and its subgraphs */
    const kn_model *root;
    kn_model **subs;           /* root only: every subgraph's model, at any depth */
    int32_t n_subs, cap_subs;
    /* Root only: the backends that may serve its nodes, a bit mask over
     * kn_backends() (core/engine/registry.h), kn_model_create sets
     * every usable one, the load pipeline then the caller's choice. */
    uint32_t backends;
    /* Root only: packed constant weights shared by its sessions, and the
     * initializers they let the model evict (core/engine/weight_store.h); NULL
     * when the model has no such initializer. */
    struct kn_weight_store *weights;
    /* Root only: the device contexts its sessions run on, opened on first
     * use (core/engine/devices.h). */
    struct kn_model_devices *devices;
};

/* Takes ownership of ir (freed on failure too). Every node's op must be
 * registered for its opset unless allow_unsupported is set; the error names
 * op, domain, opset and node (and the enclosing node for subgraphs). */
int kn_model_create(kn_model_ir *ir, int allow_unsupported, kn_model **out, kn_err *err);
void kn_model_destroy(kn_model *model); /* NULL-safe */

/* The model of subgraph g (an attribute graph anywhere in the root's
 * graph), or NULL. */
const kn_model *kn_model_subgraph(const kn_model *root, const kn_graph *g);

#endif
