/* Which steps of a model do not speed up with more threads, measured so
 * that a machine shared with other jobs does not decide the answer.
 *
 *   step_scaling MODEL [RUNS [THREADS]]
 *
 * One process, two sessions of the model: one on a runtime of 1 thread,
 * one on a runtime of THREADS (default 2). Their runs alternate (A, B, A,
 * B, ...) so that a burst of load hits both alike, and every step's time is
 * read after every run (profiling on), so each step keeps its fastest run
 * rather than an average a busy second can double. For each step it prints
 * the 1-thread and the THREADS-thread minimum, their ratio (the speed-up)
 * and the milliseconds the step loses against a perfect split
 * (t_N - t_1 / N), costliest first; then the sum of step minima against the
 * fastest whole run (the difference is time outside kernels: the executor,
 * gaps between steps) and the process CPU time per THREADS-thread run over
 * its wall time (above THREADS: threads busy that should not be; below:
 * threads waiting or descheduled).
 *
 * Inputs are seeded random values (floats in [-1, 1], integers in [0, 10)),
 * dynamic dims 1, as kiln_cpu_time draws them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kiln.h"
#include "random_inputs.h"

#define WARMUP 3

static double clock_ms(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int fail(const char *what) { return bench_fail("step_scaling", what); }

/* One thread count's session and what its runs measured. */
typedef struct side {
    kiln_runtime *rt;
    kiln_model *m; /* a session runs on its model's runtime: one model each */
    kiln_session *s;
    int32_t steps;
    int64_t *last_ns; /* each step's running total after the previous run */
    double *min_ms;   /* each step's fastest run */
    double run_min, cpu_sum, wall_sum;
} side;

static int open_side(side *d, const char *path, int threads)
{
    kiln_options *ro = NULL, *so = NULL;
    int rc = kiln_options_create(&ro) != KILN_OK ||
             kiln_options_set_int(ro, KILN_OPT_THREADS, threads) != KILN_OK ||
             kiln_runtime_create(ro, &d->rt) != KILN_OK;
    kiln_options_destroy(ro);
    if (rc)
        return fail("runtime");
    if (kiln_model_load_file(d->rt, path, NULL, &d->m) != KILN_OK)
        return fail(path);
    rc = kiln_options_create(&so) != KILN_OK ||
         kiln_options_set_int(so, KILN_OPT_PROFILE, 1) != KILN_OK ||
         kiln_session_create(d->m, so, &d->s) != KILN_OK;
    kiln_options_destroy(so);
    if (rc)
        return fail("session");
    return bench_bind_random_inputs("step_scaling", d->m, d->s);
}

/* One timed run: wall and process CPU time, and each step's share. */
static int run_side(side *d)
{
    double w0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    if (kiln_session_run(d->s) != KILN_OK)
        return fail("run");
    double wall = clock_ms(CLOCK_MONOTONIC) - w0, cpu = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
    d->wall_sum += wall;
    d->cpu_sum += cpu;
    if (d->run_min == 0 || wall < d->run_min)
        d->run_min = wall;
    for (int32_t i = 0; i < d->steps; i++) {
        int64_t total = 0, runs = 0;
        if (kiln_session_profile_time(d->s, i, &total, &runs) != KILN_OK)
            return fail("profile");
        double ms = (double)(total - d->last_ns[i]) / 1e6;
        d->last_ns[i] = total;
        if (d->min_ms[i] < 0 || ms < d->min_ms[i])
            d->min_ms[i] = ms;
    }
    return 0;
}

static int prepare_side(side *d)
{
    for (int w = 0; w < WARMUP; w++) /* the first run builds the plan */
        if (kiln_session_run(d->s) != KILN_OK)
            return fail("warm-up run");
    if (kiln_session_profile_reset(d->s) != KILN_OK ||
        kiln_session_profile_count(d->s, &d->steps) != KILN_OK)
        return fail("profile");
    d->last_ns = calloc((size_t)d->steps + 1, sizeof *d->last_ns);
    d->min_ms = malloc(((size_t)d->steps + 1) * sizeof *d->min_ms);
    if (!d->last_ns || !d->min_ms)
        return 1;
    for (int32_t i = 0; i < d->steps; i++)
        d->min_ms[i] = -1;
    return 0;
}

typedef struct row {
    int32_t step;
    double lost;
} row;

static int by_lost(const void *a, const void *b)
{
    double x = ((const row *)a)->lost, y = ((const row *)b)->lost;
    return (x < y) - (x > y);
}

static void text(kiln_session *s, int32_t i,
                 int32_t (*get)(const kiln_session *, int32_t, char *, int32_t, int32_t *),
                 char *buf, int32_t cap)
{
    int32_t needed = 0;
    if (get(s, i, buf, cap, &needed) != KILN_OK)
        snprintf(buf, (size_t)cap, "?");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: step_scaling MODEL [RUNS [THREADS]]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 20, threads = argc > 3 ? atoi(argv[3]) : 2;
    if (runs < 1)
        runs = 1;
    if (threads < 2)
        threads = 2;
    side one = {0}, many = {0};
    if (open_side(&one, argv[1], 1) || open_side(&many, argv[1], threads) || prepare_side(&one) ||
        prepare_side(&many))
        return 1;
    if (one.steps != many.steps) {
        fprintf(stderr, "step_scaling: the two plans differ (%d and %d steps)\n", (int)one.steps,
                (int)many.steps);
        return 1;
    }
    for (int r = 0; r < runs; r++)
        if (run_side(&one) || run_side(&many))
            return 1;

    row *rows = malloc(sizeof(row) * (size_t)(one.steps + 1));
    if (!rows)
        return 1;
    double sum1 = 0, sumn = 0;
    for (int32_t i = 0; i < one.steps; i++) {
        rows[i].step = i;
        rows[i].lost = many.min_ms[i] - one.min_ms[i] / threads;
        sum1 += one.min_ms[i];
        sumn += many.min_ms[i];
    }
    qsort(rows, (size_t)one.steps, sizeof(row), by_lost);
    printf("%s: %d alternate runs per side, fastest run of each step\n", argv[1], runs);
    printf("%4s %-48s %-22s %-6s %9s %9s %7s %8s\n", "#", "step", "op type", "kernel", "1 thr ms",
           "N thr ms", "speedup", "lost ms");
    char name[256], op[64], kernel[32];
    for (int32_t k = 0; k < one.steps; k++) {
        int32_t i = rows[k].step;
        text(many.s, i, kiln_session_profile_name, name, sizeof name);
        text(many.s, i, kiln_session_profile_op, op, sizeof op);
        text(many.s, i, kiln_session_profile_kernel, kernel, sizeof kernel);
        size_t len = strlen(name);
        const char *shown = len > 48 ? name + len - 48 : name; /* the distinctive end */
        printf("%4d %-48s %-22s %-6s %9.3f %9.3f %7.2f %8.3f\n", (int)i, shown, op, kernel,
               one.min_ms[i], many.min_ms[i],
               many.min_ms[i] > 0 ? one.min_ms[i] / many.min_ms[i] : 0.0, rows[k].lost);
    }
    printf("threads N = %d\n", threads);
    printf("sum of step minima: 1 thr %.3f ms, N thr %.3f ms (speed-up %.2f)\n", sum1, sumn,
           sumn > 0 ? sum1 / sumn : 0.0);
    printf("fastest run:        1 thr %.3f ms, N thr %.3f ms (speed-up %.2f); outside steps "
           "%.3f / %.3f ms\n",
           one.run_min, many.run_min, many.run_min > 0 ? one.run_min / many.run_min : 0.0,
           one.run_min - sum1, many.run_min - sumn);
    printf("process CPU per wall ms: 1 thr %.2f, N thr %.2f\n",
           one.wall_sum > 0 ? one.cpu_sum / one.wall_sum : 0.0,
           many.wall_sum > 0 ? many.cpu_sum / many.wall_sum : 0.0);
    free(rows);
    free(one.last_ns), free(one.min_ms), free(many.last_ns), free(many.min_ms);
    kiln_session_destroy(one.s);
    kiln_session_destroy(many.s);
    kiln_model_destroy(one.m);
    kiln_model_destroy(many.m);
    kiln_runtime_destroy(one.rt);
    kiln_runtime_destroy(many.rt);
    return 0;
}
