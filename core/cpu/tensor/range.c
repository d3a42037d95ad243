/* Range: start, start + delta, ... up to (not including) limit. The count
 * decides the output shape, so the three values must be known at prepare. */
#include <math.h>

#include "core/kernel/tensor_common.h"

static int range_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 3) != KN_OK)
        return k->err->code;
    const kn_tensor *in[3] = {k->in[0], kn_input(k, 1), kn_input(k, 2)};
    static const char *const names[3] = {"start", "limit", "delta"};
    int32_t dt = in[0]->dtype;
    for (int i = 0; i < 3; i++) {
        if (!in[i])
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Range: input '%s' is missing", names[i]);
        if (in[i]->dtype != dt)
            return kn_fail(k->err, KN_ERR_DTYPE, "Range: '%s' is %s, 'start' is %s", names[i],
                           kn_dtype_name(in[i]->dtype), kn_dtype_name(dt));
        if (kn_tensor_numel(in[i]) != 1)
            return kn_fail(k->err, KN_ERR_SHAPE, "Range: '%s' must be a scalar", names[i]);
        if (!in[i]->data)
            return kn_fail(k->err, KN_ERR_NEEDS_VALUE,
                           "Range: input '%s' output shape depends on its value", names[i]);
    }
    int64_t n;
    if (KN_BIT(dt) & KN_MASK_INTS) {
        int64_t s = kn_read_int(in[0], 0), l = kn_read_int(in[1], 0), d = kn_read_int(in[2], 0);
        if (d == 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Range: delta is 0");
        /* differences through uint64: exact for any pair, no overflow */
        uint64_t ad = d > 0 ? (uint64_t)d : 0 - (uint64_t)d;
        if (d > 0)
            n = l > s ? (int64_t)(((uint64_t)l - (uint64_t)s - 1) / ad + 1) : 0;
        else
            n = s > l ? (int64_t)(((uint64_t)s - (uint64_t)l - 1) / ad + 1) : 0;
        if (n < 0 || n > ((int64_t)1 << 40))
            return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Range: %lld elements is too many", (long long)n);
    } else {
        double s = kn_read_double(in[0], 0), l = kn_read_double(in[1], 0), d = kn_read_double(in[2], 0);
        double c = ceil((l - s) / d);
        if (d == 0 || c != c || c > 1e15)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Range: cannot count from %g to %g by %g",
                           s, l, d);
        n = c > 0 ? (int64_t)c : 0;
    }
    kn_tensor *out = k->out[0];
    out->dtype = dt;
    out->rank = 1;
    out->dims[0] = n;
    return KN_OK;
}

/* Each element is start + i * delta computed afresh in the element type,
 * so rounding does not accumulate along the output. */
#define RANGE_CASE(arg, C, DT, T, U)                                          \
    case DT: {                                                                \
        const T s = *(const T *)k->in[0]->data, d = *(const T *)k->in[2]->data; \
        T *o = k->out[0]->data;                                               \
        for (int64_t i = 0; i < n; i++)                                       \
            o[i] = (T)(s + (T)i * d);                                         \
        break;                                                                \
    }

static int range_run(kn_kctx *k)
{
    int64_t n = k->out[0]->dims[0];
    switch (k->out[0]->dtype) {
    KN_TYPES_F(RANGE_CASE, _)
    KN_TYPES_S(RANGE_CASE, _)
    case KN_FLOAT16:
    case KN_BFLOAT16: { /* in float, rounded once per element */
        const float s = (float)kn_read_double(k->in[0], 0), d = (float)kn_read_double(k->in[2], 0);
        for (int64_t i = 0; i < n; i++) {
            float v = s + (float)i * d;
            kn_convert(KN_FLOAT, &v, k->out[0]->dtype, (uint16_t *)k->out[0]->data + i, 1);
        }
        break;
    }
    default:
        return kn_fail(k->err, KN_ERR_DTYPE, "Range: type %s is not supported",
                       kn_dtype_name(k->out[0]->dtype));
    }
    return KN_OK;
}

const kn_op_def kn_op_Range = {
    .op_type = "Range", .since_version = 11,
    .dtypes = KN_MASK_FLOATS | KN_MASK_HALF | KN_BIT(KN_INT16) | KN_BIT(KN_INT32) |
                                   KN_BIT(KN_INT64),
    .prepare = range_prepare, .run = range_run
};
