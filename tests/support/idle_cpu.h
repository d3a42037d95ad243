/* How much CPU the process burns while the caller sleeps for one second:
 * the check that pools and OpenMP teams go quiet after runs. */
#ifndef KILN_TEST_IDLE_CPU_H
#define KILN_TEST_IDLE_CPU_H

#include <sys/resource.h>
#include <time.h>

static inline double kt_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* CPU seconds used by every thread of the process during one second of
 * the caller's sleep. */
static inline double kt_idle_cpu_over_one_second(void)
{
    double before = kt_cpu_seconds();
    struct timespec one_second = {1, 0};
    nanosleep(&one_second, NULL);
    return kt_cpu_seconds() - before;
}

#endif
