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

static int fail(const char *what)
{
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    fprintf(stderr, "cpu_time: %s: %s\n", what, msg);
    return 1;
}

/* Binds seeded random values to every input of s. */
static int bind_inputs(const kiln_model *m, kiln_session *s)
{
    int32_t n = 0;
    if (kiln_model_input_count(m, &n) != KILN_OK)
        return fail("inputs");
    unsigned seed = 1;
    for (int32_t i = 0; i < n; i++) {
        int32_t dtype, rank;
        int64_t dims[8], count = 1;
        if (kiln_model_input_dtype(m, i, &dtype) != KILN_OK ||
            kiln_model_input_shape(m, i, dims, 8, &rank) != KILN_OK)
            return fail("input shape");
        for (int32_t d = 0; d < rank; d++)
            count *= dims[d] = dims[d] < 0 ? 1 : dims[d];
        int is_float = dtype == KILN_DTYPE_FLOAT;
        if (!is_float && dtype != KILN_DTYPE_INT64) {
            fprintf(stderr, "cpu_time: input %d: only float and int64 inputs\n", (int)i);
            return 1;
        }
        size_t bytes = (size_t)count * (is_float ? 4 : 8);
        void *data = malloc(bytes ? bytes : 1);
        if (!data)
            return 1;
        for (int64_t e = 0; e < count; e++) {
            seed = seed * 1664525u + 1013904223u;
            if (is_float)
                ((float *)data)[e] = (float)(seed >> 8) / 8388608.0f - 1.0f;
            else
                ((int64_t *)data)[e] = (int64_t)((seed >> 8) % 10);
        }
        /* copied: the session keeps its own */
        int32_t rc = kiln_session_set_input_at(s, i, dtype, dims, rank, data, bytes, 1);
        free(data);
        if (rc != KILN_OK)
            return fail("input");
    }
    return 0;
}

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
    if (bind_inputs(m, s))
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
