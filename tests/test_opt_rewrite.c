/* The optimizer's rewriting machinery (core/opt/rewrite.h) on IR read from
 * the small test models: topological order after edits, graph outputs
 * keeping their names, dead nodes, bounded folding, pass driver levels. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/onnx/onnx.h"
#include "core/opt/optimize.h"
#include "core/opt/passes.h"
#include "test_support.h"

static kn_model_ir *read_ir(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/models/%s", name);
    size_t size = 0;
    void *bytes = kt_read_file(kt_src_path(rel), &size);
    cr_assert(bytes, "cannot read %s", rel);
    kn_err err = {0};
    kn_model_ir *ir = NULL;
    cr_assert_eq(kn_onnx_read_model(bytes, size, NULL, 0, &ir, &err), KN_OK);
    free(bytes);
    return ir;
}

static int32_t value_named(const kn_graph *g, const char *name)
{
    for (int32_t v = 0; v < g->n_values; v++)
        if (strcmp(g->values[v].name, name) == 0)
            return v;
    cr_assert_fail("no value %s", name);
    return -1;
}

static int32_t count_op(const kn_graph *g, const char *op)
{
    int32_t n = 0;
    for (int32_t i = 0; i < g->n_nodes; i++)
        n += strcmp(g->nodes[i].op_type, op) == 0;
    return n;
}

/* Every node reads only values produced before it, and producers match. */
static void assert_topological(const kn_graph *g)
{
    for (int32_t i = 0; i < g->n_nodes; i++) {
        for (int32_t j = 0; j < g->nodes[i].n_inputs; j++) {
            int32_t v = g->nodes[i].inputs[j];
            if (v >= 0)
                cr_assert_lt(g->values[v].producer, i, "node %d reads value %s made later", i,
                             g->values[v].name);
        }
        for (int32_t j = 0; j < g->nodes[i].n_outputs; j++)
            if (g->nodes[i].outputs[j] >= 0)
                cr_assert_eq(g->values[g->nodes[i].outputs[j]].producer, i);
    }
}

Test(opt_rewrite, added_node_is_placed_after_what_it_reads)
{
    kn_model_ir *ir = read_ir("opt_basic.onnx");
    kn_err err = {0};
    kn_opt o;
    cr_assert_eq(kn_opt_begin(&o, ir, &err), KN_OK);
    /* A Neg of R (made by node 2) anchored at node 0: it must move after it. */
    int32_t r = value_named(ir->graph, "R");
    int32_t out = kn_opt_add_value(&o, "neg", KN_FLOAT);
    cr_assert_geq(out, 0);
    int32_t id = kn_opt_add_node(&o, 0, "Neg", "", &r, 1, &out, 1, NULL, 0);
    cr_assert_eq(id, 5);
    cr_assert_eq(kn_opt_producer(&o, out), id);
    cr_assert_eq(kn_opt_use_count(&o, r), 2);
    cr_assert_eq(kn_opt_commit(&o), KN_OK);
    cr_assert_eq(ir->graph->n_nodes, 6);
    assert_topological(ir->graph);
    cr_assert_gt(ir->graph->values[out].producer, ir->graph->values[r].producer);
    kn_model_ir_free(ir);
}

Test(opt_rewrite, identity_before_graph_output_renames_its_producer)
{
    kn_model_ir *ir = read_ir("opt_basic.onnx");
    kn_err err = {0};
    kn_opt o;
    cr_assert_eq(kn_opt_begin(&o, ir, &err), KN_OK);
    cr_assert_eq(kn_pass_identity(&o), KN_OK);
    cr_assert_eq(kn_opt_commit(&o), KN_OK);
    const kn_graph *g = ir->graph;
    cr_assert_eq(count_op(g, "Identity"), 0);
    cr_assert_eq(count_op(g, "Dropout"), 0);
    int32_t y = value_named(g, "Y");
    cr_assert_eq(g->outputs[0], y);
    cr_assert_geq(g->values[y].producer, 0);
    cr_assert_str_eq(g->nodes[g->values[y].producer].op_type, "Relu");
    /* Relu now reads X directly. */
    cr_assert_eq(g->nodes[g->values[y].producer].inputs[0], value_named(g, "X"));
    assert_topological(g);
    kn_model_ir_free(ir);
}

Test(opt_rewrite, dead_nodes_go_graph_outputs_stay)
{
    kn_model_ir *ir = read_ir("opt_basic.onnx");
    kn_err err = {0};
    kn_opt o;
    cr_assert_eq(kn_opt_begin(&o, ir, &err), KN_OK);
    cr_assert_eq(kn_pass_dead_nodes(&o), KN_OK);
    cr_assert_eq(kn_opt_commit(&o), KN_OK);
    cr_assert_eq(ir->graph->n_nodes, 4);
    cr_assert_eq(count_op(ir->graph, "Sigmoid"), 0);
    kn_model_ir_free(ir);
}

Test(opt_rewrite, folding_is_bounded)
{
    kn_model_ir *ir = read_ir("opt_fold_bound.onnx");
    kn_err err = {0};
    cr_assert_eq(kn_optimize(ir, KN_OPT_BASIC, 0, &err), KN_OK);
    const kn_graph *g = ir->graph;
    cr_assert_eq(g->n_nodes, 2, "got %d nodes", g->n_nodes);
    cr_assert_eq(count_op(g, "Expand"), 1);
    int32_t c2 = value_named(g, "c2");
    cr_assert(g->values[c2].is_initializer);
    float f;
    memcpy(&f, g->values[c2].init_data, sizeof f);
    cr_assert_float_eq(f, 3.0f, 0);
    kn_model_ir_free(ir);
}

Test(opt_rewrite, levels_select_passes)
{
    static const struct { const char *model; int level; int nodes; } cases[] = {
        {"opt_conv_acts.onnx", 0, 12},
        {"opt_conv_acts.onnx", 1, 12},
        {"opt_conv_acts.onnx", 2, 6},
        {"opt_conv_acts.onnx", 7, 6}, /* above 2 acts as 2 */
        {"opt_attention.onnx", 2, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kn_model_ir *ir = read_ir(cases[i].model);
        kn_err err = {0};
        cr_assert_eq(kn_optimize(ir, cases[i].level, 0, &err), KN_OK);
        cr_assert_eq(ir->graph->n_nodes, cases[i].nodes, "%s level %d: %d nodes", cases[i].model,
                     cases[i].level, ir->graph->n_nodes);
        assert_topological(ir->graph);
        if (cases[i].level >= 2)
            cr_assert_eq(kn_model_opset_for(ir, "kiln"), 1);
        kn_model_ir_free(ir);
    }
}

Test(opt_rewrite, fused_nodes_carry_their_attributes)
{
    kn_model_ir *ir = read_ir("opt_conv_clip_silu.onnx");
    kn_err err = {0};
    cr_assert_eq(kn_optimize(ir, KN_OPT_ALL, 0, &err), KN_OK);
    const kn_graph *g = ir->graph;
    int seen_clip = 0, seen_silu = 0;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const kn_node *n = &g->nodes[i];
        cr_assert_str_eq(n->op_type, "FusedConv");
        cr_assert_str_eq(n->domain, "kiln");
        const char *act = kn_attr_string(n, "activation", "?");
        if (strcmp(act, "Clip") == 0) {
            int32_t count;
            const float *p = kn_attr_floats(n, "activation_params", &count);
            cr_assert_eq(count, 2);
            cr_assert_float_eq(p[0], 0.0f, 0);
            cr_assert_float_eq(p[1], 0.6f, 1e-7);
            cr_assert_eq(kn_attr_int(n, "group", 1), 4);
            cr_assert_eq(n->n_inputs, 2); /* no bias */
            seen_clip = 1;
        } else {
            cr_assert_str_eq(act, "Silu");
            cr_assert_eq(n->n_inputs, 3);
            seen_silu = 1;
        }
    }
    cr_assert(seen_clip && seen_silu);
    kn_model_ir_free(ir);
}
