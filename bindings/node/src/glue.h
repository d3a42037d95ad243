/* The Node binding's marshalling layer.
 *
 * bindings/gen/emit_node.py turns every function of capi/kiln_api.json into a
 * table entry (kn_function: the arguments with their roles, and a one-line
 * thunk that calls the C function with arguments taken from kn_slot cells).
 * Its implementation (glue_call.c, glue_module.c, glue_values.c) is the only place that
 * knows how each role crosses between JavaScript and C, so a new C function
 * reaches JavaScript by regenerating the table: no glue is written by hand.
 *
 * Every status-returning function is exported twice: `kiln_x(...)` runs on
 * the calling thread, `kiln_x_async(...)` runs on the libuv thread pool and
 * returns a Promise. Either way the error message is read with
 * kiln_last_error() on the thread that made the failing call.
 */
#ifndef KILN_NODE_GLUE_H
#define KILN_NODE_GLUE_H

#include <stddef.h>
#include <stdint.h>

#define NAPI_VERSION 8
#include <node_api.h>

/* One C argument or result, as the thunks see it. */
typedef union kn_slot {
    int32_t i32;
    int64_t i64;
    size_t z;
    void *p;
    const char *s;
} kn_slot;

/* Argument roles: the same vocabulary as bindings/gen/README.md. */
enum kn_role {
    KN_ROLE_HANDLE,       /* in: a handle object (null where nullable) */
    KN_ROLE_HANDLE_OUT,   /* out: returns a new handle object */
    KN_ROLE_SCALAR,       /* in: a number (int32_t or size_t) */
    KN_ROLE_SCALAR_OUT,   /* out: returns a number (or boolean) */
    KN_ROLE_CSTRING,      /* in: a string (null where nullable) */
    KN_ROLE_STRBUF,       /* out: returns a string (Uint8Array when binary) */
    KN_ROLE_DIMS_IN,      /* in: an array of integers */
    KN_ROLE_DIMS_OUT,     /* out: returns an array of numbers, null if rank -1 */
    KN_ROLE_BYTES_IN,     /* in: a TypedArray, DataView or ArrayBuffer */
    KN_ROLE_BYTES_OUT,    /* in: a writable buffer, returns the bytes needed; or
                           * null: returns a new Uint8Array of the right size */
    KN_ROLE_VIEW_OUT,     /* out: returns a copy (ArrayBuffer) of the bytes */
    KN_ROLE_FLOATS_IN,    /* in: Float32Array or array of numbers (null where nullable) */
    KN_ROLE_FLOATS_OUT,   /* in: a Float32Array the call fills */
    KN_ROLE_PIXELS_IN,    /* in: Uint8Array/Uint8ClampedArray of rows `stride` apart */
    KN_ROLE_COMPANION,    /* filled in by the glue (capacities, lengths, needed) */
    /* Device memory is never touched on the host: its address is a BigInt
     * (64 bits do not fit a Number). */
    KN_ROLE_DEVICE_PTR,     /* in: a BigInt address (null where nullable) */
    KN_ROLE_DEVICE_PTR_OUT  /* out: returns a BigInt address */
};

/* C type of a scalar, a scalar_out or a companion. */
enum kn_ctype { KN_CT_NONE, KN_CT_I32, KN_CT_I64, KN_CT_SIZE };

/* kn_arg.flags */
#define KN_ARG_NULLABLE 1u
#define KN_ARG_BINARY 2u  /* strbuf: bytes, not UTF-8 text */
#define KN_ARG_BOOLEAN 4u /* scalar_out: 0/1 returned as false/true */

#define KN_NO_LINK (-1)

/* Indices of companion arguments, by role:
 *   strbuf: {cap, needed}           dims_in: {rank}
 *   dims_out: {cap, rank}           bytes_in: {size}
 *   bytes_out: {cap, needed}        view_out: {nbytes}
 *   floats_in: {count (a scalar)}   floats_out: {nbytes}
 *   pixels_in: {width, height, stride, channels} */
typedef struct kn_arg {
    const char *name;
    uint8_t role;       /* enum kn_role */
    uint8_t ctype;      /* enum kn_ctype */
    uint8_t flags;      /* KN_ARG_* */
    int8_t link[4];     /* companion indices, KN_NO_LINK when absent */
    const char *handle; /* handle type ("kiln_model") for handle roles */
} kn_arg;

/* What the C function returns (the spec's "result"). */
enum kn_result { KN_RESULT_STATUS, KN_RESULT_VALUE, KN_RESULT_LENGTH, KN_RESULT_STATIC_STRING,
                 KN_RESULT_NONE };

#define KN_MAX_ARGS 16

typedef struct kn_function {
    const char *name;
    uint8_t result;  /* enum kn_result */
    uint8_t destroy; /* 1: releases the handle in argument 0 */
    uint8_t nargs;
    const kn_arg *args;
    void (*call)(kn_slot *args, kn_slot *result);
} kn_function;

/* Written by the generator (src/functions_gen.c). */
extern const kn_function kn_functions[];
extern const size_t kn_function_count;
extern const int32_t kn_spec_abi_version;

#endif
