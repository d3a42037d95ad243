/* An execution plan: the model specialised to one set of input shapes.
 * Building it runs every kernel's prepare() in order (shape and type
 * inference), folds nodes whose inputs are all known constants, picks a
 * kernel per node by dtype, and lays every intermediate tensor and kernel
 * scratch buffer into one arena by lifetime. Running it touches only
 * precomputed pointers: no allocation, no shape work. */
#ifndef KN_PLAN_H
#define KN_PLAN_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/engine/model.h"
#include "core/kernel/backend.h"
#include "core/base/bump_alloc.h"

/* Where a value's bytes live in a plan. */
enum {
    KN_VAL_UNUSED = 0, /* not needed by any executed node or output */
    KN_VAL_CONST,      /* initializer or folded constant: fixed pointer */
    KN_VAL_INPUT,      /* bound by the caller each run */
    KN_VAL_ARENA,      /* at `offset` in the arena */
    KN_VAL_DEVICE,     /* only on the plan's device (plan_device.c), never on the host */
};

/* The device a plan offers nodes to (a session's device option): a
 * device-memory backend, its context and the session's stream on it. */
typedef struct kn_plan_device {
    const struct kn_backend *backend;
    void *device, *stream;
} kn_plan_device;

struct kn_plan;

/* An observer of computed values: called after each node runs (a planned
 * step, or an eagerly run node) with the node's kernel context, whose out[]
 * hold its outputs; they are valid only during the call (a later step may
 * reuse their bytes). Calibration taps activations this way
 * (core/calib/calibrator.c) instead of adding graph outputs. A nonzero
 * return stops the run with that status (the tap sets err). Constants
 * folded while a plan is built are not shown. */
typedef struct kn_tap {
    int (*fn)(void *ctx, const struct kn_plan *plan, const kn_kctx *k, kn_err *err);
    void *ctx;
    /* Optional: a session calls these at the start and end of each run,
     * inside its run lock (ok: the run succeeded). Whatever the tap keeps
     * is then only touched while the session is, never after a concurrent
     * destroy has been let through. */
    void (*run_begin)(void *ctx);
    void (*run_end)(void *ctx, int ok);
} kn_tap;

typedef struct kn_plan_options {
    int64_t max_arena;   /* 0 = no limit */
    /* Eager mode: input_shapes[i].data holds the bound input values; every
     * node then runs while the plan is built (each is "folded"), so kernels
     * whose output shapes depend on values work. Allocates per run. */
    int eager;
    const atomic_uint_fast64_t *cancel_target; /* eager mode checks cancel too */
    uint64_t run_id;
    /* For a subgraph: the plan of the enclosing graph, where values the
     * subgraph reads from outer scopes are looked up by name. */
    const struct kn_plan *parent;
    /* Session settings (see kn_session_config). */
    int tune;
    const char *tuning_cache;
    int profile;
    int precision;        /* KN_PRECISION_* for the kernels' float arithmetic */
    /* The caller gives the plan its arena (kn_plan_attach_arena) instead of
     * the plan allocating one: a session's cached plans share one arena
     * sized to the largest of them, since only one runs at a time. */
    int shared_arena;
    /* Per graph input, or NULL: 1 = input_shapes[i].data holds the value,
     * which prepare may read like a constant's (a TopK K, a Reshape shape, a
     * Resize size fed by the caller). The plan serves only runs with these
     * very values; the session keys its cache on them. */
    const uint8_t *value_inputs;
    /* Eager mode: the previous eager plan's memory (kn_plan_destroy_keep),
     * which the plan takes over (freed with it, also when the build fails)
     * instead of allocating afresh; NULL: none. */
    struct kn_bump *recycle;
    /* Called after every node that runs (see kn_tap); NULL: none. */
    const kn_tap *tap;
    /* Nodes the device's kernels accept run there, the rest on the host
     * (plan_device.c); NULL: host only. Root graphs and planned (not
     * eager) runs only. The device arena is the caller's, like a shared
     * host arena (kn_plan_attach_device_arena). */
    const kn_plan_device *device;
    /* Per graph input, or NULL: 1 = the caller binds it to memory already
     * on the device (kn_plan_bind_device_input). Device steps read that
     * memory directly: no copy host→device, no room in the device arena; a
     * host step reading the input gets a copy device→host into the host
     * arena. The plan keeps its own copy of the flags (plans are cached per
     * signature, and where each input lives is part of it). */
    const uint8_t *device_inputs;
    /* Per graph output, or NULL: 1 = the caller has a buffer for it on the
     * device (the session copies it there after the run), so the run makes
     * no copy device→host of it; its host bytes are fetched only when read
     * (kn_plan_fetch_output). Part of the signature like device_inputs. */
    const uint8_t *device_outputs;
    /* 1 = capture the device work of a run as one graph and replay it on
     * later runs (plan_graph.c), where the plan allows it. */
    int device_graph;
} kn_plan_options;

typedef struct kn_step {
    const kn_op_def *def;
    const kn_backend *backend; /* whose table def is in */
    kn_kctx k;            /* in/out point at the plan's value tensors */
    int32_t node;         /* index in the graph */
    int64_t scratch_offset;
} kn_step;

typedef struct kn_plan {
    const kn_model *model;
    kn_plan_options options; /* as built (subgraph runs inherit them) */
    kn_threadpool *threads;
    int32_t n_values;
    kn_tensor *vals;        /* concrete dtype/shape/data of every value */
    uint8_t *kind;          /* KN_VAL_* */
    int32_t *root;          /* value whose memory this one shares (itself if none) */
    int64_t *offset;        /* arena offset of ARENA values */
    kn_step *steps;         /* nodes left to execute, in order */
    int32_t n_steps;
    /* Values whose bytes alias a caller-bound input: their data pointer is
     * refreshed from the root when inputs are bound. */
    int32_t *input_aliases;
    int32_t n_input_aliases;
    unsigned char *arena;       /* NULL until attached (shared_arena) */
    int64_t arena_bytes;        /* what the layout needs */
    uint8_t owns_arena;         /* arena is the plan's own (freed with it) */
    int64_t intermediate_bytes; /* sum of all planned tensors, without reuse */
    kn_bump *bump;              /* folded constants and per-step arrays */
    /* Profiling (options.profile): time spent per step over profile_runs
     * runs; NULL when off. An eager plan runs its nodes while it is built
     * and keeps no steps: it records each node it ran in eager_steps (def,
     * backend and node only; the kernel is gone) with its time, one run.
     * kn_plan_profiled_steps gives whichever the plan has. */
    int64_t *step_ns;
    int64_t profile_runs;
    kn_step *eager_steps;
    int32_t n_eager_steps;
    /* Tuning (options.tune): nodes whose kernels were timed while this plan
     * was built (0 when every choice came from the tuning cache), and the
     * tuner, alive only during kn_plan_build. */
    int32_t tuning_timings;
    struct kn_tuner *tuner;
    /* Per root value: how many of this plan's kernels read the raw bytes of
     * a shared weight (plan_weights.c); NULL until one does. */
    int32_t *raw_holds;
    /* Device execution (plan_device.c); all NULL/0 without device steps.
     * dvals[v] is value v's device tensor (ondev[v] says it has one): a
     * constant's upload, or at doffset[v] in the device arena. */
    kn_tensor *dvals;
    uint8_t *ondev;
    int64_t *doffset;
    int64_t device_arena_bytes;
    void *device_arena;        /* attached (kn_plan_attach_device_arena), not owned */
    void **device_weights;     /* model-shared uploads this plan holds */
    int32_t n_device_weights;
    void *device_consts;       /* this plan's own uploads (folded constants) */
    /* Per value: its device tensor is the caller's memory (a graph input
     * bound on the device); NULL when no input is. */
    uint8_t *caller_device;
    /* Per value: a graph output left on the device (options.device_outputs)
     * whose host bytes kn_plan_fetch_output brings over on request; NULL
     * when none is. */
    uint8_t *fetch_on_read;
    /* The captured device graph (options.device_graph; plan_graph.c);
     * NULL until the first run asks for it. */
    struct kn_plan_graph *graph;
} kn_plan;

/* Whether step s runs on a device backend (its data pointers, scratch
 * included, are device memory). */
static inline int kn_step_on_device(const kn_step *s)
{
    return s->backend && s->backend->memory.kind == KN_MEMORY_DEVICE;
}


/* Builds a plan for the given concrete input shapes (input_shapes[i] holds
 * dtype, rank and dims of graph input i; data is used only in eager mode).
 * Errors name the node; KN_ERR_NEEDS_VALUE means "retry eagerly". */
int kn_plan_build(const kn_model *model, const kn_tensor *input_shapes, kn_threadpool *threads,
                  const kn_plan_options *options, kn_plan **out, kn_err *err);
void kn_plan_destroy(kn_plan *plan); /* NULL-safe; releases kernel state */
/* The same, but the plan's memory (its values, when eager) is rewound and
 * returned for the next eager plan (kn_plan_options.recycle); NULL for a
 * NULL plan. Destroy it with kn_bump_destroy when no plan takes it. */
struct kn_bump *kn_plan_destroy_keep(kn_plan *plan);

/* The steps step_ns times (see kn_plan.step_ns), *n of them. */
static inline const kn_step *kn_plan_profiled_steps(const kn_plan *p, int32_t *n)
{
    *n = p->options.eager ? p->n_eager_steps : p->n_steps;
    return p->options.eager ? p->eager_steps : p->steps;
}

/* The subgraph services kernels reach through kn_kctx (core/engine/subgraph.c). */
extern const kn_engine_api kn_plan_engine_api;
/* Its tuned_choice and keep_tuned_choice (plan_tuning.c): the plan's device
 * kernels' choices, in the plan's tuner while the plan is built. */
int kn_plan_tuned_choice(void *engine, const kn_kctx *k, char *buf, size_t cap);
int kn_plan_keep_tuned_choice(void *engine, const kn_kctx *k, const char *choice, kn_err *err);

/* Part 2 of building (plan_layout.c): aliasing, in-place reuse, lifetimes,
 * arena offsets and data pointers. */
int kn_plan_layout(kn_plan *plan, int64_t max_arena, kn_err *err);

/* The finished plan's memory invariants (plan_check.c): every arena tensor
 * and scratch buffer inside the arena, no two alive at one step sharing a
 * byte. KN_ERR_INTERNAL naming both when broken. Debug builds check every
 * plan they build. */
int kn_plan_check(const kn_plan *plan, kn_err *err);

/* The plan's own arena, allocated and attached (what kn_plan_build does
 * unless options.shared_arena). */
int kn_plan_own_arena(kn_plan *plan, kn_err *err);
/* Points every arena tensor and scratch buffer of a plan built with
 * shared_arena into arena (at least plan->arena_bytes, 64-byte aligned).
 * Call it again whenever that memory moves, and before running a plan that
 * shares its arena with plans run since. */
void kn_plan_attach_arena(kn_plan *plan, unsigned char *arena);

/* Runs the plan's steps in order (executor.c). Between nodes it stops with
 * KN_ERR_CANCELLED once *cancel_target equals run_id. */
int kn_plan_execute(kn_plan *plan, const atomic_uint_fast64_t *cancel_target, uint64_t run_id,
                    kn_err *err);

/* Evictable weights (core/engine/weight_store.h, plan_weights.c): before a kernel
 * without KN_OP_PACKS_WEIGHTS prepares, its shared inputs are made
 * resident and held until the plan is destroyed (release_raw); drop_raw
 * undoes one hold_raw early (a tuning candidate that was not kept);
 * evict_weights gives back the pages of weights no plan reads raw (run when
 * a plan is complete). */
int kn_plan_hold_raw(kn_plan *plan, const kn_op_def *def, const kn_kctx *k, kn_err *err);
void kn_plan_drop_raw(kn_plan *plan, const kn_op_def *def, const kn_kctx *k);
void kn_plan_release_raw(kn_plan *plan);
void kn_plan_evict_weights(const kn_plan *plan);

/* Device execution (plan_device.c). place_device runs between preparing
 * the nodes and the host layout: it marks device-only values, inserts the
 * copies at partition boundaries and the syncs where the host reads, and
 * takes the device's constants (uploaded once per model). layout_device
 * then lays device tensors into one arena (KN_ERR_LIMIT above max_arena).
 * Both do nothing for a plan without device steps. */
int kn_plan_place_device(kn_plan *plan, kn_err *err);
int kn_plan_layout_device(kn_plan *plan, int64_t max_arena, kn_err *err);
/* Points device tensors and device scratch into arena (device memory of at
 * least device_arena_bytes); again whenever another plan used it. */
void kn_plan_attach_device_arena(kn_plan *plan, void *arena);
/* Gives back the plan's device constants (in kn_plan_destroy). */
void kn_plan_release_device(kn_plan *plan);

/* Captured device graphs (plan_graph.c). Runs the plan like
 * kn_plan_execute (inputs bound first), but when options.device_graph is
 * set and every step is device work (copies, device kernels, one sync at
 * the end), the first run records the device work as one graph and later
 * runs replay it: the host inputs are first copied into the plan's fixed
 * staging buffers, which the recorded copies read. A plan that cannot be
 * captured runs its steps plainly; kn_plan_graph_status says why. */
int kn_plan_execute_graph(kn_plan *plan, const atomic_uint_fast64_t *cancel_target,
                          uint64_t run_id, kn_err *err);
/* Captures and replays so far, and why the plan runs plainly (NULL when it
 * is captured, or has not run with the option). */
typedef struct kn_plan_graph_info {
    int64_t captures, replays;
    int32_t steps; /* steps a replay stands for */
    const char *plain_reason;
} kn_plan_graph_info;
kn_plan_graph_info kn_plan_graph_status(const kn_plan *plan);
void kn_plan_release_graph(kn_plan *plan); /* in kn_plan_destroy */

/* Points graph input i at data (the plan's shape for it is unchanged). */
void kn_plan_bind_input(kn_plan *plan, int32_t input_index, const void *data);
/* The same for an input the plan was built to take on the device
 * (options.device_inputs): data is device memory. */
void kn_plan_bind_device_input(kn_plan *plan, int32_t input_index, const void *data);
/* Whether the plan takes graph input i on the device. */
int kn_plan_input_on_device(const kn_plan *plan, int32_t input_index);
/* Whether the plan was built for graph output i bound on the device. */
int kn_plan_output_on_device(const kn_plan *plan, int32_t output_index);
/* After a run: brings graph output i's bytes to its host tensor when the
 * run left them only on the device (fetch_on_read), and waits for them;
 * nothing otherwise. The caller fetches once per run. */
int kn_plan_fetch_output(kn_plan *plan, int32_t output_index, kn_err *err);

#endif
