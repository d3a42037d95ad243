#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/onnx/reader.h"

void *kn_onnx_alloc(kn_onnx_ctx *c, kn_bump *bump, size_t count, size_t size, const char *what)
{
    size_t bytes = 0;
    if (size && count > SIZE_MAX / size) {
        kn_fail(c->err, KN_ERR_LIMIT, "%s: %zu elements of %zu bytes overflow the address space",
                what, count, size);
        return NULL;
    }
    bytes = count * size;
    void *p = kn_bump_alloc(bump, bytes);
    if (p)
        return p;
    /* The bump refuses both when malloc fails and when its limit would be
     * passed; only the model bump carries the caller's limit. */
    size_t rounded = bytes > SIZE_MAX - 15 ? SIZE_MAX : kn_align_up(bytes, 16);
    if (bump == c->bump && c->max_bytes &&
        (rounded > c->max_bytes || kn_bump_used(bump) > c->max_bytes - rounded))
        kn_fail(c->err, KN_ERR_LIMIT,
                "model exceeds the size limit of %zu bytes (%zu more bytes needed for %s)",
                c->max_bytes, bytes, what);
    else
        kn_fail(c->err, KN_ERR_OUT_OF_MEMORY, "out of memory allocating %zu bytes for %s", bytes,
                what);
    return NULL;
}

char *kn_onnx_strdup(kn_onnx_ctx *c, kn_onnx_str s)
{
    if (s.n == SIZE_MAX) {
        kn_fail(c->err, KN_ERR_LIMIT, "string too long");
        return NULL;
    }
    char *d = kn_onnx_alloc(c, c->bump, s.n + 1, 1, "a string");
    if (d && s.n)
        memcpy(d, s.p, s.n);
    return d; /* zeroed, so NUL-terminated */
}

void kn_onnx_prefix(kn_err *err, const char *fmt, ...)
{
    if (!err || err->code == KN_OK)
        return;
    char prefix[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    /* Outer context that no longer fits is dropped rather than the cause
     * at the message's end (errors deep in nested subgraphs). */
    if (strlen(prefix) + 2 + strlen(err->msg) < sizeof err->msg)
        kn_err_prefix(err, "%s", prefix);
}

int kn_onnx_check_name(kn_onnx_ctx *c, kn_onnx_str s, const char *what)
{
    if (s.n && memchr(s.p, 0, s.n))
        return kn_fail(c->err, KN_ERR_INVALID_MODEL, "%s '%.*s...' contains a NUL byte", what,
                       (int)strnlen(s.p, s.n > 200 ? 200 : s.n), s.p);
    return KN_OK;
}
