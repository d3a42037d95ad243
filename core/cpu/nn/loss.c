/* NegativeLogLikelihoodLoss (opsets 12, 13, 22) and SoftmaxCrossEntropyLoss
 * (12, 13). Both pick, for every sample position (n, d1..dk), the
 * log-probability of its target class c: NLL reads it from the input,
 * SoftmaxCrossEntropy computes log_softmax over the class axis first (and
 * may output all of it as log_prob). The loss is -logp[c] * w with
 * w = weight[c] (1 without weights, 0 when the target is ignore_index);
 * "mean" divides the sum by the sum of w, as ONNX's reference does.
 *
 * The input is viewed as (N, C, D) with D = d1*...*dk; math runs in
 * double through typed load/store helpers. Targets are checked once,
 * serially, before the parallel part, so a bad class index fails cleanly
 * with nothing written out of bounds. Reductions sum per-position values
 * from scratch in a fixed order, so results do not depend on threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

enum { RED_NONE, RED_SUM, RED_MEAN };

typedef struct loss_state {
    int softmax;     /* SoftmaxCrossEntropyLoss */
    int reduction;
    int has_ignore;
    int64_t ignore;
    int32_t dtype;
    int64_t n, c, d; /* (N, C, D) view of the input */
} loss_state;

static inline double ld(int32_t dt, const void *p, int64_t i)
{
    switch (dt) {
    case KN_FLOAT: return ((const float *)p)[i];
    case KN_DOUBLE: return ((const double *)p)[i];
    case KN_FLOAT16: return kn_f16_to_f32(((const uint16_t *)p)[i]);
    case KN_BFLOAT16: return kn_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return 0;
    }
}

static inline void st(int32_t dt, void *p, int64_t i, double v)
{
    switch (dt) {
    case KN_FLOAT: ((float *)p)[i] = (float)v; break;
    case KN_DOUBLE: ((double *)p)[i] = v; break;
    case KN_FLOAT16: ((uint16_t *)p)[i] = kn_f32_to_f16((float)v); break;
    case KN_BFLOAT16: ((uint16_t *)p)[i] = kn_f32_to_bf16((float)v); break;
    default: break;
    }
}

static int is_float(int32_t dt)
{
    return dt == KN_FLOAT || dt == KN_DOUBLE || dt == KN_FLOAT16 || dt == KN_BFLOAT16;
}

static int loss_prepare(kn_kctx *k, int softmax)
{
    const char *op = k->node->op_type;
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *t = k->in[1], *w = kn_input(k, 2);
    if (!is_float(x->dtype))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input type %s is not supported", op,
                       kn_dtype_name(x->dtype));
    if (t->dtype != KN_INT64 && t->dtype != KN_INT32)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: target must be int32 or int64, not %s", op,
                       kn_dtype_name(t->dtype));
    if (x->rank < 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: input must be (N, C, d1, ...), got rank %d", op,
                       (int)x->rank);
    int shape_ok = t->rank == x->rank - 1 && t->dims[0] == x->dims[0];
    for (int32_t i = 1; shape_ok && i < t->rank; i++)
        shape_ok = t->dims[i] == x->dims[i + 1];
    if (!shape_ok) {
        char sx[128], st_[128];
        kn_shape_format(x->dims, x->rank, sx, sizeof sx);
        kn_shape_format(t->dims, t->rank, st_, sizeof st_);
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: target %s does not match input %s (N, d1, ...)",
                       op, st_, sx);
    }
    if (w && (w->dtype != x->dtype || w->rank != 1 || w->dims[0] != x->dims[1]))
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: weight must be a 1-D %s tensor of C=%lld values",
                       op, kn_dtype_name(x->dtype), (long long)x->dims[1]);
    const char *red = kn_attr_string(k->node, "reduction", "mean");
    int reduction = strcmp(red, "none") == 0 ? RED_NONE
                    : strcmp(red, "sum") == 0 ? RED_SUM
                    : strcmp(red, "mean") == 0 ? RED_MEAN
                                               : -1;
    if (reduction < 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "%s: reduction '%s' is not one of none, sum, mean", op, red);
    loss_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    s->softmax = softmax;
    s->reduction = reduction;
    s->has_ignore = kn_node_attr(k->node, "ignore_index") != NULL;
    s->ignore = kn_attr_int(k->node, "ignore_index", 0);
    s->dtype = x->dtype;
    s->n = x->dims[0];
    s->c = x->dims[1];
    s->d = kn_shape_numel(x->dims + 2, x->rank - 2);

    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    if (reduction == RED_NONE) {
        y->rank = t->rank;
        memcpy(y->dims, t->dims, sizeof y->dims);
    } else {
        y->rank = 0;
        /* per-position loss and weight, summed in order after the parallel part */
        k->scratch_bytes = 2 * (size_t)(s->n * s->d) * sizeof(double);
    }
    kn_tensor *lp = kn_output(k, 1);
    if (lp) {
        if (!softmax)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: has only one output", op);
        kn_copy_desc(lp, x);
    }
    return KN_OK;
}

static int nll_prepare(kn_kctx *k) { return loss_prepare(k, 0); }
static int sce_prepare(kn_kctx *k) { return loss_prepare(k, 1); }

typedef struct loss_job {
    const loss_state *s;
    const void *x, *w;
    const kn_tensor *t;
    void *y, *lp;      /* lp: log_prob output or NULL */
    double *loss, *wt; /* reductions: per-position values */
} loss_job;

static void loss_range(void *ctx, int64_t begin, int64_t end)
{
    const loss_job *j = ctx;
    const loss_state *s = j->s;
    int32_t dt = s->dtype;
    for (int64_t p = begin; p < end; p++) {
        int64_t n = p / s->d, d = p % s->d;
        int64_t base = n * s->c * s->d + d; /* element (n, 0, d); classes are s->d apart */
        int64_t c = kn_read_int(j->t, p);
        int ignored = s->has_ignore && c == s->ignore;
        double logp = 0;
        if (s->softmax) {
            double m = -INFINITY, sum = 0;
            for (int64_t i = 0; i < s->c; i++) {
                double v = ld(dt, j->x, base + i * s->d);
                m = v > m ? v : m;
            }
            for (int64_t i = 0; i < s->c; i++)
                sum += exp(ld(dt, j->x, base + i * s->d) - m);
            double lse = m + log(sum);
            if (j->lp)
                for (int64_t i = 0; i < s->c; i++)
                    st(dt, j->lp, base + i * s->d, ld(dt, j->x, base + i * s->d) - lse);
            if (!ignored)
                logp = ld(dt, j->x, base + c * s->d) - lse;
        } else if (!ignored) {
            logp = ld(dt, j->x, base + c * s->d);
        }
        double w = ignored ? 0 : j->w ? ld(dt, j->w, c) : 1;
        double loss = ignored ? 0 : -logp * w;
        if (s->reduction == RED_NONE) {
            st(dt, j->y, p, loss);
        } else {
            j->loss[p] = loss;
            j->wt[p] = w;
        }
    }
}

static int loss_run(kn_kctx *k)
{
    const loss_state *s = k->state;
    const kn_tensor *t = k->in[1], *w = kn_input(k, 2);
    int64_t positions = s->n * s->d;
    for (int64_t p = 0; p < positions; p++) {
        int64_t c = kn_read_int(t, p);
        if ((s->has_ignore && c == s->ignore) || (c >= 0 && c < s->c))
            continue;
        return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                       "%s: target %lld at position %lld is outside [0, %lld)",
                       k->node->op_type, (long long)c, (long long)p, (long long)s->c);
    }
    kn_tensor *lp = kn_output(k, 1);
    double *scratch = k->scratch;
    loss_job j = {s, k->in[0]->data, w ? w->data : NULL, t, k->out[0]->data,
                  lp ? lp->data : NULL, scratch, scratch ? scratch + positions : NULL};
    /* A position costs about C loads (3C with softmax). */
    int64_t cost = s->c * (s->softmax ? 3 : 1) + 1;
    if (positions > 0)
        kn_parallel_for(k->threads, positions, 1 + KN_GRAIN / cost, loss_range, &j);
    if (s->reduction == RED_NONE)
        return KN_OK;
    double total = 0, wsum = 0;
    for (int64_t p = 0; p < positions; p++) {
        total += j.loss[p];
        wsum += j.wt[p];
    }
    /* An all-ignored mean is 0/0 = NaN, like the reference. */
    st(s->dtype, k->out[0]->data, 0, s->reduction == RED_MEAN ? total / wsum : total);
    return KN_OK;
}

static void loss_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

#define LOSS_MASK (KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))
const kn_op_def kn_op_NegativeLogLikelihoodLoss = {
    .op_type = "NegativeLogLikelihoodLoss", .since_version = 12, .dtypes = LOSS_MASK,
    .prepare = nll_prepare, .run = loss_run, .release = loss_release
};
const kn_op_def kn_op_SoftmaxCrossEntropyLoss = {
    .op_type = "SoftmaxCrossEntropyLoss", .since_version = 12, .dtypes = LOSS_MASK,
    .prepare = sce_prepare, .run = loss_run, .release = loss_release
};
