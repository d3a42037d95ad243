/* Helpers shared by the ONNX reader suites (test_reader*.c): a tiny
 * protobuf writer and builders for synthetic models, load helpers, and the
 * IR invariant check applied to every model that loads. Header-only (static
 * inline) because tests/CMakeLists.txt builds each test_*.c on its own. */
#ifndef KILN_TEST_READER_SUPPORT_H
#define KILN_TEST_READER_SUPPORT_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/onnx/onnx.h"
#include "test_support.h"

#define TESTDATA "/usr/share/libonnx-testdata/data"
/* The four suites of ONNX test data the reader must read. */
#define READER_N_SUITES 4
static inline const char *reader_suite(int i)
{
    static const char *const suites[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};
    return suites[i];
}

static inline int quick(void)
{
    const char *q = getenv("KILN_READER_QUICK");
    return q && q[0] && q[0] != '0';
}

static inline void need_testdata(void)
{
    if (!kt_dir_exists(TESTDATA))
        cr_skip_test("ONNX test data is not installed (%s is missing; Debian package "
                     "libonnx-testdata)", TESTDATA);
}

/* ---- a tiny protobuf writer for synthetic models ---- */

typedef struct pbw {
    uint8_t *p;
    size_t n, cap;
} pbw;

static inline void w_raw(pbw *w, const void *d, size_t n)
{
    if (w->n + n > w->cap) {
        size_t cap = w->cap ? w->cap : 64;
        while (cap < w->n + n)
            cap *= 2;
        w->p = realloc(w->p, cap);
        cr_assert(w->p != NULL);
        w->cap = cap;
    }
    if (n)
        memcpy(w->p + w->n, d, n);
    w->n += n;
}

static inline void w_varint(pbw *w, uint64_t v)
{
    do {
        uint8_t b = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        w_raw(w, &b, 1);
        v >>= 7;
    } while (v);
}

static inline void w_tag(pbw *w, uint32_t num, uint32_t wire) { w_varint(w, (uint64_t)num << 3 | wire); }
static inline void w_int(pbw *w, uint32_t num, int64_t v)
{
    w_tag(w, num, 0);
    w_varint(w, (uint64_t)v);
}
static inline void w_bytes(pbw *w, uint32_t num, const void *d, size_t n)
{
    w_tag(w, num, 2);
    w_varint(w, n);
    w_raw(w, d, n);
}
static inline void w_str(pbw *w, uint32_t num, const char *s) { w_bytes(w, num, s, strlen(s)); }
static inline void w_msg(pbw *w, uint32_t num, pbw *sub) /* appends and frees sub */
{
    w_bytes(w, num, sub->p, sub->n);
    free(sub->p);
    memset(sub, 0, sizeof *sub);
}
static inline void w_fixed(pbw *w, uint32_t num, uint64_t bits, int size)
{
    w_tag(w, num, size == 4 ? 5 : 1);
    for (int i = 0; i < size; i++) {
        uint8_t b = (uint8_t)(bits >> (8 * i));
        w_raw(w, &b, 1);
    }
}
static inline void w_f32(pbw *w, uint32_t num, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    w_fixed(w, num, u, 4);
}

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ValueInfoProto of a tensor; rank < 0 writes no shape. */
static inline pbw mk_vi(const char *name, int elem, int rank, const int64_t *dims)
{
    pbw vi = {0}, type = {0}, tt = {0}, shape = {0};
    w_str(&vi, 1, name);
    w_int(&tt, 1, elem);
    if (rank >= 0) {
        for (int i = 0; i < rank; i++) {
            pbw dim = {0};
            w_int(&dim, 1, dims[i]);
            w_msg(&shape, 1, &dim);
        }
        w_msg(&tt, 2, &shape);
    }
    w_msg(&type, 1, &tt);
    w_msg(&vi, 2, &type);
    return vi;
}

static inline pbw mk_node(const char *op, const char *name, const char *const *ins,
                   const char *const *outs)
{
    pbw n = {0};
    for (; *ins; ins++)
        w_str(&n, 1, *ins);
    for (; *outs; outs++)
        w_str(&n, 2, *outs);
    if (name)
        w_str(&n, 3, name);
    w_str(&n, 4, op);
    return n;
}

static inline pbw mk_tensor(const char *name, int dtype, int rank, const int64_t *dims, const void *raw,
                     size_t n)
{
    pbw t = {0};
    for (int i = 0; i < rank; i++)
        w_int(&t, 1, dims[i]);
    w_int(&t, 2, dtype);
    if (name)
        w_str(&t, 8, name);
    if (raw)
        w_bytes(&t, 9, raw, n);
    return t;
}

static inline pbw mk_model(pbw *graph, int64_t opset)
{
    pbw m = {0}, op = {0};
    w_int(&m, 1, 8);
    w_str(&m, 2, "test_reader");
    w_str(&op, 1, "");
    w_int(&op, 2, opset);
    w_msg(&m, 8, &op);
    w_msg(&m, 7, graph);
    return m;
}

static inline void add_vi(pbw *g, uint32_t field, const char *name, int rank, const int64_t *dims)
{
    pbw vi = mk_vi(name, KN_FLOAT, rank, dims);
    w_msg(g, field, &vi);
}

static inline void add_node(pbw *g, const char *op, const char *name, const char *const *ins,
                     const char *const *outs)
{
    pbw n = mk_node(op, name, ins, outs);
    w_msg(g, 1, &n);
}

static inline int load(const pbw *m, kn_model_ir **ir, kn_err *e)
{
    memset(e, 0, sizeof *e);
    *ir = NULL;
    return kn_onnx_read_model(m->p, m->n, NULL, 0, ir, e);
}

static inline kn_model_ir *load_ok(pbw *m)
{
    kn_model_ir *ir;
    kn_err e;
    int rc = load(m, &ir, &e);
    cr_assert_eq(rc, KN_OK, "load failed: %s", e.msg);
    free(m->p);
    return ir;
}

static inline void expect_fail(pbw *m, int code, const char *needle)
{
    kn_model_ir *ir;
    kn_err e;
    int rc = load(m, &ir, &e);
    cr_assert_eq(rc, code, "expected %s, got %s: %s", kn_status_name(code), kn_status_name(rc),
                 e.msg);
    cr_assert_eq(e.code, code);
    cr_assert_null(ir);
    cr_assert(strstr(e.msg, needle) != NULL, "message '%s' lacks '%s'", e.msg, needle);
    free(m->p);
}

/* The graph: x → Relu → y, both float[2]. */
static inline pbw relu_graph(void)
{
    static const int64_t d2[] = {2};
    pbw g = {0};
    w_str(&g, 2, "g");
    add_node(&g, "Relu", "r", L("x"), L("y"));
    add_vi(&g, 11, "x", 1, d2);
    add_vi(&g, 12, "y", 1, d2);
    return g;
}

/* ---- IR invariants, checked on every model that loads ---- */

static inline const kn_value *find_value(const kn_graph *g, const char *name)
{
    for (int32_t i = 0; i < g->n_values; i++)
        if (strcmp(g->values[i].name, name) == 0)
            return &g->values[i];
    return NULL;
}

static inline int check_graph(const kn_graph *g, int depth)
{
    int outer = 0;
    if (!(depth <= KN_ONNX_MAX_DEPTH && g->name))
        cr_assert_fail("bad graph at depth %d", depth);
    for (int32_t i = 0; i < g->n_values; i++) {
        const kn_value *v = &g->values[i];
        if (!v->name || v->rank < -1 || v->rank > KN_MAX_RANK || v->producer < -1 ||
            v->producer >= g->n_nodes || (v->is_outer && depth == 0))
            cr_assert_fail("bad value %d", i);
        if (v->is_initializer &&
            (!v->init_data || v->init_nbytes != kn_shape_nbytes(v->dtype, v->dims, v->rank)))
            cr_assert_fail("bad initializer '%s'", v->name);
        outer += v->is_outer;
    }
    for (int32_t k = 0; k < g->n_nodes; k++) {
        const kn_node *n = &g->nodes[k];
        if (!n->name || !n->op_type || !n->domain || !n->name[0])
            cr_assert_fail("node %d lacks strings", k);
        for (int32_t j = 0; j < n->n_inputs; j++) {
            int32_t id = n->inputs[j];
            if (id < -1 || id >= g->n_values || (id >= 0 && g->values[id].producer >= k))
                cr_assert_fail("node '%s' input %d breaks the order", n->name, j);
        }
        for (int32_t j = 0; j < n->n_outputs; j++) {
            int32_t id = n->outputs[j];
            if (id < -1 || id >= g->n_values || (id >= 0 && g->values[id].producer != k))
                cr_assert_fail("node '%s' output %d has the wrong producer", n->name, j);
        }
        for (int32_t a = 0; a < n->n_attrs; a++) {
            const kn_attr *at = &n->attrs[a];
            if (!at->name || (at->type == KN_ATTR_TENSOR && !at->t) ||
                (at->type == KN_ATTR_STRING && !at->s) || at->count < 0)
                cr_assert_fail("node '%s' attribute %d is incomplete", n->name, a);
            int32_t ng = at->type == KN_ATTR_GRAPH ? 1 : at->type == KN_ATTR_GRAPHS ? at->count : 0;
            for (int32_t s = 0; s < ng; s++) {
                const kn_graph *sub = at->type == KN_ATTR_GRAPH ? at->g : at->graphs[s];
                if (!sub || sub->parent != g)
                    cr_assert_fail("node '%s' subgraph lacks its parent", n->name);
                outer += check_graph(sub, depth + 1);
            }
        }
    }
    for (int32_t i = 0; i < g->n_inputs; i++) {
        int32_t id = g->inputs[i];
        if (id < 0 || id >= g->n_values || g->values[id].is_initializer ||
            !g->values[id].is_graph_input)
            cr_assert_fail("bad graph input %d", i);
    }
    for (int32_t i = 0; i < g->n_outputs; i++) {
        int32_t id = g->outputs[i];
        if (id < 0 || id >= g->n_values || !g->values[id].is_graph_output)
            cr_assert_fail("bad graph output %d", i);
    }
    return outer;
}

static inline void packed_varints(pbw *t, uint32_t field, const int64_t *v, int n)
{
    pbw p = {0};
    for (int i = 0; i < n; i++)
        w_varint(&p, (uint64_t)v[i]);
    w_msg(t, field, &p);
}

static inline kn_model_ir *load_file(const char *path)
{
    size_t n;
    void *bytes = kt_read_file(path, &n);
    cr_assert_not_null(bytes, "cannot read %s", path);
    kn_model_ir *ir = NULL;
    kn_err e = {0, {0}};
    int rc = kn_onnx_read_model(bytes, n, NULL, 0, &ir, &e);
    free(bytes);
    cr_assert_eq(rc, KN_OK, "%s: %s", path, e.msg);
    return ir;
}

static inline int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entries of a directory (for a deterministic order); caller frees. */
static inline char **list_dir(const char *path, int *count)
{
    DIR *d = opendir(path);
    char **names = NULL;
    int n = 0, cap = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, (size_t)cap * sizeof *names);
            cr_assert_not_null(names);
        }
        names[n++] = strdup(e->d_name);
    }
    if (d)
        closedir(d);
    if (n)
        qsort(names, (size_t)n, sizeof *names, cmp_str);
    *count = n;
    return names;
}

static inline void free_list(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static inline void expect_ints(const kn_node *n, const char *attr, int32_t count, const int64_t *want)
{
    int32_t c;
    const int64_t *v = kn_attr_ints(n, attr, &c);
    cr_assert_eq(c, count, "attribute %s count", attr);
    for (int32_t i = 0; i < count; i++)
        cr_assert_eq(v[i], want[i], "attribute %s[%d]", attr, i);
}

/* If node whose then/else branches read `uses` from the enclosing scope. */
static inline pbw if_node(const char *name, const char *uses, pbw *then_body)
{
    pbw n = mk_node("If", name, L("cond"), L(name)), a = {0}, body = {0};
    if (then_body) {
        body = *then_body;
    } else {
        add_node(&body, "Identity", NULL, L(uses), L("t"));
        add_vi(&body, 12, "t", -1, NULL);
    }
    w_str(&a, 1, "then_branch");
    w_msg(&a, 6, &body);
    w_int(&a, 20, KN_ATTR_GRAPH);
    w_msg(&n, 5, &a);
    pbw e = {0}, eb = {0};
    add_node(&eb, "Identity", NULL, L(uses), L("e"));
    add_vi(&eb, 12, "e", -1, NULL);
    w_str(&e, 1, "else_branch");
    w_msg(&e, 6, &eb); /* no type field: inferred as GRAPH */
    w_msg(&n, 5, &e);
    return n;
}

/* A chain of If nodes, each then_branch holding the next. */
static inline pbw nested_ifs(int depth)
{
    pbw body = {0};
    add_node(&body, "Identity", NULL, L("x"), L("t"));
    add_vi(&body, 12, "t", -1, NULL);
    for (int i = 0; i < depth; i++) {
        pbw n = if_node("t", "x", &body), outer = {0};
        w_msg(&outer, 1, &n);
        add_vi(&outer, 12, "t", -1, NULL);
        body = outer;
    }
    /* body is now a graph whose output is "t"; use it as the main graph. */
    static const int64_t d2[] = {2};
    pbw cond = mk_vi("cond", KN_BOOL, 0, NULL);
    w_msg(&body, 11, &cond);
    add_vi(&body, 11, "x", 1, d2);
    return mk_model(&body, 13);
}

#endif
