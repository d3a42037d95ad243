/* Which CPU a thread runs on, and moving it off one another thread of its
 * team already uses (core/base/thread_pool.c, kn_threadpool_spread). Where
 * the OS offers neither (WebAssembly, non-Linux), kn_cpu_current returns
 * -1 and nothing moves. */
#ifndef KN_CPU_PLACE_H
#define KN_CPU_PLACE_H

#include <stdint.h>

/* The CPU the calling thread is on now, or -1 when unknown. */
int kn_cpu_current(void);

/* Moves the calling thread to a CPU of its own affinity mask whose bit is
 * not yet set in *taken (CPUs 0-63; other threads of the team set theirs
 * there), sets that bit, then gives the thread back its whole mask so the
 * scheduler stays free to balance it later. Returns the new CPU, or -1
 * when every allowed CPU is taken or the OS cannot move threads. */
int kn_cpu_move_to_free(_Atomic uint64_t *taken);

#endif
