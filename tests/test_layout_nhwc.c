/* The NHWC layout pass (core/dnnl/pass_layout_nhwc.c): on small models made
 * for it (tools/make_layout_models.py) and on the exported CNNs, the graph
 * after the pass has the NHWC ops and only the transposes its borders need,
 * and its outputs (oneDNN kernels) match the graph as written (level 0,
 * Kiln's own kernels). */
#include <stdio.h>

#include "test_opt_util.h"

#define MODEL(name) KILN_SOURCE_DIR "/tests/data/models/" name

#ifdef KILN_WITH_DNNL

static int count_nhwc_ops(const kiln_model *m)
{
    return opt_count_op(m, "NhwcConv", "kiln") + opt_count_op(m, "NhwcMaxPool", "kiln") +
           opt_count_op(m, "NhwcAveragePool", "kiln") +
           opt_count_op(m, "NhwcGlobalAveragePool", "kiln");
}

/* Loads path at level 0 without oneDNN and at level 2 with it, checks the
 * op counts, runs both on `in` and compares within tol of each output's
 * largest magnitude. Returns the transposes left. */
static int check_layout(const char *path, opt_inputs *in, int load_inputs, int32_t threads,
                        int expect_nhwc_min, double tol)
{
    kiln_runtime *rt = kt_runtime(threads);
    kiln_model *m0 = opt_load_dnnl(rt, path, 0, 0), *m2 = opt_load_dnnl(rt, path, 2, 1);
    int transposes = opt_count_op(m2, "Transpose", "");
    int before = opt_count_op(m0, "Transpose", "");
    int nhwc = count_nhwc_ops(m2);
    cr_assert_geq(nhwc, expect_nhwc_min, "%s: %d NHWC ops", path, nhwc);
    cr_assert_eq(opt_count_op(m2, "Conv", ""), 0, "%s: a Conv stayed NCHW", path);
    cr_assert_eq(opt_count_op(m2, "FusedConv", "kiln"), 0, "%s: a FusedConv stayed NCHW", path);
    if (load_inputs)
        opt_make_inputs(m0, in);
    kiln_session *s0 = opt_run(m0, in), *s2 = opt_run(m2, in);
    int32_t n_out = 0;
    KT_OK(kiln_model_output_count(m0, &n_out));
    double worst = opt_compare_sessions(s0, s2, n_out, tol, 1);
    fprintf(stderr, "%s: %d NHWC ops, %d transposes (model had %d), largest difference %.3g\n",
            path, nhwc, transposes - before, before, worst);
    kiln_session_destroy(s0);
    kiln_session_destroy(s2);
    kiln_model_destroy(m0);
    kiln_model_destroy(m2);
    kiln_runtime_destroy(rt);
    return transposes - before;
}

Test(layout_nhwc, small_stack_has_transposes_only_at_its_borders)
{
    opt_inputs in;
    /* in: x; out: the Gemm's input (after GlobalAveragePool) and the
     * graph output `sig` read from the middle of the region */
    int t = check_layout(MODEL("layout_stack.onnx"), &in, 1, 1, 8, 1e-5);
    cr_assert_eq(t, 3, "transposes left: %d", t);
    opt_free_inputs(&in);
}

Test(layout_nhwc, small_stack_two_threads)
{
    opt_inputs in;
    check_layout(MODEL("layout_stack.onnx"), &in, 1, 2, 8, 1e-5);
    opt_free_inputs(&in);
}

Test(layout_nhwc, stops_at_layout_dependent_ops)
{
    opt_inputs in;
    /* x in; c1 back for Reshape and for the Add whose other operand is
     * NCHW; the Add's result in again; y out */
    int t = check_layout(MODEL("layout_stops.onnx"), &in, 1, 1, 2, 1e-5);
    cr_assert_eq(t, 4, "transposes left: %d", t);
    opt_free_inputs(&in);
}

Test(layout_nhwc, reads_a_keras_graphs_own_transposes_as_borders)
{
    opt_inputs in;
    /* 4 transposes in the model; left: the one giving back c1 (a graph
     * output) in NCHW. Before, each Conv ran between four. */
    int t = check_layout(MODEL("layout_keras.onnx"), &in, 1, 1, 2, 1e-5);
    cr_assert_eq(t, 1 - 4, "transposes left: %d more than the model's", t);
    opt_free_inputs(&in);
}

Test(layout_nhwc, a_batchnorm_of_an_nhwc_value_becomes_mul_and_add)
{
    opt_inputs in;
    int t = check_layout(MODEL("layout_dense.onnx"), &in, 1, 1, 3, 1e-5);
    cr_assert_eq(t, 2, "transposes added: %d (x in, y out)", t);
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = opt_load_dnnl(rt, MODEL("layout_dense.onnx"), 2, 1);
    cr_assert_eq(opt_count_op(m, "BatchNormalization", ""), 0);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
    opt_free_inputs(&in);
}

Test(layout_nhwc, not_run_without_dnnl)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = opt_load_dnnl(rt, MODEL("layout_stack.onnx"), 2, 0);
    cr_assert_eq(count_nhwc_ops(m), 0);
    cr_assert_eq(opt_count_op(m, "Transpose", ""), 0);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

static const char *models_dir(void)
{
    const char *env = getenv("KILN_MODELS_DIR");
    return env && env[0] ? env : KILN_BINARY_DIR "/models";
}

static void check_cnn(const char *name, int max_transposes)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s/model.onnx", models_dir(), name);
    FILE *f = fopen(path, "rb");
    if (!f)
        cr_skip_test("%s is absent (export it with tools/export_models.py, or set "
                     "KILN_MODELS_DIR)", path);
    fclose(f);
    opt_inputs in;
    /* random weights through 16-50 layers: differences are relative to the
     * output's largest magnitude */
    int t = check_layout(path, &in, 1, 2, 10, 1e-5);
    cr_assert_leq(t, max_transposes, "%s: %d transposes left", name, t);
    opt_free_inputs(&in);
}

/* One transpose in, one out after the global pool (efficientnet's
 * squeeze-excite gates stay NHWC too). */
Test(layout_nhwc, resnet50, .timeout = 600) { check_cnn("resnet50", 2); }
Test(layout_nhwc, mobilenet_v2, .timeout = 600) { check_cnn("mobilenet_v2", 2); }
Test(layout_nhwc, squeezenet1_1, .timeout = 600) { check_cnn("squeezenet1_1", 2); }
Test(layout_nhwc, efficientnet_b0, .timeout = 600) { check_cnn("efficientnet_b0", 2); }

#else

Test(layout_nhwc, needs_onednn)
{
    cr_skip_test("Kiln was built without oneDNN (KILN_WITH_DNNL): the NHWC layout pass serves "
                 "only its kernels");
}

#endif
