/* Fork-join thread pool. A job is published under a mutex with a
 * generation counter; sleeping workers wake on a condition variable, take
 * chunks from an atomic counter together with the caller, and go back to
 * sleep. Nothing allocates per job.
 *
 * Between jobs a worker (and the caller waiting for the workers) first
 * watches the counter for a moment (KN_POOL_SPIN_US) before sleeping:
 * a model run is a stream of short jobs a few microseconds apart, and a
 * wake-up through the condition variable costs tens of microseconds
 * natively and more in a browser (Atomics.wait / notify between web
 * workers), which on squeezenet in WebAssembly ate the whole gain of a
 * second thread. An idle pool still sleeps: the watch ends after the
 * last job of a run. When a team runner
 * is installed (kn_threadpool_use_team: OpenMP, once oneDNN is loaded),
 * the same chunks run on its threads instead and the workers stay asleep. */
#include "core/base/thread_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#define KN_POOL_SPIN_US 50

struct kn_threadpool {
    int32_t threads;
    pthread_t *workers;
    pthread_mutex_t lock;
    pthread_cond_t wake;      /* workers wait here for a new generation */
    pthread_cond_t done;      /* the caller waits here for workers to finish */
    pthread_mutex_t busy;     /* held by the session currently using the pool */
    _Atomic uint64_t generation; /* changed under `lock`; read without it while watching */
    atomic_int active;        /* workers still inside the current job */
    int stop;
    /* the current job */
    kn_range_fn fn;
    void *ctx;
    int64_t n, chunk;
    atomic_int_fast64_t next;
};

static void run_chunks(kn_threadpool *p)
{
    for (;;) {
        int64_t begin = atomic_fetch_add(&p->next, p->chunk);
        if (begin >= p->n)
            break;
        int64_t end = begin + p->chunk < p->n ? begin + p->chunk : p->n;
        p->fn(p->ctx, begin, end);
    }
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* Watches *flag for up to KN_POOL_SPIN_US until it differs from `from`
 * (generation) or reaches it (active == 0): returns whether it did. */
static int watch_for_change(const _Atomic uint64_t *flag, uint64_t from)
{
    double until = now_us() + KN_POOL_SPIN_US;
    for (int i = 1;; i++) {
        if (atomic_load_explicit(flag, memory_order_acquire) != from)
            return 1;
        if (i % 64 == 0 && now_us() > until)
            return 0;
    }
}

static int watch_for_zero(const atomic_int *count)
{
    double until = now_us() + KN_POOL_SPIN_US;
    for (int i = 1;; i++) {
        if (atomic_load_explicit(count, memory_order_acquire) == 0)
            return 1;
        if (i % 64 == 0 && now_us() > until)
            return 0;
    }
}

static _Atomic(kn_team_runner) team_runner;

void kn_threadpool_use_team(kn_team_runner runner) { atomic_store(&team_runner, runner); }

static void team_body(void *p) { run_chunks(p); }

static void *worker_main(void *arg)
{
    kn_threadpool *p = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && atomic_load(&p->generation) == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop)
            break;
        seen = atomic_load(&p->generation);
        pthread_mutex_unlock(&p->lock);
        run_chunks(p);
        pthread_mutex_lock(&p->lock);
        if (atomic_fetch_sub(&p->active, 1) == 1)
            pthread_cond_signal(&p->done);
        /* the next job usually follows within microseconds */
        pthread_mutex_unlock(&p->lock);
        watch_for_change(&p->generation, seen);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

kn_threadpool *kn_threadpool_create(int32_t threads)
{
    if (threads < 1)
        threads = 1;
    kn_threadpool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->threads = threads;
    pthread_mutex_init(&p->lock, NULL);
    pthread_mutex_init(&p->busy, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    atomic_init(&p->next, 0);
    if (threads > 1) {
        p->workers = calloc((size_t)threads - 1, sizeof(pthread_t));
        if (!p->workers) {
            kn_threadpool_destroy(p);
            return NULL;
        }
        for (int32_t i = 0; i < threads - 1; i++) {
            if (pthread_create(&p->workers[i], NULL, worker_main, p) != 0) {
                p->threads = i + 1; /* destroy joins only the started ones */
                kn_threadpool_destroy(p);
                return NULL;
            }
        }
    }
    return p;
}

void kn_threadpool_destroy(kn_threadpool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int32_t i = 0; p->workers && i < p->threads - 1; i++)
        pthread_join(p->workers[i], NULL);
    free(p->workers);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    pthread_mutex_destroy(&p->busy);
    free(p);
}

int32_t kn_threadpool_threads(const kn_threadpool *p) { return p ? p->threads : 1; }

void kn_parallel_for(kn_threadpool *p, int64_t n, int64_t grain, kn_range_fn fn, void *ctx)
{
    if (n <= 0)
        return;
    if (grain < 1)
        grain = 1;
    if (!p || p->threads == 1 || n <= grain || pthread_mutex_trylock(&p->busy) != 0) {
        fn(ctx, 0, n);
        return;
    }
    /* About four chunks per thread balances uneven work without making
     * chunks so small that the atomic counter dominates. */
    int64_t chunk = (n + (int64_t)p->threads * 4 - 1) / ((int64_t)p->threads * 4);
    if (chunk < grain)
        chunk = grain;
    /* then equal pieces: 1000 outputs with a grain of 832 would otherwise
     * split 832 + 168, and the second thread would idle most of the time */
    int64_t pieces = (n + chunk - 1) / chunk;
    chunk = (n + pieces - 1) / pieces;
    kn_team_runner team = atomic_load(&team_runner);
    if (team) {
        /* the job fields are ours while `busy` is held */
        p->fn = fn;
        p->ctx = ctx;
        p->n = n;
        p->chunk = chunk;
        atomic_store(&p->next, 0);
        team(team_body, p, (unsigned)p->threads, 0);
        pthread_mutex_unlock(&p->busy);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    p->chunk = chunk;
    atomic_store(&p->next, 0);
    atomic_store(&p->active, p->threads - 1);
    atomic_fetch_add(&p->generation, 1);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);

    run_chunks(p);

    if (!watch_for_zero(&p->active)) {
        pthread_mutex_lock(&p->lock);
        while (atomic_load(&p->active) > 0)
            pthread_cond_wait(&p->done, &p->lock);
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_unlock(&p->busy);
}
