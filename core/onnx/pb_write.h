/* Protobuf wire-format encoding: the varint every writer uses, and a
 * growable writer for messages whose size is not known in advance (a
 * rewritten model). Errors
 * are sticky: after a failed allocation every put is a no-op and
 * pb_out_finish reports KN_ERR_OUT_OF_MEMORY, so callers check once. */
#ifndef KN_ONNX_PB_WRITE_H
#define KN_ONNX_PB_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/status.h"

/* A varint takes at most ten bytes (64 bits, seven a byte). */
#define PB_VARINT_MAX 10

/* Writes v as a protobuf varint into out; returns its length. */
size_t pb_varint_encode(uint64_t v, uint8_t out[PB_VARINT_MAX]);

typedef struct pb_out {
    uint8_t *p;
    size_t used, cap;
    int failed;
} pb_out;

void pb_out_bytes(pb_out *o, const void *src, size_t n);
void pb_out_varint(pb_out *o, uint64_t v);
void pb_out_tag(pb_out *o, uint32_t num, uint32_t wire);
void pb_out_len(pb_out *o, uint32_t num, const void *data, size_t n); /* a LEN field */
void pb_out_str(pb_out *o, uint32_t num, const char *s);              /* a string field */
void pb_out_int(pb_out *o, uint32_t num, int64_t v);                  /* a VARINT field */
/* Appends a finished sub-message as LEN field num, then frees it. */
void pb_out_message(pb_out *o, uint32_t num, pb_out *sub);

/* KN_OK, or KN_ERR_OUT_OF_MEMORY (freeing the buffer) if any put failed. */
int pb_out_finish(pb_out *o, kn_err *err);
void pb_out_free(pb_out *o);

#endif
