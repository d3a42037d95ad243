/* The graph IR: what the ONNX reader produces and every later stage reads.
 * A model's IR is immutable once loaded; all of it lives in one kn_bump. */
#ifndef KN_GRAPH_H
#define KN_GRAPH_H

#include <stdint.h>

#include "core/base/bump_alloc.h"
#include "core/ir/tensor.h"

/* ONNX AttributeProto.AttributeType numbers. */
enum {
    KN_ATTR_UNDEFINED = 0,
    KN_ATTR_FLOAT = 1,
    KN_ATTR_INT = 2,
    KN_ATTR_STRING = 3,
    KN_ATTR_TENSOR = 4,
    KN_ATTR_GRAPH = 5,
    KN_ATTR_FLOATS = 6,
    KN_ATTR_INTS = 7,
    KN_ATTR_STRINGS = 8,
    KN_ATTR_TENSORS = 9,
    KN_ATTR_GRAPHS = 10,
    KN_ATTR_SPARSE_TENSOR = 11,
    KN_ATTR_SPARSE_TENSORS = 12,
    KN_ATTR_TYPE_PROTO = 13,
    KN_ATTR_TYPE_PROTOS = 14
};

typedef struct kn_graph kn_graph;

typedef struct kn_attr {
    const char *name;
    int32_t type;       /* KN_ATTR_* */
    float f;            /* FLOAT */
    int64_t i;          /* INT */
    const char *s;      /* STRING: bytes, NUL-terminated for convenience */
    int64_t s_len;      /* STRING: length without the NUL */
    int32_t count;      /* element count of FLOATS / INTS / STRINGS / TENSORS / GRAPHS */
    const float *floats;
    const int64_t *ints;
    const char **strings;
    const kn_tensor *t;        /* TENSOR (data owned by the model's pool) */
    const kn_tensor *tensors;  /* TENSORS */
    const kn_graph *g;         /* GRAPH */
    const kn_graph *const *graphs; /* GRAPHS */
} kn_attr;

/* A named value: graph input, initializer, node output or graph output.
 * dtype/rank/dims are what the file declares (value_info, inputs, outputs,
 * initializers); unknown parts are KN_UNDEFINED / rank -1 / dim -1.
 * Sequence and optional values carry kind (below). */
typedef struct kn_value {
    const char *name;
    int32_t dtype;
    int32_t rank;                         /* -1 = unknown */
    int64_t dims[KN_MAX_RANK];            /* -1 = dynamic */
    const char *dim_params[KN_MAX_RANK];  /* symbolic dim names or NULL */
    const void *init_data;                /* initializer bytes (little endian) or NULL */
    int64_t init_nbytes;
    int32_t producer;                     /* index of producing node, -1 if none */
    uint8_t is_initializer;
    uint8_t is_graph_input;
    uint8_t is_graph_output;
    uint8_t is_outer;                     /* subgraph: refers to an enclosing graph's value */
    /* KN_KIND_SEQUENCE / KN_KIND_OPTIONAL: dtype is then KN_SEQUENCE /
     * KN_OPTIONAL, rank -1, and elem_dtype the innermost tensor element type
     * (KN_UNDEFINED if not declared); optional_of_sequence marks
     * optional(sequence(tensor)). KN_KIND_TENSOR otherwise. */
    int32_t kind;
    int32_t elem_dtype;
    uint8_t optional_of_sequence;
} kn_value;

typedef struct kn_node {
    const char *name;     /* may be "" in the file; reader fills "node<N>" then */
    const char *op_type;
    const char *domain;   /* "" for the default ai.onnx domain */
    int32_t n_inputs, n_outputs, n_attrs;
    int32_t *inputs;      /* value indices; -1 for an omitted optional input */
    int32_t *outputs;     /* value indices; -1 for an omitted optional output */
    kn_attr *attrs;
} kn_node;

struct kn_graph {
    const char *name;
    kn_value *values;
    int32_t n_values;
    kn_node *nodes;       /* topologically sorted by the reader */
    int32_t n_nodes;
    int32_t *inputs;      /* graph inputs that are not initializers, in file order */
    int32_t n_inputs;
    int32_t *outputs;
    int32_t n_outputs;
    const kn_graph *parent; /* enclosing graph for subgraphs, NULL at top level */
};

typedef struct kn_opset {
    const char *domain;   /* "" (or "ai.onnx") for the default domain */
    int64_t version;
} kn_opset;

/* Where a tensor's bytes sit in the model file, when the reader copied them
 * from a file mapping's raw_data (tensors of 1 MiB or more): the weight
 * store can then give such a weight's pages back even when no packed copy
 * can restore them, and read them from the file again. */
typedef struct kn_file_span {
    struct kn_file_span *next;
    const void *data;     /* the copy in the model's memory */
    int64_t offset;       /* of the raw_data bytes in the file */
    int64_t nbytes;
} kn_file_span;

typedef struct kn_model_ir {
    kn_bump *bump;        /* owns everything below */
    kn_file_span *file_spans; /* newest first; NULL unless read from a file mapping */
    int64_t ir_version;
    const char *producer_name;
    const char *producer_version;
    kn_opset *opsets;
    int32_t n_opsets;
    kn_graph *graph;
} kn_model_ir;

void kn_model_ir_free(kn_model_ir *ir); /* NULL-safe */

/* Opset version the model imports for a node's domain ("" and "ai.onnx"
 * are the same domain); -1 if the model does not import it. */
int64_t kn_model_opset_for(const kn_model_ir *ir, const char *domain);

/* Attribute lookup; NULL if absent. */
const kn_attr *kn_node_attr(const kn_node *node, const char *name);
/* Typed getters with a default used when the attribute is absent. */
int64_t kn_attr_int(const kn_node *node, const char *name, int64_t dflt);
float kn_attr_float(const kn_node *node, const char *name, float dflt);
/* Returns the string or dflt. */
const char *kn_attr_string(const kn_node *node, const char *name, const char *dflt);
/* Returns the element array (count in *count) or NULL with *count = 0. */
const int64_t *kn_attr_ints(const kn_node *node, const char *name, int32_t *count);
const float *kn_attr_floats(const kn_node *node, const char *name, int32_t *count);
/* The attribute a typed getter above last found with the wrong type on this
 * thread (then treated as absent), or NULL; clears it. */
const kn_attr *kn_attr_take_mismatch(void);

#endif
