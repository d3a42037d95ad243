/* The executor: runs a finished plan's steps in order. Everything it
 * touches was placed when the plan was built, so a run allocates nothing;
 * it checks for cancellation between steps and, when profiling, times
 * each step; a tap (calibration) sees each step's outputs. */
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "core/base/clock.h"
#include "core/engine/plan.h"


int kn_plan_execute(kn_plan *p, const atomic_uint_fast64_t *cancel_target, uint64_t run_id,
                    kn_err *err)
{
    if (p->step_ns)
        p->profile_runs++;
    for (int32_t s = 0; s < p->n_steps; s++) {
        if (cancel_target && atomic_load_explicit(cancel_target, memory_order_relaxed) == run_id)
            return kn_fail(err, KN_ERR_CANCELLED, "run cancelled");
        kn_step *st = &p->steps[s];
        st->k.err = err;
        int64_t t0 = p->step_ns ? kn_now_ns() : 0;
        int rc = st->def->run(&st->k);
        if (p->step_ns)
            p->step_ns[s] += kn_now_ns() - t0;
        if (rc != KN_OK) {
            if (err->code == KN_OK)
                kn_fail(err, rc, "kernel failed without a message");
            kn_err_prefix(err, "node '%s' (%s)", st->k.node->name, st->k.node->op_type);
            return rc;
        }
        const kn_tap *tap = p->options.tap;
        if (tap && (rc = tap->fn(tap->ctx, p, &st->k, err)) != KN_OK)
            return rc;
    }
    return KN_OK;
}
