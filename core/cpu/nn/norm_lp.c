/* LpNormalization (opsets 1, 22): x divided by its L1 (p = 1) or L2
 * (p = 2) norm along one axis. A zero vector stays zero (ONNX's test
 * data expects 0 there, not 0/0).
 *
 * The input is an (outer, n, inner) view; each unit is one outer index and
 * a block of up to LP_COLS inner columns, so every step along the axis
 * converts one contiguous segment. Math is in double. */
#include <math.h>
#include <stdlib.h>

#include "core/cpu/reduce/reduce_common.h"
#include "core/kernel/tensor_common.h"

#define LP_COLS 64

typedef struct lp_state {
    int32_t dtype;
    int p;
    int64_t outer, n, inner, blocks;
} lp_state;

typedef struct lp_job {
    const lp_state *s;
    const char *x;
    char *y;
} lp_job;

static void lp_range(void *ctx, int64_t begin, int64_t end)
{
    const lp_job *j = ctx;
    const lp_state *s = j->s;
    size_t es = kn_dtype_size(s->dtype);
    double buf[LP_COLS], norm[LP_COLS];
    for (int64_t u = begin; u < end; u++) {
        int64_t o = u / s->blocks, c0 = (u % s->blocks) * LP_COLS;
        int64_t w = s->inner - c0 < LP_COLS ? s->inner - c0 : LP_COLS;
        size_t base = (size_t)(o * s->n * s->inner + c0);
        for (int64_t l = 0; l < w; l++)
            norm[l] = 0;
        for (int64_t r = 0; r < s->n; r++) {
            rd_to_f64(s->dtype, j->x + (base + (size_t)(r * s->inner)) * es, buf, w);
            for (int64_t l = 0; l < w; l++)
                norm[l] += s->p == 1 ? fabs(buf[l]) : buf[l] * buf[l];
        }
        if (s->p == 2)
            for (int64_t l = 0; l < w; l++)
                norm[l] = sqrt(norm[l]);
        for (int64_t r = 0; r < s->n; r++) {
            size_t off = (base + (size_t)(r * s->inner)) * es;
            rd_to_f64(s->dtype, j->x + off, buf, w);
            for (int64_t l = 0; l < w; l++)
                buf[l] = norm[l] == 0 ? 0 : buf[l] / norm[l];
            rd_from_f64(s->dtype, buf, j->y + off, w);
        }
    }
}

static int lp_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    int32_t dt = x->dtype;
    if (dt != KN_FLOAT && dt != KN_DOUBLE && dt != KN_FLOAT16 && dt != KN_BFLOAT16)
        return kn_fail(k->err, KN_ERR_DTYPE, "LpNormalization: input type %s is not supported",
                       kn_dtype_name(dt));
    if (x->rank < 1)
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "LpNormalization: input is a scalar, expected rank >= 1");
    int64_t p = kn_attr_int(k->node, "p", 2);
    if (p != 1 && p != 2)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "LpNormalization: p must be 1 or 2, got %lld",
                       (long long)p);
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", -1), x->rank, k->err);
    if (axis < 0) {
        kn_err_prefix(k->err, "LpNormalization");
        return k->err->code;
    }
    lp_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "LpNormalization: out of memory");
    k->state = s;
    s->dtype = dt;
    s->p = (int)p;
    s->outer = kn_shape_numel(x->dims, axis);
    s->n = x->dims[axis];
    s->inner = kn_shape_numel(x->dims + axis + 1, x->rank - axis - 1);
    s->blocks = (s->inner + LP_COLS - 1) / LP_COLS;
    kn_copy_desc(k->out[0], x);
    return KN_OK;
}

static int lp_run(kn_kctx *k)
{
    const lp_state *s = k->state;
    int64_t units = s->outer * s->blocks;
    if (units <= 0 || s->n <= 0)
        return KN_OK;
    lp_job j = {s, k->in[0]->data, k->out[0]->data};
    int64_t cost = 2 * s->n * (s->inner < LP_COLS ? s->inner : LP_COLS);
    kn_parallel_for(k->threads, units, 1 + KN_GRAIN / cost, lp_range, &j);
    return KN_OK;
}

static void lp_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* In place is safe: a block reads its whole column slice before writing it. */
const kn_op_def kn_op_LpNormalization = {
    .op_type = "LpNormalization", .since_version = 1,
    .dtypes = KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16), .flags = KN_OP_INPLACE,
    .prepare = lp_prepare, .run = lp_run, .release = lp_release
};
