/* JS value access for the generated Node glue: handle objects, numbers,
 * strings, buffers, KilnError construction and per-call memory. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glue_internal.h"
#include "kiln.h"

/* Marks every handle object this module creates, so a foreign external or a
 * plain object passed where a handle belongs is refused, not dereferenced. */
static const napi_type_tag kn_handle_tag = {0x6b696c6e2d6e6f64ULL, 0x652d68616e646c65ULL};

void *kn_call_alloc(kn_call *c, size_t bytes)
{
    size_t rounded = (bytes + 15u) & ~(size_t)15u;
    if (rounded <= KN_ARENA_BYTES - c->arena_used) {
        void *p = c->arena + c->arena_used;
        c->arena_used += rounded;
        return p;
    }
    if (c->nheap == KN_MAX_HEAP) {
        c->alloc_failed = 1;
        return NULL;
    }
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        c->alloc_failed = 1;
        return NULL;
    }
    c->heap[c->nheap++] = p;
    return p;
}

void kn_call_release(napi_env env, kn_call *c)
{
    for (int i = 0; i < c->nheap; i++) free(c->heap[i]);
    c->nheap = 0;
    for (int i = 0; i < c->nkeep; i++) napi_delete_reference(env, c->keep[i]);
    c->nkeep = 0;
    if (c->message != c->message_inline) free(c->message);
    c->message = NULL;
}

/* ---- errors ---- */

static void env_data_finalize(napi_env env, void *data, void *hint)
{
    (void)hint;
    kn_env_data *d = data;
    if (d->error_class) napi_delete_reference(env, d->error_class);
    free(d);
}

void kn_env_data_init(napi_env env)
{
    kn_env_data *d = calloc(1, sizeof *d);
    if (d && napi_set_instance_data(env, d, env_data_finalize, NULL) != napi_ok) free(d);
}

napi_value kn_env_error_class(napi_env env)
{
    kn_env_data *d = NULL;
    napi_value ctor = NULL;
    if (napi_get_instance_data(env, (void **)&d) != napi_ok || !d || !d->error_class) return NULL;
    if (napi_get_reference_value(env, d->error_class, &ctor) != napi_ok) return NULL;
    return ctor;
}

/* _set_error_class(KilnError): errors are then made with
 * new KilnError(message, code, status). */
napi_value kn_set_error_class(napi_env env, napi_callback_info info)
{
    size_t argc = 1;
    napi_value ctor;
    napi_valuetype type;
    kn_env_data *d = NULL;
    if (napi_get_cb_info(env, info, &argc, &ctor, NULL, NULL) != napi_ok || argc != 1 ||
        napi_typeof(env, ctor, &type) != napi_ok || type != napi_function) {
        napi_throw_type_error(env, NULL, "_set_error_class takes a constructor");
        return NULL;
    }
    if (napi_get_instance_data(env, (void **)&d) != napi_ok || !d) {
        napi_throw_error(env, NULL, "kiln: module state is missing");
        return NULL;
    }
    if (d->error_class) napi_delete_reference(env, d->error_class);
    d->error_class = NULL;
    if (napi_create_reference(env, ctor, 1, &d->error_class) != napi_ok) {
        kn_throw_napi(env, "_set_error_class");
        return NULL;
    }
    return NULL;
}

/* _last_async_ns(): how long the C call of the most recently completed
 * _async call took on its worker thread, in nanoseconds. Read right after
 * an await it is that call's time: completions and their continuations do
 * not interleave. Lets the JS layer see how long runs really take. */
napi_value kn_last_async_ns(napi_env env, napi_callback_info info)
{
    (void)info;
    kn_env_data *d = NULL;
    napi_value v = NULL;
    napi_get_instance_data(env, (void **)&d);
    napi_create_double(env, d ? (double)d->last_async_ns : -1.0, &v);
    return v;
}

void kn_note_async_ns(napi_env env, int64_t ns)
{
    kn_env_data *d = NULL;
    if (napi_get_instance_data(env, (void **)&d) == napi_ok && d) d->last_async_ns = ns;
}

napi_value kn_make_error(napi_env env, int32_t status, const char *message)
{
    const char *name = kiln_status_name(status);
    napi_value msg, code, status_name, err = NULL;
    if (napi_create_string_utf8(env, message ? message : "", NAPI_AUTO_LENGTH, &msg) != napi_ok ||
        napi_create_int32(env, status, &code) != napi_ok ||
        napi_create_string_utf8(env, name ? name : "unknown status", NAPI_AUTO_LENGTH,
                                &status_name) != napi_ok)
        return NULL;
    napi_value ctor = kn_env_error_class(env);
    if (ctor) {
        napi_value argv[3] = {msg, code, status_name};
        if (napi_new_instance(env, ctor, 3, argv, &err) == napi_ok) return err;
        return NULL;
    }
    if (napi_create_error(env, NULL, msg, &err) != napi_ok) return NULL;
    napi_set_named_property(env, err, "code", code);
    napi_set_named_property(env, err, "status", status_name);
    return err;
}

void kn_throw(napi_env env, int32_t status, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending) return;
    napi_value err = kn_make_error(env, status, text);
    if (err)
        napi_throw(env, err);
    else
        napi_throw_error(env, NULL, text);
}

void kn_throw_napi(napi_env env, const char *what)
{
    bool pending = false;
    if (napi_is_exception_pending(env, &pending) == napi_ok && pending) return;
    const napi_extended_error_info *info = NULL;
    napi_get_last_error_info(env, &info);
    kn_throw(env, KILN_ERR_INTERNAL, "%s: Node-API call failed: %s", what,
             info && info->error_message ? info->error_message : "unknown");
}

/* ---- handles ---- */

static void handle_finalize(napi_env env, void *data, void *hint)
{
    (void)env;
    (void)hint;
    free(data);
}

napi_value kn_new_handle(napi_env env, void *ptr, const char *type)
{
    kn_handle *cell = malloc(sizeof *cell);
    napi_value v;
    if (!cell) return NULL;
    cell->ptr = ptr;
    cell->type = type;
    if (napi_create_external(env, cell, handle_finalize, NULL, &v) != napi_ok) {
        free(cell);
        return NULL;
    }
    if (napi_type_tag_object(env, v, &kn_handle_tag) != napi_ok) return NULL;
    return v;
}

/* Returns 0 and sets *cell (NULL for a null nullable handle), or throws. */
int kn_get_handle(napi_env env, napi_value v, const kn_arg *arg, const char *fn,
                  kn_handle **cell)
{
    napi_valuetype type;
    bool tagged = false;
    *cell = NULL;
    if (napi_typeof(env, v, &type) != napi_ok) return -1;
    if (type == napi_null || type == napi_undefined) {
        if (arg->flags & KN_ARG_NULLABLE) return 0;
        kn_throw(env, KILN_ERR_INVALID_ARGUMENT, "%s: argument '%s' must be a %s handle, not %s",
                 fn, arg->name, arg->handle, type == napi_null ? "null" : "undefined");
        return -1;
    }
    if (type != napi_external || napi_check_object_type_tag(env, v, &kn_handle_tag, &tagged) !=
                                     napi_ok || !tagged ||
        napi_get_value_external(env, v, (void **)cell) != napi_ok) {
        kn_throw(env, KILN_ERR_INVALID_ARGUMENT, "%s: argument '%s' must be a %s handle", fn,
                 arg->name, arg->handle);
        return -1;
    }
    if (strcmp((*cell)->type, arg->handle) != 0) {
        kn_throw(env, KILN_ERR_INVALID_ARGUMENT, "%s: argument '%s' must be a %s handle, not a %s",
                 fn, arg->name, arg->handle, (*cell)->type);
        return -1;
    }
    if (!(*cell)->ptr) {
        kn_throw(env, KILN_ERR_INVALID_ARGUMENT, "%s: argument '%s': the %s was already destroyed",
                 fn, arg->name, arg->handle);
        return -1;
    }
    return 0;
}

/* ---- numbers and strings ---- */

static int get_integer(napi_env env, napi_value v, const char *fn, const char *name, double lo,
                       double hi, double *out)
{
    if (napi_get_value_double(env, v, out) != napi_ok || !(*out >= lo && *out <= hi) ||
        floor(*out) != *out) {
        kn_throw(env, KILN_ERR_INVALID_ARGUMENT, "%s: argument '%s' must be an integer in [%.0f, %.0f]",
                 fn, name, lo, hi);
        return -1;
    }
    return 0;
}

int kn_get_i32(napi_env env, napi_value v, const char *fn, const char *name, int32_t *out)
{
    double d;
    if (get_integer(env, v, fn, name, (double)INT32_MIN, (double)INT32_MAX, &d)) return -1;
    *out = (int32_t)d;
    return 0;
}

int kn_get_size(napi_env env, napi_value v, const char *fn, const char *name, size_t *out)
{
    double d;
    if (get_integer(env, v, fn, name, 0.0, 9007199254740991.0, &d)) return -1;
    *out = (size_t)d;
    return 0;
}

int kn_get_string(napi_env env, kn_call *c, napi_value v, const char *fn, const char *name,
                  char **out)
{
    size_t len = 0;
    if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) {
        kn_throw(env, KILN_ERR_INVALID_ARGUMENT, "%s: argument '%s' must be a string", fn, name);
        return -1;
    }
    char *buf = kn_call_alloc(c, len + 1);
    if (!buf) {
        kn_throw(env, KILN_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
        return -1;
    }
    if (napi_get_value_string_utf8(env, v, buf, len + 1, &len) != napi_ok) {
        kn_throw_napi(env, fn);
        return -1;
    }
    if (strlen(buf) != len) { /* C would silently see a shorter string */
        kn_throw(env, KILN_ERR_INVALID_ARGUMENT, "%s: argument '%s' contains a NUL character", fn,
                 name);
        return -1;
    }
    *out = buf;
    return 0;
}

/* ---- buffers ---- */

int kn_get_bytes(napi_env env, napi_value v, void **data, size_t *nbytes, int *kind_out)
{
    bool is = false;
    *kind_out = -1;
    if (napi_is_typedarray(env, v, &is) == napi_ok && is) {
        napi_typedarray_type kind;
        size_t length, offset;
        napi_value ab;
        if (napi_get_typedarray_info(env, v, &kind, &length, data, &ab, &offset) != napi_ok)
            return -1;
        static const size_t widths[] = {[napi_int8_array] = 1, [napi_uint8_array] = 1,
                                        [napi_uint8_clamped_array] = 1, [napi_int16_array] = 2,
                                        [napi_uint16_array] = 2, [napi_int32_array] = 4,
                                        [napi_uint32_array] = 4, [napi_float32_array] = 4,
                                        [napi_float64_array] = 8, [napi_bigint64_array] = 8,
                                        [napi_biguint64_array] = 8};
        if ((size_t)kind >= sizeof widths / sizeof widths[0]) return -1;
        *nbytes = length * widths[kind];
        *kind_out = (int)kind;
        return 0;
    }
    if (napi_is_dataview(env, v, &is) == napi_ok && is) {
        napi_value ab;
        size_t offset;
        return napi_get_dataview_info(env, v, nbytes, data, &ab, &offset) == napi_ok ? 0 : -1;
    }
    if (napi_is_arraybuffer(env, v, &is) == napi_ok && is)
        return napi_get_arraybuffer_info(env, v, data, nbytes) == napi_ok ? 0 : -1;
    return -1;
}
