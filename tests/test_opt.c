/* The graph optimizer, pass by pass, on small models built by
 * tools/make_opt_models.py: (a) the rewritten graph has the expected ops,
 * (b) its outputs equal the unoptimized model's. */
#include "test_opt_util.h"

#define MODEL(name) kt_src_path("tests/data/models/" name)


Test(opt_basic, identity_dropout_and_dead_nodes_go)
{
    kiln_runtime *rt;
    kiln_model *m0 = opt_load_fresh(MODEL("opt_basic.onnx"), 0, 0, &rt);
    cr_assert_eq(opt_node_count(m0), 5);
    kiln_model_destroy(m0);
    kiln_model *m = opt_load(rt, MODEL("opt_basic.onnx"), 1);
    cr_assert_eq(opt_node_count(m), 1, "got %d nodes", opt_node_count(m));
    cr_assert_eq(opt_count_op(m, "Relu", ""), 1);
    /* The graph output keeps its name although its Identity is gone. */
    char name[16];
    KT_OK(kiln_model_output_name(m, 0, name, sizeof name, NULL));
    cr_assert_str_eq(name, "Y");
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_basic.onnx"), 2, 0);
}

Test(opt_basic, a_pad_of_zero_pads_goes)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_zero_pad.onnx"), 1, 0, &rt);
    cr_assert_eq(opt_count_op(m, "Pad", ""), 1, "the all-zero Pad stayed, or the real one went");
    cr_assert_eq(opt_node_count(m), 2);
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_zero_pad.onnx"), 1, 0);
}

Test(opt_basic, zero_pads_fold_into_pools_and_convs)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_pad_fold.onnx"), 1, 0, &rt);
    cr_assert_eq(opt_count_op(m, "Pad", ""), 1, "only the reflect Pad stays");
    cr_assert_eq(opt_count_op(m, "AveragePool", ""), 2);
    cr_assert_eq(opt_count_op(m, "Conv", ""), 1);
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_pad_fold.onnx"), 1, 0);
}

Test(opt_basic, constants_fold_at_load)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_const_fold.onnx"), 1, 0, &rt);
    cr_assert_eq(opt_node_count(m), 1);
    cr_assert_eq(opt_count_op(m, "Mul", ""), 1);
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_const_fold.onnx"), 1, 0);
}

Test(opt_basic, batchnorm_folds_into_conv)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_conv_bn.onnx"), 1, 0, &rt);
    cr_assert_eq(opt_node_count(m), 1);
    cr_assert_eq(opt_count_op(m, "Conv", ""), 1);
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_conv_bn.onnx"), 1, 1e-5);
}

Test(opt_basic, level_0_changes_nothing_and_level_1_does_not_fuse)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_conv_acts.onnx"), 0, 0, &rt);
    cr_assert_eq(opt_node_count(m), 12);
    kiln_model_destroy(m);
    m = opt_load(rt, MODEL("opt_conv_acts.onnx"), 1);
    cr_assert_eq(opt_node_count(m), 12);
    cr_assert_eq(opt_count_op(m, "FusedConv", "kiln"), 0);
    opt_drop(m, rt);
}

Test(opt_fuse_conv, every_activation_and_conv_attribute)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_conv_acts.onnx"), 2, 0, &rt);
    cr_assert_eq(opt_node_count(m), 6);
    cr_assert_eq(opt_count_op(m, "FusedConv", "kiln"), 6);
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_conv_acts.onnx"), 2, 1e-5);
}

Test(opt_fuse_conv, clip_bounds_from_inputs_and_silu)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_conv_clip_silu.onnx"), 2, 0, &rt);
    cr_assert_eq(opt_node_count(m), 2);
    cr_assert_eq(opt_count_op(m, "FusedConv", "kiln"), 2);
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_conv_clip_silu.onnx"), 2, 1e-5);
}

Test(opt_fuse_conv, residual_same_shape_and_broadcast)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_conv_residual.onnx"), 2, 0, &rt);
    /* a + b + Relu fuse into one, c + g into another, the depthwise conv
     * + X + Sigmoid into a third; b and g stay. */
    cr_assert_eq(opt_count_op(m, "FusedConv", "kiln"), 3);
    cr_assert_eq(opt_count_op(m, "Add", ""), 0);
    cr_assert_eq(opt_count_op(m, "Relu", ""), 0);
    cr_assert_eq(opt_count_op(m, "Sigmoid", ""), 0);
    cr_assert_eq(opt_node_count(m), 5);
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_conv_residual.onnx"), 2, 1e-5);
}

Test(opt_fuse_dense, matmul_bias_gelu_relu)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_matmul.onnx"), 2, 0, &rt);
    cr_assert_eq(opt_count_op(m, "FusedMatMul", "kiln"), 4);
    cr_assert_eq(opt_count_op(m, "Gelu", "kiln"), 1);
    cr_assert_eq(opt_node_count(m), 5);
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_matmul.onnx"), 2, 1e-5);
}

Test(opt_fuse_dense, gemm_activation_and_silu)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_gemm.onnx"), 2, 0, &rt);
    cr_assert_eq(opt_count_op(m, "FusedGemm", "kiln"), 2);
    cr_assert_eq(opt_count_op(m, "Silu", "kiln"), 1);
    cr_assert_eq(opt_node_count(m), 3);
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_gemm.onnx"), 2, 1e-5);
}

Test(opt_attention, scaled_query_and_scaled_scores_with_mask)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_attention.onnx"), 2, 0, &rt);
    cr_assert_eq(opt_count_op(m, "Attention", "kiln"), 2);
    cr_assert_eq(opt_count_op(m, "Softmax", ""), 0);
    cr_assert_eq(opt_count_op(m, "MatMul", ""), 0);
    cr_assert_eq(opt_node_count(m), 3); /* + the shared Transpose */
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_attention.onnx"), 2, 1e-5);
}

Test(opt_layernorm, formula_becomes_one_node_below_opset_17)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_layernorm13.onnx"), 2, 0, &rt);
    cr_assert_eq(opt_node_count(m), 1);
    cr_assert_eq(opt_count_op(m, "LayerNormalization", "kiln"), 1);
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_layernorm13.onnx"), 2, 1e-5);
}

Test(opt_kernels, fused_conv_written_directly)
{
    /* Y = Clip(Conv(X, W) + Z, -0.5, 0.5) as kiln.FusedConv and R as the
     * standard ops, unoptimized: they agree, and the clamp shows. */
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_kiln_fusedconv.onnx"), 0, 0, &rt);
    opt_inputs in;
    opt_make_inputs(m, &in);
    kiln_session *s = opt_run(m, &in);
    const float *y, *r;
    size_t ny, nr;
    KT_OK(kiln_session_output_view(s, 0, (const void **)&y, &ny));
    KT_OK(kiln_session_output_view(s, 1, (const void **)&r, &nr));
    cr_assert_eq(ny, 3 * 16 * 4);
    cr_assert_eq(nr, ny);
    int inside = 0, clamped = 0;
    for (size_t i = 0; i < ny / 4; i++) {
        cr_assert_float_eq(y[i], r[i], 1e-5f * (1.0f + fabsf(r[i])), "y[%zu]", i);
        inside += y[i] > -0.5f && y[i] < 0.5f;
        clamped += y[i] == -0.5f || y[i] == 0.5f;
    }
    cr_assert_gt(inside, 0);
    cr_assert_gt(clamped, 0);
    kiln_session_destroy(s);
    opt_free_inputs(&in);
    opt_drop(m, rt);
}

Test(opt_kernels, unknown_activation_is_a_clear_error)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = opt_load(rt, MODEL("opt_kiln_bad_activation.onnx"), 0);
    kiln_session *s = NULL;
    KT_FAILS(kiln_session_create(m, NULL, &s), KILN_ERR_INVALID_MODEL);
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "Swoosh") != NULL, "message: %s", msg);
    opt_drop(m, rt);
}
