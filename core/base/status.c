#include "core/base/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int kn_fail(kn_err *err, int code, const char *fmt, ...)
{
    if (err && err->code == KN_OK) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void kn_err_prefix(kn_err *err, const char *fmt, ...)
{
    if (!err || err->code == KN_OK)
        return;
    char prefix[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(prefix, sizeof prefix - 2, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t plen = strlen(prefix);
    memcpy(prefix + plen, ": ", 3);
    plen += 2;
    /* Shift the old message right (truncating its tail) and put the prefix
     * in front. */
    size_t old = strlen(err->msg), cap = sizeof err->msg - 1;
    size_t keep = old + plen > cap ? (cap > plen ? cap - plen : 0) : old;
    memmove(err->msg + plen, err->msg, keep);
    err->msg[plen + keep] = 0;
    memcpy(err->msg, prefix, plen);
}

const char *kn_status_name(int code)
{
    switch (code) {
    case KN_OK: return "ok";
    case KN_ERR_INVALID_ARGUMENT: return "invalid argument";
    case KN_ERR_OUT_OF_MEMORY: return "out of memory";
    case KN_ERR_IO: return "i/o error";
    case KN_ERR_INVALID_MODEL: return "invalid model";
    case KN_ERR_UNSUPPORTED: return "unsupported";
    case KN_ERR_SHAPE: return "shape mismatch";
    case KN_ERR_DTYPE: return "dtype mismatch";
    case KN_ERR_NOT_FOUND: return "not found";
    case KN_ERR_STATE: return "wrong call order";
    case KN_ERR_CANCELLED: return "cancelled";
    case KN_ERR_INTERNAL: return "internal error";
    case KN_ERR_BUFFER_TOO_SMALL: return "buffer too small";
    case KN_ERR_LIMIT: return "resource limit exceeded";
    default: return "unknown status";
    }
}
