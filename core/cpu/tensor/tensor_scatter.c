/* TensorScatter (opset 24): writes an update into a KV cache along its
 * sequence axis (default -2), at a per-batch position:
 *
 *     present = past;  present[b, ..., w[b] + s, ...] = update[b, ..., s, ...]
 *
 * for s < update's length on that axis, with w = write_indices (zeros when
 * omitted). mode "linear" requires w[b] + length <= the cache's length;
 * "circular" wraps positions modulo it. Batch is dim 0, so the axis may not
 * be. The output may reuse the cache's memory (KN_OP_INPLACE): only update
 * rows are written then. */
#include <string.h>

#include "core/kernel/tensor_common.h"

typedef struct ts_geom {
    int32_t axis;
    int circular;
} ts_geom;

static int ts_read(kn_kctx *k, ts_geom *g)
{
    const kn_tensor *past = k->in[0];
    const char *mode = kn_attr_string(k->node, "mode", "linear");
    if (strcmp(mode, "linear") && strcmp(mode, "circular"))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "TensorScatter: mode '%s' is not linear or "
                       "circular", mode);
    g->circular = mode[0] == 'c';
    g->axis = kn_norm_axis(kn_attr_int(k->node, "axis", -2), past->rank, k->err);
    if (g->axis < 0) {
        kn_err_prefix(k->err, "TensorScatter");
        return k->err->code;
    }
    if (g->axis == 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "TensorScatter: axis must not be the batch "
                       "axis 0");
    return KN_OK;
}

static int ts_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *past = k->in[0], *up = k->in[1], *wi = kn_input(k, 2);
    if (up->dtype != past->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "TensorScatter: update is %s, past_cache is %s",
                       kn_dtype_name(up->dtype), kn_dtype_name(past->dtype));
    if (past->rank < 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "TensorScatter: past_cache must have rank >= 2");
    ts_geom g;
    if (ts_read(k, &g) != KN_OK)
        return k->err->code;
    int ok = up->rank == past->rank;
    for (int32_t d = 0; ok && d < past->rank; d++)
        ok = d == g.axis ? up->dims[d] <= past->dims[d] : up->dims[d] == past->dims[d];
    if (!ok) {
        char sp[128], su[128];
        kn_shape_format(past->dims, past->rank, sp, sizeof sp);
        kn_shape_format(up->dims, up->rank, su, sizeof su);
        return kn_fail(k->err, KN_ERR_SHAPE, "TensorScatter: update %s does not fit past_cache %s "
                       "along axis %d", su, sp, (int)g.axis);
    }
    if (wi && ((wi->dtype != KN_INT64 && wi->dtype != KN_INT32) || wi->rank != 1 ||
               wi->dims[0] != past->dims[0]))
        return kn_fail(k->err, KN_ERR_SHAPE, "TensorScatter: write_indices must be an int64 vector "
                       "of batch size %lld", (long long)past->dims[0]);
    kn_copy_desc(k->out[0], past);
    return KN_OK;
}

static int ts_run(kn_kctx *k)
{
    const kn_tensor *past = k->in[0], *up = k->in[1], *wi = kn_input(k, 2);
    kn_tensor *out = k->out[0];
    ts_geom g;
    if (ts_read(k, &g) != KN_OK)
        return k->err->code;
    int64_t nb = kn_tensor_nbytes(past);
    if (nb > 0 && out->data != past->data)
        memcpy(out->data, past->data, (size_t)nb);
    size_t row = (size_t)kn_shape_numel(past->dims + g.axis + 1, past->rank - g.axis - 1) *
                 kn_dtype_size(past->dtype);
    int64_t batch = past->dims[0], max_len = past->dims[g.axis], len = up->dims[g.axis];
    int64_t per_batch = kn_shape_numel(past->dims + 1, g.axis - 1); /* prefix rows per batch */
    for (int64_t b = 0; b < batch; b++) {
        int64_t w = wi ? kn_read_int(wi, b) : 0;
        if (!g.circular && (w < 0 || w > max_len - len))
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "TensorScatter: write index %lld for "
                           "batch %lld does not leave room for %lld positions in %lld",
                           (long long)w, (long long)b, (long long)len, (long long)max_len);
        for (int64_t p = 0; p < per_batch; p++) {
            int64_t prefix = b * per_batch + p;
            for (int64_t s = 0; s < len; s++) {
                int64_t pos = w + s;
                if (g.circular)
                    pos = ((pos % max_len) + max_len) % max_len;
                memcpy((char *)out->data + (size_t)(prefix * max_len + pos) * row,
                       (const char *)up->data + (size_t)(prefix * len + s) * row, row);
            }
        }
    }
    return KN_OK;
}

const kn_op_def kn_op_TensorScatter = {
    .op_type = "TensorScatter", .since_version = 24,
    .dtypes = KN_MASK_ANY_FIXED | KN_MASK_FLOAT8, .flags = KN_OP_INPLACE, .prepare = ts_prepare,
    .run = ts_run
};
