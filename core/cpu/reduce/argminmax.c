/* ArgMax and ArgMin (opsets 1, 11, 12, 13): the int64 index of the largest
 * (smallest) element along one axis, first occurrence by default, last
 * with select_last_index. A NaN counts as the extreme, as in numpy.
 *
 * The input is an (outer, n, inner) view. Each unit is one outer index and
 * a block of up to AM_COLS adjacent inner columns: a step down the axis
 * then compares a contiguous row against the block's running best, which
 * streams through memory whatever the axis. */
#include <stdlib.h>

#include "core/cpu/tensor/compare_keys.h"
#include "core/kernel/tensor_common.h"

#define AM_COLS 64

typedef struct am_state {
    int is_min, last;
    int32_t dtype;
    int64_t outer, n, inner, blocks;
} am_state;

typedef struct am_job {
    const am_state *s;
    const void *x;
    int64_t *y;
} am_job;

/* Key type and element load per class: halves compare as float. */

#define AM_TYPES(X)                                                           \
    KN_TYPES_REAL(X, _)                                                       \
    X(_, H, KN_FLOAT16, uint16_t, uint16_t)                                   \
    X(_, B, KN_BFLOAT16, uint16_t, uint16_t)

/* `better` decides whether candidate v replaces the running best b: the
 * strict comparison keeps the first occurrence, the non-strict one the
 * last; a NaN replaces any number, and (last) an earlier NaN too. */
#define AM_BLOCK(arg, C, DT, T, U)                                                      \
    static void am_block_##DT(const am_job *j, int64_t o, int64_t c0, int64_t w)        \
    {                                                                                   \
        typedef KEY_##C(T) K;                                                           \
        const am_state *s = j->s;                                                       \
        const T *x = (const T *)j->x + o * s->n * s->inner + c0;                        \
        int64_t *y = j->y + o * s->inner + c0;                                          \
        K best[AM_COLS];                                                                \
        for (int64_t l = 0; l < w; l++) {                                               \
            best[l] = LOAD_##C(x[l]);                                                   \
            y[l] = 0;                                                                   \
        }                                                                               \
        for (int64_t r = 1; r < s->n; r++) {                                            \
            const T *row = x + r * s->inner;                                            \
            for (int64_t l = 0; l < w; l++) {                                           \
                K v = LOAD_##C(row[l]), b = best[l];                                    \
                int take;                                                               \
                if (ISNAN_##C(v))                                                       \
                    take = s->last || !ISNAN_##C(b);                                    \
                else if (s->is_min)                                                     \
                    take = s->last ? v <= b : v < b;                                    \
                else                                                                    \
                    take = s->last ? v >= b : v > b;                                    \
                if (take) {                                                             \
                    best[l] = v;                                                        \
                    y[l] = r;                                                           \
                }                                                                       \
            }                                                                           \
        }                                                                               \
    }
AM_TYPES(AM_BLOCK)

#define AM_CASE(arg, C, DT, T, U)                                             \
    case DT: am_block_##DT(j, o, c0, w); break;

static void am_range(void *ctx, int64_t begin, int64_t end)
{
    const am_job *j = ctx;
    const am_state *s = j->s;
    for (int64_t u = begin; u < end; u++) {
        int64_t o = u / s->blocks, c0 = (u % s->blocks) * AM_COLS;
        int64_t w = s->inner - c0 < AM_COLS ? s->inner - c0 : AM_COLS;
        switch (s->dtype) {
        AM_TYPES(AM_CASE)
        default: break;
        }
    }
}

static int am_prepare(kn_kctx *k, int is_min)
{
    const char *op = k->node->op_type;
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    kn_tensor *y = k->out[0];
    int32_t dt = x->dtype;
    if (!kn_convert_supported(dt) || dt == KN_BOOL)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input type %s is not supported", op,
                       kn_dtype_name(dt));
    if (x->rank < 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: input is a scalar, expected rank >= 1", op);
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", 0), x->rank, k->err);
    if (axis < 0) {
        kn_err_prefix(k->err, "%s", op);
        return k->err->code;
    }
    int keepdims = kn_attr_int(k->node, "keepdims", 1) != 0;
    am_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    s->is_min = is_min;
    s->last = k->opset >= 12 && kn_attr_int(k->node, "select_last_index", 0) != 0;
    s->dtype = dt;
    s->outer = kn_shape_numel(x->dims, axis);
    s->n = x->dims[axis];
    s->inner = kn_shape_numel(x->dims + axis + 1, x->rank - axis - 1);
    s->blocks = (s->inner + AM_COLS - 1) / AM_COLS;
    y->dtype = KN_INT64;
    y->rank = 0;
    for (int32_t i = 0; i < x->rank; i++)
        if (i != axis || keepdims)
            y->dims[y->rank++] = i == axis ? 1 : x->dims[i];
    if (s->n == 0 && kn_tensor_numel(y) > 0)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: axis %d has size 0, so there is no %s", op,
                       (int)axis, is_min ? "minimum" : "maximum");
    return KN_OK;
}

static int argmax_prepare(kn_kctx *k) { return am_prepare(k, 0); }
static int argmin_prepare(kn_kctx *k) { return am_prepare(k, 1); }

static int am_run(kn_kctx *k)
{
    const am_state *s = k->state;
    int64_t units = s->outer * s->blocks;
    if (units <= 0 || s->n == 0)
        return KN_OK;
    am_job j = {s, k->in[0]->data, k->out[0]->data};
    int64_t per_unit = s->n * (s->inner < AM_COLS ? s->inner : AM_COLS);
    kn_parallel_for(k->threads, units, 1 + KN_GRAIN / per_unit, am_range, &j);
    return KN_OK;
}

static void am_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

#define AM_MASK (KN_MASK_NUMERIC | KN_MASK_HALF)
const kn_op_def kn_op_ArgMax = {
    .op_type = "ArgMax", .since_version = 1, .dtypes = AM_MASK, .prepare = argmax_prepare,
    .run = am_run, .release = am_release
};
const kn_op_def kn_op_ArgMin = {
    .op_type = "ArgMin", .since_version = 1, .dtypes = AM_MASK, .prepare = argmin_prepare,
    .run = am_run, .release = am_release
};
