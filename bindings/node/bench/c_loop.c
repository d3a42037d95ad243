/* c_loop MODEL RUNS: the C side of bench/overhead.js. Does what one
 * Session.run() does natively (bind every input, run, read each output's
 * info and copy it out) RUNS times on a model with float32 inputs of static
 * shape, and prints the median per-run wall and CPU time of 5 batches in
 * microseconds: "c_us_per_run WALL CPU". Uses only kiln.h. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kiln.h"

#define MAX_IO 8
#define MAX_RANK 8
#define BATCHES 5

static double now_us(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int fail(const char *what, int32_t status)
{
    char msg[512];
    kiln_last_error(msg, (int32_t)sizeof msg);
    fprintf(stderr, "c_loop: %s: %s: %s\n", what, kiln_status_name(status), msg);
    return 1;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: c_loop MODEL RUNS\n");
        return 2;
    }
    long runs = strtol(argv[2], NULL, 10);
    kiln_runtime *rt = NULL;
    kiln_model *model = NULL;
    kiln_session *session = NULL;
    int32_t st, n_in = 0, n_out = 0, rc = 1;
    char names[MAX_IO][128];
    int64_t dims[MAX_IO][MAX_RANK];
    int32_t ranks[MAX_IO];
    float *inputs[MAX_IO] = {0}, *outputs[MAX_IO] = {0};
    size_t in_bytes[MAX_IO], out_bytes[MAX_IO] = {0};
    double batch_us[BATCHES], batch_cpu_us[BATCHES];

    if ((st = kiln_runtime_create(NULL, &rt)) ||
        (st = kiln_model_load_file(rt, argv[1], NULL, &model)) ||
        (st = kiln_session_create(model, NULL, &session)) ||
        (st = kiln_model_input_count(model, &n_in)) || (st = kiln_model_output_count(model, &n_out))) {
        rc = fail("loading", st);
        goto done;
    }
    if (n_in > MAX_IO || n_out > MAX_IO) {
        fprintf(stderr, "c_loop: too many inputs or outputs\n");
        goto done;
    }
    for (int i = 0; i < n_in; i++) {
        int32_t needed;
        size_t count = 1;
        if ((st = kiln_model_input_name(model, i, names[i], 128, &needed)) ||
            (st = kiln_model_input_shape(model, i, dims[i], MAX_RANK, &ranks[i]))) {
            rc = fail("reading inputs", st);
            goto done;
        }
        for (int d = 0; d < ranks[i]; d++) count *= dims[i][d] > 0 ? (size_t)dims[i][d] : 1;
        in_bytes[i] = count * sizeof(float);
        if (!(inputs[i] = calloc(count, sizeof(float)))) goto done;
        for (size_t k = 0; k < count; k++) inputs[i][k] = (float)k - 2.0f;
    }
    for (int b = 0; b < BATCHES; b++) {
        double start = now_us(CLOCK_MONOTONIC), start_cpu = now_us(CLOCK_PROCESS_CPUTIME_ID);
        for (long r = 0; r < runs; r++) {
            for (int i = 0; i < n_in; i++)
                if ((st = kiln_session_set_input(session, names[i], KILN_DTYPE_FLOAT, dims[i],
                                                 ranks[i], inputs[i], in_bytes[i], 0))) {
                    rc = fail("binding", st);
                    goto done;
                }
            if ((st = kiln_session_run(session))) {
                rc = fail("running", st);
                goto done;
            }
            for (int o = 0; o < n_out; o++) {
                int32_t dtype, rank;
                int64_t odims[MAX_RANK];
                size_t needed = 0;
                if ((st = kiln_session_output_info(session, o, &dtype, odims, MAX_RANK, &rank)) ||
                    (st = kiln_session_output_copy(session, o, outputs[o], out_bytes[o], &needed)) ==
                        KILN_ERR_BUFFER_TOO_SMALL) {
                    free(outputs[o]);
                    if (!(outputs[o] = malloc(needed))) goto done;
                    out_bytes[o] = needed;
                    st = kiln_session_output_copy(session, o, outputs[o], out_bytes[o], &needed);
                }
                if (st) {
                    rc = fail("reading outputs", st);
                    goto done;
                }
            }
        }
        batch_us[b] = (now_us(CLOCK_MONOTONIC) - start) / (double)runs;
        batch_cpu_us[b] = (now_us(CLOCK_PROCESS_CPUTIME_ID) - start_cpu) / (double)runs;
    }
    qsort(batch_us, BATCHES, sizeof batch_us[0], compare_doubles);
    qsort(batch_cpu_us, BATCHES, sizeof batch_cpu_us[0], compare_doubles);
    printf("c_us_per_run %.3f %.3f\n", batch_us[BATCHES / 2], batch_cpu_us[BATCHES / 2]);
    rc = 0;
done:
    for (int i = 0; i < MAX_IO; i++) {
        free(inputs[i]);
        free(outputs[i]);
    }
    kiln_session_destroy(session);
    kiln_model_destroy(model);
    kiln_runtime_destroy(rt);
    return rc;
}
