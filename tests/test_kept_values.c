/* Kept values (KILN_OPT_KEEP_VALUES, kiln_session_value_*): every tensor a
 * run computes, by name, as float32 copies taken while the bytes were
 * still there (in-place and aliasing steps included), and the errors. */
#include <math.h>
#include <string.h>

#include "alloc_count.h"
#include "api_helpers.h"

static kiln_model *load(kiln_runtime *rt, const char *relative, int32_t optimize)
{
    kiln_options *o = NULL;
    kiln_model *m = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_int(o, KILN_OPT_OPTIMIZE, optimize));
    KT_OK(kiln_model_load_file(rt, kt_src_path(relative), o, &m));
    kiln_options_destroy(o);
    return m;
}

static kiln_session *keeping_session(kiln_model *m)
{
    kiln_options *o = NULL;
    kiln_session *s = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_int(o, KILN_OPT_KEEP_VALUES, 1));
    KT_OK(kiln_session_create(m, o, &s));
    kiln_options_destroy(o);
    return s;
}

/* Reads kept value name (n floats) into out, checking the byte size. */
static void read_value(const kiln_session *s, const char *name, float *out, size_t n)
{
    size_t needed = 0;
    KT_FAILS(kiln_session_value_copy(s, name, NULL, 0, &needed), KILN_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(needed, n * sizeof(float), "'%s' needs %zu bytes", name, needed);
    KT_OK(kiln_session_value_copy(s, name, out, n * sizeof(float), NULL));
}

static float sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }

/* chain.onnx: A = Relu(X), B = Sigmoid(A) (in place over A), C = Reshape(B)
 * (an alias of B), D = Tanh(C), Y = D + C (in place over D). */
Test(kept_values, every_tensor_of_the_run_with_its_own_numbers)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = load(rt, "tests/data/models/chain.onnx", 0);
    kiln_session *s = keeping_session(m);
    static float x[1024], a[1024], b[1024], c[1024], d[1024], y[1024];
    for (int i = 0; i < 1024; i++)
        x[i] = (float)(i - 512) / 100.0f;
    const int64_t dims[4] = {1, 16, 8, 8};
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 4, x, sizeof x, 0));
    KT_OK(kiln_session_run(s));

    int32_t count = 0, needed = 0;
    KT_OK(kiln_session_value_count(s, &count));
    cr_assert_eq(count, 5, "kept %d values", count);
    const char *order[5] = {"A", "B", "C", "D", "Y"};
    for (int32_t i = 0; i < count; i++) {
        char name[8];
        KT_OK(kiln_session_value_name(s, i, NULL, 0, &needed));
        cr_assert_eq(needed, 2);
        KT_OK(kiln_session_value_name(s, i, name, sizeof name, &needed));
        cr_assert_str_eq(name, order[i], "value %d", i);
    }
    int32_t dtype = 0, rank = 0;
    int64_t shape[8];
    KT_OK(kiln_session_value_info(s, "C", &dtype, shape, 8, &rank));
    cr_assert_eq(dtype, KILN_DTYPE_FLOAT);
    cr_assert_eq(rank, 2, "Reshape's output has rank %d", rank);
    cr_assert(shape[0] == 1 && shape[1] == 1024, "C is %lldx%lld", (long long)shape[0],
              (long long)shape[1]);
    KT_FAILS(kiln_session_value_info(s, "C", &dtype, shape, 1, &rank), KILN_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(rank, 2);

    read_value(s, "A", a, 1024);
    read_value(s, "B", b, 1024);
    read_value(s, "C", c, 1024);
    read_value(s, "D", d, 1024);
    read_value(s, "Y", y, 1024);
    for (int i = 0; i < 1024; i++) {
        float relu = x[i] > 0 ? x[i] : 0;
        /* A was overwritten in place by Sigmoid, yet its copy is Relu's. */
        cr_assert_eq(a[i], relu, "A[%d] = %g, Relu gives %g", i, a[i], relu);
        cr_assert_float_eq(b[i], sigmoid(relu), 1e-6, "B[%d]", i);
        cr_assert_eq(c[i], b[i], "C[%d]: Reshape keeps the values", i);
        cr_assert_float_eq(d[i], tanhf(b[i]), 1e-6, "D[%d]", i);
        cr_assert_float_eq(y[i], d[i] + c[i], 1e-6, "Y[%d]", i);
    }
    /* The graph output's copy is the output. */
    float out[1024];
    KT_OK(kiln_session_output_copy(s, 0, out, sizeof out, NULL));
    cr_assert(memcmp(out, y, sizeof y) == 0, "kept Y differs from the output");

    /* A second run replaces them. */
    for (int i = 0; i < 1024; i++)
        x[i] = -x[i];
    KT_OK(kiln_session_run(s));
    read_value(s, "A", a, 1024);
    for (int i = 0; i < 1024; i++)
        cr_assert_eq(a[i], x[i] > 0 ? x[i] : 0, "second run: A[%d]", i);
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(kept_values, other_dtypes_are_kept_as_floats)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = load(rt, "tests/data/models/cast_outputs.onnx", 0);
    kiln_session *s = keeping_session(m);
    const float x[6] = {-2.75f, -1, 0, 1.5f, 2.25f, 1e6f};
    const int64_t dims[2] = {2, 3};
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 2, x, sizeof x, 0));
    KT_OK(kiln_session_run(s));
    int32_t dtype = 0, rank = 0;
    int64_t shape[2];
    float d[6], i32[6];
    KT_OK(kiln_session_value_info(s, "D", &dtype, shape, 2, &rank));
    cr_assert_eq(dtype, KILN_DTYPE_DOUBLE, "the dtype the run had");
    KT_OK(kiln_session_value_info(s, "I", &dtype, shape, 2, &rank));
    cr_assert_eq(dtype, KILN_DTYPE_INT32);
    cr_assert(rank == 2 && shape[0] == 2 && shape[1] == 3);
    read_value(s, "D", d, 6);
    read_value(s, "I", i32, 6);
    const float truncated[6] = {-2, -1, 0, 1, 2, 1e6f};
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(d[i], x[i], "D[%d]", i);
        cr_assert_eq(i32[i], truncated[i], "I[%d] = %g", i, i32[i]);
    }
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(kept_values, shapes_follow_each_run)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = load(rt, "tests/data/models/dynamic_mlp.onnx", 0);
    kiln_session *s = keeping_session(m);
    float x[12] = {0};
    for (int64_t batch = 1; batch <= 3; batch += 2) {
        const int64_t dims[2] = {batch, 4};
        KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 2, x,
                                     (size_t)batch * 4 * sizeof(float), 0));
        KT_OK(kiln_session_run(s));
        int64_t shape[2];
        int32_t rank = 0;
        KT_OK(kiln_session_value_info(s, "H", NULL, shape, 2, &rank));
        cr_assert(rank == 2 && shape[0] == batch, "H's batch %lld, input's %lld",
                  (long long)shape[0], (long long)batch);
    }
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(kept_values, errors_say_what_is_wrong)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = load(rt, "tests/data/models/chain.onnx", 0);
    kiln_session *s = keeping_session(m);
    int32_t count = -1, needed = 0, rank = 0;
    int64_t shape[8];
    char msg[512];

    /* Before any run. */
    KT_FAILS(kiln_session_value_count(s, &count), KILN_ERR_STATE);
    KT_FAILS(kiln_session_value_info(s, "A", NULL, shape, 8, &rank), KILN_ERR_STATE);
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "no successful run"), "%s", msg);
    /* A failed run (the input is not bound) leaves nothing to read. */
    KT_FAILS(kiln_session_run(s), KILN_ERR_STATE);
    KT_FAILS(kiln_session_value_count(s, &count), KILN_ERR_STATE);

    static float x[1024];
    const int64_t dims[4] = {1, 16, 8, 8};
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 4, x, sizeof x, 0));
    KT_OK(kiln_session_run(s));
    KT_FAILS(kiln_session_value_info(s, "nope", NULL, shape, 8, &rank), KILN_ERR_NOT_FOUND);
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "'nope'"), "names the value: %s", msg);
    KT_FAILS(kiln_session_value_copy(s, "X", NULL, 0, NULL), KILN_ERR_NOT_FOUND);
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "graph input"), "%s", msg);
    KT_FAILS(kiln_session_value_copy(s, "shape", NULL, 0, NULL), KILN_ERR_NOT_FOUND);
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "initializer"), "%s", msg);
    KT_FAILS(kiln_session_value_name(s, 5, NULL, 0, &needed), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_value_name(s, -1, NULL, 0, &needed), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_value_info(s, NULL, NULL, shape, 8, &rank), KILN_ERR_INVALID_ARGUMENT);
    float small[4];
    size_t bytes = 0;
    KT_FAILS(kiln_session_value_copy(s, "A", small, sizeof small, &bytes),
             KILN_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(bytes, sizeof x);

    /* Released memory: nothing until the next run. */
    KT_OK(kiln_session_release_memory(s));
    KT_FAILS(kiln_session_value_count(s, &count), KILN_ERR_STATE);
    KT_OK(kiln_session_run(s));
    KT_OK(kiln_session_value_count(s, &count));
    cr_assert_eq(count, 5);
    kiln_session_destroy(s);

    /* A session that does not keep values says how to make one. */
    KT_OK(kiln_session_create(m, NULL, &s));
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 4, x, sizeof x, 0));
    KT_OK(kiln_session_run(s));
    KT_FAILS(kiln_session_value_count(s, &count), KILN_ERR_STATE);
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "KILN_OPT_KEEP_VALUES"), "%s", msg);
    KT_FAILS(kiln_session_value_count(NULL, &count), KILN_ERR_INVALID_ARGUMENT);
    kiln_session_destroy(s);
    kiln_model_destroy(m);

    /* Fused away: at level 2 dynamic_mlp.onnx is one FusedMatMul writing Y. */
    m = load(rt, "tests/data/models/dynamic_mlp.onnx", 2);
    s = keeping_session(m);
    const int64_t row[2] = {1, 4};
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, row, 2, x, 4 * sizeof(float), 0));
    KT_OK(kiln_session_run(s));
    KT_OK(kiln_session_value_count(s, &count));
    cr_assert_eq(count, 1, "kept %d values", count);
    KT_OK(kiln_session_value_info(s, "Y", NULL, shape, 8, &rank));
    KT_FAILS(kiln_session_value_info(s, "H", NULL, shape, 8, &rank), KILN_ERR_NOT_FOUND);
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "KILN_OPT_OPTIMIZE 0"), "says how to keep the file's names: %s", msg);
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(kept_values, the_option_is_a_flag)
{
    kiln_options *o = NULL;
    KT_OK(kiln_options_create(&o));
    KT_FAILS(kiln_options_set_int(o, KILN_OPT_KEEP_VALUES, 2), KILN_ERR_INVALID_ARGUMENT);
    KT_OK(kiln_options_set_int(o, KILN_OPT_KEEP_VALUES, 0));
    kiln_options_destroy(o);
}

/* The copies go into buffers the session keeps: once a shape has run,
 * further runs of it allocate nothing, as without kept values. */
Test(kept_values, repeated_runs_allocate_nothing)
{
#if !KT_CAN_COUNT_ALLOCS
    cr_skip_test("allocation counting is impossible under AddressSanitizer (it owns malloc)");
#else
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = load(rt, "tests/data/models/chain.onnx", 0);
    kiln_session *s = keeping_session(m);
    static float x[1024];
    const int64_t dims[4] = {1, 16, 8, 8};
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 4, x, sizeof x, 0));
    KT_OK(kiln_session_run(s));
    atomic_store(&alloc_calls, 0);
    atomic_store(&counting, 1);
    int32_t rc = KILN_OK;
    for (int i = 0; i < 10 && rc == KILN_OK; i++) {
        x[i] = (float)i;
        rc = kiln_session_run(s);
    }
    atomic_store(&counting, 0);
    KT_OK(rc);
    cr_assert_eq(atomic_load(&alloc_calls), 0, "10 runs allocated %ld times",
                 atomic_load(&alloc_calls));
    float a[1024];
    KT_OK(kiln_session_value_copy(s, "A", a, sizeof a, NULL));
    cr_assert_eq(a[9], 9.0f, "the last run's values");
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
#endif
}
