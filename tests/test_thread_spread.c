/* Spreading a fork-join team over CPUs (core/base/cpu_place.c,
 * kn_threadpool_spread): a thread moved off a taken CPU lands on a free one
 * and keeps its whole affinity mask; a team thread stacked on the caller's
 * CPU is moved off it, and the caller's thread never moves. The team here
 * is a test double of OpenMP's GOMP_parallel built on pthreads. */
#if defined(__linux__)
#define _GNU_SOURCE /* sched_setaffinity, sched_getcpu, CPU_* */
#endif

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "api_helpers.h"
#include "core/base/cpu_place.h"
#include "core/base/thread_pool.h"

#if defined(__linux__)
#include <sched.h>

/* Two CPUs the process may use, or -1: a and b. */
static int two_cpus(int *a, int *b)
{
    cpu_set_t all;
    if (sched_getaffinity(0, sizeof all, &all) != 0)
        return -1;
    *a = *b = -1;
    for (int c = 0; c < 64; c++) {
        if (!CPU_ISSET(c, &all))
            continue;
        if (*a < 0)
            *a = c;
        else if (*b < 0)
            *b = c;
    }
    return *b >= 0 ? 0 : -1;
}

static void pin(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0, "cannot pin to CPU %d", cpu);
}

Test(thread_spread, move_to_free_leaves_the_taken_cpu_and_keeps_the_mask)
{
    int a, b;
    if (two_cpus(&a, &b) != 0)
        cr_skip_test("the process may use fewer than two CPUs");
    cpu_set_t before;
    cr_assert_eq(sched_getaffinity(0, sizeof before, &before), 0);
    pin(a);
    cr_assert_eq(sched_getcpu(), a);
    cr_assert_eq(sched_setaffinity(0, sizeof before, &before), 0);
    _Atomic uint64_t taken = (uint64_t)1 << a;
    int moved = kn_cpu_move_to_free(&taken);
    cr_assert_neq(moved, -1, "no free CPU found");
    cr_assert_neq(moved, a, "moved onto the taken CPU");
    cr_assert(atomic_load(&taken) & ((uint64_t)1 << moved), "the new CPU was not claimed");
    cpu_set_t after;
    cr_assert_eq(sched_getaffinity(0, sizeof after, &after), 0);
    cr_assert(CPU_EQUAL(&before, &after), "the thread's affinity mask was not given back");
}

Test(thread_spread, every_cpu_taken_moves_nothing)
{
    _Atomic uint64_t taken = ~(uint64_t)0;
    cr_assert_eq(kn_cpu_move_to_free(&taken), -1);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The team double: body on the caller and on one pthread that first puts
 * itself on the caller's CPU (then takes its whole mask back), as the
 * scheduler leaves a stacked team; after body it notes where it runs. */
typedef struct team_double {
    void (*body)(void *);
    void *data;
    int stack_on;
    int cpu_after;
    int calls;
    double ended_ms; /* when the last fork joined */
    cpu_set_t all;   /* the process's mask: a new thread inherits the pinned caller's */
} team_double;

static team_double td;

static void *double_worker(void *arg)
{
    (void)arg;
    pin(td.stack_on);
    sched_setaffinity(0, sizeof td.all, &td.all);
    td.body(td.data);
    td.cpu_after = sched_getcpu();
    return NULL;
}

static void double_runner(void (*body)(void *), void *data, unsigned threads, unsigned flags)
{
    (void)flags;
    cr_assert_eq(threads, 2u);
    td.body = body;
    td.data = data;
    td.stack_on = sched_getcpu();
    td.calls++;
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, double_worker, NULL), 0);
    body(data);
    pthread_join(t, NULL);
    td.ended_ms = now_ms();
}

Test(thread_spread, a_thread_stacked_on_the_callers_cpu_moves_off_it)
{
    int a, b;
    if (two_cpus(&a, &b) != 0)
        cr_skip_test("the process may use fewer than two CPUs");
    cpu_set_t before;
    cr_assert_eq(sched_getaffinity(0, sizeof before, &before), 0);
    td.all = before;
    kn_threadpool *pool = kn_threadpool_create(2);
    cr_assert_not_null(pool);
    kn_threadpool_use_team(double_runner);
    /* the caller stays on a for the test: only the team thread may move */
    pin(a);
    /* the double's worker starts on the caller's CPU each time; a
     * scheduler may move it back before it notes its CPU, so three tries */
    int apart = 0;
    for (int i = 0; i < 3 && !apart; i++) {
        if (i > 0)
            nanosleep(&(struct timespec){0, 3000000}, NULL); /* spread looks every 2 ms */
        kn_threadpool_spread(pool);
        apart = td.cpu_after != a;
    }
    cr_assert_eq(sched_getcpu(), a, "the caller's thread moved");
    cr_assert(td.calls >= 1, "spread did not fork the team");
    int calls = td.calls;
    double since = now_ms() - td.ended_ms;
    kn_threadpool_spread(pool);
    if (since < 1.5) /* well inside the 2 ms since the last look: nothing to do */
        cr_assert_eq(td.calls, calls, "spread forked again %.3f ms after the last", since);
    cr_assert(apart, "the team thread stayed on the caller's CPU %d", a);
    kn_threadpool_use_team(NULL);
    sched_setaffinity(0, sizeof before, &before);
    kn_threadpool_destroy(pool);
}

Test(thread_spread, no_team_or_one_thread_forks_nothing)
{
    kn_threadpool *one = kn_threadpool_create(1), *two = kn_threadpool_create(2);
    td.calls = 0;
    kn_threadpool_spread(two); /* no team runner installed */
    kn_threadpool_use_team(double_runner);
    kn_threadpool_spread(one);
    kn_threadpool_spread(NULL);
    kn_threadpool_use_team(NULL);
    cr_assert_eq(td.calls, 0);
    kn_threadpool_destroy(one);
    kn_threadpool_destroy(two);
}
#else
Test(thread_spread, linux_only)
{
    cr_skip_test("threads are placed on CPUs only where Linux says where they run");
}
#endif
