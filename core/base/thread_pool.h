/* One thread pool per runtime, shared by its sessions. Workers sleep on a
 * condition variable between jobs: an idle pool burns no CPU. With one
 * thread (or a NULL pool) work runs on the caller's thread. */
#ifndef KN_THREAD_POOL_H
#define KN_THREAD_POOL_H

#include <stdint.h>

typedef struct kn_threadpool kn_threadpool;

/* Body of a parallel loop: handles indices [begin, end). */
typedef void (*kn_range_fn)(void *ctx, int64_t begin, int64_t end);

/* threads >= 1 counts the caller; threads - 1 workers are started. Returns
 * NULL when out of resources. */
kn_threadpool *kn_threadpool_create(int32_t threads);
void kn_threadpool_destroy(kn_threadpool *pool); /* NULL-safe; joins workers */
int32_t kn_threadpool_threads(const kn_threadpool *pool); /* 1 for NULL */

/* Runs fn over [0, n) split in contiguous ranges of at least `grain`
 * indices, using the caller and the workers; returns when all are done.
 * Never allocates. If another session is using the pool at the moment,
 * the caller runs the whole range itself rather than wait. */
void kn_parallel_for(kn_threadpool *pool, int64_t n, int64_t grain, kn_range_fn fn, void *ctx);

/* A fork-join runner that starts `threads` threads (the caller among them)
 * on body(data) and returns when all have: OpenMP's GOMP_parallel. Once
 * one is installed (the oneDNN loader does, with the OpenMP runtime oneDNN
 * itself runs on), every pool forks its loops on that runner instead of
 * waking its own workers, so Kiln's kernels and oneDNN's primitives share
 * one set of threads: alternating between two sets, each handing the
 * cores to the other, cost more than the work of many small steps. */
typedef void (*kn_team_runner)(void (*body)(void *), void *data, unsigned threads,
                               unsigned flags);
void kn_threadpool_use_team(kn_team_runner runner);

/* Called at the start of a run: when the team runner's threads share a
 * CPU with the caller or with each other while another CPU the process may
 * use is free of them, moves them apart (core/base/cpu_place.h). The
 * scheduler can leave a fork-join team stacked on one CPU: the threads
 * take turns there, never both runnable, so its balancer sees nothing to
 * move, and each wake-up after a sleep is placed beside the waker again.
 * At most one fork per 2 ms; nothing without a team runner, with one
 * thread, or where the OS cannot say or change where threads run. */
void kn_threadpool_spread(kn_threadpool *pool);

#endif
