/* GlobalAveragePool and GlobalMaxPool (opset 1): reduce every spatial
 * plane of an N x C x ... input (rank >= 3) to one value. */
#include <stdlib.h>

#include "core/kernel/op.h"
#include "core/simd/kernels.h"
#include "core/kernel/half_path.h"
#include "core/kernel/tensor_common.h"

static int global_prepare(kn_kctx *k)
{
    const kn_tensor *x = k->in[0];
    if (!x)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: input X is required", k->node->op_type);
    if (x->rank < 3)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: X has rank %d, expected N x C x spatial",
                       k->node->op_type, (int)x->rank);
    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = x->rank;
    y->dims[0] = x->dims[0];
    y->dims[1] = x->dims[1];
    for (int32_t i = 2; i < x->rank; i++)
        y->dims[i] = 1;
    return KN_OK;
}

typedef struct global_job {
    const void *x;
    void *y;
    int64_t plane;
    int32_t dtype;
    int is_max;
} global_job;

/* Sixteen independent partial results per plane so the loop vectorises
 * without reassociating a single running sum. */
#define KN_LANES 16
#define KN_DEFINE_GLOBAL(T, SFX)                                                                   \
    static T plane_sum_##SFX(const T *x, int64_t n)                                                \
    {                                                                                              \
        T acc[KN_LANES] = {0}, s = 0;                                                              \
        int64_t i = 0;                                                                             \
        for (; i + KN_LANES <= n; i += KN_LANES)                                                   \
            for (int l = 0; l < KN_LANES; l++)                                                     \
                acc[l] += x[i + l];                                                                \
        for (int l = 0; l < KN_LANES; l++)                                                         \
            s += acc[l];                                                                           \
        for (; i < n; i++)                                                                         \
            s += x[i];                                                                             \
        return s;                                                                                  \
    }                                                                                              \
    static T plane_max_##SFX(const T *x, int64_t n)                                                \
    {                                                                                              \
        T m = x[0];                                                                                \
        int64_t i = 0;                                                                             \
        if (n >= KN_LANES) {                                                                       \
            T acc[KN_LANES];                                                                       \
            for (int l = 0; l < KN_LANES; l++)                                                     \
                acc[l] = x[l];                                                                     \
            for (i = KN_LANES; i + KN_LANES <= n; i += KN_LANES)                                   \
                for (int l = 0; l < KN_LANES; l++)                                                 \
                    acc[l] = x[i + l] > acc[l] ? x[i + l] : acc[l];                                \
            for (int l = 0; l < KN_LANES; l++)                                                     \
                m = acc[l] > m ? acc[l] : m;                                                       \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            m = x[i] > m ? x[i] : m;                                                               \
        return m;                                                                                  \
    }                                                                                              \
    static void global_range_##SFX(const global_job *j, int64_t begin, int64_t end)                \
    {                                                                                              \
        const T *x = j->x;                                                                         \
        T *y = j->y;                                                                               \
        for (int64_t p = begin; p < end; p++) {                                                    \
            const T *xp = x + p * j->plane;                                                        \
            if (j->plane == 0)                                                                     \
                y[p] = 0;                                                                          \
            else if (j->is_max)                                                                    \
                y[p] = plane_max_##SFX(xp, j->plane);                                              \
            else                                                                                   \
                y[p] = plane_sum_##SFX(xp, j->plane) / (T)j->plane;                                \
        }                                                                                          \
    }

KN_DEFINE_GLOBAL(float, f32)
KN_DEFINE_GLOBAL(double, f64)

static void global_range(void *ctx, int64_t begin, int64_t end)
{
    const global_job *j = ctx;
    if (j->dtype == KN_FLOAT && !j->is_max && j->plane > 0) {
        const kn_simd_kernels *ks = kn_simd();
        for (int64_t p = begin; p < end; p++)
            ((float *)j->y)[p] = ks->sum((const float *)j->x + p * j->plane, j->plane) /
                                 (float)j->plane;
        return;
    }
    if (j->dtype == KN_DOUBLE)
        global_range_f64(j, begin, end);
    else
        global_range_f32(j, begin, end);
}

static int global_run(kn_kctx *k, int is_max)
{
    const kn_tensor *x = k->in[0];
    int64_t planes = x->dims[0] * x->dims[1];
    global_job j = {x->data, k->out[0]->data, 1, x->dtype, is_max};
    for (int32_t i = 2; i < x->rank; i++)
        j.plane *= x->dims[i];
    kn_parallel_for(k->threads, planes, 1 + 65536 / (j.plane + 1), global_range, &j);
    return KN_OK;
}

static int global_avg_run(kn_kctx *k) { return global_run(k, 0); }
static int global_max_run(kn_kctx *k) { return global_run(k, 1); }

/* float16 and bfloat16 run the float code above on widened copies
 * (half_path.h); bfloat16 arrived with opset 22. */
static const kn_half_spec global_avg_half = {.prepare = global_prepare, .run = global_avg_run,
                                             .widen = 0x1, .bf16_since = 22};
static const kn_half_spec global_max_half = {.prepare = global_prepare, .run = global_max_run,
                                             .widen = 0x1, .bf16_since = 22};
KN_HALF_ENTRY_POINTS(global_avg, global_avg_half)
KN_HALF_ENTRY_POINTS(global_max, global_max_half)

#define KN_GLOBAL_TYPES (KN_MASK_FLOATS | KN_MASK_HALF)
const kn_op_def kn_op_globalaveragepool = {
    .op_type = "GlobalAveragePool", .since_version = 1, .dtypes = KN_GLOBAL_TYPES,
    .prepare = global_avg_any_prepare, .run = global_avg_any_run,
    .release = global_avg_any_release
};
const kn_op_def kn_op_globalmaxpool = {
    .op_type = "GlobalMaxPool", .since_version = 1, .dtypes = KN_GLOBAL_TYPES,
    .prepare = global_max_any_prepare, .run = global_max_any_run,
    .release = global_max_any_release
};
