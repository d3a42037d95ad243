/* Small helpers shared by kernels: broadcasting, axes, typed reads, and
 * finding a kernel in one backend's tables. */
#include <string.h>

#include "core/kernel/backend.h"
#include "core/kernel/op.h"

int kn_broadcast_shape(const kn_tensor *a, const kn_tensor *b, kn_tensor *out, kn_err *err)
{
    int32_t rank = a->rank > b->rank ? a->rank : b->rank;
    int64_t dims[KN_MAX_RANK];
    for (int32_t i = 0; i < rank; i++) {
        int32_t ia = i - (rank - a->rank), ib = i - (rank - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da == db || db == 1)
            dims[i] = da;
        else if (da == 1)
            dims[i] = db;
        else {
            char sa[128], sb[128];
            kn_shape_format(a->dims, a->rank, sa, sizeof sa);
            kn_shape_format(b->dims, b->rank, sb, sizeof sb);
            return kn_fail(err, KN_ERR_SHAPE, "shapes %s and %s do not broadcast (dim %d: %lld vs %lld)",
                           sa, sb, (int)i, (long long)da, (long long)db);
        }
    }
    out->rank = rank;
    memcpy(out->dims, dims, sizeof(int64_t) * (size_t)rank);
    return KN_OK;
}

int32_t kn_norm_axis(int64_t axis, int32_t rank, kn_err *err)
{
    if (axis < -(int64_t)rank || axis >= (int64_t)rank) {
        kn_fail(err, KN_ERR_INVALID_MODEL, "axis %lld out of range for rank %d", (long long)axis,
                (int)rank);
        return -1;
    }
    return (int32_t)(axis < 0 ? axis + rank : axis);
}

int64_t kn_read_int(const kn_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case KN_INT64: return ((const int64_t *)t->data)[i];
    case KN_INT32: return ((const int32_t *)t->data)[i];
    case KN_INT16: return ((const int16_t *)t->data)[i];
    case KN_INT8: return ((const int8_t *)t->data)[i];
    case KN_UINT64: return (int64_t)((const uint64_t *)t->data)[i];
    case KN_UINT32: return ((const uint32_t *)t->data)[i];
    case KN_UINT16: return ((const uint16_t *)t->data)[i];
    case KN_UINT8: case KN_BOOL: return ((const uint8_t *)t->data)[i];
    case KN_FLOAT: case KN_DOUBLE: case KN_FLOAT16: case KN_BFLOAT16:
        return (int64_t)kn_read_double(t, i);
    default: return 0;
    }
}

double kn_read_double(const kn_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case KN_FLOAT: return ((const float *)t->data)[i];
    case KN_DOUBLE: return ((const double *)t->data)[i];
    case KN_FLOAT16: return kn_f16_to_f32(((const uint16_t *)t->data)[i]);
    case KN_BFLOAT16: return kn_bf16_to_f32(((const uint16_t *)t->data)[i]);
    case KN_UINT64: return (double)((const uint64_t *)t->data)[i];
    default: return (double)kn_read_int(t, i);
    }
}

int kn_same_domain(const char *a, const char *b)
{
    int a_default = !a || !a[0] || strcmp(a, "ai.onnx") == 0;
    int b_default = !b || !b[0] || strcmp(b, "ai.onnx") == 0;
    if (a_default || b_default)
        return a_default && b_default;
    return strcmp(a, b) == 0;
}

/* match_dtype 0: any entry for the op and opset */
static const kn_op_def *find_kernel(const kn_backend *b, const char *domain, const char *op_type,
                                    int64_t opset, int32_t dtype, int match_dtype)
{
    for (const kn_op_def *const *const *t = b->kernel_tables; t && *t; t++)
        for (const kn_op_def *const *p = *t; *p; p++) {
            const kn_op_def *d = *p;
            if (strcmp(d->op_type, op_type) != 0 || !kn_same_domain(d->domain, domain) ||
                !kn_op_serves_opset(d, opset))
                continue;
            if (match_dtype && d->dtypes &&
                (dtype < 0 || dtype >= 32 || !(d->dtypes & KN_BIT(dtype))))
                continue;
            return d;
        }
    return NULL;
}

const kn_op_def *kn_backend_kernel(const kn_backend *backend, const char *domain,
                                   const char *op_type, int64_t opset, int32_t dtype)
{
    return find_kernel(backend, domain, op_type, opset, dtype, 1);
}

const kn_op_def *kn_backend_kernel_any(const kn_backend *backend, const char *domain,
                                       const char *op_type, int64_t opset)
{
    return find_kernel(backend, domain, op_type, opset, 0, 0);
}

int kn_output_within_limit(const kn_kctx *k, int32_t index)
{
    const kn_tensor *y = k->out[index];
    int64_t nbytes = y ? kn_tensor_nbytes(y) : 0;
    if (k->max_bytes > 0 && nbytes > k->max_bytes)
        return kn_fail(k->err, KN_ERR_LIMIT, "output %d needs %lld bytes, above the memory limit "
                       "of %lld", (int)index, (long long)nbytes, (long long)k->max_bytes);
    return KN_OK;
}
