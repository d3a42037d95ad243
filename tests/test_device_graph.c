/* Captured device graphs (KILN_OPT_DEVICE_GRAPH, core/engine/plan_graph.c)
 * on the "testdev" TEST DOUBLE (support/host_test_device.h), whose graphs
 * record the queued work and queue it again on a launch. The model
 * (data/devices/mlp_device.onnx) has only ops the double serves, so every
 * step is device work; mlp_split.onnx has a Sigmoid the double does not
 * serve, so its plan has host steps and must run plainly. Checks: the same
 * outputs with and without graphs over runs whose input values change
 * (a replay reads fresh inputs through the staging buffers), one capture
 * per shape, the plain fallback and its reason, the profile's replay line,
 * and no allocation or growth over 200 replays. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "alloc_count.h"
#include "api_helpers.h"
#include "api_internal.h"
#include "core/engine/registry.h"
#include "testdev_suite.h"

TestSuite(device_graph, .init = kt_testdev_suite_setup,
          .fini = kt_testdev_suite_teardown);

typedef struct env {
    kiln_runtime *rt;
    kiln_options *o;
    kiln_model *m;
    kiln_session *s;
} env;

static env open_env(const char *model, const char *device, int graph)
{
    env e = {.rt = kt_runtime(1)};
    KT_OK(kiln_options_create(&e.o));
    KT_OK(kiln_options_set_int(e.o, KILN_OPT_OPTIMIZE, 1)); /* keeps Gemm and Relu apart */
    KT_OK(kiln_options_set_int(e.o, KILN_OPT_PROFILE, 1));
    KT_OK(kiln_options_set_int(e.o, KILN_OPT_DEVICE_GRAPH, graph));
    KT_OK(kiln_options_set_string(e.o, KILN_SOPT_DEVICE, device));
    KT_OK(kiln_model_load_file(e.rt, kt_src_path(model), e.o, &e.m));
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

/* Run `run` of a rows x 16 input whose values depend on run; y gets rows x 8. */
static void run_once(kiln_session *s, int64_t rows, int run, float *y)
{
    float x[64 * 16];
    for (int64_t i = 0; i < rows * 16; i++)
        x[i] = (float)(((i + 7 * run) * 37) % 23) / 11.0f - 1.0f + 0.01f * (float)run;
    const int64_t dims[2] = {rows, 16};
    KT_OK(kiln_session_set_input(s, "x", KILN_DTYPE_FLOAT, dims, 2, x,
                                 (size_t)(rows * 16) * sizeof(float), 0));
    KT_OK(kiln_session_run(s));
    KT_OK(kiln_session_output_copy(s, 0, y, (size_t)(rows * 8) * sizeof(float), NULL));
}

static kn_plan_graph_info graph_info(const env *e)
{
    return kn_plan_graph_status(kn_session_plan(e->s->core));
}

Test(device_graph, replays_equal_plain_runs_with_changing_inputs)
{
    env plain = open_env("tests/data/devices/mlp_device.onnx", "testdev", 0);
    env graph = open_env("tests/data/devices/mlp_device.onnx", "testdev", 1);
    float y0[64 * 8], y1[64 * 8], first[64 * 8];
    double worst = 0, moved = 0;
    for (int run = 0; run < 50; run++) {
        run_once(plain.s, 6, run, y0);
        run_once(graph.s, 6, run, y1);
        if (run == 0)
            memcpy(first, y1, sizeof first);
        for (int i = 0; i < 48; i++) {
            worst = fmax(worst, fabs((double)y0[i] - (double)y1[i]));
            moved = fmax(moved, fabs((double)y1[i] - (double)first[i]));
        }
    }
    cr_expect_eq(worst, 0.0, "graph replays differ from plain runs by %g", worst);
    cr_expect_gt(moved, 0.01, "outputs never changed: the replays did not read fresh inputs");
    kn_plan_graph_info gi = graph_info(&graph);
    cr_expect_null(gi.plain_reason, "runs plainly: %s", gi.plain_reason);
    cr_expect_eq(gi.captures, 1);
    cr_expect_eq(gi.replays, 49, "replays: %lld", (long long)gi.replays);
    cr_expect_eq(kt_testdev_counts_now().graph_launches, 49);
    cr_expect_eq(graph_info(&plain).replays, 0);

    /* the profile names the replays' step */
    int32_t n = 0;
    KT_OK(kiln_session_profile_count(graph.s, &n));
    char name[96];
    KT_OK(kiln_session_profile_name(graph.s, n - 1, name, sizeof name, NULL));
    char want[64];
    snprintf(want, sizeof want, "graph replay (%d steps)", (int)n);
    cr_expect_str_eq(name, want);
    close_env(&plain);
    close_env(&graph);
}

Test(device_graph, a_new_shape_captures_again)
{
    env e = open_env("tests/data/devices/mlp_device.onnx", "testdev", 1);
    float y[64 * 8], ref[64 * 8];
    env plain = open_env("tests/data/devices/mlp_device.onnx", "testdev", 0);
    /* the largest first: the session's shared arenas never move, so each
     * plan captures once */
    const int64_t rows[] = {17, 17, 17, 8, 8, 3, 17, 3};
    for (int i = 0; i < 8; i++) {
        run_once(e.s, rows[i], i, y);
        run_once(plain.s, rows[i], i, ref);
        for (int j = 0; j < rows[i] * 8; j++)
            cr_assert_eq(y[j], ref[j], "run %d, element %d: %g, plain %g", i, j, (double)y[j],
                         (double)ref[j]);
    }
    /* one capture per plan (17, 8 and 3 rows); back to 17 rows replays
     * the plan kept for it; every other run is a replay */
    cr_expect_eq(kt_testdev_counts_now().graphs_captured, 3);
    cr_expect_eq(kt_testdev_counts_now().graph_launches, 8 - 3);
    close_env(&plain);
    close_env(&e);
}

Test(device_graph, a_plan_with_host_steps_runs_plainly_and_says_why)
{
    env e = open_env("tests/data/devices/mlp_split.onnx", "testdev", 1);
    float x[4 * 16] = {0.5f}, y[4 * 8];
    const int64_t dims[2] = {4, 16};
    for (int run = 0; run < 3; run++) {
        KT_OK(kiln_session_set_input(e.s, "x", KILN_DTYPE_FLOAT, dims, 2, x, sizeof x, 0));
        KT_OK(kiln_session_run(e.s));
        KT_OK(kiln_session_output_copy(e.s, 0, y, sizeof y, NULL));
    }
    kn_plan_graph_info gi = graph_info(&e);
    cr_expect_str_eq(gi.plain_reason ? gi.plain_reason : "(none)",
                     "a host step runs between device steps");
    cr_expect_eq(gi.captures, 0);
    cr_expect_eq(kt_testdev_counts_now().graphs_captured, 0);
    /* the profile says so on the last step */
    int32_t n = 0;
    KT_OK(kiln_session_profile_count(e.s, &n));
    char name[256];
    KT_OK(kiln_session_profile_name(e.s, n - 1, name, sizeof name, NULL));
    cr_expect_str_eq(name, "sync testdev (no device graph: a host step runs between device steps)");
    close_env(&e);
}

Test(device_graph, replays_allocate_nothing_and_do_not_grow)
{
    env e = open_env("tests/data/devices/mlp_device.onnx", "testdev", 1);
    float y[64 * 8];
    run_once(e.s, 4, 0, y); /* plans and captures */
    run_once(e.s, 4, 1, y);
    kt_testdev_counts before = kt_testdev_counts_now();
#if KT_CAN_COUNT_ALLOCS
    atomic_store(&alloc_calls, 0);
    atomic_store(&counting, 1);
#endif
    for (int i = 0; i < 200; i++)
        run_once(e.s, 4, i, y);
#if KT_CAN_COUNT_ALLOCS
    atomic_store(&counting, 0);
    cr_expect_eq(atomic_load(&alloc_calls), 0, "host allocations in 200 replays: %ld",
                 (long)atomic_load(&alloc_calls));
#endif
    kt_testdev_counts after = kt_testdev_counts_now();
    cr_expect_eq(after.allocs, before.allocs);
    cr_expect_eq(after.live_bytes, before.live_bytes);
    cr_expect_eq(after.graphs_live, 1);
    cr_expect_eq(after.graph_launches - before.graph_launches, 200);
    cr_expect_eq(after.queued, 0, "%lld operations left queued", (long long)after.queued);
    close_env(&e);
}

Test(device_graph, a_grown_arena_records_again)
{
    env e = open_env("tests/data/devices/mlp_device.onnx", "testdev", 1);
    env plain = open_env("tests/data/devices/mlp_device.onnx", "testdev", 0);
    float y[64 * 8], ref[64 * 8];
    /* 3 rows, then 40 (the session's arenas grow and move), then 3 again:
     * the 3-row recording points into the freed arenas and must not replay */
    const int64_t rows[] = {3, 3, 40, 3, 3};
    for (int i = 0; i < 5; i++) {
        run_once(e.s, rows[i], i, y);
        run_once(plain.s, rows[i], i, ref);
        cr_expect_eq(memcmp(y, ref, (size_t)(rows[i] * 8) * sizeof(float)), 0,
                     "run %d (%lld rows) differs from the plain run", i, (long long)rows[i]);
    }
    kt_testdev_counts c = kt_testdev_counts_now();
    cr_expect_eq(c.graphs_captured, 3, "captures: %lld", (long long)c.graphs_captured);
    cr_expect_eq(c.graph_launches, 2, "replays: %lld", (long long)c.graph_launches);
    cr_expect_eq(c.graphs_live, 2, "a stale recording was kept");
    close_env(&plain);
    close_env(&e);
}
