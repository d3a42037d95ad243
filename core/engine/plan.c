/* Building a plan, part 1: shape/type inference and constant folding, one
 * node at a time in topological order. Part 2 (memory layout) is in
 * plan_layout.c. */
#include "core/engine/plan.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/base/clock.h"
#include "core/engine/registry.h"
#include "core/engine/tuning.h"

static const char *domain_label(const char *d) { return d && d[0] ? d : "ai.onnx"; }

/* A subgraph's reference to an enclosing scope's value: found by name in the
 * nearest enclosing plan that has it. */
static int bind_outer(kn_plan *p, int32_t v, kn_err *err)
{
    const char *name = p->model->graph->values[v].name;
    for (const kn_plan *q = p->options.parent; q; q = q->options.parent) {
        const kn_graph *g = q->model->graph;
        for (int32_t u = 0; u < g->n_values; u++) {
            if (q->kind[u] == KN_VAL_UNUSED || strcmp(g->values[u].name, name) != 0)
                continue;
            if (!q->vals[u].data)
                return kn_fail(err, KN_ERR_NEEDS_VALUE, "outer value '%s' is not known yet", name);
            p->vals[v] = q->vals[u];
            p->kind[v] = KN_VAL_CONST;
            return KN_OK;
        }
    }
    return kn_fail(err, KN_ERR_INVALID_MODEL, "subgraph value '%s' is not defined in any enclosing graph",
                   name);
}

static int init_values(kn_plan *p, const kn_tensor *input_shapes, int eager,
                       const uint8_t *value_inputs, kn_err *err)
{
    const kn_graph *g = p->model->graph;
    for (int32_t v = 0; v < g->n_values; v++) {
        const kn_value *val = &g->values[v];
        p->root[v] = v;
        if (val->is_outer && !val->is_initializer && !val->is_graph_input && val->producer < 0) {
            int rc = bind_outer(p, v, err);
            if (rc != KN_OK)
                return rc;
            continue;
        }
        if (!val->is_initializer)
            continue;
        kn_tensor *t = &p->vals[v];
        t->dtype = val->dtype;
        t->rank = val->rank;
        memcpy(t->dims, val->dims, sizeof t->dims);
        t->data = (void *)val->init_data;
        if (t->rank < 0 || kn_tensor_nbytes(t) != val->init_nbytes)
            return kn_fail(err, KN_ERR_INVALID_MODEL, "initializer '%s' has inconsistent size",
                           val->name);
        if (!t->data) /* empty tensor: give kernels a valid pointer anyway */
            t->data = kn_bump_alloc(p->bump, 16);
        p->kind[v] = KN_VAL_CONST;
    }
    for (int32_t i = 0; i < g->n_inputs; i++) {
        int32_t v = g->inputs[i];
        kn_tensor *t = &p->vals[v];
        *t = input_shapes[i];
        /* Eagerly, and for a value input, the caller's values are constants
         * kernels only read while planning; a value input's pointer is
         * rebound every run (kn_plan_bind_input), its bytes are the same. */
        int known = eager || (value_inputs && value_inputs[i]);
        if (!known)
            t->data = NULL;
        else if (!t->data) /* empty input: still a valid pointer */
            t->data = kn_bump_alloc(p->bump, 16);
        p->kind[v] = known ? KN_VAL_CONST : KN_VAL_INPUT;
    }
    return KN_OK;
}

static int no_kernel_error(const kn_plan *p, int32_t i, int32_t dtype, kn_err *err)
{
    const kn_node *node = &p->model->graph->nodes[i];
    if (!p->model->node_op[i])
        return kn_fail(err, KN_ERR_UNSUPPORTED,
                       "unsupported op %s (domain '%s', opset %lld) at node '%s'", node->op_type,
                       domain_label(node->domain), (long long)p->model->node_opset[i], node->name);
    return kn_fail(err, KN_ERR_UNSUPPORTED,
                   "op %s (opset %lld) has no CPU kernel for input dtype %s, at node '%s'",
                   node->op_type, (long long)p->model->node_opset[i], kn_dtype_name(dtype),
                   node->name);
}

/* A packed sub-byte value (int4, float4e2m1, ...) at input or output j of a
 * kernel that does not take them (KN_OP_PACKED). */
static int refuse_packed(const kn_op_def *def, const kn_kctx *k, int32_t dtype,
                         const char *which, int32_t j, kn_err *err)
{
    if (!kn_dtype_is_packed(dtype) || (def->flags & KN_OP_PACKED))
        return KN_OK;
    return kn_fail(err, KN_ERR_UNSUPPORTED, "%s %d has type %s, which %s (opset %lld) does not "
                   "support", which, (int)j, kn_dtype_name(dtype), k->node->op_type,
                   (long long)k->opset);
}

/* The largest of k's inputs, in bytes: an output no larger may be a view of
 * one of them rather than memory of its own. */
static int64_t largest_input_bytes(const kn_kctx *k)
{
    int64_t most = 0;
    for (int32_t j = 0; j < k->n_in; j++)
        if (k->in[j] && kn_tensor_nbytes(k->in[j]) > most)
            most = kn_tensor_nbytes(k->in[j]);
    return most;
}

static int check_outputs(const kn_op_def *def, const kn_kctx *k, kn_err *err)
{
    for (int32_t j = 0; j < k->n_out; j++) {
        const kn_tensor *t = k->out[j];
        if (!t)
            continue;
        /* Name the cause: a node asking for more outputs than its op has,
         * an element type the op passed through but the runtime cannot hold,
         * or a shape whose byte size does not fit. */
        if (t->dtype == KN_UNDEFINED)
            return kn_fail(err, KN_ERR_INVALID_MODEL, "output %d is not produced by %s (the node "
                           "declares %d outputs)", (int)j, k->node->op_type, (int)k->n_out);
        if (kn_dtype_bits(t->dtype) == 0)
            return kn_fail(err, KN_ERR_UNSUPPORTED, "output %d has element type %s, which is not "
                           "supported here", (int)j, kn_dtype_name(t->dtype));
        if (t->rank < 0 || t->rank > KN_MAX_RANK || kn_tensor_nbytes(t) < 0)
            return kn_fail(err, KN_ERR_SHAPE, "output %d: shape is too large to hold", (int)j);
        /* One tensor above the session's memory limit can never be placed;
         * saying so now, before the nodes after it prepare, keeps a small
         * hostile model (a Pad by 10^8) from making its readers build
         * gigabyte-sized tables only for the memory plan to fail later.
         * Outputs no larger than an input are left to the plan: they may be
         * views of a caller's input, which the arena does not hold. */
        if (k->max_bytes > 0 && kn_tensor_nbytes(t) > largest_input_bytes(k) &&
            kn_output_within_limit(k, j) != KN_OK)
            return err->code;
        if (refuse_packed(def, k, t->dtype, "output", j, err) != KN_OK)
            return err->code;
    }
    return KN_OK;
}

/* Runs a node now, at plan time, into memory owned by the plan; its outputs
 * become constants. */
static int fold(kn_plan *p, const kn_op_def *def, kn_kctx *k, kn_err *err)
{
    for (int32_t j = 0; j < k->n_out; j++) {
        if (!k->out[j])
            continue;
        int64_t nb = kn_tensor_nbytes(k->out[j]);
        k->out[j]->data = kn_bump_alloc_uninit(p->bump, nb > 0 ? (size_t)nb : 1);
        if (!k->out[j]->data && p->options.max_arena > 0)
            return kn_fail(err, KN_ERR_LIMIT, "computed constants need more than the memory "
                           "limit of %lld bytes", (long long)p->options.max_arena);
        if (!k->out[j]->data)
            return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory folding a constant");
        p->kind[k->node->outputs[j]] = KN_VAL_CONST;
    }
    if (k->scratch_bytes) {
        k->scratch = kn_aligned_alloc(k->scratch_bytes);
        if (!k->scratch)
            return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory folding a constant");
    }
    int rc = def->run(k);
    kn_aligned_free(k->scratch);
    k->scratch = NULL;
    return rc;
}

static int is_foldable(const kn_plan *p, const kn_op_def *def, const kn_kctx *k)
{
    if (def->flags & KN_OP_NONDETERMINISTIC)
        return 0;
    if (def->flags & KN_OP_SHAPE_ONLY)
        return 1;
    for (int32_t j = 0; j < k->n_in; j++)
        if (k->in[j] && p->kind[k->node->inputs[j]] != KN_VAL_CONST)
            return 0;
    return 1;
}

/* Checks the packed-type rule, makes the raw bytes of shared weights
 * the kernel reads resident, and runs def's prepare on k; *prepared says
 * whether prepare ran (and release is owed). */
static int prepare_kernel(kn_plan *p, const kn_tune_candidate *c, kn_kctx *k, int *prepared,
                          kn_err *err)
{
    const kn_op_def *def = c->def;
    int rc = KN_OK;
    *prepared = 0;
    /* a device kernel prepares knowing its device and stream; a host kernel
     * taking over a node the device declined must not see them */
    int on_device = c->backend->memory.kind == KN_MEMORY_DEVICE;
    k->device = on_device ? p->options.device->device : NULL;
    k->stream = on_device ? p->options.device->stream : NULL;
    /* A device kernel that does not take packed sub-byte values leaves such
     * a node to the host backends, which may (the rule below is for the
     * last kernel a node has, so a device session runs what a CPU one does). */
    for (int32_t j = 0; on_device && j < k->n_in; j++)
        if (k->in[j] && kn_dtype_is_packed(k->in[j]->dtype) && !(def->flags & KN_OP_PACKED))
            return KN_ERR_DECLINE;
    for (int32_t j = 0; rc == KN_OK && j < k->n_in; j++)
        if (k->in[j])
            rc = refuse_packed(def, k, k->in[j]->dtype, "input", j, err);
    if (rc == KN_OK)
        rc = kn_plan_hold_raw(p, def, k, err);
    if (rc != KN_OK)
        return rc;
    *prepared = 1;
    kn_attr_take_mismatch();
    rc = def->prepare(k);
    const kn_attr *bad = kn_attr_take_mismatch();
    if (rc == KN_OK && bad)
        rc = kn_fail(err, KN_ERR_INVALID_MODEL, "attribute '%s' has the wrong type (%d)",
                     bad->name, (int)bad->type);
    for (int32_t j = 0; rc == KN_OK && on_device && !(def->flags & KN_OP_PACKED) && j < k->n_out;
         j++)
        if (k->out[j] && kn_dtype_is_packed(k->out[j]->dtype)) {
            if (def->release)
                def->release(k);
            *prepared = 0;
            rc = KN_ERR_DECLINE;
        }
    return rc;
}

/* Clears what a kernel's prepare left in k (output shapes, state, scratch
 * size) before another kernel prepares the same node. */
static void forget_kernel(kn_kctx *k)
{
    for (int32_t j = 0; j < k->n_out; j++)
        if (k->out[j])
            memset(k->out[j], 0, sizeof *k->out[j]);
    k->state = NULL;
    k->scratch_bytes = 0;
}

/* The kernels offered a node: the plan's device backend's first, when it has
 * one for the node and the node is not folded (offer_device), then one per
 * host backend that may serve the model and has a kernel for the node's op,
 * opset and dtype, in backend order (core/kernel/backend.h). */
typedef struct candidates {
    kn_tune_candidate c[KN_MAX_BACKENDS];
    int32_t n;
} candidates;

static void find_candidates(const kn_plan *p, const kn_node *node, int64_t opset, int32_t dtype,
                            int eager, int offer_device, candidates *out)
{
    const kn_backend *const *list = kn_backends();
    uint32_t usable = p->model->root->backends;
    out->n = 0;
    if (offer_device && p->options.device) {
        const kn_backend *be = p->options.device->backend;
        const kn_op_def *d = kn_backend_kernel(be, node->domain, node->op_type, opset, dtype);
        if (d)
            out->c[out->n++] = (kn_tune_candidate){.def = d, .backend = be};
    }
    for (int32_t b = 0; b < kn_backend_count(); b++) {
        const kn_backend *be = list[b];
        if (!(usable & (1u << b)) || be->memory.kind != KN_MEMORY_HOST ||
            (eager && (be->flags & KN_BACKEND_NOT_EAGER)))
            continue;
        const kn_op_def *d = kn_backend_kernel(be, node->domain, node->op_type, opset, dtype);
        if (d)
            out->c[out->n++] = (kn_tune_candidate){.def = d, .backend = be};
    }
}

/* Tuning: k was prepared with the first candidate, a tuned backend's kernel.
 * Times it against its variants and the next candidate (or reads the choice
 * from the cache) and, when another wins, prepares that one instead; *at
 * gets the candidate kept. */
static int tune_node(kn_plan *p, int32_t i, const candidates *cand, kn_kctx *k, int32_t *at,
                     int *prepared, int eager, kn_err *err)
{
    const kn_tune_candidate *fast = &cand->c[0], *other = cand->n > 1 ? &cand->c[1] : NULL;
    int32_t choice = 0;
    int timed = 0, rc = KN_OK;
    int timing = (other || k->n_variants > 1) && p->tuner && !eager &&
                 !is_foldable(p, fast->def, k);
    /* the other candidate reads the raw weights: held while it is timed */
    int held = timing && other && (rc = kn_plan_hold_raw(p, other->def, k, err)) == KN_OK;
    if (timing && rc == KN_OK)
        rc = kn_tuner_choose(p->tuner, i, fast, k, other, &choice, &timed, err);
    p->tuning_timings += timed;
    if (rc == KN_OK && choice != 0) {
        if (fast->def->release)
            fast->def->release(k);
        forget_kernel(k);
        if (choice == KN_TUNE_OTHER)
            *at = 1;
        else
            k->variant = choice;
        rc = prepare_kernel(p, &cand->c[*at], k, prepared, err);
    }
    if (held)
        kn_plan_drop_raw(p, other->def, k);
    return rc;
}

static int prepare_node(kn_plan *p, int32_t i, kn_threadpool *tp, int eager, kn_err *err)
{
    const kn_graph *g = p->model->graph;
    const kn_node *node = &g->nodes[i];
    kn_tensor **in = kn_bump_alloc(p->bump, sizeof(kn_tensor *) * (size_t)(node->n_inputs + 1));
    kn_tensor **out = kn_bump_alloc(p->bump, sizeof(kn_tensor *) * (size_t)(node->n_outputs + 1));
    if (!in || !out)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory planning");
    int32_t dtype = KN_UNDEFINED;
    for (int32_t j = 0; j < node->n_inputs; j++) {
        int32_t v = node->inputs[j];
        if (v < 0)
            continue;
        if (p->kind[v] == KN_VAL_UNUSED)
            return kn_fail(err, KN_ERR_UNSUPPORTED, "input '%s' of node '%s' (%s) has no value "
                           "(outer-scope values are not supported here)",
                           g->values[v].name, node->name, node->op_type);
        in[j] = &p->vals[v];
        if (j == 0)
            dtype = in[j]->dtype;
    }
    for (int32_t j = 0; j < node->n_outputs; j++) {
        int32_t v = node->outputs[j];
        if (v < 0)
            continue;
        out[j] = &p->vals[v];
        memset(out[j], 0, sizeof *out[j]);
    }
    /* Kernels may assume output 0 exists; ONNX lets only the recurrent
     * layers omit it (their Y is optional). */
    if ((node->n_outputs < 1 || node->outputs[0] < 0) && strcmp(node->op_type, "LSTM") != 0 &&
        strcmp(node->op_type, "GRU") != 0 && strcmp(node->op_type, "RNN") != 0)
        return kn_fail(err, KN_ERR_INVALID_MODEL, "node '%s' (%s) has no first output",
                       node->name, node->op_type);
    /* A node whose inputs are all constants is folded on the host while
     * planning; only the others are offered to the device. */
    int offer_device = 0;
    for (int32_t j = 0; j < node->n_inputs && !offer_device; j++)
        offer_device = in[j] && p->kind[node->inputs[j]] != KN_VAL_CONST;
    candidates cand;
    find_candidates(p, node, p->model->node_opset[i], dtype, eager, offer_device, &cand);
    if (cand.n == 0)
        return no_kernel_error(p, i, dtype, err);
    kn_kctx k = {.node = node, .opset = p->model->node_opset[i], .n_in = node->n_inputs,
                 .n_out = node->n_outputs, .in = in, .out = out, .threads = tp, .err = err,
                 .engine_api = &kn_plan_engine_api, .engine = p,
                 .weights = p->model == p->model->root ? p->model->weights : NULL,
                 .precision = p->options.precision, .max_bytes = p->options.max_arena};
    /* The first backend's kernel goes first; it may decline the node's
     * shapes or attributes (KN_ERR_DECLINE) and leave it to the next. */
    int prepared = 0;
    int32_t at = 0;
    int rc = prepare_kernel(p, &cand.c[0], &k, &prepared, err);
    while (rc == KN_ERR_DECLINE && at + 1 < cand.n) {
        /* a declining prepare has released what it built */
        *err = (kn_err){0};
        forget_kernel(&k);
        rc = prepare_kernel(p, &cand.c[++at], &k, &prepared, err);
    }
    if (at == 0 && rc == KN_OK && (cand.c[0].backend->flags & KN_BACKEND_TUNED) &&
        cand.c[0].backend->memory.kind == KN_MEMORY_HOST)
        rc = tune_node(p, i, &cand, &k, &at, &prepared, eager, err);
    const kn_op_def *def = cand.c[at].def;
    if (!prepared) {
        kn_err_prefix(err, "node '%s' (%s)", node->name, node->op_type);
        return rc;
    }
    if (rc == KN_OK)
        rc = check_outputs(def, &k, err);
    if (rc == KN_OK && (eager || is_foldable(p, def, &k))) {
        int64_t t0 = eager && p->eager_steps ? kn_now_ns() : 0;
        rc = fold(p, def, &k, err);
        if (rc == KN_OK && eager && p->options.tap)
            rc = p->options.tap->fn(p->options.tap->ctx, p, &k, err);
        if (eager && p->eager_steps) {
            int32_t e = p->n_eager_steps++;
            p->step_ns[e] = kn_now_ns() - t0;
            p->eager_steps[e] = (kn_step){.def = def, .backend = cand.c[at].backend, .k = k,
                                          .node = i};
        }
        if (def->release)
            def->release(&k);
    } else if (rc == KN_OK) {
        for (int32_t j = 0; j < node->n_outputs; j++)
            if (node->outputs[j] >= 0)
                p->kind[node->outputs[j]] = KN_VAL_ARENA;
        kn_step *s = &p->steps[p->n_steps++];
        s->def = def;
        s->backend = cand.c[at].backend;
        s->k = k;
        s->node = i;
    } else if (def->release) {
        def->release(&k);
    }
    if (rc != KN_OK) {
        if (err->code == KN_OK)
            kn_fail(err, rc, "kernel failed without a message");
        kn_err_prefix(err, "node '%s' (%s)", node->name, node->op_type);
    }
    return rc;
}

static int cancelled(const kn_plan_options *o)
{
    return o->cancel_target &&
           atomic_load_explicit(o->cancel_target, memory_order_relaxed) == o->run_id;
}

/* Whether any backend that may serve the model has tuning candidates: a
 * host backend the model may use, or the plan's device backend. */
static int any_tuned_backend(const kn_model *model, const kn_plan_device *device)
{
    if (device && (device->backend->flags & KN_BACKEND_TUNED))
        return 1;
    for (int32_t b = 0; b < kn_backend_count(); b++)
        if ((model->root->backends & (1u << b)) && (kn_backends()[b]->flags & KN_BACKEND_TUNED))
            return 1;
    return 0;
}

int kn_plan_build(const kn_model *model, const kn_tensor *input_shapes, kn_threadpool *tp,
                  const kn_plan_options *o, kn_plan **out, kn_err *err)
{
    *out = NULL;
    const kn_graph *g = model->graph;
    size_t nv = g->n_values ? (size_t)g->n_values : 1, nn = g->n_nodes ? (size_t)g->n_nodes : 1;
    kn_plan *p = calloc(1, sizeof *p);
    if (!p) {
        kn_bump_destroy(o->recycle); /* the plan owns it from the call on */
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory planning");
    }
    p->model = model;
    p->options = *o;
    p->options.recycle = NULL; /* taken over below, never passed on */
    /* Devices serve planned runs of the root graph: an eager plan computes
     * while it is built, and a subgraph runs inside a host kernel. */
    if (o->eager || model != model->root)
        p->options.device = NULL;
    if (!p->options.device)
        p->options.device_inputs = p->options.device_outputs = NULL;
    p->threads = tp;
    p->n_values = g->n_values;
    p->bump = o->recycle ? o->recycle : kn_bump_create();
    /* Folded constants and eagerly computed values count against the
     * session's memory limit like the arena does. */
    if (p->bump && o->max_arena > 0)
        kn_bump_set_limit(p->bump, (size_t)o->max_arena);
    p->vals = calloc(nv, sizeof *p->vals);
    p->kind = calloc(nv, 1);
    p->root = calloc(nv, sizeof *p->root);
    p->offset = calloc(nv, sizeof *p->offset);
    p->steps = calloc(nn, sizeof *p->steps);
    p->input_aliases = calloc(nv, sizeof *p->input_aliases);
    int rc = KN_OK;
    if (!p->bump || !p->vals || !p->kind || !p->root || !p->offset || !p->steps || !p->input_aliases)
        rc = kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory planning");
    if (rc == KN_OK && p->options.device_inputs) {
        uint8_t *own = kn_bump_alloc(p->bump, (size_t)g->n_inputs + 1);
        if (own)
            memcpy(own, p->options.device_inputs, (size_t)g->n_inputs);
        else
            rc = kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory planning");
        p->options.device_inputs = own;
    }
    if (rc == KN_OK && p->options.device_outputs) {
        uint8_t *own = kn_bump_alloc(p->bump, (size_t)g->n_outputs + 1);
        if (own)
            memcpy(own, p->options.device_outputs, (size_t)g->n_outputs);
        else
            rc = kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory planning");
        p->options.device_outputs = own;
    }
    if (rc == KN_OK)
        rc = init_values(p, input_shapes, o->eager, o->value_inputs, err);
    if (rc == KN_OK && o->eager && o->profile) {
        p->eager_steps = kn_bump_alloc(p->bump, sizeof *p->eager_steps * nn);
        p->step_ns = kn_bump_alloc(p->bump, sizeof *p->step_ns * nn);
        if (!p->eager_steps || !p->step_ns)
            rc = kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory planning");
        p->profile_runs = 1;
    }
    if (rc == KN_OK && o->tune && !o->eager && any_tuned_backend(model, p->options.device))
        rc = kn_tuner_open(&p->tuner, model->root->ir, g, o->tuning_cache,
                           kn_threadpool_threads(tp), err);
    for (int32_t i = 0; rc == KN_OK && i < g->n_nodes; i++) {
        if (o->eager && cancelled(o))
            rc = kn_fail(err, KN_ERR_CANCELLED, "run cancelled");
        else
            rc = prepare_node(p, i, tp, o->eager, err);
    }
    int tuner_rc = kn_tuner_close(p->tuner, rc == KN_OK ? err : NULL);
    p->tuner = NULL;
    if (rc == KN_OK)
        rc = tuner_rc;
    kn_plan_evict_weights(p); /* what tuning or released plans left resident */
    for (int32_t i = 0; rc == KN_OK && i < g->n_outputs; i++)
        if (p->kind[g->outputs[i]] == KN_VAL_UNUSED)
            rc = kn_fail(err, KN_ERR_INVALID_MODEL, "graph output '%s' is not produced by any node",
                         g->values[g->outputs[i]].name);
    if (rc == KN_OK)
        rc = kn_plan_place_device(p, err);
    if (rc == KN_OK)
        rc = kn_plan_layout(p, o->max_arena, err);
    if (rc == KN_OK)
        rc = kn_plan_layout_device(p, o->max_arena, err);
#ifndef NDEBUG
    if (rc == KN_OK)
        rc = kn_plan_check(p, err);
#endif
    if (rc == KN_OK && !o->shared_arena)
        rc = kn_plan_own_arena(p, err);
    if (rc == KN_OK && o->profile && p->n_steps > 0 &&
        !(p->step_ns = kn_bump_alloc(p->bump, sizeof *p->step_ns * (size_t)p->n_steps)))
        rc = kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory planning");
    if (rc != KN_OK) {
        kn_plan_destroy(p);
        return rc;
    }
    *out = p;
    return KN_OK;
}

static void destroy_but_bump(kn_plan *p)
{
    for (int32_t s = 0; s < p->n_steps; s++)
        if (p->steps[s].def->release)
            p->steps[s].def->release(&p->steps[s].k);
    kn_plan_release_raw(p);
    kn_plan_release_graph(p); /* before the device memory its replays use */
    kn_plan_release_device(p);
    if (p->owns_arena)
        kn_aligned_free(p->arena);
    free(p->vals);
    free(p->kind);
    free(p->root);
    free(p->offset);
    free(p->steps);
    free(p->input_aliases);
    free(p);
}

void kn_plan_destroy(kn_plan *p)
{
    if (!p)
        return;
    kn_bump *b = p->bump; /* last: the kernels' releases read what is in it */
    destroy_but_bump(p);
    kn_bump_destroy(b);
}

kn_bump *kn_plan_destroy_keep(kn_plan *p)
{
    if (!p)
        return NULL;
    kn_bump *b = p->bump;
    destroy_but_bump(p);
    if (b)
        kn_bump_rewind(b);
    return b;
}

void kn_plan_bind_input(kn_plan *p, int32_t input_index, const void *data)
{
    int32_t v = p->model->graph->inputs[input_index];
    p->vals[v].data = (void *)data;
    for (int32_t a = 0; a < p->n_input_aliases; a++) {
        int32_t alias = p->input_aliases[a];
        if (p->root[alias] == v)
            p->vals[alias].data = (void *)data;
    }
}
