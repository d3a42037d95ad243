/* Step profiling: what each executed step of the current plan cost. */
#include <stdio.h>

#include "api_internal.h"

/* Finds the plan's step `index` (and its plan), or records why not. */
static int32_t profiled_step(const kiln_session *s, int32_t index, const kn_step **step,
                             const kn_plan **plan)
{
    KILN_CHECK_ARG(s, "session is NULL");
    const kn_plan *p = kn_session_plan(s->core);
    if (!p || !p->step_ns)
        return kiln_fail(KILN_ERR_STATE, "no profile: create the session with KILN_OPT_PROFILE = 1");
    int32_t n = 0;
    const kn_step *steps = kn_plan_profiled_steps(p, &n);
    if (index < 0 || index >= n)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "profile step %d out of range (0..%d)",
                         (int)index, (int)n - 1);
    *step = &steps[index];
    if (plan)
        *plan = p;
    return KILN_OK;
}

int32_t kiln_session_profile_count(const kiln_session *s, int32_t *count)
{
    KILN_CHECK_ARG(count, "count is NULL");
    KILN_CHECK_ARG(s, "session is NULL");
    const kn_plan *p = kn_session_plan(s->core);
    if (!p || !p->step_ns)
        return kiln_fail(KILN_ERR_STATE, "no profile: create the session with KILN_OPT_PROFILE = 1");
    kn_plan_profiled_steps(p, count);
    return KILN_OK;
}

int32_t kiln_session_profile_name(const kiln_session *s, int32_t index, char *buf, int32_t cap,
                                  int32_t *needed)
{
    const kn_step *st = NULL;
    const kn_plan *p = NULL;
    int32_t rc = profiled_step(s, index, &st, &p);
    if (rc != KILN_OK)
        return rc;
    /* replays of a captured device graph time the whole run on its last
     * step (core/engine/plan_graph.c); a plan the option could not capture
     * says why on that step */
    kn_plan_graph_info gi = kn_plan_graph_status(p);
    if ((gi.replays > 0 || gi.plain_reason) && index == p->n_steps - 1) {
        char name[800];
        if (gi.replays > 0)
            snprintf(name, sizeof name, "graph replay (%d steps)", (int)gi.steps);
        else
            snprintf(name, sizeof name, "%.100s (no device graph: %.600s)", st->k.node->name,
                     gi.plain_reason);
        return kiln_copy_string(name, buf, cap, needed);
    }
    return kiln_copy_string(st->k.node->name, buf, cap, needed);
}

int32_t kiln_session_profile_op(const kiln_session *s, int32_t index, char *buf, int32_t cap,
                                int32_t *needed)
{
    const kn_step *st = NULL;
    int32_t rc = profiled_step(s, index, &st, NULL);
    return rc != KILN_OK ? rc : kiln_copy_string(st->k.node->op_type, buf, cap, needed);
}

int32_t kiln_session_profile_kernel(const kiln_session *s, int32_t index, char *buf, int32_t cap,
                                    int32_t *needed)
{
    const kn_step *st = NULL;
    int32_t rc = profiled_step(s, index, &st, NULL);
    return rc != KILN_OK ? rc : kiln_copy_string(st->backend->name, buf, cap, needed);
}

int32_t kiln_session_profile_time(const kiln_session *s, int32_t index, int64_t *total_ns,
                                  int64_t *runs)
{
    KILN_CHECK_ARG(total_ns && runs, "total_ns or runs is NULL");
    const kn_plan *p = NULL;
    const kn_step *st = NULL;
    int32_t rc = profiled_step(s, index, &st, &p);
    if (rc != KILN_OK)
        return rc;
    *total_ns = p->step_ns[index];
    *runs = p->profile_runs;
    return KILN_OK;
}

int32_t kiln_session_profile_reset(kiln_session *s)
{
    KILN_CHECK_ARG(s, "session is NULL");
    kn_session_profile_reset(s->core);
    return KILN_OK;
}
