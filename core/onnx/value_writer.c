/* A sequence or optional blob → SequenceProto / OptionalProto bytes (a
 * plain tensor → TensorProto). Fields go out in field-number order, as the
 * onnx Python package writes them: name, elem_type, then the values, each
 * element a TensorProto without a name (raw_data form) or a nested message.
 * A nested message's length prefix comes from value_size, which walks the
 * value without writing (O(size x depth) in all); nesting is bounded by
 * KN_BLOB_MAX_DEPTH. */
#include <string.h>

#include "core/ir/value_blob.h"
#include "core/onnx/onnx.h"
#include "core/onnx/pb_write.h"

typedef struct out_buf {
    uint8_t *p;
    size_t cap, used;
} out_buf;

static void put_bytes(out_buf *o, const void *src, size_t n)
{
    if (o->p && n && o->used <= o->cap && n <= o->cap - o->used)
        memcpy(o->p + o->used, src, n);
    o->used += n;
}

static void put_varint(out_buf *o, uint64_t v)
{
    uint8_t tmp[PB_VARINT_MAX];
    put_bytes(o, tmp, pb_varint_encode(v, tmp));
}

static void put_tag(out_buf *o, uint32_t num, uint32_t wire) { put_varint(o, (uint64_t)num << 3 | wire); }

/* SequenceProto.DataType for a blob's element kind. */
static int32_t elem_type_of(int32_t kind)
{
    switch (kind) {
    case KN_KIND_TENSOR: return 1;
    case KN_KIND_SEQUENCE: return 3;
    case KN_KIND_OPTIONAL: return 5;
    default: return 0;
    }
}

static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v > 0x7f) {
        v >>= 7;
        n++;
    }
    return n;
}

static uint32_t field_for(const kn_tensor *elem)
{
    int32_t k = kn_dtype_kind(elem->dtype);
    return k == KN_KIND_TENSOR ? 3 : k == KN_KIND_SEQUENCE ? 5 : 7;
}

/* The elem_type a blob's message declares: its header's element kind, or
 * entry 0's when the header leaves it open. */
static int32_t blob_elem_type(const kn_tensor *t, kn_blob_header *h)
{
    kn_blob_read_header(t, h);
    int32_t kind = h->elem_kind;
    if (kind == KN_BLOB_KIND_UNKNOWN && h->count > 0) {
        kn_blob_entry e;
        kn_blob_read_entry(t, 0, &e);
        kind = e.kind;
    }
    return elem_type_of(kind);
}

/* Encoded size of a value, each nested value measured once. */
static int value_size(const char *name, const kn_tensor *t, int depth, size_t *size, kn_err *err)
{
    *size = 0;
    if (!kn_is_blob_dtype(t->dtype)) {
        kn_err local = {0, {0}};
        int rc = kn_onnx_write_tensor(name, t, NULL, 0, size, &local);
        return rc == KN_OK || rc == KN_ERR_BUFFER_TOO_SMALL ? KN_OK : kn_fail(err, rc, "%s", local.msg);
    }
    if (depth > KN_BLOB_MAX_DEPTH)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "write value: nested too deep");
    kn_blob_header h;
    int32_t elem_type = blob_elem_type(t, &h);
    size_t n = 0;
    if (name && name[0])
        n += 1 + varint_len(strlen(name)) + strlen(name);
    n += 1 + varint_len((uint64_t)elem_type);
    for (int64_t i = 0; i < h.count; i++) {
        kn_tensor elem;
        size_t sub = 0;
        kn_blob_elem(t, i, &elem);
        int rc = value_size(NULL, &elem, depth + 1, &sub, err);
        if (rc != KN_OK)
            return rc;
        n += 1 + varint_len(sub) + sub;
    }
    *size = n;
    return KN_OK;
}

/* Writes what value_size measured. */
static int encode_value(out_buf *o, const char *name, const kn_tensor *t, int depth, kn_err *err)
{
    if (!kn_is_blob_dtype(t->dtype)) {
        size_t need = 0;
        int rc = value_size(name, t, depth, &need, err);
        if (rc == KN_OK && o->p && o->used <= o->cap && need <= o->cap - o->used)
            rc = kn_onnx_write_tensor(name, t, o->p + o->used, need, NULL, err);
        o->used += need;
        return rc;
    }
    kn_blob_header h;
    int32_t elem_type = blob_elem_type(t, &h);
    if (name && name[0]) {
        size_t n = strlen(name);
        put_tag(o, 1, 2);
        put_varint(o, n);
        put_bytes(o, name, n);
    }
    put_tag(o, 2, 0);
    put_varint(o, (uint64_t)elem_type);
    for (int64_t i = 0; i < h.count; i++) {
        kn_tensor elem;
        size_t sub = 0;
        kn_blob_elem(t, i, &elem);
        int rc = value_size(NULL, &elem, depth + 1, &sub, err);
        if (rc != KN_OK)
            return rc;
        put_tag(o, field_for(&elem), 2);
        put_varint(o, sub);
        size_t start = o->used;
        if ((rc = encode_value(o, NULL, &elem, depth + 1, err)) != KN_OK)
            return rc;
        if (o->used - start != sub)
            return kn_fail(err, KN_ERR_INTERNAL, "write value: element size changed");
    }
    return KN_OK;
}

int kn_onnx_write_value(const char *name, const kn_tensor *t, void *buf, size_t cap,
                        size_t *needed, kn_err *err)
{
    if (needed)
        *needed = 0;
    if (!t)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "write value: NULL value");
    if (!kn_is_blob_dtype(t->dtype))
        return kn_onnx_write_tensor(name, t, buf, cap, needed, err);
    if (!buf && cap)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "write value: NULL buffer with cap %zu", cap);
    int rc = kn_blob_check(t, "write value", err);
    if (rc != KN_OK)
        return rc;
    out_buf o = {buf, cap, 0};
    if ((rc = encode_value(&o, name, t, 0, err)) != KN_OK)
        return rc;
    if (needed)
        *needed = o.used;
    if (o.used > cap)
        return kn_fail(err, KN_ERR_BUFFER_TOO_SMALL,
                       "write value: %zu bytes needed, buffer holds %zu", o.used, cap);
    return KN_OK;
}
