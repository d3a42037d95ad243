#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#define _GNU_SOURCE /* sched_getcpu, sched_setaffinity, cpu_set_t */
#define KN_CPU_PLACE_LINUX 1
#endif

#include "core/base/cpu_place.h"

#include <stdatomic.h>

#if KN_CPU_PLACE_LINUX
#include <sched.h>
#endif

int kn_cpu_current(void)
{
#if KN_CPU_PLACE_LINUX
    return sched_getcpu();
#else
    return -1;
#endif
}

int kn_cpu_move_to_free(_Atomic uint64_t *taken)
{
#if KN_CPU_PLACE_LINUX
    cpu_set_t mine;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        return -1;
    for (int cpu = 0; cpu < 64 && cpu < CPU_SETSIZE; cpu++) {
        uint64_t bit = (uint64_t)1 << cpu;
        if (!CPU_ISSET(cpu, &mine) || (atomic_fetch_or(taken, bit) & bit))
            continue;
        /* a mask of that one CPU migrates the thread before the call
         * returns; the whole mask back leaves it there, where nothing
         * else of the team runs, and lets the scheduler move it later */
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            return -1;
        sched_setaffinity(0, sizeof mine, &mine);
        return cpu;
    }
    return -1;
#else
    (void)taken;
    return -1;
#endif
}
