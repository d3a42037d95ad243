/* Expand and Tile: both repeat the input, and both are the input seen with
 * zero strides, copied by the strided engine. Expand broadcasts to a shape
 * (numpy rules, both ways); Tile splits each dim i into (repeats[i],
 * dims[i]) with stride 0 on the repeat, so rank 8 becomes at most 16
 * strided dims. Their shape / repeats values must be known at prepare
 * (KN_ERR_NEEDS_VALUE otherwise). */
#include <stdlib.h>

#include "core/kernel/tensor_common.h"

static int plan_state(kn_kctx *k, int32_t rank, const int64_t *dims, const int64_t *strides)
{
    kn_strided_plan *plan = malloc(sizeof *plan);
    if (!plan)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    kn_strided_init(plan, kn_dtype_size(k->in[0]->dtype), rank, dims, strides, 0);
    k->state = plan;
    return KN_OK;
}

static int check_dtype(kn_kctx *k)
{
    if (kn_dtype_size(k->in[0]->dtype) == 0)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: type %s is not supported",
                       k->node->op_type, kn_dtype_name(k->in[0]->dtype));
    return KN_OK;
}

static int expand_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    kn_tensor shape = {.dtype = in->dtype};
    if (check_dtype(k) != KN_OK ||
        kn_const_ints(k, 1, "shape", shape.dims, KN_MAX_RANK, &shape.rank) != KN_OK)
        return k->err->code;
    if (kn_broadcast_shape(in, &shape, out, k->err) != KN_OK) {
        kn_err_prefix(k->err, "Expand");
        return k->err->code;
    }
    out->dtype = in->dtype;
    if (kn_tensor_nbytes(out) < 0)
        return kn_fail(k->err, KN_ERR_SHAPE, "Expand: output is too large");
    int64_t in_strides[KN_MAX_RANK], strides[KN_MAX_RANK];
    kn_dense_strides(in->dims, in->rank, in_strides);
    int32_t lead = out->rank - in->rank;
    for (int32_t d = 0; d < out->rank; d++)
        strides[d] = d < lead || in->dims[d - lead] == 1 ? 0 : in_strides[d - lead];
    return plan_state(k, out->rank, out->dims, strides);
}

static int tile_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    int64_t reps[KN_MAX_RANK];
    int32_t n;
    if (check_dtype(k) != KN_OK || kn_const_ints(k, 1, "repeats", reps, KN_MAX_RANK, &n) != KN_OK)
        return k->err->code;
    if (n != in->rank)
        return kn_fail(k->err, KN_ERR_SHAPE, "Tile: %d repeats for an input of rank %d", (int)n,
                       (int)in->rank);
    int64_t in_strides[KN_MAX_RANK], dims[2 * KN_MAX_RANK], strides[2 * KN_MAX_RANK];
    kn_dense_strides(in->dims, in->rank, in_strides);
    kn_copy_desc(out, in);
    for (int32_t d = 0; d < in->rank; d++) {
        if (reps[d] < 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Tile: repeats[%d] is %lld", (int)d,
                           (long long)reps[d]);
        if (reps[d] > 0 && in->dims[d] > INT64_MAX / reps[d])
            return kn_fail(k->err, KN_ERR_SHAPE, "Tile: output is too large");
        out->dims[d] = in->dims[d] * reps[d];
        dims[2 * d] = reps[d];
        strides[2 * d] = 0;
        dims[2 * d + 1] = in->dims[d];
        strides[2 * d + 1] = in_strides[d];
    }
    if (kn_tensor_nbytes(out) < 0)
        return kn_fail(k->err, KN_ERR_SHAPE, "Tile: output is too large");
    return plan_state(k, 2 * in->rank, dims, strides);
}

static int strided_run(kn_kctx *k)
{
    kn_strided_run(k->state, k->in[0]->data, k->out[0]->data, k->threads);
    return KN_OK;
}

static void plan_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_Expand = {
    .op_type = "Expand", .since_version = 8, .prepare = expand_prepare, .run = strided_run,
    .release = plan_release
};
const kn_op_def kn_op_Tile = {
    .op_type = "Tile", .since_version = 6, .prepare = tile_prepare, .run = strided_run,
    .release = plan_release
};
