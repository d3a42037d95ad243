/* Fork-join thread pool. A job is published as one atomic word: its
 * generation, its number of pieces and the next piece to take. Sleeping
 * workers wake on a condition variable, take pieces from that word
 * together with the caller, and go back to sleep. Nothing allocates per
 * job.
 *
 * The caller waits for the pieces to be finished, not for the workers to
 * check in: a worker that wakes after the caller has taken every piece
 * finds the job's word exhausted (or moved on to the next generation) and
 * does nothing. Waiting for every worker to wake, as an earlier version
 * did, made each parallel loop last at least one wake-up, and a wake-up
 * of a web worker (Atomics.wait / notify) or of a thread the OS has
 * descheduled on a busy machine can take longer than the loop's work.
 *
 * Between jobs a worker (and the caller waiting for pieces) first watches
 * the word for a moment (KN_POOL_SPIN_US) before sleeping: a model run is
 * a stream of short jobs a few microseconds apart, and a wake-up through
 * the condition variable costs tens of microseconds natively and more in
 * a browser. An idle pool still sleeps: the watch ends after the last job
 * of a run. When a team runner is installed (kn_threadpool_use_team:
 * OpenMP, once oneDNN is loaded), the same pieces run on its threads
 * instead and the workers stay asleep. */
#include "core/base/thread_pool.h"

#include "core/base/cpu_place.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#define KN_POOL_SPIN_US 50
/* kn_threadpool_spread looks at most this often: a stacked team stays
 * stacked for seconds, and a model run of microseconds would otherwise pay
 * a fork per run (digits CNN, 2 threads: 13.7 -> 15.0 us) */
#define KN_SPREAD_EVERY_US 2000

/* The job word: generation (32 bits) | pieces (16) | next piece (16). */
#define JOB_GEN(w) ((uint32_t)((w) >> 32))
#define JOB_PIECES(w) ((uint32_t)(((w) >> 16) & 0xFFFF))
#define JOB_NEXT(w) ((uint32_t)((w)&0xFFFF))
#define JOB_MAX_PIECES 0xFFFF

struct kn_threadpool {
    int32_t threads;
    pthread_t *workers;
    pthread_mutex_t lock;
    pthread_cond_t wake;      /* workers wait here for a new generation */
    pthread_cond_t done;      /* the caller waits here for the last piece */
    pthread_mutex_t busy;     /* held by the session currently using the pool */
    _Atomic uint64_t job;     /* the job word; a new generation is stored under `lock` */
    atomic_int finished;      /* pieces of the current job done */
    atomic_int caller_asleep; /* the caller sleeps on `done`: the last piece signals */
    int stop;
    uint32_t generation;      /* the caller's, while it holds `busy` */
    double spread_us;         /* kn_threadpool_spread's last look */
    /* the current job: written before its word is published, read only by
     * whoever has taken one of its pieces (so never while being rewritten:
     * the next job is written only after every piece is finished) */
    kn_range_fn fn;
    void *ctx;
    int64_t n, chunk;
};

static void finish_piece(kn_threadpool *p, uint32_t pieces)
{
    if ((uint32_t)atomic_fetch_add(&p->finished, 1) + 1 != pieces)
        return;
    /* the last piece; the caller may already have moved on, in which case
     * the signal finds nobody or a caller that re-checks its own job */
    if (atomic_load(&p->caller_asleep)) {
        pthread_mutex_lock(&p->lock);
        pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->lock);
    }
}

/* Takes and runs pieces of generation `gen` until none are left. */
static void run_pieces(kn_threadpool *p, uint32_t gen)
{
    uint64_t w = atomic_load(&p->job);
    for (;;) {
        if (JOB_GEN(w) != gen || JOB_NEXT(w) >= JOB_PIECES(w))
            return;
        if (!atomic_compare_exchange_weak(&p->job, &w, w + 1))
            continue;
        /* piece JOB_NEXT(w) is ours: the job cannot finish (and its fields
         * cannot be rewritten) before we finish it */
        int64_t begin = (int64_t)JOB_NEXT(w) * p->chunk;
        int64_t end = begin + p->chunk < p->n ? begin + p->chunk : p->n;
        p->fn(p->ctx, begin, end);
        finish_piece(p, JOB_PIECES(w));
        w = atomic_load(&p->job);
    }
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* Watches for up to KN_POOL_SPIN_US for a generation other than `seen`:
 * returns whether one came. */
static int watch_for_job(kn_threadpool *p, uint32_t seen)
{
    double until = now_us() + KN_POOL_SPIN_US;
    for (int i = 1;; i++) {
        if (JOB_GEN(atomic_load_explicit(&p->job, memory_order_acquire)) != seen)
            return 1;
        if (i % 64 == 0 && now_us() > until)
            return 0;
    }
}

static int watch_for_finish(kn_threadpool *p, int pieces)
{
    double until = now_us() + KN_POOL_SPIN_US;
    for (int i = 1;; i++) {
        if (atomic_load_explicit(&p->finished, memory_order_acquire) == pieces)
            return 1;
        if (i % 64 == 0 && now_us() > until)
            return 0;
    }
}

static _Atomic(kn_team_runner) team_runner;

void kn_threadpool_use_team(kn_team_runner runner) { atomic_store(&team_runner, runner); }

static void team_body(void *arg)
{
    kn_threadpool *p = arg;
    run_pieces(p, JOB_GEN(atomic_load(&p->job)));
}

/* kn_threadpool_spread's job: the CPUs the team occupies, the caller's set
 * before the fork. */
typedef struct spread_job {
    pthread_t caller;
    _Atomic uint64_t taken;
} spread_job;

static void spread_body(void *arg)
{
    spread_job *j = arg;
    if (pthread_equal(pthread_self(), j->caller))
        return; /* the caller's thread is the application's: it stays */
    int cpu = kn_cpu_current();
    if (cpu < 0 || cpu >= 64)
        return;
    uint64_t bit = (uint64_t)1 << cpu;
    if (atomic_fetch_or(&j->taken, bit) & bit)
        kn_cpu_move_to_free(&j->taken); /* stacked on a CPU of the team */
}

void kn_threadpool_spread(kn_threadpool *p)
{
    kn_team_runner team = atomic_load(&team_runner);
    if (!p || p->threads == 1 || !team)
        return;
    if (pthread_mutex_trylock(&p->busy) != 0)
        return;
    double now = now_us();
    int cpu = now - p->spread_us >= KN_SPREAD_EVERY_US ? kn_cpu_current() : -1;
    if (cpu < 0 || cpu >= 64) {
        pthread_mutex_unlock(&p->busy);
        return;
    }
    spread_job j = {.caller = pthread_self()};
    atomic_init(&j.taken, (uint64_t)1 << cpu);
    team(spread_body, &j, (unsigned)p->threads, 0);
    p->spread_us = now_us(); /* from its end: the fork can outlast the interval */
    pthread_mutex_unlock(&p->busy);
}

static void *worker_main(void *arg)
{
    kn_threadpool *p = arg;
    uint32_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && JOB_GEN(atomic_load(&p->job)) == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop)
            break;
        seen = JOB_GEN(atomic_load(&p->job));
        pthread_mutex_unlock(&p->lock);
        run_pieces(p, seen);
        /* the next job usually follows within microseconds */
        watch_for_job(p, seen);
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
    atomic_init(&p->job, 0);
    atomic_init(&p->finished, 0);
    atomic_init(&p->caller_asleep, 0);
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
    if (chunk < (n + JOB_MAX_PIECES - 1) / JOB_MAX_PIECES)
        chunk = (n + JOB_MAX_PIECES - 1) / JOB_MAX_PIECES;
    /* then equal pieces: 1000 outputs with a grain of 832 would otherwise
     * split 832 + 168, and the second thread would idle most of the time */
    int64_t pieces = (n + chunk - 1) / chunk;
    chunk = (n + pieces - 1) / pieces;
    pieces = (n + chunk - 1) / chunk;

    /* the job fields are ours while `busy` is held and the previous job's
     * pieces are all finished */
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    p->chunk = chunk;
    atomic_store(&p->finished, 0);
    uint32_t gen = ++p->generation;
    if (gen == 0) /* 0 is what a fresh worker has seen */
        gen = ++p->generation;
    uint64_t word = (uint64_t)gen << 32 | (uint64_t)pieces << 16;

    kn_team_runner team = atomic_load(&team_runner);
    if (team) {
        /* The pool's own workers can still see the new generation while
         * watching after an earlier job and take pieces too, so the wait
         * below for every piece is needed on this path as well. */
        atomic_store(&p->job, word);
        team(team_body, p, (unsigned)p->threads, 0);
    } else {
        pthread_mutex_lock(&p->lock);
        atomic_store(&p->job, word);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
        run_pieces(p, gen);
    }

    if (!watch_for_finish(p, (int)pieces)) {
        pthread_mutex_lock(&p->lock);
        atomic_store(&p->caller_asleep, 1);
        while (atomic_load(&p->finished) < (int)pieces)
            pthread_cond_wait(&p->done, &p->lock);
        atomic_store(&p->caller_asleep, 0);
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_unlock(&p->busy);
}
