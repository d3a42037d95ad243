/* Float elementwise ops on the GPU (elementwise.cu): the unary math and
 * activations (Relu ... Erf, Clip, Gelu; kiln.Gelu and kiln.Silu), and the
 * broadcasting binary ops Add, Sub, Mul, Div, Pow, Max, Min (two inputs)
 * and PRelu; kiln.ElementwiseChain in one pass; the comparisons (Equal,
 * Less, Greater, LessOrEqual, GreaterOrEqual on float, int32, int64),
 * Where (4- and 8-byte values) and Cast between float, double, the
 * integers and bool. Other dtypes, and
 * Max/Min/Sum with more than two inputs, are declined and run on the next
 * backend. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda/cuda_kernels.h"

typedef struct ew_state {
    kn_cudaKernel fn;
    kn_cuda_act act; /* unary: the op itself; binary: the activation after it */
    int32_t binary_op;
    kn_cuda_walk walk; /* binary: the broadcast, fixed with the shapes */
} ew_state;

static void ew_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

static int new_state(kn_kctx *k, const char *kernel)
{
    ew_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    k->state = st;
    st->fn = kn_cuda_kernel(kn_cuda_dev(k), "elementwise", kernel, k->err);
    if (!st->fn) {
        ew_release(k);
        return k->err->code;
    }
    return KN_OK;
}

/* The unary ops by name, with their attributes' defaults. */
typedef struct unary_row {
    const char *op_type;
    int32_t op;
    float alpha, beta;
} unary_row;

static const unary_row unary_rows[] = {
    {"Relu", KN_CUDA_U_RELU, 0, 0},
    {"LeakyRelu", KN_CUDA_U_LEAKY_RELU, 0.01f, 0},
    {"Sigmoid", KN_CUDA_U_SIGMOID, 0, 0},
    {"HardSigmoid", KN_CUDA_U_HARD_SIGMOID, 0.2f, 0.5f},
    {"HardSwish", KN_CUDA_U_HARD_SWISH, 0, 0},
    {"Tanh", KN_CUDA_U_TANH, 0, 0},
    {"Gelu", KN_CUDA_U_GELU, 0, 0},
    {"Silu", KN_CUDA_U_SILU, 0, 0}, /* kiln.Silu */
    {"Exp", KN_CUDA_U_EXP, 0, 0},
    {"Log", KN_CUDA_U_LOG, 0, 0},
    {"Sqrt", KN_CUDA_U_SQRT, 0, 0},
    {"Neg", KN_CUDA_U_NEG, 0, 0},
    {"Abs", KN_CUDA_U_ABS, 0, 0},
    {"Reciprocal", KN_CUDA_U_RECIPROCAL, 0, 0},
    {"Erf", KN_CUDA_U_ERF, 0, 0},
    {"Floor", KN_CUDA_U_FLOOR, 0, 0},
    {"Ceil", KN_CUDA_U_CEIL, 0, 0},
    {"Softplus", KN_CUDA_U_SOFTPLUS, 0, 0},
    {"Elu", KN_CUDA_U_ELU, 1.0f, 0},
    {"Sin", KN_CUDA_U_SIN, 0, 0},
    {"Cos", KN_CUDA_U_COS, 0, 0},
    {"Clip", KN_CUDA_U_CLIP, -INFINITY, INFINITY},
};

static int float_only(kn_kctx *k)
{
    for (int32_t i = 0; i < k->n_in; i++)
        if (k->in[i] && k->in[i]->dtype != KN_FLOAT)
            return 0;
    return k->in[0] != NULL;
}

/* Clip's bounds: attributes before opset 11, optional constant inputs 1
 * and 2 after; a bound computed at run time is declined. */
static int clip_bounds(kn_kctx *k, kn_cuda_act *act)
{
    if (k->opset < 11) {
        act->alpha = kn_attr_float(k->node, "min", -INFINITY);
        act->beta = kn_attr_float(k->node, "max", INFINITY);
        return KN_OK;
    }
    for (int32_t i = 1; i <= 2 && i < k->n_in; i++) {
        const kn_tensor *t = k->in[i];
        if (!t)
            continue;
        if (!t->data || kn_tensor_numel(t) != 1)
            return KN_ERR_DECLINE;
        float v = (float)kn_read_double(t, 0);
        if (i == 1)
            act->alpha = v;
        else
            act->beta = v;
    }
    return KN_OK;
}

static int unary_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    if (!float_only(k))
        return KN_ERR_DECLINE;
    const unary_row *row = NULL;
    for (size_t i = 0; i < sizeof unary_rows / sizeof unary_rows[0] && !row; i++)
        if (strcmp(unary_rows[i].op_type, k->node->op_type) == 0)
            row = &unary_rows[i];
    if (!row)
        return KN_ERR_DECLINE;
    kn_cuda_act act = {row->op, row->alpha, row->beta};
    if (row->op == KN_CUDA_U_LEAKY_RELU || row->op == KN_CUDA_U_ELU)
        act.alpha = kn_attr_float(k->node, "alpha", row->alpha);
    if (row->op == KN_CUDA_U_HARD_SIGMOID) {
        act.alpha = kn_attr_float(k->node, "alpha", row->alpha);
        act.beta = kn_attr_float(k->node, "beta", row->beta);
    }
    if (row->op == KN_CUDA_U_GELU &&
        strcmp(kn_attr_string(k->node, "approximate", "none"), "tanh") == 0)
        act.op = KN_CUDA_U_GELU_TANH;
    if (row->op == KN_CUDA_U_CLIP) {
        int rc = clip_bounds(k, &act);
        if (rc != KN_OK)
            return rc;
    }
    int rc = new_state(k, "kn_unary_f32");
    if (rc != KN_OK)
        return rc;
    ((ew_state *)k->state)->act = act;
    kn_tensor *y = k->out[0];
    y->dtype = KN_FLOAT;
    y->rank = k->in[0]->rank;
    memcpy(y->dims, k->in[0]->dims, sizeof(int64_t) * (size_t)y->rank);
    return KN_OK;
}

static int unary_run(kn_kctx *k)
{
    ew_state *st = k->state;
    const void *x = k->in[0]->data;
    void *y = k->out[0]->data;
    int64_t n = kn_tensor_numel(k->out[0]);
    void *args[] = {&x, &y, &n, &st->act};
    return kn_cuda_launch_1d(k, st->fn, n, args);
}

static int binary_op_of(const char *op_type)
{
    static const struct {
        const char *name;
        int op;
    } ops[] = {{"Add", KN_CUDA_B_ADD}, {"Sub", KN_CUDA_B_SUB},    {"Mul", KN_CUDA_B_MUL},
               {"Div", KN_CUDA_B_DIV}, {"Pow", KN_CUDA_B_POW},    {"Max", KN_CUDA_B_MAX},
               {"Min", KN_CUDA_B_MIN}, {"PRelu", KN_CUDA_B_PRELU}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].name, op_type) == 0)
            return ops[i].op;
    return -1;
}

static int binary_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    int op = binary_op_of(k->node->op_type);
    /* Max / Min are variadic: two inputs only here */
    if (op < 0 || k->n_in != 2 || !k->in[1] || !float_only(k))
        return KN_ERR_DECLINE;
    /* PRelu's slope broadcasts to X (unidirectionally): the same walk */
    int rc = kn_broadcast_shape(k->in[0], k->in[1], k->out[0], k->err);
    if (rc != KN_OK)
        return rc;
    if (op == KN_CUDA_B_PRELU && !kn_cuda_same_shape(k->out[0], k->in[0]))
        return KN_ERR_DECLINE;
    k->out[0]->dtype = KN_FLOAT;
    rc = new_state(k, "kn_binary_f32");
    if (rc != KN_OK)
        return rc;
    ew_state *st = k->state;
    st->binary_op = op;
    kn_cuda_walk_binary(&st->walk, k->out[0], k->in[0], k->in[1]);
    return KN_OK;
}

static int binary_run(kn_kctx *k)
{
    ew_state *st = k->state;
    const void *a = k->in[0]->data, *b = k->in[1]->data;
    void *y = k->out[0]->data;
    int op = st->binary_op;
    void *args[] = {&a, &b, &y, &st->walk, &op, &st->act};
    return kn_cuda_launch_1d(k, st->fn, st->walk.n, args);
}

/* --- comparisons (float, int32, int64; bool out), Where, Cast */

static int compare_op_of(const char *op_type)
{
    static const char *const names[] = {"Equal", "Less", "Greater", "LessOrEqual",
                                        "GreaterOrEqual"};
    for (int i = 0; i < 5; i++)
        if (strcmp(names[i], op_type) == 0)
            return i; /* KN_CUDA_C_* in this order */
    return -1;
}

static int compare_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    int op = compare_op_of(k->node->op_type);
    const kn_tensor *a = k->in[0], *b = k->n_in > 1 ? k->in[1] : NULL;
    if (op < 0 || !a || !b || a->dtype != b->dtype ||
        (a->dtype != KN_FLOAT && a->dtype != KN_INT64 && a->dtype != KN_INT32))
        return KN_ERR_DECLINE;
    int rc = kn_broadcast_shape(a, b, k->out[0], k->err);
    if (rc != KN_OK)
        return rc;
    k->out[0]->dtype = KN_BOOL;
    rc = new_state(k, a->dtype == KN_FLOAT   ? "kn_compare_f32"
                      : a->dtype == KN_INT64 ? "kn_compare_i64"
                                             : "kn_compare_i32");
    if (rc != KN_OK)
        return rc;
    ew_state *st = k->state;
    st->binary_op = op;
    kn_cuda_walk_binary(&st->walk, k->out[0], a, b);
    return KN_OK;
}

static int compare_run(kn_kctx *k)
{
    ew_state *st = k->state;
    const void *a = k->in[0]->data, *b = k->in[1]->data;
    void *y = k->out[0]->data;
    int op = st->binary_op;
    void *args[] = {&a, &b, &y, &st->walk, &op};
    return kn_cuda_launch_1d(k, st->fn, st->walk.n, args);
}

/* Where(C, X, Y): one walk for C and X, one for Y, over the broadcast of
 * all three. */
typedef struct where_state {
    kn_cudaKernel fn;
    kn_cuda_walk cx, y;
} where_state;

static int where_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    const kn_tensor *c = k->in[0], *x = k->n_in > 1 ? k->in[1] : NULL,
                    *y = k->n_in > 2 ? k->in[2] : NULL;
    if (!c || !x || !y || c->dtype != KN_BOOL || x->dtype != y->dtype ||
        (kn_dtype_size(x->dtype) != 4 && kn_dtype_size(x->dtype) != 8) || x->dtype == KN_STRING ||
        x->dtype >= KN_DTYPE_COUNT)
        return KN_ERR_DECLINE;
    kn_tensor cx;
    int rc = kn_broadcast_shape(c, x, &cx, k->err);
    if (rc == KN_OK)
        rc = kn_broadcast_shape(&cx, y, k->out[0], k->err);
    if (rc != KN_OK)
        return rc;
    k->out[0]->dtype = x->dtype;
    where_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Where: out of memory");
    k->state = st;
    st->fn = kn_cuda_kernel(kn_cuda_dev(k), "elementwise",
                            kn_dtype_size(x->dtype) == 4 ? "kn_where_4" : "kn_where_8", k->err);
    if (!st->fn) {
        ew_release(k);
        return k->err->code;
    }
    kn_cuda_walk_binary(&st->cx, k->out[0], c, x);
    kn_cuda_walk_binary(&st->y, k->out[0], c, y);
    return KN_OK;
}

static int where_run(kn_kctx *k)
{
    where_state *st = k->state;
    const void *c = k->in[0]->data, *x = k->in[1]->data, *y = k->in[2]->data;
    void *out = k->out[0]->data;
    void *args[] = {&c, &x, &y, &out, &st->cx, &st->y};
    return kn_cuda_launch_1d(k, st->fn, st->cx.n, args);
}

/* Cast between the dtypes the kernel reads and writes (elementwise.cu). */
static int castable(int32_t dtype)
{
    return dtype == KN_FLOAT || dtype == KN_UINT8 || dtype == KN_INT8 || dtype == KN_INT32 ||
           dtype == KN_INT64 || dtype == KN_BOOL || dtype == KN_DOUBLE;
}

typedef struct cast_state {
    kn_cudaKernel fn;
    int32_t from, to;
} cast_state;

static int cast_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    const kn_tensor *x = k->in[0];
    int64_t to = kn_attr_int(k->node, "to", 0);
    if (!x || !castable(x->dtype) || to < 0 || to > KN_DTYPE_COUNT || !castable((int32_t)to))
        return KN_ERR_DECLINE;
    cast_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Cast: out of memory");
    k->state = st;
    st->from = x->dtype;
    st->to = (int32_t)to;
    st->fn = kn_cuda_kernel(kn_cuda_dev(k), "elementwise", "kn_cast", k->err);
    if (!st->fn) {
        ew_release(k);
        return k->err->code;
    }
    kn_tensor *y = k->out[0];
    y->dtype = st->to;
    y->rank = x->rank;
    memcpy(y->dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
    return KN_OK;
}

static int cast_run(kn_kctx *k)
{
    cast_state *st = k->state;
    const void *x = k->in[0]->data;
    void *y = k->out[0]->data;
    int64_t n = kn_tensor_numel(k->out[0]);
    int from = st->from, to = st->to;
    void *args[] = {&x, &y, &n, &from, &to};
    return kn_cuda_launch_1d(k, st->fn, n, args);
}

/* --- kiln.ElementwiseChain(X, T1, ..., Tk) (core/opt/pass_elementwise_chain.c
 * says what its attributes mean) */

typedef struct chain_state {
    kn_cudaKernel fn;
    kn_cuda_chain chain;
    int32_t inputs[KN_CUDA_CHAIN_OPERANDS]; /* node input of each tensor operand */
    int32_t n_operands;
} chain_state;

static const struct {
    const char *name;
    int32_t op;
    int reversed;
} chain_steps[] = {
    {"Relu", KN_CUDA_U_RELU, 0},
    {"Sigmoid", KN_CUDA_U_SIGMOID, 0},
    {"Tanh", KN_CUDA_U_TANH, 0},
    {"Clip", KN_CUDA_U_CLIP, 0},
    {"LeakyRelu", KN_CUDA_U_LEAKY_RELU, 0},
    {"Silu", KN_CUDA_U_SILU, 0},
    {"Gelu", KN_CUDA_U_GELU, 0},
    {"Exp", KN_CUDA_U_EXP, 0},
    {"Neg", KN_CUDA_U_NEG, 0},
    {"Abs", KN_CUDA_U_ABS, 0},
    {"Sqrt", KN_CUDA_U_SQRT, 0},
    {"Reciprocal", KN_CUDA_U_RECIPROCAL, 0},
    {"Add", KN_CUDA_CHAIN_BINARY + KN_CUDA_B_ADD, 0},
    {"Sub", KN_CUDA_CHAIN_BINARY + KN_CUDA_B_SUB, 0},
    {"Mul", KN_CUDA_CHAIN_BINARY + KN_CUDA_B_MUL, 0},
    {"Div", KN_CUDA_CHAIN_BINARY + KN_CUDA_B_DIV, 0},
    {"RSub", KN_CUDA_CHAIN_BINARY + KN_CUDA_B_SUB, 1},
    {"RDiv", KN_CUDA_CHAIN_BINARY + KN_CUDA_B_DIV, 1},
};

/* The chain's steps; anything unusual (too many steps or operands, an
 * unknown step, attributes of the wrong length) is declined: the CPU
 * kernel then runs it, or says what is wrong with it. */
static int chain_parse(kn_kctx *k, chain_state *st)
{
    const kn_attr *steps = kn_node_attr(k->node, "steps");
    const kn_attr *operands = kn_node_attr(k->node, "operands");
    const kn_attr *params = kn_node_attr(k->node, "params");
    if (!steps || steps->type != KN_ATTR_STRINGS || steps->count < 1 ||
        steps->count > KN_CUDA_CHAIN_STEPS || !operands || operands->type != KN_ATTR_INTS ||
        operands->count != steps->count || !params || params->type != KN_ATTR_FLOATS ||
        params->count != 2 * steps->count)
        return KN_ERR_DECLINE;
    const kn_tensor *x = k->in[0];
    st->chain.n_steps = steps->count;
    for (int32_t i = 0; i < steps->count; i++) {
        size_t e = 0, n_rows = sizeof chain_steps / sizeof chain_steps[0];
        while (e < n_rows && strcmp(chain_steps[e].name, steps->strings[i]) != 0)
            e++;
        if (e == n_rows)
            return KN_ERR_DECLINE;
        st->chain.op[i] = chain_steps[e].op;
        st->chain.reversed[i] = chain_steps[e].reversed;
        st->chain.alpha[i] = params->floats[2 * i];
        st->chain.beta[i] = params->floats[2 * i + 1];
        int64_t input = operands->ints[i];
        st->chain.operand[i] = -1;
        if (input == -1)
            continue;
        if (st->chain.op[i] < KN_CUDA_CHAIN_BINARY || input < 1 || input >= k->n_in ||
            !k->in[input] || k->in[input]->dtype != KN_FLOAT ||
            st->n_operands == KN_CUDA_CHAIN_OPERANDS)
            return KN_ERR_DECLINE;
        const kn_tensor *t = k->in[input];
        int full = kn_cuda_same_shape(t, x);
        if (!full && !(kn_tensor_numel(t) == 1 && t->rank <= x->rank))
            return KN_ERR_DECLINE;
        st->chain.operand[i] = st->n_operands;
        st->inputs[st->n_operands++] = (int32_t)input;
    }
    return KN_OK;
}

static int chain_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    if (!k->in[0] || k->in[0]->dtype != KN_FLOAT)
        return KN_ERR_DECLINE;
    chain_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "ElementwiseChain: out of memory");
    k->state = st;
    int rc = chain_parse(k, st);
    if (rc == KN_OK &&
        !(st->fn = kn_cuda_kernel(kn_cuda_dev(k), "elementwise", "kn_chain_f32", k->err)))
        rc = k->err->code;
    if (rc != KN_OK) {
        ew_release(k);
        return rc;
    }
    kn_tensor *y = k->out[0];
    y->dtype = KN_FLOAT;
    y->rank = k->in[0]->rank;
    memcpy(y->dims, k->in[0]->dims, sizeof(int64_t) * (size_t)y->rank);
    return KN_OK;
}

static int chain_run(kn_kctx *k)
{
    chain_state *st = k->state;
    kn_cuda_chain_operands ops;
    memset(&ops, 0, sizeof ops);
    for (int32_t i = 0; i < st->n_operands; i++) {
        const kn_tensor *t = k->in[st->inputs[i]];
        ops.data[i] = t->data;
        ops.full[i] = kn_cuda_same_shape(t, k->in[0]);
    }
    st->chain.n = kn_tensor_numel(k->out[0]);
    const void *x = k->in[0]->data;
    void *y = k->out[0]->data;
    void *args[] = {&x, &y, &st->chain, &ops};
    return kn_cuda_launch_1d(k, st->fn, st->chain.n, args);
}

#define F32 KN_BIT(KN_FLOAT)
/* The float ops that may write over their first input, whose prepare and run
 * are <kind>_prepare and <kind>_run. */
#define F32_INPLACE(symbol, domain_name, name, since, kind)                                        \
    const kn_op_def symbol = {.domain = domain_name,                                               \
                              .op_type = #name,                                                    \
                              .since_version = since,                                              \
                              .dtypes = F32,                                                       \
                              .flags = KN_OP_INPLACE,                                              \
                              .prepare = kind##_prepare,                                           \
                              .run = kind##_run,                                                   \
                              .release = ew_release}
#define UNARY(name, since) F32_INPLACE(kn_cuda_##name, NULL, name, since, unary)
#define BINARY(name, since) F32_INPLACE(kn_cuda_##name, NULL, name, since, binary)
/* Kiln's own ops, written by the optimizer's fusions */
#define KILN_OP(name, kind) F32_INPLACE(kn_cuda_kiln_##name, "kiln", name, 1, kind)

UNARY(Relu, 1);
UNARY(LeakyRelu, 1);
UNARY(Sigmoid, 1);
UNARY(HardSigmoid, 1);
UNARY(HardSwish, 14);
UNARY(Tanh, 1);
UNARY(Gelu, 20);
UNARY(Exp, 1);
UNARY(Log, 1);
UNARY(Sqrt, 1);
UNARY(Neg, 1);
UNARY(Abs, 1);
UNARY(Reciprocal, 1);
UNARY(Erf, 9);
UNARY(Floor, 1);
UNARY(Ceil, 1);
UNARY(Softplus, 1);
UNARY(Elu, 1);
UNARY(Sin, 7);
UNARY(Cos, 7);
UNARY(Clip, 1);
BINARY(Add, 7);
BINARY(Sub, 7);
BINARY(Mul, 7);
BINARY(Div, 7);
BINARY(Pow, 7);
BINARY(Max, 8);
BINARY(Min, 8);
BINARY(PRelu, 7);

#define COMPARE(name, since)                                                                       \
    const kn_op_def kn_cuda_##name = {.op_type = #name,                                            \
                                      .since_version = since,                                      \
                                      .prepare = compare_prepare,                                  \
                                      .run = compare_run,                                          \
                                      .release = ew_release}
COMPARE(Equal, 7);
COMPARE(Less, 7);
COMPARE(Greater, 7);
COMPARE(LessOrEqual, 12);
COMPARE(GreaterOrEqual, 12);
const kn_op_def kn_cuda_Where = {.op_type = "Where",
                                 .since_version = 9,
                                 .dtypes = KN_BIT(KN_BOOL),
                                 .prepare = where_prepare,
                                 .run = where_run,
                                 .release = ew_release};
const kn_op_def kn_cuda_Cast = {.op_type = "Cast",
                                .since_version = 6,
                                .prepare = cast_prepare,
                                .run = cast_run,
                                .release = ew_release};

KILN_OP(Gelu, unary);
KILN_OP(Silu, unary);
KILN_OP(ElementwiseChain, chain);
