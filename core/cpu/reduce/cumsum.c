/* CumSum along one axis, optionally exclusive and/or reversed. The axis
 * does not change the shape, so it is read at run time (it need not be a
 * constant). Work is split over (outer index, chunk of the inner dims):
 * each step along the axis adds a whole inner row to the previous one,
 * which streams through memory and vectorises. */
#include <string.h>

#include "core/kernel/tensor_common.h"

#define CHUNK_INNER 1024

typedef struct cumsum_job {
    int32_t dtype;
    int64_t len, inner, chunks;
    int exclusive, reverse;
    const void *in;
    void *out;
} cumsum_job;

/* Integer sums wrap through the unsigned type instead of overflowing. */
#define CS_ADD_F(T, U, a, b) ((a) + (b))
#define CS_ADD_S(T, U, a, b) ((T)((U)(a) + (U)(b)))
#define CS_ADD_U CS_ADD_S

#define CUMSUM_CASE(arg, C, DT, T, U)                                         \
    case DT: {                                                                \
        const T *x = (const T *)j->in + base;                                 \
        T *y = (T *)j->out + base;                                            \
        for (int64_t s = 0; s < j->len; s++) {                                \
            int64_t t = j->reverse ? j->len - 1 - s : s;                      \
            int64_t p = j->reverse ? t + 1 : t - 1; /* previous step */       \
            for (int64_t i = i0; i < i1; i++) {                               \
                T acc = s ? y[p * j->inner + i] : (T)0;                       \
                T add = j->exclusive ? (s ? x[p * j->inner + i] : (T)0) : x[t * j->inner + i]; \
                y[t * j->inner + i] = CS_ADD_##C(T, U, acc, add);             \
            }                                                                 \
        }                                                                     \
        break;                                                                \
    }

static void cumsum_range(void *ctx, int64_t begin, int64_t end)
{
    const cumsum_job *j = ctx;
    for (int64_t u = begin; u < end; u++) {
        int64_t o = u / j->chunks, i0 = (u % j->chunks) * CHUNK_INNER;
        int64_t i1 = i0 + CHUNK_INNER < j->inner ? i0 + CHUNK_INNER : j->inner;
        int64_t base = o * j->len * j->inner;
        switch (j->dtype) {
        KN_TYPES_REAL(CUMSUM_CASE, _)
        default: break;
        }
    }
}

static int cumsum_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *axis = kn_input(k, 1);
    if (!axis || (axis->dtype != KN_INT32 && axis->dtype != KN_INT64) || kn_tensor_numel(axis) != 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "CumSum: axis must be an int32/int64 scalar");
    if (x->rank < 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "CumSum: input must have rank >= 1");
    if (axis->data && kn_norm_axis(kn_read_int(axis, 0), x->rank, k->err) < 0) {
        kn_err_prefix(k->err, "CumSum");
        return k->err->code;
    }
    kn_copy_desc(k->out[0], x);
    return KN_OK;
}

static int cumsum_run(kn_kctx *k)
{
    const kn_tensor *x = k->in[0];
    int32_t axis = kn_norm_axis(kn_read_int(k->in[1], 0), x->rank, k->err);
    if (axis < 0) {
        kn_err_prefix(k->err, "CumSum");
        return k->err->code;
    }
    cumsum_job job = {x->dtype, x->dims[axis], kn_shape_numel(x->dims + axis + 1, x->rank - axis - 1),
                      0, kn_attr_int(k->node, "exclusive", 0) != 0,
                      kn_attr_int(k->node, "reverse", 0) != 0, x->data, k->out[0]->data};
    job.chunks = (job.inner + CHUNK_INNER - 1) / CHUNK_INNER;
    int64_t units = kn_shape_numel(x->dims, axis) * job.chunks;
    if (job.len > 0 && units > 0)
        kn_parallel_for(k->threads, units, KN_GRAIN / (job.len * CHUNK_INNER) + 1, cumsum_range, &job);
    return KN_OK;
}

const kn_op_def kn_op_CumSum = {
    .op_type = "CumSum", .since_version = 11, .dtypes = KN_MASK_FLOATS | KN_MASK_INTS,
    .prepare = cumsum_prepare, .run = cumsum_run
};
