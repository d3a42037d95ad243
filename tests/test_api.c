/* The public C API: handle lifecycle, introspection, binding, running, and
 * every status code a caller can provoke. */
#include <math.h>
#include <string.h>

#include "api_helpers.h"

Test(api, version_and_abi)
{
    cr_assert_eq(kiln_abi_version(), KILN_ABI_VERSION);
    cr_assert_str_eq(kiln_version(), "0.1.0");
    cr_assert_str_eq(kiln_status_name(KILN_ERR_SHAPE), "shape mismatch");
}

Test(api, null_arguments_are_rejected)
{
    KT_FAILS(kiln_options_create(NULL), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_runtime_create(NULL, NULL), KILN_ERR_INVALID_ARGUMENT);
    kiln_model *m = NULL;
    KT_FAILS(kiln_model_load_file(NULL, "x.onnx", NULL, &m), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_run(NULL), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_cancel(NULL), KILN_ERR_INVALID_ARGUMENT);
    int32_t n;
    KT_FAILS(kiln_model_input_count(NULL, &n), KILN_ERR_INVALID_ARGUMENT);
    /* Destroy functions accept NULL. */
    kiln_session_destroy(NULL);
    kiln_model_destroy(NULL);
    kiln_runtime_destroy(NULL);
    kiln_options_destroy(NULL);
    kiln_tensor_destroy(NULL);
}

Test(api, options_reject_unknown_keys_and_bad_values)
{
    kiln_options *o = NULL;
    KT_OK(kiln_options_create(&o));
    KT_FAILS(kiln_options_set_int(o, 9999, 1), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_options_set_int(o, KILN_OPT_THREADS, 0), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_options_set_int(o, KILN_OPT_MAX_ARENA_MB, -1), KILN_ERR_INVALID_ARGUMENT);
    KT_OK(kiln_options_set_int(o, KILN_OPT_THREADS, 2));
    kiln_options_destroy(o);
}

Test(api, missing_and_corrupt_files)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = NULL;
    KT_FAILS(kiln_model_load_file(rt, "/nonexistent/model.onnx", NULL, &m), KILN_ERR_IO);
    cr_assert_null(m);
    char msg[256];
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "/nonexistent/model.onnx"), "message names the file: %s", msg);
    const unsigned char junk[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01};
    KT_FAILS(kiln_model_load_memory(rt, junk, sizeof junk, NULL, &m), KILN_ERR_INVALID_MODEL);
    cr_assert_null(m);
    kiln_runtime_destroy(rt);
}

Test(api, unsupported_op_fails_the_load_naming_it)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = NULL;
    KT_FAILS(kiln_model_load_file(rt, kt_src_path("tests/data/models/unsupported_op.onnx"), NULL, &m),
             KILN_ERR_UNSUPPORTED);
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "FrobnicateTensor") && strstr(msg, "frob") && strstr(msg, "17") &&
                  strstr(msg, "ai.onnx"),
              "message names op, node, opset and domain: %s", msg);
    /* Inspection mode loads it and marks the node. */
    kiln_options *o = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_int(o, KILN_OPT_ALLOW_UNSUPPORTED, 1));
    KT_OK(kiln_model_load_file(rt, kt_src_path("tests/data/models/unsupported_op.onnx"), o, &m));
    int32_t count = 0, supported = -1;
    KT_OK(kiln_model_node_count(m, &count));
    cr_assert_eq(count, 2);
    KT_OK(kiln_model_node_supported(m, 0, &supported));
    cr_assert_eq(supported, 1);
    KT_OK(kiln_model_node_supported(m, 1, &supported));
    cr_assert_eq(supported, 0);
    kiln_session *s = NULL;
    KT_FAILS(kiln_session_create(m, NULL, &s), KILN_ERR_UNSUPPORTED);
    kiln_model_destroy(m);
    kiln_options_destroy(o);
    kiln_runtime_destroy(rt);
}

Test(api, introspection)
{
    kiln_runtime *rt = kt_runtime(1);
    /* The file's own graph: level 2 would fuse MatMul + Add + Relu. */
    kiln_options *o = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_int(o, KILN_OPT_OPTIMIZE, 0));
    kiln_model *m = NULL;
    KT_OK(kiln_model_load_file(rt, kt_src_path("tests/data/models/dynamic_mlp.onnx"), o, &m));
    kiln_options_destroy(o);
    int32_t n = 0, needed = 0, dtype = 0, rank = 0;
    KT_OK(kiln_model_input_count(m, &n));
    cr_assert_eq(n, 1);
    KT_OK(kiln_model_input_name(m, 0, NULL, 0, &needed));
    cr_assert_eq(needed, 2);
    char name[2];
    KT_OK(kiln_model_input_name(m, 0, name, sizeof name, &needed));
    cr_assert_str_eq(name, "X");
    char tiny[1];
    KT_FAILS(kiln_model_input_name(m, 0, tiny, 1, &needed), KILN_ERR_BUFFER_TOO_SMALL);
    KT_FAILS(kiln_model_input_name(m, 5, name, sizeof name, &needed), KILN_ERR_INVALID_ARGUMENT);
    KT_OK(kiln_model_input_dtype(m, 0, &dtype));
    cr_assert_eq(dtype, KILN_DTYPE_FLOAT);
    int64_t dims[4];
    KT_OK(kiln_model_input_shape(m, 0, dims, 4, &rank));
    cr_assert_eq(rank, 2);
    cr_assert_eq(dims[0], -1, "batch is dynamic");
    cr_assert_eq(dims[1], 4);
    KT_FAILS(kiln_model_input_shape(m, 0, dims, 1, &rank), KILN_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(rank, 2);
    int32_t index = -1;
    KT_OK(kiln_model_output_index(m, "Y", &index));
    cr_assert_eq(index, 0);
    KT_FAILS(kiln_model_output_index(m, "nope", &index), KILN_ERR_NOT_FOUND);
    int32_t version = 0;
    char domain[16];
    KT_OK(kiln_model_opset_count(m, &n));
    cr_assert_eq(n, 1);
    KT_OK(kiln_model_opset(m, 0, domain, sizeof domain, &needed, &version));
    cr_assert_eq(version, 17);
    char op[16];
    KT_OK(kiln_model_node_op(m, 0, op, sizeof op, domain, sizeof domain, &needed));
    cr_assert_str_eq(op, "MatMul");
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

static void check_add_relu(kiln_session *s)
{
    const float x[6] = {1, -2, 3, -4, 5, -6}, y[6] = {0.5f, 1, -4, 2, 0, 7};
    const int64_t dims[2] = {2, 3};
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 2, x, sizeof x, 0));
    KT_OK(kiln_session_set_input(s, "Y", KILN_DTYPE_FLOAT, dims, 2, y, sizeof y, KILN_INPUT_COPY));
    KT_OK(kiln_session_run(s));
    float z[6];
    size_t needed = 0;
    KT_OK(kiln_session_output_copy(s, 0, z, sizeof z, &needed));
    cr_assert_eq(needed, sizeof z);
    for (int i = 0; i < 6; i++) {
        float expect = x[i] + y[i] > 0 ? x[i] + y[i] : 0;
        cr_assert_float_eq(z[i], expect, 1e-6, "z[%d] = %f, expected %f", i, z[i], expect);
    }
    const void *view = NULL;
    size_t nbytes = 0;
    KT_OK(kiln_session_output_view(s, 0, &view, &nbytes));
    cr_assert_eq(nbytes, sizeof z);
    cr_assert_eq(memcmp(view, z, sizeof z), 0);
}

Test(api, run_static_model)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, "tests/data/models/add_relu.onnx");
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    /* Outputs before any run, and a run with unbound inputs, are state errors. */
    float z[6];
    KT_FAILS(kiln_session_output_copy(s, 0, z, sizeof z, NULL), KILN_ERR_STATE);
    KT_FAILS(kiln_session_run(s), KILN_ERR_STATE);
    check_add_relu(s);
    check_add_relu(s); /* a second run over the same plan */
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(api, bad_inputs_are_named)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, "tests/data/models/add_relu.onnx");
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    const float x[6] = {0};
    const int32_t xi[6] = {0};
    const int64_t dims[2] = {2, 3}, wrong[2] = {3, 2}, rank3[3] = {1, 2, 3};
    KT_FAILS(kiln_session_set_input(s, "nope", KILN_DTYPE_FLOAT, dims, 2, x, sizeof x, 0),
             KILN_ERR_NOT_FOUND);
    KT_FAILS(kiln_session_set_input(s, "X", KILN_DTYPE_INT32, dims, 2, xi, sizeof xi, 0),
             KILN_ERR_DTYPE);
    KT_FAILS(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, wrong, 2, x, sizeof x, 0),
             KILN_ERR_SHAPE);
    KT_FAILS(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, rank3, 3, x, sizeof x, 0),
             KILN_ERR_SHAPE);
    KT_FAILS(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 2, x, sizeof x - 4, 0),
             KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 2, NULL, sizeof x, 0),
             KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 2, x, sizeof x, 0x40),
             KILN_ERR_INVALID_ARGUMENT);
    char msg[256];
    KT_FAILS(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, wrong, 2, x, sizeof x, 0),
             KILN_ERR_SHAPE);
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "'X'"), "message names the input: %s", msg);
    /* After the bad calls the session still works. */
    check_add_relu(s);
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(api, dynamic_batch_replans_on_new_shapes)
{
    kiln_runtime *rt = kt_runtime(2);
    kiln_model *m = kt_model(rt, "tests/data/models/dynamic_mlp.onnx");
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    int64_t arena = 0, inter = 0;
    KT_FAILS(kiln_session_plan_bytes(s, &arena, &inter), KILN_ERR_STATE);
    float x[5 * 4];
    for (int i = 0; i < 20; i++)
        x[i] = (float)(i % 7) - 3.0f;
    for (int64_t batch = 1; batch <= 5; batch += 2) {
        const int64_t dims[2] = {batch, 4};
        KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 2, x,
                                     sizeof(float) * 4 * (size_t)batch, 0));
        KT_OK(kiln_session_run(s));
        int32_t dtype = 0, rank = 0;
        int64_t out_dims[2];
        KT_OK(kiln_session_output_info(s, 0, &dtype, out_dims, 2, &rank));
        cr_assert_eq(rank, 2);
        cr_assert_eq(out_dims[0], batch);
        cr_assert_eq(out_dims[1], 3);
        float y[15];
        KT_OK(kiln_session_output_copy(s, 0, y, sizeof y, NULL));
        for (int i = 0; i < 3 * batch; i++)
            cr_assert_geq(y[i], 0.0f, "relu output is non-negative");
        /* Rows are independent: row 0 is the same whatever the batch. */
        static float first_row[3];
        if (batch == 1)
            memcpy(first_row, y, sizeof first_row);
        else
            cr_assert_eq(memcmp(first_row, y, sizeof first_row), 0);
    }
    KT_OK(kiln_session_plan_bytes(s, &arena, &inter));
    cr_assert_gt(arena, 0);
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(api, planner_reuses_memory_in_place)
{
    kiln_runtime *rt = kt_runtime(1);
    /* Level 1: the file's own nodes (level 2 would fuse Relu and Sigmoid
     * into one kiln.ElementwiseChain, and this test is about the planner). */
    kiln_options *o = NULL;
    kiln_model *m = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_int(o, KILN_OPT_OPTIMIZE, 1));
    KT_OK(kiln_model_load_file(rt, kt_src_path("tests/data/models/chain.onnx"), o, &m));
    kiln_options_destroy(o);
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    int64_t arena = 0, inter = 0;
    KT_OK(kiln_session_plan_bytes(s, &arena, &inter));
    /* Five 4 KiB intermediates. Sigmoid runs in place on Relu's output and
     * Reshape aliases it, so one buffer serves A, B and C; Tanh cannot run in
     * place (Add still reads C), so D gets a second buffer, which Add then
     * overwrites in place with Y: two buffers. */
    cr_assert_eq(inter, 5 * 4096);
    cr_assert_eq(arena, 2 * 4096, "arena %lld", (long long)arena);
    float x[1024];
    for (int i = 0; i < 1024; i++)
        x[i] = (float)(i - 512) / 100.0f;
    const int64_t dims[4] = {1, 16, 8, 8};
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 4, x, sizeof x, 0));
    KT_OK(kiln_session_run(s));
    const float *y = NULL;
    KT_OK(kiln_session_output_view(s, 0, (const void **)&y, NULL));
    for (int i = 0; i < 1024; i++) {
        float c = 1.0f / (1.0f + expf(-(x[i] > 0 ? x[i] : 0)));
        cr_assert_float_eq(y[i], tanhf(c) + c, 1e-5, "y[%d]", i);
    }
    /* The input was borrowed, not modified by in-place kernels. */
    cr_assert_float_eq(x[0], -5.12f, 1e-6);
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(api, arena_limit_is_honoured)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, "tests/data/models/chain.onnx");
    kiln_options *o = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_int(o, KILN_OPT_MAX_ARENA_MB, 0));
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, o, &s)); /* 0 = no limit */
    kiln_session_destroy(s);
    kiln_options_destroy(o);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(api, tensor_encode_decode_round_trip)
{
    const int64_t dims[3] = {2, 1, 3};
    const int64_t values[6] = {1, -2, 3, INT64_MAX, INT64_MIN, 0};
    size_t needed = 0;
    KT_FAILS(kiln_tensor_encode("t", KILN_DTYPE_INT64, dims, 3, values, sizeof values, NULL, 0,
                                &needed),
             KILN_ERR_BUFFER_TOO_SMALL);
    cr_assert_gt(needed, sizeof values);
    unsigned char buf[256];
    KT_OK(kiln_tensor_encode("t", KILN_DTYPE_INT64, dims, 3, values, sizeof values, buf,
                             sizeof buf, &needed));
    kiln_tensor *t = NULL;
    KT_OK(kiln_tensor_decode(buf, needed, &t));
    int32_t dtype = 0, rank = 0;
    int64_t got_dims[3];
    KT_OK(kiln_tensor_info(t, &dtype, got_dims, 3, &rank));
    cr_assert_eq(dtype, KILN_DTYPE_INT64);
    cr_assert_eq(rank, 3);
    cr_assert_eq(got_dims[2], 3);
    const void *data = NULL;
    size_t nbytes = 0;
    KT_OK(kiln_tensor_data(t, &data, &nbytes));
    cr_assert_eq(nbytes, sizeof values);
    cr_assert_eq(memcmp(data, values, sizeof values), 0);
    char name[4];
    int32_t need_name = 0;
    KT_OK(kiln_tensor_name(t, name, sizeof name, &need_name));
    cr_assert_str_eq(name, "t");
    kiln_tensor_destroy(t);
    KT_FAILS(kiln_tensor_encode("t", KILN_DTYPE_INT64, dims, 3, values, 7, buf, sizeof buf, &needed),
             KILN_ERR_INVALID_ARGUMENT);
}

Test(api, value_dependent_shapes_run_eagerly)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, "tests/data/models/reshape_by_input.onnx");
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    const float x[6] = {1, -2, 3, -4, 5, -6};
    const int64_t xdims[1] = {6}, sdims[1] = {2};
    const int64_t shapes[2][2] = {{2, 3}, {3, 2}};
    for (int i = 0; i < 2; i++) {
        KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, xdims, 1, x, sizeof x, 0));
        KT_OK(kiln_session_set_input(s, "S", KILN_DTYPE_INT64, sdims, 1, shapes[i],
                                     sizeof shapes[i], 0));
        KT_OK(kiln_session_run(s));
        int32_t rank = 0;
        int64_t dims[2];
        KT_OK(kiln_session_output_info(s, 0, NULL, dims, 2, &rank));
        cr_assert_eq(rank, 2);
        cr_assert_eq(dims[0], shapes[i][0]);
        cr_assert_eq(dims[1], shapes[i][1]);
        float y[6];
        KT_OK(kiln_session_output_copy(s, 0, y, sizeof y, NULL));
        for (int j = 0; j < 6; j++)
            cr_assert_float_eq(y[j], x[j] > 0 ? x[j] : 0, 0);
    }
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}
