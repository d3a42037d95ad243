/* Swish (opset 24): y = x * sigmoid(alpha * x), alpha defaulting to 1.
 * float and double are computed in their own type; float16/bfloat16 in
 * float over stack chunks. The loop reads x[i] before writing y[i], so the
 * output may be the input's memory (KN_OP_INPLACE). */
#include <math.h>

#include "core/kernel/tensor_common.h"

typedef struct swish_job {
    int32_t dtype;
    float alpha;
    const void *x;
    void *y;
} swish_job;

static void swish_f32(const float *x, float *y, int64_t n, float alpha)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = x[i] / (1.0f + expf(-alpha * x[i]));
}

static void swish_range(void *ctx, int64_t begin, int64_t end)
{
    const swish_job *j = ctx;
    if (j->dtype == KN_FLOAT) {
        swish_f32((const float *)j->x + begin, (float *)j->y + begin, end - begin, j->alpha);
    } else if (j->dtype == KN_DOUBLE) {
        const double *x = j->x;
        double *y = j->y, a = j->alpha;
        for (int64_t i = begin; i < end; i++)
            y[i] = x[i] / (1.0 + exp(-a * x[i]));
    } else {
        float buf[KN_CHUNK];
        for (int64_t i = begin; i < end; i += KN_CHUNK) {
            int64_t m = end - i < KN_CHUNK ? end - i : KN_CHUNK;
            kn_convert(j->dtype, (const uint16_t *)j->x + i, KN_FLOAT, buf, m);
            swish_f32(buf, buf, m, j->alpha);
            kn_convert(KN_FLOAT, buf, j->dtype, (uint16_t *)j->y + i, m);
        }
    }
}

static int swish_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    kn_copy_desc(k->out[0], k->in[0]);
    return KN_OK;
}

static int swish_run(kn_kctx *k)
{
    swish_job j = {k->in[0]->dtype, kn_attr_float(k->node, "alpha", 1.0f), k->in[0]->data,
                   k->out[0]->data};
    kn_parallel_for(k->threads, kn_tensor_numel(k->in[0]), KN_GRAIN, swish_range, &j);
    return KN_OK;
}

const kn_op_def kn_op_Swish = {
    .op_type = "Swish", .since_version = 24,
    .dtypes = KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16), .flags = KN_OP_INPLACE,
    .prepare = swish_prepare, .run = swish_run
};
