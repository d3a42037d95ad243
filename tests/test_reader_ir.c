/* The ONNX reader's IR rules on small synthetic graphs (name resolution,
 * producers, order, subgraphs, shapes, opsets, attributes, limits) and its
 * wire-level error messages. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader_support.h"

/* ---- IR rules on synthetic graphs ---- */

Test(reader_ir, stable_topological_order_and_names)
{
    static const int64_t d2[] = {2};
    pbw g = {0};
    add_node(&g, "Relu", NULL, L("b"), L("c")); /* needs node 1 first */
    add_node(&g, "Neg", NULL, L("x"), L("b"));
    add_node(&g, "Abs", "third", L("x"), L("d"));
    add_vi(&g, 11, "x", 1, d2);
    add_vi(&g, 12, "c", 1, d2);
    add_vi(&g, 12, "d", -1, NULL);
    add_vi(&g, 13, "b", 1, (const int64_t[]){2});
    pbw m = mk_model(&g, 13);
    kn_model_ir *ir = load_ok(&m);
    const kn_graph *gr = ir->graph;
    cr_assert_eq(gr->n_nodes, 3);
    cr_assert_str_eq(gr->nodes[0].name, "node1");
    cr_assert_str_eq(gr->nodes[0].op_type, "Neg");
    cr_assert_str_eq(gr->nodes[1].name, "node0");
    cr_assert_str_eq(gr->nodes[2].name, "third");
    const kn_value *b = find_value(gr, "b"), *d = find_value(gr, "d");
    cr_assert_eq(b->producer, 0);
    cr_assert_eq(b->rank, 1, "value_info gives b its shape");
    cr_assert_eq(d->producer, 2);
    cr_assert_eq(d->rank, -1);
    cr_assert_eq(d->dtype, KN_FLOAT);
    check_graph(gr, 0);
    kn_model_ir_free(ir);
}

Test(reader_ir, optional_inputs_and_initializer_inputs)
{
    static const int64_t d2[] = {2};
    float lo[1] = {0};
    pbw g = {0};
    add_node(&g, "Clip", "clip", L("x", "", "hi"), L("y"));
    add_node(&g, "Dropout", "drop", L("y"), L("z", ""));
    pbw init = mk_tensor("hi", KN_FLOAT, 0, NULL, lo, 4);
    w_msg(&g, 5, &init);
    add_vi(&g, 11, "x", 1, d2);
    add_vi(&g, 11, "hi", 0, NULL);
    add_vi(&g, 12, "z", 1, d2);
    pbw m = mk_model(&g, 13);
    kn_model_ir *ir = load_ok(&m);
    const kn_graph *gr = ir->graph;
    cr_assert_eq(gr->nodes[0].inputs[1], -1);
    cr_assert_eq(gr->nodes[1].outputs[1], -1);
    cr_assert_eq(gr->n_inputs, 1);
    const kn_value *hi = find_value(gr, "hi");
    cr_assert(hi->is_initializer && hi->is_graph_input && hi->init_nbytes == 4 && hi->rank == 0);
    cr_assert_eq(gr->nodes[0].inputs[2], (int32_t)(hi - gr->values));
    kn_model_ir_free(ir);
}

Test(reader_ir, dangling_duplicate_and_cyclic_graphs)
{
    static const int64_t d2[] = {2};
    pbw g = relu_graph(), m;
    add_node(&g, "Add", "adder", L("y", "ghost"), L("z"));
    m = mk_model(&g, 13);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "node 'adder' (Add): input 'ghost' is not produced");

    g = relu_graph();
    add_node(&g, "Neg", "again", L("x"), L("y"));
    m = mk_model(&g, 13);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "value 'y' is produced by node 'again' (Neg) and by "
                                          "node 'r' (Relu)");

    g = relu_graph();
    add_node(&g, "Neg", "n", L("y"), L("x"));
    m = mk_model(&g, 13);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "and by a graph input");

    g = relu_graph();
    float one = 1;
    pbw init = mk_tensor("y", KN_FLOAT, 0, NULL, &one, 4);
    w_msg(&g, 5, &init);
    m = mk_model(&g, 13);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "and by an initializer");

    g = relu_graph();
    add_vi(&g, 11, "x", 1, d2);
    m = mk_model(&g, 13);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "graph input 'x' is listed twice");

    g = relu_graph();
    add_vi(&g, 12, "nowhere", 1, d2);
    m = mk_model(&g, 13);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "graph output 'nowhere' is not produced");

    /* a → b → a, and a consumer of the cycle listed first: the message names a cycle node. */
    g = relu_graph();
    add_node(&g, "Abs", "downstream", L("b"), L("c"));
    add_node(&g, "Neg", "cyc1", L("b", "x"), L("a"));
    add_node(&g, "Neg", "cyc2", L("a"), L("b"));
    m = mk_model(&g, 13);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "cycle through node 'cyc");

    g = relu_graph();
    add_node(&g, "Neg", "self", L("s"), L("s"));
    m = mk_model(&g, 13);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "cycle through node 'self' (Neg)");
}

static pbw if_model(pbw *ifn, int with_late_producer)
{
    static const int64_t d2[] = {2};
    pbw g = {0};
    w_msg(&g, 1, ifn);
    if (with_late_producer)
        add_node(&g, "Neg", "late", L("x"), L("z"));
    pbw cond = mk_vi("cond", KN_BOOL, 0, NULL);
    w_msg(&g, 11, &cond);
    add_vi(&g, 11, "x", 1, d2);
    add_vi(&g, 12, "if", -1, NULL);
    return mk_model(&g, 13);
}

Test(reader_ir, subgraph_outer_values)
{
    pbw n = if_node("if", "z", NULL);
    pbw m = if_model(&n, 1);
    kn_model_ir *ir = load_ok(&m);
    const kn_graph *g = ir->graph;
    cr_assert_str_eq(g->nodes[0].name, "late", "the producer of an outer value runs first");
    cr_assert_str_eq(g->nodes[1].op_type, "If");
    const kn_attr *tb = kn_node_attr(&g->nodes[1], "then_branch");
    const kn_attr *eb = kn_node_attr(&g->nodes[1], "else_branch");
    cr_assert_eq(eb->type, KN_ATTR_GRAPH);
    cr_assert_eq(tb->g->parent, g);
    const kn_value *z = find_value(tb->g, "z");
    cr_assert(z && z->is_outer && z->producer == -1);
    cr_assert_eq(tb->g->nodes[0].inputs[0], (int32_t)(z - tb->g->values));
    cr_assert_eq(check_graph(g, 0), 2);
    kn_model_ir_free(ir);

    n = if_node("if", "nobody", NULL);
    m = if_model(&n, 0);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "'nobody' is not produced");
}

Test(reader_ir, subgraph_depth_limit)
{
    pbw m = nested_ifs(KN_ONNX_MAX_DEPTH);
    kn_model_ir *ir = load_ok(&m);
    check_graph(ir->graph, 0);
    kn_model_ir_free(ir);
    m = nested_ifs(KN_ONNX_MAX_DEPTH + 1);
    expect_fail(&m, KN_ERR_UNSUPPORTED, "nested more than 32");
    m = nested_ifs(2000);
    expect_fail(&m, KN_ERR_UNSUPPORTED, "nested more than 32");
}

Test(reader_ir, shapes_and_ranks)
{
    int64_t d9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    pbw g = relu_graph();
    add_vi(&g, 13, "deep", 9, d9);
    pbw m = mk_model(&g, 13);
    expect_fail(&m, KN_ERR_UNSUPPORTED, "value 'deep' has rank 9");

    g = relu_graph();
    add_vi(&g, 13, "y", 2, (const int64_t[]){2, -3});
    m = mk_model(&g, 13);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "value 'y' has negative dim 1");

    g = relu_graph();
    add_node(&g, "Neg", "n", L("y"), L("v"));
    pbw vi = {0}, type = {0}, tt = {0}, shape = {0}, dim = {0}, dim2 = {0};
    w_str(&vi, 1, "v");
    w_int(&tt, 1, KN_FLOAT);
    w_int(&dim, 1, INT64_C(1) << 40);
    w_msg(&shape, 1, &dim);
    w_str(&dim2, 2, "batch");
    w_msg(&shape, 1, &dim2);
    w_msg(&tt, 2, &shape);
    w_msg(&type, 1, &tt);
    w_msg(&vi, 2, &type);
    w_msg(&g, 13, &vi);
    pbw seq = {0}, stype = {0}, inner = {0};
    w_str(&seq, 1, "x_seq_info");
    w_msg(&stype, 4, &inner);
    w_msg(&seq, 2, &stype);
    w_msg(&g, 13, &seq);
    m = mk_model(&g, 13);
    kn_model_ir *ir = load_ok(&m);
    const kn_value *y = find_value(ir->graph, "v");
    cr_assert_eq(y->rank, 2);
    cr_assert_eq(y->dims[0], INT64_C(1) << 40);
    cr_assert_eq(y->dims[1], -1);
    cr_assert_str_eq(y->dim_params[1], "batch");
    kn_model_ir_free(ir);
}

Test(reader_ir, opsets_domains_and_model_fields)
{
    pbw g = relu_graph(), m = {0}, op = {0};
    w_str(&op, 1, "com.example");
    w_int(&op, 2, 1);
    w_msg(&m, 8, &op);
    w_msg(&m, 7, &g);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "imports no opset");

    g = relu_graph();
    pbw n = mk_node("Custom", "c", L("y"), L("w"));
    w_str(&n, 7, "com.example");
    w_msg(&g, 1, &n);
    m = mk_model(&g, 13);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "domain 'com.example', which the model does not import");

    g = relu_graph();
    n = mk_node("Neg", "n", L("y"), L("w"));
    w_str(&n, 7, "ai.onnx");
    w_msg(&g, 1, &n);
    m = mk_model(&g, 13);
    kn_model_ir *ir = load_ok(&m);
    cr_assert_str_eq(ir->graph->nodes[1].domain, "");
    kn_model_ir_free(ir);

    m = (pbw){0};
    w_int(&m, 1, 8);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "model has no graph");

    g = relu_graph();
    pbw sp = {0};
    w_msg(&g, 15, &sp);
    m = mk_model(&g, 13);
    expect_fail(&m, KN_ERR_UNSUPPORTED, "sparse initializers");

    g = relu_graph();
    m = mk_model(&g, 13);
    pbw op2 = {0};
    w_str(&op2, 1, "ai.onnx");
    w_int(&op2, 2, 11);
    w_msg(&m, 8, &op2);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "imports domain 'ai.onnx' twice");
}

Test(reader_ir, attributes_with_and_without_type)
{
    pbw g = relu_graph(), n = mk_node("Thing", "thing", L("y"), L("w")), a = {0};
    w_str(&a, 1, "ints_packed");
    packed_varints(&a, 8, (const int64_t[]){1, -2, 3}, 3);
    w_msg(&n, 5, &a);
    w_str(&a, 1, "ints_unpacked");
    w_int(&a, 8, -7);
    w_int(&a, 8, 8);
    w_int(&a, 20, KN_ATTR_INTS);
    w_msg(&n, 5, &a);
    w_str(&a, 1, "alpha");
    w_f32(&a, 2, 0.25f);
    w_msg(&n, 5, &a);
    w_str(&a, 1, "mode");
    w_str(&a, 4, "linear");
    w_msg(&n, 5, &a);
    w_str(&a, 1, "names");
    w_str(&a, 9, "p");
    w_str(&a, 9, "q");
    w_msg(&n, 5, &a);
    w_str(&a, 1, "floats");
    w_f32(&a, 7, 1.5f);
    w_msg(&n, 5, &a);
    w_str(&a, 1, "count");
    w_int(&a, 3, -9);
    w_msg(&n, 5, &a);
    w_msg(&g, 1, &n);
    pbw m = mk_model(&g, 13);
    kn_model_ir *ir = load_ok(&m);
    const kn_node *t = &ir->graph->nodes[1];
    expect_ints(t, "ints_packed", 3, (const int64_t[]){1, -2, 3});
    expect_ints(t, "ints_unpacked", 2, (const int64_t[]){-7, 8});
    cr_assert_eq(kn_attr_float(t, "alpha", 0), 0.25f);
    cr_assert_str_eq(kn_attr_string(t, "mode", ""), "linear");
    cr_assert_eq(kn_node_attr(t, "mode")->s_len, 6);
    const kn_attr *names = kn_node_attr(t, "names");
    cr_assert(names->type == KN_ATTR_STRINGS && names->count == 2);
    cr_assert_str_eq(names->strings[1], "q");
    int32_t c;
    cr_assert_eq(kn_attr_floats(t, "floats", &c)[0], 1.5f);
    cr_assert_eq(kn_attr_int(t, "count", 0), -9);
    kn_model_ir_free(ir);

    g = relu_graph();
    n = mk_node("Thing", "thing", L("y"), L("w"));
    w_str(&a, 1, "t");
    w_int(&a, 20, KN_ATTR_TENSOR);
    w_msg(&n, 5, &a);
    w_msg(&g, 1, &n);
    m = mk_model(&g, 13);
    expect_fail(&m, KN_ERR_INVALID_MODEL, "attribute 't': type TENSOR but no tensor");
}

Test(reader_ir, size_limit)
{
    static const int64_t d[] = {1024};
    float *big = calloc(1024, sizeof(float));
    pbw g = relu_graph();
    pbw t = mk_tensor("w", KN_FLOAT, 1, d, big, 4096);
    w_msg(&g, 5, &t);
    pbw m = mk_model(&g, 13);
    kn_model_ir *ir;
    kn_err e = {0, {0}};
    cr_assert_eq(kn_onnx_read_model(m.p, m.n, NULL, 2048, &ir, &e), KN_ERR_LIMIT);
    cr_assert(strstr(e.msg, "size limit"), "%s", e.msg);
    memset(&e, 0, sizeof e);
    cr_assert_eq(kn_onnx_read_model(m.p, m.n, NULL, 1 << 20, &ir, &e), KN_OK, "%s", e.msg);
    kn_model_ir_free(ir);
    free(m.p);
    free(big);
}

Test(reader_wire, precise_messages)
{
    pbw g = relu_graph(), m = mk_model(&g, 13);
    /* Cut the last field, the graph, short. */
    kn_model_ir *ir;
    kn_err e;
    int rc = load(&(pbw){m.p, m.n - 3, 0}, &ir, &e);
    cr_assert_eq(rc, KN_ERR_INVALID_MODEL);
    cr_assert(strstr(e.msg, "truncated length-delimited field 7 at byte") &&
                  strstr(e.msg, "(ModelProto.graph)"),
              "%s", e.msg);
    free(m.p);

    static const struct { const char *bytes; size_t n; const char *needle; } cases[] = {
        {"\x08\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", 12, "over 10 bytes"},
        {"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 11, "over 10 bytes"},
        {"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 11, "tag"},
        {"\x3a\xff\xff\xff\xff\xff\x1f", 7, "length 1099511627775 but 0 bytes left"},
        {"\x3a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11, "truncated length-delimited"},
        {"\x3b", 1, "group"},
        {"\x3c", 1, "group"},
        {"\x3e", 1, "invalid wire type"},
        {"\x3f", 1, "invalid wire type"},
        {"\x00", 1, "invalid field number 0"},
        {"\x0a\x00", 2, "ModelProto.ir_version) is length-delimited, expected varint"},
        {"\x3d\x00\x00", 3, "truncated fixed32"},
        {"\x39\x00", 2, "truncated fixed64"},
        {"\x08", 1, "truncated varint field 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&e, 0, sizeof e);
        rc = kn_onnx_read_model(cases[i].bytes, cases[i].n, NULL, 0, &ir, &e);
        cr_assert_eq(rc, KN_ERR_INVALID_MODEL, "case %zu", i);
        cr_assert(strstr(e.msg, cases[i].needle), "case %zu: '%s' lacks '%s'", i, e.msg,
                  cases[i].needle);
    }
    memset(&e, 0, sizeof e);
    cr_assert_eq(kn_onnx_read_model(NULL, 0, NULL, 0, &ir, &e), KN_ERR_INVALID_MODEL);
    cr_assert_eq(kn_onnx_read_model(NULL, 5, NULL, 0, &ir, NULL), KN_ERR_INVALID_ARGUMENT);
}
