/* The elementwise chain pass (core/opt/pass_elementwise_chain.c) and its
 * kernel kiln.ElementwiseChain (core/cpu/fused/fused_elementwise.c), on models from
 * tools/make_opt_models.py: which chains become one node, which must not,
 * and outputs equal to the unoptimized model's on 1 and 2 threads, with
 * oneDNN allowed or not. */
#include "test_opt_util.h"

#define MODEL(name) kt_src_path("tests/data/models/" name)


/* Each step reuses the standalone op's float kernel, so the chain's result
 * should match the unfused ops to rounding (in practice exactly). */
#define CHAIN_TOL 1e-6

Test(opt_chain, four_ops_become_one_node)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_chain4.onnx"), 1, 0, &rt);
    cr_assert_eq(opt_node_count(m), 4, "level 1 does not fuse");
    kiln_model_destroy(m);
    m = opt_load(rt, MODEL("opt_chain4.onnx"), 2);
    cr_assert_eq(opt_node_count(m), 1, "got %d nodes", opt_node_count(m));
    cr_assert_eq(opt_count_op(m, "ElementwiseChain", "kiln"), 1);
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_chain4.onnx"), 2, CHAIN_TOL);
}

Test(opt_chain, every_step_kind)
{
    /* 12-step unary/scalar run ending in X * (.), Silu -> *2 -> 0.25 + (.),
     * Gelu -> - (-0.5) -> 2 / (.), T * 2 + T -> Tanh between Transposes. */
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_chain_all.onnx"), 2, 0, &rt);
    cr_assert_eq(opt_count_op(m, "ElementwiseChain", "kiln"), 4);
    cr_assert_eq(opt_count_op(m, "Transpose", ""), 2);
    cr_assert_eq(opt_node_count(m), 6, "got %d nodes", opt_node_count(m));
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_chain_all.onnx"), 2, CHAIN_TOL);
}

Test(opt_chain, declines_shared_broadcast_observed_fused_and_integer)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_chain_none.onnx"), 2, 0, &rt);
    cr_assert_eq(opt_count_op(m, "ElementwiseChain", "kiln"), 0);
    /* Relu read twice; Exp + (broadcast B) + Tanh; Neg whose output is a
     * graph output; MatMul took Relu, leaving Sigmoid alone; int64 Neg/Abs. */
    cr_assert_eq(opt_count_op(m, "Relu", ""), 1);
    cr_assert_eq(opt_count_op(m, "Sigmoid", ""), 2);
    cr_assert_eq(opt_count_op(m, "Tanh", ""), 2);
    cr_assert_eq(opt_count_op(m, "Exp", ""), 1);
    cr_assert_eq(opt_count_op(m, "Add", ""), 1);
    cr_assert_eq(opt_count_op(m, "Neg", ""), 2);
    cr_assert_eq(opt_count_op(m, "Abs", ""), 2);
    cr_assert_eq(opt_count_op(m, "FusedMatMul", "kiln"), 1);
    opt_drop(m, rt);
    opt_check_same_outputs(MODEL("opt_chain_none.onnx"), 2, CHAIN_TOL);
}

Test(opt_chain, two_threads_and_onednn_setting)
{
    /* opt_chain4 is 60000 floats: 59 blocks, tasks of at least 16: both
     * threads get some. */
    opt_check_same_outputs_on(MODEL("opt_chain4.onnx"), 2, CHAIN_TOL, 2, 0);
    opt_check_same_outputs_on(MODEL("opt_chain_all.onnx"), 2, CHAIN_TOL, 2, 0);
    /* With oneDNN allowed the layout pass runs first; the chains still form
     * and still run on the CPU kernel. */
    kiln_runtime *rt = kt_runtime(2);
    kiln_model *m = opt_load_dnnl(rt, MODEL("opt_chain_all.onnx"), 2, 1);
    cr_assert_eq(opt_count_op(m, "ElementwiseChain", "kiln"), 4);
    opt_drop(m, rt);
    opt_check_same_outputs_on(MODEL("opt_chain4.onnx"), 2, CHAIN_TOL, 2, 1);
    opt_check_same_outputs_on(MODEL("opt_chain_all.onnx"), 2, CHAIN_TOL, 2, 1);
}

Test(opt_chain, unknown_step_is_a_clear_error)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = opt_load(rt, MODEL("opt_kiln_bad_chain.onnx"), 0);
    kiln_session *s = NULL;
    KT_FAILS(kiln_session_create(m, NULL, &s), KILN_ERR_INVALID_MODEL);
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "Swish") != NULL, "message: %s", msg);
    opt_drop(m, rt);
}
