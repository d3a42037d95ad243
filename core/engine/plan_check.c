/* The invariants of a finished plan's memory: every arena tensor and every
 * scratch buffer lies inside the arena, and no two of them that are alive at
 * the same step share a byte. Lifetimes are recomputed here from the steps
 * alone (not taken from the layout code), so a layout bug cannot hide behind
 * its own bookkeeping. Quadratic in the buffers: debug builds run it on
 * every plan (kn_plan_build), release builds never. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/engine/plan.h"

typedef struct span {
    int64_t begin, end;   /* bytes [begin, end) from the arena's start */
    int32_t first, last;  /* steps alive, inclusive */
    int32_t value;        /* root value, or -1 - step for a scratch buffer */
} span;

static void widen(span *s, int32_t step)
{
    if (step < s->first)
        s->first = step;
    if (step > s->last)
        s->last = step;
}

static const char *span_name(const kn_plan *p, const span *s, char *buf, size_t cap)
{
    if (s->value >= 0)
        return p->model->graph->values[s->value].name;
    snprintf(buf, cap, "scratch of step %d", (int)(-1 - s->value));
    return buf;
}

int kn_plan_check(const kn_plan *p, kn_err *err)
{
    const kn_graph *g = p->model->graph;
    size_t nv = p->n_values ? (size_t)p->n_values : 1;
    int32_t *slot = malloc(nv * sizeof *slot); /* root value -> its span */
    span *spans = malloc((nv + (size_t)p->n_steps + 1) * sizeof *spans);
    if (!slot || !spans) {
        free(slot);
        free(spans);
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory checking the plan");
    }
    int32_t n = 0;
    for (int32_t v = 0; v < p->n_values; v++) {
        slot[v] = -1;
        if (p->kind[v] != KN_VAL_ARENA || p->root[v] != v || kn_tensor_nbytes(&p->vals[v]) <= 0)
            continue;
        slot[v] = n;
        spans[n++] = (span){p->offset[v], p->offset[v] + kn_tensor_nbytes(&p->vals[v]), INT32_MAX,
                            -1, v};
    }
    for (int32_t s = 0; s < p->n_steps; s++) {
        const kn_kctx *k = &p->steps[s].k;
        /* the tensors the step really touches: a device step's slots point
         * at device tensors (plan_device.c), whose host values it never
         * reads or writes, so its node's value list would overstate */
        for (int32_t j = 0; j < k->n_in + k->n_out; j++) {
            const kn_tensor *t = j < k->n_in ? k->in[j] : k->out[j - k->n_in];
            if (!t || t < p->vals || t >= p->vals + p->n_values)
                continue;
            int32_t v = (int32_t)(t - p->vals);
            if (slot[p->root[v]] >= 0)
                widen(&spans[slot[p->root[v]]], s);
        }
        if (k->scratch_bytes && !kn_step_on_device(&p->steps[s])) {
            int64_t at = p->steps[s].scratch_offset;
            spans[n++] = (span){at, at + (int64_t)k->scratch_bytes, s, s, -1 - s};
        }
    }
    for (int32_t i = 0; i < g->n_outputs; i++) {
        int32_t v = g->outputs[i];
        if (slot[p->root[v]] >= 0)
            widen(&spans[slot[p->root[v]]], p->n_steps);
    }
    int rc = KN_OK;
    char a[48], b[48];
    for (int32_t i = 0; rc == KN_OK && i < n; i++) {
        if (spans[i].begin < 0 || spans[i].end > p->arena_bytes)
            rc = kn_fail(err, KN_ERR_INTERNAL, "plan: '%s' lies at bytes %lld..%lld of a "
                         "%lld-byte arena", span_name(p, &spans[i], a, sizeof a),
                         (long long)spans[i].begin, (long long)spans[i].end,
                         (long long)p->arena_bytes);
        for (int32_t j = i + 1; rc == KN_OK && j < n; j++) {
            const span *x = &spans[i], *y = &spans[j];
            int same_time = x->first <= y->last && y->first <= x->last;
            int same_bytes = x->begin < y->end && y->begin < x->end;
            if (same_time && same_bytes)
                rc = kn_fail(err, KN_ERR_INTERNAL, "plan: '%s' and '%s' are alive together "
                             "(steps %d..%d and %d..%d) and share arena bytes",
                             span_name(p, x, a, sizeof a), span_name(p, y, b, sizeof b),
                             (int)x->first, (int)x->last, (int)y->first, (int)y->last);
        }
    }
    free(slot);
    free(spans);
    return rc;
}
