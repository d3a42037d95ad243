/* The module's JavaScript entry points: every table function synchronously
 * and, for status-returning ones, as name_async on the libuv thread pool;
 * and the module init that exports them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "glue_internal.h"
#include "kiln.h"

/* ---- entry points ---- */

static napi_value invoke_sync(napi_env env, napi_callback_info info)
{
    kn_call c;
    void *data;
    napi_value result = NULL;
    memset(&c, 0, offsetof(kn_call, message_inline));
    c.arena_used = 0;
    if (napi_get_cb_info(env, info, NULL, NULL, NULL, &data) != napi_ok) return NULL;
    c.fn = data;
    if (kn_parse_args(env, info, &c) == 0) {
        kn_execute(&c);
        if (c.destroyed) c.destroyed->ptr = NULL;
        if (c.status != KILN_OK) {
            napi_value err = kn_make_error(env, c.status, c.message);
            if (err) napi_throw(env, err);
        } else {
            result = kn_build_result(env, &c);
        }
    }
    kn_call_release(env, &c);
    return result;
}

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void async_execute(napi_env env, void *data)
{
    (void)env;
    kn_call *c = data;
    int64_t start = monotonic_ns();
    kn_execute(c);
    c->elapsed_ns = monotonic_ns() - start;
}

static void async_complete(napi_env env, napi_status status, void *data)
{
    kn_call *c = data;
    napi_value value = NULL;
    kn_note_async_ns(env, c->elapsed_ns);
    if (status != napi_ok) {
        value = kn_make_error(env, KILN_ERR_INTERNAL, "asynchronous call was not run");
    } else if (c->status != KILN_OK) {
        value = kn_make_error(env, c->status, c->message);
    } else {
        value = kn_build_result(env, c);
        if (!value) { /* an exception is pending: reject with it */
            napi_get_and_clear_last_exception(env, &value);
            status = napi_generic_failure;
        }
    }
    if (value && (c->status != KILN_OK || status != napi_ok))
        napi_reject_deferred(env, c->deferred, value);
    else if (value)
        napi_resolve_deferred(env, c->deferred, value);
    napi_delete_async_work(env, c->work);
    kn_call_release(env, c);
    free(c);
}

static napi_value invoke_async(napi_env env, napi_callback_info info)
{
    void *data;
    napi_value promise = NULL, name, err;
    if (napi_get_cb_info(env, info, NULL, NULL, NULL, &data) != napi_ok) return NULL;
    kn_call *c = calloc(1, sizeof *c);
    if (!c) {
        kn_throw(env, KILN_ERR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    c->fn = data;
    c->async = 1;
    if (napi_create_promise(env, &c->deferred, &promise) != napi_ok) goto fail;
    if (kn_parse_args(env, info, c) != 0) { /* reject rather than throw: it returns a Promise */
        if (napi_get_and_clear_last_exception(env, &err) == napi_ok)
            napi_reject_deferred(env, c->deferred, err);
        kn_call_release(env, c);
        free(c);
        return promise;
    }
    if (napi_create_string_utf8(env, c->fn->name, NAPI_AUTO_LENGTH, &name) != napi_ok ||
        napi_create_async_work(env, NULL, name, async_execute, async_complete, c, &c->work) !=
            napi_ok)
        goto fail;
    if (napi_queue_async_work(env, c->work) != napi_ok) {
        napi_delete_async_work(env, c->work);
        goto fail;
    }
    return promise;
fail:
    kn_throw_napi(env, c->fn->name);
    kn_call_release(env, c);
    free(c);
    return NULL;
}

static int export_function(napi_env env, napi_value exports, const char *name,
                           napi_callback cb, const kn_function *fn)
{
    napi_value f;
    return napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, (void *)fn, &f) != napi_ok ||
           napi_set_named_property(env, exports, name, f) != napi_ok;
}

NAPI_MODULE_INIT()
{
    napi_value v;
    kn_env_data_init(env);
    for (size_t i = 0; i < kn_function_count; i++) {
        const kn_function *fn = &kn_functions[i];
        if (export_function(env, exports, fn->name, invoke_sync, fn)) goto fail;
        if (fn->result == KN_RESULT_STATUS) {
            char name[128];
            snprintf(name, sizeof name, "%s_async", fn->name);
            if (export_function(env, exports, name, invoke_async, fn)) goto fail;
        }
    }
    if (napi_create_function(env, "_set_error_class", NAPI_AUTO_LENGTH, kn_set_error_class, NULL,
                             &v) != napi_ok ||
        napi_set_named_property(env, exports, "_set_error_class", v) != napi_ok ||
        napi_create_function(env, "_last_async_ns", NAPI_AUTO_LENGTH, kn_last_async_ns, NULL,
                             &v) != napi_ok ||
        napi_set_named_property(env, exports, "_last_async_ns", v) != napi_ok ||
        napi_create_int32(env, kn_spec_abi_version, &v) != napi_ok ||
        napi_set_named_property(env, exports, "_spec_abi_version", v) != napi_ok)
        goto fail;
    return exports;
fail:
    kn_throw_napi(env, "kiln module init");
    return NULL;
}
