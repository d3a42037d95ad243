/* Version queries and the thread-local last-error message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api_internal.h"

/* The public codes are the core's codes; keep them in lock step. */
_Static_assert(KILN_ERR_INVALID_ARGUMENT == KN_ERR_INVALID_ARGUMENT, "status codes");
_Static_assert(KILN_ERR_INVALID_MODEL == KN_ERR_INVALID_MODEL, "status codes");
_Static_assert(KILN_ERR_UNSUPPORTED == KN_ERR_UNSUPPORTED, "status codes");
_Static_assert(KILN_ERR_CANCELLED == KN_ERR_CANCELLED, "status codes");
_Static_assert(KILN_ERR_LIMIT == KN_ERR_LIMIT, "status codes");
_Static_assert(KILN_DTYPE_BFLOAT16 == KN_BFLOAT16, "dtype codes");
_Static_assert(KILN_DTYPE_FLOAT8E4M3FN == KN_FLOAT8E4M3FN, "dtype codes");
_Static_assert(KILN_DTYPE_UINT4 == KN_UINT4 && KILN_DTYPE_INT4 == KN_INT4 &&
                   KILN_DTYPE_FLOAT4E2M1 == KN_FLOAT4E2M1 && KILN_DTYPE_UINT2 == KN_UINT2 &&
                   KILN_DTYPE_INT2 == KN_INT2,
               "dtype codes");

static _Thread_local char last_error[1024];

int32_t kiln_fail(int32_t code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return code;
}

int32_t kiln_fail_err(const kn_err *err)
{
    if (err->code == KN_OK)
        return kiln_fail(KILN_ERR_INTERNAL, "internal error without a message");
    snprintf(last_error, sizeof last_error, "%s", err->msg);
    return err->code;
}

int32_t kiln_copy_string(const char *s, char *buf, int32_t cap, int32_t *needed)
{
    size_t len = strlen(s);
    if (len >= INT32_MAX)
        return kiln_fail(KILN_ERR_INTERNAL, "string too long");
    if (needed)
        *needed = (int32_t)len + 1;
    if (cap < (int32_t)len + 1 || !buf)
        return cap == 0 && needed ? KILN_OK
                                  : kiln_fail(KILN_ERR_BUFFER_TOO_SMALL,
                                              "buffer of %d bytes is too small, %d needed",
                                              (int)cap, (int)len + 1);
    memcpy(buf, s, len + 1);
    return KILN_OK;
}

int32_t kiln_copy_shape(const int64_t *src, int32_t rank, int64_t *dims, int32_t cap,
                        int32_t *rank_out)
{
    if (rank_out)
        *rank_out = rank;
    if (rank > 0 && (cap < rank || !dims))
        return kiln_fail(KILN_ERR_BUFFER_TOO_SMALL, "shape of rank %d does not fit %d dims",
                         (int)rank, (int)cap);
    for (int32_t i = 0; i < rank; i++)
        dims[i] = src[i];
    return KILN_OK;
}

int32_t kiln_abi_version(void) { return KILN_ABI_VERSION; }

const char *kiln_version(void) { return "0.1.0"; }

int32_t kiln_last_error(char *buf, int32_t cap)
{
    size_t len = strlen(last_error);
    if (buf && cap > 0) {
        size_t n = len < (size_t)cap - 1 ? len : (size_t)cap - 1;
        memcpy(buf, last_error, n);
        buf[n] = 0;
    }
    return (int32_t)len;
}

const char *kiln_status_name(int32_t status) { return kn_status_name(status); }
