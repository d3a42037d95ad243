/* A plan's references to the raw bytes of shared weights: a kernel that
 * reads a shared initializer in its file layout (anything but a kernel
 * that packs it) needs those bytes resident for as long as the plan lives.
 * Counted per value so the store sees one reference per plan. */
#include "core/engine/plan.h"

#include <stdlib.h>

#include "core/engine/weight_store.h"

/* Evictable values exist only in the root graph (the store is keyed by its
 * value indices); subgraph plans never hold any. */
static kn_weight_store *store_of(const kn_plan *p)
{
    return p->model == p->model->root ? p->model->root->weights : NULL;
}

static int needs_raw(const kn_plan *p, const kn_op_def *def)
{
    return def && !(def->flags & KN_OP_PACKS_WEIGHTS) && store_of(p);
}

int kn_plan_hold_raw(kn_plan *p, const kn_op_def *def, const kn_kctx *k, kn_err *err)
{
    if (!needs_raw(p, def))
        return KN_OK;
    kn_weight_store *ws = store_of(p);
    for (int32_t j = 0; j < k->n_in; j++) {
        int32_t v = k->node->inputs[j];
        if (!kn_weight_store_shares(ws, v))
            continue;
        if (!p->raw_holds && !(p->raw_holds = calloc((size_t)p->n_values, sizeof *p->raw_holds)))
            return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory planning");
        if (p->raw_holds[v] == 0) {
            int rc = kn_weight_store_acquire_raw(ws, v, kn_threadpool_threads(p->threads), err);
            if (rc != KN_OK)
                return rc;
        }
        p->raw_holds[v]++;
    }
    return KN_OK;
}

void kn_plan_drop_raw(kn_plan *p, const kn_op_def *def, const kn_kctx *k)
{
    if (!needs_raw(p, def) || !p->raw_holds)
        return;
    kn_weight_store *ws = store_of(p);
    for (int32_t j = 0; j < k->n_in; j++) {
        int32_t v = k->node->inputs[j];
        if (kn_weight_store_shares(ws, v) && p->raw_holds[v] > 0 && --p->raw_holds[v] == 0) {
            kn_weight_store_release_raw(ws, v);
            /* a timed candidate's weight: evicted before the next node's,
             * or tuning would hold every weight twice by the plan's end */
            kn_weight_store_evict_value(ws, v);
        }
    }
}

void kn_plan_evict_weights(const kn_plan *p)
{
    kn_weight_store_evict_unused(store_of(p));
}

void kn_plan_release_raw(kn_plan *p)
{
    kn_weight_store *ws = store_of(p);
    for (int32_t v = 0; ws && p->raw_holds && v < p->n_values; v++)
        if (p->raw_holds[v] > 0)
            kn_weight_store_release_raw(ws, v);
    free(p->raw_holds);
    p->raw_holds = NULL;
}
