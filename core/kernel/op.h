/* The kernel interface. An operator implementation is a kn_op_def: a
 * prepare step that runs once per set of input shapes (validates attributes,
 * computes output dtypes and shapes, sizes its scratch memory, builds any
 * private state) and a run step that only computes. Kernels see tensors,
 * attributes and the thread pool; they never see the executor, the planner
 * or another backend. */
#ifndef KN_OP_H
#define KN_OP_H

#include <stddef.h>
#include <stdint.h>

#include "core/ir/graph.h"
#include "core/base/status.h"
#include "core/ir/tensor.h"
#include "core/base/thread_pool.h"

/* kn_op_def.flags */
enum {
    /* Output 0 may share input 0's memory (same byte size, elementwise). */
    KN_OP_INPLACE = 1u << 0,
    /* run() reads only input shapes, never input data (Shape, Size): such a
     * node is folded to a constant whenever its input shapes are known. */
    KN_OP_SHAPE_ONLY = 1u << 1,
    /* Output 0 is input 0's bytes unchanged (Reshape, Flatten, Squeeze,
     * Unsqueeze, Identity, Dropout): the planner lets it alias input 0 and
     * run() may be skipped when the data pointers are equal. */
    KN_OP_ALIAS = 1u << 2,
    /* Results differ between runs (random ops): never folded at load. */
    KN_OP_NONDETERMINISTIC = 1u << 3,
    /* Inputs and outputs may have the packed sub-byte dtypes (KN_MASK_PACKED,
     * whose kn_dtype_size is 0). The planner refuses a node with such a
     * value unless its kernel says so, whatever the dtype mask: a kernel
     * that does byte arithmetic per element would go wrong on them. */
    KN_OP_PACKED = 1u << 4,
    /* prepare() gets what it needs of the model's shared constant weights
     * itself, through kn_kctx.weights (a shared packed copy, or a reference
     * to the raw bytes it reads in place). For any other kernel the planner
     * makes those raw bytes resident and holds them while the plan lives
     * (core/engine/weight_store.h). */
    KN_OP_PACKS_WEIGHTS = 1u << 5,
    /* Output 0 may share input Z's memory instead of input 0's (input 3,
     * or kn_op_def.z_input): fused convolutions whose residual Z the
     * primitive accumulates onto (a sum post-op), so a Z read for the last
     * time needs no copy into Y. */
    KN_OP_INPLACE_Z = 1u << 6,
};

/* What a kernel may ask of the engine: running a subgraph (If, Loop, Scan
 * bodies). Kernels never see plans or executors, only this table. */
typedef struct kn_subgraph_result kn_subgraph_result;
struct kn_kctx;
typedef struct kn_engine_api {
    /* Runs subgraph g with its formal inputs bound to inputs[0..n_inputs)
     * (data must be set). Values g reads from enclosing scopes resolve by
     * name. On success *result holds g's outputs until freed. Returns
     * KN_ERR_NEEDS_VALUE when an outer value is not known yet. */
    int (*run_subgraph)(void *engine, const kn_graph *g, const kn_tensor *const *inputs,
                        int32_t n_inputs, kn_subgraph_result **result, kn_err *err);
    const kn_tensor *(*result_output)(const kn_subgraph_result *result, int32_t index);
    void (*free_result)(kn_subgraph_result *result);
    /* bytes (16-byte aligned) that live as long as the plan: the characters
     * of strings a kernel creates. Only call it from a kernel that runs
     * eagerly or is folded (return KN_ERR_NEEDS_VALUE from prepare when an
     * input value is not visible), never per run of a long-lived plan.
     * NULL when out of memory. */
    void *(*alloc)(void *engine, size_t bytes);
    /* Tuning a device kernel does itself: it times its library's
     * algorithms on its own stream, which the engine's timing of host
     * kernels (core/engine/tuning.h) cannot reach, and keeps its choice in
     * the session's tuning cache through these. tuned_choice copies the
     * choice cached for this node, its input shapes and the device
     * (kn_backend_memory.describe: its name and driver and library
     * versions) into buf and returns 1; returns 0 when none is cached (the
     * kernel then times its candidates and stores the winner with
     * keep_tuned_choice: a word of letters, digits and ":=,.-"), and -1
     * when the session does not tune: then the kernel takes its library's
     * heuristic and times nothing. May be NULL (a kernel test's engine):
     * as -1. */
    int (*tuned_choice)(void *engine, const struct kn_kctx *k, char *buf, size_t cap);
    int (*keep_tuned_choice)(void *engine, const struct kn_kctx *k, const char *choice,
                             kn_err *err);
} kn_engine_api;

typedef struct kn_kctx {
    const kn_node *node;     /* attributes via kn_attr_* (core/ir/graph.h) */
    int64_t opset;           /* opset version of the node's domain in this model */
    int32_t n_in, n_out;     /* = node->n_inputs / n_outputs */
    /* in[i] is NULL for an omitted optional input. In prepare(), in[i]->data
     * is non-NULL only when the value is a constant (initializer or folded);
     * a kernel that needs a value to know output shapes (Reshape's shape)
     * fails with KN_ERR_UNSUPPORTED naming that input when it is NULL. */
    kn_tensor **in;
    /* out[i] is NULL for an omitted optional output. prepare() sets dtype,
     * rank and dims of each; run() finds data pointing at planned memory. */
    kn_tensor **out;
    void *state;             /* kernel-private; set by prepare, freed by release */
    size_t scratch_bytes;    /* prepare() may request temporary memory ... */
    void *scratch;           /* ... which run() finds here (16-byte aligned) */
    kn_threadpool *threads;  /* for kn_parallel_for; may be NULL */
    kn_err *err;             /* kn_fail(k->err, ...) to report a problem */
    const kn_engine_api *engine_api; /* subgraph services (see above) */
    void *engine;            /* first argument to engine_api calls */
    /* The model's shared weight store when the node is in the root graph,
     * else NULL; in[j] of value node->inputs[j] is shared there when
     * kn_weight_store_shares says so. Only KN_OP_PACKS_WEIGHTS kernels
     * use it. */
    struct kn_weight_store *weights;
    /* Tuning (core/engine/tuning.c): prepare builds variant `variant` of its
     * kernel (0: the kernel's own choice) and may set n_variants to how
     * many it has for this node, to be timed against each other; 0 or 1:
     * just the one. */
    int32_t variant, n_variants;
    /* The float arithmetic the session allows (KN_PRECISION_*): a kernel
     * may compute float32 products in bfloat16 when told BF16 (oneDNN's
     * fpmath mode), a device kernel in float16 (FP16) or TF32 (TF32) on
     * Tensor Cores; inputs and outputs stay float32 either way. */
    int32_t precision;
    /* A device backend's kernel (KN_MEMORY_DEVICE, core/kernel/backend.h):
     * its device context (memory.open) and the session's stream on it.
     * run() queues its work on stream and returns without waiting; the
     * engine syncs where the host needs the results. In run() every
     * in[i]->data and out[i]->data, and scratch, is device memory. In
     * prepare() a constant input's data is its host bytes (to read shapes
     * and attributes from); the engine uploads constant inputs once per
     * model and run() finds the device copy. A kernel that wants its own
     * layout or precision of a weight (fp16, NHWC) packs it through
     * kn_kctx.weights (core/kernel/weights.h) instead; it then sets that
     * in[i] to NULL at the end of a successful prepare, so the engine
     * treats the input as omitted (uploads and copies nothing for it) and
     * run() finds it NULL. NULL, NULL for host backends. */
    void *device, *stream;
    /* The session's memory limit in bytes (KILN_OPT_MAX_ARENA_MB), 0: none.
     * The engine refuses a tensor above it once prepare has set its shape;
     * a kernel whose prepare builds state that grows with its output's
     * extents (a pooling window table) checks first, with
     * kn_output_within_limit, so a hostile shape costs no large table. */
    int64_t max_bytes;
} kn_kctx;

/* FP16 and TF32 concern device backends (Tensor Core products); host
 * kernels test for BF16 alone, so they compute both as float32. */
enum { KN_PRECISION_FP32 = 0, KN_PRECISION_BF16 = 1, KN_PRECISION_FP16 = 2, KN_PRECISION_TF32 = 3 };

/* One kernel. Rows are written with designated initializers; a field left
 * out is 0: domain NULL is the default ai.onnx domain, until_version 0 means
 * "every later opset too", dtypes 0 accepts any input dtype (or an op
 * without inputs, like Constant), release NULL means prepare keeps no
 * state. The backend a kernel belongs to is the one whose table lists it
 * (core/kernel/backend.h). */
typedef struct kn_op_def {
    const char *domain;      /* NULL or "" = ai.onnx */
    const char *op_type;
    int32_t since_version;   /* opset range served, inclusive ... */
    int32_t until_version;   /* ... 0: no upper bound */
    uint32_t dtypes;         /* KN_BIT mask over input 0's dtype; 0 = any */
    uint32_t flags;          /* KN_OP_* */
    int32_t z_input;         /* KN_OP_INPLACE_Z: Z's input index; 0: 3 (kiln.FusedConv's) */
    int (*prepare)(kn_kctx *k);
    int (*run)(kn_kctx *k);
    void (*release)(kn_kctx *k); /* may be NULL */
} kn_op_def;

/* The highest opset version any kernel serves: an open range ends here, so
 * a model importing a domain at an absurd version (2^40) is refused rather
 * than served. ai.onnx is at 26; no domain is anywhere near this. */
#define KN_MAX_OPSET 1000

/* Whether def serves this opset (its range; until_version 0: up to
 * KN_MAX_OPSET). */
static inline int kn_op_serves_opset(const kn_op_def *def, int64_t opset)
{
    int64_t until = def->until_version ? def->until_version : KN_MAX_OPSET;
    return opset >= def->since_version && opset <= until;
}

struct kn_backend;
/* The kernel of one backend (core/kernel/backend.h) for this op, opset and
 * input-0 dtype, or NULL: kernels that run another op's kernel inside
 * theirs find it here (core/kernel/op_util.c). */
const kn_op_def *kn_backend_kernel(const struct kn_backend *backend, const char *domain,
                                   const char *op_type, int64_t opset, int32_t dtype);
/* The same, ignoring dtype. */
const kn_op_def *kn_backend_kernel_any(const struct kn_backend *backend, const char *domain,
                                       const char *op_type, int64_t opset);
/* Whether two domain names mean the same domain ("" and "ai.onnx" do). */
int kn_same_domain(const char *a, const char *b);

/* Helpers kernels share (core/kernel/op_util.c). */
/* Multidirectional (numpy) broadcast of two shapes into out; KN_ERR_SHAPE
 * with a message naming both shapes when they do not broadcast. */
int kn_broadcast_shape(const kn_tensor *a, const kn_tensor *b, kn_tensor *out, kn_err *err);
/* Normalises a possibly negative axis against rank; -1 (and an error) if
 * out of range. */
int32_t kn_norm_axis(int64_t axis, int32_t rank, kn_err *err);
/* Reads element i of an integer tensor (int32/int64/...) as int64. */
int64_t kn_read_int(const kn_tensor *t, int64_t i);
/* Reads element i of any numeric tensor as double. */
double kn_read_double(const kn_tensor *t, int64_t i);
/* KN_OK, or KN_ERR_LIMIT naming output `index` when its shape (set by
 * prepare) needs more than k->max_bytes. */
int kn_output_within_limit(const kn_kctx *k, int32_t index);

#endif
