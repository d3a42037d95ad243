/* TensorProto files (ONNX test data) for the CLI and the bindings, and
 * handles holding sequence and optional values (one blob each, see
 * core/ir/value_blob.h). */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "core/onnx/onnx.h"
#include "core/ir/value_blob.h"

_Static_assert(KILN_KIND_TENSOR == KN_KIND_TENSOR && KILN_KIND_SEQUENCE == KN_KIND_SEQUENCE &&
                   KILN_KIND_OPTIONAL == KN_KIND_OPTIONAL,
               "value kind codes");

/* Sequence and optional handles expose their contents only through
 * kiln_tensor_element: the blob layout is private. */
static int32_t refuse_blob(const kiln_tensor *t, const char *func)
{
    if (!kn_is_blob_dtype(t->t.dtype))
        return KILN_OK;
    return kiln_fail(KILN_ERR_DTYPE, "%s: the handle holds a %s, not a tensor: read it with "
                     "kiln_tensor_element_count and kiln_tensor_element", func,
                     kn_dtype_name(t->t.dtype));
}

int32_t kiln_tensor_decode(const void *data, size_t size, kiln_tensor **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    KILN_CHECK_ARG(data || size == 0, "data is NULL");
    kiln_tensor *t = calloc(1, sizeof *t);
    if (!t || !(t->bump = kn_bump_create())) {
        free(t);
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
    }
    kn_err err = {0};
    if (kn_onnx_read_tensor(t->bump, data, size, &t->t, &t->name, &err) != KN_OK) {
        kiln_tensor_destroy(t);
        return kiln_fail_err(&err);
    }
    *out = t;
    return KILN_OK;
}

void kiln_tensor_destroy(kiln_tensor *t)
{
    if (!t)
        return;
    kn_bump_destroy(t->bump);
    free(t);
}

int32_t kiln_tensor_info(const kiln_tensor *t, int32_t *dtype, int64_t *dims, int32_t cap,
                         int32_t *rank)
{
    KILN_CHECK_ARG(t, "tensor is NULL");
    int32_t rc = refuse_blob(t, __func__);
    if (rc != KILN_OK)
        return rc;
    if (dtype)
        *dtype = t->t.dtype;
    return kiln_copy_shape(t->t.dims, t->t.rank, dims, cap, rank);
}

int32_t kiln_tensor_data(const kiln_tensor *t, const void **data, size_t *nbytes)
{
    KILN_CHECK_ARG(t && data, "NULL argument");
    int32_t rc = refuse_blob(t, __func__);
    if (rc != KILN_OK)
        return rc;
    if (t->t.dtype == KN_STRING)
        return kiln_fail(KILN_ERR_DTYPE, "%s: the handle holds a string tensor: read its "
                         "elements with kiln_tensor_string", __func__);
    *data = t->t.data;
    if (nbytes)
        *nbytes = (size_t)kn_tensor_nbytes(&t->t);
    return KILN_OK;
}

int32_t kiln_tensor_name(const kiln_tensor *t, char *buf, int32_t cap, int32_t *needed)
{
    KILN_CHECK_ARG(t, "tensor is NULL");
    return kiln_copy_string(t->name ? t->name : "", buf, cap, needed);
}

int32_t kiln_tensor_encode(const char *name, int32_t dtype, const int64_t *dims, int32_t rank,
                           const void *data, size_t nbytes, void *buf, size_t cap,
                           size_t *needed)
{
    KILN_CHECK_ARG(rank >= 0 && rank <= KN_MAX_RANK, "rank out of range");
    KILN_CHECK_ARG(kn_dtype_kind(dtype) == KN_KIND_TENSOR, "dtype is not an element type");
    if (dtype == KN_STRING)
        return kiln_fail(KILN_ERR_DTYPE, "%s: string tensors cannot be encoded from raw bytes",
                         __func__);
    KILN_CHECK_ARG(rank == 0 || dims, "dims is NULL");
    kn_tensor t = {.dtype = dtype, .rank = rank, .data = (void *)data};
    for (int32_t i = 0; i < rank; i++)
        t.dims[i] = dims[i];
    int64_t expect = kn_tensor_nbytes(&t);
    if (expect < 0 || (uint64_t)expect != (uint64_t)nbytes)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "%zu data bytes do not match dtype %s and the shape (%lld bytes)", nbytes,
                         kn_dtype_name(dtype), (long long)expect);
    KILN_CHECK_ARG(data || nbytes == 0, "data is NULL");
    kn_err err = {0};
    if (kn_onnx_write_tensor(name ? name : "", &t, buf, cap, needed, &err) != KN_OK)
        return kiln_fail_err(&err);
    return KILN_OK;
}

/* An empty handle with its own pool. */
static int32_t new_handle(kiln_tensor **out)
{
    kiln_tensor *t = calloc(1, sizeof *t);
    if (!t || !(t->bump = kn_bump_create())) {
        free(t);
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
    }
    *out = t;
    return KILN_OK;
}

int32_t kiln_tensor_from_core(const kn_tensor *src, const char *name, kiln_tensor **out)
{
    *out = NULL;
    kiln_tensor *t = NULL;
    int32_t rc = new_handle(&t);
    if (rc != KILN_OK)
        return rc;
    int64_t nbytes = kn_tensor_nbytes(src), refs = nbytes;
    if (src->dtype == KN_STRING && nbytes >= 0) { /* deep copy: refs, then bytes */
        int64_t chars = kn_strings_bytes(src->data, kn_tensor_numel(src));
        nbytes = chars < 0 || chars > INT64_MAX / 2 - nbytes ? -1 : nbytes + chars;
    }
    t->t = *src;
    t->t.location = KN_LOC_HOST;
    /* The pool's 16-byte alignment keeps a blob's payloads aligned too. */
    t->t.data = nbytes >= 0 ? kn_bump_alloc(t->bump, nbytes > 0 ? (size_t)nbytes : 1) : NULL;
    t->name = kn_bump_strdup(t->bump, name ? name : "");
    if (!t->t.data || !t->name) {
        kiln_tensor_destroy(t);
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory copying a value");
    }
    if (src->dtype == KN_STRING)
        kn_strings_copy(t->t.data, (char *)t->t.data + refs, src->data, kn_tensor_numel(src));
    else if (nbytes > 0)
        memcpy(t->t.data, src->data, (size_t)nbytes);
    *out = t;
    return KILN_OK;
}

int32_t kiln_tensor_string(const kiln_tensor *t, int32_t index, char *buf, int32_t cap,
                           int32_t *needed)
{
    KILN_CHECK_ARG(t, "tensor is NULL");
    if (needed)
        *needed = 0;
    if (t->t.dtype != KN_STRING)
        return kiln_fail(KILN_ERR_DTYPE, "%s: the handle holds a %s %s, not a string tensor",
                         __func__, kn_dtype_name(t->t.dtype),
                         kn_is_blob_dtype(t->t.dtype) ? "value" : "tensor");
    int64_t n = kn_tensor_numel(&t->t);
    if (index < 0 || index >= n)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "%s: index %d out of range (%lld elements)",
                         __func__, (int)index, (long long)n);
    const kn_string *s = (const kn_string *)t->t.data + index;
    if (s->len > INT32_MAX - 1)
        return kiln_fail(KILN_ERR_LIMIT, "%s: element %d has %lld bytes", __func__, (int)index,
                         (long long)s->len);
    int32_t need = (int32_t)s->len + 1;
    if (needed)
        *needed = need;
    if (!buf || cap < need)
        return kiln_fail(KILN_ERR_BUFFER_TOO_SMALL, "%s: element %d needs %d bytes, buffer has %d",
                         __func__, (int)index, (int)need, (int)cap);
    if (s->len)
        memcpy(buf, s->ptr, (size_t)s->len);
    buf[s->len] = 0;
    return KILN_OK;
}

int32_t kiln_tensor_decode_value(const void *data, size_t size, int32_t kind, kiln_tensor **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    KILN_CHECK_ARG(data || size == 0, "data is NULL");
    if (kind != KILN_KIND_TENSOR && kind != KILN_KIND_SEQUENCE && kind != KILN_KIND_OPTIONAL)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "%s: unknown kind %d", __func__, (int)kind);
    kiln_tensor *t = NULL;
    int32_t rc = new_handle(&t);
    if (rc != KILN_OK)
        return rc;
    kn_err err = {0};
    if (kn_onnx_read_value(t->bump, data, size, kind, &t->t, &t->name, &err) != KN_OK) {
        kiln_tensor_destroy(t);
        return kiln_fail_err(&err);
    }
    *out = t;
    return KILN_OK;
}

int32_t kiln_tensor_kind(const kiln_tensor *t, int32_t *kind)
{
    KILN_CHECK_ARG(t && kind, "NULL argument");
    *kind = kn_dtype_kind(t->t.dtype);
    return KILN_OK;
}

static int32_t blob_or_fail(const kiln_tensor *t, const char *func)
{
    KILN_CHECK_ARG(t, "value is NULL");
    if (!kn_is_blob_dtype(t->t.dtype))
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "%s: the handle holds a tensor, not a "
                         "sequence or optional", func);
    return KILN_OK;
}

int32_t kiln_tensor_element_count(const kiln_tensor *t, int32_t *count)
{
    int32_t rc = blob_or_fail(t, __func__);
    if (rc != KILN_OK)
        return rc;
    KILN_CHECK_ARG(count, "count is NULL");
    int64_t n = kn_blob_count(&t->t);
    if (n > INT32_MAX)
        return kiln_fail(KILN_ERR_LIMIT, "%s: %lld elements do not fit an int32_t", __func__,
                         (long long)n);
    *count = (int32_t)n;
    return KILN_OK;
}

int32_t kiln_tensor_element(const kiln_tensor *t, int32_t index, kiln_tensor **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    int32_t rc = blob_or_fail(t, __func__);
    if (rc != KILN_OK)
        return rc;
    int64_t n = kn_blob_count(&t->t);
    if (index < 0 || index >= n)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "%s: index %d out of range (the %s has %lld "
                         "element%s)", __func__, (int)index, kn_dtype_name(t->t.dtype),
                         (long long)n, n == 1 ? "" : "s");
    kn_tensor e;
    kn_blob_elem(&t->t, index, &e);
    return kiln_tensor_from_core(&e, "", out);
}
