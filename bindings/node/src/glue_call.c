/* One C function call described by a kn_function table entry: JS arguments
 * to C (on the JS thread), the C call with its retries and error capture
 * (on the JS thread, or on a libuv worker for the _async variants), C
 * results back to JS values (on the JS thread). glue_module.c has the entry
 * points. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glue_internal.h"
#include "kiln.h"

/* First capacities of glue-owned out buffers; a call that needs more says so
 * through its needed/rank companion and is repeated with that much. */
#define KN_FIRST_STRBUF 128
#define KN_FIRST_DIMS 6
#define KN_MAX_RETRIES 3

static unsigned char kn_empty_bytes[1]; /* non-NULL address for empty buffers */

static const kn_arg *link_arg(const kn_call *c, const kn_arg *arg, int which)
{
    int i = arg->link[which];
    return i == KN_NO_LINK ? NULL : &c->fn->args[i];
}

static void set_companion(kn_call *c, const kn_arg *arg, int which, size_t value)
{
    int i = arg->link[which];
    if (i == KN_NO_LINK) return;
    if (c->fn->args[i].ctype == KN_CT_SIZE)
        c->a[i].z = value;
    else
        c->a[i].i32 = value > INT32_MAX ? INT32_MAX : (int32_t)value;
}

/* Points an out companion (needed, rank, nbytes) at its storage. */
static void bind_out_companion(kn_call *c, const kn_arg *arg, int which)
{
    int i = arg->link[which];
    if (i != KN_NO_LINK) c->a[i].p = &c->out[i];
}

static int is_nullish(napi_env env, napi_value v)
{
    napi_valuetype t;
    return napi_typeof(env, v, &t) == napi_ok && (t == napi_null || t == napi_undefined);
}

static int keep_alive(napi_env env, kn_call *c, napi_value v)
{
    if (!c->async) return 0;
    if (napi_create_reference(env, v, 1, &c->keep[c->nkeep]) != napi_ok) return -1;
    c->nkeep++;
    return 0;
}

static int grow_out(kn_call *c, int i, size_t elems, size_t width)
{
    void *p = kn_call_alloc(c, elems * width);
    if (!p) return -1;
    c->a[i].p = p;
    c->cap[i] = elems;
    return 0;
}

static int parse_buffer(napi_env env, kn_call *c, const kn_arg *arg, napi_value v, void **data,
                        size_t *nbytes, int *kind)
{
    if (kn_get_bytes(env, v, data, nbytes, kind)) {
        kn_throw(env, KILN_ERR_INVALID_ARGUMENT,
                 "%s: argument '%s' must be a TypedArray, DataView or ArrayBuffer", c->fn->name,
                 arg->name);
        return -1;
    }
    if (!*data || !*nbytes) *data = kn_empty_bytes;
    return keep_alive(env, c, v);
}

static int parse_dims(napi_env env, kn_call *c, const kn_arg *arg, napi_value v, int i)
{
    bool is_array = false;
    uint32_t n = 0;
    if (napi_is_array(env, v, &is_array) != napi_ok || !is_array ||
        napi_get_array_length(env, v, &n) != napi_ok || n > 64) {
        kn_throw(env, KILN_ERR_INVALID_ARGUMENT,
                 "%s: argument '%s' must be an array of at most 64 integers", c->fn->name,
                 arg->name);
        return -1;
    }
    int64_t *dims = kn_call_alloc(c, (n ? n : 1) * sizeof *dims);
    if (!dims) return -1;
    for (uint32_t k = 0; k < n; k++) {
        napi_value e;
        napi_valuetype t;
        bool lossless = true;
        if (napi_get_element(env, v, k, &e) != napi_ok || napi_typeof(env, e, &t) != napi_ok)
            return -1;
        if (t == napi_bigint) {
            if (napi_get_value_bigint_int64(env, e, &dims[k], &lossless) != napi_ok || !lossless)
                goto bad;
        } else {
            double d;
            if (napi_get_value_double(env, e, &d) != napi_ok || d != (double)(int64_t)d ||
                d < -9007199254740991.0 || d > 9007199254740991.0)
                goto bad;
            dims[k] = (int64_t)d;
        }
    }
    c->a[i].p = dims;
    set_companion(c, arg, 0, n);
    return 0;
bad:
    kn_throw(env, KILN_ERR_INVALID_ARGUMENT, "%s: argument '%s' must hold only integers",
             c->fn->name, arg->name);
    return -1;
}

static int parse_floats(napi_env env, kn_call *c, const kn_arg *arg, napi_value v, int i)
{
    if (is_nullish(env, v) && (arg->flags & KN_ARG_NULLABLE)) {
        c->a[i].p = NULL;
        return 0;
    }
    bool is_array = false;
    uint32_t n = 0;
    float *values;
    void *data;
    size_t nbytes;
    int kind;
    if (kn_get_bytes(env, v, &data, &nbytes, &kind) == 0 && kind == napi_float32_array) {
        n = (uint32_t)(nbytes / sizeof(float));
        if (!(values = kn_call_alloc(c, nbytes + sizeof(float)))) return -1;
        if (nbytes) memcpy(values, data, nbytes);
    } else if (napi_is_array(env, v, &is_array) == napi_ok && is_array &&
               napi_get_array_length(env, v, &n) == napi_ok && n <= 4096) {
        if (!(values = kn_call_alloc(c, (n + 1) * sizeof(float)))) return -1;
        for (uint32_t k = 0; k < n; k++) {
            napi_value e;
            double d;
            if (napi_get_element(env, v, k, &e) != napi_ok ||
                napi_get_value_double(env, e, &d) != napi_ok) {
                kn_throw(env, KILN_ERR_INVALID_ARGUMENT, "%s: argument '%s' must hold numbers",
                         c->fn->name, arg->name);
                return -1;
            }
            values[k] = (float)d;
        }
    } else {
        kn_throw(env, KILN_ERR_INVALID_ARGUMENT, "%s: argument '%s' must be a Float32Array or an "
                 "array of numbers%s", c->fn->name, arg->name,
                 (arg->flags & KN_ARG_NULLABLE) ? " or null" : "");
        return -1;
    }
    c->a[i].p = values;
    c->cap[i] = n; /* checked against the count argument once all are parsed */
    return 0;
}

/* Checks that need several arguments: a floats_in length against its count,
 * pixels against width/height/stride/channels (C cannot see the buffer
 * length, so a short buffer would be read past its end). */
static int check_lengths(napi_env env, kn_call *c, const size_t *buffer_bytes)
{
    for (int i = 0; i < c->fn->nargs; i++) {
        const kn_arg *arg = &c->fn->args[i];
        if (arg->role == KN_ROLE_FLOATS_IN && c->a[i].p) {
            const kn_arg *count = link_arg(c, arg, 0);
            int32_t want = c->a[arg->link[0]].i32;
            if (want >= 0 && c->cap[i] != (size_t)want) {
                kn_throw(env, KILN_ERR_INVALID_ARGUMENT, "%s: argument '%s' has %zu values; %s "
                         "is %d", c->fn->name, arg->name, c->cap[i], count->name, want);
                return -1;
            }
        } else if (arg->role == KN_ROLE_PIXELS_IN) {
            int64_t w = c->a[arg->link[0]].i32, h = c->a[arg->link[1]].i32;
            int64_t stride = c->a[arg->link[2]].i32, ch = c->a[arg->link[3]].i32;
            /* Sizes C rejects itself are passed on for its message. */
            if (w > 0 && h > 0 && ch > 0 && stride >= w * ch &&
                (uint64_t)((h - 1) * stride + w * ch) > buffer_bytes[i]) {
                kn_throw(env, KILN_ERR_INVALID_ARGUMENT, "%s: argument '%s' holds %zu bytes; "
                         "%lld rows of stride %lld need %lld", c->fn->name, arg->name,
                         buffer_bytes[i], (long long)h, (long long)stride,
                         (long long)((h - 1) * stride + w * ch));
                return -1;
            }
        }
    }
    return 0;
}

/* JS arguments to C arguments; returns 0, or -1 with an exception pending. */
int kn_parse_args(napi_env env, napi_callback_info info, kn_call *c)
{
    napi_value argv[KN_MAX_ARGS];
    size_t argc = KN_MAX_ARGS, next = 0;
    size_t buffer_bytes[KN_MAX_ARGS] = {0};
    napi_value undefined;
    if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok ||
        napi_get_undefined(env, &undefined) != napi_ok) {
        kn_throw_napi(env, c->fn->name);
        return -1;
    }
    const char *fn = c->fn->name;
    for (int i = 0; i < c->fn->nargs; i++) {
        const kn_arg *arg = &c->fn->args[i];
        int from_js = arg->role == KN_ROLE_HANDLE || arg->role == KN_ROLE_SCALAR ||
                      arg->role == KN_ROLE_CSTRING || arg->role == KN_ROLE_DIMS_IN ||
                      arg->role == KN_ROLE_BYTES_IN || arg->role == KN_ROLE_BYTES_OUT ||
                      arg->role == KN_ROLE_FLOATS_IN || arg->role == KN_ROLE_FLOATS_OUT ||
                      arg->role == KN_ROLE_PIXELS_IN || arg->role == KN_ROLE_DEVICE_PTR;
        napi_value v = undefined;
        if (from_js && next < argc) v = argv[next];
        if (from_js) next++;
        void *data;
        size_t nbytes;
        int kind;
        switch ((enum kn_role)arg->role) {
        case KN_ROLE_HANDLE: {
            kn_handle *cell;
            if (kn_get_handle(env, v, arg, fn, &cell)) return -1;
            c->a[i].p = cell ? cell->ptr : NULL;
            if (cell && keep_alive(env, c, v)) return -1;
            if (c->fn->destroy && i == 0) c->destroyed = cell;
            break;
        }
        case KN_ROLE_SCALAR:
            if (arg->ctype == KN_CT_SIZE ? kn_get_size(env, v, fn, arg->name, &c->a[i].z)
                                         : kn_get_i32(env, v, fn, arg->name, &c->a[i].i32))
                return -1;
            break;
        case KN_ROLE_CSTRING: {
            if (is_nullish(env, v) && (arg->flags & KN_ARG_NULLABLE))
                c->a[i].p = NULL;
            else if (kn_get_string(env, c, v, fn, arg->name, (char **)&c->a[i].p))
                return -1;
            break;
        }
        case KN_ROLE_DIMS_IN:
            if (parse_dims(env, c, arg, v, i)) return -1;
            break;
        case KN_ROLE_BYTES_OUT:
            bind_out_companion(c, arg, 1); /* needed */
            if (is_nullish(env, v)) { /* the glue sizes it: two calls */
                c->glue_owned |= 1u << i;
                c->a[i].p = kn_empty_bytes;
                set_companion(c, arg, 0, 0);
                break;
            } /* else a caller buffer: */
            /* fall through */
        case KN_ROLE_BYTES_IN:
        case KN_ROLE_PIXELS_IN:
            if (parse_buffer(env, c, arg, v, &data, &nbytes, &kind)) return -1;
            if (arg->role == KN_ROLE_PIXELS_IN && kind != napi_uint8_array &&
                kind != napi_uint8_clamped_array) {
                kn_throw(env, KILN_ERR_INVALID_ARGUMENT,
                         "%s: argument '%s' must be a Uint8Array or Uint8ClampedArray", fn,
                         arg->name);
                return -1;
            }
            c->a[i].p = data;
            buffer_bytes[i] = nbytes;
            set_companion(c, arg, 0, nbytes); /* size / cap */
            break;
        case KN_ROLE_FLOATS_IN:
            if (parse_floats(env, c, arg, v, i)) return -1;
            break;
        case KN_ROLE_FLOATS_OUT:
            if (parse_buffer(env, c, arg, v, &data, &nbytes, &kind)) return -1;
            if (kind != napi_float32_array) {
                kn_throw(env, KILN_ERR_INVALID_ARGUMENT, "%s: argument '%s' must be a "
                         "Float32Array", fn, arg->name);
                return -1;
            }
            c->a[i].p = data;
            set_companion(c, arg, 0, nbytes);
            break;
        case KN_ROLE_HANDLE_OUT:
        case KN_ROLE_SCALAR_OUT:
            c->a[i].p = &c->out[i];
            break;
            case KN_ROLE_STRBUF:
            c->glue_owned |= 1u << i;
            if (grow_out(c, i, KN_FIRST_STRBUF, 1)) goto oom;
            set_companion(c, arg, 0, KN_FIRST_STRBUF);
            bind_out_companion(c, arg, 1);
            break;
        case KN_ROLE_DIMS_OUT:
            c->glue_owned |= 1u << i;
            if (grow_out(c, i, KN_FIRST_DIMS, sizeof(int64_t))) goto oom;
            set_companion(c, arg, 0, KN_FIRST_DIMS);
            bind_out_companion(c, arg, 1);
            break;
        case KN_ROLE_VIEW_OUT:
            c->a[i].p = &c->out[i];
            bind_out_companion(c, arg, 0);
            break;
        case KN_ROLE_COMPANION:
            break; /* filled in by its primary argument */
        case KN_ROLE_DEVICE_PTR: {
            uint64_t address = 0;
            bool lossless = true;
            if (is_nullish(env, v) && (arg->flags & KN_ARG_NULLABLE)) {
                c->a[i].p = NULL;
                break;
            }
            if (napi_get_value_bigint_uint64(env, v, &address, &lossless) != napi_ok ||
                !lossless) {
                kn_throw(env, KILN_ERR_INVALID_ARGUMENT, "%s: argument '%s' must be a device "
                         "address (a BigInt)", fn, arg->name);
                return -1;
            }
            c->a[i].p = (void *)(uintptr_t)address;
            break;
        }
        case KN_ROLE_DEVICE_PTR_OUT:
            c->a[i].p = &c->out[i];
            break;
        }
    }
    return check_lengths(env, c, buffer_bytes);
oom:
    kn_throw(env, KILN_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
    return -1;
}

/* How many elements glue-owned out buffer i needs after a call; 0 if it
 * cannot tell (it then keeps what it has). */
static size_t needed_elems(const kn_call *c, int i)
{
    const kn_arg *arg = &c->fn->args[i];
    int k = arg->link[1];
    if (arg->role == KN_ROLE_STRBUF) {
        if (k != KN_NO_LINK) return c->out[k].i32 > 0 ? (size_t)c->out[k].i32 : 0;
        if (c->fn->result == KN_RESULT_LENGTH && c->r.i32 >= 0) return (size_t)c->r.i32 + 1;
    } else if (arg->role == KN_ROLE_DIMS_OUT && k != KN_NO_LINK) {
        return c->out[k].i32 > 0 ? (size_t)c->out[k].i32 : 0;
    } else if (arg->role == KN_ROLE_BYTES_OUT && k != KN_NO_LINK) {
        return c->out[k].z;
    }
    return 0;
}

/* The C call, repeated while a glue-owned buffer was too small. Makes no
 * N-API calls: it also runs on libuv worker threads. */
void kn_execute(kn_call *c)
{
    for (int attempt = 0; attempt <= KN_MAX_RETRIES; attempt++) {
        c->fn->call(c->a, &c->r);
        c->status = c->fn->result == KN_RESULT_STATUS ? c->r.i32 : KILN_OK;
        if (c->status != KILN_OK && c->status != KILN_ERR_BUFFER_TOO_SMALL) break;
        int grew = 0;
        for (int i = 0; i < c->fn->nargs; i++) {
            const kn_arg *arg = &c->fn->args[i];
            if (!(c->glue_owned & (1u << i))) continue;
            size_t want = needed_elems(c, i);
            if (want <= c->cap[i]) continue;
            size_t width = arg->role == KN_ROLE_DIMS_OUT ? sizeof(int64_t) : 1;
            if (grow_out(c, i, want, width)) {
                c->status = KILN_ERR_OUT_OF_MEMORY;
                c->message = c->message_inline;
                snprintf(c->message, KN_MESSAGE_INLINE, "%s: out of memory", c->fn->name);
                return;
            }
            set_companion(c, arg, 0, want);
            grew = 1;
        }
        if (!grew) break;
    }
    if (c->status != KILN_OK) {
        int32_t len = kiln_last_error(c->message_inline, KN_MESSAGE_INLINE);
        c->message = c->message_inline;
        if (len >= KN_MESSAGE_INLINE) {
            char *big = malloc((size_t)len + 1);
            if (big) {
                kiln_last_error(big, len + 1);
                c->message = big;
            }
        }
    }
}

/* One returned value of argument i, or NULL (with an exception pending) on
 * failure. */
static napi_value result_value(napi_env env, kn_call *c, int i)
{
    const kn_arg *arg = &c->fn->args[i];
    napi_value v = NULL;
    napi_status st = napi_ok;
    switch ((enum kn_role)arg->role) {
    case KN_ROLE_HANDLE_OUT:
        v = kn_new_handle(env, c->out[i].p, arg->handle);
        break;
    case KN_ROLE_DEVICE_PTR_OUT:
        st = napi_create_bigint_uint64(env, (uint64_t)(uintptr_t)c->out[i].p, &v);
        break;
    case KN_ROLE_SCALAR_OUT:
        if (arg->flags & KN_ARG_BOOLEAN)
            st = napi_get_boolean(env, c->out[i].i32 != 0, &v);
        else if (arg->ctype == KN_CT_I64)
            st = napi_create_int64(env, c->out[i].i64, &v);
        else
            st = napi_create_int32(env, c->out[i].i32, &v);
        break;
    case KN_ROLE_STRBUF: {
        const char *text = c->a[i].p;
        size_t len = needed_elems(c, i);
        len = len ? len - 1 : strlen(text);
        if (len >= c->cap[i]) len = c->cap[i] ? c->cap[i] - 1 : 0;
        if (arg->flags & KN_ARG_BINARY) {
            void *bytes;
            napi_value ab;
            st = napi_create_arraybuffer(env, len, &bytes, &ab);
            if (st == napi_ok) {
                if (len) memcpy(bytes, text, len);
                st = napi_create_typedarray(env, napi_uint8_array, len, ab, 0, &v);
            }
        } else {
            st = napi_create_string_utf8(env, text, len, &v);
        }
        break;
    }
    case KN_ROLE_DIMS_OUT: {
        int32_t rank = c->out[arg->link[1]].i32;
        if (rank < 0) {
            st = napi_get_null(env, &v);
            break;
        }
        const int64_t *dims = c->a[i].p;
        st = napi_create_array_with_length(env, (size_t)rank, &v);
        for (int32_t k = 0; st == napi_ok && k < rank; k++) {
            napi_value e;
            st = napi_create_int64(env, dims[k], &e);
            if (st == napi_ok) st = napi_set_element(env, v, (uint32_t)k, e);
        }
        break;
    }
    case KN_ROLE_VIEW_OUT: { /* copied: no external buffers (Electron forbids them) */
        size_t n = c->out[arg->link[0]].z;
        void *bytes;
        st = napi_create_arraybuffer(env, n, &bytes, &v);
        if (st == napi_ok && n) memcpy(bytes, c->out[i].view, n);
        break;
    }
    case KN_ROLE_BYTES_OUT: {
        size_t n = c->out[arg->link[1]].z;
        if (!(c->glue_owned & (1u << i))) { /* the caller's buffer: say how much it took */
            st = napi_create_double(env, (double)n, &v);
            break;
        }
        void *bytes;
        napi_value ab;
        if (n > c->cap[i]) n = c->cap[i];
        st = napi_create_arraybuffer(env, n, &bytes, &ab);
        if (st == napi_ok && n) memcpy(bytes, c->a[i].p, n);
        if (st == napi_ok) st = napi_create_typedarray(env, napi_uint8_array, n, ab, 0, &v);
        break;
    }
    default:
        return NULL;
    }
    if (st != napi_ok || !v) {
        kn_throw_napi(env, c->fn->name);
        return NULL;
    }
    return v;
}

static int is_returned(const kn_arg *arg)
{
    return arg->role == KN_ROLE_HANDLE_OUT || arg->role == KN_ROLE_SCALAR_OUT ||
           arg->role == KN_ROLE_DEVICE_PTR_OUT ||
           arg->role == KN_ROLE_STRBUF || arg->role == KN_ROLE_DIMS_OUT ||
           arg->role == KN_ROLE_VIEW_OUT || arg->role == KN_ROLE_BYTES_OUT;
}

/* What the JS function returns: nothing, the one out value, or an object of
 * the out values keyed by C argument name. NULL with an exception pending on
 * failure. */
napi_value kn_build_result(napi_env env, kn_call *c)
{
    napi_value v = NULL;
    napi_status st = napi_ok;
    switch ((enum kn_result)c->fn->result) {
    case KN_RESULT_VALUE:
        st = napi_create_int32(env, c->r.i32, &v);
        break;
    case KN_RESULT_STATIC_STRING:
        st = c->r.s ? napi_create_string_utf8(env, c->r.s, NAPI_AUTO_LENGTH, &v)
                    : napi_get_null(env, &v);
        break;
    case KN_RESULT_LENGTH:
    case KN_RESULT_STATUS:
    case KN_RESULT_NONE:
        break;
    }
    if (st != napi_ok) goto fail;
    if (v) return v;
    int count = 0, last = -1;
    for (int i = 0; i < c->fn->nargs; i++)
        if (is_returned(&c->fn->args[i])) count++, last = i;
    if (count == 0) {
        st = napi_get_undefined(env, &v);
        if (st != napi_ok) goto fail;
        return v;
    }
    if (count == 1) return result_value(env, c, last);
    if ((st = napi_create_object(env, &v)) != napi_ok) goto fail;
    for (int i = 0; i < c->fn->nargs; i++) {
        if (!is_returned(&c->fn->args[i])) continue;
        napi_value e = result_value(env, c, i);
        if (!e) return NULL;
        if ((st = napi_set_named_property(env, v, c->fn->args[i].name, e)) != napi_ok) goto fail;
    }
    return v;
fail:
    kn_throw_napi(env, c->fn->name);
    return NULL;
}
