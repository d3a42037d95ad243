/* BitCast (opset 26): reinterprets each element's bytes as another type of
 * the same width (float32 <-> int32, bool <-> uint8, ...). The shape is
 * unchanged and so are the bytes, so the planner may let the output alias
 * the input (KN_OP_ALIAS); run() copies only when it does not. */
#include <string.h>

#include "core/kernel/tensor_common.h"

static int bitcast_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    if (!kn_node_attr(k->node, "to"))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "BitCast: attribute 'to' is required");
    int64_t to = kn_attr_int(k->node, "to", 0);
    /* kn_dtype_size is 0 for string, undefined and the packed sub-byte
     * types, which have no per-element bytes to reinterpret. */
    size_t out_size = to > 0 && to < KN_DTYPE_COUNT ? kn_dtype_size((int32_t)to) : 0;
    if (out_size == 0 || to == KN_STRING)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "BitCast: target type %lld is not supported",
                       (long long)to);
    if (out_size != kn_dtype_size(x->dtype))
        return kn_fail(k->err, KN_ERR_DTYPE, "BitCast: %s (%zu bits) and %s (%zu bits) differ in "
                       "width", kn_dtype_name(x->dtype), 8 * kn_dtype_size(x->dtype),
                       kn_dtype_name((int32_t)to), 8 * out_size);
    kn_copy_desc(k->out[0], x);
    k->out[0]->dtype = (int32_t)to;
    return KN_OK;
}

static int bitcast_run(kn_kctx *k)
{
    int64_t nb = kn_tensor_nbytes(k->in[0]);
    if (nb > 0 && k->out[0]->data != k->in[0]->data)
        memcpy(k->out[0]->data, k->in[0]->data, (size_t)nb);
    return KN_OK;
}

const kn_op_def kn_op_BitCast = {
    .op_type = "BitCast", .since_version = 26, .dtypes = KN_MASK_ANY_FIXED | KN_MASK_FLOAT8,
    .flags = KN_OP_ALIAS, .prepare = bitcast_prepare, .run = bitcast_run
};
