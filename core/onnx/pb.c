#include "core/onnx/pb.h"

#include <stdio.h>
#include <string.h>

enum { VARINT_OK = 0, VARINT_TRUNCATED = 1, VARINT_TOO_LONG = 2 };

/* At most 10 bytes; the 10th may carry only the top bit of a uint64, so an
 * over-long or overflowing encoding is rejected rather than wrapped. */
static int read_varint(const uint8_t *buf, size_t *pos, size_t end, uint64_t *out)
{
    uint64_t v = 0;
    size_t p = *pos;
    for (int i = 0; i < 10; i++) {
        if (p >= end)
            return VARINT_TRUNCATED;
        uint8_t b = buf[p++];
        if (i == 9 && b > 1)
            return VARINT_TOO_LONG;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *pos = p;
            *out = v;
            return VARINT_OK;
        }
    }
    return VARINT_TOO_LONG;
}

void pb_init(pb_reader *r, const void *buf, size_t size, const pb_msg_desc *msg, kn_err *err)
{
    r->buf = buf;
    r->pos = 0;
    r->end = buf ? size : 0;
    r->msg = msg;
    r->err = err;
}

void pb_field_label(const pb_reader *r, uint32_t num, char *buf, size_t cap)
{
    const char *msg = r->msg ? r->msg->name : "message";
    if (r->msg && num < r->msg->n_fields && r->msg->fields[num])
        snprintf(buf, cap, "%s.%s", msg, r->msg->fields[num]);
    else
        snprintf(buf, cap, "%s field %u", msg, num);
}

static int fail_field(const pb_reader *r, uint32_t num, size_t at, const char *what)
{
    char label[96];
    pb_field_label(r, num, label, sizeof label);
    kn_fail(r->err, KN_ERR_INVALID_MODEL, "%s field %u at byte %zu (%s)", what, num, at, label);
    return -1;
}

static int fail_varint(const pb_reader *r, int rc, uint32_t num, size_t at, const char *what)
{
    return fail_field(r, num, at,
                      rc == VARINT_TRUNCATED ? what : "malformed varint (over 10 bytes) in");
}

int pb_next(pb_reader *r, pb_field *f)
{
    if (r->pos >= r->end)
        return 0;
    size_t at = r->pos;
    uint64_t tag;
    int rc = read_varint(r->buf, &r->pos, r->end, &tag);
    if (rc != VARINT_OK) {
        kn_fail(r->err, KN_ERR_INVALID_MODEL, "%s tag at byte %zu (%s)",
                rc == VARINT_TRUNCATED ? "truncated" : "malformed (over 10 bytes)", at,
                r->msg ? r->msg->name : "message");
        return -1;
    }
    uint64_t num = tag >> 3;
    f->wire = (uint32_t)(tag & 7);
    f->at = at;
    f->value = 0;
    f->off = f->len = 0;
    if (num == 0 || num > 0x1fffffff) {
        kn_fail(r->err, KN_ERR_INVALID_MODEL, "invalid field number %llu at byte %zu (%s)",
                (unsigned long long)num, at, r->msg ? r->msg->name : "message");
        return -1;
    }
    f->num = (uint32_t)num;
    switch (f->wire) {
    case PB_VARINT:
        rc = read_varint(r->buf, &r->pos, r->end, &f->value);
        return rc == VARINT_OK ? 1 : fail_varint(r, rc, f->num, at, "truncated varint");
    case PB_FIXED64:
    case PB_FIXED32: {
        size_t n = f->wire == PB_FIXED64 ? 8 : 4;
        if (r->end - r->pos < n)
            return fail_field(r, f->num, at,
                              n == 8 ? "truncated fixed64" : "truncated fixed32");
        for (size_t i = 0; i < n; i++)
            f->value |= (uint64_t)r->buf[r->pos + i] << (8 * i);
        r->pos += n;
        return 1;
    }
    case PB_LEN: {
        uint64_t len;
        rc = read_varint(r->buf, &r->pos, r->end, &len);
        if (rc != VARINT_OK)
            return fail_varint(r, rc, f->num, at, "truncated length of");
        if (len > r->end - r->pos) {
            char label[96];
            pb_field_label(r, f->num, label, sizeof label);
            kn_fail(r->err, KN_ERR_INVALID_MODEL,
                    "truncated length-delimited field %u at byte %zu (%s): "
                    "length %llu but %zu bytes left",
                    f->num, at, label, (unsigned long long)len, r->end - r->pos);
            return -1;
        }
        f->off = r->pos;
        f->len = (size_t)len;
        r->pos += (size_t)len;
        return 1;
    }
    case 3:
    case 4:
        return fail_field(r, f->num, at, "unsupported group wire type in");
    default:
        return fail_field(r, f->num, at, "invalid wire type 6/7 in");
    }
}

pb_reader pb_sub(const pb_reader *r, const pb_field *f, const pb_msg_desc *msg)
{
    pb_reader s = {r->buf, f->off, f->off + f->len, msg, r->err};
    return s;
}

static const char *wire_name(uint32_t w)
{
    switch (w) {
    case PB_VARINT: return "varint";
    case PB_FIXED64: return "fixed64";
    case PB_LEN: return "length-delimited";
    case PB_FIXED32: return "fixed32";
    default: return "invalid";
    }
}

int pb_want(const pb_reader *r, const pb_field *f, uint32_t wire)
{
    if (f->wire == wire)
        return KN_OK;
    char label[96];
    pb_field_label(r, f->num, label, sizeof label);
    return kn_fail(r->err, KN_ERR_INVALID_MODEL,
                   "field %u at byte %zu (%s) is %s, expected %s", f->num, f->at, label,
                   wire_name(f->wire), wire_name(wire));
}

int pb_int64(const pb_reader *r, const pb_field *f, int64_t *out)
{
    int rc = pb_want(r, f, PB_VARINT);
    if (rc == KN_OK)
        *out = (int64_t)f->value; /* two's complement, as protobuf encodes negatives */
    return rc;
}

int pb_int32(const pb_reader *r, const pb_field *f, int32_t *out)
{
    int64_t v;
    int rc = pb_int64(r, f, &v);
    if (rc != KN_OK)
        return rc;
    if (v < INT32_MIN || v > INT32_MAX) {
        char label[96];
        pb_field_label(r, f->num, label, sizeof label);
        return kn_fail(r->err, KN_ERR_INVALID_MODEL,
                       "value %lld of field %u at byte %zu (%s) does not fit int32",
                       (long long)v, f->num, f->at, label);
    }
    *out = (int32_t)v;
    return KN_OK;
}

int pb_float(const pb_reader *r, const pb_field *f, float *out)
{
    int rc = pb_want(r, f, PB_FIXED32);
    if (rc == KN_OK) {
        uint32_t bits = (uint32_t)f->value;
        memcpy(out, &bits, sizeof bits);
    }
    return rc;
}

int pb_count(const pb_reader *r, const pb_field *f, uint32_t elem_wire, size_t *count)
{
    if (f->wire == elem_wire) {
        (*count)++;
        return KN_OK;
    }
    if (f->wire != PB_LEN)
        return pb_want(r, f, elem_wire);
    if (elem_wire == PB_VARINT) {
        /* Each varint ends in exactly one byte without the high bit; the
         * iterator rejects a payload whose last varint does not end. */
        const uint8_t *p = r->buf + f->off;
        for (size_t i = 0; i < f->len; i++)
            *count += !(p[i] & 0x80);
        return KN_OK;
    }
    size_t size = elem_wire == PB_FIXED64 ? 8 : 4;
    if (f->len % size) {
        char label[96];
        pb_field_label(r, f->num, label, sizeof label);
        return kn_fail(r->err, KN_ERR_INVALID_MODEL,
                       "packed field %u at byte %zu (%s) has %zu bytes, not a multiple of %zu",
                       f->num, f->at, label, f->len, size);
    }
    *count += f->len / size;
    return KN_OK;
}

int pb_iter_begin(const pb_reader *r, const pb_field *f, uint32_t elem_wire, pb_iter *it)
{
    memset(it, 0, sizeof *it);
    it->elem_wire = elem_wire;
    it->num = f->num;
    if (f->wire == elem_wire) {
        it->single = 1;
        it->value = f->value;
        return KN_OK;
    }
    size_t ignored = 0;
    int rc = pb_count(r, f, elem_wire, &ignored); /* checks wire type and size */
    if (rc != KN_OK)
        return rc;
    it->packed = pb_sub(r, f, r->msg);
    return KN_OK;
}

int pb_iter_next(pb_iter *it, uint64_t *v)
{
    if (it->single) {
        it->single = 0;
        *v = it->value;
        return 1;
    }
    pb_reader *r = &it->packed;
    if (r->pos >= r->end)
        return 0;
    if (it->elem_wire == PB_VARINT) {
        size_t at = r->pos;
        int rc = read_varint(r->buf, &r->pos, r->end, v);
        if (rc != VARINT_OK)
            return fail_varint(r, rc, it->num, at, "truncated varint in packed");
        return 1;
    }
    size_t n = it->elem_wire == PB_FIXED64 ? 8 : 4; /* pb_count checked divisibility */
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++)
        x |= (uint64_t)r->buf[r->pos + i] << (8 * i);
    r->pos += n;
    *v = x;
    return 1;
}
