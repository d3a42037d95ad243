/* Building a plan, part 2: which values share memory (aliases such as
 * Reshape, in-place elementwise ops), how long each buffer lives, where it
 * sits in the arena, and the final data pointers. The executor that walks
 * the result is executor.c. */
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/engine/memplan.h"
#include "core/engine/plan.h"

typedef struct layout_ctx {
    kn_plan *p;
    int32_t *last_use;    /* per value: last step reading it (n_steps = graph output) */
    int32_t *root_last;   /* per root: last step any of its aliases is read */
    int32_t *first;       /* per root: step that writes it */
    uint8_t *is_output;   /* per value: graph output */
    uint8_t *root_output; /* per root: some alias is a graph output */
} layout_ctx;

static void compute_last_use(layout_ctx *c)
{
    kn_plan *p = c->p;
    const kn_graph *g = p->model->graph;
    for (int32_t v = 0; v < p->n_values; v++)
        c->last_use[v] = -1;
    for (int32_t s = 0; s < p->n_steps; s++) {
        const kn_node *node = p->steps[s].k.node;
        for (int32_t j = 0; j < node->n_inputs; j++)
            if (node->inputs[j] >= 0)
                c->last_use[node->inputs[j]] = s;
        for (int32_t j = 0; j < node->n_outputs; j++) {
            int32_t v = node->outputs[j];
            if (v >= 0 && c->last_use[v] < s)
                c->last_use[v] = s; /* unread outputs still need memory while written */
        }
    }
    for (int32_t i = 0; i < g->n_outputs; i++) {
        c->last_use[g->outputs[i]] = p->n_steps;
        c->is_output[g->outputs[i]] = 1;
    }
}

/* Output 0 of step s may share input 0's memory (Z's for
 * KN_OP_INPLACE_Z): pure aliases (Reshape) share while both live; in-place
 * ops (Relu) only when no later step reads the input. A graph output never
 * aliases caller memory, which is borrowed only until the run returns. */
static int try_share(layout_ctx *c, int32_t s)
{
    kn_plan *p = c->p;
    const kn_step *st = &p->steps[s];
    const kn_node *node = st->k.node;
    const int32_t shared_input =
        (st->def->flags & KN_OP_INPLACE_Z) ? (st->def->z_input ? st->def->z_input : 3) : 0;
    /* a device step's tensors are laid out in the device arena (plan_device.c) */
    if (kn_step_on_device(st))
        return 0;
    if (!(st->def->flags & (KN_OP_ALIAS | KN_OP_INPLACE | KN_OP_INPLACE_Z)) ||
        node->n_inputs <= shared_input || node->n_outputs < 1 ||
        node->inputs[shared_input] < 0 || node->outputs[0] < 0)
        return 0;
    int32_t in = node->inputs[shared_input], out = node->outputs[0], r = p->root[in];
    if (kn_tensor_nbytes(&p->vals[in]) != kn_tensor_nbytes(&p->vals[out]))
        return 0;
    /* Y over Z while the primitive still reads X from the same bytes
     * (Conv(x) + x) would overwrite its own input. */
    for (int32_t j = 0; shared_input != 0 && j < node->n_inputs; j++)
        if (j != shared_input && node->inputs[j] >= 0 && p->root[node->inputs[j]] == r)
            return 0;
    if (p->kind[r] == KN_VAL_INPUT) {
        if (!(st->def->flags & KN_OP_ALIAS) || c->is_output[out])
            return 0;
    } else if (p->kind[r] != KN_VAL_ARENA) {
        return 0;
    }
    if (!(st->def->flags & KN_OP_ALIAS) && (c->root_last[r] != s || c->root_output[r]))
        return 0;
    p->root[out] = r;
    p->kind[out] = p->kind[r];
    if (c->last_use[out] > c->root_last[r])
        c->root_last[r] = c->last_use[out];
    if (c->is_output[out])
        c->root_output[r] = 1;
    if (p->kind[r] == KN_VAL_INPUT)
        p->input_aliases[p->n_input_aliases++] = out;
    return 1;
}

static void assign_roots(layout_ctx *c)
{
    kn_plan *p = c->p;
    for (int32_t v = 0; v < p->n_values; v++) {
        c->root_last[v] = c->last_use[v];
        c->root_output[v] = c->is_output[v];
        c->first[v] = 0;
    }
    for (int32_t s = 0; s < p->n_steps; s++) {
        const kn_node *node = p->steps[s].k.node;
        int shared = try_share(c, s);
        for (int32_t j = shared ? 1 : 0; j < node->n_outputs; j++)
            if (node->outputs[j] >= 0)
                c->first[node->outputs[j]] = s;
    }
}

static int place_buffers(layout_ctx *c, int64_t max_arena, kn_err *err)
{
    kn_plan *p = c->p;
    int32_t n_req = 0;
    kn_buffer_req *req = calloc((size_t)(p->n_values + p->n_steps + 1), sizeof *req);
    int32_t *req_value = calloc((size_t)(p->n_values + p->n_steps + 1), sizeof *req_value);
    if (!req || !req_value) {
        free(req);
        free(req_value);
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory planning");
    }
    for (int32_t v = 0; v < p->n_values; v++) {
        if (p->kind[v] != KN_VAL_ARENA)
            continue;
        p->intermediate_bytes += kn_tensor_nbytes(&p->vals[v]);
        if (p->root[v] != v)
            continue;
        req[n_req] = (kn_buffer_req){kn_tensor_nbytes(&p->vals[v]), c->first[v], c->root_last[v], 0};
        req_value[n_req++] = v;
    }
    for (int32_t s = 0; s < p->n_steps; s++) {
        if (!p->steps[s].k.scratch_bytes || kn_step_on_device(&p->steps[s]))
            continue;
        req[n_req] = (kn_buffer_req){(int64_t)p->steps[s].k.scratch_bytes, s, s, 0};
        req_value[n_req++] = -1 - s;
    }
    p->arena_bytes = kn_memplan_assign(req, n_req);
    int rc = KN_OK;
    if (p->arena_bytes < 0)
        rc = kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory planning");
    else if (max_arena > 0 && p->arena_bytes > max_arena)
        rc = kn_fail(err, KN_ERR_LIMIT, "memory plan needs %lld bytes, above the limit of %lld",
                     (long long)p->arena_bytes, (long long)max_arena);
    for (int32_t i = 0; rc == KN_OK && i < n_req; i++) {
        if (req_value[i] >= 0)
            p->offset[req_value[i]] = req[i].offset;
        else
            p->steps[-1 - req_value[i]].scratch_offset = req[i].offset;
    }
    free(req);
    free(req_value);
    return rc;
}

int kn_plan_layout(kn_plan *p, int64_t max_arena, kn_err *err)
{
    size_t nv = p->n_values ? (size_t)p->n_values : 1;
    layout_ctx c = {.p = p};
    c.last_use = calloc(nv, sizeof(int32_t));
    c.root_last = calloc(nv, sizeof(int32_t));
    c.first = calloc(nv, sizeof(int32_t));
    c.is_output = calloc(nv, 1);
    c.root_output = calloc(nv, 1);
    int rc = KN_OK;
    if (!c.last_use || !c.root_last || !c.first || !c.is_output || !c.root_output)
        rc = kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory planning");
    if (rc == KN_OK) {
        compute_last_use(&c);
        assign_roots(&c);
        rc = place_buffers(&c, max_arena, err);
    }
    free(c.last_use);
    free(c.root_last);
    free(c.first);
    free(c.is_output);
    free(c.root_output);
    return rc;
}

int kn_plan_own_arena(kn_plan *p, kn_err *err)
{
    /* even an empty plan gets a valid pointer: empty tensors point into it */
    unsigned char *arena = kn_aligned_alloc(p->arena_bytes > 0 ? (size_t)p->arena_bytes : 16);
    if (!arena)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "cannot allocate a %lld-byte arena",
                       (long long)p->arena_bytes);
    kn_plan_attach_arena(p, arena);
    p->owns_arena = 1;
    return KN_OK;
}

void kn_plan_attach_arena(kn_plan *p, unsigned char *arena)
{
    if (p->owns_arena) /* never for a plan that already has its own */
        return;
    p->arena = arena;
    for (int32_t v = 0; v < p->n_values; v++)
        if (p->kind[v] == KN_VAL_ARENA)
            p->vals[v].data = arena + p->offset[p->root[v]];
    for (int32_t s = 0; s < p->n_steps; s++)
        if (p->steps[s].k.scratch_bytes && !kn_step_on_device(&p->steps[s]))
            p->steps[s].k.scratch = arena + p->steps[s].scratch_offset;
}
