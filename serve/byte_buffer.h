/* A growable byte buffer: request bodies as they arrive, and responses as
 * they are written (JSON text followed by binary tensors). */
#ifndef KILN_SERVE_BYTE_BUFFER_H
#define KILN_SERVE_BYTE_BUFFER_H

#include <stdarg.h>
#include <stddef.h>

typedef struct {
    char *data;
    size_t len, cap;
    int failed; /* an allocation failed: the content is incomplete */
} sv_buffer;

int sv_buffer_append(sv_buffer *b, const void *bytes, size_t n);
int sv_buffer_puts(sv_buffer *b, const char *s);
int sv_buffer_printf(sv_buffer *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a JSON string literal, quotes included; bytes that are not
 * UTF-8 become U+FFFD. */
int sv_buffer_json_string(sv_buffer *b, const char *s);
/* Bytes of the well-formed UTF-8 sequence at p (of `left` bytes), 0 if
 * it is not one. */
size_t sv_utf8_sequence(const unsigned char *p, size_t left);
/* Hands the bytes over (the caller frees them) and empties the buffer. */
char *sv_buffer_take(sv_buffer *b, size_t *len);
void sv_buffer_free(sv_buffer *b);

#endif
