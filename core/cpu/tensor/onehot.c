/* OneHot: a new axis of length `depth` holding off_value everywhere except
 * on_value at each index. The output is filled by element bytes, so any
 * value type works; depth decides the shape, so its value must be known at
 * prepare. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

typedef struct onehot_state {
    int64_t depth, outer, inner; /* dims before / after the new axis */
    size_t es;
} onehot_state;

static int onehot_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 3) != KN_OK)
        return k->err->code;
    const kn_tensor *idx = k->in[0], *depth = kn_input(k, 1), *values = kn_input(k, 2);
    kn_tensor *out = k->out[0];
    if (!depth || !values)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "OneHot: needs indices, depth and values");
    if (!depth->data)
        return kn_fail(k->err, KN_ERR_NEEDS_VALUE,
                       "OneHot: input 'depth' output shape depends on its value");
    if (kn_tensor_numel(depth) != 1 || kn_tensor_numel(values) != 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "OneHot: depth must be a scalar and values hold 2 elements");
    if (!kn_convert_supported(idx->dtype) || !kn_convert_supported(depth->dtype))
        return kn_fail(k->err, KN_ERR_DTYPE, "OneHot: indices and depth must be numeric");
    int64_t d = (int64_t)kn_read_double(depth, 0);
    if (d < 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "OneHot: depth is %lld", (long long)d);
    if (idx->rank + 1 > KN_MAX_RANK)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "OneHot: output rank %d exceeds %d",
                       (int)idx->rank + 1, KN_MAX_RANK);
    size_t es = kn_dtype_size(values->dtype);
    if (es == 0)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "OneHot: value type %s is not supported",
                       kn_dtype_name(values->dtype));
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", -1), idx->rank + 1, k->err);
    if (axis < 0) {
        kn_err_prefix(k->err, "OneHot");
        return k->err->code;
    }
    onehot_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "OneHot: out of memory");
    s->depth = d;
    s->outer = kn_shape_numel(idx->dims, axis);
    s->inner = kn_shape_numel(idx->dims + axis, idx->rank - axis);
    s->es = es;
    k->state = s;
    out->dtype = values->dtype;
    out->rank = idx->rank + 1;
    for (int32_t i = 0, src = 0; i < out->rank; i++)
        out->dims[i] = i == axis ? d : idx->dims[src++];
    if (kn_tensor_nbytes(out) < 0)
        return kn_fail(k->err, KN_ERR_SHAPE, "OneHot: output is too large");
    return KN_OK;
}

static int onehot_run(kn_kctx *k)
{
    const onehot_state *s = k->state;
    const kn_tensor *idx = k->in[0];
    const char *values = k->in[2]->data;
    char *out = k->out[0]->data;
    kn_fill_pattern(out, values, s->es, kn_tensor_numel(k->out[0]));
    for (int64_t o = 0; o < s->outer; o++)
        for (int64_t i = 0; i < s->inner; i++) {
            /* indices may be floats; out-of-range ones leave the row off */
            int64_t v = (int64_t)kn_read_double(idx, o * s->inner + i);
            v = v < 0 ? v + s->depth : v;
            if (v >= 0 && v < s->depth)
                memcpy(out + (size_t)((o * s->depth + v) * s->inner + i) * s->es, values + s->es, s->es);
        }
    return KN_OK;
}

static void onehot_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_OneHot = {
    .op_type = "OneHot", .since_version = 9, .prepare = onehot_prepare, .run = onehot_run,
    .release = onehot_release
};
