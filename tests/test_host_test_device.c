/* Device execution in the engine, through the public C API, on the
 * "testdev" test double (support/host_test_device.h): a device whose
 * pointers fault on the host and whose work runs only at a sync. The model
 * (data/devices/mlp_split.onnx, written by make_device_models.py) has a Sigmoid
 * the double does not serve, so its plan runs device -> cpu -> device.
 * Checks: the same outputs as the CPU, the copies and syncs in the profile,
 * constants uploaded once per model and shared by its sessions, no device
 * or host allocation per run, the device option's errors (an opt-in backend
 * never probed unless named), and the memory limit on the device arena. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "alloc_count.h"
#include "api_helpers.h"
#include "api_internal.h"
#include "core/engine/devices.h"
#include "core/engine/registry.h"
#include "core/engine/weight_store.h"
#include "testdev_suite.h"

TestSuite(host_test_device, .init = kt_testdev_suite_setup,
          .fini = kt_testdev_suite_teardown);

typedef struct env {
    kiln_runtime *rt;
    kiln_options *o;
    kiln_model *m;
} env;

/* The model loaded at optimization level `optimize` (1 keeps Gemm+Relu
 * apart, so the double serves them), with profiling on and `device`. */
static env open_env(int optimize, const char *device)
{
    env e = {.rt = kt_runtime(1)};
    KT_OK(kiln_options_create(&e.o));
    KT_OK(kiln_options_set_int(e.o, KILN_OPT_OPTIMIZE, optimize));
    KT_OK(kiln_options_set_int(e.o, KILN_OPT_PROFILE, 1));
    if (device)
        KT_OK(kiln_options_set_string(e.o, KILN_SOPT_DEVICE, device));
    KT_OK(kiln_model_load_file(e.rt, kt_src_path("tests/data/devices/mlp_split.onnx"), e.o, &e.m));
    return e;
}

static void close_env(env *e)
{
    kiln_model_destroy(e->m);
    kiln_options_destroy(e->o);
    kiln_runtime_destroy(e->rt);
}

static void fill_input(float *x, int64_t rows)
{
    for (int64_t i = 0; i < rows * 16; i++)
        x[i] = (float)((i * 37) % 23) / 11.0f - 1.0f;
}

/* One run of session s on rows x 16 inputs; y and gate get rows x 8 each. */
static void run_once(kiln_session *s, int64_t rows, float *y, float *gate)
{
    static float x[64 * 16];
    cr_assert_leq(rows, 64);
    fill_input(x, rows);
    const int64_t dims[2] = {rows, 16};
    KT_OK(kiln_session_set_input(s, "x", KILN_DTYPE_FLOAT, dims, 2, x,
                                 (size_t)(rows * 16) * sizeof(float), 0));
    KT_OK(kiln_session_run(s));
    KT_OK(kiln_session_output_copy(s, 0, y, (size_t)(rows * 8) * sizeof(float), NULL));
    KT_OK(kiln_session_output_copy(s, 1, gate, (size_t)(rows * 8) * sizeof(float), NULL));
}

static void outputs_on(int optimize, const char *device, int64_t rows, float *y, float *gate)
{
    env e = open_env(optimize, device);
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(e.m, e.o, &s));
    run_once(s, rows, y, gate);
    kiln_session_destroy(s);
    close_env(&e);
}

static double max_abs_diff(const float *a, const float *b, int64_t n)
{
    double worst = 0;
    for (int64_t i = 0; i < n; i++)
        worst = fmax(worst, fabs((double)a[i] - (double)b[i]));
    return worst;
}

static void compare_with_cpu(int optimize, const char *device)
{
    float y_cpu[64 * 8], g_cpu[64 * 8], y_dev[64 * 8], g_dev[64 * 8];
    outputs_on(optimize, "cpu", 5, y_cpu, g_cpu);
    outputs_on(optimize, device, 5, y_dev, g_dev);
    double dy = max_abs_diff(y_cpu, y_dev, 40), dg = max_abs_diff(g_cpu, g_dev, 40);
    cr_expect_leq(dy, 1e-6, "y differs from the CPU's by %g on %s", dy, device);
    cr_expect_leq(dg, 1e-6, "gate differs from the CPU's by %g on %s", dg, device);
    double sum = 0;
    for (int i = 0; i < 40; i++)
        sum += fabs(y_cpu[i]);
    cr_expect_gt(sum, 0.1, "the reference output is all zeros: the comparison shows nothing");
}

Test(host_test_device, same_outputs_as_cpu)
{
    compare_with_cpu(1, "testdev");
    kt_testdev_counts c = kt_testdev_counts_now();
    /* Gemm, Relu, MatMul, then MatMul, Add, Relu: six kernels per run */
    cr_expect_eq(c.kernels_run, 6, "kernels run on the device: %lld", (long long)c.kernels_run);
}

Test(host_test_device, same_outputs_on_device_1_and_fused_graph)
{
    compare_with_cpu(1, "testdev:1");
    compare_with_cpu(2, "testdev"); /* fusion leaves the double fewer nodes */
}

/* The profile's steps as "kernel:name" lines, in order. */
static int profile_lines(kiln_session *s, char lines[][96], int cap)
{
    int32_t n = 0;
    KT_OK(kiln_session_profile_count(s, &n));
    cr_assert_leq(n, cap);
    for (int32_t i = 0; i < n; i++) {
        char kernel[32], name[64];
        KT_OK(kiln_session_profile_kernel(s, i, kernel, sizeof kernel, NULL));
        KT_OK(kiln_session_profile_name(s, i, name, sizeof name, NULL));
        snprintf(lines[i], sizeof lines[i], "%s:%s", kernel, name);
    }
    return n;
}

Test(host_test_device, profile_shows_partitions_copies_and_syncs)
{
    env e = open_env(1, "testdev");
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(e.m, e.o, &s));
    float y[16], gate[16];
    run_once(s, 2, y, gate);
    char lines[32][96];
    int n = profile_lines(s, lines, 32);
    /* x goes over, the first partition runs, its MatMul output comes back
     * for the CPU's Sigmoid (and the first output, gate, is computed on the
     * host), gate goes over, the second partition runs, y comes back */
    const char *want[] = {
        "testdev:copy host→device (128 bytes) 'x'",
        "testdev:fc1",
        "testdev:relu1",
        "testdev:fc2",
        "testdev:copy device→host (64 bytes) 'm'",
        "testdev:sync testdev",
        "cpu:gate",
        "testdev:copy host→device (64 bytes) 'gate'",
        "testdev:fc3",
        "testdev:bias3",
        "testdev:relu3",
        "testdev:copy device→host (64 bytes) 'y'",
        "testdev:sync testdev",
    };
    int n_want = (int)(sizeof want / sizeof want[0]);
    cr_expect_eq(n, n_want, "%d profile steps, expected %d", n, n_want);
    for (int i = 0; i < n && i < n_want; i++)
        cr_expect_str_eq(lines[i], want[i], "step %d", i);
    char op[16];
    KT_OK(kiln_session_profile_op(s, 0, op, sizeof op, NULL));
    cr_expect_str_eq(op, "Copy");
    kiln_session_destroy(s);
    close_env(&e);
}

static kn_weight_store_stats store_stats(kiln_model *m)
{
    kn_weight_store_stats st;
    kn_weight_store_get_stats(m->core->weights, &st);
    return st;
}

Test(host_test_device, sessions_of_a_model_share_its_uploaded_constants)
{
    env e = open_env(1, "testdev");
    kiln_session *a = NULL, *b = NULL;
    float y[16], gate[16];
    KT_OK(kiln_session_create(e.m, e.o, &a));
    run_once(a, 2, y, gate);
    kt_testdev_counts after_a = kt_testdev_counts_now();
    kn_weight_store_stats st = store_stats(e.m);
    /* W1, b1, W2, W3, b3: each once */
    cr_expect_eq(st.device_uploads, 5, "uploads: %lld", (long long)st.device_uploads);
    cr_expect_eq(st.n_device, 5);
    cr_expect_eq(st.device_bytes, (int64_t)(16 * 64 + 64 + 64 * 8 + 8 * 8 + 8) * 4);
    KT_OK(kiln_session_create(e.m, e.o, &b));
    run_once(b, 2, y, gate);
    kt_testdev_counts after_b = kt_testdev_counts_now();
    st = store_stats(e.m);
    cr_expect_eq(st.device_uploads, 5, "the second session uploaded again: %lld",
                 (long long)st.device_uploads);
    /* the second session's only allocation: its device arena */
    cr_expect_eq(after_b.allocs - after_a.allocs, 1, "allocations for session b: %lld",
                 (long long)(after_b.allocs - after_a.allocs));
    cr_expect_eq(after_b.opens, 1, "the model opened its device %lld times",
                 (long long)after_b.opens);
    kiln_session_destroy(a);
    kiln_session_destroy(b);
    /* the uploads stay with the model until it goes */
    cr_expect_eq(kt_testdev_counts_now().live_allocs, 5);
    close_env(&e);
}

Test(host_test_device, runs_allocate_nothing_on_device_or_host)
{
    env e = open_env(1, "testdev");
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(e.m, e.o, &s));
    float y[64 * 8], gate[64 * 8], y0[64 * 8];
    run_once(s, 4, y0, gate); /* plans for 4 rows */
    kt_testdev_counts before = kt_testdev_counts_now();
#if KT_CAN_COUNT_ALLOCS
    atomic_store(&alloc_calls, 0);
    atomic_store(&counting, 1);
#endif
    for (int i = 0; i < 300; i++)
        run_once(s, 4, y, gate);
#if KT_CAN_COUNT_ALLOCS
    atomic_store(&counting, 0);
    cr_expect_eq(atomic_load(&alloc_calls), 0, "host allocations in 300 runs: %ld",
                 (long)atomic_load(&alloc_calls));
#endif
    kt_testdev_counts after = kt_testdev_counts_now();
    cr_expect_eq(after.allocs, before.allocs, "device allocations in 300 runs: %lld",
                 (long long)(after.allocs - before.allocs));
    cr_expect_eq(after.live_bytes, before.live_bytes);
    cr_expect_eq(after.syncs - before.syncs, 600, "two syncs per run, got %lld in 300 runs",
                 (long long)(after.syncs - before.syncs));
    cr_expect_leq(max_abs_diff(y, y0, 32), 0.0, "runs of the same input differ");
    kiln_session_destroy(s);
    close_env(&e);
}

/* The message of a session creation that fails with `code`. */
static void create_fails(const char *device, int32_t code, char *msg, size_t cap)
{
    env e = open_env(1, NULL);
    KT_OK(kiln_options_set_string(e.o, KILN_SOPT_DEVICE, device));
    kiln_session *s = NULL;
    KT_FAILS(kiln_session_create(e.m, e.o, &s), code);
    kiln_last_error(msg, cap);
    cr_expect_null(s);
    close_env(&e);
}

Test(host_test_device, unknown_device_lists_the_backends_without_probing_opt_in_ones)
{
    char msg[512];
    create_fails("gpu", KILN_ERR_INVALID_ARGUMENT, msg, sizeof msg);
    cr_expect_str_eq(msg, "unknown device 'gpu': the backends built in are testdev (opt-in, not "
                          "probed), cpu (available); a device is named \"cpu\", \"NAME\" or "
                          "\"NAME:INDEX\"");
    create_fails("testdev:x", KILN_ERR_INVALID_ARGUMENT, msg, sizeof msg);
    cr_expect(strstr(msg, "the index after ':' must be a number") != NULL, "%s", msg);
    cr_expect_eq(kt_testdev_counts_now().probes, 0, "an opt-in backend was probed");
    create_fails("testdev:7", KILN_ERR_NOT_FOUND, msg, sizeof msg);
    cr_expect_str_eq(msg, "testdev: no device 7 (there are 2: 0 and 1)");
    kt_testdev_set_available(0);
    create_fails("testdev", KILN_ERR_UNSUPPORTED, msg, sizeof msg);
    cr_expect(strstr(msg, "built in but not available") != NULL, "%s", msg);
    create_fails("cpu:1", KILN_ERR_UNSUPPORTED, msg, sizeof msg);
}

Test(host_test_device, cpu_sessions_never_probe_or_open_an_opt_in_backend)
{
    float y[16], gate[16];
    outputs_on(2, NULL, 2, y, gate);
    outputs_on(2, "cpu", 2, y, gate);
    kt_testdev_counts c = kt_testdev_counts_now();
    cr_expect_eq(c.probes, 0);
    cr_expect_eq(c.opens, 0);
}

Test(host_test_device, memory_limit_applies_to_the_device_arena)
{
    /* 4096 rows: a and h, device-only, are 1 MiB each; the host keeps
     * m, gate and y (128 KiB each) */
    env e = open_env(1, "testdev");
    KT_OK(kiln_options_set_int(e.o, KILN_OPT_MAX_ARENA_MB, 1));
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(e.m, e.o, &s));
    static float x[4096 * 16];
    fill_input(x, 4096);
    const int64_t dims[2] = {4096, 16};
    KT_OK(kiln_session_set_input(s, "x", KILN_DTYPE_FLOAT, dims, 2, x, sizeof x, 0));
    KT_FAILS(kiln_session_run(s), KILN_ERR_LIMIT);
    char msg[256];
    kiln_last_error(msg, sizeof msg);
    cr_expect(strstr(msg, "device memory plan (testdev) needs") != NULL, "%s", msg);
    /* a smaller batch fits the limit and runs */
    float y[64 * 8], gate[64 * 8];
    run_once(s, 64, y, gate);
    kiln_session_destroy(s);
    close_env(&e);
}

/* y of if_outer.onnx on device for branch condition c. */
static void if_outer_on(const char *device, int c, float y[80])
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_options *o = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_string(o, KILN_SOPT_DEVICE, device));
    kiln_model *m = NULL;
    KT_OK(kiln_model_load_file(rt, kt_src_path("tests/data/devices/if_outer.onnx"), o, &m));
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, o, &s));
    float x[80];
    for (int i = 0; i < 80; i++)
        x[i] = (float)(i % 7) - 3.0f;
    const uint8_t cond = (uint8_t)c;
    const int64_t dims[2] = {4, 20};
    KT_OK(kiln_session_set_input(s, "x", KILN_DTYPE_FLOAT, dims, 2, x, sizeof x, 0));
    KT_OK(kiln_session_set_input(s, "c", KILN_DTYPE_BOOL, NULL, 0, &cond, 1, 0));
    KT_OK(kiln_session_run(s));
    KT_OK(kiln_session_output_copy(s, 0, y, 80 * sizeof(float), NULL));
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_options_destroy(o);
    kiln_runtime_destroy(rt);
}

/* An If runs its branch while the plan is built, and its branch reads r,
 * which the graph computes: such a session plans every run eagerly, on the
 * host, device option or not. */
Test(host_test_device, eager_sessions_run_on_the_host)
{
    for (int c = 0; c < 2; c++) {
        float cpu[80], dev[80];
        if_outer_on("cpu", c, cpu);
        if_outer_on("testdev", c, dev);
        for (int i = 0; i < 80; i++)
            cr_expect_eq(dev[i], cpu[i], "c=%d y[%d]: %g on testdev, %g on cpu", c, i,
                         (double)dev[i], (double)cpu[i]);
        cr_expect_eq(cpu[6], c ? 6.0f : -3.0f); /* x = 3 */
    }
    kt_testdev_counts n = kt_testdev_counts_now();
    cr_expect_eq(n.kernels_run, 0, "%lld kernels ran on the device", (long long)n.kernels_run);
    cr_expect_eq(n.opens, 2, "each model opens its device: %lld", (long long)n.opens);
}

/* A layout of the device kernels' own: every float negated. */
static int negate(const void *key, size_t key_len, int to_packed, const void *src, void *dst,
                  int32_t threads, kn_err *err)
{
    (void)key;
    (void)key_len;
    (void)to_packed;
    (void)threads;
    (void)err;
    const float *s = src;
    float *d = dst;
    for (int i = 0; i < 16 * 64; i++)
        d[i] = -s[i];
    return KN_OK;
}

/* What a device kernel does for a weight in its own layout: one packed
 * upload per (value, key, device), shared, kept until the model goes. */
Test(host_test_device, kernels_share_packed_device_weights_by_key)
{
    env e = open_env(1, NULL);
    const kn_graph *g = e.m->core->graph;
    int32_t w1 = -1;
    for (int32_t v = 0; v < g->n_values; v++)
        if (strcmp(g->values[v].name, "W1") == 0)
            w1 = v;
    cr_assert_geq(w1, 0);
    kn_err err = {0};
    void *dev = NULL, *a = NULL, *b = NULL, *raw = NULL;
    cr_assert_eq(kn_model_device_open(e.m->core->devices, &kt_host_test_device, 0, &dev, &err),
                 KN_OK, "%s", err.msg);
    kn_weight_store *ws = e.m->core->weights;
    const size_t bytes = 16 * 64 * sizeof(float);
    cr_assert_eq(kn_weight_store_acquire_device(ws, w1, "neg", 3, bytes, negate,
                                                &kt_host_test_device.memory, dev, 1, &a, &err),
                 KN_OK, "%s", err.msg);
    cr_assert_eq(kn_weight_store_acquire_device(ws, w1, "neg", 3, bytes, negate,
                                                &kt_host_test_device.memory, dev, 1, &b, &err),
                 KN_OK, "%s", err.msg);
    cr_assert_eq(kn_weight_store_acquire_device(ws, w1, NULL, 0, bytes, NULL,
                                                &kt_host_test_device.memory, dev, 1, &raw, &err),
                 KN_OK, "%s", err.msg);
    cr_expect_eq(a, b, "the same key gave two copies");
    cr_expect_neq(a, raw, "another key shared a copy");
    cr_expect_geq((uintptr_t)a, KT_TESTDEV_OFFSET, "not a device pointer");
    kn_weight_store_stats st = store_stats(e.m);
    cr_expect_eq(st.device_uploads, 2);
    const float *host_w1 = g->values[w1].init_data;
    const float *packed = (const float *)((uintptr_t)a - KT_TESTDEV_OFFSET);
    for (int i = 0; i < 16 * 64; i++)
        cr_assert_eq(packed[i], -host_w1[i], "element %d", i);
    kn_weight_store_release_device(ws, a);
    kn_weight_store_release_device(ws, b);
    kn_weight_store_release_device(ws, raw);
    cr_expect_eq(kt_testdev_counts_now().live_allocs, 2, "freed before the model");
    close_env(&e);
}

/* A run that stops part way still leaves nothing queued: the device must
 * not read the caller's inputs after the run returned. */
Test(host_test_device, failed_run_drains_the_device_queue)
{
    env e = open_env(1, "testdev");
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(e.m, e.o, &s));
    float y[16], gate[16], y0[16];
    run_once(s, 2, y0, gate);
    static float x[2 * 16];
    fill_input(x, 2);
    const int64_t dims[2] = {2, 16};
    KT_OK(kiln_session_set_input(s, "x", KILN_DTYPE_FLOAT, dims, 2, x, sizeof x, 0));
    kt_testdev_fail_kernels(1); /* fc1, after x's copy was queued */
    KT_FAILS(kiln_session_run(s), KILN_ERR_INTERNAL);
    char msg[256];
    kiln_last_error(msg, sizeof msg);
    cr_expect(strstr(msg, "node 'fc1' (Gemm)") != NULL, "%s", msg);
    cr_expect_eq(kt_testdev_counts_now().queued, 0, "%lld operations left queued",
                 (long long)kt_testdev_counts_now().queued);
    run_once(s, 2, y, gate); /* and the session runs again, with the same results */
    cr_expect_leq(max_abs_diff(y, y0, 16), 0.0);
    kiln_session_destroy(s);
    close_env(&e);
}
