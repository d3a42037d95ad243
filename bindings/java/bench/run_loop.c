/* run_loop MODEL ITERATIONS BATCHES
 *
 * The C side of the Java overhead benchmark (OverheadBench.java): the same
 * loop the Java program times, through the C API directly. Each iteration
 * binds every input (borrowed, no copy), runs, and copies every output into
 * a caller buffer. Inputs are float tensors of the declared shapes (dynamic
 * dims become 1) filled with a fixed pattern. Prints
 *   per_run_us min=M median=D
 * where M and D are the fastest and the median batch's time per iteration.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kiln.h"

#define MAX_VALUES 16
#define MAX_RANK 8

static int fail(const char *what, int32_t status) {
    char msg[512];
    kiln_last_error(msg, (int32_t)sizeof msg);
    fprintf(stderr, "run_loop: %s: %s: %s\n", what, kiln_status_name(status), msg);
    return 1;
}

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: run_loop MODEL ITERATIONS BATCHES\n");
        return 2;
    }
    long iterations = atol(argv[2]), batches = atol(argv[3]);
    if (iterations < 1 || batches < 1) return 2;
    kiln_runtime *rt = NULL;
    kiln_model *model = NULL;
    kiln_session *session = NULL;
    int32_t st;
    if ((st = kiln_runtime_create(NULL, &rt)) != KILN_OK) return fail("runtime", st);
    if ((st = kiln_model_load_file(rt, argv[1], NULL, &model)) != KILN_OK) return fail("load", st);
    if ((st = kiln_session_create(model, NULL, &session)) != KILN_OK) return fail("session", st);

    int32_t n_in = 0, n_out = 0;
    kiln_model_input_count(model, &n_in);
    kiln_model_output_count(model, &n_out);
    if (n_in > MAX_VALUES || n_out > MAX_VALUES) return fail("too many inputs/outputs", KILN_ERR_LIMIT);
    int64_t dims[MAX_VALUES][MAX_RANK];
    int32_t rank[MAX_VALUES];
    float *in[MAX_VALUES] = {0};
    size_t in_bytes[MAX_VALUES];
    for (int32_t i = 0; i < n_in; i++) {
        int32_t dtype = 0;
        kiln_model_input_dtype(model, i, &dtype);
        if (dtype != KILN_DTYPE_FLOAT) return fail("inputs must be float", KILN_ERR_DTYPE);
        if ((st = kiln_model_input_shape(model, i, dims[i], MAX_RANK, &rank[i])) != KILN_OK)
            return fail("input shape", st);
        size_t count = 1;
        for (int32_t d = 0; d < rank[i]; d++) {
            if (dims[i][d] < 0) dims[i][d] = 1;
            count *= (size_t)dims[i][d];
        }
        in_bytes[i] = count * sizeof(float);
        in[i] = malloc(in_bytes[i]);
        if (!in[i]) return fail("malloc", KILN_ERR_OUT_OF_MEMORY);
        for (size_t k = 0; k < count; k++) in[i][k] = (float)((int)(k % 7) - 3) * 0.5f;
    }
    /* One run sizes the output buffers. */
    for (int32_t i = 0; i < n_in; i++)
        kiln_session_set_input_at(session, i, KILN_DTYPE_FLOAT, dims[i], rank[i], in[i], in_bytes[i], 0);
    if ((st = kiln_session_run(session)) != KILN_OK) return fail("run", st);
    void *out[MAX_VALUES];
    size_t out_cap[MAX_VALUES];
    for (int32_t o = 0; o < n_out; o++) {
        kiln_session_output_copy(session, o, NULL, 0, &out_cap[o]);
        out[o] = malloc(out_cap[o] ? out_cap[o] : 1);
        if (!out[o]) return fail("malloc", KILN_ERR_OUT_OF_MEMORY);
    }

    double *per_run = malloc((size_t)batches * sizeof(double));
    if (!per_run) return fail("malloc", KILN_ERR_OUT_OF_MEMORY);
    for (long b = -1; b < batches; b++) { /* batch -1 warms up */
        double start = now_us();
        for (long it = 0; it < iterations; it++) {
            for (int32_t i = 0; i < n_in; i++)
                if ((st = kiln_session_set_input_at(session, i, KILN_DTYPE_FLOAT, dims[i], rank[i],
                                                    in[i], in_bytes[i], 0)) != KILN_OK)
                    return fail("set input", st);
            if ((st = kiln_session_run(session)) != KILN_OK) return fail("run", st);
            for (int32_t o = 0; o < n_out; o++)
                if ((st = kiln_session_output_copy(session, o, out[o], out_cap[o], NULL)) != KILN_OK)
                    return fail("output", st);
        }
        if (b >= 0) per_run[b] = (now_us() - start) / (double)iterations;
    }
    qsort(per_run, (size_t)batches, sizeof(double), compare_doubles);
    printf("per_run_us min=%.4f median=%.4f\n", per_run[0], per_run[batches / 2]);

    free(per_run);
    for (int32_t o = 0; o < n_out; o++) free(out[o]);
    for (int32_t i = 0; i < n_in; i++) free(in[i]);
    kiln_session_destroy(session);
    kiln_model_destroy(model);
    kiln_runtime_destroy(rt);
    return 0;
}
