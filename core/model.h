/* A loaded, validated model: the graph IR plus, per node, the operator
 * definition that will serve it. Immutable after creation; shared by all
 * sessions (and threads) that use it. */
#ifndef KN_MODEL_H
#define KN_MODEL_H

#include "graph.h"
#include "op.h"
#include "status.h"

typedef struct kn_model {
    kn_model_ir *ir;
    const kn_graph *graph;     /* ir->graph */
    const kn_op_def **node_op; /* per node: an entry for its op and opset (any dtype), or NULL */
    int64_t *node_opset;       /* per node: the opset version its domain imports */
    int32_t n_unsupported;
} kn_model;

/* Takes ownership of ir (freed on failure too). Every node's op must be
 * registered for its opset unless allow_unsupported is set; the error names
 * op, domain, opset and node. */
int kn_model_create(kn_model_ir *ir, int allow_unsupported, kn_model **out, kn_err *err);
void kn_model_destroy(kn_model *model); /* NULL-safe */

#endif
