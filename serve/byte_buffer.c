#include "byte_buffer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(sv_buffer *b, size_t extra)
{
    if (b->failed)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *grown = realloc(b->data, cap);
    if (!grown) {
        b->failed = 1;
        return -1;
    }
    b->data = grown;
    b->cap = cap;
    return 0;
}

int sv_buffer_append(sv_buffer *b, const void *bytes, size_t n)
{
    if (reserve(b, n) != 0)
        return -1;
    if (n)
        memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0'; /* text stays a C string */
    return 0;
}

int sv_buffer_puts(sv_buffer *b, const char *s)
{
    return sv_buffer_append(b, s, strlen(s));
}

int sv_buffer_printf(sv_buffer *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[128];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    if ((size_t)n < sizeof small)
        return sv_buffer_append(b, small, (size_t)n);
    if (reserve(b, (size_t)n) != 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

int sv_buffer_json_string(sv_buffer *b, const char *s)
{
    if (sv_buffer_append(b, "\"", 1) != 0)
        return -1;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char esc[2] = {'\\', (char)*p};
            sv_buffer_append(b, esc, 2);
        } else if (*p < 0x20) {
            sv_buffer_printf(b, "\\u%04x", *p);
        } else {
            sv_buffer_append(b, p, 1);
        }
    }
    return sv_buffer_append(b, "\"", 1);
}

char *sv_buffer_take(sv_buffer *b, size_t *len)
{
    if (!b->data)
        sv_buffer_append(b, "", 0);
    char *out = b->failed ? NULL : b->data;
    if (b->failed)
        free(b->data);
    if (len)
        *len = out ? b->len : 0;
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
    return out;
}

void sv_buffer_free(sv_buffer *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}
