/* Compress (opsets 9, 11): the slices along `axis` (or the elements of the
 * flattened input, without axis) whose entry in the bool condition is
 * true, like numpy.compress. A condition shorter than the axis leaves the
 * remaining slices out; one longer must have no true entry past the end.
 *
 * The output size is the number of true entries, so prepare() needs the
 * condition's value (KN_ERR_NEEDS_VALUE otherwise); the input itself need
 * not be a constant. Any fixed-size dtype is copied as bytes. */
#include <string.h>

#include "core/kernel/tensor_common.h"

typedef struct compress_geom {
    int64_t outer, d, inner; /* input as [outer, d, inner]; selection along d */
    int64_t cond_n;          /* condition entries that index the input */
} compress_geom;

static int compress_geometry(kn_kctx *k, compress_geom *g)
{
    const kn_tensor *x = k->in[0], *cond = k->in[1];
    if (cond->dtype != KN_BOOL || cond->rank != 1)
        return kn_fail(k->err, KN_ERR_DTYPE, "Compress: condition must be a 1-D bool tensor, got "
                       "%s of rank %d", kn_dtype_name(cond->dtype), (int)cond->rank);
    if (!kn_dtype_size(x->dtype))
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Compress: %s input is not supported",
                       kn_dtype_name(x->dtype));
    int32_t axis = -1;
    if (kn_node_attr(k->node, "axis")) {
        axis = kn_norm_axis(kn_attr_int(k->node, "axis", 0), x->rank, NULL);
        if (axis < 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Compress: axis out of range for rank %d",
                           (int)x->rank);
    }
    g->outer = axis < 0 ? 1 : kn_shape_numel(x->dims, axis);
    g->d = axis < 0 ? kn_tensor_numel(x) : x->dims[axis];
    g->inner = axis < 0 ? 1 : kn_shape_numel(x->dims + axis + 1, x->rank - axis - 1);
    g->cond_n = cond->dims[0] < g->d ? cond->dims[0] : g->d;
    return KN_OK;
}

static int compress_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    compress_geom g;
    int rc = compress_geometry(k, &g);
    if (rc != KN_OK)
        return rc;
    const kn_tensor *x = k->in[0], *cond = k->in[1];
    if (!cond->data)
        return kn_fail(k->err, KN_ERR_NEEDS_VALUE,
                       "Compress: output shape depends on the value of input 'condition'");
    const uint8_t *c = cond->data;
    int64_t kept = 0;
    for (int64_t i = 0; i < cond->dims[0]; i++) {
        if (c[i] && i >= g.d)
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                           "Compress: condition[%lld] is true but the axis has only %lld entries",
                           (long long)i, (long long)g.d);
        kept += c[i] != 0;
    }
    kn_tensor *y = k->out[0];
    kn_copy_desc(y, x);
    if (kn_node_attr(k->node, "axis")) {
        int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", 0), x->rank, NULL);
        y->dims[axis] = kept;
    } else {
        y->rank = 1;
        y->dims[0] = kept;
    }
    return KN_OK;
}

static int compress_run(kn_kctx *k)
{
    compress_geom g;
    int rc = compress_geometry(k, &g);
    if (rc != KN_OK)
        return rc;
    const kn_tensor *x = k->in[0], *y = k->out[0];
    const uint8_t *c = k->in[1]->data;
    size_t row = (size_t)g.inner * kn_dtype_size(x->dtype);
    int64_t cap = kn_tensor_numel(y) * (int64_t)kn_dtype_size(x->dtype), written = 0;
    const char *src = x->data;
    char *dst = y->data;
    for (int64_t o = 0; o < g.outer; o++)
        for (int64_t i = 0; i < g.cond_n; i++) {
            if (!c[i])
                continue;
            if (written + (int64_t)row > cap) /* condition changed since prepare() */
                return kn_fail(k->err, KN_ERR_INTERNAL, "Compress: condition changed after planning");
            memcpy(dst + written, src + (size_t)(o * g.d + i) * row, row);
            written += (int64_t)row;
        }
    return KN_OK;
}

#define COMPRESS_TYPES (KN_MASK_ALL | KN_BIT(KN_COMPLEX64) | KN_BIT(KN_COMPLEX128))
/* 11 adds negative axes, which the shared code accepts throughout. */
const kn_op_def kn_op_Compress = {
    .op_type = "Compress", .since_version = 9, .dtypes = COMPRESS_TYPES,
    .prepare = compress_prepare, .run = compress_run
};
