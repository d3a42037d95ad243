/* Depthwise convolution (one input channel per group, conv.h):
 *
 *  - direct: float, 1-D or 2-D, no dilation, width stride 1 or 2. Each
 *    task copies an input plane into a zero-padded buffer once, then the
 *    SIMD kernel (kn_simd()->dw_plane) runs every output row from
 *    registers with the epilogue applied row by row. mobilenet and
 *    efficientnet spend most of their depthwise time here;
 *  - portable: anything else (double, 3-D, dilation, wide strides): each
 *    output plane accumulates the taps as shifted, scaled input rows. */
#include <string.h>

#include "core/base/alloc.h"
#include "core/cpu/nn/conv.h"
#include "core/simd/kernels.h"
#include "core/ir/tensor.h"

void kn_conv_depthwise_plan(kn_conv_params *p, int32_t threads)
{
    const kn_window *w = &p->win;
    p->dw_direct = p->dtype == KN_FLOAT && w->kernel[0] == 1 && w->in[0] == 1 &&
                   w->stride[0] == 1 && w->pad_begin[0] == 0 && w->pad_end[0] == 0 &&
                   w->dilation[1] == 1 && w->dilation[2] == 1 &&
                   (w->stride[2] == 1 || w->stride[2] == 2);
    if (!p->dw_direct)
        return;
    p->dw_ph = w->in[1] + w->pad_begin[1] + w->pad_end[1];
    p->dw_pw = w->in[2] + w->pad_begin[2] + w->pad_end[2];
    int64_t planes = p->batch * p->cout;
    p->dw_tasks = planes < threads ? (int32_t)(planes > 0 ? planes : 1) : threads;
    p->dw_slot_bytes =
        kn_align_up((size_t)(p->dw_ph * p->dw_pw + KN_DW_SLACK) * sizeof(float), 64);
    p->scratch_bytes = p->dw_slot_bytes * (size_t)p->dw_tasks;
}

typedef struct dw_job {
    const kn_conv_params *st;
    const void *x, *w, *b;
    const float *z;
    const kn_activation *act;
    void *y;
    char *scratch;
} dw_job;

/* Task t owns scratch slot t and planes [P t / T, P (t + 1) / T). */
static void dw_direct_task(void *ctx, int64_t begin, int64_t end)
{
    const dw_job *j = ctx;
    const kn_conv_params *st = j->st;
    const kn_window *w = &st->win;
    const kn_simd_kernels *ks = kn_simd();
    int64_t planes = st->batch * st->cout;
    for (int64_t t = begin; t < end; t++) {
        float *pad = (float *)(j->scratch + (size_t)t * st->dw_slot_bytes);
        /* borders and slack stay zero; each plane rewrites the interior */
        memset(pad, 0, st->dw_slot_bytes);
        for (int64_t plane = planes * t / st->dw_tasks; plane < planes * (t + 1) / st->dw_tasks;
             plane++) {
            int64_t n = plane / st->cout, m = plane % st->cout, g = m / st->mg;
            const float *x = (const float *)j->x + (n * st->cin + g) * st->in_size;
            for (int64_t r = 0; r < w->in[1]; r++)
                memcpy(pad + (r + w->pad_begin[1]) * st->dw_pw + w->pad_begin[2],
                       x + r * w->in[2], sizeof(float) * (size_t)w->in[2]);
            kn_dw_plane p = {
                .x = pad,
                .xs = st->dw_pw,
                .y = (float *)j->y + plane * st->out_size,
                .oh = w->out[1],
                .ow = w->out[2],
                .w = (const float *)j->w + m * w->kernel[1] * w->kernel[2],
                .kh = (int32_t)w->kernel[1],
                .kw = (int32_t)w->kernel[2],
                .sh = (int32_t)w->stride[1],
                .sw = (int32_t)w->stride[2],
                .bias = j->b ? ((const float *)j->b)[m] : 0.0f,
                .z = j->z ? j->z + plane * st->out_size : NULL,
                .act = j->act,
            };
            ks->dw_plane(&p);
        }
    }
}

#define KN_DEFINE_DEPTHWISE(T, SFX)                                                                \
    /* y[i] += a * x[i * sx]; restrict and fixed-width chunks let gcc -O2 */                       \
    /* vectorise the stride-1 case. */                                                             \
    static void axpy_##SFX(T *restrict y, const T *restrict x, int64_t sx, T a, int64_t len)       \
    {                                                                                              \
        int64_t i = 0;                                                                             \
        if (sx == 1)                                                                               \
            for (; i + 16 <= len; i += 16)                                                         \
                for (int l = 0; l < 16; l++)                                                       \
                    y[i + l] += a * x[i + l];                                                      \
        for (; i < len; i++)                                                                       \
            y[i] += a * x[i * sx];                                                                 \
    }                                                                                              \
    static void dw_plane_##SFX(const dw_job *j, int64_t plane)                                     \
    {                                                                                              \
        const kn_conv_params *st = j->st;                                                          \
        const kn_window *w = &st->win;                                                             \
        int64_t n = plane / st->cout, m = plane % st->cout, g = m / st->mg;                        \
        const T *x = (const T *)j->x + (n * st->cin + g) * st->in_size;                            \
        const T *wt = (const T *)j->w + m * kn_window_kvol(w);                                     \
        T *y = (T *)j->y + plane * st->out_size;                                                   \
        T bias = j->b ? ((const T *)j->b)[m] : 0;                                                  \
        for (int64_t i = 0; i < st->out_size; i++)                                                 \
            y[i] = bias;                                                                           \
        const int64_t sw = w->stride[2];                                                           \
        for (int64_t t0 = 0; t0 < w->kernel[0]; t0++) {                                            \
            int64_t lo0, hi0;                                                                      \
            kn_window_outs(w, 0, t0, &lo0, &hi0);                                                  \
            for (int64_t t1 = 0; t1 < w->kernel[1]; t1++) {                                        \
                int64_t lo1, hi1;                                                                  \
                kn_window_outs(w, 1, t1, &lo1, &hi1);                                              \
                for (int64_t t2 = 0; t2 < w->kernel[2]; t2++) {                                    \
                    int64_t lo2, hi2;                                                              \
                    kn_window_outs(w, 2, t2, &lo2, &hi2);                                          \
                    T wv = *wt++;                                                                  \
                    int64_t len = hi2 - lo2;                                                       \
                    if (len <= 0)                                                                  \
                        continue;                                                                  \
                    int64_t iw = lo2 * sw - w->pad_begin[2] + t2 * w->dilation[2];                 \
                    for (int64_t o0 = lo0; o0 < hi0; o0++) {                                       \
                        int64_t i0 = o0 * w->stride[0] - w->pad_begin[0] + t0 * w->dilation[0];    \
                        for (int64_t o1 = lo1; o1 < hi1; o1++) {                                   \
                            int64_t i1 =                                                           \
                                o1 * w->stride[1] - w->pad_begin[1] + t1 * w->dilation[1];         \
                            axpy_##SFX(y + (o0 * w->out[1] + o1) * w->out[2] + lo2,                \
                                       x + (i0 * w->in[1] + i1) * w->in[2] + iw, sw, wv, len);     \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

KN_DEFINE_DEPTHWISE(float, f32)
KN_DEFINE_DEPTHWISE(double, f64)

static void dw_portable_range(void *ctx, int64_t begin, int64_t end)
{
    const dw_job *j = ctx;
    for (int64_t p = begin; p < end; p++) {
        if (j->st->dtype == KN_DOUBLE) {
            dw_plane_f64(j, p);
            continue;
        }
        dw_plane_f32(j, p);
        if (j->z || (j->act && j->act->kind != KN_ACT_NONE))
            kn_simd()->bias_act((float *)j->y + p * j->st->out_size, j->st->out_size, 0.0f,
                                j->z ? j->z + p * j->st->out_size : NULL, j->act);
    }
}

void kn_conv_depthwise_run(const kn_conv_params *st, const void *x, const void *w,
                           const void *bias, const void *z, const kn_activation *act, void *y,
                           void *scratch, kn_threadpool *pool)
{
    dw_job j = {st, x, w, bias, z, act, y, scratch};
    if (st->dw_direct) {
        kn_parallel_for(pool, st->dw_tasks, 1, dw_direct_task, &j);
        return;
    }
    int64_t grain = 1 + 16384 / (st->out_size * kn_window_kvol(&st->win) + 1);
    kn_parallel_for(pool, st->batch * st->cout, grain, dw_portable_range, &j);
}
