#include "bench_profile.h"

#include "api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct step_time {
    char name[128];
    char op[64];
    char kernel[32];
    double ms; /* mean per run */
} step_time;

typedef struct op_time {
    const char *op;     /* points into a step_time */
    const char *kernel;
    double ms;
    int steps;
} op_time;

static int by_ms_desc(const void *a, const void *b)
{
    double x = ((const step_time *)a)->ms, y = ((const step_time *)b)->ms;
    return (x < y) - (x > y);
}

static int op_by_ms_desc(const void *a, const void *b)
{
    double x = ((const op_time *)a)->ms, y = ((const op_time *)b)->ms;
    return (x < y) - (x > y);
}

/* Names longer than the buffer are cut: a profile line only needs to be
 * recognisable. */
static int32_t copy_cut(int32_t status)
{
    return status == KILN_ERR_BUFFER_TOO_SMALL ? KILN_OK : status;
}

static int32_t read_steps(const kiln_session *session, step_time *steps, int32_t count)
{
    for (int32_t i = 0; i < count; i++) {
        step_time *s = &steps[i];
        int32_t needed = 0;
        int64_t total_ns = 0, runs = 0;
        int32_t status = copy_cut(kiln_session_profile_name(session, i, s->name, sizeof s->name,
                                                            &needed));
        if (status == KILN_OK)
            status = copy_cut(kiln_session_profile_op(session, i, s->op, sizeof s->op, &needed));
        if (status == KILN_OK)
            status = copy_cut(kiln_session_profile_kernel(session, i, s->kernel,
                                                          sizeof s->kernel, &needed));
        if (status == KILN_OK)
            status = kiln_session_profile_time(session, i, &total_ns, &runs);
        if (status != KILN_OK)
            return status;
        s->ms = runs > 0 ? (double)total_ns / 1e6 / (double)runs : 0.0;
    }
    return KILN_OK;
}

/* Groups steps by (op type, kernel). */
static int group_ops(const step_time *steps, int32_t count, op_time *ops)
{
    int n = 0;
    for (int32_t i = 0; i < count; i++) {
        int j = 0;
        while (j < n && (strcmp(ops[j].op, steps[i].op) != 0 ||
                         strcmp(ops[j].kernel, steps[i].kernel) != 0))
            j++;
        if (j == n) {
            ops[n].op = steps[i].op;
            ops[n].kernel = steps[i].kernel;
            n++;
        }
        ops[j].ms += steps[i].ms;
        ops[j].steps++;
    }
    qsort(ops, (size_t)n, sizeof *ops, op_by_ms_desc);
    return n;
}

int32_t print_profile(const kiln_session *session, int top_n, FILE *out)
{
    int32_t count = 0;
    int32_t status = kiln_session_profile_count(session, &count);
    if (status != KILN_OK)
        return status;
    step_time *steps = calloc((size_t)count + 1, sizeof *steps);
    op_time *ops = calloc((size_t)count + 1, sizeof *ops);
    if (!steps || !ops) {
        free(steps);
        free(ops);
        return KILN_ERR_OUT_OF_MEMORY;
    }
    status = read_steps(session, steps, count);
    if (status == KILN_OK) {
        double total = 0;
        for (int32_t i = 0; i < count; i++)
            total += steps[i].ms;
        int n_ops = group_ops(steps, count, ops);
        fprintf(out, "\nprofile: %d steps, %.3f ms per run inside kernels\n", (int)count, total);
        fprintf(out, "%-24s %-8s %6s %10s %7s\n", "op type", "kernel", "steps", "ms/run", "share");
        for (int j = 0; j < n_ops; j++)
            fprintf(out, "%-24s %-8s %6d %10.3f %6.1f%%\n", ops[j].op, ops[j].kernel, ops[j].steps,
                   ops[j].ms, total > 0 ? 100.0 * ops[j].ms / total : 0.0);
        /* ops[] points into steps[]: sort steps only after printing it. */
        qsort(steps, (size_t)count, sizeof *steps, by_ms_desc);
        int32_t shown = top_n > 0 && top_n < count ? top_n : count;
        fprintf(out, "\nslowest %d steps:\n", (int)shown);
        fprintf(out, "%-40s %-24s %-8s %10s\n", "node", "op type", "kernel", "ms/run");
        for (int32_t i = 0; i < shown; i++)
            fprintf(out, "%-40s %-24s %-8s %10.3f\n", steps[i].name, steps[i].op, steps[i].kernel,
                   steps[i].ms);
    }
    free(steps);
    free(ops);
    return status;
}
