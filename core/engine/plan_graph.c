/* Captured device graphs. A plan whose every step is device work (the
 * copies host→device and device→host, device kernels, and the one sync at
 * its end) does the same work on every run with the same pointers, so the
 * device can record it once (memory.graph_begin/end) and replay it with
 * one launch (graph_launch), which saves the per-kernel launch cost.
 *
 * The recording holds pointers, so everything it reads must stay put: the
 * caller's input buffers change from run to run, so the plan copies them
 * into its own staging buffers first and binds those; the host and device
 * arenas are shared by a session's plans and may move when a larger plan
 * grows them, so a replay first checks they are where the capture saw
 * them, and captures again when not. A plan with a host step between
 * device steps, a tap, or an input bound to the caller's device memory
 * runs its steps plainly, and says why (kn_plan_graph_status). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/clock.h"
#include "core/engine/plan.h"

typedef struct kn_plan_graph {
    int checked;              /* plain_reason is decided */
    const char *plain_reason; /* NULL: capturable */
    void *exec;               /* the backend's executable graph, or NULL */
    /* where the arenas were when exec was recorded */
    const void *host_arena, *device_arena;
    void **staging; /* per graph input: the fixed host buffer its copy reads */
    int64_t captures, replays;
    char failed[600]; /* the plain reason after a capture the device refused */
} kn_plan_graph;

static int is_sync(const kn_step *st)
{
    return st->def->domain && strcmp(st->def->domain, "kiln") == 0 &&
           strcmp(st->def->op_type, "Sync") == 0;
}

/* NULL when the plan can be captured, else why not (for profiles and
 * `kiln info`). */
static const char *why_plain(const kn_plan *p)
{
    const kn_plan_device *dev = p->options.device;
    if (!dev)
        return "the session runs on the host";
    const kn_backend_memory *m = &dev->backend->memory;
    if (!m->graph_begin || !m->graph_end || !m->graph_launch || !m->graph_destroy)
        return "the device backend cannot capture graphs";
    if (p->options.eager)
        return "the plan is rebuilt on every run (eager)";
    if (p->options.tap)
        return "a tap observes every step";
    if (p->n_steps == 0 || !is_sync(&p->steps[p->n_steps - 1]))
        return "the plan does not end with device work";
    for (int32_t s = 0; s < p->n_steps; s++)
        if (!kn_step_on_device(&p->steps[s]))
            return "a host step runs between device steps";
    for (int32_t s = 0; s < p->n_steps - 1; s++)
        if (is_sync(&p->steps[s]))
            return "the host waits for the device inside the run";
    const kn_graph *g = p->model->graph;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        if (kn_plan_input_on_device(p, i))
            return "an input is bound to the caller's device memory";
        if (kn_tensor_nbytes(&p->vals[g->inputs[i]]) < 0)
            return "an input is not a numeric tensor";
    }
    return NULL;
}

static void drop_exec(kn_plan *p)
{
    kn_plan_graph *gr = p->graph;
    if (gr && gr->exec) {
        const kn_plan_device *dev = p->options.device;
        dev->backend->memory.graph_destroy(dev->device, gr->exec);
        gr->exec = NULL;
    }
}

void kn_plan_release_graph(kn_plan *p)
{
    kn_plan_graph *gr = p->graph;
    if (!gr)
        return;
    drop_exec(p);
    if (gr->staging) {
        for (int32_t i = 0; i < p->model->graph->n_inputs; i++)
            free(gr->staging[i]);
        free(gr->staging);
    }
    free(gr);
    p->graph = NULL;
}

kn_plan_graph_info kn_plan_graph_status(const kn_plan *p)
{
    const kn_plan_graph *gr = p ? p->graph : NULL;
    if (!gr)
        return (kn_plan_graph_info){0};
    return (kn_plan_graph_info){.captures = gr->captures,
                                .replays = gr->replays,
                                .steps = p->n_steps,
                                .plain_reason = gr->plain_reason};
}

/* The state, the reason decided and the staging buffers made on the
 * first run (a run allocates nothing after it). */
static int graph_state(kn_plan *p, kn_err *err)
{
    if (p->graph && p->graph->checked)
        return KN_OK;
    kn_plan_graph *gr = p->graph ? p->graph : calloc(1, sizeof *gr);
    if (!gr)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory for a device graph");
    p->graph = gr;
    gr->plain_reason = why_plain(p);
    if (!gr->plain_reason) {
        const kn_graph *g = p->model->graph;
        gr->staging = calloc(g->n_inputs ? (size_t)g->n_inputs : 1, sizeof *gr->staging);
        if (!gr->staging)
            return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory for a device graph");
        for (int32_t i = 0; i < g->n_inputs; i++) {
            int64_t nb = kn_tensor_nbytes(&p->vals[g->inputs[i]]);
            gr->staging[i] = malloc(nb > 0 ? (size_t)nb : 1);
            if (!gr->staging[i])
                return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory staging input %d", (int)i);
        }
    }
    gr->checked = 1;
    return KN_OK;
}

/* Copies the caller's inputs (just bound) into the staging buffers and
 * points the plan at those. */
static void stage_inputs(kn_plan *p)
{
    const kn_graph *g = p->model->graph;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const kn_tensor *t = &p->vals[g->inputs[i]];
        int64_t nb = kn_tensor_nbytes(t);
        if (nb > 0 && t->data != p->graph->staging[i])
            memcpy(p->graph->staging[i], t->data, (size_t)nb);
        kn_plan_bind_input(p, i, p->graph->staging[i]);
    }
}

/* Records every step but the final sync into a new executable graph. */
static int capture(kn_plan *p, kn_err *err)
{
    const kn_plan_device *dev = p->options.device;
    const kn_backend_memory *m = &dev->backend->memory;
    int rc = m->graph_begin(dev->device, dev->stream, err);
    if (rc != KN_OK)
        return rc;
    for (int32_t s = 0; s < p->n_steps - 1 && rc == KN_OK; s++) {
        kn_step *st = &p->steps[s];
        st->k.err = err;
        rc = st->def->run(&st->k);
        if (rc != KN_OK) {
            if (err->code == KN_OK)
                kn_fail(err, rc, "kernel failed without a message");
            kn_err_prefix(err, "capturing node '%s' (%s)", st->k.node->name, st->k.node->op_type);
        }
    }
    void *exec = NULL;
    kn_err end_err = {0};
    int rc_end = m->graph_end(dev->device, dev->stream, &exec, rc == KN_OK ? err : &end_err);
    if (rc != KN_OK || rc_end != KN_OK) {
        if (exec)
            m->graph_destroy(dev->device, exec);
        return rc != KN_OK ? rc : rc_end;
    }
    p->graph->exec = exec;
    p->graph->host_arena = p->arena;
    p->graph->device_arena = p->device_arena;
    p->graph->captures++;
    return KN_OK;
}

int kn_plan_execute_graph(kn_plan *p, const atomic_uint_fast64_t *cancel_target, uint64_t run_id,
                          kn_err *err)
{
    if (!p->options.device_graph)
        return kn_plan_execute(p, cancel_target, run_id, err);
    int rc = graph_state(p, err);
    if (rc != KN_OK)
        return rc;
    if (p->graph->plain_reason)
        return kn_plan_execute(p, cancel_target, run_id, err);
    if (cancel_target && atomic_load_explicit(cancel_target, memory_order_relaxed) == run_id)
        return kn_fail(err, KN_ERR_CANCELLED, "run cancelled");
    stage_inputs(p);
    kn_plan_graph *gr = p->graph;
    if (gr->exec && (gr->host_arena != p->arena || gr->device_arena != p->device_arena))
        drop_exec(p); /* an arena moved: the recorded pointers are stale */
    if (!gr->exec) {
        /* the first run with these shapes (or arenas) runs plainly and is
         * then recorded: its per-step times are real */
        rc = kn_plan_execute(p, cancel_target, run_id, err);
        if (rc != KN_OK)
            return rc;
        kn_err cap_err = {0};
        if (capture(p, &cap_err) != KN_OK) {
            /* a device may refuse to record some work (a copy from
             * pageable host memory on some drivers): the run succeeded,
             * and the plan runs plainly from now on, saying why */
            snprintf(gr->failed, sizeof gr->failed, "the device could not capture it: %s",
                     cap_err.msg);
            gr->plain_reason = gr->failed;
        }
        return KN_OK;
    }
    const kn_plan_device *dev = p->options.device;
    int64_t t0 = p->step_ns ? kn_now_ns() : 0;
    rc = dev->backend->memory.graph_launch(dev->device, gr->exec, dev->stream, err);
    if (rc == KN_OK)
        rc = dev->backend->memory.stream_sync(dev->device, dev->stream, err);
    if (rc != KN_OK) {
        kn_err_prefix(err, "graph replay (%d steps)", (int)p->n_steps);
        return rc;
    }
    gr->replays++;
    if (p->step_ns) {
        /* a replay is one launch: its time goes to the last step, which
         * the profile names "graph replay (N steps)" */
        p->profile_runs++;
        p->step_ns[p->n_steps - 1] += kn_now_ns() - t0;
    }
    return KN_OK;
}
