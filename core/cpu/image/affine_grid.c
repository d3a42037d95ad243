/* AffineGrid (opset 20): the sampling grid GridSample takes, from a batch
 * of affine matrices. theta is N x 2 x 3 (2-D) or N x 3 x 4 (3-D); size
 * is the target image shape (N, C, H, W) or (N, C, D, H, W). Each output
 * point is theta * (x, y[, z], 1) where x, y, z run over [-1, 1] along W,
 * H, D: pixel centres (-1 + (2i + 1) / n) or, with align_corners, the
 * corner pixels at -1 and 1. Output: N x H x W x 2 or N x D x H x W x 3,
 * x first. size decides the output shape: KN_ERR_NEEDS_VALUE when it is
 * not known at prepare time. */
#include <stdlib.h>
#include <string.h>

#include "core/cpu/image/image_common.h"

typedef struct ag_state {
    int32_t dtype, nsp; /* 2 or 3 */
    int align;
    int64_t batch, dims[3]; /* spatial sizes, outermost first (D, H, W) */
    int64_t points;
} ag_state;

static int ag_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *theta = k->in[0];
    int64_t size[KN_MAX_RANK];
    int32_t n;
    int rc = img_const_ints(k, 1, "size", size, KN_MAX_RANK, &n);
    if (rc != KN_OK)
        return rc;
    if (n != 4 && n != 5)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "AffineGrid: size must be (N, C, H, W) or (N, C, D, H, W), got %d values",
                       (int)n);
    int32_t nsp = n - 2;
    if (theta->rank != 3 || theta->dims[0] != size[0] || theta->dims[1] != nsp ||
        theta->dims[2] != nsp + 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "AffineGrid: theta must be %lld x %d x %d",
                       (long long)size[0], (int)nsp, (int)(nsp + 1));
    ag_state st = {.dtype = theta->dtype, .nsp = nsp, .batch = size[0], .points = 1};
    st.align = kn_attr_int(k->node, "align_corners", 0) != 0;
    kn_tensor *y = k->out[0];
    y->dtype = theta->dtype;
    y->rank = n;
    y->dims[0] = size[0];
    for (int32_t i = 0; i < nsp; i++) {
        if (size[2 + i] < 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "AffineGrid: size[%d] is negative",
                           (int)(2 + i));
        st.dims[i] = size[2 + i];
        st.points *= size[2 + i];
        y->dims[1 + i] = size[2 + i];
    }
    y->dims[n - 1] = nsp;
    if (kn_shape_numel(y->dims, n) < 0)
        return kn_fail(k->err, KN_ERR_SHAPE, "AffineGrid: output is too large");
    ag_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "AffineGrid: out of memory");
    *s = st;
    k->state = s;
    return KN_OK;
}

/* Normalised coordinate of index i among n. */
static double base_coord(int64_t i, int64_t n, int align)
{
    if (align)
        return n > 1 ? -1 + 2.0 * (double)i / (double)(n - 1) : -1;
    return -1 + (2.0 * (double)i + 1) / (double)n;
}

typedef struct ag_job {
    const ag_state *st;
    const void *theta;
    void *y;
} ag_job;

#define AG_DEFINE(arg, DT, T, ACC, SFX, LOAD, STORE)                                               \
    static void ag_range_##SFX(void *ctx, int64_t begin, int64_t end)                              \
    {                                                                                              \
        const ag_job *j = ctx;                                                                     \
        const ag_state *st = j->st;                                                                \
        const int32_t r = st->nsp;                                                                 \
        for (int64_t item = begin; item < end; item++) {                                           \
            int64_t n = item / st->points, p = item % st->points;                                  \
            const T *th = (const T *)j->theta + n * r * (r + 1);                                   \
            double base[4];                                                                        \
            /* base[0] is x (last dim), base[1] y, base[2] z; then 1 */                            \
            for (int32_t d = r - 1; d >= 0; d--) {                                                 \
                base[r - 1 - d] = base_coord(p % st->dims[d], st->dims[d], st->align);             \
                p /= st->dims[d];                                                                  \
            }                                                                                      \
            base[r] = 1;                                                                           \
            T *y = (T *)j->y + item * r;                                                           \
            for (int32_t o = 0; o < r; o++) {                                                      \
                ACC s = 0;                                                                         \
                for (int32_t i = 0; i <= r; i++)                                                   \
                    s += (ACC)LOAD(th + o * (r + 1) + i) * (ACC)base[i];                           \
                STORE(y + o, s);                                                                   \
            }                                                                                      \
        }                                                                                          \
    }
IMG_TYPES_FLOAT(AG_DEFINE, _)
#define AG_ENTRY(arg, DT, T, ACC, SFX, LOAD, STORE) [DT] = ag_range_##SFX,
static const kn_range_fn AG_RANGES[KN_DTYPE_COUNT] = {IMG_TYPES_FLOAT(AG_ENTRY, _)};

static int ag_run(kn_kctx *k)
{
    const ag_state *st = k->state;
    ag_job j = {st, k->in[0]->data, k->out[0]->data};
    kn_parallel_for(k->threads, st->batch * st->points, 1 + KN_GRAIN / 8, AG_RANGES[st->dtype], &j);
    return KN_OK;
}

static void ag_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_affinegrid_20 = {
    .op_type = "AffineGrid", .since_version = 20, .dtypes = IMG_MASK_FLOAT,
    .prepare = ag_prepare, .run = ag_run, .release = ag_release
};
