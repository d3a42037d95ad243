/* Kahn's algorithm with a min-heap of ready nodes keyed by file index: the
 * order is a valid schedule and, among valid schedules, the one closest to
 * the file's (an already sorted file keeps its order exactly). */
#include "core/onnx/reader.h"

typedef struct min_heap {
    int32_t *a;
    int32_t n;
} min_heap;

static void heap_push(min_heap *h, int32_t v)
{
    int32_t i = h->n++;
    while (i > 0 && h->a[(i - 1) / 2] > v) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = v;
}

static int32_t heap_pop(min_heap *h)
{
    int32_t top = h->a[0], last = h->a[--h->n], i = 0;
    for (;;) {
        int32_t l = 2 * i + 1, m = l;
        if (l >= h->n)
            break;
        if (l + 1 < h->n && h->a[l + 1] < h->a[l])
            m = l + 1;
        if (h->a[m] >= last)
            break;
        h->a[i] = h->a[m];
        i = m;
    }
    if (h->n > 0)
        h->a[i] = last;
    return top;
}

/* Called when some nodes never became ready. Every such node still waits on
 * an unscheduled producer, so walking producers n steps from any of them
 * must end on a cycle; that node is named. */
static int report_cycle(kn_onnx_ctx *c, const kn_node *nodes, int32_t n,
                        const int32_t *dep_start, const int32_t *deps, const int32_t *indeg)
{
    int32_t cur = 0;
    while (cur < n && indeg[cur] == 0)
        cur++;
    for (int32_t step = 0; step < n && cur < n; step++) {
        int32_t next = -1;
        for (int32_t d = dep_start[cur]; d < dep_start[cur + 1] && next < 0; d++)
            if (indeg[deps[d]] > 0)
                next = deps[d];
        if (next < 0)
            break; /* cannot happen; keep the current node */
        cur = next;
    }
    if (cur >= n)
        cur = 0;
    return kn_fail(c->err, KN_ERR_INVALID_MODEL, "graph has a cycle through node '%s' (%s)",
                   nodes[cur].name, nodes[cur].op_type);
}

int kn_onnx_topo_sort(kn_onnx_ctx *c, const kn_node *nodes, int32_t n, const int32_t *dep_start,
                      const int32_t *deps, int32_t *order)
{
    if (n == 0)
        return KN_OK;
    int32_t m = dep_start[n];
    int32_t *indeg = kn_onnx_alloc(c, c->tmp, (size_t)n, sizeof(int32_t), "sort");
    int32_t *cstart = kn_onnx_alloc(c, c->tmp, (size_t)n + 1, sizeof(int32_t), "sort");
    int32_t *cons = kn_onnx_alloc(c, c->tmp, (size_t)m + 1, sizeof(int32_t), "sort");
    int32_t *fill = kn_onnx_alloc(c, c->tmp, (size_t)n, sizeof(int32_t), "sort");
    min_heap heap = {kn_onnx_alloc(c, c->tmp, (size_t)n, sizeof(int32_t), "sort"), 0};
    if (!indeg || !cstart || !cons || !fill || !heap.a)
        return c->err->code;

    /* Consumers of each node, as a CSR built from the dependency lists. */
    for (int32_t i = 0; i < n; i++) {
        indeg[i] = dep_start[i + 1] - dep_start[i];
        for (int32_t d = dep_start[i]; d < dep_start[i + 1]; d++)
            cstart[deps[d] + 1]++;
    }
    for (int32_t i = 0; i < n; i++)
        cstart[i + 1] += cstart[i];
    for (int32_t i = 0; i < n; i++)
        for (int32_t d = dep_start[i]; d < dep_start[i + 1]; d++)
            cons[cstart[deps[d]] + fill[deps[d]]++] = i;

    for (int32_t i = 0; i < n; i++)
        if (indeg[i] == 0)
            heap_push(&heap, i);
    int32_t k = 0;
    while (heap.n > 0) {
        int32_t i = heap_pop(&heap);
        order[k++] = i;
        for (int32_t j = cstart[i]; j < cstart[i + 1]; j++)
            if (--indeg[cons[j]] == 0)
                heap_push(&heap, cons[j]);
    }
    if (k < n)
        return report_cycle(c, nodes, n, dep_start, deps, indeg);
    return KN_OK;
}
