/* The arena planner: disjoint placement of overlapping lifetimes, reuse of
 * memory across non-overlapping ones, and closeness to the lower bound. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "core/engine/memplan.h"

static int overlaps(const kn_buffer_req *a, const kn_buffer_req *b)
{
    int time = a->first <= b->last && b->first <= a->last;
    int space = a->offset < b->offset + b->size && b->offset < a->offset + a->size;
    return time && space && a->size > 0 && b->size > 0;
}

Test(memplan, chain_reuses_memory)
{
    /* A chain: each buffer lives from its producer to its consumer. */
    kn_buffer_req r[6];
    for (int i = 0; i < 6; i++)
        r[i] = (kn_buffer_req){1000, i, i + 1, -1};
    int64_t peak = kn_memplan_assign(r, 6);
    /* Two buffers alive at once, each rounded up to 1024. */
    cr_assert_eq(peak, 2048);
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            cr_assert(!overlaps(&r[i], &r[j]), "buffers %d and %d collide", i, j);
    cr_assert_eq(kn_memplan_lower_bound(r, 6), 2048);
}

Test(memplan, alignment_and_zero_sizes)
{
    kn_buffer_req r[3] = {{1, 0, 2, -1}, {0, 0, 2, -1}, {65, 0, 2, -1}};
    int64_t peak = kn_memplan_assign(r, 3);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(r[i].offset % KN_ARENA_ALIGN, 0);
    cr_assert_eq(peak, 64 + 128);
}

Test(memplan, random_lifetimes_never_collide)
{
    srand(12345);
    enum { N = 300 };
    kn_buffer_req r[N];
    for (int trial = 0; trial < 20; trial++) {
        for (int i = 0; i < N; i++) {
            int first = rand() % 100;
            r[i] = (kn_buffer_req){1 + rand() % 100000, first, first + rand() % 10, -1};
        }
        int64_t peak = kn_memplan_assign(r, N);
        int64_t bound = kn_memplan_lower_bound(r, N);
        cr_assert_geq(peak, bound);
        /* Greedy best-fit stays within 1.5x of the bound on such inputs. */
        cr_assert_leq(peak, bound * 3 / 2, "peak %lld vs bound %lld", (long long)peak,
                      (long long)bound);
        for (int i = 0; i < N; i++) {
            cr_assert_leq(r[i].offset + r[i].size, peak);
            for (int j = i + 1; j < N; j++)
                cr_assert(!overlaps(&r[i], &r[j]), "trial %d: %d and %d collide", trial, i, j);
        }
    }
}
