/* Building a plan, the device part: after every node is prepared (the
 * planner offered each one to the device backend first), the steps are
 * split into partitions by where they run. At each boundary a copy step
 * moves a value across (host→device before the first device step reading a
 * host value, device→host before the first host step or graph output
 * reading a device value), and a sync step waits for the device's queue
 * before a host step runs after device work, and at the end of the run:
 * the host may then read device results, and host memory a queued copy
 * still reads is never overwritten first. Copies and syncs are ordinary
 * steps, so they show in the profile under the device backend's name.
 *
 * Device tensors get their own arena, laid out by lifetime with the host
 * arena's planner (core/engine/memplan.h). Constants a device step reads
 * are uploaded once per model and device through the weight store;
 * constants folded while planning, which the model does not hold, are
 * uploaded once per plan.
 *
 * A graph input the caller binds to device memory (options.device_inputs)
 * is placed like a device step's output that already exists: device steps
 * read the caller's buffer directly, and only a host step reading it gets a
 * copy device→host. A graph output the caller binds to device memory
 * (options.device_outputs) gets no copy device→host either: the session
 * copies it on the device into the caller's buffer, and its host bytes are
 * fetched only if the caller reads them there too (kn_plan_fetch_output). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine/memplan.h"
#include "core/engine/plan.h"
#include "core/kernel/weights.h"

/* What a copy or sync step needs; its kctx's state. */
typedef struct transfer {
    const kn_backend_memory *memory;
    void *device, *stream;
    int32_t direction; /* KN_COPY_*; unused by a sync */
    size_t bytes;
} transfer;

static int no_prepare(kn_kctx *k)
{
    (void)k;
    return KN_OK;
}

static int copy_run(kn_kctx *k)
{
    const transfer *t = k->state;
    if (t->bytes == 0)
        return KN_OK;
    return t->memory->copy(t->device, k->out[0]->data, k->in[0]->data, t->bytes, t->direction,
                           t->stream, k->err);
}

static int sync_run(kn_kctx *k)
{
    const transfer *t = k->state;
    return t->memory->stream_sync(t->device, t->stream, k->err);
}

static const kn_op_def copy_def = {
    .domain = "kiln", .op_type = "Copy", .prepare = no_prepare, .run = copy_run};
static const kn_op_def sync_def = {
    .domain = "kiln", .op_type = "Sync", .prepare = no_prepare, .run = sync_run};

/* The placement's working state. */
typedef struct placer {
    kn_plan *p;
    const kn_plan_device *dev;
    kn_step *out; /* the new step list */
    int32_t n_out;
    uint8_t *made_on_device; /* per value: a device step writes it */
    uint8_t *on_host;        /* per value: its host bytes are (or will be) current */
    int pending;             /* device work queued since the last sync */
    int32_t *const_values;   /* folded constants to upload with the plan */
    int32_t n_consts;
    kn_err *err;
} placer;

static int oom(kn_err *err) { return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory planning"); }

/* A copy or sync step: a node of its own (only for names and the host
 * layout's lifetimes: a copy to the device reads value v on the host, one
 * to the host writes it there). */
static int emit_transfer(placer *c, const kn_op_def *def, int32_t direction, int32_t v)
{
    kn_plan *p = c->p;
    kn_node *node = kn_bump_alloc(p->bump, sizeof *node);
    transfer *t = kn_bump_alloc(p->bump, sizeof *t);
    int32_t *ids = kn_bump_alloc(p->bump, sizeof *ids);
    kn_tensor **in = kn_bump_alloc(p->bump, sizeof *in),
              **out = kn_bump_alloc(p->bump, sizeof *out);
    if (!node || !t || !ids || !in || !out)
        return oom(c->err);
    char name[160];
    const char *backend = c->dev->backend->name;
    if (def == &sync_def) {
        snprintf(name, sizeof name, "sync %s", backend);
    } else {
        int64_t bytes = kn_tensor_nbytes(&p->vals[v]);
        t->bytes = bytes > 0 ? (size_t)bytes : 0;
        t->direction = direction;
        snprintf(name, sizeof name, "copy %s (%lld bytes) '%s'",
                 direction == KN_COPY_TO_DEVICE ? "host→device" : "device→host", (long long)bytes,
                 p->model->graph->values[v].name);
        ids[0] = v;
        in[0] = direction == KN_COPY_TO_DEVICE ? &p->vals[v] : &p->dvals[v];
        out[0] = direction == KN_COPY_TO_DEVICE ? &p->dvals[v] : &p->vals[v];
    }
    t->memory = &c->dev->backend->memory;
    t->device = c->dev->device;
    t->stream = c->dev->stream;
    *node = (kn_node){.name = kn_bump_strdup(p->bump, name),
                      .op_type = def->op_type,
                      .domain = "kiln",
                      .n_inputs = def == &copy_def,
                      .n_outputs = def == &copy_def && direction == KN_COPY_TO_HOST,
                      .inputs = ids,
                      .outputs = ids};
    if (!node->name)
        return oom(c->err);
    c->out[c->n_out++] = (kn_step){.def = def,
                                   .backend = c->dev->backend,
                                   .node = -1,
                                   .k = {.node = node,
                                         .n_in = node->n_inputs,
                                         .n_out = def == &copy_def,
                                         .in = in,
                                         .out = out,
                                         .state = t,
                                         .device = t->device,
                                         .stream = t->stream}};
    c->pending = 1;
    return KN_OK;
}

/* A constant read by a device step: the model's upload when the value is
 * one of its initializers as loaded, else one of this plan's own. */
static int place_constant(placer *c, int32_t v)
{
    kn_plan *p = c->p;
    const kn_value *val = &p->model->graph->values[v];
    p->dvals[v] = p->vals[v];
    p->ondev[v] = 1;
    if (val->is_initializer && val->init_nbytes > 0 && p->vals[v].data == val->init_data &&
        p->model->weights) {
        void *ptr = NULL;
        int rc = kn_weight_store_acquire_device(
            p->model->weights, v, NULL, 0, (size_t)val->init_nbytes, NULL, &c->dev->backend->memory,
            c->dev->device, kn_threadpool_threads(p->threads), &ptr, c->err);
        if (rc != KN_OK)
            return rc;
        p->device_weights[p->n_device_weights++] = ptr;
        p->dvals[v].data = ptr;
        return KN_OK;
    }
    p->dvals[v].data = NULL; /* set by upload_plan_constants */
    c->const_values[c->n_consts++] = v;
    return KN_OK;
}

/* Offsets of the plan's own constants in one device block; each 256-byte
 * aligned, as device allocations are. */
static size_t const_span(const kn_plan *p, int32_t v)
{
    int64_t nb = kn_tensor_nbytes(&p->vals[v]);
    return ((size_t)(nb > 0 ? nb : 0) + 255) & ~(size_t)255;
}

static int upload_plan_constants(placer *c)
{
    kn_plan *p = c->p;
    const kn_backend_memory *m = &c->dev->backend->memory;
    size_t total = 0;
    for (int32_t i = 0; i < c->n_consts; i++)
        total += const_span(p, c->const_values[i]);
    if (c->n_consts == 0)
        return KN_OK;
    p->device_consts = m->alloc(c->dev->device, total ? total : 256, c->err);
    if (!p->device_consts)
        return c->err->code != KN_OK ? c->err->code : oom(c->err);
    size_t at = 0;
    int rc = KN_OK;
    for (int32_t i = 0; rc == KN_OK && i < c->n_consts; i++) {
        int32_t v = c->const_values[i];
        int64_t nb = kn_tensor_nbytes(&p->vals[v]);
        p->dvals[v].data = (unsigned char *)p->device_consts + at;
        if (nb > 0)
            rc = m->copy(c->dev->device, p->dvals[v].data, p->vals[v].data, (size_t)nb,
                         KN_COPY_TO_DEVICE, c->dev->stream, c->err);
        at += const_span(p, v);
    }
    /* the host bytes are the plan's; waiting here keeps runs free of it */
    if (rc == KN_OK)
        rc = m->stream_sync(c->dev->device, c->dev->stream, c->err);
    return rc;
}

static int place_device_step(placer *c, kn_step *st)
{
    kn_plan *p = c->p;
    const kn_node *node = st->k.node;
    for (int32_t j = 0; j < node->n_inputs; j++) {
        int32_t v = node->inputs[j];
        if (v < 0 || !st->k.in[j])
            continue;
        int rc = KN_OK;
        if (!p->ondev[v] && p->kind[v] == KN_VAL_CONST) {
            rc = place_constant(c, v);
        } else if (!p->ondev[v]) {
            p->dvals[v] = p->vals[v];
            p->dvals[v].data = NULL;
            p->ondev[v] = 1;
            rc = emit_transfer(c, &copy_def, KN_COPY_TO_DEVICE, v);
        }
        if (rc != KN_OK)
            return rc;
        st->k.in[j] = &p->dvals[v];
    }
    for (int32_t j = 0; j < node->n_outputs; j++) {
        int32_t v = node->outputs[j];
        if (v < 0 || !st->k.out[j])
            continue;
        p->dvals[v] = p->vals[v];
        p->dvals[v].data = NULL;
        p->ondev[v] = 1;
        st->k.out[j] = &p->dvals[v];
    }
    c->out[c->n_out++] = *st;
    c->pending = 1;
    return KN_OK;
}

/* Value v is read on the host: brought over once, on first need. */
static int need_on_host(placer *c, int32_t v)
{
    if (v < 0 || !c->made_on_device[v] || c->on_host[v])
        return KN_OK;
    c->on_host[v] = 1;
    return emit_transfer(c, &copy_def, KN_COPY_TO_HOST, v);
}

static int place_host_step(placer *c, const kn_step *st)
{
    const kn_node *node = st->k.node;
    for (int32_t j = 0; j < node->n_inputs; j++) {
        int rc = need_on_host(c, node->inputs[j]);
        if (rc != KN_OK)
            return rc;
    }

    if (c->pending) {
        int rc = emit_transfer(c, &sync_def, 0, -1);
        if (rc != KN_OK)
            return rc;
        c->pending = 0;
    }
    c->out[c->n_out++] = *st;
    return KN_OK;
}

/* Values only device steps read and write never get host memory. A
 * device-bound input the host reads gets its host copy in the arena, as
 * any value copied device→host does. */
static void mark_device_only(placer *c)
{
    kn_plan *p = c->p;
    for (int32_t v = 0; v < p->n_values; v++)
        if (c->made_on_device[v] && !c->on_host[v] && !(p->fetch_on_read && p->fetch_on_read[v]))
            p->kind[v] = KN_VAL_DEVICE;
        else if (p->caller_device[v] && c->on_host[v])
            p->kind[v] = KN_VAL_ARENA;
}

/* Inputs bound on the device are there before the first step. */
static void place_device_inputs(placer *c)
{
    kn_plan *p = c->p;
    const kn_graph *g = p->model->graph;
    for (int32_t i = 0; p->options.device_inputs && i < g->n_inputs; i++) {
        int32_t v = g->inputs[i];
        if (!p->options.device_inputs[i] || p->kind[v] != KN_VAL_INPUT)
            continue;
        p->dvals[v] = p->vals[v];
        p->dvals[v].data = NULL; /* kn_plan_bind_device_input */
        p->ondev[v] = 1;
        p->caller_device[v] = 1;
        c->made_on_device[v] = 1;
    }
}

static int place(placer *c)
{
    kn_plan *p = c->p;
    const kn_graph *g = p->model->graph;
    place_device_inputs(c);
    for (int32_t s = 0; s < p->n_steps; s++)
        for (int32_t j = 0; kn_step_on_device(&p->steps[s]) && j < p->steps[s].k.node->n_outputs;
             j++)
            if (p->steps[s].k.node->outputs[j] >= 0)
                c->made_on_device[p->steps[s].k.node->outputs[j]] = 1;
    int rc = KN_OK;
    for (int32_t s = 0; rc == KN_OK && s < p->n_steps; s++)
        rc = kn_step_on_device(&p->steps[s]) ? place_device_step(c, &p->steps[s])
                                             : place_host_step(c, &p->steps[s]);
    const uint8_t *bound = p->options.device_outputs;
    for (int32_t i = 0; rc == KN_OK && i < g->n_outputs; i++)
        if (!bound || !bound[i])
            rc = need_on_host(c, g->outputs[i]);
    /* bound outputs no host step read and no unbound output shares: left on
     * the device, with host room to fetch them into on request */
    for (int32_t i = 0; rc == KN_OK && bound && i < g->n_outputs; i++) {
        int32_t v = g->outputs[i];
        if (!bound[i] || v < 0 || !c->made_on_device[v] || c->on_host[v])
            continue;
        if (!p->fetch_on_read && !(p->fetch_on_read = kn_bump_alloc(p->bump, (size_t)p->n_values)))
            rc = oom(c->err);
        else
            p->fetch_on_read[v] = 1;
    }
    if (rc == KN_OK && c->pending)
        rc = emit_transfer(c, &sync_def, 0, -1);
    if (rc == KN_OK)
        rc = upload_plan_constants(c);
    if (rc == KN_OK)
        mark_device_only(c);
    return rc;
}

int kn_plan_place_device(kn_plan *p, kn_err *err)
{
    const kn_plan_device *dev = p->options.device;
    int32_t n_device = 0;
    for (int32_t s = 0; dev && s < p->n_steps; s++)
        n_device += kn_step_on_device(&p->steps[s]);
    for (int32_t i = 0; p->options.device_inputs && i < p->model->graph->n_inputs; i++)
        n_device += p->options.device_inputs[i];
    if (n_device == 0)
        return KN_OK;
    size_t nv = (size_t)p->n_values + 1;
    /* every value may cross each way once, and a sync may precede every
     * host step and the end */
    size_t cap = (size_t)p->n_steps * 2 + 2 * nv + 1;
    placer c = {.p = p, .dev = dev, .err = err};
    p->dvals = kn_bump_alloc(p->bump, nv * sizeof *p->dvals);
    p->ondev = kn_bump_alloc(p->bump, nv);
    p->doffset = kn_bump_alloc(p->bump, nv * sizeof *p->doffset);
    p->device_weights = kn_bump_alloc(p->bump, nv * sizeof *p->device_weights);
    p->caller_device = kn_bump_alloc(p->bump, nv);
    c.made_on_device = calloc(nv, 1);
    c.on_host = calloc(nv, 1);
    c.const_values = calloc(nv, sizeof *c.const_values);
    c.out = calloc(cap, sizeof *c.out);
    int rc = KN_OK;
    if (!p->dvals || !p->ondev || !p->doffset || !p->device_weights || !p->caller_device ||
        !c.made_on_device ||
        !c.on_host || !c.const_values || !c.out)
        rc = oom(err);
    if (rc == KN_OK)
        rc = place(&c);
    free(c.made_on_device);
    free(c.on_host);
    free(c.const_values);
    if (rc != KN_OK) {
        free(c.out);
        return rc;
    }
    free(p->steps);
    p->steps = c.out;
    p->n_steps = c.n_out;
    return KN_OK;
}

/* The device tensor a kctx slot points at, or -1 when it is not one. */
static int32_t device_value(const kn_plan *p, const kn_tensor *t)
{
    if (!t || t < p->dvals || t >= p->dvals + p->n_values)
        return -1;
    int32_t v = (int32_t)(t - p->dvals);
    /* uploads and the caller's buffers are not in the arena */
    return p->kind[v] == KN_VAL_CONST || p->caller_device[v] ? -1 : v;
}

/* Device allocations are 256-byte aligned and so is every tensor in the
 * arena: requests go to the planner in units of 256 bytes written as 64
 * (its own alignment), and the offsets it returns are scaled back by 4. */
enum { DEVICE_ALIGN = 256, SCALE = DEVICE_ALIGN / KN_ARENA_ALIGN };

static int64_t in_units(int64_t bytes)
{
    return (bytes + DEVICE_ALIGN - 1) / DEVICE_ALIGN * KN_ARENA_ALIGN;
}

int kn_plan_layout_device(kn_plan *p, int64_t max_arena, kn_err *err)
{
    if (!p->dvals)
        return KN_OK;
    int32_t *first = malloc(sizeof *first * (size_t)p->n_values);
    int32_t *last = malloc(sizeof *last * (size_t)p->n_values);
    kn_buffer_req *req = calloc((size_t)(p->n_values + p->n_steps + 1), sizeof *req);
    int32_t *req_of = calloc((size_t)(p->n_values + p->n_steps + 1), sizeof *req_of);
    int rc = KN_OK;
    if (!first || !last || !req || !req_of)
        rc = oom(err);
    for (int32_t v = 0; rc == KN_OK && v < p->n_values; v++)
        first[v] = last[v] = -1;
    /* lifetimes from the steps themselves: a device tensor lives from the
     * step that writes it to the last step reading it */
    for (int32_t s = 0; rc == KN_OK && s < p->n_steps; s++) {
        const kn_kctx *k = &p->steps[s].k;
        for (int32_t j = 0; j < k->n_out; j++) {
            int32_t v = device_value(p, k->out[j]);
            if (v >= 0 && first[v] < 0)
                first[v] = s;
            if (v >= 0 && last[v] < s)
                last[v] = s;
        }
        for (int32_t j = 0; j < k->n_in; j++) {
            int32_t v = device_value(p, k->in[j]);
            if (v >= 0)
                last[v] = s;
        }
    }
    /* a graph output's device tensor stays until the run ends: a buffer
     * the caller bound on the device is filled from it after the last step
     * (session.c) */
    for (int32_t i = 0; rc == KN_OK && i < p->model->graph->n_outputs; i++) {
        int32_t v = p->model->graph->outputs[i];
        if (first[v] >= 0)
            last[v] = p->n_steps;
    }
    int32_t n = 0;
    for (int32_t v = 0; rc == KN_OK && v < p->n_values; v++) {
        if (first[v] < 0)
            continue;
        req[n] = (kn_buffer_req){in_units(kn_tensor_nbytes(&p->dvals[v])), first[v], last[v], 0};
        req_of[n++] = v;
    }
    for (int32_t s = 0; rc == KN_OK && s < p->n_steps; s++) {
        if (!kn_step_on_device(&p->steps[s]) || !p->steps[s].k.scratch_bytes)
            continue;
        req[n] = (kn_buffer_req){in_units((int64_t)p->steps[s].k.scratch_bytes), s, s, 0};
        req_of[n++] = -1 - s;
    }
    int64_t units = rc == KN_OK ? kn_memplan_assign(req, n) : 0;
    if (rc == KN_OK && units < 0)
        rc = oom(err);
    p->device_arena_bytes = units * SCALE;
    if (rc == KN_OK && max_arena > 0 && p->device_arena_bytes > max_arena)
        rc = kn_fail(err, KN_ERR_LIMIT,
                     "device memory plan (%s) needs %lld bytes, above the "
                     "limit of %lld",
                     p->options.device->backend->name, (long long)p->device_arena_bytes,
                     (long long)max_arena);
    for (int32_t i = 0; rc == KN_OK && i < n; i++) {
        if (req_of[i] >= 0)
            p->doffset[req_of[i]] = req[i].offset * SCALE;
        else
            p->steps[-1 - req_of[i]].scratch_offset = req[i].offset * SCALE;
    }
    free(first);
    free(last);
    free(req);
    free(req_of);
    return rc;
}

void kn_plan_attach_device_arena(kn_plan *p, void *arena)
{
    if (!p->dvals)
        return;
    p->device_arena = arena;
    for (int32_t v = 0; v < p->n_values; v++)
        if (p->ondev[v] && p->kind[v] != KN_VAL_CONST && !p->caller_device[v])
            p->dvals[v].data = (unsigned char *)arena + p->doffset[v];
    for (int32_t s = 0; s < p->n_steps; s++)
        if (kn_step_on_device(&p->steps[s]) && p->steps[s].k.scratch_bytes)
            p->steps[s].k.scratch = (unsigned char *)arena + p->steps[s].scratch_offset;
}

void kn_plan_release_device(kn_plan *p)
{
    for (int32_t i = 0; i < p->n_device_weights; i++)
        kn_weight_store_release_device(p->model->weights, p->device_weights[i]);
    p->n_device_weights = 0;
    if (p->device_consts)
        p->options.device->backend->memory.free(p->options.device->device, p->device_consts);
    p->device_consts = NULL;
}

void kn_plan_bind_device_input(kn_plan *p, int32_t input_index, const void *data)
{
    int32_t v = p->model->graph->inputs[input_index];
    if (p->caller_device && p->caller_device[v])
        p->dvals[v].data = (void *)data;
}

int kn_plan_input_on_device(const kn_plan *p, int32_t input_index)
{
    return p->options.device_inputs && p->options.device_inputs[input_index];
}

int kn_plan_output_on_device(const kn_plan *p, int32_t output_index)
{
    return p->options.device_outputs && p->options.device_outputs[output_index];
}

int kn_plan_fetch_output(kn_plan *p, int32_t output_index, kn_err *err)
{
    int32_t v = p->model->graph->outputs[output_index];
    int64_t nb = kn_tensor_nbytes(&p->vals[v]);
    if (!p->fetch_on_read || v < 0 || !p->fetch_on_read[v] || nb <= 0)
        return KN_OK;
    const kn_plan_device *dev = p->options.device;
    const kn_backend_memory *m = &dev->backend->memory;
    int rc = m->copy(dev->device, p->vals[v].data, p->dvals[v].data, (size_t)nb, KN_COPY_TO_HOST,
                     dev->stream, err);
    return rc == KN_OK ? m->stream_sync(dev->device, dev->stream, err) : rc;
}
