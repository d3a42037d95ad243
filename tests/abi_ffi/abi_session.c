/* The real sequence, part 2: options, runtime, model loading, sessions and
 * profiling through libffi, then the bad-index pass on the live handles and
 * the teardown. */
#include <stdlib.h>
#include <string.h>

#include "abi_check.h"

#define SAMPLE "examples/digits/samples/digit_00_label_5.pb"
#define SAMPLE_LABEL 5

static void destroy(ffi_api *api, const char *name, void *handle)
{
    ffi_value v = PTR(handle);
    CHECK(ffi_api_call(api, name, &v, 1, NULL, NULL) == 0, "%s", name);
}

static void options_functions(ffi_api *api, void *options)
{
    OK("kiln_options_set_int", PTR(options), I32(K("KILN_OPT_THREADS")), I32(2));
    OK("kiln_options_set_int", PTR(options), I32(K("KILN_OPT_PROFILE")), I32(1));
    OK("kiln_options_set_int", PTR(options), I32(K("KILN_OPT_OPTIMIZE")), I32(2));
    OK("kiln_options_set_int", PTR(options), I32(K("KILN_OPT_KEEP_VALUES")), I32(1));
    EXPECT(api, "KILN_ERR_INVALID_ARGUMENT", "kiln_options_set_int", PTR(options),
           I32(K("KILN_OPT_KEEP_VALUES")), I32(2));
    EXPECT(api, "KILN_ERR_INVALID_ARGUMENT", "kiln_options_set_int", PTR(options), I32(9999),
           I32(1));
    EXPECT(api, "KILN_ERR_INVALID_ARGUMENT", "kiln_options_set_int", PTR(options),
           I32(K("KILN_OPT_THREADS")), I32(0));
    OK("kiln_options_set_string", PTR(options), I32(K("KILN_SOPT_TUNING_CACHE")),
       PTR("/nonexistent/kiln-tuning.cache"));
    OK("kiln_options_set_string", PTR(options), I32(K("KILN_SOPT_TUNING_CACHE")), PTR(NULL));
    EXPECT(api, "KILN_ERR_INVALID_ARGUMENT", "kiln_options_set_string", PTR(options), I32(9999),
           PTR("x"));
}

/* Loading from memory, and the load errors; the model it makes is dropped. */
static void load_variants(ffi_api *api, void *runtime, const char *model_path)
{
    void *model = NULL;
    EXPECT(api, "KILN_ERR_IO", "kiln_model_load_file", PTR(runtime), PTR("/nonexistent.onnx"),
           PTR(NULL), PTR(&model));
    CHECK(model == NULL, "a failed load made a model");
    size_t size = 0;
    void *bytes = read_file(model_path, &size);
    if (!bytes)
        return;
    EXPECT(api, "KILN_ERR_INVALID_MODEL", "kiln_model_load_memory", PTR(runtime), PTR(bytes),
           SZ(size / 2), PTR(NULL), PTR(&model));
    if (OK("kiln_model_load_memory", PTR(runtime), PTR(bytes), SZ(size), PTR(NULL),
           PTR(&model))) {
        free(bytes); /* the bytes are not used after the call */
        bytes = NULL;
        int32_t count = 0;
        OK("kiln_model_input_count", PTR(model), PTR(&count));
        CHECK(count == 1, "model from memory has %d inputs", count);
    }
    free(bytes);
    destroy(api, "kiln_model_destroy", model);
}

/* Kept values (the live options set KILN_OPT_KEEP_VALUES) after a run
 * whose output was logits: the last value computed is that output. */
static void value_functions(ffi_api *api, void *session, const float *logits)
{
    int32_t count = 0, dtype = 0, rank = 0;
    int64_t dims[MAX_RANK];
    float kept[CLASSES];
    size_t needed = 0;
    OK("kiln_session_value_count", PTR(session), PTR(&count));
    CHECK(count >= 1, "the run kept %d values", count);
    check_string(api, "kiln_session_value_name", session, 1, count - 1, "logits");
    OK("kiln_session_value_info", PTR(session), PTR("logits"), PTR(&dtype), PTR(dims),
       I32(MAX_RANK), PTR(&rank));
    CHECK(dtype == K("KILN_DTYPE_FLOAT") && rank == 2 && dims[1] == CLASSES,
          "kept logits: dtype %d rank %d", dtype, rank);
    EXPECT(api, "KILN_ERR_BUFFER_TOO_SMALL", "kiln_session_value_copy", PTR(session),
           PTR("logits"), PTR(NULL), SZ(0), PTR(&needed));
    CHECK(needed == sizeof kept, "kept logits need %zu bytes", needed);
    OK("kiln_session_value_copy", PTR(session), PTR("logits"), PTR(kept), SZ(sizeof kept),
       PTR(NULL));
    CHECK(memcmp(kept, logits, sizeof kept) == 0, "kept logits differ from the output");
    EXPECT(api, "KILN_ERR_NOT_FOUND", "kiln_session_value_info", PTR(session), PTR("no such"),
           PTR(&dtype), PTR(dims), I32(MAX_RANK), PTR(&rank));
    EXPECT(api, "KILN_ERR_NOT_FOUND", "kiln_session_value_copy", PTR(session), PTR("image"),
           PTR(kept), SZ(sizeof kept), PTR(NULL));
}

/* Binds the sample three ways (borrowed by name, copied by index, as a
 * value handle) and checks the class each time; checks the outputs. */
static void session_functions(ffi_api *api, abi_handles *live, const char *sample_path,
                              float *sample_out)
{
    void *session = live->session, *input = NULL;
    int32_t dtype = 0, rank = 0;
    int64_t dims[MAX_RANK];
    const void *data = NULL;
    size_t nbytes = 0, size = 0;
    float logits[CLASSES];

    EXPECT(api, "KILN_ERR_STATE", "kiln_session_run", PTR(session));
    EXPECT(api, "KILN_ERR_STATE", "kiln_session_value_count", PTR(session), PTR(&rank));
    /* device memory on a cpu session: refused, naming the option */
    const int64_t image[4] = {1, 1, 8, 8};
    void *stream = NULL;
    EXPECT(api, "KILN_ERR_UNSUPPORTED", "kiln_session_set_input_device", PTR(session),
           PTR("image"), I32(K("KILN_DTYPE_FLOAT")), PTR(image), I32(4), PTR((void *)1),
           SZ(64 * sizeof(float)));
    EXPECT(api, "KILN_ERR_UNSUPPORTED", "kiln_session_bind_output_device", PTR(session), I32(0),
           PTR((void *)1), SZ(CLASSES * sizeof(float)));
    EXPECT(api, "KILN_ERR_UNSUPPORTED", "kiln_session_device_stream", PTR(session), PTR(&stream));
    EXPECT(api, "KILN_ERR_STATE", "kiln_session_output_info", PTR(session), I32(0), PTR(&dtype),
           PTR(dims), I32(MAX_RANK), PTR(&rank));
    void *bytes = read_file(sample_path, &size);
    if (!bytes || !OK("kiln_tensor_decode", PTR(bytes), SZ(size), PTR(&input))) {
        free(bytes);
        return;
    }
    free(bytes);
    live->tensor = input;
    OK("kiln_tensor_info", PTR(input), PTR(&dtype), PTR(dims), I32(MAX_RANK), PTR(&rank));
    OK("kiln_tensor_data", PTR(input), PTR(&data), PTR(&nbytes));
    CHECK(dtype == K("KILN_DTYPE_FLOAT") && rank == 4 && nbytes == 64 * sizeof(float),
          "sample: dtype %d rank %d, %zu bytes", dtype, rank, nbytes);
    if (nbytes != 64 * sizeof(float))
        return;
    memcpy(sample_out, data, nbytes);

    const int32_t F = K("KILN_DTYPE_FLOAT"), COPY = K("KILN_INPUT_COPY");
    int64_t narrow[4] = {1, 1, 8, 4};
    EXPECT(api, "KILN_ERR_NOT_FOUND", "kiln_session_set_input", PTR(session), PTR("no such"),
           I32(F), PTR(dims), I32(rank), PTR(data), SZ(nbytes), I32(0));
    EXPECT(api, "KILN_ERR_DTYPE", "kiln_session_set_input", PTR(session), PTR("image"),
           I32(K("KILN_DTYPE_INT32")), PTR(dims), I32(rank), PTR(data), SZ(nbytes), I32(0));
    EXPECT(api, "KILN_ERR_SHAPE", "kiln_session_set_input", PTR(session), PTR("image"), I32(F),
           PTR(narrow), I32(4), PTR(data), SZ(nbytes / 2), I32(0));
    EXPECT(api, "KILN_ERR_INVALID_ARGUMENT", "kiln_session_set_input", PTR(session),
           PTR("image"), I32(F), PTR(dims), I32(rank), PTR(data), SZ(nbytes - 1), I32(0));

    /* Borrowed, by name. */
    OK("kiln_session_set_input", PTR(session), PTR("image"), I32(F), PTR(dims), I32(rank),
       PTR(data), SZ(nbytes), I32(0));
    int predicted = run_and_classify(api, session);
    CHECK(predicted == SAMPLE_LABEL, "predicted %d, label %d", predicted, SAMPLE_LABEL);

    int32_t out_dtype = 0;
    int64_t out_dims[MAX_RANK];
    OK("kiln_session_output_info", PTR(session), I32(0), PTR(&out_dtype), PTR(out_dims),
       I32(MAX_RANK), PTR(&rank));
    CHECK(out_dtype == F && rank == 2 && out_dims[0] == 1 && out_dims[1] == CLASSES,
          "output info: dtype %d rank %d", out_dtype, rank);
    size_t needed = 0;
    EXPECT(api, "KILN_ERR_BUFFER_TOO_SMALL", "kiln_session_output_copy", PTR(session), I32(0),
           PTR(NULL), SZ(0), PTR(&needed));
    CHECK(needed == sizeof logits, "output needs %zu bytes", needed);
    OK("kiln_session_output_copy", PTR(session), I32(0), PTR(logits), SZ(sizeof logits),
       PTR(NULL));
    const void *view = NULL;
    size_t view_bytes = 0;
    OK("kiln_session_output_view", PTR(session), I32(0), PTR(&view), PTR(&view_bytes));
    CHECK(view && view_bytes == sizeof logits && memcmp(view, logits, sizeof logits) == 0,
          "output view differs from the copy");

    /* Copied, by index: the buffer is freed before the run. */
    float *copy = malloc(nbytes);
    if (copy) {
        memcpy(copy, data, nbytes);
        OK("kiln_session_set_input_at", PTR(session), I32(0), I32(F), PTR(dims), I32(4),
           PTR(copy), SZ(nbytes), I32(COPY));
        free(copy);
        predicted = run_and_classify(api, session);
        CHECK(predicted == SAMPLE_LABEL, "copied input: predicted %d", predicted);
    }
    OK("kiln_session_cancel", PTR(session)); /* nothing in flight: later runs unaffected */
    predicted = run_and_classify(api, session);
    CHECK(predicted == SAMPLE_LABEL, "after cancel: predicted %d", predicted);

    /* As a value handle. */
    OK("kiln_session_set_input_value", PTR(session), I32(0), PTR(input));
    EXPECT(api, "KILN_ERR_INVALID_ARGUMENT", "kiln_session_set_input_value", PTR(session),
           I32(0), PTR(NULL));
    predicted = run_and_classify(api, session);
    CHECK(predicted == SAMPLE_LABEL, "value input: predicted %d", predicted);
    value_functions(api, session, logits);

    int64_t arena = -1, intermediate = -1;
    OK("kiln_session_plan_bytes", PTR(session), PTR(&arena), PTR(&intermediate));
    CHECK(arena > 0 && intermediate > 0, "plan: arena %lld, intermediates %lld",
          (long long)arena, (long long)intermediate);
    int32_t kept = -1;
    int64_t built = -1, shared = -1;
    OK("kiln_session_cache_info", PTR(session), PTR(&kept), PTR(&built), PTR(&shared));
    CHECK(kept == 1 && built == 1 && shared >= arena, "plan cache: %d kept, %lld built, "
          "%lld-byte arena", (int)kept, (long long)built, (long long)shared);

    void *output = NULL;
    if (OK("kiln_session_output_value", PTR(session), I32(0), PTR(&output))) {
        int32_t kind = -1;
        OK("kiln_tensor_kind", PTR(output), PTR(&kind));
        OK("kiln_tensor_data", PTR(output), PTR(&data), PTR(&nbytes));
        CHECK(kind == K("KILN_KIND_TENSOR") && nbytes == sizeof logits &&
                  memcmp(data, logits, nbytes) == 0,
              "output value: kind %d, %zu bytes", kind, nbytes);
        check_string(api, "kiln_tensor_name", output, 0, 0, "logits");
        tensor_functions(api, live, logits);
        if (live->sequence)
            EXPECT(api, "KILN_ERR_DTYPE", "kiln_session_set_input_value", PTR(session), I32(0),
                   PTR(live->sequence));
        destroy(api, "kiln_tensor_destroy", output);
    }
}

static void profile_functions(ffi_api *api, void *session)
{
    int32_t count = 0;
    int64_t total_ns = -1, runs = -1;
    OK("kiln_session_profile_count", PTR(session), PTR(&count));
    CHECK(count >= 1, "profile has %d steps", count);
    for (int32_t i = 0; i < count; i++) {
        check_string(api, "kiln_session_profile_name", session, 1, i, NULL);
        check_string(api, "kiln_session_profile_op", session, 1, i, NULL);
        check_string(api, "kiln_session_profile_kernel", session, 1, i, NULL);
        OK("kiln_session_profile_time", PTR(session), I32(i), PTR(&total_ns), PTR(&runs));
        CHECK(runs >= 1 && total_ns >= 0, "step %d: %lld runs, %lld ns", i, (long long)runs,
              (long long)total_ns);
    }
    OK("kiln_session_profile_reset", PTR(session));
    OK("kiln_session_profile_time", PTR(session), I32(0), PTR(&total_ns), PTR(&runs));
    CHECK(runs == 0 && total_ns == 0, "after reset: %lld runs, %lld ns", (long long)runs,
          (long long)total_ns);
}

static void last_error(ffi_api *api)
{
    EXPECT(api, "KILN_ERR_INVALID_ARGUMENT", "kiln_options_create", PTR(NULL));
    int32_t len = CALL(api, "kiln_last_error", PTR(NULL), I32(0));
    char *msg = len > 0 ? malloc((size_t)len + 1) : NULL;
    CHECK(msg, "kiln_last_error length %d after a failure", len);
    if (!msg)
        return;
    int32_t again = CALL(api, "kiln_last_error", PTR(msg), I32(len + 1));
    CHECK(again == len && strlen(msg) == (size_t)len, "message \"%s\"", msg);
    free(msg);
}

void abi_run_sequence(ffi_api *api, const char *source_dir)
{
    char model_path[4096], sample_path[4096];
    snprintf(model_path, sizeof model_path, "%s/examples/digits/digits.onnx", source_dir);
    snprintf(sample_path, sizeof sample_path, "%s/%s", source_dir, SAMPLE);
    abi_handles live = {0};
    float sample[64];

    library_functions(api);
    last_error(api);
    if (!OK("kiln_options_create", PTR(&live.options)))
        return;
    options_functions(api, live.options);
    if (OK("kiln_runtime_create", PTR(live.options), PTR(&live.runtime))) {
        load_variants(api, live.runtime, model_path);
        if (OK("kiln_model_load_file", PTR(live.runtime), PTR(model_path), PTR(live.options),
               PTR(&live.model))) {
            model_queries(api, live.model);
            if (OK("kiln_session_create", PTR(live.model), PTR(live.options),
                   PTR(&live.session))) {
                session_functions(api, &live, sample_path, sample);
                if (live.tensor) {
                    profile_functions(api, live.session);
                    image_functions(api, live.session, sample, SAMPLE_LABEL);
                    calibrator_functions(api, &live, model_path, sample);
                }
                abi_check_bad_indices(api, &live);
                int32_t kept = -1;
                OK("kiln_session_release_memory", PTR(live.session));
                OK("kiln_session_cache_info", PTR(live.session), PTR(&kept), PTR(NULL), PTR(NULL));
                CHECK(kept == 0, "after release_memory %d plans are kept", (int)kept);
            }
        }
    }
    destroy(api, "kiln_calibrator_destroy", live.calibrator);
    destroy(api, "kiln_tensor_destroy", live.sequence);
    destroy(api, "kiln_tensor_destroy", live.strings);
    destroy(api, "kiln_tensor_destroy", live.tensor);
    destroy(api, "kiln_session_destroy", live.session);
    destroy(api, "kiln_model_destroy", live.model);
    destroy(api, "kiln_runtime_destroy", live.runtime);
    destroy(api, "kiln_options_destroy", live.options);
}
