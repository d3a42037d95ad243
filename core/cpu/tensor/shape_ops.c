/* Ops that only change how a tensor is described: Reshape, Flatten,
 * Squeeze, Unsqueeze, Identity, Dropout (inference) keep input 0's bytes
 * as they are (KN_OP_ALIAS: the planner may give the output the very same
 * memory, and run() then has nothing to do), and Shape and Size read only
 * the input's dims (KN_OP_SHAPE_ONLY). All shape work is in prepare. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

/* Copies input 0 to output 0 unless they are the same memory. */
static void copy_through(kn_kctx *k)
{
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    int64_t nb = kn_tensor_nbytes(out);
    if (out->data != in->data && nb > 0)
        memcpy(out->data, in->data, (size_t)nb);
}

static int alias_run(kn_kctx *k)
{
    copy_through(k);
    return KN_OK;
}

static int fail_rank(kn_kctx *k, int64_t rank)
{
    return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: output rank %lld exceeds the supported %d",
                   k->node->op_type, (long long)rank, KN_MAX_RANK);
}

/* ---- Reshape ---- */

static int reshape_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    int64_t shape[KN_MAX_RANK];
    int32_t n = 0;
    char si[128], so[128];
    if (k->opset < 5) {
        const int64_t *v = kn_attr_ints(k->node, "shape", &n);
        if (n > KN_MAX_RANK)
            return fail_rank(k, n);
        for (int32_t i = 0; i < n; i++)
            shape[i] = v[i];
    } else if (kn_const_ints(k, 1, "shape", shape, KN_MAX_RANK, &n) != KN_OK) {
        return k->err->code;
    }
    int allowzero = k->opset >= 14 && kn_attr_int(k->node, "allowzero", 0) != 0;
    int32_t infer = -1;
    int64_t known = 1;
    for (int32_t i = 0; i < n; i++) {
        int64_t v = shape[i];
        if (v == 0 && !allowzero) {
            if (i >= in->rank)
                return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                               "Reshape: shape[%d] is 0 (copy) but the input has rank %d", (int)i,
                               (int)in->rank);
            v = in->dims[i];
        } else if (v == -1) {
            if (infer >= 0)
                return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                               "Reshape: shape has more than one -1 (dim to infer)");
            infer = i;
            continue;
        } else if (v < 0) {
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Reshape: shape[%d] = %lld is invalid",
                           (int)i, (long long)v);
        }
        if (v != 0 && known > INT64_MAX / v)
            return kn_fail(k->err, KN_ERR_SHAPE, "Reshape: shape has too many elements");
        out->dims[i] = v;
        known *= v;
    }
    int64_t numel = kn_tensor_numel(in);
    kn_shape_format(in->dims, in->rank, si, sizeof si);
    if (infer >= 0) {
        if (known == 0 || numel % known != 0) {
            kn_shape_format(shape, n, so, sizeof so);
            return kn_fail(k->err, KN_ERR_SHAPE, "Reshape: cannot reshape %s (%lld elements) to %s",
                           si, (long long)numel, so);
        }
        out->dims[infer] = numel / known;
        known = numel;
    }
    out->dtype = in->dtype;
    out->rank = n;
    if (known != numel) {
        kn_shape_format(out->dims, n, so, sizeof so);
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "Reshape: cannot reshape %s (%lld elements) to %s (%lld elements)", si,
                       (long long)numel, so, (long long)known);
    }
    return KN_OK;
}

/* ---- Flatten ---- */

static int flatten_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    int64_t axis = kn_attr_int(k->node, "axis", 1);
    int64_t lo = k->opset >= 11 ? -(int64_t)in->rank : 0;
    if (axis < lo || axis > in->rank)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Flatten: axis %lld out of range for rank %d",
                       (long long)axis, (int)in->rank);
    if (axis < 0)
        axis += in->rank;
    out->dtype = in->dtype;
    out->rank = 2;
    out->dims[0] = kn_shape_numel(in->dims, (int32_t)axis);
    out->dims[1] = kn_shape_numel(in->dims + axis, in->rank - (int32_t)axis);
    return KN_OK;
}

/* ---- Squeeze / Unsqueeze ---- */

/* Axes come from the attribute up to opset 12, from input 1 since 13;
 * negative values are allowed since 11. *given is 0 when there are none. */
static int read_axes(kn_kctx *k, int64_t *axes, int32_t *n, int *given)
{
    *n = 0;
    *given = 0;
    if (k->opset < 13) {
        const kn_attr *a = kn_node_attr(k->node, "axes");
        if (!a || a->type != KN_ATTR_INTS)
            return KN_OK;
        if (a->count > KN_MAX_RANK)
            return fail_rank(k, a->count);
        memcpy(axes, a->ints, sizeof(int64_t) * (size_t)a->count);
        *n = a->count;
        *given = 1;
        return KN_OK;
    }
    if (!kn_input(k, 1))
        return KN_OK;
    *given = 1;
    return kn_const_ints(k, 1, "axes", axes, KN_MAX_RANK, n);
}

static int squeeze_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    int64_t axes[KN_MAX_RANK];
    int32_t n, norm[KN_MAX_RANK];
    int given;
    if (read_axes(k, axes, &n, &given) != KN_OK ||
        kn_norm_axes(k, axes, n, in->rank, k->opset >= 11, norm) != KN_OK)
        return k->err->code;
    int drop[KN_MAX_RANK] = {0};
    for (int32_t i = 0; i < n; i++) {
        if (in->dims[norm[i]] != 1)
            return kn_fail(k->err, KN_ERR_SHAPE, "Squeeze: dim %d has size %lld, not 1",
                           (int)norm[i], (long long)in->dims[norm[i]]);
        drop[norm[i]] = 1;
    }
    if (!given)
        for (int32_t d = 0; d < in->rank; d++)
            drop[d] = in->dims[d] == 1;
    out->dtype = in->dtype;
    out->rank = 0;
    for (int32_t d = 0; d < in->rank; d++)
        if (!drop[d])
            out->dims[out->rank++] = in->dims[d];
    return KN_OK;
}

static int unsqueeze_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    int64_t axes[KN_MAX_RANK];
    int32_t n, norm[KN_MAX_RANK];
    int given;
    if (read_axes(k, axes, &n, &given) != KN_OK)
        return k->err->code;
    if (!given)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Unsqueeze: axes are required");
    int32_t rank = in->rank + n;
    if (rank > KN_MAX_RANK)
        return fail_rank(k, rank);
    if (kn_norm_axes(k, axes, n, rank, k->opset >= 11, norm) != KN_OK)
        return k->err->code;
    int add[KN_MAX_RANK] = {0};
    for (int32_t i = 0; i < n; i++)
        add[norm[i]] = 1;
    out->dtype = in->dtype;
    out->rank = rank;
    for (int32_t d = 0, src = 0; d < rank; d++)
        out->dims[d] = add[d] ? 1 : in->dims[src++];
    return KN_OK;
}

/* ---- Identity / Dropout ---- */

static int identity_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    kn_copy_desc(k->out[0], k->in[0]);
    return KN_OK;
}

/* Inference only: output = input, mask (if asked for) all true. Since
 * opset 12 a training_mode input may turn dropout on; that is refused
 * unless the ratio is 0, which drops nothing. Checked again at run time
 * for values that were not constants. */
static int dropout_training(const kn_kctx *k)
{
    const kn_tensor *ratio = kn_input(k, 1), *tm = k->opset >= 12 ? kn_input(k, 2) : NULL;
    if (!tm || !tm->data || !kn_read_int(tm, 0))
        return 0;
    return !(ratio && ratio->data && kn_read_double(ratio, 0) == 0);
}

static int dropout_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    kn_copy_desc(k->out[0], k->in[0]);
    if (dropout_training(k))
        return kn_fail(k->err, KN_ERR_UNSUPPORTED,
                       "Dropout: training_mode=true with a nonzero ratio is not supported");
    kn_tensor *mask = kn_output(k, 1);
    if (mask) {
        kn_copy_desc(mask, k->in[0]);
        if (k->opset >= 10)
            mask->dtype = KN_BOOL;
    }
    return KN_OK;
}

static int dropout_run(kn_kctx *k)
{
    if (dropout_training(k))
        return kn_fail(k->err, KN_ERR_UNSUPPORTED,
                       "Dropout: training_mode=true with a nonzero ratio is not supported");
    copy_through(k);
    kn_tensor *mask = kn_output(k, 1);
    if (mask) {
        unsigned char one[8];
        kn_scalar_from_double(mask->dtype, 1.0, one);
        kn_fill_pattern(mask->data, one, kn_dtype_size(mask->dtype), kn_tensor_numel(mask));
    }
    return KN_OK;
}

/* ---- Shape / Size ---- */

/* Shape-15 takes the slice [start, end) of the dims, clamped like Slice. */
static void shape_range(const kn_kctx *k, int64_t *start, int64_t *end)
{
    int64_t r = k->in[0]->rank;
    int64_t s = k->opset >= 15 ? kn_attr_int(k->node, "start", 0) : 0;
    int64_t e = k->opset >= 15 ? kn_attr_int(k->node, "end", r) : r;
    s = s < 0 ? s + r : s;
    e = e < 0 ? e + r : e;
    *start = s < 0 ? 0 : s > r ? r : s;
    *end = e < *start ? *start : e > r ? r : e;
}

static int shape_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    int64_t start, end;
    shape_range(k, &start, &end);
    kn_tensor *out = k->out[0];
    out->dtype = KN_INT64;
    out->rank = 1;
    out->dims[0] = end - start;
    return KN_OK;
}

static int shape_run(kn_kctx *k)
{
    int64_t start, end;
    shape_range(k, &start, &end); /* a few integer compares; no state needed */
    int64_t *dst = k->out[0]->data;
    for (int64_t i = start; i < end; i++)
        dst[i - start] = k->in[0]->dims[i];
    return KN_OK;
}

static int size_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    k->out[0]->dtype = KN_INT64;
    k->out[0]->rank = 0;
    return KN_OK;
}

static int size_run(kn_kctx *k)
{
    *(int64_t *)k->out[0]->data = kn_tensor_numel(k->in[0]);
    return KN_OK;
}

#define DEF(name, op, since, until, mask, flags_arg, prepare_arg, run_arg)                \
    const kn_op_def kn_op_##name = { \
    .op_type = op, .since_version = since, .until_version = until, .dtypes = mask, \
    .flags = flags_arg, .prepare = prepare_arg, .run = run_arg \
};

#define MASK_FLOATY (KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))

/* Whole bytes move unchanged, so the packed sub-byte types pass too. */
#define ALIAS_ANY (KN_OP_ALIAS | KN_OP_PACKED)
DEF(Reshape, "Reshape", 1, 0, 0, ALIAS_ANY, reshape_prepare, alias_run)
DEF(Flatten, "Flatten", 1, 0, 0, ALIAS_ANY, flatten_prepare, alias_run)
DEF(Squeeze, "Squeeze", 1, 0, 0, ALIAS_ANY, squeeze_prepare, alias_run)
DEF(Unsqueeze, "Unsqueeze", 1, 0, 0, ALIAS_ANY, unsqueeze_prepare, alias_run)
DEF(Identity, "Identity", 1, 0, 0, ALIAS_ANY, identity_prepare, alias_run)
DEF(Dropout, "Dropout", 1, 0, MASK_FLOATY, KN_OP_ALIAS, dropout_prepare, dropout_run)
DEF(Shape, "Shape", 1, 0, 0, KN_OP_SHAPE_ONLY | KN_OP_PACKED, shape_prepare, shape_run)
DEF(Size, "Size", 1, 0, 0, KN_OP_SHAPE_ONLY | KN_OP_PACKED, size_prepare, size_run)
