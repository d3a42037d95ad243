/* kn_tensor → TensorProto bytes. Fields go out in field-number order with
 * unpacked dims, as the onnx Python package writes them, so re-encoding a
 * raw_data tensor it wrote gives the same bytes. */
#include <string.h>

#include "core/onnx/onnx.h"
#include "core/onnx/pb_write.h"

/* Appends to buf while there is room and always counts, so one routine
 * both measures and writes. */
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

static void put_len_field(out_buf *o, uint32_t num, const void *data, size_t n)
{
    put_varint(o, (uint64_t)num << 3 | 2);
    put_varint(o, n);
    put_bytes(o, data, n);
}

int kn_onnx_write_tensor(const char *name, const kn_tensor *t, void *buf, size_t cap,
                         size_t *needed, kn_err *err)
{
    if (needed)
        *needed = 0;
    if (!t)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "write tensor: NULL tensor");
    if (!buf && cap)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "write tensor: NULL buffer with cap %zu",
                       cap);
    if (kn_dtype_bits(t->dtype) == 0) /* packed types go out as their packed bytes */
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "write tensor: cannot encode dtype %d (%s)",
                       (int)t->dtype, kn_dtype_name(t->dtype));
    if (t->rank < 0 || t->rank > KN_MAX_RANK)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "write tensor: bad rank %d", (int)t->rank);
    int64_t nbytes = kn_tensor_nbytes(t);
    if (nbytes < 0 || (uint64_t)nbytes > SIZE_MAX / 2)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT,
                       "write tensor: negative dims or byte size overflow");
    if (nbytes > 0 && !t->data)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "write tensor: NULL data");

    out_buf o = {buf, cap, 0};
    for (int32_t i = 0; i < t->rank; i++) {
        put_varint(&o, 1 << 3 | 0);
        put_varint(&o, (uint64_t)t->dims[i]);
    }
    put_varint(&o, 2 << 3 | 0);
    put_varint(&o, (uint64_t)t->dtype);
    if (t->dtype == KN_STRING) { /* string_data (6) comes before name (8) */
        const kn_string *str = t->data;
        int64_t n = kn_tensor_numel(t);
        for (int64_t i = 0; i < n; i++) {
            if (str[i].len < 0 || (str[i].len > 0 && !str[i].ptr))
                return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "write tensor: bad string %lld",
                               (long long)i);
            put_len_field(&o, 6, str[i].ptr, (size_t)str[i].len);
        }
    }
    if (name && name[0])
        put_len_field(&o, 8, name, strlen(name));
    if (t->dtype != KN_STRING)
        put_len_field(&o, 9, t->data, (size_t)nbytes);
    if (needed)
        *needed = o.used;
    if (o.used > cap)
        return kn_fail(err, KN_ERR_BUFFER_TOO_SMALL,
                       "write tensor: %zu bytes needed, buffer holds %zu", o.used, cap);
    return KN_OK;
}
