/* Helpers over the public API (see api.h). */
#include "api.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void format_error(int32_t status, char *buf, size_t cap)
{
    char message[1024];
    message[0] = '\0';
    kiln_last_error(message, (int32_t)sizeof message);
    const char *name = kiln_status_name(status);
    if (message[0])
        snprintf(buf, cap, "%s: %s", name ? name : "error", message);
    else
        snprintf(buf, cap, "%s", name ? name : "error");
}

void report_error(const char *what, const char *subject, int32_t status)
{
    char message[1200];
    format_error(status, message, sizeof message);
    if (subject)
        cli_error("%s %s: %s", what, subject, message);
    else
        cli_error("%s: %s", what, message);
}

void shape_free(shape *s)
{
    free(s->dims);
    s->dims = NULL;
    s->rank = -1;
}

int64_t shape_elements(const shape *s)
{
    if (s->rank < 0)
        return -1;
    int64_t n = 1;
    for (int32_t i = 0; i < s->rank; i++) {
        if (s->dims[i] < 0)
            return -1;
        n *= s->dims[i];
    }
    return n;
}

/* ---- strings: the two-call pattern, trying a stack buffer first ---- */

typedef int32_t (*indexed_string_fn)(const kiln_model *, int32_t, char *, int32_t, int32_t *);

static char *indexed_string(indexed_string_fn fn, const kiln_model *model, int32_t index,
                            int32_t *status_out)
{
    char small[256];
    int32_t needed = 0;
    int32_t status = fn(model, index, small, (int32_t)sizeof small, &needed);
    char *result = NULL;
    if (status == KILN_OK) {
        result = strdup(small);
    } else if (status == KILN_ERR_BUFFER_TOO_SMALL && needed > 0) {
        result = malloc((size_t)needed);
        if (result) {
            status = fn(model, index, result, needed, &needed);
            if (status != KILN_OK) {
                free(result);
                result = NULL;
            }
        }
    }
    if (status == KILN_OK && !result)
        status = KILN_ERR_OUT_OF_MEMORY;
    if (status_out)
        *status_out = status;
    return result;
}

char *model_input_name(const kiln_model *model, int32_t index, int32_t *status)
{
    return indexed_string(kiln_model_input_name, model, index, status);
}

char *model_output_name(const kiln_model *model, int32_t index, int32_t *status)
{
    return indexed_string(kiln_model_output_name, model, index, status);
}

char *model_node_name(const kiln_model *model, int32_t index, int32_t *status)
{
    return indexed_string(kiln_model_node_name, model, index, status);
}

char *model_node_value(const kiln_model *model, int32_t index, int is_output, int32_t slot,
                       int32_t *status_out)
{
    /* The same two calls as indexed_string, with the slot in between. */
    int32_t (*fn)(const kiln_model *, int32_t, int32_t, char *, int32_t, int32_t *) =
        is_output ? kiln_model_node_output : kiln_model_node_input;
    char small[256];
    int32_t needed = 0;
    int32_t status = fn(model, index, slot, small, (int32_t)sizeof small, &needed);
    char *result = NULL;
    if (status == KILN_OK) {
        result = strdup(small);
    } else if (status == KILN_ERR_BUFFER_TOO_SMALL && needed > 0) {
        result = malloc((size_t)needed);
        if (result && (status = fn(model, index, slot, result, needed, &needed)) != KILN_OK) {
            free(result);
            result = NULL;
        }
    }
    if (status == KILN_OK && !result)
        status = KILN_ERR_OUT_OF_MEMORY;
    if (status_out)
        *status_out = status;
    return result;
}

int32_t model_opset(const kiln_model *model, int32_t index, char **domain, int32_t *version)
{
    char small[256];
    int32_t needed = 0;
    *domain = NULL;
    int32_t status = kiln_model_opset(model, index, small, (int32_t)sizeof small, &needed,
                                      version);
    if (status == KILN_OK) {
        *domain = strdup(small);
    } else if (status == KILN_ERR_BUFFER_TOO_SMALL && needed > 0) {
        *domain = malloc((size_t)needed);
        if (*domain) {
            status = kiln_model_opset(model, index, *domain, needed, &needed, version);
            if (status != KILN_OK) {
                free(*domain);
                *domain = NULL;
            }
        }
    }
    if (status == KILN_OK && !*domain)
        status = KILN_ERR_OUT_OF_MEMORY;
    return status;
}

int32_t model_node_op(const kiln_model *model, int32_t index, char **op, char **domain)
{
    /* One *needed covers both strings, so grow both buffers until they fit. */
    int32_t cap = 128, needed = 0, status = KILN_ERR_OUT_OF_MEMORY;
    *op = NULL;
    *domain = NULL;
    for (int attempt = 0; attempt < 8; attempt++) {
        char *a = malloc((size_t)cap), *b = malloc((size_t)cap);
        if (!a || !b) {
            free(a);
            free(b);
            return KILN_ERR_OUT_OF_MEMORY;
        }
        status = kiln_model_node_op(model, index, a, cap, b, cap, &needed);
        if (status == KILN_OK) {
            *op = a;
            *domain = b;
            return KILN_OK;
        }
        free(a);
        free(b);
        if (status != KILN_ERR_BUFFER_TOO_SMALL)
            return status;
        cap = needed > cap ? needed : cap * 2;
    }
    return status;
}

/* ---- shapes: a stack array first, then exactly the rank reported ---- */

/* The four shape getters differ only in their handle, so one loop serves
 * them all through this small tagged source. */
enum shape_kind { SHAPE_MODEL_INPUT, SHAPE_MODEL_OUTPUT, SHAPE_SESSION_OUTPUT, SHAPE_TENSOR };

typedef struct shape_source {
    enum shape_kind kind;
    const void *handle;
    int32_t index;
    int32_t *dtype;
} shape_source;

static int32_t query_shape(const shape_source *src, int64_t *dims, int32_t cap, int32_t *rank)
{
    switch (src->kind) {
    case SHAPE_MODEL_INPUT:
        return kiln_model_input_shape(src->handle, src->index, dims, cap, rank);
    case SHAPE_MODEL_OUTPUT:
        return kiln_model_output_shape(src->handle, src->index, dims, cap, rank);
    case SHAPE_SESSION_OUTPUT:
        return kiln_session_output_info(src->handle, src->index, src->dtype, dims, cap, rank);
    case SHAPE_TENSOR:
        return kiln_tensor_info(src->handle, src->dtype, dims, cap, rank);
    }
    return KILN_ERR_INTERNAL;
}

static int32_t fetch_shape(const shape_source *src, shape *out)
{
    int64_t small[16];
    int32_t rank = -1;
    out->rank = -1;
    out->dims = NULL;
    int32_t status = query_shape(src, small, 16, &rank);
    int64_t *dims = NULL;
    if (status == KILN_ERR_BUFFER_TOO_SMALL && rank > 16) {
        dims = malloc(sizeof *dims * (size_t)rank);
        if (!dims)
            return KILN_ERR_OUT_OF_MEMORY;
        status = query_shape(src, dims, rank, &rank);
        if (status != KILN_OK) {
            free(dims);
            return status;
        }
    } else if (status != KILN_OK) {
        return status;
    } else {
        /* At least one slot, so dims is never NULL even for a scalar. */
        dims = malloc(sizeof *dims * (size_t)(rank > 0 ? rank : 1));
        if (!dims)
            return KILN_ERR_OUT_OF_MEMORY;
        if (rank > 0)
            memcpy(dims, small, sizeof *dims * (size_t)rank);
    }
    out->rank = rank;
    out->dims = dims;
    return KILN_OK;
}

int32_t model_input_shape(const kiln_model *model, int32_t index, shape *out)
{
    shape_source src = {SHAPE_MODEL_INPUT, model, index, NULL};
    return fetch_shape(&src, out);
}

int32_t model_output_shape(const kiln_model *model, int32_t index, shape *out)
{
    shape_source src = {SHAPE_MODEL_OUTPUT, model, index, NULL};
    return fetch_shape(&src, out);
}

int32_t session_output_shape(const kiln_session *session, int32_t index, int32_t *dtype,
                             shape *out)
{
    shape_source src = {SHAPE_SESSION_OUTPUT, session, index, dtype};
    return fetch_shape(&src, out);
}

int32_t tensor_shape(const kiln_tensor *tensor, int32_t *dtype, shape *out)
{
    shape_source src = {SHAPE_TENSOR, tensor, 0, dtype};
    return fetch_shape(&src, out);
}

char *tensor_name(const kiln_tensor *tensor, int32_t *status_out)
{
    char small[256];
    int32_t needed = 0;
    int32_t status = kiln_tensor_name(tensor, small, (int32_t)sizeof small, &needed);
    char *result = NULL;
    if (status == KILN_OK) {
        result = strdup(small);
    } else if (status == KILN_ERR_BUFFER_TOO_SMALL && needed > 0) {
        result = malloc((size_t)needed);
        if (result && (status = kiln_tensor_name(tensor, result, needed, &needed)) != KILN_OK) {
            free(result);
            result = NULL;
        }
    }
    if (status == KILN_OK && !result)
        status = KILN_ERR_OUT_OF_MEMORY;
    if (status_out)
        *status_out = status;
    return result;
}

/* ---- handles ---- */

kiln_options *make_options(int32_t key, int32_t value)
{
    kiln_options *options = NULL;
    int32_t status = kiln_options_create(&options);
    if (status != KILN_OK) {
        report_error("cannot create options", NULL, status);
        return NULL;
    }
    if (key != 0 && (status = kiln_options_set_int(options, key, value)) != KILN_OK) {
        report_error("cannot set option", NULL, status);
        kiln_options_destroy(options);
        return NULL;
    }
    return options;
}

kiln_runtime *open_runtime(int threads)
{
    kiln_options *options = make_options(KILN_OPT_THREADS, threads);
    if (!options)
        return NULL;
    kiln_runtime *runtime = NULL;
    int32_t status = kiln_runtime_create(options, &runtime);
    kiln_options_destroy(options);
    if (status != KILN_OK) {
        report_error("cannot create runtime", NULL, status);
        return NULL;
    }
    return runtime;
}

int32_t load_model(kiln_runtime *runtime, const char *path, int allow_unsupported,
                   kiln_model **out)
{
    return load_model_optimized(runtime, path, allow_unsupported, -1, out);
}

int32_t load_model_optimized(kiln_runtime *runtime, const char *path, int allow_unsupported,
                             int optimize, kiln_model **out)
{
    kiln_options *options = NULL;
    int32_t status = kiln_options_create(&options);
    if (status == KILN_OK && allow_unsupported)
        status = kiln_options_set_int(options, KILN_OPT_ALLOW_UNSUPPORTED, 1);
    if (status == KILN_OK && optimize >= 0)
        status = kiln_options_set_int(options, KILN_OPT_OPTIMIZE, optimize);
    if (status == KILN_OK)
        status = kiln_model_load_file(runtime, path, options, out);
    kiln_options_destroy(options);
    return status;
}

int32_t encode_tensor(const char *name, int32_t dtype, const shape *s, const void *data,
                      size_t nbytes, void **out, size_t *out_size)
{
    size_t needed = 0;
    char probe;
    *out = NULL;
    int32_t status = kiln_tensor_encode(name, dtype, s->dims, s->rank, data, nbytes, &probe, 0,
                                        &needed);
    if (status != KILN_OK && status != KILN_ERR_BUFFER_TOO_SMALL)
        return status;
    void *buf = malloc(needed ? needed : 1);
    if (!buf)
        return KILN_ERR_OUT_OF_MEMORY;
    status = kiln_tensor_encode(name, dtype, s->dims, s->rank, data, nbytes, buf, needed,
                                &needed);
    if (status != KILN_OK) {
        free(buf);
        return status;
    }
    *out = buf;
    *out_size = needed;
    return KILN_OK;
}

void report_unknown_input(const kiln_model *model, const char *name)
{
    int32_t index = 0;
    char msg[512] = "";
    if (kiln_model_input_index(model, name, &index) != KILN_OK)
        kiln_last_error(msg, sizeof msg);
    cli_error("%s", msg[0] ? msg : "unknown input");
}

int32_t resolve_input(const kiln_model *model, const char *given_name,
                             const kiln_tensor *tensor, int position, int32_t input_count)
{
    int32_t index = -1;
    if (given_name) {
        if (kiln_model_input_index(model, given_name, &index) != KILN_OK) {
            report_unknown_input(model, given_name);
            return -1;
        }
        return index;
    }
    char *own = tensor_name(tensor, NULL);
    int found = own && own[0] && kiln_model_input_index(model, own, &index) == KILN_OK;
    free(own);
    if (found)
        return index;
    if (position >= input_count) {
        cli_error("input file %d has no matching name and the model has only %d "
                  "inputs", position + 1, (int)input_count);
        return -1;
    }
    return position;
}

int32_t create_session_on(kiln_model *model, const char *device, int profile, kiln_session **out)
{
    if (!device)
        return kiln_session_create(model, NULL, out);
    kiln_options *o = NULL;
    int32_t status = kiln_options_create(&o);
    if (status == KILN_OK)
        status = kiln_options_set_string(o, KILN_SOPT_DEVICE, device);
    if (status == KILN_OK && profile)
        status = kiln_options_set_int(o, KILN_OPT_PROFILE, 1);
    if (status == KILN_OK)
        status = kiln_session_create(model, o, out);
    kiln_options_destroy(o);
    return status;
}
