/* The ONNX reader (core/onnx) on real data: models and tensor files from
 * ONNX's own test data, tensor encoding and typed-field decoding, and
 * external data. KILN_READER_QUICK=1 thins the real-data sweeps (valgrind).
 * IR rules: test_reader_ir.c; malformed inputs: test_reader_corpus.c. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader_support.h"

/* ---- real models ---- */

static void expect_dims(const kn_value *v, int32_t rank, const int64_t *dims)
{
    cr_assert_eq(v->rank, rank, "value '%s' rank %d", v->name, v->rank);
    for (int32_t i = 0; i < rank; i++)
        cr_assert_eq(v->dims[i], dims[i], "value '%s' dim %d", v->name, i);
}

Test(reader_real, conv_with_strides_padding)
{
    need_testdata();
    kn_model_ir *ir = load_file(TESTDATA "/node/test_conv_with_strides_padding/model.onnx");
    cr_assert_eq(ir->ir_version, 6);
    cr_assert_str_eq(ir->producer_name, "backend-test");
    cr_assert_eq(ir->n_opsets, 1);
    cr_assert_eq(kn_model_opset_for(ir, ""), 11);
    cr_assert_eq(kn_model_opset_for(ir, "ai.onnx"), 11);
    const kn_graph *g = ir->graph;
    cr_assert_str_eq(g->name, "test_conv_with_strides_padding");
    cr_assert_eq(g->n_nodes, 1);
    const kn_node *conv = &g->nodes[0];
    cr_assert_str_eq(conv->op_type, "Conv");
    cr_assert_str_eq(conv->name, "node0");
    cr_assert_str_eq(conv->domain, "");
    cr_assert_eq(g->n_inputs, 2);
    cr_assert_str_eq(g->values[g->inputs[0]].name, "x");
    cr_assert_str_eq(g->values[g->inputs[1]].name, "W");
    cr_assert_eq(conv->inputs[0], g->inputs[0]);
    cr_assert_eq(conv->inputs[1], g->inputs[1]);
    expect_dims(&g->values[g->inputs[0]], 4, (const int64_t[]){1, 1, 7, 5});
    expect_dims(&g->values[g->inputs[1]], 4, (const int64_t[]){1, 1, 3, 3});
    cr_assert_eq(g->values[g->inputs[0]].dtype, KN_FLOAT);
    cr_assert_eq(g->n_outputs, 1);
    const kn_value *y = &g->values[g->outputs[0]];
    cr_assert_str_eq(y->name, "y");
    cr_assert_eq(y->producer, 0);
    expect_dims(y, 4, (const int64_t[]){1, 1, 4, 3});
    expect_ints(conv, "kernel_shape", 2, (const int64_t[]){3, 3});
    expect_ints(conv, "pads", 4, (const int64_t[]){1, 1, 1, 1});
    expect_ints(conv, "strides", 2, (const int64_t[]){2, 2});
    check_graph(g, 0);
    kn_model_ir_free(ir);
}

Test(reader_real, pytorch_conv2d_initializers)
{
    need_testdata();
    kn_model_ir *ir = load_file(TESTDATA "/pytorch-converted/test_Conv2d/model.onnx");
    const kn_graph *g = ir->graph;
    cr_assert_str_eq(ir->producer_name, "pytorch");
    cr_assert_eq(kn_model_opset_for(ir, ""), 6);
    cr_assert_eq(g->n_inputs, 1, "initializers listed as inputs are not graph inputs");
    cr_assert_str_eq(g->values[g->inputs[0]].name, "0");
    const kn_value *w = find_value(g, "1"), *b = find_value(g, "2");
    cr_assert(w && b);
    cr_assert(w->is_initializer && w->is_graph_input);
    expect_dims(w, 4, (const int64_t[]){4, 3, 3, 2});
    cr_assert_eq(w->init_nbytes, 288);
    const float *wf = w->init_data, *bf = b->init_data;
    cr_assert_float_eq(wf[0], -0.1429409235715866f, 1e-7f);
    cr_assert_float_eq(wf[1], -0.08505815267562866f, 1e-7f);
    cr_assert_float_eq(wf[71], -0.10345209f, 1e-7f);
    cr_assert_float_eq(bf[0], -0.17454391717910767f, 1e-7f);
    cr_assert_float_eq(bf[3], 0.18244947f, 1e-7f);
    const kn_node *conv = &g->nodes[0];
    cr_assert_eq(kn_attr_int(conv, "group", -1), 1);
    expect_ints(conv, "kernel_shape", 2, (const int64_t[]){3, 2});
    kn_model_ir_free(ir);
}

Test(reader_real, if_subgraphs)
{
    need_testdata();
    kn_model_ir *ir = load_file(TESTDATA "/node/test_if/model.onnx");
    const kn_graph *g = ir->graph;
    cr_assert_eq(g->n_nodes, 1);
    const kn_attr *then_b = kn_node_attr(&g->nodes[0], "then_branch");
    const kn_attr *else_b = kn_node_attr(&g->nodes[0], "else_branch");
    cr_assert(then_b && else_b && then_b->type == KN_ATTR_GRAPH && else_b->type == KN_ATTR_GRAPH);
    cr_assert_eq(else_b->g->parent, g);
    const kn_node *k = &else_b->g->nodes[0];
    cr_assert_str_eq(k->op_type, "Constant");
    const kn_attr *value = kn_node_attr(k, "value");
    cr_assert(value && value->type == KN_ATTR_TENSOR);
    cr_assert_eq(value->t->dtype, KN_FLOAT);
    cr_assert_eq(value->t->rank, 1);
    cr_assert_eq(value->t->dims[0], 5);
    cr_assert_float_eq(((const float *)value->t->data)[0], 5.0f, 0);
    cr_assert_float_eq(((const float *)value->t->data)[4], 1.0f, 0);
    kn_model_ir_free(ir);
}

Test(reader_real, every_suite_model_loads, .timeout = 120)
{
    need_testdata();
    int models = 0, nodes = 0, subgraphs_outer = 0;
    for (int s = 0; s < READER_N_SUITES; s++) {
        char dir[512], path[1024];
        snprintf(dir, sizeof dir, "%s/%s", TESTDATA, reader_suite(s));
        int n;
        char **tests = list_dir(dir, &n);
        for (int t = 0; t < n; t += quick() ? 10 : 1) {
            snprintf(path, sizeof path, "%s/%s/model.onnx", dir, tests[t]);
            if (access(path, R_OK) != 0)
                continue;
            kn_model_ir *ir = load_file(path);
            subgraphs_outer += check_graph(ir->graph, 0);
            nodes += ir->graph->n_nodes;
            models++;
            kn_model_ir_free(ir);
        }
        free_list(tests, n);
    }
    fprintf(stderr, "reader: %d models (%d top-level nodes) from 4 suites loaded\n", models,
            nodes);
    cr_assert_gt(models, quick() ? 50 : 1000);
    cr_assert(quick() || subgraphs_outer > 0, "some subgraph uses outer values");
}

/* Decodes every input_K.pb / output_K.pb. Files of tensor-typed graph inputs
 * and outputs must decode (string tensors: UNSUPPORTED) with the declared
 * dtype and static dims; sequences and optionals may fail, cleanly. */
typedef struct pb_stats {
    int ok, unsupported, other_failed, roundtrip_identical, dtype_differs, shape_differs;
} pb_stats;

static void check_pb(const char *path, const kn_value *decl, pb_stats *st)
{
    size_t size;
    uint8_t *bytes = kt_read_file(path, &size);
    cr_assert_not_null(bytes);
    kn_bump *pool = kn_bump_create();
    kn_tensor t;
    const char *name = NULL;
    kn_err e = {0, {0}};
    int rc = kn_onnx_read_tensor(pool, bytes, size, &t, &name, &e);
    /* Sequence and optional files: tests/test_sequences.c decodes them. */
    int is_tensor = decl && decl->kind == KN_KIND_TENSOR && decl->dtype != KN_UNDEFINED;
    if (is_tensor && decl->dtype == KN_STRING) {
        cr_assert_eq(rc, KN_OK, "%s: %s", path, e.msg);
        cr_assert_eq(t.dtype, KN_STRING, "%s", path);
        st->unsupported++;
    } else if (is_tensor) {
        cr_assert_eq(rc, KN_OK, "%s: %s", path, e.msg);
        /* Old test data stores bfloat16 files as uint16: same size, other name. */
        cr_assert(t.dtype == decl->dtype || kn_dtype_size(t.dtype) == kn_dtype_size(decl->dtype),
                  "%s: dtype %d, model declares %d", path, t.dtype, decl->dtype);
        st->dtype_differs += t.dtype != decl->dtype;
        /* A few files of the test data disagree with their model's declared
         * shape (castlike's "like" input); count them, do not fail. */
        int same = decl->rank < 0 || t.rank == decl->rank;
        for (int32_t i = 0; same && decl->rank >= 0 && i < t.rank; i++)
            same = decl->dims[i] < 0 || decl->dims[i] == t.dims[i];
        st->shape_differs += !same;
        /* Re-encoding gives a tensor with the same contents... */
        size_t need = 0;
        cr_assert_eq(kn_onnx_write_tensor(name, &t, NULL, 0, &need, NULL),
                     KN_ERR_BUFFER_TOO_SMALL);
        uint8_t *enc = malloc(need);
        cr_assert_eq(kn_onnx_write_tensor(name, &t, enc, need, &need, NULL), KN_OK);
        kn_tensor t2;
        cr_assert_eq(kn_onnx_read_tensor(pool, enc, need, &t2, NULL, NULL), KN_OK);
        cr_assert(t2.dtype == t.dtype && kn_shape_equal(t.dims, t.rank, t2.dims, t2.rank));
        int64_t nb = kn_tensor_nbytes(&t);
        cr_assert(nb == 0 || memcmp(t.data, t2.data, (size_t)nb) == 0, "%s: round trip", path);
        /* ...and the very bytes the onnx package wrote, for raw_data files. */
        st->roundtrip_identical += need == size && memcmp(enc, bytes, size) == 0;
        free(enc);
        st->ok++;
    } else {
        cr_assert(rc == KN_OK || e.msg[0], "%s: failure without a message", path);
        st->other_failed += rc != KN_OK;
        st->ok += rc == KN_OK;
    }
    kn_bump_destroy(pool);
    free(bytes);
}

Test(reader_real, every_suite_tensor_file, .timeout = 120)
{
    need_testdata();
    pb_stats st = {0, 0, 0, 0, 0, 0};
    int files = 0;
    for (int s = 0; s < READER_N_SUITES; s++) {
        char dir[512], path[1024];
        snprintf(dir, sizeof dir, "%s/%s", TESTDATA, reader_suite(s));
        int n;
        char **tests = list_dir(dir, &n);
        for (int t = 0; t < n; t += quick() ? 10 : 1) {
            snprintf(path, sizeof path, "%s/%s/model.onnx", dir, tests[t]);
            if (access(path, R_OK) != 0)
                continue;
            kn_model_ir *ir = load_file(path);
            const kn_graph *g = ir->graph;
            snprintf(path, sizeof path, "%s/%s", dir, tests[t]);
            int nsets;
            char **sets = list_dir(path, &nsets);
            for (int k = 0; k < nsets; k++) {
                if (strncmp(sets[k], "test_data_set_", 14) != 0)
                    continue;
                char setdir[1024 + 64];
                snprintf(setdir, sizeof setdir, "%s/%s", path, sets[k]);
                int nf;
                char **pbs = list_dir(setdir, &nf);
                for (int f = 0; f < nf; f++) {
                    int idx, is_in = sscanf(pbs[f], "input_%d.pb", &idx) == 1;
                    if (!is_in && sscanf(pbs[f], "output_%d.pb", &idx) != 1)
                        continue;
                    int32_t count = is_in ? g->n_inputs : g->n_outputs;
                    const int32_t *ids = is_in ? g->inputs : g->outputs;
                    char file[2048];
                    snprintf(file, sizeof file, "%s/%s", setdir, pbs[f]);
                    check_pb(file, idx < count ? &g->values[ids[idx]] : NULL, &st);
                    files++;
                }
                free_list(pbs, nf);
            }
            free_list(sets, nsets);
            kn_model_ir_free(ir);
        }
        free_list(tests, n);
    }
    fprintf(stderr, "reader: %d tensor files: %d decoded (%d re-encode byte-identical), "
            "%d string, %d non-tensor failed cleanly, %d with the model's dtype "
            "under another name of its size, %d with another shape than declared\n", files, st.ok,
            st.roundtrip_identical, st.unsupported, st.other_failed, st.dtype_differs,
            st.shape_differs);
    cr_assert_lt(st.shape_differs, 20);
    cr_assert_gt(st.ok, quick() ? 100 : 3000);
    cr_assert_gt(st.roundtrip_identical, st.ok / 2);
}

/* ---- tensor encoding and typed decoding ---- */

static const int32_t all_dtypes[] = {
    KN_FLOAT, KN_UINT8, KN_INT8, KN_UINT16, KN_INT16, KN_INT32, KN_INT64, KN_BOOL,
    KN_FLOAT16, KN_DOUBLE, KN_UINT32, KN_UINT64, KN_COMPLEX64, KN_COMPLEX128, KN_BFLOAT16};

Test(reader_tensor, encode_decode_roundtrip)
{
    static const struct { int32_t rank; int64_t dims[3]; } shapes[] = {
        {2, {2, 3}}, {0, {0}}, {3, {2, 0, 4}}, {1, {7}}};
    uint8_t data[256], buf[512];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 37 + 11);
    for (size_t d = 0; d < sizeof all_dtypes / sizeof all_dtypes[0]; d++) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            kn_tensor t = {all_dtypes[d], shapes[s].rank, {0}, data, KN_LOC_HOST};
            memcpy(t.dims, shapes[s].dims, sizeof shapes[s].dims);
            size_t need = 0;
            kn_err e = {0, {0}};
            cr_assert_eq(kn_onnx_write_tensor("t", &t, NULL, 0, &need, &e),
                         KN_ERR_BUFFER_TOO_SMALL);
            cr_assert_gt(need, 0);
            e.code = 0;
            cr_assert_eq(kn_onnx_write_tensor("t", &t, buf, need - 1, &need, &e),
                         KN_ERR_BUFFER_TOO_SMALL);
            cr_assert_eq(kn_onnx_write_tensor("t", &t, buf, sizeof buf, &need, NULL), KN_OK);
            kn_bump *pool = kn_bump_create();
            kn_tensor out;
            const char *name;
            e.code = 0;
            cr_assert_eq(kn_onnx_read_tensor(pool, buf, need, &out, &name, &e), KN_OK, "%s",
                         e.msg);
            cr_assert_str_eq(name, "t");
            cr_assert_eq(out.dtype, t.dtype);
            cr_assert(kn_shape_equal(out.dims, out.rank, t.dims, t.rank));
            int64_t nb = kn_tensor_nbytes(&t);
            cr_assert(nb == 0 || memcmp(out.data, data, (size_t)nb) == 0, "dtype %d", t.dtype);
            kn_bump_destroy(pool);
        }
    }
}

Test(reader_tensor, encode_rejects_bad_tensors)
{
    uint8_t buf[64];
    size_t need;
    kn_tensor t = {KN_FLOAT, 1, {2}, NULL, KN_LOC_HOST};
    cr_assert_eq(kn_onnx_write_tensor("x", &t, buf, sizeof buf, &need, NULL),
                 KN_ERR_INVALID_ARGUMENT, "NULL data");
    float f[2] = {1, 2};
    t.data = f;
    t.rank = 9;
    cr_assert_eq(kn_onnx_write_tensor("x", &t, buf, sizeof buf, &need, NULL),
                 KN_ERR_INVALID_ARGUMENT);
    t.rank = 1;
    t.dtype = KN_STRING; /* a string tensor whose second element is corrupt */
    kn_string strings[2] = {{"a", 1}, {NULL, -1}};
    t.data = strings;
    cr_assert_eq(kn_onnx_write_tensor("x", &t, buf, sizeof buf, &need, NULL),
                 KN_ERR_INVALID_ARGUMENT);
    t.data = f;
    t.dtype = KN_FLOAT;
    t.dims[0] = -1;
    cr_assert_eq(kn_onnx_write_tensor("x", &t, buf, sizeof buf, &need, NULL),
                 KN_ERR_INVALID_ARGUMENT);
    cr_assert_eq(kn_onnx_write_tensor("x", NULL, buf, sizeof buf, &need, NULL),
                 KN_ERR_INVALID_ARGUMENT);
}

/* Decodes a TensorProto built by the test; returns the status. */
static int decode(pbw *t, kn_bump *pool, kn_tensor *out, kn_err *e)
{
    memset(e, 0, sizeof *e);
    int rc = kn_onnx_read_tensor(pool, t->p, t->n, out, NULL, e);
    free(t->p);
    memset(t, 0, sizeof *t);
    return rc;
}

/* int32_data holding a narrower type: the values and the bytes expected. */
static void check_int32_data(int32_t dtype, const int64_t *vals, int n, const void *want,
                             size_t want_bytes, int packed)
{
    kn_bump *pool = kn_bump_create();
    pbw t = {0};
    w_int(&t, 1, n);
    w_int(&t, 2, dtype);
    if (packed)
        packed_varints(&t, 5, vals, n);
    else
        for (int i = 0; i < n; i++)
            w_int(&t, 5, vals[i]);
    kn_tensor out;
    kn_err e;
    cr_assert_eq(decode(&t, pool, &out, &e), KN_OK, "dtype %d: %s", dtype, e.msg);
    cr_assert_eq(kn_tensor_nbytes(&out), (int64_t)want_bytes);
    cr_assert(memcmp(out.data, want, want_bytes) == 0, "dtype %d bytes", dtype);
    kn_bump_destroy(pool);
}

Test(reader_tensor, typed_fields)
{
    kn_bump *pool = kn_bump_create();
    kn_tensor out;
    kn_err e;
    /* float_data, packed and unpacked mixed. */
    pbw t = {0};
    w_int(&t, 1, 3);
    w_int(&t, 2, KN_FLOAT);
    pbw p = {0};
    float fl[2] = {1.5f, -2.0f};
    w_raw(&p, fl, sizeof fl);
    w_msg(&t, 4, &p);
    w_f32(&t, 4, 3.25f);
    cr_assert_eq(decode(&t, pool, &out, &e), KN_OK, "%s", e.msg);
    const float *f = out.data;
    cr_assert(f[0] == 1.5f && f[1] == -2.0f && f[2] == 3.25f);

    for (int packed = 0; packed < 2; packed++) {
        check_int32_data(KN_INT8, (const int64_t[]){-1, 127, -128}, 3,
                         (const uint8_t[]){0xff, 0x7f, 0x80}, 3, packed);
        check_int32_data(KN_UINT8, (const int64_t[]){0, 200, 255}, 3,
                         (const uint8_t[]){0, 200, 255}, 3, packed);
        check_int32_data(KN_BOOL, (const int64_t[]){0, 1, 2}, 3, (const uint8_t[]){0, 1, 1}, 3,
                         packed);
        check_int32_data(KN_FLOAT16, (const int64_t[]){0x3c00, 0xc000}, 2,
                         (const uint8_t[]){0x00, 0x3c, 0x00, 0xc0}, 4, packed);
        check_int32_data(KN_BFLOAT16, (const int64_t[]){0x3f80}, 1,
                         (const uint8_t[]){0x80, 0x3f}, 2, packed);
        check_int32_data(KN_INT16, (const int64_t[]){-2, 300}, 2,
                         (const uint8_t[]){0xfe, 0xff, 0x2c, 0x01}, 4, packed);
        check_int32_data(KN_UINT16, (const int64_t[]){65535}, 1, (const uint8_t[]){0xff, 0xff},
                         2, packed);
        check_int32_data(KN_INT32, (const int64_t[]){-5, INT32_MAX}, 2,
                         (const int32_t[]){-5, INT32_MAX}, 8, packed);
    }

    /* int64_data, packed then unpacked. */
    w_int(&t, 1, 3);
    w_int(&t, 2, KN_INT64);
    packed_varints(&t, 7, (const int64_t[]){-1, INT64_MIN}, 2);
    w_int(&t, 7, 42);
    cr_assert_eq(decode(&t, pool, &out, &e), KN_OK, "%s", e.msg);
    const int64_t *i64 = out.data;
    cr_assert(i64[0] == -1 && i64[1] == INT64_MIN && i64[2] == 42);

    /* double_data. */
    w_int(&t, 1, 2);
    w_int(&t, 2, KN_DOUBLE);
    double dv[2] = {0.1, -2.5};
    uint64_t bits;
    for (int i = 0; i < 2; i++) {
        memcpy(&bits, &dv[i], 8);
        w_fixed(&t, 10, bits, 8);
    }
    cr_assert_eq(decode(&t, pool, &out, &e), KN_OK, "%s", e.msg);
    cr_assert(((const double *)out.data)[0] == 0.1 && ((const double *)out.data)[1] == -2.5);

    /* uint64_data holds uint32 and uint64. */
    w_int(&t, 1, 1);
    w_int(&t, 2, KN_UINT32);
    w_int(&t, 11, 4000000000);
    cr_assert_eq(decode(&t, pool, &out, &e), KN_OK, "%s", e.msg);
    cr_assert_eq(*(const uint32_t *)out.data, 4000000000u);
    w_int(&t, 2, KN_UINT64);
    w_int(&t, 11, (int64_t)UINT64_MAX);
    cr_assert_eq(decode(&t, pool, &out, &e), KN_OK, "%s", e.msg);
    cr_assert_eq(out.rank, 0);
    cr_assert_eq(*(const uint64_t *)out.data, UINT64_MAX);

    /* complex64: two floats per element. */
    w_int(&t, 1, 2);
    w_int(&t, 2, KN_COMPLEX64);
    for (int i = 0; i < 4; i++)
        w_f32(&t, 4, (float)i);
    cr_assert_eq(decode(&t, pool, &out, &e), KN_OK, "%s", e.msg);
    cr_assert_eq(((const float *)out.data)[3], 3.0f);
    kn_bump_destroy(pool);
}

static void tensor_fails(pbw *t, int code, const char *needle)
{
    kn_bump *pool = kn_bump_create();
    kn_tensor out;
    kn_err e;
    int rc = decode(t, pool, &out, &e);
    cr_assert_eq(rc, code, "expected %s: got %d %s", needle, rc, e.msg);
    cr_assert(strstr(e.msg, needle), "message '%s' lacks '%s'", e.msg, needle);
    kn_bump_destroy(pool);
}

Test(reader_tensor, typed_field_errors)
{
    pbw t = {0};
    w_int(&t, 1, 3);
    w_int(&t, 2, KN_FLOAT);
    w_f32(&t, 4, 1);
    w_f32(&t, 4, 2);
    tensor_fails(&t, KN_ERR_INVALID_MODEL, "float_data has 2 values, but its dims need 3");

    w_int(&t, 2, KN_FLOAT);
    w_int(&t, 7, 1);
    tensor_fails(&t, KN_ERR_INVALID_MODEL, "stores its data in int64_data");

    w_int(&t, 2, KN_FLOAT);
    w_f32(&t, 4, 1);
    w_bytes(&t, 9, "abcd", 4);
    tensor_fails(&t, KN_ERR_INVALID_MODEL, "more than one field");

    w_int(&t, 1, 1);
    w_int(&t, 2, KN_FLOAT);
    w_str(&t, 6, "hello");
    tensor_fails(&t, KN_ERR_INVALID_MODEL, "stores its data in string_data");

    for (int i = 0; i < 3; i++)
        w_int(&t, 1, INT64_C(1) << 40);
    w_int(&t, 2, KN_FLOAT);
    tensor_fails(&t, KN_ERR_INVALID_MODEL, "overflows");

    w_int(&t, 1, -4);
    w_int(&t, 2, KN_FLOAT);
    tensor_fails(&t, KN_ERR_INVALID_MODEL, "negative dim");

    for (int i = 0; i < 9; i++)
        w_int(&t, 1, 1);
    w_int(&t, 2, KN_FLOAT);
    w_f32(&t, 4, 1);
    tensor_fails(&t, KN_ERR_UNSUPPORTED, "rank 9");

    w_int(&t, 1, 4);
    w_int(&t, 2, KN_INT32);
    tensor_fails(&t, KN_ERR_INVALID_MODEL, "4 elements but no data");

    w_int(&t, 1, 1);
    w_bytes(&t, 9, "abcd", 4);
    tensor_fails(&t, KN_ERR_INVALID_MODEL, "no data_type");

    w_int(&t, 2, 99);
    tensor_fails(&t, KN_ERR_UNSUPPORTED, "unsupported data_type 99");

    w_int(&t, 1, 2);
    w_int(&t, 2, KN_FLOAT);
    w_bytes(&t, 9, "abcdefg", 7);
    tensor_fails(&t, KN_ERR_INVALID_MODEL, "raw_data has 7 bytes");

    w_int(&t, 2, KN_FLOAT);
    pbw entry = {0};
    w_str(&entry, 1, "location");
    w_str(&entry, 2, "w.bin");
    w_msg(&t, 13, &entry);
    w_int(&t, 14, 1);
    tensor_fails(&t, KN_ERR_UNSUPPORTED, "external file");

    pbw seg = {0};
    w_int(&seg, 1, 0);
    w_int(&t, 2, KN_FLOAT);
    w_msg(&t, 3, &seg);
    tensor_fails(&t, KN_ERR_UNSUPPORTED, "segmented");

    w_int(&t, 2, KN_FLOAT);
    w_bytes(&t, 4, "abcdef", 6); /* packed fixed32 not a multiple of 4 */
    tensor_fails(&t, KN_ERR_INVALID_MODEL, "not a multiple of 4");
}

/* ---- external data ---- */

Test(reader_external, fixture_written_by_onnx)
{
    const char *dir = kt_src_path("tests/data/reader/external");
    char path[4096];
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    size_t n;
    void *bytes = kt_read_file(path, &n);
    cr_assert_not_null(bytes, "fixture missing: run tools/make_reader_fixtures.py");
    kn_model_ir *ir;
    kn_err e = {0, {0}};
    cr_assert_eq(kn_onnx_read_model(bytes, n, dir, 0, &ir, &e), KN_OK, "%s", e.msg);
    const kn_value *w = find_value(ir->graph, "W"), *b = find_value(ir->graph, "B");
    cr_assert(w && b && w->is_initializer && b->is_initializer);
    const float *wf = w->init_data, *bf = b->init_data;
    cr_assert(wf[0] == 0.0f && wf[1] == 0.5f && wf[5] == 2.5f);
    cr_assert(bf[0] == 1.0f && bf[1] == -2.0f && bf[2] == 3.0f, "B sits at offset 24");
    kn_model_ir_free(ir);
    memset(&e, 0, sizeof e);
    cr_assert_eq(kn_onnx_read_model(bytes, n, NULL, 0, &ir, &e), KN_ERR_UNSUPPORTED);
    cr_assert(strstr(e.msg, "external file"), "%s", e.msg);
    free(bytes);
}

typedef struct ext_dir {
    char dir[64];
    char outside[96];
} ext_dir;

static void write_file(const char *path, const void *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(d, 1, n, f), n);
    fclose(f);
}

/* Model: Y = X + W, W float[2,3] in an external file. NULL keys are left out. */
static pbw ext_model(const char *location, const char *offset, const char *length)
{
    static const int64_t d23[] = {2, 3};
    pbw t = {0}, g = {0};
    w_int(&t, 1, 2);
    w_int(&t, 1, 3);
    w_int(&t, 2, KN_FLOAT);
    w_str(&t, 8, "W");
    const char *keys[] = {"location", "offset", "length", "checksum"};
    const char *vals[] = {location, offset, length, "0123"};
    for (int i = 0; i < 4; i++) {
        if (!vals[i])
            continue;
        pbw entry = {0};
        w_str(&entry, 1, keys[i]);
        w_str(&entry, 2, vals[i]);
        w_msg(&t, 13, &entry);
    }
    w_int(&t, 14, 1);
    add_node(&g, "Add", "add", L("X", "W"), L("Y"));
    w_msg(&g, 5, &t);
    add_vi(&g, 11, "X", 2, d23);
    add_vi(&g, 12, "Y", 2, d23);
    return mk_model(&g, 13);
}

static int load_ext(const ext_dir *d, pbw m, size_t max_bytes, kn_err *e, float *first)
{
    kn_model_ir *ir = NULL;
    memset(e, 0, sizeof *e);
    int rc = kn_onnx_read_model(m.p, m.n, d->dir, max_bytes, &ir, e);
    free(m.p);
    if (rc == KN_OK) {
        const kn_value *w = find_value(ir->graph, "W");
        *first = ((const float *)w->init_data)[0];
        kn_model_ir_free(ir);
    } else {
        cr_assert(e->msg[0]);
    }
    return rc;
}

Test(reader_external, paths_offsets_and_limits)
{
    ext_dir d;
    snprintf(d.dir, sizeof d.dir, "/tmp/kiln_reader_XXXXXX");
    cr_assert_not_null(mkdtemp(d.dir));
    snprintf(d.outside, sizeof d.outside, "%s_outside.bin", d.dir);
    char path[256], sub[256], link[256];
    float data[7] = {-1, 10, 11, 12, 13, 14, 15}; /* 4 bytes of padding, then W */
    snprintf(path, sizeof path, "%s/w.bin", d.dir);
    write_file(path, data, sizeof data);
    write_file(d.outside, data, sizeof data);
    snprintf(sub, sizeof sub, "%s/sub", d.dir);
    cr_assert_eq(mkdir(sub, 0700), 0);
    snprintf(link, sizeof link, "%s/escape.bin", d.dir);
    cr_assert_eq(symlink(d.outside, link), 0);

    kn_err e;
    float first = 0;
    cr_assert_eq(load_ext(&d, ext_model("w.bin", "4", "24"), 0, &e, &first), KN_OK, "%s", e.msg);
    cr_assert_eq(first, 10.0f);
    cr_assert_eq(load_ext(&d, ext_model("sub/../w.bin", "4", "24"), 0, &e, &first),
                 KN_ERR_INVALID_MODEL);
    cr_assert(strstr(e.msg, "'..'"), "%s", e.msg);
    cr_assert_eq(load_ext(&d, ext_model("../w.bin", "4", NULL), 0, &e, &first),
                 KN_ERR_INVALID_MODEL);
    cr_assert_eq(load_ext(&d, ext_model(path, "4", "24"), 0, &e, &first), KN_ERR_INVALID_MODEL);
    cr_assert(strstr(e.msg, "absolute"), "%s", e.msg);
    cr_assert_eq(load_ext(&d, ext_model("w.bin", "400", "24"), 0, &e, &first),
                 KN_ERR_INVALID_MODEL);
    cr_assert(strstr(e.msg, "past the end"), "%s", e.msg);
    cr_assert_eq(load_ext(&d, ext_model("w.bin", "8", "24"), 0, &e, &first),
                 KN_ERR_INVALID_MODEL);
    cr_assert(strstr(e.msg, "past the end"), "%s", e.msg);
    cr_assert_eq(load_ext(&d, ext_model("w.bin", "0", "28"), 0, &e, &first),
                 KN_ERR_INVALID_MODEL);
    cr_assert(strstr(e.msg, "dims need 24"), "%s", e.msg);
    cr_assert_eq(load_ext(&d, ext_model("w.bin", "0", NULL), 0, &e, &first),
                 KN_ERR_INVALID_MODEL, "no length: the rest of the file (28 bytes)");
    cr_assert_eq(load_ext(&d, ext_model("w.bin", "4x", "24"), 0, &e, &first),
                 KN_ERR_INVALID_MODEL);
    cr_assert_eq(load_ext(&d, ext_model("w.bin", "-4", "24"), 0, &e, &first),
                 KN_ERR_INVALID_MODEL);
    cr_assert_eq(load_ext(&d, ext_model(NULL, "4", "24"), 0, &e, &first), KN_ERR_INVALID_MODEL);
    cr_assert_eq(load_ext(&d, ext_model("missing.bin", "4", "24"), 0, &e, &first), KN_ERR_IO);
    cr_assert_eq(load_ext(&d, ext_model("sub", NULL, NULL), 0, &e, &first), KN_ERR_IO);
    cr_assert_eq(load_ext(&d, ext_model("escape.bin", "4", "24"), 0, &e, &first),
                 KN_ERR_INVALID_MODEL);
    cr_assert(strstr(e.msg, "outside the model folder"), "%s", e.msg);
    cr_assert_eq(load_ext(&d, ext_model("w.bin", "4", "24"), 512, &e, &first), KN_ERR_LIMIT,
                 "%s", e.msg);
    cr_assert_eq(load_ext(&d, ext_model("w.bin", "4", "24"), 1 << 20, &e, &first), KN_OK);

    unlink(link);
    unlink(path);
    unlink(d.outside);
    rmdir(sub);
    rmdir(d.dir);
}
