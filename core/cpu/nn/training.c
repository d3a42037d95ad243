/* Optimizer steps of the ai.onnx.preview.training domain (opset 1):
 * Adagrad, Adam and Momentum (standard or Nesterov). Each takes a learning
 * rate R and step count T (scalars), then n tensors to optimise followed
 * by n tensors of each per-tensor input (gradients, accumulators), and
 * returns the updated tensors grouped the same way:
 *
 *   Adagrad  (R, T, X.., G.., H..)      -> (X_new.., H_new..)
 *   Adam     (R, T, X.., G.., V.., H..) -> (X_new.., V_new.., H_new..)
 *   Momentum (R, T, X.., G.., V..)      -> (X_new.., V_new..)
 *
 * One loop serves all three: per element it loads x, g and the state
 * tensors as double, applies the op's rule (formulas from the spec, with
 * the regularisation term norm_coefficient * x added to the gradient) and
 * stores the results in each tensor's type (float or double). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

#define TRAINING_DOMAIN "ai.onnx.preview.training"

enum { OPT_ADAGRAD, OPT_ADAM, OPT_MOMENTUM };

typedef struct opt_state {
    int kind;
    int32_t groups;   /* n: tensors optimised */
    int32_t per;      /* inputs per tensor after R and T: 3 (X, G, H), 4 (X, G, V, H) or 3 */
    double norm, epsilon, decay, alpha, beta, norm_post;
    int nesterov;
} opt_state;

static void opt_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

static int opt_prepare(kn_kctx *k, int kind)
{
    const char *op = k->node->op_type;
    int32_t per = kind == OPT_ADAM ? 4 : 3;
    if (k->n_in < 2 + per || (k->n_in - 2) % per != 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: %d inputs; expected R, T and %d per "
                       "optimised tensor", op, (int)k->n_in, (int)per);
    int32_t n = (k->n_in - 2) / per;
    if (k->n_out != n * (per - 1))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: %d outputs for %d tensors, expected %d",
                       op, (int)k->n_out, (int)n, (int)(n * (per - 1)));
    for (int32_t i = 0; i < k->n_in; i++)
        if (!k->in[i])
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: input %d is missing", op, (int)i);
    const kn_tensor *r = k->in[0], *t = k->in[1];
    if (kn_tensor_numel(r) != 1 || kn_tensor_numel(t) != 1 || t->dtype != KN_INT64)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: R must be a scalar and T an int64 scalar", op);
    for (int32_t g = 0; g < n; g++) {
        const kn_tensor *x = k->in[2 + g];
        if (x->dtype != KN_FLOAT && x->dtype != KN_DOUBLE)
            return kn_fail(k->err, KN_ERR_DTYPE, "%s: X%d is %s, expected float or double", op,
                           (int)g + 1, kn_dtype_name(x->dtype));
        for (int32_t j = 1; j < per; j++) {
            const kn_tensor *o = k->in[2 + j * n + g];
            if (o->dtype != x->dtype || !kn_shape_equal(o->dims, o->rank, x->dims, x->rank))
                return kn_fail(k->err, KN_ERR_SHAPE, "%s: input %d must match X%d in type and "
                               "shape", op, (int)(2 + j * n + g), (int)g + 1);
        }
        for (int32_t j = 0; j < per - 1; j++) {
            kn_tensor *y = k->out[j * n + g];
            if (y)
                kn_copy_desc(y, x);
        }
    }
    opt_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    s->kind = kind;
    s->groups = n;
    s->per = per;
    s->norm = kn_attr_float(k->node, "norm_coefficient", 0);
    s->epsilon = kn_attr_float(k->node, "epsilon", 1e-6f); /* Adagrad, Adam */
    s->decay = kn_attr_float(k->node, "decay_factor", 0);
    s->alpha = kn_attr_float(k->node, "alpha", kind == OPT_ADAM ? 0.9f : 0);
    s->beta = kn_attr_float(k->node, "beta", kind == OPT_ADAM ? 0.999f : 0);
    s->norm_post = kn_attr_float(k->node, "norm_coefficient_post", 0);
    if (kind == OPT_MOMENTUM) {
        static const char *const required[] = {"alpha", "beta", "mode", "norm_coefficient"};
        for (int i = 0; i < 4; i++)
            if (!kn_node_attr(k->node, required[i]))
                return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Momentum: attribute %s is required",
                               required[i]);
        const char *mode = kn_attr_string(k->node, "mode", "standard");
        if (strcmp(mode, "nesterov") != 0 && strcmp(mode, "standard") != 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Momentum: mode must be \"standard\" or "
                           "\"nesterov\", not \"%s\"", mode);
        s->nesterov = strcmp(mode, "nesterov") == 0;
    }
    return KN_OK;
}

/* One element: x, g and up to two state values in, new x and states out. */
static void opt_step(const opt_state *s, double r, int64_t t, double *x, double g, double *v,
                     double *h)
{
    double gr = s->norm * *x + g;
    switch (s->kind) {
    case OPT_ADAGRAD: {
        double rate = r / (1 + (double)t * s->decay);
        *h += gr * gr;
        *x -= rate * gr / (sqrt(*h) + s->epsilon);
        break;
    }
    case OPT_ADAM: {
        *v = s->alpha * *v + (1 - s->alpha) * gr;
        *h = s->beta * *h + (1 - s->beta) * gr * gr;
        double rate = t > 0 ? r * sqrt(1 - pow(s->beta, (double)t)) / (1 - pow(s->alpha, (double)t))
                            : r;
        *x = (1 - s->norm_post) * (*x - rate * *v / (sqrt(*h) + s->epsilon));
        break;
    }
    default: { /* momentum; the gradient's coefficient is 1 on the first step */
        *v = s->alpha * *v + (t > 0 ? s->beta : 1) * gr;
        *x -= r * (s->nesterov ? gr + s->alpha * *v : *v);
        break;
    }
    }
}

static int opt_run(kn_kctx *k)
{
    const opt_state *s = k->state;
    int32_t n = s->groups;
    double r = kn_read_double(k->in[0], 0);
    int64_t t = kn_read_int(k->in[1], 0);
    double x[KN_CHUNK], g[KN_CHUNK], v[KN_CHUNK], h[KN_CHUNK];
    /* slots of the state inputs/outputs: Adagrad H; Adam V, H; Momentum V */
    int has_v = s->kind != OPT_ADAGRAD, has_h = s->kind != OPT_MOMENTUM;
    for (int32_t gi = 0; gi < n; gi++) {
        const kn_tensor *tx = k->in[2 + gi], *tg = k->in[2 + n + gi];
        const kn_tensor *tv = has_v ? k->in[2 + 2 * n + gi] : NULL;
        const kn_tensor *th = has_h ? k->in[2 + (s->per - 1) * n + gi] : NULL;
        kn_tensor *ox = k->out[gi];
        kn_tensor *ov = has_v ? k->out[n + gi] : NULL;
        kn_tensor *oh = has_h ? k->out[(s->per - 2) * n + gi] : NULL;
        int32_t dt = tx->dtype;
        size_t es = kn_dtype_size(dt);
        int64_t numel = kn_tensor_numel(tx);
        for (int64_t i = 0; i < numel; i += KN_CHUNK) {
            int64_t m = numel - i < KN_CHUNK ? numel - i : KN_CHUNK;
            size_t off = (size_t)i * es;
            kn_convert(dt, (const char *)tx->data + off, KN_DOUBLE, x, m);
            kn_convert(dt, (const char *)tg->data + off, KN_DOUBLE, g, m);
            if (tv)
                kn_convert(dt, (const char *)tv->data + off, KN_DOUBLE, v, m);
            if (th)
                kn_convert(dt, (const char *)th->data + off, KN_DOUBLE, h, m);
            for (int64_t e = 0; e < m; e++)
                opt_step(s, r, t, &x[e], g[e], &v[e], &h[e]);
            if (ox)
                kn_convert(KN_DOUBLE, x, dt, (char *)ox->data + off, m);
            if (ov)
                kn_convert(KN_DOUBLE, v, dt, (char *)ov->data + off, m);
            if (oh)
                kn_convert(KN_DOUBLE, h, dt, (char *)oh->data + off, m);
        }
    }
    return KN_OK;
}

static int adagrad_prepare(kn_kctx *k) { return opt_prepare(k, OPT_ADAGRAD); }
static int adam_prepare(kn_kctx *k) { return opt_prepare(k, OPT_ADAM); }
static int momentum_prepare(kn_kctx *k) { return opt_prepare(k, OPT_MOMENTUM); }

const kn_op_def kn_op_Adagrad = {
    .domain = TRAINING_DOMAIN, .op_type = "Adagrad", .since_version = 1,
    .dtypes = KN_MASK_FLOATS, .prepare = adagrad_prepare, .run = opt_run,
    .release = opt_release
};
const kn_op_def kn_op_Adam = {
    .domain = TRAINING_DOMAIN, .op_type = "Adam", .since_version = 1, .dtypes = KN_MASK_FLOATS,
    .prepare = adam_prepare, .run = opt_run, .release = opt_release
};
const kn_op_def kn_op_Momentum = {
    .domain = TRAINING_DOMAIN, .op_type = "Momentum", .since_version = 1,
    .dtypes = KN_MASK_FLOATS, .prepare = momentum_prepare, .run = opt_run,
    .release = opt_release
};
