/* Internal status codes and the error record passed through the core.
 * The numeric values are the public KILN_* codes (capi/api_error.c checks
 * this at compile time), so the C API forwards them unchanged. */
#ifndef KN_STATUS_H
#define KN_STATUS_H

#include <stddef.h>

enum {
    KN_OK = 0,
    KN_ERR_INVALID_ARGUMENT = 1, /* caller passed a bad argument */
    KN_ERR_OUT_OF_MEMORY = 2,
    KN_ERR_IO = 3,               /* file could not be opened or read */
    KN_ERR_INVALID_MODEL = 4,    /* corrupt, truncated or inconsistent model */
    KN_ERR_UNSUPPORTED = 5,      /* op, opset, dtype or feature not implemented */
    KN_ERR_SHAPE = 6,            /* shapes do not agree */
    KN_ERR_DTYPE = 7,            /* element types do not agree */
    KN_ERR_NOT_FOUND = 8,        /* no such name or index */
    KN_ERR_STATE = 9,            /* call made in the wrong order */
    KN_ERR_CANCELLED = 10,       /* run stopped by kiln_session_cancel */
    KN_ERR_INTERNAL = 11,
    KN_ERR_BUFFER_TOO_SMALL = 12,
    KN_ERR_LIMIT = 13,           /* a configured resource limit was exceeded */
    /* Internal, never returned by the C API: a kernel's prepare() needs the
     * value (not just the shape) of an input that is only known at run
     * time (Reshape's shape computed from data, NonZero's output size). The
     * session then switches to eager execution, where every value is known
     * when its consumer is prepared. */
    KN_ERR_NEEDS_VALUE = 100,
    /* Internal: a kernel's prepare() does not serve these shapes or
     * attributes (a oneDNN kernel without a primitive for them); the planner
     * then prepares the next backend's kernel for the node instead
     * (core/kernel/backend.h). */
    KN_ERR_DECLINE = 101
};

/* An error record: the first error set wins, later ones are ignored so the
 * innermost (most specific) message survives while callers unwind. */
typedef struct kn_err {
    int code;
    char msg[512];
} kn_err;

/* Sets err (if not already set) and returns code, so callers can write
 * `return kn_fail(err, KN_ERR_SHAPE, "...", ...);`. err may be NULL. */
int kn_fail(kn_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prefixes an existing message with context ("node 'conv1' (Conv): ..."). */
void kn_err_prefix(kn_err *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

const char *kn_status_name(int code);

#endif
