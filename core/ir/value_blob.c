/* Sequence / optional blobs (layout in value_blob.h). Headers and entries
 * are read and written with memcpy, so a blob that happens to sit at an
 * unaligned address is still read correctly. */
#include "core/ir/value_blob.h"

#include <string.h>

static int64_t align_up(int64_t n)
{
    if (n < 0 || n > INT64_MAX - (KN_BLOB_ALIGN - 1))
        return -1;
    return (n + KN_BLOB_ALIGN - 1) / KN_BLOB_ALIGN * KN_BLOB_ALIGN;
}

int64_t kn_blob_add_bytes(int64_t a, int64_t b)
{
    if (a < 0 || b < 0 || a > INT64_MAX - b)
        return -1;
    return a + b;
}

int64_t kn_blob_base_bytes(int64_t count)
{
    const int64_t entry = (int64_t)sizeof(kn_blob_entry);
    if (count < 0 || count > (INT64_MAX - (int64_t)sizeof(kn_blob_header)) / entry)
        return -1;
    return (int64_t)sizeof(kn_blob_header) + count * entry;
}

int64_t kn_blob_payload_bytes(const kn_tensor *elem)
{
    return align_up(kn_tensor_nbytes(elem));
}

void kn_blob_desc(kn_tensor *t, int32_t dtype, int64_t nbytes)
{
    t->dtype = dtype;
    t->rank = 1;
    memset(t->dims, 0, sizeof t->dims);
    t->dims[0] = nbytes;
}

int kn_blob_begin(kn_blob_writer *w, kn_tensor *blob, int64_t count, int32_t elem_kind,
                  int32_t elem_dtype, kn_err *err)
{
    memset(w, 0, sizeof *w);
    int64_t base = kn_blob_base_bytes(count);
    if (!kn_is_blob_dtype(blob->dtype) || blob->rank != 1 || !blob->data || base < 0 ||
        blob->dims[0] < base)
        return kn_fail(err, KN_ERR_INTERNAL, "sequence blob of %lld bytes cannot hold %lld "
                       "entries", (long long)blob->dims[0], (long long)count);
    w->base = blob->data;
    w->cap = blob->dims[0];
    w->count = count;
    w->end = base;
    kn_blob_header h = {count, elem_kind, elem_dtype};
    memcpy(w->base, &h, sizeof h);
    return KN_OK;
}

int kn_blob_push(kn_blob_writer *w, const kn_tensor *elem, kn_err *err)
{
    void *payload = NULL;
    int rc = kn_blob_reserve(w, elem, &payload, err);
    int64_t nbytes = kn_tensor_nbytes(elem);
    if (rc == KN_OK && nbytes > 0)
        memcpy(payload, elem->data, (size_t)nbytes);
    return rc;
}

int kn_blob_reserve(kn_blob_writer *w, const kn_tensor *elem, void **payload, kn_err *err)
{
    int64_t nbytes = kn_tensor_nbytes(elem), padded = align_up(nbytes);
    if (w->next >= w->count || padded < 0 || elem->rank < 0 || elem->rank > KN_MAX_RANK ||
        padded > w->cap - w->end)
        return kn_fail(err, KN_ERR_INTERNAL, "sequence blob: element %lld does not fit",
                       (long long)w->next);
    kn_blob_entry e;
    memset(&e, 0, sizeof e);
    e.kind = kn_dtype_kind(elem->dtype);
    e.dtype = elem->dtype;
    e.rank = elem->rank;
    for (int32_t d = 0; d < elem->rank; d++)
        e.dims[d] = elem->dims[d];
    e.offset = w->end;
    e.nbytes = nbytes;
    memcpy(w->base + sizeof(kn_blob_header) + (size_t)w->next * sizeof e, &e, sizeof e);
    *payload = w->base + w->end;
    if (padded > nbytes)
        memset(w->base + w->end + nbytes, 0, (size_t)(padded - nbytes));
    w->end += padded;
    w->next++;
    return KN_OK;
}

int kn_blob_end(kn_blob_writer *w, kn_err *err)
{
    if (w->next != w->count)
        return kn_fail(err, KN_ERR_INTERNAL, "sequence blob: %lld of %lld entries written",
                       (long long)w->next, (long long)w->count);
    if (w->end < w->cap) /* a blob sized generously: keep the tail deterministic */
        memset(w->base + w->end, 0, (size_t)(w->cap - w->end));
    return KN_OK;
}

void kn_blob_read_header(const kn_tensor *blob, kn_blob_header *h)
{
    memcpy(h, blob->data, sizeof *h);
}

int64_t kn_blob_count(const kn_tensor *blob)
{
    kn_blob_header h;
    kn_blob_read_header(blob, &h);
    return h.count;
}

void kn_blob_read_entry(const kn_tensor *blob, int64_t i, kn_blob_entry *e)
{
    memcpy(e, (const unsigned char *)blob->data + sizeof(kn_blob_header) + (size_t)i * sizeof *e,
           sizeof *e);
}

void kn_blob_elem(const kn_tensor *blob, int64_t i, kn_tensor *out)
{
    kn_blob_entry e;
    kn_blob_read_entry(blob, i, &e);
    memset(out, 0, sizeof *out);
    out->dtype = e.dtype;
    out->rank = e.rank;
    for (int32_t d = 0; d < e.rank && d < KN_MAX_RANK; d++)
        out->dims[d] = e.dims[d];
    out->data = (unsigned char *)blob->data + e.offset;
    out->location = blob->location;
}

static int check_entry(const kn_tensor *blob, int64_t i, int64_t base, const char *what,
                       int depth, kn_err *err);

static int check_blob(const kn_tensor *blob, const char *what, int depth, kn_err *err)
{
    if (depth > KN_BLOB_MAX_DEPTH)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "%s: sequences nested deeper than %d",
                       what, KN_BLOB_MAX_DEPTH);
    if (!kn_is_blob_dtype(blob->dtype) || blob->rank != 1)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "%s is not a sequence or optional value",
                       what);
    int64_t size = blob->dims[0];
    if (size < (int64_t)sizeof(kn_blob_header) || !blob->data)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "%s: %lld bytes are too few for a %s value",
                       what, (long long)size, kn_dtype_name(blob->dtype));
    kn_blob_header h;
    kn_blob_read_header(blob, &h);
    int64_t max = (size - (int64_t)sizeof h) / (int64_t)sizeof(kn_blob_entry);
    if (h.count < 0 || h.count > max)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "%s: entry count %lld does not fit in %lld "
                       "bytes", what, (long long)h.count, (long long)size);
    if (blob->dtype == KN_OPTIONAL && h.count > 1)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "%s: an optional holds %lld values",
                       what, (long long)h.count);
    if (h.elem_kind < KN_BLOB_KIND_UNKNOWN || h.elem_kind > KN_KIND_OPTIONAL)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "%s: bad element kind %d", what,
                       (int)h.elem_kind);
    int64_t base = kn_blob_base_bytes(h.count);
    for (int64_t i = 0; i < h.count; i++) {
        int rc = check_entry(blob, i, base, what, depth, err);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}

static int check_entry(const kn_tensor *blob, int64_t i, int64_t base, const char *what,
                       int depth, kn_err *err)
{
    kn_blob_entry e;
    kn_blob_read_entry(blob, i, &e);
    int nested = e.kind == KN_KIND_SEQUENCE || e.kind == KN_KIND_OPTIONAL;
    /* A tensor's dtype must be a real one; whether a tensor of it can exist
     * at all (not string, not unknown) is kn_shape_nbytes's call below. */
    if (e.kind < KN_KIND_TENSOR || e.kind > KN_KIND_OPTIONAL || kn_dtype_kind(e.dtype) != e.kind ||
        (!nested && (e.dtype <= KN_UNDEFINED || e.dtype >= KN_DTYPE_COUNT)))
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "%s: element %lld has bad kind %d / dtype %d",
                       what, (long long)i, (int)e.kind, (int)e.dtype);
    if (e.rank < 0 || e.rank > KN_MAX_RANK || (nested && e.rank != 1))
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "%s: element %lld has bad rank %d", what,
                       (long long)i, (int)e.rank);
    int64_t nbytes = kn_shape_nbytes(e.dtype, e.dims, e.rank), padded = align_up(nbytes);
    if (nbytes < 0 || nbytes != e.nbytes)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "%s: element %lld's size does not match "
                       "its shape", what, (long long)i);
    if (e.offset < base || e.offset % KN_BLOB_ALIGN != 0 || padded < 0 ||
        e.offset > blob->dims[0] || nbytes > blob->dims[0] - e.offset)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "%s: element %lld lies outside the value's "
                       "%lld bytes", what, (long long)i, (long long)blob->dims[0]);
    if (!nested)
        return KN_OK;
    kn_tensor inner;
    kn_blob_elem(blob, i, &inner);
    return check_blob(&inner, what, depth + 1, err);
}

int kn_blob_check(const kn_tensor *blob, const char *what, kn_err *err)
{
    return check_blob(blob, what ? what : "value", 0, err);
}
