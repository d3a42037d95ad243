/* Generic bad-argument calls, derived from the spec's roles: no function
 * may crash, and each must answer the documented status. */
#include <stdlib.h>
#include <string.h>

#include "abi_check.h"

#define SCRATCH_BYTES 4096

/* Room for any output a call might write with the capacities below. */
typedef struct {
    _Alignas(16) unsigned char bytes[SCRATCH_BYTES];
} scratch_buffer;

typedef struct {
    void *handle_out;
    scratch_buffer *buffer;
} scratch;

/* The value for argument `a` when the call should fail only because of the
 * handle (NULL) or the index (`index`): every other argument is valid. */
static ffi_value valid_value(const kiln_api_arg *a, scratch *s, void *handle, int32_t index)
{
    const char *r = a->role;
    if (strcmp(r, "handle") == 0)
        return PTR(handle);
    if (strcmp(r, "handle_out") == 0)
        return PTR(&s->handle_out);
    if (strcmp(r, "cstring") == 0)
        return PTR("x");
    if (strcmp(a->type, "int32_t") == 0) {
        if (strcmp(a->name, "index") == 0)
            return I32(index);
        if (strcmp(r, "rank") == 0)
            return I32(1);
        return I32(strcmp(r, "strcap") == 0 || strcmp(r, "dims_cap") == 0 ? 64 : 1);
    }
    if (strcmp(a->type, "size_t") == 0)
        return SZ(64);
    return PTR(s->buffer->bytes); /* every pointer role: in or out, 4 KiB of zeros */
}

/* The live handle of the argument's type; for the tensor functions whose
 * index addresses elements, a handle of the kind they index into. */
static void *handle_for(const kiln_api_function *f, const kiln_api_arg *a,
                        const abi_handles *live)
{
    if (strcmp(f->name, "kiln_tensor_string") == 0)
        return live->strings;
    if (strcmp(f->name, "kiln_tensor_element") == 0)
        return live->sequence;
    if (strstr(a->type, "kiln_calibrator"))
        return live->calibrator;
    if (strstr(a->type, "kiln_options"))
        return live->options;
    if (strstr(a->type, "kiln_runtime"))
        return live->runtime;
    if (strstr(a->type, "kiln_model"))
        return live->model;
    if (strstr(a->type, "kiln_session"))
        return live->session;
    return live->tensor;
}

static int takes_required_handle(const kiln_api_function *f)
{
    for (int i = 0; i < f->n_args; i++)
        if (strcmp(f->args[i].role, "handle") == 0 && !f->args[i].nullable)
            return 1;
    return 0;
}

static void all_null(ffi_api *api, const kiln_api_function *f)
{
    ffi_value values[KILN_API_TABLE_MAX_ARGS];
    for (int i = 0; i < f->n_args; i++) {
        const char *t = f->args[i].type;
        values[i] = strcmp(t, "int32_t") == 0 ? I32(0) : strcmp(t, "size_t") == 0 ? SZ(0)
                                                                                 : PTR(NULL);
    }
    int32_t rc = ABI_CALL_FAILED;
    const char *text = NULL;
    if (strcmp(f->result, "static_string") == 0) {
        CHECK(ffi_api_call(api, f->name, values, f->n_args, NULL, &text) == 0, "%s", f->name);
        CHECK(text && text[0], "%s returned no text", f->name);
    } else if (strcmp(f->result, "none") == 0) {
        CHECK(ffi_api_call(api, f->name, values, f->n_args, NULL, NULL) == 0, "%s", f->name);
    } else if (strcmp(f->result, "value") == 0) {
        CHECK(ffi_api_call(api, f->name, values, f->n_args, &rc, NULL) == 0, "%s", f->name);
        if (strcmp(f->name, "kiln_abi_version") == 0)
            CHECK(rc == ffi_api_constant("KILN_ABI_VERSION"),
                  "kiln_abi_version() = %d, the spec's KILN_ABI_VERSION = %d", rc,
                  ffi_api_constant("KILN_ABI_VERSION"));
    } else if (strcmp(f->result, "length") == 0) {
        CHECK(ffi_api_call(api, f->name, values, f->n_args, &rc, NULL) == 0 && rc >= 0,
              "%s(NULL, 0) = %d", f->name, rc);
    } else {
        abi_expect(api, __LINE__, "KILN_ERR_INVALID_ARGUMENT", f->name, values, f->n_args);
    }
}

static void null_handle(ffi_api *api, const kiln_api_function *f)
{
    scratch_buffer *buffer = calloc(1, sizeof *buffer);
    if (!buffer) {
        CHECK(0, "out of memory");
        return;
    }
    scratch s = {NULL, buffer};
    ffi_value values[KILN_API_TABLE_MAX_ARGS];
    for (int i = 0; i < f->n_args; i++)
        values[i] = valid_value(&f->args[i], &s, NULL, 0);
    abi_expect(api, __LINE__, "KILN_ERR_INVALID_ARGUMENT", f->name, values, f->n_args);
    CHECK(s.handle_out == NULL, "%s with a NULL handle still made a new handle", f->name);
    free(buffer);
}

void abi_check_null_arguments(ffi_api *api)
{
    for (int i = 0; i < ffi_api_count(api); i++)
        all_null(api, ffi_api_function(api, i));
    for (int i = 0; i < ffi_api_count(api); i++) {
        const kiln_api_function *f = ffi_api_function(api, i);
        if (strcmp(f->result, "status") == 0 && takes_required_handle(f))
            null_handle(api, f);
    }
}

static int has_index(const kiln_api_function *f)
{
    for (int i = 0; i < f->n_args; i++)
        if (strcmp(f->args[i].name, "index") == 0 && strcmp(f->args[i].role, "scalar") == 0)
            return 1;
    return 0;
}

void abi_check_bad_indices(ffi_api *api, const abi_handles *live)
{
    const int32_t bad[] = {-1, 1000};
    for (int i = 0; i < ffi_api_count(api); i++) {
        const kiln_api_function *f = ffi_api_function(api, i);
        if (strcmp(f->result, "status") != 0 || !has_index(f) || !takes_required_handle(f))
            continue;
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            scratch_buffer *buffer = calloc(1, sizeof *buffer);
            if (!buffer) {
                CHECK(0, "out of memory");
                return;
            }
            scratch s = {NULL, buffer};
            ffi_value values[KILN_API_TABLE_MAX_ARGS];
            for (int a = 0; a < f->n_args; a++)
                values[a] = valid_value(&f->args[a], &s, handle_for(f, &f->args[a], live), bad[b]);
            if (!abi_expect(api, __LINE__, "KILN_ERR_INVALID_ARGUMENT", f->name, values,
                            f->n_args))
                fprintf(stderr, "  (index %d)\n", bad[b]);
            CHECK(s.handle_out == NULL, "%s with index %d still made a new handle", f->name,
                  bad[b]);
            free(buffer);
        }
    }
}
