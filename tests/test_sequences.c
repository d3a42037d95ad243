/* Sequence and optional values end to end through the public API: decoding
 * SequenceProto / OptionalProto files, taking values apart, binding them as
 * inputs, reading them as outputs, and the sequence ops on the small
 * models of tools/make_sequence_models.py (tests/data/models/seq_*), with
 * hand-checked values and the errors bad positions give. The codec round
 * trip over every sequence/optional file of the ONNX suites goes through
 * the core reader and writer. */
#include <string.h>
#include <unistd.h>

#include "api_helpers.h"
#include "core/onnx/onnx.h"
#include "core/ir/value_blob.h"
#include "reader_support.h"

#define MODELS "tests/data/models/"

/* ---- helpers ---- */

static kiln_tensor *decode_file(const char *relative, int32_t kind)
{
    size_t size = 0;
    void *bytes = kt_read_file(kt_src_path(relative), &size);
    cr_assert_not_null(bytes, "cannot read %s", relative);
    kiln_tensor *t = NULL;
    KT_OK(kiln_tensor_decode_value(bytes, size, kind, &t));
    free(bytes);
    return t;
}

static int32_t kind_of(const kiln_tensor *t)
{
    int32_t kind = -1;
    KT_OK(kiln_tensor_kind(t, &kind));
    return kind;
}

static int32_t count_of(const kiln_tensor *t)
{
    int32_t n = -1;
    KT_OK(kiln_tensor_element_count(t, &n));
    return n;
}

/* Asserts t is a float tensor of the given shape and values. */
static void expect_floats(const kiln_tensor *t, int32_t rank, const int64_t *dims,
                          const float *values)
{
    int32_t dtype = 0, r = -1;
    int64_t d[8];
    KT_OK(kiln_tensor_info(t, &dtype, d, 8, &r));
    cr_assert_eq(dtype, KILN_DTYPE_FLOAT);
    cr_assert_eq(r, rank);
    int64_t n = 1;
    for (int32_t i = 0; i < rank; i++) {
        cr_assert_eq(d[i], dims[i], "dim %d: %lld, expected %lld", i, (long long)d[i],
                     (long long)dims[i]);
        n *= dims[i];
    }
    const void *data = NULL;
    size_t nbytes = 0;
    KT_OK(kiln_tensor_data(t, &data, &nbytes));
    cr_assert_eq(nbytes, (size_t)n * sizeof(float));
    for (int64_t i = 0; i < n; i++)
        cr_assert_eq(((const float *)data)[i], values[i], "value %lld: %g, expected %g",
                     (long long)i, ((const float *)data)[i], values[i]);
}

/* Asserts element i of a value is such a float tensor. */
static void expect_elem(const kiln_tensor *v, int32_t i, int32_t rank, const int64_t *dims,
                        const float *values)
{
    kiln_tensor *e = NULL;
    KT_OK(kiln_tensor_element(v, i, &e));
    cr_assert_eq(kind_of(e), KILN_KIND_TENSOR);
    expect_floats(e, rank, dims, values);
    kiln_tensor_destroy(e);
}

static void set_f32(kiln_session *s, const char *name, int32_t rank, const int64_t *dims,
                    const float *v, size_t n)
{
    KT_OK(kiln_session_set_input(s, name, KILN_DTYPE_FLOAT, dims, rank, v, n * sizeof *v,
                                 KILN_INPUT_COPY));
}

static void set_i64(kiln_session *s, const char *name, int32_t rank, const int64_t *dims,
                    const int64_t *v, size_t n)
{
    KT_OK(kiln_session_set_input(s, name, KILN_DTYPE_INT64, dims, rank, v, n * sizeof *v,
                                 KILN_INPUT_COPY));
}

static void set_pos(kiln_session *s, const char *name, int64_t pos)
{
    set_i64(s, name, 0, NULL, &pos, 1);
}

static int32_t input_index(const kiln_model *m, const char *name)
{
    int32_t index = -1;
    KT_OK(kiln_model_input_index(m, name, &index));
    return index;
}

static int32_t output_index(const kiln_model *m, const char *name)
{
    int32_t index = -1;
    KT_OK(kiln_model_output_index(m, name, &index));
    return index;
}

static kiln_tensor *output_value(const kiln_model *m, const kiln_session *s, const char *name)
{
    kiln_tensor *v = NULL;
    KT_OK(kiln_session_output_value(s, output_index(m, name), &v));
    return v;
}

static int64_t output_i64(const kiln_model *m, const kiln_session *s, const char *name)
{
    int64_t v = -1;
    size_t need = 0;
    KT_OK(kiln_session_output_copy(s, output_index(m, name), &v, sizeof v, &need));
    cr_assert_eq(need, sizeof v);
    return v;
}

static int output_bool(const kiln_model *m, const kiln_session *s, const char *name)
{
    uint8_t v = 2;
    KT_OK(kiln_session_output_copy(s, output_index(m, name), &v, 1, NULL));
    return v;
}

/* Runs expecting failure with `code` and a message holding `needle`. */
static void run_fails(kiln_session *s, int32_t code, const char *needle)
{
    KT_FAILS(kiln_session_run(s), code);
    char msg[1024];
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, needle), "message '%s' lacks '%s'", msg, needle);
}

static const float A[6] = {0, 1, 2, 3, 4, 5}; /* seq_two.pb element 0, [2, 3] */
static const float Bv[2] = {10, 20};          /* seq_two.pb element 1, [2] */
static const int64_t A_DIMS[2] = {2, 3}, B_DIMS[1] = {2};

/* ---- decoding values ---- */

Test(sequences, decode_sequence_file)
{
    kiln_tensor *t = decode_file(MODELS "seq_two.pb", KILN_KIND_SEQUENCE);
    cr_assert_eq(kind_of(t), KILN_KIND_SEQUENCE);
    cr_assert_eq(count_of(t), 2);
    char name[32];
    KT_OK(kiln_tensor_name(t, name, sizeof name, NULL));
    cr_assert_str_eq(name, "two");
    expect_elem(t, 0, 2, A_DIMS, A);
    expect_elem(t, 1, 1, B_DIMS, Bv);
    /* The blob is private: tensor accessors refuse it. */
    int32_t dtype = 0, rank = 0;
    const void *data = NULL;
    KT_FAILS(kiln_tensor_info(t, &dtype, NULL, 0, &rank), KILN_ERR_DTYPE);
    KT_FAILS(kiln_tensor_data(t, &data, NULL), KILN_ERR_DTYPE);
    kiln_tensor *e = NULL;
    KT_FAILS(kiln_tensor_element(t, 2, &e), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_tensor_element(t, -1, &e), KILN_ERR_INVALID_ARGUMENT);
    cr_assert_null(e);
    /* An element is a plain tensor: it has no elements itself. */
    KT_OK(kiln_tensor_element(t, 1, &e));
    int32_t n = 0;
    KT_FAILS(kiln_tensor_element_count(e, &n), KILN_ERR_INVALID_ARGUMENT);
    kiln_tensor_destroy(t); /* the element is an independent copy */
    expect_floats(e, 1, B_DIMS, Bv);
    kiln_tensor_destroy(e);
}

Test(sequences, decode_empty_nested_and_optionals)
{
    kiln_tensor *t = decode_file(MODELS "seq_empty.pb", KILN_KIND_SEQUENCE);
    cr_assert_eq(count_of(t), 0);
    kiln_tensor_destroy(t);

    t = decode_file(MODELS "seq_opt_tensor.pb", KILN_KIND_OPTIONAL);
    cr_assert_eq(kind_of(t), KILN_KIND_OPTIONAL);
    cr_assert_eq(count_of(t), 1);
    expect_elem(t, 0, 1, B_DIMS, Bv);
    kiln_tensor_destroy(t);

    t = decode_file(MODELS "seq_opt_none.pb", KILN_KIND_OPTIONAL);
    cr_assert_eq(count_of(t), 0);
    kiln_tensor_destroy(t);

    t = decode_file(MODELS "seq_opt_seq.pb", KILN_KIND_OPTIONAL);
    cr_assert_eq(count_of(t), 1);
    kiln_tensor *inner = NULL;
    KT_OK(kiln_tensor_element(t, 0, &inner));
    cr_assert_eq(kind_of(inner), KILN_KIND_SEQUENCE);
    cr_assert_eq(count_of(inner), 2);
    expect_elem(inner, 0, 2, A_DIMS, A);
    kiln_tensor_destroy(inner);
    kiln_tensor_destroy(t);

    t = decode_file(MODELS "seq_nested.pb", KILN_KIND_SEQUENCE);
    cr_assert_eq(count_of(t), 2);
    KT_OK(kiln_tensor_element(t, 1, &inner));
    cr_assert_eq(kind_of(inner), KILN_KIND_SEQUENCE);
    cr_assert_eq(count_of(inner), 2);
    expect_elem(inner, 1, 1, B_DIMS, Bv);
    kiln_tensor_destroy(inner);
    kiln_tensor_destroy(t);
}

Test(sequences, decode_errors_name_the_problem)
{
    kiln_tensor *t = NULL;
    const uint8_t seq_of_maps[] = {0x10, 0x04}; /* elem_type MAP */
    KT_FAILS(kiln_tensor_decode_value(seq_of_maps, sizeof seq_of_maps, 7, &t),
             KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_tensor_decode_value(seq_of_maps, sizeof seq_of_maps, KILN_KIND_SEQUENCE, &t),
             KILN_ERR_UNSUPPORTED);
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "maps"), "%s", msg);
    /* A truncated element. */
    const uint8_t truncated[] = {0x10, 0x01, 0x1a, 0x20, 0x08, 0x02};
    KT_FAILS(kiln_tensor_decode_value(truncated, sizeof truncated, KILN_KIND_SEQUENCE, &t),
             KILN_ERR_INVALID_MODEL);
    /* elem_type says tensor, the message holds a sequence. */
    const uint8_t mismatch[] = {0x10, 0x01, 0x2a, 0x02, 0x10, 0x01};
    KT_FAILS(kiln_tensor_decode_value(mismatch, sizeof mismatch, KILN_KIND_SEQUENCE, &t),
             KILN_ERR_INVALID_MODEL);
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "sequence_values"), "%s", msg);
    /* An optional with two values. */
    pbw two = {0}, el = {0};
    w_int(&two, 2, 1);
    int64_t dim = 1;
    float one = 1;
    el = mk_tensor("", KILN_DTYPE_FLOAT, 1, &dim, &one, sizeof one);
    pbw el2 = mk_tensor("", KILN_DTYPE_FLOAT, 1, &dim, &one, sizeof one);
    w_msg(&two, 3, &el);
    w_msg(&two, 3, &el2);
    KT_FAILS(kiln_tensor_decode_value(two.p, two.n, KILN_KIND_OPTIONAL, &t),
             KILN_ERR_INVALID_MODEL);
    free(two.p);
    /* Mixed element types. */
    pbw mixed = {0};
    int64_t i64 = 5;
    w_int(&mixed, 2, 1);
    el = mk_tensor("", KILN_DTYPE_FLOAT, 1, &dim, &one, sizeof one);
    el2 = mk_tensor("", KILN_DTYPE_INT64, 1, &dim, &i64, sizeof i64);
    w_msg(&mixed, 3, &el);
    w_msg(&mixed, 3, &el2);
    KT_FAILS(kiln_tensor_decode_value(mixed.p, mixed.n, KILN_KIND_SEQUENCE, &t),
             KILN_ERR_INVALID_MODEL);
    free(mixed.p);
    cr_assert_null(t);
    /* A TensorProto cannot forge the pseudo dtypes sequences use inside. */
    pbw forged = mk_tensor("", 30, 1, &dim, &one, 1);
    KT_FAILS(kiln_tensor_decode(forged.p, forged.n, &t), KILN_ERR_UNSUPPORTED);
    free(forged.p);
}

/* levels sequences, each holding the next; the innermost holds one float. */
static pbw nested_sequence(int levels)
{
    int64_t dim = 1;
    float one = 1;
    pbw cur = {0};
    pbw el = mk_tensor(NULL, KILN_DTYPE_FLOAT, 1, &dim, &one, sizeof one);
    w_int(&cur, 2, 1);
    w_msg(&cur, 3, &el);
    for (int i = 1; i < levels; i++) {
        pbw outer = {0};
        w_int(&outer, 2, 3);
        w_msg(&outer, 5, &cur);
        cur = outer;
    }
    return cur;
}

Test(sequences, nesting_is_bounded)
{
    pbw ok = nested_sequence(16), deep = nested_sequence(17);
    kiln_tensor *t = NULL;
    KT_OK(kiln_tensor_decode_value(ok.p, ok.n, KILN_KIND_SEQUENCE, &t));
    kiln_tensor *cur = t;
    for (int i = 1; i < 16; i++) { /* walk down to the float */
        kiln_tensor *next = NULL;
        cr_assert_eq(count_of(cur), 1);
        KT_OK(kiln_tensor_element(cur, 0, &next));
        cr_assert_eq(kind_of(next), KILN_KIND_SEQUENCE);
        if (cur != t)
            kiln_tensor_destroy(cur);
        cur = next;
    }
    const float one = 1;
    const int64_t dim = 1;
    expect_elem(cur, 0, 1, &dim, &one);
    if (cur != t)
        kiln_tensor_destroy(cur);
    kiln_tensor_destroy(t);
    KT_FAILS(kiln_tensor_decode_value(deep.p, deep.n, KILN_KIND_SEQUENCE, &t),
             KILN_ERR_UNSUPPORTED);
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "nested deeper"), "%s", msg);
    /* The core writer gives the same bytes back. */
    kn_bump *pool = kn_bump_create();
    kn_tensor v;
    cr_assert_eq(kn_onnx_read_value(pool, ok.p, ok.n, KN_KIND_SEQUENCE, &v, NULL, NULL), KN_OK);
    size_t need = 0;
    uint8_t *enc = malloc(ok.n);
    cr_assert_eq(kn_onnx_write_value(NULL, &v, enc, ok.n, &need, NULL), KN_OK);
    cr_assert(need == ok.n && memcmp(enc, ok.p, ok.n) == 0);
    free(enc);
    kn_bump_destroy(pool);
    free(ok.p);
    free(deep.p);
}

/* ---- codec round trip over the suites' files (core reader/writer) ---- */

static void round_trip_file(const char *path, int32_t kind, int *files, int *identical)
{
    size_t size = 0;
    uint8_t *bytes = kt_read_file(path, &size);
    cr_assert_not_null(bytes);
    kn_bump *pool = kn_bump_create();
    kn_tensor v, v2;
    const char *name = NULL;
    kn_err e = {0, {0}};
    int rc = kn_onnx_read_value(pool, bytes, size, kind, &v, &name, &e);
    cr_assert_eq(rc, KN_OK, "%s: %s", path, e.msg);
    cr_assert_eq(kn_blob_check(&v, path, &e), KN_OK, "%s: %s", path, e.msg);
    size_t need = 0;
    cr_assert_eq(kn_onnx_write_value(name, &v, NULL, 0, &need, NULL), KN_ERR_BUFFER_TOO_SMALL);
    uint8_t *enc = malloc(need + 1);
    cr_assert_eq(kn_onnx_write_value(name, &v, enc, need, &need, &e), KN_OK, "%s", e.msg);
    cr_assert_eq(kn_onnx_read_value(pool, enc, need, kind, &v2, NULL, &e), KN_OK, "%s", e.msg);
    /* The same value: blobs are canonical, so their bytes agree. */
    cr_assert_eq(v2.dims[0], v.dims[0], "%s: blob sizes differ", path);
    cr_assert(memcmp(v.data, v2.data, (size_t)v.dims[0]) == 0, "%s: round trip differs", path);
    int same = need == size && memcmp(enc, bytes, size) == 0;
    if (!same)
        fprintf(stderr, "sequences: %s re-encodes to other bytes (%zu, was %zu)\n", path, need,
                size);
    *identical += same;
    (*files)++;
    free(enc);
    kn_bump_destroy(pool);
    free(bytes);
}

/* Every input_K.pb / output_K.pb of a sequence or optional input/output in
 * the cases under dir. */
static void round_trip_suite(const char *dir, int *files, int *identical)
{
    int n = 0;
    char **cases = list_dir(dir, &n);
    for (int c = 0; c < n; c++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s/model.onnx", dir, cases[c]);
        if (access(path, R_OK) != 0)
            continue;
        size_t size = 0;
        void *bytes = kt_read_file(path, &size);
        kn_model_ir *ir = NULL;
        int rc = bytes ? kn_onnx_read_model(bytes, size, NULL, 0, &ir, NULL) : KN_ERR_IO;
        free(bytes);
        if (rc != KN_OK) /* string tensors and the like: not ours to judge */
            continue;
        const kn_graph *g = ir->graph;
        snprintf(path, sizeof path, "%s/%s", dir, cases[c]);
        int nsets = 0;
        char **sets = list_dir(path, &nsets);
        for (int s = 0; s < nsets; s++) {
            if (strncmp(sets[s], "test_data_set_", 14) != 0)
                continue;
            for (int out = 0; out < 2; out++) {
                int32_t count = out ? g->n_outputs : g->n_inputs;
                const int32_t *ids = out ? g->outputs : g->inputs;
                for (int32_t k = 0; k < count; k++) {
                    int32_t kind = g->values[ids[k]].kind;
                    char file[2048];
                    snprintf(file, sizeof file, "%s/%s/%s_%d.pb", path, sets[s],
                             out ? "output" : "input", (int)k);
                    if (kind != KN_KIND_TENSOR && access(file, R_OK) == 0)
                        round_trip_file(file, kind, files, identical);
                }
            }
        }
        free_list(sets, nsets);
        kn_model_ir_free(ir);
    }
    free_list(cases, n);
}

Test(sequences, suite_files_round_trip, .timeout = 120)
{
    need_testdata();
    int files = 0, identical = 0;
    round_trip_suite(TESTDATA "/node", &files, &identical);
    round_trip_suite(TESTDATA "/simple", &files, &identical);
    const char *newer = KILN_SOURCE_DIR "/../shared/onnx-tests/node";
    if (kt_dir_exists(newer))
        round_trip_suite(newer, &files, &identical);
    static const struct { const char *file; int32_t kind; } ours[] = {
        {"seq_two.pb", KN_KIND_SEQUENCE},        {"seq_empty.pb", KN_KIND_SEQUENCE},
        {"seq_opt_tensor.pb", KN_KIND_OPTIONAL}, {"seq_opt_none.pb", KN_KIND_OPTIONAL},
        {"seq_opt_seq.pb", KN_KIND_OPTIONAL},    {"seq_nested.pb", KN_KIND_SEQUENCE}};
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, MODELS "%s", ours[i].file);
        round_trip_file(kt_src_path(rel), ours[i].kind, &files, &identical);
    }
    fprintf(stderr, "sequences: %d sequence/optional files decoded and re-encoded, %d "
            "byte-identical\n", files, identical);
    cr_assert_gt(files, 30);
    cr_assert_eq(identical, files, "every file re-encodes to the onnx package's bytes");
}

/* ---- models ---- */

typedef struct fixture {
    kiln_runtime *rt;
    kiln_model *m;
    kiln_session *s;
} fixture;

static fixture open_model(const char *file)
{
    fixture f = {kt_runtime(1), NULL, NULL};
    char rel[128];
    snprintf(rel, sizeof rel, MODELS "%s", file);
    f.m = kt_model(f.rt, rel);
    KT_OK(kiln_session_create(f.m, NULL, &f.s));
    return f;
}

static void close_model(fixture *f)
{
    kiln_session_destroy(f->s);
    kiln_model_destroy(f->m);
    kiln_runtime_destroy(f->rt);
}

Test(sequences, construct_at_length)
{
    fixture f = open_model("seq_construct_at.onnx");
    int32_t kind = -1, dtype = -1, rank = 0;
    KT_OK(kiln_model_output_kind(f.m, output_index(f.m, "S"), &kind));
    cr_assert_eq(kind, KILN_KIND_SEQUENCE);
    KT_OK(kiln_model_output_dtype(f.m, output_index(f.m, "S"), &dtype));
    cr_assert_eq(dtype, KILN_DTYPE_FLOAT, "a sequence reports its tensors' dtype");
    KT_OK(kiln_model_output_shape(f.m, output_index(f.m, "S"), NULL, 0, &rank));
    cr_assert_eq(rank, -1);
    KT_OK(kiln_model_input_kind(f.m, 0, &kind));
    cr_assert_eq(kind, KILN_KIND_TENSOR);

    set_f32(f.s, "A", 2, A_DIMS, A, 6);
    set_f32(f.s, "B", 1, B_DIMS, Bv, 2);
    set_pos(f.s, "pos", 1);
    KT_OK(kiln_session_run(f.s));
    cr_assert_eq(output_i64(f.m, f.s, "N"), 2);
    kiln_tensor *y = output_value(f.m, f.s, "Y");
    expect_floats(y, 1, B_DIMS, Bv);
    kiln_tensor_destroy(y);
    kiln_tensor *s = output_value(f.m, f.s, "S");
    char name[8];
    KT_OK(kiln_tensor_name(s, name, sizeof name, NULL));
    cr_assert_str_eq(name, "S");
    cr_assert_eq(count_of(s), 2);
    expect_elem(s, 0, 2, A_DIMS, A);
    expect_elem(s, 1, 1, B_DIMS, Bv);
    /* Tensor-only output functions refuse the sequence output. */
    int64_t dims[4];
    const void *view = NULL;
    KT_FAILS(kiln_session_output_info(f.s, output_index(f.m, "S"), &dtype, dims, 4, &rank),
             KILN_ERR_DTYPE);
    KT_FAILS(kiln_session_output_view(f.s, output_index(f.m, "S"), &view, NULL), KILN_ERR_DTYPE);

    /* Negative positions count from the end. */
    set_pos(f.s, "pos", -2);
    KT_OK(kiln_session_run(f.s));
    y = output_value(f.m, f.s, "Y");
    expect_floats(y, 2, A_DIMS, A);
    kiln_tensor_destroy(y);
    /* The handle from the first run is independent of later runs. */
    expect_elem(s, 1, 1, B_DIMS, Bv);
    kiln_tensor_destroy(s);

    set_pos(f.s, "pos", 2);
    run_fails(f.s, KILN_ERR_INVALID_ARGUMENT, "position 2 is out of range for a sequence of 2");
    set_pos(f.s, "pos", -3);
    run_fails(f.s, KILN_ERR_INVALID_ARGUMENT, "allowed -2..1");
    close_model(&f);
}

Test(sequences, insert_erase_with_positions)
{
    fixture f = open_model("seq_insert_erase.onnx");
    kiln_tensor *two = decode_file(MODELS "seq_two.pb", KILN_KIND_SEQUENCE);
    int32_t seq_in = input_index(f.m, "SEQ");
    /* The tensor binding functions point to the value one. */
    KT_FAILS(kiln_session_set_input_at(f.s, seq_in, KILN_DTYPE_FLOAT, B_DIMS, 1, Bv,
                                       sizeof Bv, 0),
             KILN_ERR_DTYPE);
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "kiln_session_set_input_value"), "%s", msg);
    /* A tensor is not a sequence. */
    kiln_tensor *elem = NULL;
    KT_OK(kiln_tensor_element(two, 1, &elem));
    KT_FAILS(kiln_session_set_input_value(f.s, seq_in, elem), KILN_ERR_DTYPE);
    kiln_tensor_destroy(elem);
    KT_FAILS(kiln_session_set_input_value(f.s, 99, two), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_set_input_value(f.s, seq_in, NULL), KILN_ERR_INVALID_ARGUMENT);

    KT_OK(kiln_session_set_input_value(f.s, seq_in, two));
    kiln_tensor_destroy(two); /* the session keeps its own copy */
    const float x[3] = {7, 8, 9};
    const int64_t x_dims[1] = {3};
    set_f32(f.s, "X", 1, x_dims, x, 3);
    set_pos(f.s, "pos_ins", 1);
    set_pos(f.s, "pos_erase", 0);
    KT_OK(kiln_session_run(f.s));
    kiln_tensor *s1 = output_value(f.m, f.s, "S1"), *s2 = output_value(f.m, f.s, "S2");
    cr_assert_eq(count_of(s1), 3);
    expect_elem(s1, 0, 2, A_DIMS, A);
    expect_elem(s1, 1, 1, x_dims, x);
    expect_elem(s1, 2, 1, B_DIMS, Bv);
    cr_assert_eq(count_of(s2), 2);
    expect_elem(s2, 0, 1, x_dims, x);
    expect_elem(s2, 1, 1, B_DIMS, Bv);
    cr_assert_eq(output_i64(f.m, f.s, "N"), 2);

    /* An output value goes straight back in as an input. */
    KT_OK(kiln_session_set_input_value(f.s, seq_in, s1));
    set_pos(f.s, "pos_ins", -1); /* before the last element */
    set_pos(f.s, "pos_erase", -1);
    KT_OK(kiln_session_run(f.s));
    kiln_tensor *s3 = output_value(f.m, f.s, "S2");
    cr_assert_eq(count_of(s3), 3); /* [a, x, x, b] minus the last */
    expect_elem(s3, 0, 2, A_DIMS, A);
    expect_elem(s3, 1, 1, x_dims, x);
    expect_elem(s3, 2, 1, x_dims, x);
    kiln_tensor_destroy(s3);
    kiln_tensor_destroy(s1);
    kiln_tensor_destroy(s2);

    set_pos(f.s, "pos_ins", 5);
    run_fails(f.s, KILN_ERR_INVALID_ARGUMENT, "SequenceInsert: position 5 is out of range");
    set_pos(f.s, "pos_ins", 0);
    set_pos(f.s, "pos_erase", 4);
    run_fails(f.s, KILN_ERR_INVALID_ARGUMENT, "SequenceErase: position 4 is out of range");
    close_model(&f);
}

Test(sequences, bound_sequence_element_type_is_checked)
{
    fixture f = open_model("seq_insert_erase.onnx");
    pbw msg = {0};
    int64_t dim = 1, v = 3;
    w_int(&msg, 2, 1);
    pbw el = mk_tensor("", KILN_DTYPE_INT64, 1, &dim, &v, sizeof v);
    w_msg(&msg, 3, &el);
    kiln_tensor *ints = NULL;
    KT_OK(kiln_tensor_decode_value(msg.p, msg.n, KILN_KIND_SEQUENCE, &ints));
    free(msg.p);
    KT_FAILS(kiln_session_set_input_value(f.s, input_index(f.m, "SEQ"), ints), KILN_ERR_DTYPE);
    char m[512];
    kiln_last_error(m, sizeof m);
    cr_assert(strstr(m, "int64") && strstr(m, "float"), "%s", m);
    kiln_tensor_destroy(ints);
    close_model(&f);
}

Test(sequences, empty_sequence_and_default_positions)
{
    fixture f = open_model("seq_empty_insert.onnx");
    const float x[2] = {1.5f, -2};
    set_f32(f.s, "X", 1, B_DIMS, x, 2);
    KT_OK(kiln_session_run(f.s));
    kiln_tensor *e = output_value(f.m, f.s, "E"), *s2 = output_value(f.m, f.s, "S2"),
                *s3 = output_value(f.m, f.s, "S3");
    cr_assert_eq(count_of(e), 0);
    cr_assert_eq(count_of(s2), 2);
    cr_assert_eq(count_of(s3), 1);
    expect_elem(s3, 0, 1, B_DIMS, x);
    cr_assert_eq(output_i64(f.m, f.s, "N0"), 0);
    kiln_tensor *none = NULL;
    KT_FAILS(kiln_tensor_element(e, 0, &none), KILN_ERR_INVALID_ARGUMENT);
    kiln_tensor_destroy(e);
    kiln_tensor_destroy(s2);
    kiln_tensor_destroy(s3);
    close_model(&f);
}

Test(sequences, split_and_concat_round_trip)
{
    fixture f = open_model("seq_split_concat.onnx");
    float x[12];
    for (int i = 0; i < 12; i++)
        x[i] = (float)i;
    const int64_t x_dims[2] = {2, 6}, split_dims[1] = {3}, split[3] = {1, 2, 3};
    set_f32(f.s, "X", 2, x_dims, x, 12);
    set_i64(f.s, "split", 1, split_dims, split, 3);
    KT_OK(kiln_session_run(f.s));
    cr_assert_eq(output_i64(f.m, f.s, "N"), 3);
    kiln_tensor *s = output_value(f.m, f.s, "S");
    cr_assert_eq(count_of(s), 3);
    const int64_t d0[2] = {2, 1}, d1[2] = {2, 2}, d2[2] = {2, 3};
    const float c0[2] = {0, 6}, c1[4] = {1, 2, 7, 8}, c2[6] = {3, 4, 5, 9, 10, 11};
    expect_elem(s, 0, 2, d0, c0);
    expect_elem(s, 1, 2, d1, c1);
    expect_elem(s, 2, 2, d2, c2);
    kiln_tensor_destroy(s);
    kiln_tensor *r = output_value(f.m, f.s, "R");
    const int64_t row_dims[1] = {6};
    cr_assert_eq(count_of(r), 2);
    expect_elem(r, 0, 1, row_dims, x);
    expect_elem(r, 1, 1, row_dims, x + 6);
    kiln_tensor_destroy(r);
    kiln_tensor *y = output_value(f.m, f.s, "Y"), *z = output_value(f.m, f.s, "Z");
    expect_floats(y, 2, x_dims, x);
    expect_floats(z, 2, x_dims, x);
    kiln_tensor_destroy(y);
    kiln_tensor_destroy(z);

    const int64_t bad[3] = {1, 2, 2};
    set_i64(f.s, "split", 1, split_dims, bad, 3);
    run_fails(f.s, KILN_ERR_INVALID_ARGUMENT, "add up to 5, the axis has 6");
    close_model(&f);
}

Test(sequences, split_in_equal_chunks)
{
    fixture f = open_model("seq_split_scalar.onnx");
    const int64_t x[5] = {0, 1, 2, 3, 4}, x_dims[1] = {5};
    set_i64(f.s, "X", 1, x_dims, x, 5);
    set_pos(f.s, "split", 2);
    KT_OK(kiln_session_run(f.s));
    kiln_tensor *s = output_value(f.m, f.s, "S");
    cr_assert_eq(count_of(s), 3);
    for (int32_t i = 0; i < 3; i++) {
        kiln_tensor *e = NULL;
        KT_OK(kiln_tensor_element(s, i, &e));
        int32_t dtype = 0, rank = 0;
        int64_t dims[2];
        const void *data = NULL;
        KT_OK(kiln_tensor_info(e, &dtype, dims, 2, &rank));
        KT_OK(kiln_tensor_data(e, &data, NULL));
        cr_assert(dtype == KILN_DTYPE_INT64 && rank == 1 && dims[0] == (i < 2 ? 2 : 1));
        cr_assert_eq(((const int64_t *)data)[0], 2 * i);
        kiln_tensor_destroy(e);
    }
    kiln_tensor_destroy(s);
    set_pos(f.s, "split", 0);
    run_fails(f.s, KILN_ERR_INVALID_ARGUMENT, "must be positive");
    close_model(&f);
}

Test(sequences, identity_passes_values_through)
{
    fixture f = open_model("seq_identity.onnx");
    kiln_tensor *two = decode_file(MODELS "seq_two.pb", KILN_KIND_SEQUENCE);
    kiln_tensor *some = decode_file(MODELS "seq_opt_tensor.pb", KILN_KIND_OPTIONAL);
    kiln_tensor *none = decode_file(MODELS "seq_opt_none.pb", KILN_KIND_OPTIONAL);
    kiln_tensor *empty = decode_file(MODELS "seq_empty.pb", KILN_KIND_SEQUENCE);
    int32_t s_in = input_index(f.m, "S"), o_in = input_index(f.m, "O");
    KT_OK(kiln_session_set_input_value(f.s, s_in, two));
    KT_OK(kiln_session_set_input_value(f.s, o_in, some));
    for (int round = 0; round < 2; round++) { /* the same plan runs twice */
        KT_OK(kiln_session_run(f.s));
        kiln_tensor *t = output_value(f.m, f.s, "T"), *p = output_value(f.m, f.s, "P");
        cr_assert_eq(count_of(t), 2);
        expect_elem(t, 0, 2, A_DIMS, A);
        expect_elem(t, 1, 1, B_DIMS, Bv);
        cr_assert_eq(kind_of(p), KILN_KIND_OPTIONAL);
        expect_elem(p, 0, 1, B_DIMS, Bv);
        kiln_tensor_destroy(t);
        kiln_tensor_destroy(p);
    }
    /* Other sizes: the plan follows. */
    KT_OK(kiln_session_set_input_value(f.s, s_in, empty));
    KT_OK(kiln_session_set_input_value(f.s, o_in, none));
    KT_OK(kiln_session_run(f.s));
    kiln_tensor *t = output_value(f.m, f.s, "T"), *p = output_value(f.m, f.s, "P");
    cr_assert_eq(count_of(t), 0);
    cr_assert_eq(count_of(p), 0);
    kiln_tensor_destroy(t);
    kiln_tensor_destroy(p);
    /* A tensor for an optional input is an optional holding it; a tensor
     * (or a sequence of the wrong kind) for a sequence input is refused. */
    kiln_tensor *b = NULL;
    KT_OK(kiln_tensor_element(two, 1, &b));
    KT_OK(kiln_session_set_input_value(f.s, o_in, b));
    KT_FAILS(kiln_session_set_input_value(f.s, s_in, b), KILN_ERR_DTYPE);
    KT_FAILS(kiln_session_set_input_value(f.s, s_in, some), KILN_ERR_DTYPE);
    KT_OK(kiln_session_run(f.s));
    p = output_value(f.m, f.s, "P");
    cr_assert_eq(count_of(p), 1);
    expect_elem(p, 0, 1, B_DIMS, Bv);
    kiln_tensor_destroy(p);
    kiln_tensor_destroy(b);
    kiln_tensor_destroy(two);
    kiln_tensor_destroy(some);
    kiln_tensor_destroy(none);
    kiln_tensor_destroy(empty);
    close_model(&f);
}

Test(sequences, optional_some_and_none)
{
    fixture f = open_model("seq_optional.onnx");
    const float x[3] = {1, 2, 3};
    const int64_t x_dims[1] = {3};
    set_f32(f.s, "X", 1, x_dims, x, 3);
    KT_OK(kiln_session_run(f.s));
    cr_assert_eq(output_bool(f.m, f.s, "H1"), 1);
    cr_assert_eq(output_bool(f.m, f.s, "H2"), 0);
    kiln_tensor *some = output_value(f.m, f.s, "SOME"), *none = output_value(f.m, f.s, "NONE"),
                *g = output_value(f.m, f.s, "G");
    cr_assert_eq(kind_of(some), KILN_KIND_OPTIONAL);
    cr_assert_eq(count_of(some), 1);
    expect_elem(some, 0, 1, x_dims, x);
    cr_assert_eq(kind_of(none), KILN_KIND_OPTIONAL);
    cr_assert_eq(count_of(none), 0);
    expect_floats(g, 1, x_dims, x);
    kiln_tensor_destroy(some);
    kiln_tensor_destroy(none);
    kiln_tensor_destroy(g);
    close_model(&f);
}

Test(sequences, optional_input_get_element)
{
    fixture f = open_model("seq_optional_input.onnx");
    kiln_tensor *some = decode_file(MODELS "seq_opt_tensor.pb", KILN_KIND_OPTIONAL);
    kiln_tensor *none = decode_file(MODELS "seq_opt_none.pb", KILN_KIND_OPTIONAL);
    KT_OK(kiln_session_set_input_value(f.s, 0, some));
    KT_OK(kiln_session_run(f.s));
    cr_assert_eq(output_bool(f.m, f.s, "H"), 1);
    kiln_tensor *g = output_value(f.m, f.s, "G");
    expect_floats(g, 1, B_DIMS, Bv);
    kiln_tensor_destroy(g);
    KT_OK(kiln_session_set_input_value(f.s, 0, none));
    run_fails(f.s, KILN_ERR_INVALID_ARGUMENT, "OptionalGetElement: the optional is empty");
    /* An optional holding a sequence is not an optional tensor. */
    kiln_tensor *opt_seq = decode_file(MODELS "seq_opt_seq.pb", KILN_KIND_OPTIONAL);
    KT_FAILS(kiln_session_set_input_value(f.s, 0, opt_seq), KILN_ERR_DTYPE);
    kiln_tensor_destroy(opt_seq);
    kiln_tensor_destroy(some);
    kiln_tensor_destroy(none);
    close_model(&f);
}

Test(sequences, optional_sequence_input)
{
    fixture f = open_model("seq_optional_seq_input.onnx");
    int32_t kind = -1, dtype = -1;
    KT_OK(kiln_model_input_kind(f.m, 0, &kind));
    KT_OK(kiln_model_input_dtype(f.m, 0, &dtype));
    cr_assert(kind == KILN_KIND_OPTIONAL && dtype == KILN_DTYPE_FLOAT);
    kiln_tensor *opt = decode_file(MODELS "seq_opt_seq.pb", KILN_KIND_OPTIONAL);
    KT_OK(kiln_session_set_input_value(f.s, 0, opt));
    KT_OK(kiln_session_run(f.s));
    cr_assert_eq(output_i64(f.m, f.s, "N"), 2);
    /* A bare sequence binds as an optional holding it. */
    kiln_tensor *empty = decode_file(MODELS "seq_empty.pb", KILN_KIND_SEQUENCE);
    KT_OK(kiln_session_set_input_value(f.s, 0, empty));
    KT_OK(kiln_session_run(f.s));
    cr_assert_eq(output_i64(f.m, f.s, "N"), 0);
    kiln_tensor_destroy(empty);
    kiln_tensor_destroy(opt);
    close_model(&f);
}

Test(sequences, sequence_map_runs_the_body_per_element)
{
    fixture f = open_model("seq_map.onnx");
    kiln_tensor *two = decode_file(MODELS "seq_two.pb", KILN_KIND_SEQUENCE);
    KT_OK(kiln_session_set_input_value(f.s, input_index(f.m, "S"), two));
    const float t[1] = {0.5f};
    const int64_t t_dims[1] = {1};
    set_f32(f.s, "T", 1, t_dims, t, 1);
    KT_OK(kiln_session_run(f.s));
    kiln_tensor *y = output_value(f.m, f.s, "Y");
    cr_assert_eq(count_of(y), 2);
    float a1[6], b1[2];
    for (int i = 0; i < 6; i++)
        a1[i] = A[i] + 0.5f;
    for (int i = 0; i < 2; i++)
        b1[i] = Bv[i] + 0.5f;
    expect_elem(y, 0, 2, A_DIMS, a1);
    expect_elem(y, 1, 1, B_DIMS, b1);
    kiln_tensor_destroy(y);
    kiln_tensor_destroy(two);
    close_model(&f);
}

Test(sequences, loop_scan_outputs_must_be_tensors)
{
    fixture f = open_model("seq_loop_scan.onnx");
    const float x[2] = {1, 2};
    set_f32(f.s, "X", 1, B_DIMS, x, 2);
    set_pos(f.s, "M", 3);
    run_fails(f.s, KILN_ERR_INVALID_MODEL, "scan outputs must be tensors");
    close_model(&f);
}

Test(sequences, set_input_value_takes_tensors_too)
{
    fixture f = open_model("seq_construct_at.onnx");
    kiln_tensor *two = decode_file(MODELS "seq_two.pb", KILN_KIND_SEQUENCE);
    kiln_tensor *a = NULL, *b = NULL;
    KT_OK(kiln_tensor_element(two, 0, &a));
    KT_OK(kiln_tensor_element(two, 1, &b));
    KT_OK(kiln_session_set_input_value(f.s, input_index(f.m, "A"), a));
    KT_OK(kiln_session_set_input_value(f.s, input_index(f.m, "B"), b));
    /* Shapes are still checked: A is [2, 3]. */
    KT_FAILS(kiln_session_set_input_value(f.s, input_index(f.m, "A"), b), KILN_ERR_SHAPE);
    /* A sequence is not a tensor. */
    KT_FAILS(kiln_session_set_input_value(f.s, input_index(f.m, "A"), two), KILN_ERR_DTYPE);
    kiln_tensor_destroy(two);
    kiln_tensor_destroy(a);
    kiln_tensor_destroy(b);
    set_pos(f.s, "pos", 0);
    KT_OK(kiln_session_run(f.s));
    kiln_tensor *y = output_value(f.m, f.s, "Y");
    expect_floats(y, 2, A_DIMS, A);
    kiln_tensor_destroy(y);
    close_model(&f);
}
