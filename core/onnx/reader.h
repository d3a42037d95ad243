/* Internal interface between the ONNX reader's files. Each parse function
 * takes the enclosing message's reader and the LEN field that holds its
 * message, so every file owns the descriptor (field names) of the messages
 * it decodes. */
#ifndef KN_ONNX_READER_H
#define KN_ONNX_READER_H

#include "core/onnx/onnx.h"
#include "core/onnx/pb.h"

typedef struct kn_onnx_ctx {
    kn_bump *bump;        /* the result: IR, names, tensor data */
    kn_bump *tmp;         /* scratch for one read, dropped at its end */
    kn_err *err;
    const char *base_dir; /* folder of external data; NULL = unsupported */
    size_t max_bytes;     /* limit set on bump (0 = none): failures are LIMIT */
    int source_mapped;    /* input bytes are a file mapping (kn_onnx_read_mapped_model) */
    /* With source_mapped: the mapping's start, and where big raw tensors'
     * file offsets are recorded (the IR's file_spans). */
    const unsigned char *source_base;
    kn_file_span **spans;
} kn_onnx_ctx;

/* A string as it sits in the input: not NUL-terminated. */
typedef struct kn_onnx_str {
    const char *p;
    size_t n;
} kn_onnx_str;

/* ---- reader_util.c ---- */

/* count * size zeroed bytes from bump (c->bump or c->tmp); on failure sets
 * KN_ERR_LIMIT (model size limit hit) or KN_ERR_OUT_OF_MEMORY naming `what`. */
void *kn_onnx_alloc(kn_onnx_ctx *c, kn_bump *bump, size_t count, size_t size, const char *what);
/* kn_err_prefix, unless the message would overflow: then the outer
 * context is dropped and the cause kept. */
void kn_onnx_prefix(kn_err *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Names become C strings in the IR, so one holding a NUL byte would name
 * something else there than in the file: KN_ERR_INVALID_MODEL. */
int kn_onnx_check_name(kn_onnx_ctx *c, kn_onnx_str s, const char *what);
/* NUL-terminated copy in c->bump. */
char *kn_onnx_strdup(kn_onnx_ctx *c, kn_onnx_str s);
static inline kn_onnx_str kn_onnx_field_str(const pb_reader *r, const pb_field *f)
{
    kn_onnx_str s = {pb_data(r, f), f->len};
    return s;
}

/* ---- tensor_reader.c: TensorProto ---- */

/* Decodes the TensorProto in field f of r; *name (may be NULL) is set to the
 * name in c->bump. */
int kn_onnx_parse_tensor(kn_onnx_ctx *c, const pb_reader *r, const pb_field *f, kn_tensor *out,
                         const char **name);
/* Same over a whole buffer (the TensorProto is the top-level message). */
int kn_onnx_parse_tensor_bytes(kn_onnx_ctx *c, const void *bytes, size_t size, kn_tensor *out,
                               const char **name);

/* ---- external_data.c ---- */

typedef struct kn_onnx_external {
    kn_onnx_str location, offset, length; /* p == NULL: key absent */
} kn_onnx_external;

/* Reads nbytes of external data for tensor `tensor` into c->bump, checking
 * the path stays inside c->base_dir and offset/length stay inside the file. */
int kn_onnx_load_external(kn_onnx_ctx *c, const char *tensor, const kn_onnx_external *ext,
                          size_t nbytes, void **data);

/* ---- type_reader.c: ValueInfoProto / TypeProto ---- */

typedef struct kn_onnx_vinfo {
    kn_onnx_str name;
    int is_tensor;        /* declares a tensor type; else dtype/rank stay unknown */
    int32_t dtype, rank;  /* KN_UNDEFINED / -1 when not declared */
    /* A sequence or optional type: kind KN_KIND_SEQUENCE / KN_KIND_OPTIONAL,
     * dtype KN_SEQUENCE / KN_OPTIONAL, rank -1, elem_dtype the innermost
     * tensor element type (KN_UNDEFINED if open). */
    int32_t kind, elem_dtype;
    int optional_of_sequence;
    int64_t dims[KN_MAX_RANK];               /* -1 = dynamic */
    const char *dim_params[KN_MAX_RANK];     /* in c->bump, or NULL */
} kn_onnx_vinfo;

int kn_onnx_parse_value_info(kn_onnx_ctx *c, const pb_reader *r, const pb_field *f,
                             kn_onnx_vinfo *out);

/* ---- attr_reader.c: AttributeProto ---- */

int kn_onnx_parse_attr(kn_onnx_ctx *c, const pb_reader *r, const pb_field *f,
                       const kn_graph *owner, int depth, kn_attr *out);

/* ---- node_reader.c: NodeProto ---- */

/* What the graph reader needs to resolve a node's names to values. */
typedef struct kn_onnx_node_names {
    kn_onnx_str *in, *out;   /* node->n_inputs / n_outputs entries */
    kn_onnx_str *implicit;   /* outer-scope names its subgraphs use */
    int32_t n_implicit;
} kn_onnx_node_names;

/* index: the node's position in the file (names unnamed nodes "node<N>"). */
int kn_onnx_parse_node(kn_onnx_ctx *c, const pb_reader *r, const pb_field *f,
                       const kn_graph *owner, int depth, int32_t index, kn_node *node,
                       kn_onnx_node_names *names);

/* ---- graph_reader.c: GraphProto ---- */

/* parent: the enclosing graph (NULL at top level); depth: 0 at top level. */
int kn_onnx_parse_graph(kn_onnx_ctx *c, const pb_reader *r, const pb_field *f,
                        const kn_graph *parent, int depth, kn_graph **out);

/* ---- name_table.c: name → value index ---- */

typedef struct kn_onnx_names {
    struct kn_onnx_name_slot {
        const char *p;
        size_t n;
        int32_t id;
    } *slots;
    size_t mask;
    int32_t count;
} kn_onnx_names;

/* A table for at most max_names names (in c->tmp). */
int kn_onnx_names_init(kn_onnx_ctx *c, kn_onnx_names *t, size_t max_names);
/* Value index of the name, or -1. */
int32_t kn_onnx_names_find(const kn_onnx_names *t, kn_onnx_str s);
/* Adds a name not yet present; returns its index (= count before). */
int32_t kn_onnx_names_add(kn_onnx_names *t, kn_onnx_str s);

/* ---- topo_sort.c ---- */

/* Stable topological order of n nodes: node i depends on the nodes
 * deps[dep_start[i] .. dep_start[i+1]). order[k] = file index of the k-th
 * node to run; among ready nodes the earliest in the file goes first, so a
 * sorted file keeps its order. A cycle fails naming a node on it. */
int kn_onnx_topo_sort(kn_onnx_ctx *c, const kn_node *nodes, int32_t n, const int32_t *dep_start,
                      const int32_t *deps, int32_t *order);

#endif
