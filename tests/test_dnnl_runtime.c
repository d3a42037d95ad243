/* The runtime with oneDNN kernels: nodes oneDNN declines run on Kiln's
 * kernels with the same results; steady-state runs allocate nothing of
 * Kiln's own (oneDNN 2.6's dnnl_primitive_execute builds its argument map
 * on the heap: a handful of small blocks per call, bounded here); OpenMP's
 * workers go to sleep after a run; sessions with different thread counts
 * take turns on one model. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_opt_util.h"

#define MODEL(name) KILN_SOURCE_DIR "/tests/data/models/" name
#define DEFAULT_LEVEL 2 /* KILN_OPT_OPTIMIZE's default */

#include "alloc_count.h"
#include "idle_cpu.h"

#ifdef KILN_WITH_DNNL

static kiln_session *profiled_session(kiln_model *m, const opt_inputs *in)
{
    kiln_options *o = NULL;
    kiln_session *s = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_int(o, KILN_OPT_PROFILE, 1));
    KT_OK(kiln_session_create(m, o, &s));
    kiln_options_destroy(o);
    for (int32_t i = 0; i < in->n; i++)
        KT_OK(kiln_session_set_input_at(s, i, in->dtype[i], in->dims[i], in->rank[i], in->data[i],
                                        in->nbytes[i], 0));
    KT_OK(kiln_session_run(s));
    return s;
}

static int dnnl_steps(const kiln_session *s)
{
    int32_t n = 0, hits = 0;
    KT_OK(kiln_session_profile_count(s, &n));
    for (int32_t i = 0; i < n; i++) {
        char kernel[16];
        KT_OK(kiln_session_profile_kernel(s, i, kernel, sizeof kernel, NULL));
        hits += strcmp(kernel, "dnnl") == 0;
    }
    return hits;
}

/* The digits CNN is small enough that every node declines oneDNN: the plan
 * falls back to Kiln's kernels node by node and agrees bit for bit. */
Test(dnnl_runtime, declined_nodes_run_on_kiln_kernels)
{
    kiln_runtime *rt = kt_runtime(1);
    const char *digits = kt_src_path("examples/digits/digits.onnx");
    kiln_model *with = opt_load_dnnl(rt, digits, DEFAULT_LEVEL, 1);
    kiln_model *without = opt_load_dnnl(rt, digits, DEFAULT_LEVEL, 0);
    opt_inputs in = {.n = 1, .dtype = {KILN_DTYPE_FLOAT}, .rank = {4}, .dims = {{1, 1, 8, 8}},
                     .nbytes = {64 * sizeof(float)}};
    float x[64];
    for (int i = 0; i < 64; i++)
        x[i] = (float)((i * 37) % 17) / 16.0f;
    in.data[0] = x;
    kiln_session *a = profiled_session(with, &in), *b = opt_run(without, &in);
    cr_assert_eq(dnnl_steps(a), 0, "tiny nodes should decline oneDNN");
    opt_compare_sessions(a, b, 1, 0, 0);
    kiln_session_destroy(a);
    kiln_session_destroy(b);
    kiln_model_destroy(with);
    kiln_model_destroy(without);
    kiln_runtime_destroy(rt);
}

/* oneDNN convolutions write Y over a residual Z read for the last time
 * (KN_OP_INPLACE_Z), but not over one that is also their input X
 * (Conv(a) + a): both blocks agree with Kiln's own kernels. */
Test(dnnl_runtime, residual_overwritten_in_place)
{
    kiln_runtime *rt = kt_runtime(1);
    const char *path = MODEL("opt_conv_residual_inplace.onnx");
    kiln_model *with = opt_load_dnnl(rt, path, DEFAULT_LEVEL, 1);
    kiln_model *without = opt_load_dnnl(rt, path, DEFAULT_LEVEL, 0);
    opt_inputs in;
    opt_make_inputs(with, &in);
    kiln_session *a = profiled_session(with, &in), *b = opt_run(without, &in);
    cr_assert_eq(dnnl_steps(a), 4, "oneDNN serves the four convolutions");
    /* the model without oneDNN runs its 3x3 convolutions as Winograd
     * F(4x4,3x3) (conv_winograd.c), whose transforms cost about 3 bits:
     * its outputs sit about 1e-5 of the largest from a direct convolution */
    opt_compare_sessions(a, b, 1, 4e-5, 0);
    kiln_session_destroy(a);
    kiln_session_destroy(b);
    opt_free_inputs(&in);
    kiln_model_destroy(with);
    kiln_model_destroy(without);
    kiln_runtime_destroy(rt);
}

static void steady_state(int32_t threads)
{
#if !KT_CAN_COUNT_ALLOCS
    (void)threads;
    cr_skip_test("allocation counting is impossible under AddressSanitizer (it owns malloc)");
#else
    kiln_runtime *rt = kt_runtime(threads);
    kiln_model *m = opt_load_dnnl(rt, MODEL("layout_stack.onnx"), DEFAULT_LEVEL, 1);
    opt_inputs in;
    opt_make_inputs(m, &in);
    kiln_session *s = profiled_session(m, &in);
    int steps = dnnl_steps(s);
    cr_assert_geq(steps, 5, "oneDNN serves the convolutions and pools (%d steps)", steps);
    atomic_store(&alloc_calls, 0);
    atomic_store(&counting, 1);
    for (int i = 0; i < 20; i++)
        KT_OK(kiln_session_run(s));
    atomic_store(&counting, 0);
    long calls = atomic_load(&alloc_calls);
    fprintf(stderr, "threads=%d: %.1f heap allocations per run, %d oneDNN steps\n", (int)threads,
            calls / 20.0, steps);
    /* everything planned; what remains is oneDNN's per-call argument map */
    cr_assert_leq(calls, 20L * 10 * steps, "%ld allocations in 20 runs", calls);
    kiln_session_destroy(s);
    opt_free_inputs(&in);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
#endif
}

Test(dnnl_runtime, steady_state_allocations_are_onednn_call_overhead_only_1_thread)
{
    steady_state(1);
}
Test(dnnl_runtime, steady_state_allocations_are_onednn_call_overhead_only_2_threads)
{
    steady_state(2);
}

Test(dnnl_runtime, openmp_workers_sleep_after_runs)
{
    int policy_was_set = getenv("GOMP_SPINCOUNT") != NULL;
    kiln_runtime *rt = kt_runtime(3);
    kiln_model *m = opt_load_dnnl(rt, MODEL("layout_stack.onnx"), DEFAULT_LEVEL, 1);
    opt_inputs in;
    opt_make_inputs(m, &in);
    kiln_session *s = opt_run(m, &in);
    for (int i = 0; i < 20; i++)
        KT_OK(kiln_session_run(s));
    double used = kt_idle_cpu_over_one_second();
    fprintf(stderr, "idle CPU over 1 s after oneDNN runs on 3 threads: %.4f s\n", used);
    cr_assert_lt(used, 0.02, "idle OpenMP workers used %.3f s of CPU in one second", used);
    /* the short spin was asked for only while oneDNN loaded */
    cr_assert_eq(getenv("GOMP_SPINCOUNT") != NULL, policy_was_set);
    kiln_session_destroy(s);
    opt_free_inputs(&in);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

/* Two runtimes (1 and 2 threads) on one thread: each run sets oneDNN's
 * thread count to its own runtime's; results agree. */
Test(dnnl_runtime, sessions_with_different_thread_counts)
{
    kiln_runtime *one = kt_runtime(1), *two = kt_runtime(2);
    kiln_model *m1 = opt_load_dnnl(one, MODEL("layout_stack.onnx"), DEFAULT_LEVEL, 1);
    kiln_model *m2 = opt_load_dnnl(two, MODEL("layout_stack.onnx"), DEFAULT_LEVEL, 1);
    opt_inputs in;
    opt_make_inputs(m1, &in);
    kiln_session *a = opt_run(m1, &in), *b = opt_run(m2, &in);
    for (int i = 0; i < 3; i++) {
        KT_OK(kiln_session_run(a));
        KT_OK(kiln_session_run(b));
    }
    int32_t n_out = 0;
    KT_OK(kiln_model_output_count(m1, &n_out));
    opt_compare_sessions(a, b, n_out, 1e-5, 1);
    kiln_session_destroy(a);
    kiln_session_destroy(b);
    opt_free_inputs(&in);
    kiln_model_destroy(m1);
    kiln_model_destroy(m2);
    kiln_runtime_destroy(one);
    kiln_runtime_destroy(two);
}

#else

Test(dnnl_runtime, needs_onednn)
{
    cr_skip_test("Kiln was built without oneDNN (KILN_WITH_DNNL)");
}

#endif
