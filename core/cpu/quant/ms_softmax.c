/* QLinearSoftmax (com.microsoft 1): Softmax of a dequantized int8/uint8
 * tensor, quantized again, with ONNX Runtime's definition:
 *
 *   p_i = exp(X_scale (x_i - x_max)) / sum_j exp(X_scale (x_j - x_max))
 *   y_i = saturate(round_half_even(p_i * floor(1 / Y_scale)) + Y_zp)
 *
 * The multiplier is floor(1 / Y_scale), computed in float, not 1 / Y_scale:
 * that is what ONNX Runtime does (the scales its quantizer writes for a
 * softmax output, 1/256, make the two equal). Where its int8 kernel wraps a
 * result above 127 to negative (y_zp -128 and one dominant element), this
 * one saturates to 127.
 *
 * Attribute `opset` (required) is the opset of the Softmax the node stands
 * for: below 13 the input is seen as 2-D, [prod(dims before axis),
 * prod(dims from axis)] (default axis 1), from 13 the softmax runs along
 * the one dimension `axis` (default -1). x_i - x_max takes at most 256
 * values, so exp comes from a 256-entry table, built once when X_scale is
 * a constant. */
#include <math.h>
#include <stdlib.h>

#include "core/cpu/quant/ms_quant.h"
#include "core/kernel/tensor_common.h"

typedef struct qsoftmax_state {
    int32_t dtype;
    int64_t outer, d, inner; /* x as [outer, d, inner]; softmax over d */
    int have_table;
    double exp_table[256];   /* exp(-X_scale k), k = x_max - x */
} qsoftmax_state;

static void exp_table(double x_scale, double *table)
{
    for (int v = 0; v < 256; v++)
        table[v] = exp(-x_scale * v);
}

static void qsoftmax_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

static int qsoftmax_prepare(kn_kctx *k)
{
    const char *op = "QLinearSoftmax";
    if (ms_require(k, 1u << 0 | 1u << 1 | 1u << 3, "X, X_scale and y_scale") != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    int rc = ms_check_q8(k, "X", x);
    if (rc == KN_OK)
        rc = ms_check_scalar_pair(k, "X", k->in[1], kn_input(k, 2), x->dtype);
    if (rc == KN_OK)
        rc = ms_check_scalar_pair(k, "y", k->in[3], kn_input(k, 4), x->dtype);
    if (rc != KN_OK)
        return rc;
    if (!kn_node_attr(k->node, "opset"))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "%s: attribute opset (the opset of the Softmax it replaces) is required", op);
    int64_t opset = kn_attr_int(k->node, "opset", 13);
    int64_t axis_attr = kn_attr_int(k->node, "axis", opset < 13 ? 1 : -1);
    int32_t axis = x->rank > 0 ? kn_norm_axis(axis_attr, x->rank, NULL) : 0;
    if (axis < 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: axis %lld is out of range for rank %d",
                       op, (long long)axis_attr, (int)x->rank);
    qsoftmax_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    s->dtype = x->dtype;
    s->outer = kn_shape_numel(x->dims, axis);
    if (opset < 13 || x->rank == 0) {
        s->d = kn_shape_numel(x->dims + axis, x->rank - axis);
        s->inner = 1;
    } else {
        s->d = x->dims[axis];
        s->inner = kn_shape_numel(x->dims + axis + 1, x->rank - axis - 1);
    }
    if (ms_known(k->in[1])) {
        exp_table(ms_scale(k->in[1]), s->exp_table);
        s->have_table = 1;
    }
    kn_copy_desc(k->out[0], x);
    return KN_OK;
}

typedef struct qsoftmax_job {
    const qsoftmax_state *s;
    const double *table;
    const uint8_t *x;
    uint8_t *y;
    double mult; /* floor(1 / Y_scale) */
    int32_t y_zp;
} qsoftmax_job;

/* Rows [begin, end): row r is (outer r / inner, inner r % inner). */
static void qsoftmax_rows(void *ctx, int64_t begin, int64_t end)
{
    const qsoftmax_job *j = ctx;
    const qsoftmax_state *s = j->s;
    const uint8_t flip = q8_flip(s->dtype);
    const int64_t d = s->d, step = s->inner;
    for (int64_t r = begin; r < end; r++) {
        int64_t base = (r / s->inner) * d * s->inner + r % s->inner;
        const uint8_t *x = j->x + base;
        uint8_t *y = j->y + base;
        /* bytes ^ flip order like the values they hold */
        int max = 0;
        for (int64_t i = 0; i < d; i++)
            max = (x[i * step] ^ flip) > max ? (x[i * step] ^ flip) : max;
        double sum = 0;
        for (int64_t i = 0; i < d; i++)
            sum += j->table[max - (x[i * step] ^ flip)];
        double scale = j->mult / sum; /* sum >= 1: the maximum contributes exp(0) */
        for (int64_t i = 0; i < d; i++)
            y[i * step] = q8_quantize(j->table[max - (x[i * step] ^ flip)] * scale, j->y_zp,
                                      s->dtype);
    }
}

static int qsoftmax_run(kn_kctx *k)
{
    const qsoftmax_state *s = k->state;
    double table[256];
    const double *t = s->exp_table;
    if (!s->have_table) {
        exp_table(ms_scale(k->in[1]), table);
        t = table;
    }
    float mult = floorf(1.0f / ms_scale(k->in[3]));
    qsoftmax_job j = {s, t, k->in[0]->data, k->out[0]->data, mult, ms_zp(kn_input(k, 4))};
    int64_t rows = s->outer * s->inner;
    if (s->d > 0)
        kn_parallel_for(k->threads, rows, 1 + KN_GRAIN / s->d, qsoftmax_rows, &j);
    return KN_OK;
}

const kn_op_def kn_op_QLinearSoftmax = {
    .domain = QUANT_MS_DOMAIN, .op_type = "QLinearSoftmax", .since_version = 1,
    .dtypes = QUANT_MASK_Q8, .prepare = qsoftmax_prepare, .run = qsoftmax_run,
    .release = qsoftmax_release
};
