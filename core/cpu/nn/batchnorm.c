/* BatchNormalization (opsets 1, 6, 7, 9, 14, 15):
 * y = (x - mean) / sqrt(var + epsilon) * scale + B along axis 1, for X of
 * rank >= 2. Before opset 9, spatial=0 gives one set of statistics per
 * element of a C x D1 x ... plane instead of per channel.
 *
 * training_mode=1 (opset 14+) normalises with the batch's own statistics
 * and outputs the updated running mean and variance
 * (running = input * momentum + batch * (1 - momentum)). The older opsets'
 * training outputs are refused at prepare, never computed wrongly. The
 * statistics may use a different float type than X (opset 15's T1/T2). */
#include <math.h>

#include "core/kernel/op.h"

#define KN_BN_PARAMS                                                                               \
    (KN_BIT(KN_FLOAT) | KN_BIT(KN_DOUBLE) | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))

static const char *const param_names[] = {"X", "scale", "B", "mean", "var"};

static int bn_prepare(kn_kctx *k)
{
    if (k->n_in < 5)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "BatchNormalization: needs 5 inputs (X, scale, B, mean, var), got %d",
                       (int)k->n_in);
    for (int32_t i = 0; i < 5; i++)
        if (!k->in[i])
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "BatchNormalization: input %s is missing",
                           param_names[i]);
    int training = k->opset >= 14 && kn_attr_int(k->node, "training_mode", 0) != 0;
    for (int32_t i = 1; i < k->n_out && !training; i++)
        if (k->out[i])
            return kn_fail(k->err, KN_ERR_UNSUPPORTED,
                           "BatchNormalization: output %d (training statistics) is not supported",
                           (int)i);
    const kn_tensor *x = k->in[0];
    if (x->rank < 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "BatchNormalization: X has rank %d, expected >= 2",
                       (int)x->rank);
    int64_t c = x->dims[1], inner = 1;
    for (int32_t i = 2; i < x->rank; i++)
        inner *= x->dims[i];
    int spatial = k->opset >= 9 || kn_attr_int(k->node, "spatial", 1) != 0;
    for (int32_t i = 1; i < 5; i++) {
        const kn_tensor *p = k->in[i];
        int64_t n = kn_tensor_numel(p);
        if (!(KN_BN_PARAMS & KN_BIT(p->dtype)))
            return kn_fail(k->err, KN_ERR_DTYPE, "BatchNormalization: %s has type %s",
                           param_names[i], kn_dtype_name(p->dtype));
        /* spatial=0 wants C x D1 x ...; per-channel statistics still make
         * sense there, so both sizes are accepted. */
        if (n != c && !(!spatial && n == c * inner))
            return kn_fail(k->err, KN_ERR_SHAPE,
                           "BatchNormalization: %s has %lld elements, expected %lld (channels)",
                           param_names[i], (long long)n, (long long)c);
        if (n != kn_tensor_numel(k->in[1]))
            return kn_fail(k->err, KN_ERR_SHAPE,
                           "BatchNormalization: %s has %lld elements but scale has %lld",
                           param_names[i], (long long)n, (long long)kn_tensor_numel(k->in[1]));
    }
    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = x->rank;
    for (int32_t i = 0; i < x->rank; i++)
        y->dims[i] = x->dims[i];
    if (training) {
        if (kn_tensor_numel(k->in[1]) != c)
            return kn_fail(k->err, KN_ERR_SHAPE, "BatchNormalization: training needs per-channel "
                                                 "parameters");
        for (int32_t i = 1; i < k->n_out && i < 3; i++) { /* running mean, running var */
            if (!k->out[i])
                continue;
            *k->out[i] = *k->in[2 + i];
            k->out[i]->data = NULL;
        }
        /* batch mean and variance, then per-channel a and b */
        k->scratch_bytes = sizeof(double) * 4 * (size_t)c;
    }
    return KN_OK;
}

typedef struct bn_job {
    const kn_tensor *x, *scale, *bias, *mean, *var;
    void *y;
    int64_t c, inner;
    int per_element; /* statistics per element of the C x inner plane */
    double eps;
} bn_job;

/* y = x * a + b with a = scale / sqrt(var + eps), b = B - mean * a. */
static void bn_coef(const bn_job *j, int64_t i, double *a, double *b)
{
    double s = kn_read_double(j->scale, i) / sqrt(kn_read_double(j->var, i) + j->eps);
    *a = s;
    *b = kn_read_double(j->bias, i) - kn_read_double(j->mean, i) * s;
}

#define KN_DEFINE_BN(T, SFX)                                                                       \
    static void bn_range_##SFX(const bn_job *j, int64_t begin, int64_t end)                        \
    {                                                                                              \
        const T *x = j->x->data;                                                                   \
        T *y = j->y;                                                                               \
        for (int64_t p = begin; p < end; p++) {                                                    \
            int64_t ch = p % j->c;                                                                 \
            const T *xp = x + p * j->inner;                                                        \
            T *yp = y + p * j->inner;                                                              \
            double a, b;                                                                           \
            if (j->per_element) {                                                                  \
                for (int64_t i = 0; i < j->inner; i++) {                                           \
                    bn_coef(j, ch * j->inner + i, &a, &b);                                         \
                    yp[i] = (T)(xp[i] * a + b);                                                    \
                }                                                                                  \
                continue;                                                                          \
            }                                                                                      \
            bn_coef(j, ch, &a, &b);                                                                \
            T ta = (T)a, tb = (T)b;                                                                \
            int64_t i = 0;                                                                         \
            /* Loading a chunk before storing it keeps in-place runs (y == x) */                   \
            /* correct and lets gcc -O2 vectorise without alias checks. */                         \
            for (; i + 16 <= j->inner; i += 16) {                                                  \
                T t[16];                                                                           \
                for (int l = 0; l < 16; l++)                                                       \
                    t[l] = xp[i + l];                                                              \
                for (int l = 0; l < 16; l++)                                                       \
                    yp[i + l] = t[l] * ta + tb;                                                    \
            }                                                                                      \
            for (; i < j->inner; i++)                                                              \
                yp[i] = xp[i] * ta + tb;                                                           \
        }                                                                                          \
    }

KN_DEFINE_BN(float, f32)
KN_DEFINE_BN(double, f64)

static void bn_range(void *ctx, int64_t begin, int64_t end)
{
    const bn_job *j = ctx;
    if (j->x->dtype == KN_DOUBLE)
        bn_range_f64(j, begin, end);
    else
        bn_range_f32(j, begin, end);
}

/* Batch statistics per channel (population variance, as ONNX specifies),
 * and the running statistics outputs. Statistics are small (one value per
 * channel), so this runs serially in double. */
static void bn_batch_stats(kn_kctx *k, int64_t c, int64_t inner, double *mean, double *var)
{
    const kn_tensor *x = k->in[0];
    int64_t n = x->dims[0], count = n * inner;
    for (int64_t ch = 0; ch < c; ch++) {
        double sum = 0, sq = 0;
        for (int64_t b = 0; b < n; b++)
            for (int64_t i = 0; i < inner; i++) {
                double v = kn_read_double(x, (b * c + ch) * inner + i);
                sum += v;
                sq += v * v;
            }
        mean[ch] = count ? sum / (double)count : 0;
        var[ch] = count ? sq / (double)count - mean[ch] * mean[ch] : 0;
        if (var[ch] < 0)
            var[ch] = 0;
    }
    double momentum = kn_attr_float(k->node, "momentum", 0.9f);
    for (int32_t o = 1; o < k->n_out && o < 3; o++) {
        kn_tensor *out = k->out[o];
        const kn_tensor *old = k->in[2 + o];
        const double *batch = o == 1 ? mean : var;
        for (int64_t ch = 0; out && ch < c; ch++) {
            double v = kn_read_double(old, ch) * momentum + batch[ch] * (1 - momentum);
            if (out->dtype == KN_DOUBLE)
                ((double *)out->data)[ch] = v;
            else if (out->dtype == KN_FLOAT)
                ((float *)out->data)[ch] = (float)v;
            else if (out->dtype == KN_FLOAT16)
                ((uint16_t *)out->data)[ch] = kn_f32_to_f16((float)v);
            else
                ((uint16_t *)out->data)[ch] = kn_f32_to_bf16((float)v);
        }
    }
}

static int bn_run(kn_kctx *k)
{
    const kn_tensor *x = k->in[0];
    bn_job j = {x, k->in[1], k->in[2], k->in[3], k->in[4], k->out[0]->data, x->dims[1], 1, 0,
                kn_attr_float(k->node, "epsilon", 1e-5f)};
    for (int32_t i = 2; i < x->rank; i++)
        j.inner *= x->dims[i];
    j.per_element = kn_tensor_numel(k->in[1]) != j.c;
    kn_tensor batch_mean, batch_var;
    if (k->opset >= 14 && kn_attr_int(k->node, "training_mode", 0) != 0) {
        double *stats = k->scratch;
        bn_batch_stats(k, j.c, j.inner, stats, stats + j.c);
        /* Normalise with the batch statistics instead of the inputs'. */
        batch_mean = (kn_tensor){.dtype = KN_DOUBLE, .rank = 1, .dims = {j.c}, .data = stats};
        batch_var = (kn_tensor){.dtype = KN_DOUBLE, .rank = 1, .dims = {j.c}, .data = stats + j.c};
        j.mean = &batch_mean;
        j.var = &batch_var;
    }
    kn_parallel_for(k->threads, x->dims[0] * j.c, 1 + 32768 / (j.inner + 1), bn_range, &j);
    return KN_OK;
}

#define KN_BN_OP(NAME, FROM, TO)                                                                   \
    const kn_op_def NAME = { \
    .op_type = "BatchNormalization", .since_version = FROM, .until_version = TO, \
    .dtypes = KN_MASK_FLOATS, .flags = KN_OP_INPLACE, .prepare = bn_prepare, .run = bn_run \
};

/* Entries follow the opset history; the kernel reads attributes by
 * k->opset (spatial before 9, training_mode from 14). */
KN_BN_OP(kn_op_batchnorm_1, 1, 5)
KN_BN_OP(kn_op_batchnorm_6, 6, 6)
KN_BN_OP(kn_op_batchnorm_7, 7, 8)
KN_BN_OP(kn_op_batchnorm_9, 9, 13)
KN_BN_OP(kn_op_batchnorm_14, 14, 14)
KN_BN_OP(kn_op_batchnorm_15, 15, 0)
