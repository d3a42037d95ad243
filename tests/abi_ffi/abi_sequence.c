/* The real sequence, part 1: library, model, tensor and image functions
 * through libffi on the digits model (examples/digits), results checked. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "abi_check.h"

void *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    void *buf = NULL;
    long len = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        len = ftell(f);
    if (len > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len)) &&
        fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    CHECK(buf, "cannot read %s", path);
    *size = buf ? (size_t)len : 0;
    return buf;
}

/* A string read with the two-call pattern: size query (cap 0), too-small
 * buffer, then the real copy. The caller frees it; NULL on failure. */
char *two_call_string(ffi_api *api, const char *name, void *handle, int with_index,
                             int32_t index)
{
    int32_t needed = -1;
    char small[1];
    if (with_index) {
        OK(name, PTR(handle), I32(index), PTR(NULL), I32(0), PTR(&needed));
    } else {
        OK(name, PTR(handle), PTR(NULL), I32(0), PTR(&needed));
    }
    CHECK(needed >= 1, "%s: needed = %d", name, needed);
    if (needed < 1)
        return NULL;
    if (needed > 1) {
        if (with_index)
            EXPECT(api, "KILN_ERR_BUFFER_TOO_SMALL", name, PTR(handle), I32(index), PTR(small),
                   I32(1), PTR(&needed));
        else
            EXPECT(api, "KILN_ERR_BUFFER_TOO_SMALL", name, PTR(handle), PTR(small), I32(1),
                   PTR(&needed));
    }
    char *text = malloc((size_t)needed);
    if (!text)
        return NULL;
    int32_t again = 0;
    int ok = with_index ? OK(name, PTR(handle), I32(index), PTR(text), I32(needed), PTR(&again))
                        : OK(name, PTR(handle), PTR(text), I32(needed), PTR(&again));
    CHECK(ok && again == needed && strlen(text) + 1 == (size_t)needed,
          "%s: needed %d then %d, text length %zu", name, needed, again,
          ok ? strlen(text) : (size_t)0);
    if (!ok) {
        free(text);
        return NULL;
    }
    return text;
}

void check_string(ffi_api *api, const char *name, void *handle, int with_index,
                         int32_t index, const char *expected)
{
    char *text = two_call_string(api, name, handle, with_index, index);
    CHECK(text && (!expected || strcmp(text, expected) == 0), "%s = \"%s\", expected \"%s\"",
          name, text ? text : "(none)", expected ? expected : "(any)");
    free(text);
}

int argmax(const float *v, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (v[i] > v[best])
            best = i;
    return best;
}

/* Runs the session and returns the predicted class (-1 on failure). */
int run_and_classify(ffi_api *api, void *session)
{
    float logits[CLASSES];
    size_t needed = 0;
    if (!OK("kiln_session_run", PTR(session)) ||
        !OK("kiln_session_output_copy", PTR(session), I32(0), PTR(logits), SZ(sizeof logits),
            PTR(&needed)))
        return -1;
    CHECK(needed == sizeof logits, "output_copy needed %zu bytes", needed);
    return argmax(logits, CLASSES);
}

void library_functions(ffi_api *api)
{
    const char *text = NULL;
    CHECK(ffi_api_call(api, "kiln_version", NULL, 0, NULL, &text) == 0 && text &&
              text[0] >= '0' && text[0] <= '9',
          "kiln_version() = %s", text ? text : "NULL");
    ffi_value status = I32(K("KILN_ERR_SHAPE"));
    CHECK(ffi_api_call(api, "kiln_status_name", &status, 1, NULL, &text) == 0 && text &&
              strstr(text, "shape"),
          "kiln_status_name(KILN_ERR_SHAPE) = %s", text ? text : "NULL");
}

void model_queries(ffi_api *api, void *model)
{
    int32_t count = -1, value = -1, rank = -1, version = -1, needed = -1;
    int64_t dims[MAX_RANK];
    OK("kiln_model_input_count", PTR(model), PTR(&count));
    CHECK(count == 1, "input count %d", count);
    OK("kiln_model_output_count", PTR(model), PTR(&count));
    CHECK(count == 1, "output count %d", count);
    check_string(api, "kiln_model_input_name", model, 1, 0, "image");
    check_string(api, "kiln_model_output_name", model, 1, 0, "logits");
    OK("kiln_model_input_dtype", PTR(model), I32(0), PTR(&value));
    CHECK(value == K("KILN_DTYPE_FLOAT"), "input dtype %d", value);
    OK("kiln_model_output_dtype", PTR(model), I32(0), PTR(&value));
    CHECK(value == K("KILN_DTYPE_FLOAT"), "output dtype %d", value);
    EXPECT(api, "KILN_ERR_BUFFER_TOO_SMALL", "kiln_model_input_shape", PTR(model), I32(0),
           PTR(dims), I32(1), PTR(&rank));
    CHECK(rank == 4, "input rank %d (reported with a too small buffer)", rank);
    OK("kiln_model_input_shape", PTR(model), I32(0), PTR(dims), I32(MAX_RANK), PTR(&rank));
    CHECK(rank == 4 && dims[1] == 1 && dims[2] == 8 && dims[3] == 8 &&
              (dims[0] == 1 || dims[0] == -1),
          "input shape rank %d [%lld, %lld, %lld, %lld]", rank, (long long)dims[0],
          (long long)dims[1], (long long)dims[2], (long long)dims[3]);
    OK("kiln_model_output_shape", PTR(model), I32(0), PTR(dims), I32(MAX_RANK), PTR(&rank));
    CHECK(rank == 2 && dims[1] == CLASSES, "output shape rank %d, dim 1 = %lld", rank,
          (long long)dims[1]);
    OK("kiln_model_input_index", PTR(model), PTR("image"), PTR(&value));
    CHECK(value == 0, "input_index(image) = %d", value);
    EXPECT(api, "KILN_ERR_NOT_FOUND", "kiln_model_input_index", PTR(model), PTR("no such"),
           PTR(&value));
    OK("kiln_model_output_index", PTR(model), PTR("logits"), PTR(&value));
    CHECK(value == 0, "output_index(logits) = %d", value);
    OK("kiln_model_input_kind", PTR(model), I32(0), PTR(&value));
    CHECK(value == K("KILN_KIND_TENSOR"), "input kind %d", value);
    OK("kiln_model_output_kind", PTR(model), I32(0), PTR(&value));
    CHECK(value == K("KILN_KIND_TENSOR"), "output kind %d", value);
    int64_t weight_bytes = -1, prepared = -1, given_back = -1;
    OK("kiln_model_memory_info", PTR(model), PTR(&weight_bytes), PTR(&prepared),
       PTR(&given_back));
    /* the digits model's weights: its classifier alone is 10 x 256 floats,
     * all of them 15,272 bytes in the file */
    CHECK(weight_bytes >= 10 * 256 * 4 && weight_bytes <= 4 * 15272 && prepared >= 0 &&
              given_back >= 0,
          "memory info: %lld weight bytes, %lld prepared, %lld given back",
          (long long)weight_bytes, (long long)prepared, (long long)given_back);
    OK("kiln_model_memory_info", PTR(model), PTR(NULL), PTR(NULL), PTR(NULL));

    OK("kiln_model_opset_count", PTR(model), PTR(&count));
    CHECK(count >= 1, "opset count %d", count);
    char domain[64];
    OK("kiln_model_opset", PTR(model), I32(0), PTR(NULL), I32(0), PTR(&needed), PTR(&version));
    OK("kiln_model_opset", PTR(model), I32(0), PTR(domain), I32(sizeof domain), PTR(&needed),
       PTR(&version));
    CHECK(strlen(domain) + 1 == (size_t)needed && version >= 1, "opset 0: \"%s\" version %d",
          domain, version);

    OK("kiln_model_node_count", PTR(model), PTR(&count));
    CHECK(count >= 3, "node count %d", count);
    for (int32_t i = 0; i < count; i++) {
        char op[64] = "", node_domain[64] = "";
        OK("kiln_model_node_op", PTR(model), I32(i), PTR(NULL), I32(0), PTR(NULL), I32(0),
           PTR(&needed));
        CHECK(needed >= 2 && needed <= (int32_t)sizeof op, "node %d op needs %d", i, needed);
        OK("kiln_model_node_op", PTR(model), I32(i), PTR(op), I32(needed), PTR(node_domain),
           I32(needed), PTR(&needed));
        /* The domain is "" for ONNX ops, "kiln" for the optimizer's own. */
        CHECK(op[0] >= 'A' && op[0] <= 'Z' && strlen(node_domain) < (size_t)needed,
              "node %d: %s in \"%s\"", i, op, node_domain);
        check_string(api, "kiln_model_node_name", model, 1, i, NULL);
        OK("kiln_model_node_supported", PTR(model), I32(i), PTR(&value));
        CHECK(value == 1, "node %d (%s) unsupported", i, op);
        /* The graph's edges: every digits node reads and writes a named
         * value, and the slot past the last one is refused. */
        int32_t n_in = 0, n_out = 0;
        char value_name[256] = "";
        OK("kiln_model_node_io_count", PTR(model), I32(i), PTR(&n_in), PTR(&n_out));
        CHECK(n_in >= 1 && n_out >= 1, "node %d (%s): %d inputs, %d outputs", i, op, n_in, n_out);
        OK("kiln_model_node_input", PTR(model), I32(i), I32(0), PTR(value_name),
           I32(sizeof value_name), PTR(&needed));
        CHECK(value_name[0] && strlen(value_name) + 1 == (size_t)needed, "node %d input 0: \"%s\"",
              i, value_name);
        OK("kiln_model_node_output", PTR(model), I32(i), I32(n_out - 1), PTR(value_name),
           I32(sizeof value_name), PTR(&needed));
        CHECK(value_name[0] != '\0', "node %d output %d has no name", i, n_out - 1);
        EXPECT(api, "KILN_ERR_INVALID_ARGUMENT", "kiln_model_node_output", PTR(model), I32(i),
               I32(n_out), PTR(value_name), I32(sizeof value_name), PTR(&needed));
    }
}

/* A SequenceProto (or OptionalProto: same field numbers) of one tensor. */
static size_t wrap_tensor(unsigned char *out, size_t cap, const unsigned char *tensor,
                          size_t size)
{
    if (size >= 128 || size + 5 > cap)
        return 0;
    out[0] = 0x10; /* field 2 elem_type, varint */
    out[1] = 0x01; /* TENSOR */
    out[2] = 0x1a; /* field 3 tensor_value(s), bytes */
    out[3] = (unsigned char)size;
    memcpy(out + 4, tensor, size);
    return size + 4;
}

void tensor_functions(ffi_api *api, abi_handles *live, const float *logits)
{
    int64_t dims[MAX_RANK] = {1, CLASSES};
    int32_t dtype = 0, rank = 0, kind = -1, count = -1;
    unsigned char encoded[100], wrapped[128];
    size_t needed = 0, nbytes = 0;
    const void *data = NULL;
    void *copy = NULL, *element = NULL, *none = NULL;

    EXPECT(api, "KILN_ERR_BUFFER_TOO_SMALL", "kiln_tensor_encode", PTR("logits"),
           I32(K("KILN_DTYPE_FLOAT")), PTR(dims), I32(2), PTR(logits), SZ(CLASSES * 4),
           PTR(NULL), SZ(0), PTR(&needed));
    CHECK(needed > CLASSES * 4 && needed <= sizeof encoded, "encoded size %zu", needed);
    OK("kiln_tensor_encode", PTR("logits"), I32(K("KILN_DTYPE_FLOAT")), PTR(dims), I32(2),
       PTR(logits), SZ(CLASSES * 4), PTR(encoded), SZ(sizeof encoded), PTR(&needed));
    EXPECT(api, "KILN_ERR_DTYPE", "kiln_tensor_encode", PTR(NULL), I32(K("KILN_DTYPE_STRING")),
           PTR(dims), I32(2), PTR(logits), SZ(CLASSES * 4), PTR(encoded), SZ(sizeof encoded),
           PTR(&nbytes));
    if (OK("kiln_tensor_decode", PTR(encoded), SZ(needed), PTR(&copy))) {
        OK("kiln_tensor_info", PTR(copy), PTR(&dtype), PTR(dims), I32(MAX_RANK), PTR(&rank));
        OK("kiln_tensor_data", PTR(copy), PTR(&data), PTR(&nbytes));
        CHECK(dtype == K("KILN_DTYPE_FLOAT") && rank == 2 && nbytes == CLASSES * 4 &&
                  memcmp(data, logits, nbytes) == 0,
              "encode/decode round trip changed the tensor");
        check_string(api, "kiln_tensor_name", copy, 0, 0, "logits");
        EXPECT(api, "KILN_ERR_INVALID_ARGUMENT", "kiln_tensor_element_count", PTR(copy),
               PTR(&count));
        EXPECT(api, "KILN_ERR_INVALID_ARGUMENT", "kiln_tensor_element", PTR(copy), I32(0),
               PTR(&element));
    }
    EXPECT(api, "KILN_ERR_INVALID_MODEL", "kiln_tensor_decode", PTR(encoded), SZ(needed - 3),
           PTR(&none));
    EXPECT(api, "KILN_ERR_INVALID_ARGUMENT", "kiln_tensor_decode_value", PTR(encoded),
           SZ(needed), I32(99), PTR(&none));
    CHECK(none == NULL, "a failed decode made a handle");

    size_t wrapped_size = wrap_tensor(wrapped, sizeof wrapped, encoded, needed);
    if (OK("kiln_tensor_decode_value", PTR(wrapped), SZ(wrapped_size),
           I32(K("KILN_KIND_SEQUENCE")), PTR(&live->sequence))) {
        OK("kiln_tensor_kind", PTR(live->sequence), PTR(&kind));
        CHECK(kind == K("KILN_KIND_SEQUENCE"), "sequence kind %d", kind);
        OK("kiln_tensor_element_count", PTR(live->sequence), PTR(&count));
        CHECK(count == 1, "sequence length %d", count);
        if (OK("kiln_tensor_element", PTR(live->sequence), I32(0), PTR(&element))) {
            OK("kiln_tensor_data", PTR(element), PTR(&data), PTR(&nbytes));
            CHECK(nbytes == CLASSES * 4 && memcmp(data, logits, nbytes) == 0,
                  "sequence element differs");
        }
        EXPECT(api, "KILN_ERR_DTYPE", "kiln_tensor_info", PTR(live->sequence), PTR(&dtype),
               PTR(dims), I32(MAX_RANK), PTR(&rank));
    }
    /* TensorProto: dims [2], data_type STRING, string_data "a\0b" and "", name "s". */
    static const unsigned char strings[] = {0x08, 0x02, 0x10, 0x08, 0x32, 0x03, 'a', 0,
                                            'b',  0x32, 0x00, 0x42, 0x01, 's'};
    if (OK("kiln_tensor_decode_value", PTR(strings), SZ(sizeof strings),
           I32(K("KILN_KIND_TENSOR")), PTR(&live->strings))) {
        char text[8];
        int32_t text_needed = 0;
        /* The size query: unlike the name functions (KILN_OK), kiln_tensor_string
         * answers KILN_ERR_BUFFER_TOO_SMALL; both set *needed (README). */
        int32_t query = CALL(api, "kiln_tensor_string", PTR(live->strings), I32(0), PTR(NULL),
                             I32(0), PTR(&text_needed));
        CHECK((query == K("KILN_OK") || query == K("KILN_ERR_BUFFER_TOO_SMALL")) &&
                  text_needed == 4,
              "string size query: status %d, needed %d", query, text_needed);
        OK("kiln_tensor_string", PTR(live->strings), I32(0), PTR(text), I32(sizeof text),
           PTR(&text_needed));
        CHECK(text_needed == 4 && memcmp(text, "a\0b\0", 4) == 0,
              "string element 0: needed %d", text_needed);
        OK("kiln_tensor_string", PTR(live->strings), I32(1), PTR(text), I32(sizeof text),
           PTR(&text_needed));
        CHECK(text_needed == 1 && text[0] == 0, "string element 1: needed %d", text_needed);
        EXPECT(api, "KILN_ERR_DTYPE", "kiln_tensor_data", PTR(live->strings), PTR(&data),
               PTR(&nbytes));
        EXPECT(api, "KILN_ERR_DTYPE", "kiln_tensor_string", PTR(copy), I32(0), PTR(text),
               I32(sizeof text), PTR(&text_needed));
    }
    ffi_value v = PTR(copy);
    ffi_api_call(api, "kiln_tensor_destroy", &v, 1, NULL, NULL);
    v = PTR(element);
    ffi_api_call(api, "kiln_tensor_destroy", &v, 1, NULL, NULL);
}

/* Pixels of the sample image (values 0..1) as 8-bit gray, converted back
 * with kiln_image_to_tensor; also the mean/std and BGR paths. */
void image_functions(ffi_api *api, void *session, const float *sample, int label)
{
    unsigned char pixels[64];
    float image[64];
    for (int i = 0; i < 64; i++)
        pixels[i] = (unsigned char)lrintf(sample[i] * 255.0f);
    const int32_t F = K("KILN_DTYPE_FLOAT");
    if (OK("kiln_image_to_tensor", PTR(pixels), I32(8), I32(8), I32(8), I32(1), I32(8), I32(8),
           I32(1), PTR(NULL), PTR(NULL), I32(0), PTR(image), SZ(sizeof image))) {
        float worst = 0.0f;
        for (int i = 0; i < 64; i++)
            worst = fmaxf(worst, fabsf(image[i] - sample[i]));
        CHECK(worst <= 0.5f / 255.0f + 1e-6f, "image_to_tensor differs by %g", (double)worst);
        int64_t dims[4] = {1, 1, 8, 8};
        OK("kiln_session_set_input", PTR(session), PTR("image"), I32(F), PTR(dims), I32(4),
           PTR(image), SZ(sizeof image), I32(K("KILN_INPUT_COPY")));
        int predicted = run_and_classify(api, session);
        CHECK(predicted == label, "image path predicted %d, label %d", predicted, label);
    }
    const float half[1] = {0.5f}, zero[1] = {0.0f};
    if (OK("kiln_image_to_tensor", PTR(pixels), I32(8), I32(8), I32(8), I32(1), I32(8), I32(8),
           I32(1), PTR(half), PTR(half), I32(0), PTR(image), SZ(sizeof image)))
        CHECK(fabsf(image[10] - (pixels[10] / 255.0f - 0.5f) / 0.5f) < 1e-5f,
              "mean/std: %g", (double)image[10]);
    EXPECT(api, "KILN_ERR_INVALID_ARGUMENT", "kiln_image_to_tensor", PTR(pixels), I32(8), I32(8),
           I32(8), I32(1), I32(8), I32(8), I32(1), PTR(NULL), PTR(zero), I32(0), PTR(image),
           SZ(sizeof image));
    EXPECT(api, "KILN_ERR_INVALID_ARGUMENT", "kiln_image_to_tensor", PTR(pixels), I32(8), I32(8),
           I32(8), I32(1), I32(8), I32(8), I32(1), PTR(NULL), PTR(NULL), I32(0), PTR(image),
           SZ(sizeof image - 4));
    const unsigned char rgb[3] = {10, 20, 30};
    float bgr[3] = {0};
    OK("kiln_image_to_tensor", PTR(rgb), I32(1), I32(1), I32(3), I32(3), I32(1), I32(1), I32(3),
       PTR(NULL), PTR(NULL), I32(K("KILN_IMAGE_BGR")), PTR(bgr), SZ(sizeof bgr));
    CHECK(fabsf(bgr[0] - 30 / 255.0f) < 1e-6f && fabsf(bgr[2] - 10 / 255.0f) < 1e-6f,
          "BGR order: %g %g %g", (double)bgr[0], (double)bgr[1], (double)bgr[2]);

    /* The same pixels as a binary PGM (decoded in every build, no library
     * needed): the size query, then the decode, gives them back. */
    unsigned char pgm[11 + 64], decoded[64];
    memcpy(pgm, "P5 8 8 255\n", 11);
    memcpy(pgm + 11, pixels, 64);
    size_t needed = 0;
    int32_t width = 0, height = 0;
    if (OK("kiln_image_decode", PTR(pgm), SZ(sizeof pgm), I32(1), PTR(NULL), SZ(0), PTR(&needed),
           PTR(&width), PTR(&height)))
        CHECK(needed == 64 && width == 8 && height == 8, "image_decode size query: %zu, %dx%d",
              needed, (int)width, (int)height);
    if (OK("kiln_image_decode", PTR(pgm), SZ(sizeof pgm), I32(1), PTR(decoded), SZ(64),
           PTR(&needed), PTR(&width), PTR(&height)))
        CHECK(memcmp(decoded, pixels, 64) == 0, "image_decode changed the pixels");
    EXPECT(api, "KILN_ERR_INVALID_ARGUMENT", "kiln_image_decode", PTR(pgm), SZ(20), I32(1),
           PTR(decoded), SZ(64), PTR(&needed), PTR(&width), PTR(&height));
}
