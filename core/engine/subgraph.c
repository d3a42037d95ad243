/* Running a subgraph on behalf of a control-flow kernel (If, Loop, Scan).
 * The body is planned eagerly with its inputs' values visible, under the
 * enclosing plan so outer-scope names resolve, and its outputs stay alive
 * until the kernel has copied them. */
#include <stdlib.h>

#include "core/engine/plan.h"

struct kn_subgraph_result {
    kn_plan *plan;
};

static int run_subgraph(void *engine, const kn_graph *g, const kn_tensor *const *inputs,
                        int32_t n_inputs, kn_subgraph_result **result, kn_err *err)
{
    const kn_plan *parent = engine;
    *result = NULL;
    const kn_model *sub = kn_model_subgraph(parent->model->root, g);
    if (!sub)
        return kn_fail(err, KN_ERR_INTERNAL, "subgraph '%s' was not validated at load",
                       g->name ? g->name : "");
    if (n_inputs != g->n_inputs)
        return kn_fail(err, KN_ERR_INVALID_MODEL, "subgraph '%s' declares %d inputs, %d given",
                       g->name ? g->name : "", (int)g->n_inputs, (int)n_inputs);
    kn_tensor *shapes = calloc(n_inputs ? (size_t)n_inputs : 1, sizeof *shapes);
    kn_subgraph_result *r = calloc(1, sizeof *r);
    if (!shapes || !r) {
        free(shapes);
        free(r);
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory running a subgraph");
    }
    for (int32_t i = 0; i < n_inputs; i++)
        shapes[i] = *inputs[i];
    kn_plan_options o = parent->options;
    o.eager = 1;
    o.parent = parent;
    o.shared_arena = 0; /* a subgraph's plan lives only for this call: its own arena */
    o.recycle = NULL;   /* the parent's memory is the parent's */
    int rc = kn_plan_build(sub, shapes, parent->threads, &o, &r->plan, err);
    free(shapes);
    if (rc != KN_OK) {
        free(r);
        return rc;
    }
    *result = r;
    return KN_OK;
}

static const kn_tensor *result_output(const kn_subgraph_result *r, int32_t index)
{
    const kn_graph *g = r->plan->model->graph;
    if (index < 0 || index >= g->n_outputs)
        return NULL;
    return &r->plan->vals[g->outputs[index]];
}

static void free_result(kn_subgraph_result *r)
{
    if (!r)
        return;
    kn_plan_destroy(r->plan);
    free(r);
}

static void *plan_alloc(void *engine, size_t bytes)
{
    kn_plan *p = engine;
    return kn_bump_alloc(p->bump, bytes ? bytes : 1);
}

const kn_engine_api kn_plan_engine_api = {.run_subgraph = run_subgraph,
                                          .result_output = result_output,
                                          .free_result = free_result,
                                          .alloc = plan_alloc,
                                          .tuned_choice = kn_plan_tuned_choice,
                                          .keep_tuned_choice = kn_plan_keep_tuned_choice};
