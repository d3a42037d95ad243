/* Thread CPU time per run of a model, one thread: what `kiln bench`'s wall
 * clock cannot give on a machine shared with other jobs, where a run's
 * latency moves by a factor of two with the load while the CPU time it
 * takes moves by a few percent. Two builds or two settings compared this
 * way, alternated, differ by what they compute, not by when they ran.
 *
 *   cpu_time MODEL [RUNS [bf16]]
 *
 * Inputs are seeded random values (floats in [-1, 1], integers in
 * [0, 10)), dynamic dims 1; prints the minimum and median over RUNS
 * (default 20) after three warm-up runs. bf16 = 1 sets
 * KILN_OPT_PRECISION to KILN_PRECISION_BF16 for the session. With one
 * thread Kiln and oneDNN both run on the caller's thread, so its CPU clock
 * holds the whole run. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kiln.h"
#include "random_inputs.h"

static double thread_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int fail(const char *what) { return bench_fail("cpu_time", what); }

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: cpu_time MODEL [RUNS [bf16]]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 20, bf16 = argc > 3 && atoi(argv[3]) != 0;
    if (runs < 1)
        runs = 1;
    kiln_options *ro = NULL, *so = NULL;
    kiln_runtime *rt = NULL;
    kiln_model *m = NULL;
    kiln_session *s = NULL;
    if (kiln_options_create(&ro) != KILN_OK || kiln_options_set_int(ro, KILN_OPT_THREADS, 1) ||
        kiln_runtime_create(ro, &rt) != KILN_OK)
        return fail("runtime");
    if (kiln_model_load_file(rt, argv[1], NULL, &m) != KILN_OK)
        return fail(argv[1]);
    if (kiln_options_create(&so) != KILN_OK ||
        (bf16 && kiln_options_set_int(so, KILN_OPT_PRECISION, KILN_PRECISION_BF16) != KILN_OK) ||
        kiln_session_create(m, so, &s) != KILN_OK)
        return fail("session");
    if (bench_bind_random_inputs("cpu_time", m, s))
        return 1;
    for (int i = 0; i < 3; i++)
        if (kiln_session_run(s) != KILN_OK)
            return fail("run");
    double *ms = malloc(sizeof(double) * (size_t)runs);
    if (!ms)
        return 1;
    for (int i = 0; i < runs; i++) {
        double t0 = thread_ms();
        if (kiln_session_run(s) != KILN_OK)
            return fail("run");
        ms[i] = thread_ms() - t0;
    }
    qsort(ms, (size_t)runs, sizeof(double), by_value);
    printf("cpu ms per run: min %.3f median %.3f (%d runs%s)\n", ms[0], ms[runs / 2], runs,
           bf16 ? ", bf16" : "");
    free(ms);
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
    kiln_options_destroy(so);
    kiln_options_destroy(ro);
    return 0;
}
