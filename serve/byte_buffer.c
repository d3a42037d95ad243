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

size_t sv_utf8_sequence(const unsigned char *p, size_t left)
{
    if (p[0] < 0x80)
        return 1;
    size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (n == 0 || (p[0] >= 0xf0 && n != 4) || n > left)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    /* overlong 3/4-byte forms, UTF-16 surrogates and code points past U+10FFFF */
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
        return 0;
    return n;
}

int sv_buffer_json_string(sv_buffer *b, const char *s)
{
    if (sv_buffer_append(b, "\"", 1) != 0)
        return -1;
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s);
    while (left) {
        size_t n = sv_utf8_sequence(p, left);
        if (n == 0) {
            /* Names and messages may quote a client's bytes: a response stays
             * valid JSON (valid UTF-8) whatever they were. */
            sv_buffer_puts(b, "\\ufffd");
            n = 1;
        } else if (*p == '"' || *p == '\\') {
            char esc[2] = {'\\', (char)*p};
            sv_buffer_append(b, esc, 2);
        } else if (*p < 0x20) {
            sv_buffer_printf(b, "\\u%04x", *p);
        } else {
            sv_buffer_append(b, p, n);
        }
        p += n;
        left -= n;
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
