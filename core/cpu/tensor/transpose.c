/* Transpose: output dim i is input dim perm[i] (default: reversed). The
 * output is the input viewed with permuted strides, copied by the strided
 * engine on element byte size, so every dtype shares one path and
 * permutations that only move size-1 dims collapse to a memcpy. */
#include <stdlib.h>

#include "core/kernel/tensor_common.h"

static int transpose_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    const int32_t rank = in->rank;
    int32_t n = 0;
    const int64_t *attr = kn_attr_ints(k->node, "perm", &n);
    int32_t perm[KN_MAX_RANK];
    if (attr && n != rank)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Transpose: perm has %d entries, input rank is %d",
                       (int)n, (int)rank);
    int seen[KN_MAX_RANK] = {0};
    for (int32_t i = 0; i < rank; i++) {
        int64_t p = attr ? attr[i] : rank - 1 - i;
        if (p < 0 || p >= rank || seen[p])
            return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                           "Transpose: perm is not a permutation of 0..%d (entry %d is %lld)",
                           (int)rank - 1, (int)i, (long long)p);
        seen[p] = 1;
        perm[i] = (int32_t)p;
    }
    size_t es = kn_dtype_size(in->dtype);
    if (es == 0)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Transpose: type %s is not supported",
                       kn_dtype_name(in->dtype));
    int64_t in_strides[KN_MAX_RANK], strides[KN_MAX_RANK];
    kn_dense_strides(in->dims, rank, in_strides);
    out->dtype = in->dtype;
    out->rank = rank;
    for (int32_t i = 0; i < rank; i++) {
        out->dims[i] = in->dims[perm[i]];
        strides[i] = in_strides[perm[i]];
    }
    kn_strided_plan *plan = malloc(sizeof *plan);
    if (!plan)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Transpose: out of memory");
    kn_strided_init(plan, es, rank, out->dims, strides, 0);
    k->state = plan;
    return KN_OK;
}

static int transpose_run(kn_kctx *k)
{
    kn_strided_run(k->state, k->in[0]->data, k->out[0]->data, k->threads);
    return KN_OK;
}

static void transpose_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_Transpose = {
    .op_type = "Transpose", .since_version = 1, .prepare = transpose_prepare,
    .run = transpose_run, .release = transpose_release
};
