/* CumProd (opset 26): running product along one axis, optionally exclusive
 * (each element gets the product of those before it, the first gets 1)
 * and/or reversed. The axis does not change the shape, so it is read at run
 * time and need not be a constant. The traversal mirrors CumSum's: work is
 * split over (outer index, chunk of the inner dims) and each step along the
 * axis multiplies a whole inner row into the previous one. Integer products
 * wrap (computed in uint64_t, so narrow types never overflow int);
 * float16/bfloat16 keep a float running product rounded to the type after
 * every step, as a product computed in that type would be. */
#include <string.h>

#include "core/kernel/tensor_common.h"

#define CHUNK_INNER 1024

typedef struct cumprod_job {
    int32_t dtype;
    int64_t len, inner, chunks;
    int exclusive, reverse;
    const void *in;
    void *out;
} cumprod_job;

#define CP_MUL_F(T, U, a, b) ((a) * (b))
#define CP_MUL_S(T, U, a, b) ((T)(U)((uint64_t)(U)(a) * (uint64_t)(U)(b)))
#define CP_MUL_U CP_MUL_S

/* Step s writes position t from the previous position p (t -/+ 1). */
#define CUMPROD_CASE(arg, C, DT, T, U)                                        \
    case DT: {                                                                \
        const T *x = (const T *)j->in + base;                                 \
        T *y = (T *)j->out + base;                                            \
        for (int64_t s = 0; s < j->len; s++) {                                \
            int64_t t = j->reverse ? j->len - 1 - s : s;                      \
            int64_t p = j->reverse ? t + 1 : t - 1;                           \
            for (int64_t i = i0; i < i1; i++) {                               \
                T acc = s ? y[p * j->inner + i] : (T)1;                       \
                T mul = j->exclusive ? (s ? x[p * j->inner + i] : (T)1) : x[t * j->inner + i]; \
                y[t * j->inner + i] = CP_MUL_##C(T, U, acc, mul);             \
            }                                                                 \
        }                                                                     \
        break;                                                                \
    }

/* float16/bfloat16: one column at a time through float. */
static void cumprod_half(const cumprod_job *j, int64_t base, int64_t i0, int64_t i1)
{
    const uint16_t *x = (const uint16_t *)j->in + base;
    uint16_t *y = (uint16_t *)j->out + base;
    for (int64_t i = i0; i < i1; i++) {
        float acc = 1.0f, prev = 1.0f;
        for (int64_t s = 0; s < j->len; s++) {
            int64_t t = j->reverse ? j->len - 1 - s : s;
            float v;
            kn_convert(j->dtype, &x[t * j->inner + i], KN_FLOAT, &v, 1);
            float mul = j->exclusive ? prev : v;
            prev = v;
            acc *= mul;
            kn_convert(KN_FLOAT, &acc, j->dtype, &y[t * j->inner + i], 1);
            kn_convert(j->dtype, &y[t * j->inner + i], KN_FLOAT, &acc, 1);
        }
    }
}

static void cumprod_range(void *ctx, int64_t begin, int64_t end)
{
    const cumprod_job *j = ctx;
    for (int64_t u = begin; u < end; u++) {
        int64_t o = u / j->chunks, i0 = (u % j->chunks) * CHUNK_INNER;
        int64_t i1 = i0 + CHUNK_INNER < j->inner ? i0 + CHUNK_INNER : j->inner;
        int64_t base = o * j->len * j->inner;
        switch (j->dtype) {
        KN_TYPES_REAL(CUMPROD_CASE, _)
        case KN_FLOAT16:
        case KN_BFLOAT16: cumprod_half(j, base, i0, i1); break;
        default: break;
        }
    }
}

static int cumprod_axis(kn_kctx *k, const kn_tensor *x, int32_t *axis)
{
    *axis = kn_norm_axis(kn_read_int(k->in[1], 0), x->rank, k->err);
    if (*axis < 0)
        kn_err_prefix(k->err, "CumProd");
    return *axis < 0 ? k->err->code : KN_OK;
}

static int cumprod_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *axis = k->in[1];
    if ((axis->dtype != KN_INT32 && axis->dtype != KN_INT64) || kn_tensor_numel(axis) != 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "CumProd: axis must be an int32/int64 scalar");
    if (x->rank < 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "CumProd: input must have rank >= 1");
    int32_t a;
    if (axis->data && cumprod_axis(k, x, &a) != KN_OK)
        return k->err->code;
    kn_copy_desc(k->out[0], x);
    return KN_OK;
}

static int cumprod_run(kn_kctx *k)
{
    const kn_tensor *x = k->in[0];
    int32_t axis;
    if (cumprod_axis(k, x, &axis) != KN_OK)
        return k->err->code;
    cumprod_job job = {x->dtype, x->dims[axis],
                       kn_shape_numel(x->dims + axis + 1, x->rank - axis - 1), 0,
                       kn_attr_int(k->node, "exclusive", 0) != 0,
                       kn_attr_int(k->node, "reverse", 0) != 0, x->data, k->out[0]->data};
    job.chunks = (job.inner + CHUNK_INNER - 1) / CHUNK_INNER;
    int64_t units = kn_shape_numel(x->dims, axis) * job.chunks;
    if (job.len > 0 && units > 0)
        kn_parallel_for(k->threads, units, KN_GRAIN / (job.len * CHUNK_INNER) + 1, cumprod_range,
                        &job);
    return KN_OK;
}

const kn_op_def kn_op_CumProd = {
    .op_type = "CumProd", .since_version = 26,
    .dtypes = KN_MASK_FLOATS | KN_MASK_INTS | KN_MASK_HALF, .prepare = cumprod_prepare,
    .run = cumprod_run
};
