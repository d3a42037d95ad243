/* TensorProto files (ONNX test data) for the CLI and the bindings. */
#include <stdlib.h>

#include "api_internal.h"
#include "core/onnx/onnx.h"

int32_t kiln_tensor_decode(const void *data, size_t size, kiln_tensor **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    KILN_CHECK_ARG(data || size == 0, "data is NULL");
    kiln_tensor *t = calloc(1, sizeof *t);
    if (!t || !(t->pool = kn_pool_create())) {
        free(t);
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
    }
    kn_err err = {0};
    if (kn_onnx_read_tensor(t->pool, data, size, &t->t, &t->name, &err) != KN_OK) {
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
    kn_pool_destroy(t->pool);
    free(t);
}

int32_t kiln_tensor_info(const kiln_tensor *t, int32_t *dtype, int64_t *dims, int32_t cap,
                         int32_t *rank)
{
    KILN_CHECK_ARG(t, "tensor is NULL");
    if (dtype)
        *dtype = t->t.dtype;
    return kiln_copy_shape(t->t.dims, t->t.rank, dims, cap, rank);
}

int32_t kiln_tensor_data(const kiln_tensor *t, const void **data, size_t *nbytes)
{
    KILN_CHECK_ARG(t && data, "NULL argument");
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
