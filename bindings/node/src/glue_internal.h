/* Internals shared by glue_call.c (argument and result marshalling),
 * glue_module.c (sync and async entry points, module init) and
 * glue_values.c (handles, errors, JS value access). */
#ifndef KILN_NODE_GLUE_INTERNAL_H
#define KILN_NODE_GLUE_INTERNAL_H

#include "glue.h"

/* Small allocations of one call come from an inline arena; larger ones from
 * the heap, freed when the call ends. */
#define KN_ARENA_BYTES 512
#define KN_MAX_HEAP 24
#define KN_MESSAGE_INLINE 256

/* Storage the out-pointers of one argument point at. */
typedef union kn_out {
    int32_t i32;
    int64_t i64;
    size_t z;
    void *p;
    const void *view;
} kn_out;

typedef struct kn_call {
    const kn_function *fn;
    kn_slot a[KN_MAX_ARGS]; /* what the thunk passes to C */
    kn_slot r;              /* what C returned */
    kn_out out[KN_MAX_ARGS];
    size_t cap[KN_MAX_ARGS];  /* capacity of glue-owned out buffers (elements) */
    uint32_t glue_owned;      /* bit i: out buffer i is the glue's (sized by retrying) */
    void *heap[KN_MAX_HEAP];
    int nheap;
    int alloc_failed;
    napi_ref keep[KN_MAX_ARGS]; /* async only: JS values the C call reads */
    int nkeep;
    int async;
    struct kn_handle *destroyed; /* handle cell a destroy call invalidates */
    int32_t status;
    char *message; /* kiln_last_error() text when status != 0 */
    napi_deferred deferred;
    napi_async_work work;
    int64_t elapsed_ns; /* async only: how long the C call took on the worker */
    /* invoke_sync clears only the fields above this line: */
    char message_inline[KN_MESSAGE_INLINE];
    size_t arena_used;
    _Alignas(16) unsigned char arena[KN_ARENA_BYTES];
} kn_call;

/* The cell behind a handle object: the C pointer (NULL once destroyed) and
 * its handle type. Freed when the JS object is collected; the C object is
 * not (the JS layer destroys handles explicitly, in order). */
typedef struct kn_handle {
    void *ptr;
    const char *type;
} kn_handle;

/* Per-environment state (one per main thread or worker). */
typedef struct kn_env_data {
    napi_ref error_class; /* KilnError, set by the JS layer */
    int64_t last_async_ns; /* C time of the async call completed last */
} kn_env_data;

/* glue_call.c: returns 0, or -1 with a JS exception pending */
int kn_parse_args(napi_env env, napi_callback_info info, kn_call *c);
/* Makes no N-API calls: also runs on libuv worker threads. */
void kn_execute(kn_call *c);
/* NULL with a JS exception pending on failure. */
napi_value kn_build_result(napi_env env, kn_call *c);

/* glue_values.c */
void *kn_call_alloc(kn_call *c, size_t bytes);
void kn_call_release(napi_env env, kn_call *c);
napi_value kn_make_error(napi_env env, int32_t status, const char *message);
void kn_throw(napi_env env, int32_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Throws a JS exception for a failed N-API call unless one is pending. */
void kn_throw_napi(napi_env env, const char *what);
int kn_get_handle(napi_env env, napi_value v, const kn_arg *arg, const char *fn,
                  kn_handle **cell);
napi_value kn_new_handle(napi_env env, void *ptr, const char *type);
int kn_get_i32(napi_env env, napi_value v, const char *fn, const char *name, int32_t *out);
int kn_get_size(napi_env env, napi_value v, const char *fn, const char *name, size_t *out);
int kn_get_string(napi_env env, kn_call *c, napi_value v, const char *fn, const char *name,
                  char **out);
/* Data and byte length of a TypedArray, DataView or ArrayBuffer; *kind_out
 * gets the TypedArray type or -1 for the others. Returns 0 on success. */
int kn_get_bytes(napi_env env, napi_value v, void **data, size_t *nbytes, int *kind_out);
napi_value kn_env_error_class(napi_env env);
napi_value kn_set_error_class(napi_env env, napi_callback_info info);
napi_value kn_last_async_ns(napi_env env, napi_callback_info info);
void kn_note_async_ns(napi_env env, int64_t ns);
void kn_env_data_init(napi_env env);

#endif
