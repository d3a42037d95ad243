/* Horizontal fusion (core/opt/pass_horizontal.c) on models from
 * tools/make_opt_models.py: sibling MatMul / Gemm / 1x1 Conv products of
 * one input become one product and a Split, only where they can, and the
 * outputs equal the unoptimized model's. */
#include "test_opt_util.h"

#define MODEL(name) kt_src_path("tests/data/models/" name)

/* The pass runs only when oneDNN may serve the model (core/opt/optimize.c
 * says why), so the models load with KILN_OPT_USE_DNNL. */
#ifdef KILN_WITH_DNNL

/* Convolutions in any form: the oneDNN layout pass turns them into NHWC
 * ones, which the counts here should not depend on. */
static int conv_nodes(const kiln_model *m)
{
    return opt_count_op(m, "Conv", "") + opt_count_op(m, "NhwcConv", "kiln") +
           opt_count_op(m, "FusedConv", "kiln");
}


Test(opt_horizontal, bert_qkv_becomes_one_fused_matmul_and_split)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_horizontal_qkv.onnx"), 2, 1, &rt);
    cr_assert_eq(opt_count_op(m, "FusedMatMul", "kiln"), 1);
    cr_assert_eq(opt_count_op(m, "Split", ""), 1);
    cr_assert_eq(opt_node_count(m), 2, "got %d nodes", opt_node_count(m));
    /* The outputs keep their names and order. */
    const char *names[] = {"Q", "K", "V"};
    for (int32_t i = 0; i < 3; i++) {
        char name[16];
        KT_OK(kiln_model_output_name(m, i, name, sizeof name, NULL));
        cr_assert_str_eq(name, names[i]);
    }
    kiln_model_destroy(m);
    m = opt_load_dnnl(rt, MODEL("opt_horizontal_qkv.onnx"), 1, 1);
    cr_assert_eq(opt_count_op(m, "Split", ""), 0, "level 1 does not fuse");
    opt_drop(m, rt);
    opt_check_same_outputs_on(MODEL("opt_horizontal_qkv.onnx"), 2, 1e-5, 1, 1);
    opt_check_same_outputs_on(MODEL("opt_horizontal_qkv.onnx"), 2, 1e-5, 2, 1);
}

Test(opt_horizontal, gemm_and_matmul_siblings_at_opset_11)
{
    /* Gemm transB + C, plain Gemm and MatMul: one FusedMatMul with zeros
     * for the missing biases; Split sizes as an attribute. */
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_horizontal_gemm.onnx"), 2, 1, &rt);
    cr_assert_eq(opt_count_op(m, "FusedMatMul", "kiln"), 1);
    cr_assert_eq(opt_count_op(m, "Split", ""), 1);
    cr_assert_eq(opt_count_op(m, "Gemm", ""), 0);
    cr_assert_eq(opt_node_count(m), 2);
    opt_drop(m, rt);
    opt_check_same_outputs_on(MODEL("opt_horizontal_gemm.onnx"), 2, 1e-5, 1, 1);
    opt_check_same_outputs_on(MODEL("opt_horizontal_gemm.onnx"), 2, 1e-5, 2, 1);
}

Test(opt_horizontal, pointwise_conv_siblings)
{
    /* Two 1x1 convs (one without B) merge; the 3x3 sibling stays apart. */
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_horizontal_conv.onnx"), 2, 1, &rt);
    cr_assert_eq(conv_nodes(m), 2);
    cr_assert_eq(opt_count_op(m, "Split", ""), 1);
    opt_drop(m, rt);
    opt_check_same_outputs_on(MODEL("opt_horizontal_conv.onnx"), 2, 1e-5, 1, 1);
    opt_check_same_outputs_on(MODEL("opt_horizontal_conv.onnx"), 2, 1e-5, 2, 1);
}

Test(opt_horizontal, declines_different_k_stride_computed_weight_alpha_and_epilogue)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_horizontal_none.onnx"), 2, 1, &rt);
    cr_assert_eq(opt_count_op(m, "Split", ""), 0);
    cr_assert_eq(conv_nodes(m), 3);
    cr_assert_eq(opt_count_op(m, "MatMul", ""), 2);
    cr_assert_eq(opt_count_op(m, "Gemm", ""), 1);
    cr_assert_eq(opt_count_op(m, "FusedMatMul", "kiln"), 2); /* MatMul + Relu each */
    opt_drop(m, rt);
    opt_check_same_outputs_on(MODEL("opt_horizontal_none.onnx"), 2, 1e-5, 1, 1);
}

#else

Test(opt_horizontal, needs_onednn)
{
    cr_skip_test("Kiln was built without oneDNN (KILN_WITH_DNNL): horizontal fusion is off");
}

#endif
