/* DepthToSpace and SpaceToDepth: pure rearrangements of a 4-D NCHW tensor.
 * Each is the input seen as a 6-D view (channels split into block
 * offsets) with permuted strides, copied by the strided engine on element
 * byte size. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

static int check_input(kn_kctx *k, int64_t *b)
{
    const kn_tensor *in = k->in[0];
    *b = kn_attr_int(k->node, "blocksize", 0);
    if (in->rank != 4)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: input must be 4-D (NCHW), not rank %d",
                       k->node->op_type, (int)in->rank);
    if (*b < 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: blocksize must be >= 1, not %lld",
                       k->node->op_type, (long long)*b);
    if (kn_dtype_size(in->dtype) == 0)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: type %s is not supported",
                       k->node->op_type, kn_dtype_name(in->dtype));
    return KN_OK;
}

static int plan_state(kn_kctx *k, const int64_t *dims, const int64_t *strides)
{
    kn_strided_plan *plan = malloc(sizeof *plan);
    if (!plan)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    kn_strided_init(plan, kn_dtype_size(k->in[0]->dtype), 6, dims, strides, 0);
    k->state = plan;
    return KN_OK;
}

/* Output [N, C/b^2, H*b, W*b] walked as [N, C', H, bh, W, bw]. The input
 * channel of (c', bh, bw) is (bh*b + bw)*C' + c' in DCR mode (the default)
 * and c'*b^2 + bh*b + bw in CRD mode. */
static int depth_to_space_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    int64_t b;
    if (check_input(k, &b) != KN_OK)
        return k->err->code;
    const char *mode = kn_attr_string(k->node, "mode", "DCR");
    int crd = strcmp(mode, "CRD") == 0;
    if (!crd && strcmp(mode, "DCR") != 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "DepthToSpace: unknown mode '%s'", mode);
    const int64_t n = in->dims[0], c = in->dims[1], h = in->dims[2], w = in->dims[3];
    if (c % (b * b) != 0)
        return kn_fail(k->err, KN_ERR_SHAPE, "DepthToSpace: %lld channels do not divide by blocksize^2 = %lld",
                       (long long)c, (long long)(b * b));
    const int64_t co = c / (b * b), sc = h * w;
    kn_copy_desc(out, in);
    out->dims[1] = co;
    out->dims[2] = h * b;
    out->dims[3] = w * b;
    int64_t dims[6] = {n, co, h, b, w, b};
    int64_t strides[6] = {c * sc, crd ? b * b * sc : sc, w, crd ? b * sc : b * co * sc, 1,
                          crd ? sc : co * sc};
    return plan_state(k, dims, strides);
}

/* Output [N, C*b^2, H/b, W/b] walked as [N, bh, bw, C, H', W']: output
 * channel (bh*b + bw)*C + c holds input pixel (h'*b + bh, w'*b + bw). */
static int space_to_depth_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    int64_t b;
    if (check_input(k, &b) != KN_OK)
        return k->err->code;
    const int64_t n = in->dims[0], c = in->dims[1], h = in->dims[2], w = in->dims[3];
    if (h % b != 0 || w % b != 0)
        return kn_fail(k->err, KN_ERR_SHAPE, "SpaceToDepth: %lldx%lld does not divide by blocksize %lld",
                       (long long)h, (long long)w, (long long)b);
    kn_copy_desc(out, in);
    out->dims[1] = c * b * b;
    out->dims[2] = h / b;
    out->dims[3] = w / b;
    int64_t dims[6] = {n, b, b, c, h / b, w / b};
    int64_t strides[6] = {c * h * w, w, 1, h * w, b * w, b};
    return plan_state(k, dims, strides);
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

const kn_op_def kn_op_DepthToSpace = {
    .op_type = "DepthToSpace", .since_version = 1, .prepare = depth_to_space_prepare,
    .run = strided_run, .release = plan_release
};
const kn_op_def kn_op_SpaceToDepth = {
    .op_type = "SpaceToDepth", .since_version = 1, .prepare = space_to_depth_prepare,
    .run = strided_run, .release = plan_release
};
