/* The tuning a plan's device kernels do themselves (kn_engine_api's
 * tuned_choice and keep_tuned_choice): their choices live in the plan's
 * tuner, keyed by the device's description, while the plan is built. */
#include <stdio.h>

#include "core/engine/plan.h"
#include "core/engine/tuning.h"

/* The node's index and the device's description, or 0 when the plan does
 * not tune this kernel: no tuner (tuning off, an eager plan), a kernel not
 * on the plan's device, a backend that cannot describe its device (no key
 * that keeps other GPUs' choices out). */
static int device_key(const kn_plan *p, const kn_kctx *k, int32_t *node, const char **device)
{
    const kn_plan_device *d = p->options.device;
    const kn_graph *g = p->model->graph;
    if (!p->tuner || !d || !k->device || k->device != d->device || !d->backend->memory.describe ||
        k->node < g->nodes || k->node >= g->nodes + g->n_nodes)
        return 0;
    *node = (int32_t)(k->node - g->nodes);
    *device = d->backend->memory.describe(d->device);
    return *device != NULL;
}

int kn_plan_tuned_choice(void *engine, const kn_kctx *k, char *buf, size_t cap)
{
    const kn_plan *p = engine;
    int32_t node;
    const char *device;
    if (!device_key(p, k, &node, &device))
        return -1;
    const char *known =
        kn_tuner_device_choice(p->tuner, node, k, p->options.device->backend, device);
    if (!known || (size_t)snprintf(buf, cap, "%s", known) >= cap)
        return 0;
    return 1;
}

int kn_plan_keep_tuned_choice(void *engine, const kn_kctx *k, const char *choice, kn_err *err)
{
    kn_plan *p = engine;
    int32_t node;
    const char *device;
    if (!device_key(p, k, &node, &device))
        return KN_OK; /* nothing is cached where nothing is tuned */
    int rc = kn_tuner_keep_device_choice(p->tuner, node, k, p->options.device->backend, device,
                                         choice, err);
    if (rc == KN_OK)
        p->tuning_timings++;
    return rc;
}
