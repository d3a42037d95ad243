/* A bounds-checked protobuf wire-format decoder, just big enough for ONNX.
 *
 * It never allocates and never trusts a length: every varint is at most 10
 * bytes, every length-delimited field is checked against the bytes left in
 * its enclosing message, and groups (wire types 3/4) and the unused wire
 * types 6/7 are errors. Readers keep absolute byte positions into the whole
 * input so that an error can name the file offset, the field number and,
 * through a small per-message descriptor, the field's name:
 *   "truncated length-delimited field 7 at byte 1234 (ModelProto.graph)". */
#ifndef KN_ONNX_PB_H
#define KN_ONNX_PB_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/status.h"

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2, PB_FIXED32 = 5 };

/* Names a message kind and its fields for error messages. fields[n] is the
 * name of field n (NULL where unnamed); n_fields is the array's length. */
typedef struct pb_msg_desc {
    const char *name;
    const char *const *fields;
    uint32_t n_fields;
} pb_msg_desc;

#define PB_DESC(name, fields) {name, fields, (uint32_t)(sizeof fields / sizeof fields[0])}

typedef struct pb_reader {
    const uint8_t *buf;       /* the whole input; positions below index it */
    size_t pos, end;          /* this message spans buf[pos..end) */
    const pb_msg_desc *msg;
    kn_err *err;
} pb_reader;

typedef struct pb_field {
    uint32_t num, wire;
    size_t at;                /* absolute offset of the tag */
    uint64_t value;           /* VARINT, FIXED32 and FIXED64 payloads */
    size_t off, len;          /* LEN: absolute offset and size of the payload */
} pb_field;

void pb_init(pb_reader *r, const void *buf, size_t size, const pb_msg_desc *msg, kn_err *err);

/* Reads the next field. Returns 1 with *f filled, 0 at the end of the
 * message, -1 on malformed input (err set to KN_ERR_INVALID_MODEL). */
int pb_next(pb_reader *r, pb_field *f);

/* A reader over a LEN field's payload, described by msg. */
pb_reader pb_sub(const pb_reader *r, const pb_field *f, const pb_msg_desc *msg);

/* KN_OK if f has wire type `wire`, else fails naming the field. */
int pb_want(const pb_reader *r, const pb_field *f, uint32_t wire);

/* Payload of a LEN field (not NUL-terminated). */
static inline const char *pb_data(const pb_reader *r, const pb_field *f)
{
    return (const char *)r->buf + f->off;
}

/* Typed singular values with wire-type (and for int32, range) checks. */
int pb_int64(const pb_reader *r, const pb_field *f, int64_t *out);
int pb_int32(const pb_reader *r, const pb_field *f, int32_t *out);
int pb_float(const pb_reader *r, const pb_field *f, float *out);

/* "Msg.field" (or "Msg field N") for messages built by callers. */
void pb_field_label(const pb_reader *r, uint32_t num, char *buf, size_t cap);

/* Repeated scalars may be stored one per field (wire type elem_wire) or
 * packed into one LEN field; both forms may even be mixed. pb_count adds
 * the number of elements f holds to *count without decoding them (the count
 * is bounded by the bytes present, so it is safe to size an array from it).
 * An iterator then yields the elements as raw 64-bit patterns. */
int pb_count(const pb_reader *r, const pb_field *f, uint32_t elem_wire, size_t *count);

typedef struct pb_iter {
    pb_reader packed;         /* the LEN payload, when packed */
    uint32_t elem_wire, num;
    int single;               /* 1: one unpacked value pending */
    uint64_t value;
} pb_iter;

int pb_iter_begin(const pb_reader *r, const pb_field *f, uint32_t elem_wire, pb_iter *it);
/* 1 with *v set, 0 when done, -1 on malformed input. */
int pb_iter_next(pb_iter *it, uint64_t *v);

#endif
