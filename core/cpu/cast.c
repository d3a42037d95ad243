/* Cast and CastLike between all numeric dtypes, bool, float16 and
 * bfloat16. The conversion itself is kn_convert (tensor_common.c), which
 * goes through int64 or double so one load and one store per dtype cover
 * every pair instead of a loop per pair. */
#include <strings.h>

#include "tensor_common.h"

/* Cast-1 names the type as a string ("FLOAT", "INT64", ...); later opsets
 * give the TensorProto number. */
static int32_t target_dtype(const kn_kctx *k)
{
    const kn_attr *a = kn_node_attr(k->node, "to");
    if (!a)
        return KN_UNDEFINED;
    if (a->type == KN_ATTR_INT)
        return a->i > 0 && a->i < KN_DTYPE_COUNT ? (int32_t)a->i : KN_UNDEFINED;
    if (a->type == KN_ATTR_STRING && a->s) {
        for (int32_t d = 1; d < KN_DTYPE_COUNT; d++)
            if (strcasecmp(a->s, kn_dtype_name(d)) == 0)
                return d;
        if (strcasecmp(a->s, "BFLOAT16") == 0)
            return KN_BFLOAT16;
    }
    return KN_UNDEFINED;
}

static int cast_to(kn_kctx *k, int32_t to)
{
    const kn_tensor *in = k->in[0];
    if (!kn_convert_supported(in->dtype) || !kn_convert_supported(to))
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: %s to %s is not supported",
                       k->node->op_type, kn_dtype_name(in->dtype), kn_dtype_name(to));
    kn_copy_desc(k->out[0], in);
    k->out[0]->dtype = to;
    return KN_OK;
}

static int cast_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    int32_t to = target_dtype(k);
    if (to == KN_UNDEFINED)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Cast: attribute 'to' is missing or invalid");
    return cast_to(k, to);
}

static int castlike_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *like = kn_input(k, 1);
    if (!like)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "CastLike: input 'target_type' is missing");
    return cast_to(k, like->dtype);
}

typedef struct cast_job {
    int32_t from, to;
    const char *src;
    char *dst;
} cast_job;

static void cast_range(void *ctx, int64_t begin, int64_t end)
{
    const cast_job *j = ctx;
    kn_convert(j->from, j->src + (size_t)begin * kn_dtype_size(j->from), j->to,
               j->dst + (size_t)begin * kn_dtype_size(j->to), end - begin);
}

static int cast_run(kn_kctx *k)
{
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    cast_job job = {in->dtype, out->dtype, in->data, out->data};
    kn_parallel_for(k->pool, kn_tensor_numel(out), KN_GRAIN, cast_range, &job);
    return KN_OK;
}

const kn_op_def kn_op_Cast = {"", "Cast", 1, 1000, 0, KN_BACKEND_CPU, 0, cast_prepare,
                              cast_run, NULL};
const kn_op_def kn_op_CastLike = {"", "CastLike", 15, 1000, 0, KN_BACKEND_CPU, 0,
                                  castlike_prepare, cast_run, NULL};
