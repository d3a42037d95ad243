/* Zero-copy device I/O (kiln_session_set_input_device,
 * kiln_session_bind_output_device, kiln_session_device_stream) on the
 * "testdev" TEST DOUBLE (support/host_test_device.h): its device memory is
 * host memory at host + 2^47, so the test plays a caller holding device
 * buffers by filling host arrays and handing over their device addresses
 * (kt_testdev_address); any host read of them faults. Checks: the same
 * results as binding host memory, no host→device copy for a bound input in
 * the profile or in the double's counts, a device→host copy only where a
 * CPU node reads the input, outputs written into the caller's device
 * buffer, no allocation over 200 runs, and each misuse's error. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "alloc_count.h"
#include "api_helpers.h"
#include "core/engine/registry.h"
#include "testdev_suite.h"

TestSuite(device_io_on_test_double, .init = kt_testdev_suite_setup,
          .fini = kt_testdev_suite_teardown);

typedef struct env {
    kiln_runtime *rt;
    kiln_options *o;
    kiln_model *m;
    kiln_session *s;
} env;

/* A session on `device` (NULL: the default, cpu) of tests/data/devices/
 * `model`, optimization level 1 (the double then serves Gemm and Relu
 * apart), profiling on. */
static env open_env(const char *model, const char *device)
{
    env e = {.rt = kt_runtime(1)};
    KT_OK(kiln_options_create(&e.o));
    KT_OK(kiln_options_set_int(e.o, KILN_OPT_OPTIMIZE, 1));
    KT_OK(kiln_options_set_int(e.o, KILN_OPT_PROFILE, 1));
    if (device)
        KT_OK(kiln_options_set_string(e.o, KILN_SOPT_DEVICE, device));
    char path[256];
    snprintf(path, sizeof path, "tests/data/devices/%s", model);
    KT_OK(kiln_model_load_file(e.rt, kt_src_path(path), e.o, &e.m));
    KT_OK(kiln_session_create(e.m, e.o, &e.s));
    return e;
}

static void close_env(env *e)
{
    kiln_session_destroy(e->s);
    kiln_model_destroy(e->m);
    kiln_options_destroy(e->o);
    kiln_runtime_destroy(e->rt);
}

static void fill(float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((i * 37) % 23) / 11.0f - 1.0f;
}

/* mlp_split.onnx on 4 rows: x[4,16] in, y and gate [4,8] out. */
enum { ROWS = 4, X_N = ROWS * 16, Y_N = ROWS * 8 };
static const int64_t x_dims[2] = {ROWS, 16};

/* y and gate of a run with x bound to host memory. */
static void host_bound_run(kiln_session *s, float *y, float *gate)
{
    /* static: the session keeps reading the bound input on later runs
     * (a test runs again without binding anew), after this frame is gone */
    static float x[X_N];
    fill(x, X_N);
    KT_OK(kiln_session_set_input(s, "x", KILN_DTYPE_FLOAT, x_dims, 2, x, sizeof x, 0));
    KT_OK(kiln_session_run(s));
    KT_OK(kiln_session_output_copy(s, 0, y, Y_N * sizeof(float), NULL));
    KT_OK(kiln_session_output_copy(s, 1, gate, Y_N * sizeof(float), NULL));
}

/* The profile lines naming a copy host→device of value `name` (NULL: any). */
static int count_steps(kiln_session *s, const char *kind, const char *name)
{
    int32_t n = 0;
    KT_OK(kiln_session_profile_count(s, &n));
    int found = 0;
    for (int32_t i = 0; i < n; i++) {
        char line[128], want[64];
        KT_OK(kiln_session_profile_name(s, i, line, sizeof line, NULL));
        snprintf(want, sizeof want, "'%s'", name ? name : "");
        if (strstr(line, kind) && (!name || strstr(line, want)))
            found++;
    }
    return found;
}

Test(device_io_on_test_double, bound_input_gives_the_host_bound_results)
{
    float y_cpu[Y_N], g_cpu[Y_N], y_host[Y_N], g_host[Y_N], y_dev[Y_N], g_dev[Y_N];
    env cpu = open_env("mlp_split.onnx", NULL);
    host_bound_run(cpu.s, y_cpu, g_cpu);
    close_env(&cpu);

    env e = open_env("mlp_split.onnx", "testdev");
    host_bound_run(e.s, y_host, g_host);
    float x_mem[X_N]; /* the caller's device buffer (host memory of the double) */
    fill(x_mem, X_N);
    KT_OK(kiln_session_set_input_device(e.s, "x", KILN_DTYPE_FLOAT, x_dims, 2,
                                        kt_testdev_address(x_mem), sizeof x_mem));
    KT_OK(kiln_session_run(e.s));
    KT_OK(kiln_session_output_copy(e.s, 0, y_dev, sizeof y_dev, NULL));
    KT_OK(kiln_session_output_copy(e.s, 1, g_dev, sizeof g_dev, NULL));
    double sum = 0;
    for (int i = 0; i < Y_N; i++) {
        /* the same kernels on the same bytes: equal to the bit */
        cr_expect_eq(y_dev[i], y_host[i], "y[%d]: %g bound on the device, %g on the host", i,
                     (double)y_dev[i], (double)y_host[i]);
        cr_expect_eq(g_dev[i], g_host[i], "gate[%d]", i);
        cr_expect_leq(fabs((double)y_dev[i] - (double)y_cpu[i]), 1e-6, "y[%d] vs cpu", i);
        sum += fabs((double)y_dev[i]);
    }
    cr_expect_gt(sum, 0.1, "y is all zeros: the comparison shows nothing");
    /* kiln_session_set_input binds it back to host memory */
    host_bound_run(e.s, y_dev, g_dev);
    cr_expect_eq(memcmp(y_dev, y_host, sizeof y_dev), 0);
    close_env(&e);
}

Test(device_io_on_test_double, bound_input_has_no_copy_to_the_device)
{
    env e = open_env("mlp_split.onnx", "testdev");
    float y[Y_N], gate[Y_N];
    host_bound_run(e.s, y, gate);
    cr_expect_eq(count_steps(e.s, "copy host→device", "x"), 1);
    cr_expect_eq(count_steps(e.s, "copy host→device", NULL), 2, "x and gate go over");

    float x_mem[X_N];
    fill(x_mem, X_N);
    KT_OK(kiln_session_set_input_device(e.s, "x", KILN_DTYPE_FLOAT, x_dims, 2,
                                        kt_testdev_address(x_mem), sizeof x_mem));
    kt_testdev_counts before = kt_testdev_counts_now();
    KT_OK(kiln_session_run(e.s));
    kt_testdev_counts after = kt_testdev_counts_now();
    cr_expect_eq(count_steps(e.s, "copy host→device", "x"), 0, "x was copied over");
    cr_expect_eq(count_steps(e.s, "copy host→device", NULL), 1, "only gate goes over");
    cr_expect_eq(count_steps(e.s, "copy device→host", "x"), 0, "no CPU node reads x");
    cr_expect_eq(after.copies_to_device - before.copies_to_device, 1,
                 "host→device copies in the run: %lld",
                 (long long)(after.copies_to_device - before.copies_to_device));
    close_env(&e);
}

/* shared_input.onnx: y = relu(x) + sigmoid(x), the Sigmoid on the CPU. */
static void shared_input_run(int bound, float *y)
{
    enum { N = 3 * 8 };
    static const int64_t dims[2] = {3, 8};
    env e = open_env("shared_input.onnx", "testdev");
    float x[N];
    fill(x, N);
    if (bound)
        KT_OK(kiln_session_set_input_device(e.s, "x", KILN_DTYPE_FLOAT, dims, 2,
                                            kt_testdev_address(x), sizeof x));
    else
        KT_OK(kiln_session_set_input(e.s, "x", KILN_DTYPE_FLOAT, dims, 2, x, sizeof x, 0));
    KT_OK(kiln_session_run(e.s));
    KT_OK(kiln_session_output_copy(e.s, 0, y, N * sizeof(float), NULL));
    cr_expect_eq(count_steps(e.s, "copy host→device", "x"), bound ? 0 : 1);
    cr_expect_eq(count_steps(e.s, "copy device→host", "x"), bound ? 1 : 0,
                 "the CPU's Sigmoid reads x");
    for (int i = 0; i < N; i++) {
        double want = fmax(x[i], 0.0) + 1.0 / (1.0 + exp(-(double)x[i]));
        cr_expect_leq(fabs(y[i] - want), 1e-6, "y[%d] = %g, expected %g", i, (double)y[i], want);
    }
    close_env(&e);
}

Test(device_io_on_test_double, cpu_node_reading_a_bound_input_gets_a_host_copy)
{
    float y_host[24], y_dev[24];
    shared_input_run(0, y_host);
    shared_input_run(1, y_dev);
    cr_expect_eq(memcmp(y_host, y_dev, sizeof y_dev), 0, "results differ");
}

Test(device_io_on_test_double, outputs_are_written_into_the_callers_device_buffer)
{
    env e = open_env("mlp_split.onnx", "testdev");
    float y_want[Y_N], g_want[Y_N];
    host_bound_run(e.s, y_want, g_want);
    float y_mem[Y_N], g_mem[Y_N + 5]; /* a larger buffer is fine */
    memset(y_mem, 0, sizeof y_mem);
    memset(g_mem, 0, sizeof g_mem);
    KT_OK(kiln_session_bind_output_device(e.s, 0, kt_testdev_address(y_mem), sizeof y_mem));
    KT_OK(kiln_session_bind_output_device(e.s, 1, kt_testdev_address(g_mem), sizeof g_mem));
    kt_testdev_counts before = kt_testdev_counts_now();
    KT_OK(kiln_session_run(e.s));
    kt_testdev_counts after = kt_testdev_counts_now();
    /* the run waited for the copies: the buffers hold the results now */
    cr_expect_eq(after.queued, 0, "%lld operations still queued", (long long)after.queued);
    cr_expect_eq(after.copies_on_device - before.copies_on_device, 2);
    cr_expect_eq(memcmp(y_mem, y_want, sizeof y_want), 0, "y in the device buffer differs");
    cr_expect_eq(memcmp(g_mem, g_want, sizeof g_want), 0, "gate in the device buffer differs");
    /* unbound: the next run leaves the buffer alone */
    KT_OK(kiln_session_bind_output_device(e.s, 0, NULL, 0));
    memset(y_mem, 0, sizeof y_mem);
    KT_OK(kiln_session_run(e.s));
    cr_expect_eq(y_mem[0], 0.0f);
    void *stream = NULL;
    KT_OK(kiln_session_device_stream(e.s, &stream));
    cr_expect_not_null(stream);
    close_env(&e);
}

Test(device_io_on_test_double, runs_with_device_io_allocate_nothing)
{
    env e = open_env("mlp_split.onnx", "testdev");
    float x_mem[X_N], y_mem[Y_N], g_mem[Y_N], y0[Y_N];
    fill(x_mem, X_N);
    KT_OK(kiln_session_set_input_device(e.s, "x", KILN_DTYPE_FLOAT, x_dims, 2,
                                        kt_testdev_address(x_mem), sizeof x_mem));
    KT_OK(kiln_session_bind_output_device(e.s, 0, kt_testdev_address(y_mem), sizeof y_mem));
    KT_OK(kiln_session_bind_output_device(e.s, 1, kt_testdev_address(g_mem), sizeof g_mem));
    KT_OK(kiln_session_run(e.s)); /* plans for the device-bound x */
    memcpy(y0, y_mem, sizeof y0);
    kt_testdev_counts before = kt_testdev_counts_now();
#if KT_CAN_COUNT_ALLOCS
    atomic_store(&alloc_calls, 0);
    atomic_store(&counting, 1);
#endif
    for (int i = 0; i < 200; i++) {
        KT_OK(kiln_session_set_input_device(e.s, "x", KILN_DTYPE_FLOAT, x_dims, 2,
                                            kt_testdev_address(x_mem), sizeof x_mem));
        KT_OK(kiln_session_run(e.s));
    }
#if KT_CAN_COUNT_ALLOCS
    atomic_store(&counting, 0);
    cr_expect_eq(atomic_load(&alloc_calls), 0, "host allocations in 200 runs: %ld",
                 (long)atomic_load(&alloc_calls));
#endif
    kt_testdev_counts after = kt_testdev_counts_now();
    cr_expect_eq(after.allocs, before.allocs, "device allocations in 200 runs: %lld",
                 (long long)(after.allocs - before.allocs));
    cr_expect_eq(after.live_bytes, before.live_bytes);
    cr_expect_eq(memcmp(y_mem, y0, sizeof y0), 0, "runs of the same input differ");
    int64_t built = 0;
    KT_OK(kiln_session_cache_info(e.s, NULL, &built, NULL));
    /* N is free, so the first run planned; none since */
    cr_expect_eq(built, 1, "plans built: %lld", (long long)built);
    close_env(&e);
}

/* The last error's message. */
static const char *message(void)
{
    static char msg[512];
    kiln_last_error(msg, sizeof msg);
    return msg;
}

#define EXPECT_MESSAGE(part)                                                                  \
    do {                                                                                      \
        const char *m_ = message();                                                           \
        cr_expect(strstr(m_, part) != NULL, "message '%s' lacks '%s'", m_, part);             \
    } while (0)

Test(device_io_on_test_double, misuse_is_named_in_the_callers_terms)
{
    float x_mem[X_N], y_mem[Y_N];
    void *x_dev = kt_testdev_address(x_mem), *y_dev = kt_testdev_address(y_mem);

    env cpu = open_env("mlp_split.onnx", NULL);
    KT_FAILS(kiln_session_set_input_device(cpu.s, "x", KILN_DTYPE_FLOAT, x_dims, 2, x_dev,
                                           sizeof x_mem),
             KILN_ERR_UNSUPPORTED);
    EXPECT_MESSAGE("the session runs on cpu; set KILN_SOPT_DEVICE");
    KT_FAILS(kiln_session_bind_output_device(cpu.s, 0, y_dev, sizeof y_mem), KILN_ERR_UNSUPPORTED);
    EXPECT_MESSAGE("the session runs on cpu");
    void *stream = (void *)1;
    KT_FAILS(kiln_session_device_stream(cpu.s, &stream), KILN_ERR_UNSUPPORTED);
    cr_expect_null(stream);
    close_env(&cpu);

    env e = open_env("mlp_split.onnx", "testdev");
    KT_FAILS(kiln_session_set_input_device(e.s, "z", KILN_DTYPE_FLOAT, x_dims, 2, x_dev,
                                           sizeof x_mem),
             KILN_ERR_NOT_FOUND);
    EXPECT_MESSAGE("'z'");
    KT_FAILS(kiln_session_set_input_device(e.s, "x", KILN_DTYPE_INT32, x_dims, 2, x_dev,
                                           sizeof x_mem),
             KILN_ERR_DTYPE);
    EXPECT_MESSAGE("input 'x' expects float32, got int32");
    const int64_t wrong[2] = {ROWS, 15};
    KT_FAILS(kiln_session_set_input_device(e.s, "x", KILN_DTYPE_FLOAT, wrong, 2, x_dev,
                                           sizeof x_mem),
             KILN_ERR_SHAPE);
    EXPECT_MESSAGE("input 'x' expects shape");
    KT_FAILS(kiln_session_set_input_device(e.s, "x", KILN_DTYPE_FLOAT, x_dims, 2, x_dev,
                                           sizeof x_mem - 8),
             KILN_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("input 'x': 62 float32 elements given, the shape 4x16 needs 64");
    KT_FAILS(kiln_session_set_input_device(e.s, "x", KILN_DTYPE_FLOAT, x_dims, 2, NULL,
                                           sizeof x_mem),
             KILN_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("device pointer is NULL");
    KT_FAILS(kiln_session_set_input_device(NULL, "x", KILN_DTYPE_FLOAT, x_dims, 2, x_dev,
                                           sizeof x_mem),
             KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_bind_output_device(e.s, 2, y_dev, sizeof y_mem),
             KILN_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("output index 2 out of range: the model has 2 outputs");
    KT_FAILS(kiln_session_device_stream(e.s, NULL), KILN_ERR_INVALID_ARGUMENT);

    /* y's shape depends on N: a short buffer is found at the run */
    KT_OK(kiln_session_set_input_device(e.s, "x", KILN_DTYPE_FLOAT, x_dims, 2, x_dev,
                                        sizeof x_mem));
    KT_OK(kiln_session_bind_output_device(e.s, 0, y_dev, sizeof y_mem - 4));
    KT_FAILS(kiln_session_run(e.s), KILN_ERR_BUFFER_TOO_SMALL);
    EXPECT_MESSAGE("output 'y' (float32, shape 4x8) needs 128 bytes, the device buffer bound "
                   "to it has 124");
    kt_testdev_counts c = kt_testdev_counts_now();
    cr_expect_eq(c.queued, 0, "a failed run left %lld operations queued", (long long)c.queued);
    KT_OK(kiln_session_bind_output_device(e.s, 0, y_dev, sizeof y_mem));
    KT_OK(kiln_session_run(e.s));
    close_env(&e);
}

Test(device_io_on_test_double, fixed_output_shape_is_checked_at_the_bind)
{
    env e = open_env("if_outer.onnx", "testdev");
    float y_mem[80];
    KT_FAILS(kiln_session_bind_output_device(e.s, 0, kt_testdev_address(y_mem), 79 * 4),
             KILN_ERR_BUFFER_TOO_SMALL);
    EXPECT_MESSAGE("output 'y' needs 320 bytes, the device buffer has 316");
    /* an If reading an outer value plans eagerly on the host: a
     * device-bound input cannot take part */
    float x_mem[80];
    const int64_t dims[2] = {4, 20};
    const uint8_t cond = 1;
    KT_OK(kiln_session_set_input_device(e.s, "x", KILN_DTYPE_FLOAT, dims, 2,
                                        kt_testdev_address(x_mem), sizeof x_mem));
    KT_OK(kiln_session_set_input(e.s, "c", KILN_DTYPE_BOOL, NULL, 0, &cond, 1, 0));
    KT_FAILS(kiln_session_run(e.s), KILN_ERR_UNSUPPORTED);
    EXPECT_MESSAGE("input 'x' is bound to device memory, but this model's shapes depend on its "
                   "input values");
    close_env(&e);
}

/* An output the host computes (here every node: the If makes the session
 * plan eagerly, on the host) reaches the caller's device buffer by one
 * host→device copy, and the run waits for it. */
Test(device_io_on_test_double, output_made_on_the_host_is_copied_to_the_device)
{
    env e = open_env("if_outer.onnx", "testdev");
    float x[80], y_mem[80], want[80];
    for (int i = 0; i < 80; i++)
        x[i] = (float)(i % 7) - 3.0f;
    const int64_t dims[2] = {4, 20};
    const uint8_t cond = 1; /* y = relu(x) + relu(x) */
    memset(y_mem, 0, sizeof y_mem);
    KT_OK(kiln_session_bind_output_device(e.s, 0, kt_testdev_address(y_mem), sizeof y_mem));
    KT_OK(kiln_session_set_input(e.s, "x", KILN_DTYPE_FLOAT, dims, 2, x, sizeof x, 0));
    KT_OK(kiln_session_set_input(e.s, "c", KILN_DTYPE_BOOL, NULL, 0, &cond, 1, 0));
    kt_testdev_counts before = kt_testdev_counts_now();
    KT_OK(kiln_session_run(e.s));
    kt_testdev_counts after = kt_testdev_counts_now();
    KT_OK(kiln_session_output_copy(e.s, 0, want, sizeof want, NULL));
    cr_expect_eq(after.copies_to_device - before.copies_to_device, 1);
    cr_expect_eq(after.queued, 0, "the run returned before its copy ran");
    cr_expect_eq(memcmp(y_mem, want, sizeof want), 0, "the device buffer differs");
    cr_expect_eq(y_mem[79], 2.0f * fmaxf(x[79], 0.0f));
    close_env(&e);
}

/* A bound output made on the device goes from the device tensor straight
 * into the caller's buffer: the run makes no copy device→host of it (in the
 * profile and in the double's counts), while an output made on the host,
 * and unbound outputs, keep theirs. Reading a bound output on the host
 * still works: the read copies it over then, once per run. */
Test(device_io_on_test_double, bound_output_made_on_the_device_skips_the_host_copy)
{
    env e = open_env("mlp_split.onnx", "testdev");
    float y_want[Y_N], g_want[Y_N];
    host_bound_run(e.s, y_want, g_want);
    const int y_unbound = count_steps(e.s, "copy device→host", "y");
    cr_expect_eq(y_unbound, 1, "unbound, y made on the device is copied to the host once");
    kt_testdev_counts before = kt_testdev_counts_now();
    KT_OK(kiln_session_run(e.s));
    const int64_t to_host_unbound = kt_testdev_counts_now().copies_to_host - before.copies_to_host;

    float y_mem[Y_N], g_mem[Y_N];
    memset(y_mem, 0, sizeof y_mem);
    memset(g_mem, 0, sizeof g_mem);
    KT_OK(kiln_session_bind_output_device(e.s, 0, kt_testdev_address(y_mem), sizeof y_mem));
    KT_OK(kiln_session_bind_output_device(e.s, 1, kt_testdev_address(g_mem), sizeof g_mem));
    KT_OK(kiln_session_run(e.s)); /* a new signature: plans once */
    cr_expect_eq(count_steps(e.s, "copy device→host", "y"), 0, "bound y still copied to the host");
    before = kt_testdev_counts_now();
    KT_OK(kiln_session_run(e.s));
    kt_testdev_counts after = kt_testdev_counts_now();
    cr_expect_eq(after.copies_to_host - before.copies_to_host, to_host_unbound - 1,
                 "copies device→host per run: %lld bound, %lld unbound",
                 (long long)(after.copies_to_host - before.copies_to_host),
                 (long long)to_host_unbound);
    cr_expect_eq(memcmp(y_mem, y_want, sizeof y_want), 0, "y in the device buffer differs");
    cr_expect_eq(memcmp(g_mem, g_want, sizeof g_want), 0, "gate in the device buffer differs");

    /* the host read fetches y once, then reads what it fetched */
    float y_host[Y_N];
    memset(y_host, 0, sizeof y_host);
    KT_OK(kiln_session_output_copy(e.s, 0, y_host, sizeof y_host, NULL));
    KT_OK(kiln_session_output_copy(e.s, 0, y_host, sizeof y_host, NULL));
    kt_testdev_counts read = kt_testdev_counts_now();
    cr_expect_eq(read.copies_to_host - after.copies_to_host, 1, "y fetched %lld times",
                 (long long)(read.copies_to_host - after.copies_to_host));
    cr_expect_eq(read.queued, 0);
    cr_expect_eq(memcmp(y_host, y_want, sizeof y_want), 0, "y read on the host differs");

    /* unbinding brings the copy back (the earlier plan, from the cache) */
    KT_OK(kiln_session_bind_output_device(e.s, 0, NULL, 0));
    KT_OK(kiln_session_bind_output_device(e.s, 1, NULL, 0));
    KT_OK(kiln_session_run(e.s));
    cr_expect_eq(count_steps(e.s, "copy device→host", "y"), 1);
    close_env(&e);
}
