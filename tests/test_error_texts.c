/* The exact texts of the mistakes users commonly make, through the public
 * API. One vocabulary everywhere (the bindings pass these texts on): input
 * and output names, the bindings' dtype names (float32, float64), element
 * counts rather than bytes, shapes written 1x1x8x8 (a dynamic dim by its
 * name in the model), the file's name and the OS's reason, and a plain
 * lead-in before any wire-level detail. The bindings' own error tests
 * assert the same texts (bindings/<language>/.../errors*). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_helpers.h"

#define DIGITS "examples/digits/digits.onnx"
#define SAMPLE "examples/digits/samples/digit_12_label_2.pb"
#define DIGITS_SHAPE "?x1x8x8" /* a dynamic batch */
#define UNSUPPORTED_TEXT                                                                           \
    "unsupported op FrobnicateTensor (domain 'ai.onnx', opset 17) at node 'frob'"

static char last[1024];

/* Asserts call failed with code and exactly the message want. */
#define EXPECT_TEXT(call, code, want)                                                              \
    do {                                                                                           \
        KT_FAILS(call, code);                                                                      \
        kiln_last_error(last, sizeof last);                                                        \
        cr_assert_str_eq(last, want);                                                              \
    } while (0)

/* Asserts call failed with code and a message that starts with lead. */
#define EXPECT_LEAD(call, code, lead)                                                              \
    do {                                                                                           \
        KT_FAILS(call, code);                                                                      \
        kiln_last_error(last, sizeof last);                                                        \
        cr_assert(strncmp(last, lead, strlen(lead)) == 0, "'%s' does not start with '%s'", last,   \
                  lead);                                                                           \
        cr_assert_gt(strlen(last), strlen(lead), "no detail after the lead-in: '%s'", last);       \
    } while (0)

/* A fresh folder for files a test writes, removed by the caller. */
static void temp_dir(char *dir, size_t cap)
{
    snprintf(dir, cap, "/tmp/kiln_error_texts_XXXXXX");
    cr_assert(mkdtemp(dir) != NULL);
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL, "cannot write %s", path);
    cr_assert_eq(fwrite(data, 1, n, f), n);
    fclose(f);
}

static kiln_model *load(kiln_runtime *rt, const char *path)
{
    kiln_model *m = NULL;
    kiln_model_load_file(rt, path, NULL, &m);
    return m;
}

Test(error_texts, files_name_the_path_and_the_os_reason)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = NULL;
    char dir[64], path[256], want[512];
    temp_dir(dir, sizeof dir);

    snprintf(path, sizeof path, "%s/nope.onnx", dir);
    snprintf(want, sizeof want, "cannot open '%s': No such file or directory", path);
    EXPECT_TEXT(kiln_model_load_file(rt, path, NULL, &m), KILN_ERR_IO, want);

    snprintf(want, sizeof want, "cannot read '%s': Is a directory", dir);
    EXPECT_TEXT(kiln_model_load_file(rt, dir, NULL, &m), KILN_ERR_IO, want);

    snprintf(path, sizeof path, "%s/empty.onnx", dir);
    write_bytes(path, "", 0);
    snprintf(want, sizeof want, "'%s' is empty, not an ONNX model", path);
    EXPECT_TEXT(kiln_model_load_file(rt, path, NULL, &m), KILN_ERR_INVALID_MODEL, want);
    remove(path);
    rmdir(dir);
    kiln_runtime_destroy(rt);
}

Test(error_texts, not_a_model_says_so_before_the_wire_detail)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = NULL;
    char dir[64], path[256], lead[512];
    temp_dir(dir, sizeof dir);
    static const char text[] = "this is not an ONNX model\n";

    snprintf(path, sizeof path, "%s/notes.txt", dir);
    write_bytes(path, text, sizeof text - 1);
    snprintf(lead, sizeof lead, "'%s' is not a valid ONNX model: ", path);
    EXPECT_LEAD(kiln_model_load_file(rt, path, NULL, &m), KILN_ERR_INVALID_MODEL, lead);
    EXPECT_LEAD(kiln_model_load_memory(rt, text, sizeof text - 1, NULL, &m), KILN_ERR_INVALID_MODEL,
                "the model bytes are not a valid ONNX model: ");

    /* truncated: half of a good model */
    size_t size = 0;
    void *bytes = kt_read_file(kt_src_path(DIGITS), &size);
    cr_assert(bytes && size > 100);
    snprintf(path, sizeof path, "%s/half.onnx", dir);
    write_bytes(path, bytes, size / 2);
    snprintf(lead, sizeof lead, "'%s' is not a valid ONNX model: ", path);
    EXPECT_LEAD(kiln_model_load_file(rt, path, NULL, &m), KILN_ERR_INVALID_MODEL, lead);
    EXPECT_LEAD(kiln_model_load_memory(rt, bytes, size / 2, NULL, &m), KILN_ERR_INVALID_MODEL,
                "the model bytes are not a valid ONNX model: ");
    free(bytes);
    remove(path);
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    remove(path);
    rmdir(dir);
    kiln_runtime_destroy(rt);
}

Test(error_texts, a_tensor_file_is_not_a_model)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = NULL;
    const char *path = kt_src_path(SAMPLE);
    char want[512];
    snprintf(want, sizeof want, "'%s' is an ONNX tensor file, not a model", path);
    EXPECT_TEXT(kiln_model_load_file(rt, path, NULL, &m), KILN_ERR_INVALID_MODEL, want);
    size_t size = 0;
    void *bytes = kt_read_file(path, &size);
    cr_assert(bytes);
    EXPECT_TEXT(kiln_model_load_memory(rt, bytes, size, NULL, &m), KILN_ERR_INVALID_MODEL,
                "the model bytes are an ONNX tensor, not a model");
    free(bytes);
    kiln_runtime_destroy(rt);
}

Test(error_texts, unsupported_op_names_op_opset_and_node)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = NULL;
    EXPECT_TEXT(
        kiln_model_load_file(rt, kt_src_path("tests/data/models/unsupported_op.onnx"), NULL, &m),
        KILN_ERR_UNSUPPORTED, UNSUPPORTED_TEXT);
    kiln_runtime_destroy(rt);
}

Test(error_texts, feeds_in_the_users_terms)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = load(rt, kt_src_path(DIGITS));
    cr_assert(m);
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    float x[64] = {0};
    double xd[64] = {0};
    const int64_t good[4] = {1, 1, 8, 8}, wide[4] = {1, 1, 8, 9}, flat[2] = {8, 8};
    int32_t index = 0;

    EXPECT_TEXT(kiln_session_run(s), KILN_ERR_STATE,
                "input 'image' (float32, shape " DIGITS_SHAPE ") has no value: set it before "
                "running");
    EXPECT_TEXT(kiln_session_set_input(s, "imgae", KILN_DTYPE_FLOAT, good, 4, x, sizeof x, 0),
                KILN_ERR_NOT_FOUND, "unknown input 'imgae'; the model's inputs are: 'image'");
    EXPECT_TEXT(kiln_model_output_index(m, "probs", &index), KILN_ERR_NOT_FOUND,
                "unknown output 'probs'; the model's outputs are: 'logits'");
    EXPECT_TEXT(kiln_session_set_input(s, "image", KILN_DTYPE_DOUBLE, good, 4, xd, sizeof xd, 0),
                KILN_ERR_DTYPE, "input 'image' expects float32, got float64");
    EXPECT_TEXT(
        kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, good, 4, x, 10 * sizeof(float), 0),
        KILN_ERR_INVALID_ARGUMENT,
        "input 'image': 10 float32 elements given, the shape 1x1x8x8 needs 64");
    EXPECT_TEXT(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, good, 4, x, 41, 0),
                KILN_ERR_INVALID_ARGUMENT,
                "input 'image': 41 bytes is not a whole number of float32 elements (4 bytes each)");
    EXPECT_TEXT(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, wide, 4, x, sizeof x, 0),
                KILN_ERR_SHAPE,
                "input 'image' expects shape " DIGITS_SHAPE ", got 1x1x8x9 (dim 3 must be 8)");
    EXPECT_TEXT(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, flat, 2, x, sizeof x, 0),
                KILN_ERR_SHAPE,
                "input 'image' expects shape " DIGITS_SHAPE " (rank 4), got 8x8 (rank 2)");
    EXPECT_TEXT(kiln_session_output_info(s, 0, &index, NULL, 0, &index), KILN_ERR_STATE,
                "no outputs: the session has not run successfully");
    KT_OK(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, good, 4, x, sizeof x, 0));
    KT_OK(kiln_session_run(s));
    int64_t dims[8];
    int32_t dtype = 0, rank = 0;
    EXPECT_TEXT(kiln_session_output_info(s, 3, &dtype, dims, 8, &rank), KILN_ERR_INVALID_ARGUMENT,
                "output index 3 out of range: the model has 1 output");
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}
