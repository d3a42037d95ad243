/* LpPool (opsets 1 (p a float), 2 and 11 (p an int), 18+ (ceil_mode and
 * dilations)): y = (sum over the window of |x|^p)^(1/p), 1-D to 3-D, with
 * strides, pads / auto_pad; padding contributes nothing. The window
 * geometry is Conv's and the pools' (kn_window_init, im2col.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/im2col.h"
#include "core/cpu/image/image_common.h"

typedef struct lp_state {
    kn_window win;
    int32_t dtype;
    double p;
    int64_t planes, in_size, out_size;
} lp_state;

static int lp_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    if (x->rank < 3)
        return kn_fail(k->err, KN_ERR_SHAPE, "LpPool: X has rank %d, expected N x C x spatial",
                       (int)x->rank);
    int32_t nsp = x->rank - 2;
    kn_window_opts opts = {.op = "LpPool"};
    opts.ceil_mode = k->opset >= 18 && kn_attr_int(k->node, "ceil_mode", 0) != 0;
    opts.dilations = k->opset >= 18;
    lp_state st = {.dtype = x->dtype, .p = 2};
    int rc = kn_window_init(&st.win, k->node, x->dims + 2, nsp, &opts, k->err);
    if (rc != KN_OK)
        return rc;
    const kn_attr *pa = kn_node_attr(k->node, "p");
    if (pa)
        st.p = pa->type == KN_ATTR_FLOAT ? (double)pa->f : (double)pa->i;
    if (!(st.p > 0) || isinf(st.p))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "LpPool: p = %g must be positive", st.p);
    st.planes = x->dims[0] * x->dims[1];
    st.in_size = kn_window_in_size(&st.win);
    st.out_size = kn_window_out_size(&st.win);
    lp_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "LpPool: out of memory");
    *s = st;
    k->state = s;
    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = x->rank;
    y->dims[0] = x->dims[0];
    y->dims[1] = x->dims[1];
    for (int32_t i = 0; i < nsp; i++)
        y->dims[2 + i] = st.win.out[KN_WIN_DIMS - nsp + i];
    return KN_OK;
}

typedef struct lp_job {
    const lp_state *st;
    const void *x;
    void *y;
} lp_job;

/* |v|^p, with the common p = 1 and 2 spared a pow(). */
static inline double lp_power(double v, double p)
{
    v = fabs(v);
    return p == 2 ? v * v : p == 1 ? v : pow(v, p);
}

#define LP_DEFINE(arg, DT, T, ACC, SFX, LOAD, STORE)                                               \
    static void lp_range_##SFX(void *ctx, int64_t begin, int64_t end)                              \
    {                                                                                              \
        const lp_job *j = ctx;                                                                     \
        const lp_state *st = j->st;                                                                \
        const kn_window *w = &st->win;                                                             \
        const double p = st->p;                                                                    \
        for (int64_t plane = begin; plane < end; plane++) {                                        \
            const T *x = (const T *)j->x + plane * st->in_size;                                    \
            T *y = (T *)j->y + plane * st->out_size;                                               \
            for (int64_t o0 = 0, o = 0; o0 < w->out[0]; o0++) {                                    \
                int64_t lo0, hi0;                                                                  \
                kn_window_taps(w, 0, o0, &lo0, &hi0);                                              \
                for (int64_t o1 = 0; o1 < w->out[1]; o1++) {                                       \
                    int64_t lo1, hi1;                                                              \
                    kn_window_taps(w, 1, o1, &lo1, &hi1);                                          \
                    for (int64_t o2 = 0; o2 < w->out[2]; o2++, o++) {                              \
                        int64_t lo2, hi2;                                                          \
                        kn_window_taps(w, 2, o2, &lo2, &hi2);                                      \
                        double sum = 0;                                                            \
                        for (int64_t t0 = lo0; t0 < hi0; t0++) {                                   \
                            int64_t i0 =                                                           \
                                o0 * w->stride[0] - w->pad_begin[0] + t0 * w->dilation[0];         \
                            for (int64_t t1 = lo1; t1 < hi1; t1++) {                               \
                                int64_t i1 =                                                       \
                                    o1 * w->stride[1] - w->pad_begin[1] + t1 * w->dilation[1];     \
                                const T *row = x + (i0 * w->in[1] + i1) * w->in[2];                \
                                for (int64_t t2 = lo2; t2 < hi2; t2++)                             \
                                    sum += lp_power((double)LOAD(row + o2 * w->stride[2] -         \
                                                                 w->pad_begin[2] +                 \
                                                                 t2 * w->dilation[2]),             \
                                                    p);                                            \
                            }                                                                      \
                        }                                                                          \
                        STORE(y + o, p == 2 ? sqrt(sum) : p == 1 ? sum : pow(sum, 1 / p));         \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
IMG_TYPES_FLOAT(LP_DEFINE, _)
#define LP_ENTRY(arg, DT, T, ACC, SFX, LOAD, STORE) [DT] = lp_range_##SFX,
static const kn_range_fn LP_RANGES[KN_DTYPE_COUNT] = {IMG_TYPES_FLOAT(LP_ENTRY, _)};

static int lp_run(kn_kctx *k)
{
    const lp_state *st = k->state;
    lp_job j = {st, k->in[0]->data, k->out[0]->data};
    int64_t work = st->out_size * kn_window_kvol(&st->win) + 1;
    kn_parallel_for(k->threads, st->planes, 1 + KN_GRAIN / work, LP_RANGES[st->dtype], &j);
    return KN_OK;
}

static void lp_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_lppool_1 = {
    .op_type = "LpPool", .since_version = 1, .until_version = 17, .dtypes = IMG_MASK_FLOAT,
    .prepare = lp_prepare, .run = lp_run, .release = lp_release
};
const kn_op_def kn_op_lppool_18 = {
    .op_type = "LpPool", .since_version = 18, .dtypes = IMG_MASK_FLOAT, .prepare = lp_prepare,
    .run = lp_run, .release = lp_release
};
