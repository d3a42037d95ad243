#include "core/engine/memplan.h"

#include <stdlib.h>

static int64_t aligned(int64_t size)
{
    return (size + KN_ARENA_ALIGN - 1) / KN_ARENA_ALIGN * KN_ARENA_ALIGN;
}

static _Thread_local const kn_buffer_req *sort_base;

/* Larger first; ties by earlier start so placement is deterministic. */
static int by_size_desc(const void *a, const void *b)
{
    const kn_buffer_req *x = &sort_base[*(const int32_t *)a], *y = &sort_base[*(const int32_t *)b];
    if (x->size != y->size)
        return x->size < y->size ? 1 : -1;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return *(const int32_t *)a - *(const int32_t *)b;
}

static int by_offset(const void *a, const void *b)
{
    const kn_buffer_req *x = &sort_base[*(const int32_t *)a], *y = &sort_base[*(const int32_t *)b];
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

int64_t kn_memplan_assign(kn_buffer_req *reqs, int32_t n)
{
    if (n <= 0)
        return 0;
    int32_t *order = malloc(sizeof(int32_t) * (size_t)n);
    int32_t *placed = malloc(sizeof(int32_t) * (size_t)n);
    int32_t *live = malloc(sizeof(int32_t) * (size_t)n);
    if (!order || !placed || !live) {
        free(order);
        free(placed);
        free(live);
        return -1;
    }
    for (int32_t i = 0; i < n; i++)
        order[i] = i;
    /* qsort has no context argument in C11; the planner is never run
     * concurrently with itself on one thread, but sessions on different
     * threads may plan at once, so the base pointer is thread-local. */
    sort_base = reqs;
    qsort(order, (size_t)n, sizeof(int32_t), by_size_desc);

    int64_t peak = 0;
    int32_t n_placed = 0;
    for (int32_t oi = 0; oi < n; oi++) {
        kn_buffer_req *r = &reqs[order[oi]];
        int64_t size = aligned(r->size);
        r->offset = 0;
        if (size == 0)
            continue;
        /* Collect already placed buffers alive at the same time, by offset. */
        int32_t n_live = 0;
        for (int32_t j = 0; j < n_placed; j++) {
            const kn_buffer_req *p = &reqs[placed[j]];
            if (p->first <= r->last && r->first <= p->last)
                live[n_live++] = placed[j];
        }
        sort_base = reqs;
        qsort(live, (size_t)n_live, sizeof(int32_t), by_offset);
        /* Best fit: the smallest gap that holds the buffer, else the end. */
        int64_t best = -1, best_gap = INT64_MAX, cursor = 0;
        for (int32_t j = 0; j < n_live; j++) {
            const kn_buffer_req *p = &reqs[live[j]];
            if (p->offset > cursor) {
                int64_t gap = p->offset - cursor;
                if (gap >= size && gap < best_gap) {
                    best = cursor;
                    best_gap = gap;
                }
            }
            int64_t end = p->offset + aligned(p->size);
            if (end > cursor)
                cursor = end;
        }
        r->offset = best >= 0 ? best : cursor;
        if (r->offset + size > peak)
            peak = r->offset + size;
        placed[n_placed++] = order[oi];
    }
    free(order);
    free(placed);
    free(live);
    return peak;
}

int64_t kn_memplan_lower_bound(const kn_buffer_req *reqs, int32_t n)
{
    int32_t steps = 0;
    for (int32_t i = 0; i < n; i++)
        if (reqs[i].last + 1 > steps)
            steps = reqs[i].last + 1;
    int64_t best = 0;
    for (int32_t s = 0; s < steps; s++) {
        int64_t sum = 0;
        for (int32_t i = 0; i < n; i++)
            if (reqs[i].first <= s && s <= reqs[i].last)
                sum += aligned(reqs[i].size);
        if (sum > best)
            best = sum;
    }
    return best;
}
