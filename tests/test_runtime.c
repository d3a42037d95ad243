/* Runtime promises: steady-state runs allocate nothing, idle workers use no
 * CPU, threads=1 starts no thread, work splits into equal pieces and
 * back-to-back jobs run each index once, cancel
 * stops a run, sessions of one model run concurrently. */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api_helpers.h"
#include "core/base/thread_pool.h"

#include "alloc_count.h"
#include "idle_cpu.h"

static void fill(float *x, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (float)((seed >> 8) & 0xffff) / 65536.0f;
    }
}

/* Runs the digits CNN with a fixed input; returns the session. */
static kiln_session *digits_session(kiln_model *m, float *x)
{
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    const int64_t dims[4] = {1, 1, 8, 8};
    KT_OK(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, dims, 4, x, 64 * sizeof(float), 0));
    return s;
}

static void zero_alloc_with_threads(int32_t threads)
{
#if !KT_CAN_COUNT_ALLOCS
    (void)threads;
    cr_skip_test("allocation counting is impossible under AddressSanitizer (it owns malloc)");
#else
    kiln_runtime *rt = kt_runtime(threads);
    kiln_model *m = kt_model(rt, "examples/digits/digits.onnx");
    float x[64];
    fill(x, 64, 1);
    kiln_session *s = digits_session(m, x);
    KT_OK(kiln_session_run(s)); /* first run plans (the batch dim is dynamic) */
    float first[10], again[10];
    KT_OK(kiln_session_output_copy(s, 0, first, sizeof first, NULL));
    atomic_store(&alloc_calls, 0);
    atomic_store(&counting, 1);
    for (int i = 0; i < 50; i++) {
        int32_t rc = kiln_session_run(s);
        if (rc != KILN_OK)
            break;
    }
    atomic_store(&counting, 0);
    long calls = atomic_load(&alloc_calls);
    KT_OK(kiln_session_output_copy(s, 0, again, sizeof again, NULL));
    cr_assert_eq(memcmp(first, again, sizeof first), 0, "runs are deterministic");
    cr_assert_eq(calls, 0, "%ld heap allocations in 50 steady-state runs (threads=%d)", calls,
                 (int)threads);
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
#endif
}

Test(runtime, steady_state_runs_allocate_nothing_1_thread) { zero_alloc_with_threads(1); }
Test(runtime, steady_state_runs_allocate_nothing_3_threads) { zero_alloc_with_threads(3); }

static int count_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* pthread_join returns when the kernel clears the thread's tid, which is a
 * moment before it drops the thread from /proc/self/task: a count taken
 * right after the join can still see a joined worker. Wait up to a second
 * for the count to settle at `want`. */
static int count_threads_settled(int want)
{
    int n = count_threads();
    for (int i = 0; i < 1000 && n != want; i++) {
        usleep(1000);
        n = count_threads();
    }
    return n;
}

Test(runtime, idle_workers_burn_no_cpu)
{
    kiln_runtime *rt = kt_runtime(4);
    kiln_model *m = kt_model(rt, "examples/digits/digits.onnx");
    float x[64];
    fill(x, 64, 2);
    kiln_session *s = digits_session(m, x);
    for (int i = 0; i < 20; i++)
        KT_OK(kiln_session_run(s));
    double used = kt_idle_cpu_over_one_second();
    fprintf(stderr, "idle CPU over 1 s with 3 idle workers: %.4f s\n", used);
    cr_assert_lt(used, 0.02, "idle pool used %.3f s of CPU in one second", used);
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(runtime, one_thread_means_the_callers_thread)
{
    int before = count_threads();
    kiln_runtime *rt = kt_runtime(1);
    cr_assert_eq(count_threads(), before, "threads=1 started a thread");
    kiln_runtime_destroy(rt);
    rt = kt_runtime(3);
    cr_assert_eq(count_threads(), before + 2, "threads=3 starts two workers");
    kiln_runtime_destroy(rt);
    int after = count_threads_settled(before);
    cr_assert_eq(after, before, "workers are joined on destroy (%d threads left, %d before)", after,
                 before);
}

/* kn_parallel_for's pieces: every index once, and equal sizes (the last
 * short by less than one index per piece), also when the grain leaves only
 * a few pieces. */
typedef struct pieces {
    pthread_mutex_t lock;
    int64_t smallest, largest, covered, count;
    unsigned char seen[10000];
} pieces;

static void note_piece(void *ctx, int64_t begin, int64_t end)
{
    pieces *p = ctx;
    pthread_mutex_lock(&p->lock);
    p->smallest = end - begin < p->smallest ? end - begin : p->smallest;
    p->largest = end - begin > p->largest ? end - begin : p->largest;
    for (int64_t i = begin; i < end; i++)
        p->seen[i]++;
    p->covered += end - begin;
    p->count++;
    pthread_mutex_unlock(&p->lock);
}

static void check_pieces(kn_threadpool *pool, int64_t n, int64_t grain, int64_t want_largest)
{
    pieces p = {.lock = PTHREAD_MUTEX_INITIALIZER, .smallest = n};
    kn_parallel_for(pool, n, grain, note_piece, &p);
    cr_assert_eq(p.covered, n, "n %lld grain %lld", (long long)n, (long long)grain);
    for (int64_t i = 0; i < n; i++)
        cr_assert_eq(p.seen[i], 1, "index %lld ran %d times", (long long)i, p.seen[i]);
    cr_assert_lt(p.largest - p.smallest, p.count, "pieces %lld..%lld for n %lld grain %lld",
                  (long long)p.smallest, (long long)p.largest, (long long)n, (long long)grain);
    cr_assert_eq(p.largest, want_largest, "n %lld grain %lld", (long long)n, (long long)grain);
}

Test(runtime, parallel_for_pieces_are_equal)
{
    kn_threadpool *pool = kn_threadpool_create(2);
    cr_assert_not_null(pool);
    check_pieces(pool, 1000, 832, 500); /* not 832 + 168 */
    check_pieces(pool, 1000, 300, 250); /* not 300 + 300 + 300 + 100 */
    check_pieces(pool, 10000, 1, 1250); /* four per thread */
    check_pieces(pool, 1001, 10, 126);
    check_pieces(pool, 800, 800, 800); /* no more than the grain: one piece */
    kn_threadpool_destroy(pool);
}

/* Back-to-back small jobs, as a model run issues them: a worker that
 * wakes late must find its generation's pieces gone and run nothing, and
 * every index of every job runs exactly once, also when two callers share
 * the pool (one of them then runs its job alone) and a piece starts a
 * nested loop (which runs inline). */
typedef struct counted_job {
    atomic_int hits[64];
    kn_threadpool *pool; /* for the nested loop, or NULL */
} counted_job;

static void count_indices(void *ctx, int64_t begin, int64_t end)
{
    counted_job *j = ctx;
    for (int64_t i = begin; i < end; i++)
        atomic_fetch_add(&j->hits[i], 1);
}

static void count_with_nested(void *ctx, int64_t begin, int64_t end)
{
    counted_job *j = ctx;
    count_indices(ctx, begin, end);
    counted_job inner = {0};
    kn_parallel_for(j->pool, 8, 1, count_indices, &inner);
    for (int i = 0; i < 8; i++)
        if (atomic_load(&inner.hits[i]) != 1)
            atomic_fetch_add(&j->hits[63], 1000); /* shows up as a failure */
}

typedef struct job_stream {
    kn_threadpool *pool;
    int failures;
    unsigned seed;
} job_stream;

static void *run_job_stream(void *arg)
{
    job_stream *s = arg;
    for (int k = 0; k < 20000; k++) {
        s->seed = s->seed * 1103515245u + 12345u;
        int64_t n = 1 + (s->seed >> 8) % 62; /* index 63 stays the nested loop's alarm */
        int nested = k % 97 == 0;
        counted_job j = {.pool = nested ? s->pool : NULL};
        kn_parallel_for(s->pool, n, 1 + (int64_t)(s->seed >> 20) % 3,
                        nested ? count_with_nested : count_indices, &j);
        for (int64_t i = 0; i < 64; i++)
            if (atomic_load(&j.hits[i]) != (i < n ? 1 : 0))
                s->failures++;
    }
    return NULL;
}

Test(runtime, parallel_for_back_to_back_jobs_run_every_index_once)
{
    kn_threadpool *pool = kn_threadpool_create(3);
    cr_assert_not_null(pool);
    job_stream alone = {.pool = pool, .seed = 1};
    run_job_stream(&alone);
    cr_assert_eq(alone.failures, 0, "%d wrong counts with one caller", alone.failures);

    job_stream two[2] = {{.pool = pool, .seed = 2}, {.pool = pool, .seed = 3}};
    pthread_t other;
    cr_assert_eq(pthread_create(&other, NULL, run_job_stream, &two[1]), 0);
    run_job_stream(&two[0]);
    pthread_join(other, NULL);
    cr_assert_eq(two[0].failures + two[1].failures, 0, "%d and %d wrong counts with two callers",
                 two[0].failures, two[1].failures);
    kn_threadpool_destroy(pool);
}

typedef struct shared_run {
    kiln_model *model;
    const float *x;
    const float *expect;
    int failures;
} shared_run;

static void *run_many(void *arg)
{
    shared_run *r = arg;
    kiln_session *s = NULL;
    if (kiln_session_create(r->model, NULL, &s) != KILN_OK) {
        r->failures++;
        return NULL;
    }
    const int64_t dims[4] = {1, 1, 8, 8};
    for (int i = 0; i < 200; i++) {
        float y[10];
        if (kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, dims, 4, r->x, 256, 0) != KILN_OK ||
            kiln_session_run(s) != KILN_OK ||
            kiln_session_output_copy(s, 0, y, sizeof y, NULL) != KILN_OK ||
            memcmp(y, r->expect, sizeof y) != 0)
            r->failures++;
    }
    kiln_session_destroy(s);
    return NULL;
}

Test(runtime, sessions_of_one_model_run_concurrently)
{
    kiln_runtime *rt = kt_runtime(2);
    kiln_model *m = kt_model(rt, "examples/digits/digits.onnx");
    float x[64], expect[10];
    fill(x, 64, 3);
    kiln_session *s = digits_session(m, x);
    KT_OK(kiln_session_run(s));
    KT_OK(kiln_session_output_copy(s, 0, expect, sizeof expect, NULL));
    kiln_session_destroy(s);
    enum { N = 8 };
    pthread_t th[N];
    shared_run runs[N];
    for (int i = 0; i < N; i++) {
        runs[i] = (shared_run){m, x, expect, 0};
        pthread_create(&th[i], NULL, run_many, &runs[i]);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        cr_assert_eq(runs[i].failures, 0, "thread %d had %d wrong or failed runs", i,
                     runs[i].failures);
    }
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

typedef struct cancel_ctx {
    kiln_session *s;
    atomic_int stop;
} cancel_ctx;

static void *keep_cancelling(void *arg)
{
    cancel_ctx *c = arg;
    /* A pause between cancels keeps this thread from starving the run
     * (valgrind runs one thread at a time). */
    struct timespec pause = {0, 1000000};
    while (!atomic_load(&c->stop)) {
        kiln_session_cancel(c->s);
        nanosleep(&pause, NULL);
    }
    return NULL;
}

Test(runtime, cancel_stops_runs_and_later_runs_work)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, "examples/digits/digits.onnx");
    float x[64];
    fill(x, 64, 4);
    kiln_session *s = digits_session(m, x);
    KT_OK(kiln_session_run(s));
    cancel_ctx c = {.s = s};
    atomic_init(&c.stop, 0);
    pthread_t th;
    pthread_create(&th, NULL, keep_cancelling, &c);
    int cancelled = 0;
    /* Runs go back to back while the other thread cancels every
     * millisecond, so one lands in a run within a few milliseconds. */
    for (int i = 0; i < 200000 && cancelled == 0; i++) {
        int32_t rc = kiln_session_run(s);
        cr_assert(rc == KILN_OK || rc == KILN_ERR_CANCELLED, "run returned %d", (int)rc);
        cancelled += rc == KILN_ERR_CANCELLED;
    }
    atomic_store(&c.stop, 1);
    pthread_join(th, NULL);
    cr_assert_gt(cancelled, 0, "a cancel from another thread stopped a run");
    KT_OK(kiln_session_run(s)); /* not affected by earlier cancels */
    KT_OK(kiln_session_cancel(s)); /* no run in flight: nothing to stop */
    KT_OK(kiln_session_run(s));
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}
