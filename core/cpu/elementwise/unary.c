/* Elementwise unary math and activations. Every op is one line in a list
 * below: an expression in x (element type T) and the parameters alpha,
 * beta, gamma (attributes) or lo/hi (Clip bounds). Macros expand each line
 * into one typed loop per dtype; float16/bfloat16 run the float loop over
 * chunks converted on the stack. Loops read x before writing y[i], so the
 * output may be the input's own memory (KN_OP_INPLACE). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h> /* exp/log/... follow T: float math for float tensors */

#include "core/simd/kernels.h"
#include "core/kernel/tensor_common.h"

typedef struct unary_params {
    double alpha, beta, gamma;
    double lo, hi;                 /* Clip bounds for floating types */
    int has_lo, has_hi;            /* Clip bounds for integer types ... */
    unsigned char lo_raw[8], hi_raw[8]; /* ... as elements of the input dtype */
} unary_params;

typedef void (*unary_loop)(const void *in, void *out, int64_t n, const unary_params *p);

#define CLAMP01(v) ((v) < 0 ? (T)0 : (v) > 1 ? (T)1 : (v))
#define SOFTPLUS(v) ((v) > 0 ? (v) + log1p(exp(-(v))) : log1p(exp(v)))

/* X(op, since opset, default alpha, beta, gamma, expression); float types
 * only. */
#define UNARY_FLOAT_OPS(X)                                                              \
    X(Sigmoid, 1, 0, 0, 0, (T)1 / ((T)1 + exp(-x)))                                     \
    X(HardSigmoid, 1, 0.2, 0.5, 0, CLAMP01(alpha * x + beta))                           \
    X(HardSwish, 14, 1.0 / 6.0, 0.5, 0, x * CLAMP01(alpha * x + beta))                  \
    X(Tanh, 1, 0, 0, 0, tanh(x))                                                        \
    X(LeakyRelu, 1, 0.01, 0, 0, x < 0 ? alpha * x : x)                                  \
    X(Elu, 1, 1.0, 0, 0, x < 0 ? alpha * expm1(x) : x)                                  \
    X(Selu, 1, 1.67326319217681884765625, 0, 1.05070102214813232421875,                \
      gamma * (x <= 0 ? alpha * expm1(x) : x))                                          \
    X(Celu, 12, 1.0, 0, 0, x < 0 ? alpha * expm1(x / alpha) : x)                        \
    X(ThresholdedRelu, 10, 1.0, 0, 0, x > alpha ? x : (T)0)                             \
    X(Softplus, 1, 0, 0, 0, SOFTPLUS(x))                                                \
    X(Softsign, 1, 0, 0, 0, x / ((T)1 + fabs(x)))                                       \
    X(Shrink, 9, 0.5, 0, 0, x < -alpha ? x + beta : x > alpha ? x - beta : (T)0)        \
    X(Mish, 18, 0, 0, 0, x * tanh(SOFTPLUS(x)))                                         \
    /* Gelu's two formulas; the registered op picks one (see gelu_prepare) */          \
    X(GeluErf, 20, 0, 0, 0, (T)0.5 * x * ((T)1 + erf(x * (T)0.70710678118654752440)))   \
    X(GeluTanh, 20, 0, 0, 0,                                                            \
      (T)0.5 * x * ((T)1 + tanh((T)0.79788456080286535588 * (x + (T)0.044715 * x * x * x)))) \
    X(Exp, 1, 0, 0, 0, exp(x))                                                          \
    X(Log, 1, 0, 0, 0, log(x))                                                          \
    X(Sqrt, 1, 0, 0, 0, sqrt(x))                                                        \
    X(Reciprocal, 1, 0, 0, 0, (T)1 / x)                                                 \
    X(Floor, 1, 0, 0, 0, floor(x))                                                      \
    X(Ceil, 1, 0, 0, 0, ceil(x))                                                        \
    X(Round, 11, 0, 0, 0, nearbyint(x)) /* default rounding: half to even */            \
    X(Erf, 9, 0, 0, 0, erf(x))                                                          \
    X(Sin, 7, 0, 0, 0, sin(x))                                                          \
    X(Cos, 7, 0, 0, 0, cos(x))                                                          \
    X(Tan, 7, 0, 0, 0, tan(x))                                                          \
    X(Asin, 7, 0, 0, 0, asin(x))                                                        \
    X(Acos, 7, 0, 0, 0, acos(x))                                                        \
    X(Atan, 7, 0, 0, 0, atan(x))                                                        \
    X(Sinh, 9, 0, 0, 0, sinh(x))                                                        \
    X(Cosh, 9, 0, 0, 0, cosh(x))                                                        \
    X(Asinh, 9, 0, 0, 0, asinh(x))                                                      \
    X(Acosh, 9, 0, 0, 0, acosh(x))                                                      \
    X(Atanh, 9, 0, 0, 0, atanh(x))

/* Ops defined for integer types too: one expression per class, F
 * (floating), S (signed) and U (unsigned). Integer negation wraps through U
 * rather than overflow. Clip takes min(max(x, lo), hi), as numpy does,
 * which also lets NaN through. */
#define UNARY_REAL_OPS(X) X(Relu) X(Abs) X(Neg) X(Sign) X(Clip)
#define F_Relu (x < 0 ? (T)0 : x) /* NaN stays NaN, as ONNX specifies */
#define S_Relu (x > 0 ? x : (T)0)
#define U_Relu (x)
#define F_Abs fabs(x)
#define S_Abs (x < 0 ? (T)(0 - (U)x) : x)
#define U_Abs (x)
#define F_Neg (-x)
#define S_Neg ((T)(0 - (U)x))
#define U_Neg ((T)(0 - (U)x))
#define F_Sign (x > 0 ? (T)1 : x < 0 ? (T)-1 : x)
#define S_Sign (x > 0 ? (T)1 : x < 0 ? (T)-1 : (T)0)
#define U_Sign (x > 0 ? (T)1 : (T)0)
#define F_Clip ((x < lo ? lo : x) > hi ? hi : (x < lo ? lo : x))
#define S_Clip (has_hi && (has_lo && x < lo ? lo : x) > hi ? hi : (has_lo && x < lo ? lo : x))
#define U_Clip S_Clip

/* The loop bodies. ELEM/UELEM become the local typedefs T/U so expressions
 * written in the lists above can name the element type. */
#define DEFINE_UNARY_F(name, ELEM, UELEM, EXPR)                               \
    static void name(const void *in, void *out, int64_t n, const unary_params *P) \
    {                                                                         \
        typedef ELEM T;                                                       \
        const T *X = in;                                                      \
        T *Y = out;                                                           \
        const T alpha = (T)P->alpha, beta = (T)P->beta, gamma = (T)P->gamma;  \
        const T lo = (T)P->lo, hi = (T)P->hi;                                 \
        (void)alpha, (void)beta, (void)gamma, (void)lo, (void)hi;             \
        for (int64_t i = 0; i < n; i++) {                                     \
            const T x = X[i];                                                 \
            Y[i] = (T)(EXPR);                                                 \
        }                                                                     \
    }
#define DEFINE_UNARY_S(name, ELEM, UELEM, EXPR)                               \
    static void name(const void *in, void *out, int64_t n, const unary_params *P) \
    {                                                                         \
        typedef ELEM T;                                                       \
        typedef UELEM U;                                                      \
        const T *X = in;                                                      \
        T *Y = out;                                                           \
        T lo = 0, hi = 0;                                                     \
        const int has_lo = P->has_lo, has_hi = P->has_hi;                     \
        memcpy(&lo, P->lo_raw, sizeof lo);                                    \
        memcpy(&hi, P->hi_raw, sizeof hi);                                    \
        (void)sizeof(U), (void)has_lo, (void)has_hi, (void)lo, (void)hi;      \
        for (int64_t i = 0; i < n; i++) {                                     \
            const T x = X[i];                                                 \
            Y[i] = (T)(EXPR);                                                 \
        }                                                                     \
    }
#define DEFINE_UNARY_U DEFINE_UNARY_S

/* Float-only ops: a loop per float type and a dtype table. */
#define GEN_FLOAT(op, since, a, b, g, expr)                                   \
    DEFINE_UNARY_F(op##_f32, float, float, expr)                              \
    DEFINE_UNARY_F(op##_f64, double, double, expr)                            \
    static const unary_loop op##_loops[KN_DTYPE_COUNT] = {                    \
        [KN_FLOAT] = op##_f32, [KN_DOUBLE] = op##_f64};
UNARY_FLOAT_OPS(GEN_FLOAT)

/* Ops over all real types: a loop per dtype from the class's expression. */
#define GEN_REAL_TYPE(op, C, DT, T, U) DEFINE_UNARY_##C(op##_##DT, T, U, C##_##op)
#define GEN_REAL_ENTRY(op, C, DT, T, U) [DT] = op##_##DT,
#define GEN_REAL(op)                                                          \
    KN_TYPES_REAL(GEN_REAL_TYPE, op)                                          \
    static const unary_loop op##_loops[KN_DTYPE_COUNT] = {KN_TYPES_REAL(GEN_REAL_ENTRY, op)};
UNARY_REAL_OPS(GEN_REAL)

typedef struct unary_desc {
    const unary_loop *loops; /* by dtype; float16/bfloat16 use [KN_FLOAT] */
    double alpha, beta, gamma;
} unary_desc;

typedef struct unary_state {
    unary_loop loop;
    kn_activation act; /* float activations with a vector kernel, else KN_ACT_NONE */
    int math;          /* float Exp / Erf with a vector kernel: 1 + kn_mathfn, else 0 */
    unary_params params;
    int32_t dtype;
    int half; /* float16/bfloat16 computed in float chunk by chunk */
} unary_state;

static int is_half(int32_t dt) { return dt == KN_FLOAT16 || dt == KN_BFLOAT16; }

/* An attribute (or its alias), else the op's default, which keeps full
 * double precision (Selu's constants) where a float attribute cannot. */
static double param(const kn_node *node, const char *name, const char *alias, double dflt)
{
    if (kn_node_attr(node, name))
        return kn_attr_float(node, name, 0);
    if (alias && kn_node_attr(node, alias))
        return kn_attr_float(node, alias, 0);
    return dflt;
}

static int unary_prepare(kn_kctx *k, const unary_desc *desc)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    int32_t dt = x->dtype;
    unary_loop loop = dt >= 0 && dt < KN_DTYPE_COUNT ? desc->loops[is_half(dt) ? KN_FLOAT : dt] : NULL;
    if (!loop)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input type %s is not supported",
                       k->node->op_type, kn_dtype_name(dt));
    unary_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    s->loop = loop;
    s->dtype = dt;
    s->half = is_half(dt);
    /* Shrink names its parameters lambd and bias. */
    s->params.alpha = param(k->node, "alpha", "lambd", desc->alpha);
    s->params.beta = param(k->node, "beta", "bias", desc->beta);
    s->params.gamma = param(k->node, "gamma", NULL, desc->gamma);
    s->params.lo = -INFINITY;
    s->params.hi = INFINITY;
    /* Activations that models spend time in run the vector kernels
     * (core/simd) on float data, full and half width alike. */
    static const struct {
        const unary_loop *loops;
        kn_act_kind kind;
    } vector_acts[] = {
        {Relu_loops, KN_ACT_RELU},         {Sigmoid_loops, KN_ACT_SIGMOID},
        {Tanh_loops, KN_ACT_TANH},         {LeakyRelu_loops, KN_ACT_LEAKY_RELU},
        {HardSigmoid_loops, KN_ACT_HARD_SIGMOID}, {HardSwish_loops, KN_ACT_HARD_SWISH},
        {GeluErf_loops, KN_ACT_GELU},
    };
    for (size_t i = 0; i < sizeof vector_acts / sizeof vector_acts[0]; i++)
        if (desc->loops == vector_acts[i].loops && (dt == KN_FLOAT || s->half))
            s->act = (kn_activation){vector_acts[i].kind, (float)s->params.alpha,
                                     (float)s->params.beta};
    if (desc->loops == Exp_loops && (dt == KN_FLOAT || s->half))
        s->math = 1 + KN_MATH_EXP;
    if (desc->loops == Erf_loops && (dt == KN_FLOAT || s->half))
        s->math = 1 + KN_MATH_ERF;
    k->state = s;
    kn_copy_desc(k->out[0], x);
    return KN_OK;
}

typedef struct unary_job {
    const unary_state *s;
    const unary_params *params;
    kn_activation act; /* s->act with this run's Clip bounds */
    const char *in;
    char *out;
} unary_job;

static void unary_range(void *ctx, int64_t begin, int64_t end)
{
    const unary_job *j = ctx;
    const unary_state *s = j->s;
    if (!s->half) {
        size_t es = kn_dtype_size(s->dtype);
        float *y = (float *)(j->out + (size_t)begin * es);
        const float *x = (const float *)(j->in + (size_t)begin * es);
        if (s->act.kind != KN_ACT_NONE)
            kn_simd()->act(y, x, end - begin, &j->act);
        else if (s->math)
            kn_simd()->math((kn_mathfn)(s->math - 1), y, x, end - begin);
        else
            s->loop(j->in + (size_t)begin * es, j->out + (size_t)begin * es, end - begin,
                    j->params);
        return;
    }
    float buf[KN_CHUNK];
    for (int64_t i = begin; i < end; i += KN_CHUNK) {
        int64_t m = end - i < KN_CHUNK ? end - i : KN_CHUNK;
        kn_convert(s->dtype, j->in + (size_t)i * 2, KN_FLOAT, buf, m);
        if (s->act.kind != KN_ACT_NONE)
            kn_simd()->act(buf, buf, m, &j->act);
        else if (s->math)
            kn_simd()->math((kn_mathfn)(s->math - 1), buf, buf, m);
        else
            s->loop(buf, buf, m, j->params);
        kn_convert(KN_FLOAT, buf, s->dtype, j->out + (size_t)i * 2, m);
    }
}

static int unary_exec(kn_kctx *k, const unary_params *params)
{
    const unary_state *s = k->state;
    unary_job job = {s, params, s->act, k->in[0]->data, k->out[0]->data};
    if (s->act.kind == KN_ACT_CLIP) {
        job.act.alpha = (float)params->lo;
        job.act.beta = (float)params->hi;
    }
    kn_parallel_for(k->threads, kn_tensor_numel(k->out[0]), KN_GRAIN, unary_range, &job);
    return KN_OK;
}

static int unary_run(kn_kctx *k)
{
    const unary_state *s = k->state;
    return unary_exec(k, &s->params);
}

static void unary_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* ---- registry entries ---- */

#define MASK_FLOATY (KN_MASK_FLOATS | KN_MASK_HALF)

#define DEF_UNARY(op, since, mask, a, b, g)                                   \
    static int op##_prepare(kn_kctx *k)                                       \
    {                                                                         \
        static const unary_desc desc = {op##_loops, a, b, g};                 \
        return unary_prepare(k, &desc);                                       \
    }                                                                         \
    const kn_op_def kn_op_##op = { \
    .op_type = #op, .since_version = since, .dtypes = mask, .flags = KN_OP_INPLACE, \
    .prepare = op##_prepare, .run = unary_run, .release = unary_release \
};

#define DEF_FLOAT_OP(op, since, a, b, g, expr) DEF_UNARY(op, since, MASK_FLOATY, a, b, g)
UNARY_FLOAT_OPS(DEF_FLOAT_OP)

/* Gelu picks its formula by the `approximate` attribute ("none" or
 * "tanh"). kn_op_GeluErf and kn_op_GeluTanh, generated above, are not in
 * the registry; this is. */
static int gelu_prepare(kn_kctx *k)
{
    const char *approx = kn_attr_string(k->node, "approximate", "none");
    if (strcmp(approx, "tanh") == 0)
        return GeluTanh_prepare(k);
    if (strcmp(approx, "none") != 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Gelu: approximate must be \"none\" or "
                       "\"tanh\", not \"%s\"", approx);
    return GeluErf_prepare(k);
}
const kn_op_def kn_op_Gelu = {
    .op_type = "Gelu", .since_version = 20, .dtypes = MASK_FLOATY, .flags = KN_OP_INPLACE,
    .prepare = gelu_prepare, .run = unary_run, .release = unary_release
};

DEF_UNARY(Abs, 1, MASK_FLOATY | KN_MASK_INTS, 0, 0, 0)
DEF_UNARY(Neg, 1, MASK_FLOATY | KN_MASK_SINTS, 0, 0, 0)
DEF_UNARY(Sign, 9, MASK_FLOATY | KN_MASK_INTS, 0, 0, 0)

/* Relu gained integer types at opset 14. */
static int Relu_prepare(kn_kctx *k)
{
    static const unary_desc desc = {Relu_loops, 0, 0, 0};
    return unary_prepare(k, &desc);
}
const kn_op_def kn_op_Relu = {
    .op_type = "Relu", .since_version = 1, .until_version = 13, .dtypes = MASK_FLOATY,
    .flags = KN_OP_INPLACE, .prepare = Relu_prepare, .run = unary_run, .release = unary_release
};
const kn_op_def kn_op_Relu_14 = {
    .op_type = "Relu", .since_version = 14, .dtypes = MASK_FLOATY | KN_MASK_SINTS,
    .flags = KN_OP_INPLACE, .prepare = Relu_prepare, .run = unary_run, .release = unary_release
};

/* ---- Clip: bounds are attributes up to opset 10, optional inputs since
 * 11 (read at run time, so they need not be constants) ---- */

static int clip_prepare(kn_kctx *k)
{
    static const unary_desc desc = {Clip_loops, 0, 0, 0};
    int rc = unary_prepare(k, &desc);
    if (rc != KN_OK)
        return rc;
    unary_state *s = k->state;
    if (s->dtype == KN_FLOAT || s->half)
        s->act.kind = KN_ACT_CLIP; /* bounds filled in per run */
    if (k->opset < 11) {
        const kn_attr *mn = kn_node_attr(k->node, "min"), *mx = kn_node_attr(k->node, "max");
        if (mn)
            s->params.lo = kn_attr_float(k->node, "min", 0);
        if (mx)
            s->params.hi = kn_attr_float(k->node, "max", 0);
        return KN_OK;
    }
    for (int32_t i = 1; i <= 2; i++) {
        const kn_tensor *b = kn_input(k, i);
        if (!b)
            continue;
        if (b->dtype != s->dtype)
            return kn_fail(k->err, KN_ERR_DTYPE, "Clip: %s has type %s, input has %s",
                           i == 1 ? "min" : "max", kn_dtype_name(b->dtype), kn_dtype_name(s->dtype));
        if (kn_tensor_numel(b) != 1)
            return kn_fail(k->err, KN_ERR_SHAPE, "Clip: %s must be a scalar", i == 1 ? "min" : "max");
    }
    return KN_OK;
}

static int clip_run(kn_kctx *k)
{
    const unary_state *s = k->state;
    unary_params p = s->params;
    if (k->opset >= 11) {
        const kn_tensor *mn = kn_input(k, 1), *mx = kn_input(k, 2);
        size_t es = kn_dtype_size(s->dtype);
        if (mn) {
            p.has_lo = 1;
            memcpy(p.lo_raw, mn->data, es);
            p.lo = kn_read_double(mn, 0);
        }
        if (mx) {
            p.has_hi = 1;
            memcpy(p.hi_raw, mx->data, es);
            p.hi = kn_read_double(mx, 0);
        }
    }
    return unary_exec(k, &p);
}

const kn_op_def kn_op_Clip = {
    .op_type = "Clip", .since_version = 1, .until_version = 10, .dtypes = MASK_FLOATY,
    .flags = KN_OP_INPLACE, .prepare = clip_prepare, .run = clip_run, .release = unary_release
};
const kn_op_def kn_op_Clip_11 = {
    .op_type = "Clip", .since_version = 11, .until_version = 11, .dtypes = MASK_FLOATY,
    .flags = KN_OP_INPLACE, .prepare = clip_prepare, .run = clip_run, .release = unary_release
};
const kn_op_def kn_op_Clip_12 = {
    .op_type = "Clip", .since_version = 12, .dtypes = MASK_FLOATY | KN_MASK_INTS,
    .flags = KN_OP_INPLACE, .prepare = clip_prepare, .run = clip_run, .release = unary_release
};

/* ---- predicates with a bool output: IsNaN, IsInf, Not ---- */

enum { PRED_ISNAN, PRED_ISINF, PRED_NOT };

typedef struct pred_job {
    int op;
    int32_t dtype;
    int neg, pos; /* IsInf: which infinities count */
    const char *in;
    uint8_t *out;
} pred_job;

#define PRED_EXPR(x)                                                          \
    (j->op == PRED_ISNAN ? (x) != (x)                                         \
                         : isinf(x) && (((x) > 0 && j->pos) || ((x) < 0 && j->neg)))

static void pred_range(void *ctx, int64_t begin, int64_t end)
{
    const pred_job *j = ctx;
    if (j->op == PRED_NOT) {
        for (int64_t i = begin; i < end; i++)
            j->out[i] = !j->in[i];
    } else if (j->dtype == KN_DOUBLE) {
        const double *x = (const double *)j->in;
        for (int64_t i = begin; i < end; i++)
            j->out[i] = PRED_EXPR(x[i]);
    } else { /* float, and half types widened to float chunk by chunk */
        float buf[KN_CHUNK];
        size_t es = kn_dtype_size(j->dtype);
        for (int64_t i = begin; i < end; i += KN_CHUNK) {
            int64_t m = end - i < KN_CHUNK ? end - i : KN_CHUNK;
            kn_convert(j->dtype, j->in + (size_t)i * es, KN_FLOAT, buf, m);
            for (int64_t t = 0; t < m; t++)
                j->out[i + t] = PRED_EXPR(buf[t]);
        }
    }
}

static int pred_prepare(kn_kctx *k, int op)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    pred_job *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    s->op = op;
    s->dtype = k->in[0]->dtype;
    s->neg = kn_attr_int(k->node, "detect_negative", 1) != 0;
    s->pos = kn_attr_int(k->node, "detect_positive", 1) != 0;
    k->state = s;
    kn_copy_desc(k->out[0], k->in[0]);
    k->out[0]->dtype = KN_BOOL;
    return KN_OK;
}

static int pred_run(kn_kctx *k)
{
    pred_job job = *(const pred_job *)k->state;
    job.in = k->in[0]->data;
    job.out = k->out[0]->data;
    kn_parallel_for(k->threads, kn_tensor_numel(k->out[0]), KN_GRAIN, pred_range, &job);
    return KN_OK;
}

static int isnan_prepare(kn_kctx *k) { return pred_prepare(k, PRED_ISNAN); }
static int isinf_prepare(kn_kctx *k) { return pred_prepare(k, PRED_ISINF); }
static int not_prepare(kn_kctx *k) { return pred_prepare(k, PRED_NOT); }

const kn_op_def kn_op_IsNaN = {
    .op_type = "IsNaN", .since_version = 9, .dtypes = MASK_FLOATY, .prepare = isnan_prepare,
    .run = pred_run, .release = unary_release
};
const kn_op_def kn_op_IsInf = {
    .op_type = "IsInf", .since_version = 10, .dtypes = MASK_FLOATY, .prepare = isinf_prepare,
    .run = pred_run, .release = unary_release
};
/* bool in, bool out: in place is fine */
const kn_op_def kn_op_Not = {
    .op_type = "Not", .since_version = 1, .dtypes = KN_BIT(KN_BOOL), .flags = KN_OP_INPLACE,
    .prepare = not_prepare, .run = pred_run, .release = unary_release
};
