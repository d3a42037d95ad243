/* String tensors: TensorProto string_data round trip, the public value API
 * (kiln_tensor_string, binding and reading string values) and the string
 * kernels Cast (both ways) and StringNormalizer through a small model
 * (tools/make_string_models.py). */
#include <stdlib.h>
#include <string.h>

#include "api_helpers.h"
#include "core/onnx/onnx.h"
#include "core/base/bump_alloc.h"

/* Encodes n strings of shape dims/rank as a TensorProto (heap buffer). */
static void *encode_strings(const char *const *s, int64_t n, const int64_t *dims, int32_t rank,
                            size_t *size)
{
    kn_string refs[8];
    cr_assert(n <= 8);
    for (int64_t i = 0; i < n; i++)
        refs[i] = (kn_string){s[i], (int64_t)strlen(s[i])};
    kn_tensor t = {.dtype = KN_STRING, .rank = rank, .data = refs};
    for (int32_t d = 0; d < rank; d++)
        t.dims[d] = dims[d];
    kn_err err = {0};
    size_t need = 0;
    cr_assert_eq(kn_onnx_write_tensor("s", &t, NULL, 0, &need, &err), KN_ERR_BUFFER_TOO_SMALL);
    void *buf = malloc(need);
    cr_assert_eq(kn_onnx_write_tensor("s", &t, buf, need, size, &err), KN_OK, "%s", err.msg);
    return buf;
}

static void expect_string(const kiln_tensor *t, int32_t i, const char *want)
{
    int32_t need = 0;
    KT_FAILS(kiln_tensor_string(t, i, NULL, 0, &need), KILN_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(need, (int32_t)strlen(want) + 1);
    char buf[64];
    KT_OK(kiln_tensor_string(t, i, buf, sizeof buf, NULL));
    cr_assert_str_eq(buf, want);
}

Test(strings, tensorproto_round_trip)
{
    const char *s[] = {"alpha", "", "g\xc3\xa9nial", "z"};
    int64_t dims[2] = {2, 2};
    size_t size = 0;
    void *bytes = encode_strings(s, 4, dims, 2, &size);
    kiln_tensor *t = NULL;
    KT_OK(kiln_tensor_decode(bytes, size, &t));
    int32_t dtype = 0, rank = 0;
    int64_t d[4];
    KT_OK(kiln_tensor_info(t, &dtype, d, 4, &rank));
    cr_assert_eq(dtype, KILN_DTYPE_STRING);
    cr_assert_eq(rank, 2);
    cr_assert(d[0] == 2 && d[1] == 2);
    for (int32_t i = 0; i < 4; i++)
        expect_string(t, i, s[i]);
    const void *data = NULL;
    KT_FAILS(kiln_tensor_data(t, &data, NULL), KILN_ERR_DTYPE);
    KT_FAILS(kiln_tensor_string(t, 4, NULL, 0, NULL), KILN_ERR_INVALID_ARGUMENT);

    /* decode -> core tensor -> encode gives the same bytes */
    kn_bump *pool = kn_bump_create();
    kn_tensor core;
    const char *name = NULL;
    kn_err err = {0};
    cr_assert_eq(kn_onnx_read_tensor(pool, bytes, size, &core, &name, &err), KN_OK, "%s",
                 err.msg);
    cr_assert_str_eq(name, "s");
    size_t again = 0;
    char out[256];
    cr_assert_eq(kn_onnx_write_tensor(name, &core, out, sizeof out, &again, &err), KN_OK);
    cr_assert_eq(again, size);
    cr_assert(memcmp(out, bytes, size) == 0);
    kn_bump_destroy(pool);
    kiln_tensor_destroy(t);
    free(bytes);
}

Test(strings, malformed_string_tensor)
{
    /* data_type FLOAT with string_data */
    static const unsigned char bad[] = {0x08, 0x01, 0x10, 0x01, 0x32, 0x01, 'a'};
    kiln_tensor *t = NULL;
    KT_FAILS(kiln_tensor_decode(bad, sizeof bad, &t), KILN_ERR_INVALID_MODEL);
    /* STRING with 1 dim of 2 and one entry */
    static const unsigned char short_[] = {0x08, 0x02, 0x10, 0x08, 0x32, 0x01, 'a'};
    KT_FAILS(kiln_tensor_decode(short_, sizeof short_, &t), KILN_ERR_INVALID_MODEL);
}

static kiln_tensor *float_value(const float *v, int64_t n)
{
    int64_t dims[1] = {n};
    size_t need = 0;
    char buf[256];
    KT_OK(kiln_tensor_encode("f", KILN_DTYPE_FLOAT, dims, 1, v, (size_t)n * 4, buf, sizeof buf,
                             &need));
    kiln_tensor *t = NULL;
    KT_OK(kiln_tensor_decode(buf, need, &t));
    return t;
}

Test(strings, model_normalize_and_cast)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, "tests/data/models/str_normalize_cast.onnx");
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));

    const char *words[] = {"Hello", "SKIP", "w\xc3\xb6rld"};
    int64_t dims[1] = {3};
    size_t size = 0;
    void *bytes = encode_strings(words, 3, dims, 1, &size);
    kiln_tensor *x = NULL;
    KT_OK(kiln_tensor_decode(bytes, size, &x));
    free(bytes);
    const float f[4] = {0.5f, 1.0f, 0.1f, -3.25e-7f};
    kiln_tensor *fv = float_value(f, 4);

    /* raw binding of strings is refused */
    KT_FAILS(kiln_session_set_input_at(s, 0, KILN_DTYPE_STRING, dims, 1, words, 48, 0),
             KILN_ERR_DTYPE);
    KT_OK(kiln_session_set_input_value(s, 0, x));
    kiln_tensor_destroy(x); /* the session holds a deep copy */
    KT_OK(kiln_session_set_input_value(s, 1, fv));
    kiln_tensor_destroy(fv);
    for (int run = 0; run < 2; run++) {
        KT_OK(kiln_session_run(s));
        kiln_tensor *y = NULL, *st = NULL, *r = NULL;
        KT_OK(kiln_session_output_value(s, 0, &y));
        KT_OK(kiln_session_output_value(s, 1, &st));
        KT_OK(kiln_session_output_value(s, 2, &r));
        int32_t rank = 0;
        int64_t d[2];
        KT_OK(kiln_tensor_info(y, NULL, d, 2, &rank));
        cr_assert(rank == 1 && d[0] == 2);
        expect_string(y, 0, "HELLO");
        expect_string(y, 1, "W\xc3\xb6RLD"); /* ASCII case mapping only */
        expect_string(st, 0, "0.5");
        expect_string(st, 1, "1.0");
        expect_string(st, 2, "0.1");
        expect_string(st, 3, "-3.25e-07");
        const void *data = NULL;
        KT_OK(kiln_tensor_data(r, &data, NULL));
        cr_assert(memcmp(data, f, sizeof f) == 0);
        const void *view = NULL;
        KT_FAILS(kiln_session_output_view(s, 1, &view, NULL), KILN_ERR_DTYPE);
        kiln_tensor_destroy(y);
        kiln_tensor_destroy(st);
        kiln_tensor_destroy(r);
    }
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(strings, string_to_number_special_values)
{
    /* Non-finite and whole floats to text and back (f -> s -> r). */
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, "tests/data/models/str_normalize_cast.onnx");
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    const char *words[] = {"a", "b", "c"};
    int64_t dims[1] = {3};
    size_t size = 0;
    void *bytes = encode_strings(words, 3, dims, 1, &size);
    kiln_tensor *x = NULL;
    KT_OK(kiln_tensor_decode(bytes, size, &x));
    free(bytes);
    const float f[4] = {1.0f / 0.0f, -1.0f / 0.0f, 0.0f / 0.0f, 123456.0f};
    kiln_tensor *fv = float_value(f, 4);
    KT_OK(kiln_session_set_input_value(s, 0, x));
    KT_OK(kiln_session_set_input_value(s, 1, fv));
    KT_OK(kiln_session_run(s));
    kiln_tensor *st = NULL, *r = NULL;
    KT_OK(kiln_session_output_value(s, 1, &st));
    KT_OK(kiln_session_output_value(s, 2, &r));
    expect_string(st, 0, "INF");
    expect_string(st, 1, "-INF");
    expect_string(st, 2, "NaN");
    expect_string(st, 3, "123456.0");
    const void *data = NULL;
    KT_OK(kiln_tensor_data(r, &data, NULL));
    const float *g = data;
    cr_assert(g[0] > 3e38f && g[1] < -3e38f && g[2] != g[2] && g[3] == 123456.0f);
    kiln_tensor_destroy(st);
    kiln_tensor_destroy(r);
    kiln_tensor_destroy(x);
    kiln_tensor_destroy(fv);
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(strings, strings_made_in_an_if_branch_outlive_it)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, "tests/data/models/str_if_branch.onnx");
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    const float f[4] = {0.5f, 1.0f, 2.0f, -1.5f};
    kiln_tensor *fv = float_value(f, 4);
    KT_OK(kiln_session_set_input_value(s, 1, fv));
    kiln_tensor_destroy(fv);
    const unsigned char cond[2] = {1, 0};
    const char *const want[2][4] = {{"0.5", "1.0", "2.0", "-1.5"}, {"0.5", "1.0", "2.0", "-1.5"}};
    for (int i = 0; i < 2; i++) {
        KT_OK(kiln_session_set_input_at(s, 0, KILN_DTYPE_BOOL, NULL, 0, &cond[i], 1, 0));
        KT_OK(kiln_session_run(s));
        kiln_tensor *y = NULL;
        KT_OK(kiln_session_output_value(s, 0, &y));
        for (int j = 0; j < 4; j++)
            expect_string(y, j, want[i][j]);
        kiln_tensor_destroy(y);
    }
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}
