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

/* ---- QDQ integer convolutions with their epilogue (pass_qdq_conv.c,
 * pass_qconv_add.c, opt_qdq_*.onnx from tools/make_opt_models.py) ---- */

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The quantization step of a dequantized output: the smallest gap between
 * two of its distinct values (adjacent codes, among this many elements). */
static double output_step(const float *v, size_t n)
{
    float *s = malloc(n * sizeof *s);
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_float);
    double step = INFINITY;
    for (size_t i = 1; i < n; i++)
        if (s[i] > s[i - 1])
            step = fmin(step, (double)s[i] - s[i - 1]);
    free(s);
    return step;
}

/* Loads path unoptimized and at level 2 (oneDNN allowed or not), runs both
 * on the same inputs: every dequantized output agrees within `steps` steps
 * of its quantization (the rounding the fusion removed or moved), most of
 * it exactly; a float output (no step) within 1e-4. */
static void check_within_steps(const char *path, int32_t use_dnnl, double steps)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m0 = opt_load(rt, path, 0), *m2 = opt_load_dnnl(rt, path, 2, use_dnnl);
    opt_inputs in;
    opt_make_inputs(m0, &in);
    kiln_session *s0 = opt_run(m0, &in), *s2 = opt_run(m2, &in);
    int32_t n_out = 0;
    KT_OK(kiln_model_output_count(m0, &n_out));
    for (int32_t o = 0; o < n_out; o++) {
        const float *a, *b;
        size_t na, nb;
        KT_OK(kiln_session_output_view(s0, o, (const void **)&a, &na));
        KT_OK(kiln_session_output_view(s2, o, (const void **)&b, &nb));
        cr_assert_eq(na, nb, "output %d size", (int)o);
        size_t n = na / 4, off = 0;
        double step = output_step(a, n), maxabs = 0;
        cr_assert(step < INFINITY, "output %d: constant", (int)o);
        for (size_t i = 0; i < n; i++)
            maxabs = fmax(maxabs, fabs((double)a[i]));
        int quantized = step > maxabs * 1e-4;
        for (size_t i = 0; i < n; i++) {
            double d = fabs((double)a[i] - b[i]);
            double bound = quantized ? step * steps * 1.001 : 1e-4 * (1 + fabs((double)a[i]));
            cr_assert(d <= bound, "%s output %d element %zu: %g vs %g (step %g)", path, (int)o, i,
                      a[i], b[i], step);
            off += quantized && d > step * 1e-3;
        }
        /* most agree exactly: an epilogue in the wrong place would not */
        cr_assert(off * 4 <= n, "%s output %d: %zu of %zu one step off", path, (int)o, off, n);
    }
    kiln_session_destroy(s0);
    kiln_session_destroy(s2);
    opt_free_inputs(&in);
    kiln_model_destroy(m0);
    kiln_model_destroy(m2);
    kiln_runtime_destroy(rt);
}

Test(opt_qdq, residual_add_and_relu_go_into_the_convolution)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_qdq_residual.onnx"), 2, 0, &rt);
    cr_assert_eq(opt_count_op(m, "QLinearConv", ""), 1, "the first Conv, its Relu absorbed");
    cr_assert_eq(opt_count_op(m, "QFusedConv", "kiln"), 1, "the second, with Add and Relu");
    cr_assert_eq(opt_count_op(m, "QAdd", "kiln"), 0);
    cr_assert_eq(opt_count_op(m, "Add", ""), 0);
    opt_drop(m, rt);
    /* The second Conv's result is no longer rounded to its own step, 2.7
     * times the output's here (its range has negatives, the output's none):
     * half of it moves a value by at most 1.4 output steps, so the
     * output's codes by at most 2. */
    check_within_steps(MODEL("opt_qdq_residual.onnx"), 0, 2);
    check_within_steps(MODEL("opt_qdq_residual.onnx"), 1, 2);
}

Test(opt_qdq, activations_quantization_does_not_absorb_stay_in_the_convolution)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_qdq_activations.onnx"), 2, 0, &rt);
    cr_assert_eq(opt_count_op(m, "QFusedConv", "kiln"), 3, "SiLU, HardSwish and Clip");
    cr_assert_eq(opt_count_op(m, "Conv", ""), 0);
    cr_assert_eq(opt_count_op(m, "Sigmoid", ""), 0);
    cr_assert_eq(opt_count_op(m, "QuantizeLinear", ""), 1, "only the graph input's");
    opt_drop(m, rt);
    check_within_steps(MODEL("opt_qdq_activations.onnx"), 0, 1);
    check_within_steps(MODEL("opt_qdq_activations.onnx"), 1, 1);
}

Test(opt_qdq, a_second_reader_keeps_the_graph_as_it_was)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_qdq_shared.onnx"), 2, 0, &rt);
    cr_assert_eq(opt_count_op(m, "QAdd", "kiln"), 1, "the Conv's result has another reader");
    cr_assert_eq(opt_count_op(m, "QLinearConv", ""), 1);
    cr_assert_eq(opt_count_op(m, "QFusedConv", "kiln"), 0);
    opt_drop(m, rt);
    check_within_steps(MODEL("opt_qdq_shared.onnx"), 0, 1);
    check_within_steps(MODEL("opt_qdq_shared.onnx"), 1, 1);
    /* a Relu folded into the convolution's saturation must stay before the
     * addition: the pattern does not fire */
    m = opt_load_fresh(MODEL("opt_qdq_relu_residual.onnx"), 2, 0, &rt);
    cr_assert_eq(opt_count_op(m, "QAdd", "kiln"), 1);
    cr_assert_eq(opt_count_op(m, "QLinearConv", ""), 1);
    opt_drop(m, rt);
    check_within_steps(MODEL("opt_qdq_relu_residual.onnx"), 0, 1);
    check_within_steps(MODEL("opt_qdq_relu_residual.onnx"), 1, 1);
}

Test(opt_qdq, a_float_gate_multiplies_the_8_bit_values)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_qdq_gate.onnx"), 2, 0, &rt);
    cr_assert_eq(opt_count_op(m, "QMulFloat", "kiln"), 1);
    cr_assert_eq(opt_count_op(m, "Mul", ""), 0);
    cr_assert_eq(opt_count_op(m, "DequantizeLinear", ""), 2, "the pooling's and the output's");
    opt_drop(m, rt);
    /* the graph's arithmetic, in its order: equal, not just close */
    opt_check_same_outputs(MODEL("opt_qdq_gate.onnx"), 2, 0);
    opt_check_same_outputs_on(MODEL("opt_qdq_gate.onnx"), 2, 0, 1, 1);
}

/* ---- QDQ matrix products with their epilogue (pass_qdq_matmul.c,
 * pass_qmatmul_epilogue.c, opt_qdq_dense*.onnx) ---- */

Test(opt_qdq, bias_activation_and_quantization_go_into_the_integer_product)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_qdq_dense.onnx"), 2, 0, &rt);
    /* GELU + Q, Gemm's C + Relu + Q, Relu + Q, bias + Sigmoid */
    cr_assert_eq(opt_count_op(m, "QFusedMatMul", "kiln"), 4);
    cr_assert_eq(opt_count_op(m, "MatMulIntegerToFloat", "com.microsoft"), 1, "bias only");
    cr_assert_eq(opt_count_op(m, "Add", ""), 0);
    cr_assert_eq(opt_count_op(m, "Gelu", "kiln"), 0);
    cr_assert_eq(opt_count_op(m, "Relu", ""), 0);
    cr_assert_eq(opt_count_op(m, "Sigmoid", ""), 0);
    cr_assert_eq(opt_count_op(m, "QuantizeLinear", ""), 2, "only the graph inputs'");
    cr_assert_eq(opt_count_op(m, "DequantizeLinear", ""), 3, "the quantized outputs'");
    opt_drop(m, rt);
    /* the product's real value is what the graph quantized: a code moves
     * only where oneDNN's GELU or float rounding meets a tie */
    check_within_steps(MODEL("opt_qdq_dense.onnx"), 0, 1);
    check_within_steps(MODEL("opt_qdq_dense.onnx"), 1, 1);
}

Test(opt_qdq, a_second_reader_keeps_the_products_epilogue_outside)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_qdq_dense_shared.onnx"), 2, 0, &rt);
    /* A1 (product + bias) is a graph output: the bias goes in, GELU and Q
     * stay; M2 (the product) is one: its Add stays */
    cr_assert_eq(opt_count_op(m, "QFusedMatMul", "kiln"), 0);
    cr_assert_eq(opt_count_op(m, "MatMulIntegerToFloat", "com.microsoft"), 2);
    cr_assert_eq(opt_count_op(m, "Gelu", "kiln"), 1);
    cr_assert_eq(opt_count_op(m, "Add", ""), 1);
    cr_assert_eq(opt_count_op(m, "QuantizeLinear", ""), 2);
    opt_drop(m, rt);
    check_within_steps(MODEL("opt_qdq_dense_shared.onnx"), 0, 1);
    check_within_steps(MODEL("opt_qdq_dense_shared.onnx"), 1, 1);
}

/* ---- dynamically quantized products (pass_dynamic_matmul.c,
 * opt_dynamic_dense.onnx: ONNX Runtime's quantize_dynamic form) ---- */

Test(opt_dynamic, the_scales_multiply_inside_the_integer_product)
{
    kiln_runtime *rt;
    kiln_model *m = opt_load_fresh(MODEL("opt_dynamic_dense.onnx"), 2, 0, &rt);
    /* Y0's bias and GELU go on into the epilogue; Y3's product, converted
     * to float, is a graph output and keeps its MatMulInteger, Cast, Muls */
    cr_assert_eq(opt_count_op(m, "QFusedMatMul", "kiln"), 1);
    cr_assert_eq(opt_count_op(m, "MatMulIntegerToFloat", "com.microsoft"), 2, "Y1 and Y2");
    cr_assert_eq(opt_count_op(m, "MatMulInteger", ""), 1, "Y3's");
    cr_assert_eq(opt_count_op(m, "Cast", ""), 1, "Y3's");
    cr_assert_eq(opt_count_op(m, "DynamicQuantizeLinear", ""), 1, "X quantized once");
    opt_drop(m, rt);
    /* the same float arithmetic on Kiln's kernels but for GELU, which the
     * epilogue evaluates as one function, not the graph's five ops (a last
     * bit); oneDNN multiplies by b_scale, then a_scale (its int8 kernels
     * take no run-time output scale), so its last bit may differ too */
    opt_check_same_outputs(MODEL("opt_dynamic_dense.onnx"), 2, 1e-6);
    check_within_steps(MODEL("opt_dynamic_dense.onnx"), 1, 1);
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
