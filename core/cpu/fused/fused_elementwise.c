/* kiln.ElementwiseChain(X, T1, ..., Tk): a chain of float elementwise ops
 * (core/opt/pass_elementwise_chain.c builds it) run in one pass over memory.
 * Separately, each op of a chain reads and writes the whole tensor, so a
 * 4-op chain over a large tensor moves it through memory 8 times; here each
 * block of CHAIN_BLOCK elements is loaded once, every step runs on it while
 * it sits in L1, and it is stored once.
 *
 * Attributes (one entry per step, in order):
 *   steps    (strings) Relu, Sigmoid, Tanh, Clip, LeakyRelu, Silu, Gelu (erf),
 *            Exp, Neg, Abs, Sqrt, Reciprocal, Add, Sub, Mul, Div, and
 *            RSub / RDiv (the operand minus / over the chain value);
 *   operands (ints)    the node input holding a binary step's tensor operand
 *            (1..k), or -1: a unary step, or a binary one on params' scalar;
 *   params   (floats, 2 per step) Clip (min, max), LeakyRelu (alpha, -),
 *            a binary step's scalar operand (value, -); 0 elsewhere.
 * A tensor operand has X's shape, or holds one element (broadcast) with a
 * rank no larger than X's: Y always has X's shape. Each step computes what
 * the standalone op's float kernel computes (the same vector kernels), so
 * the result matches the unfused ops exactly. Y may be X's memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/simd/kernels.h"
#include "core/kernel/tensor_common.h"

enum {
    /* Floats per block. The block buffer, the source block and the
     * destination block must all stay in L1 (32 KB here): over 8 M floats
     * a 4-step chain ran in ~6.6 ms with 4096-float blocks, ~5.6 ms with
     * 2048 and ~3.8 ms with 256 to 1024. */
    CHAIN_BLOCK = 1024,
    CHAIN_GRAIN = 16,    /* blocks per task at least: tiny tensors stay on one thread */
    CHAIN_MAX_STEPS = 64
};

typedef enum chain_kind {
    CK_ACT, CK_EXP, CK_NEG, CK_ABS, CK_SQRT, CK_RECIPROCAL, CK_BINARY
} chain_kind;

/* The step names and what each runs. */
static const struct {
    const char *name;
    chain_kind kind;
    int code;          /* kn_act_kind (CK_ACT) or kn_binop (CK_BINARY) */
    int operand_first; /* CK_BINARY: operand op x */
    int n_params;      /* params the step reads (of its 2) */
} step_table[] = {
    {"Relu", CK_ACT, KN_ACT_RELU, 0, 0},
    {"Sigmoid", CK_ACT, KN_ACT_SIGMOID, 0, 0},
    {"Tanh", CK_ACT, KN_ACT_TANH, 0, 0},
    {"Clip", CK_ACT, KN_ACT_CLIP, 0, 2},
    {"LeakyRelu", CK_ACT, KN_ACT_LEAKY_RELU, 0, 1},
    {"Silu", CK_ACT, KN_ACT_SILU, 0, 0},
    {"Gelu", CK_ACT, KN_ACT_GELU, 0, 0},
    {"Exp", CK_EXP, 0, 0, 0},
    {"Neg", CK_NEG, 0, 0, 0},
    {"Abs", CK_ABS, 0, 0, 0},
    {"Sqrt", CK_SQRT, 0, 0, 0},
    {"Reciprocal", CK_RECIPROCAL, 0, 0, 0},
    {"Add", CK_BINARY, KN_BIN_ADD, 0, 1},
    {"Sub", CK_BINARY, KN_BIN_SUB, 0, 1},
    {"Mul", CK_BINARY, KN_BIN_MUL, 0, 1},
    {"Div", CK_BINARY, KN_BIN_DIV, 0, 1},
    {"RSub", CK_BINARY, KN_BIN_SUB, 1, 1},
    {"RDiv", CK_BINARY, KN_BIN_DIV, 1, 1},
};

typedef struct chain_step {
    chain_kind kind;
    kn_activation act;  /* CK_ACT */
    kn_binop op;        /* CK_BINARY */
    int operand_first;
    int32_t input;      /* CK_BINARY: node input of the tensor operand, or -1 */
    float scalar;       /* CK_BINARY without a tensor operand */
} chain_step;

typedef struct chain_state {
    int32_t n_steps;
    chain_step steps[];
} chain_state;

static void chain_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* The attribute `name` of `type` with `count` entries, or NULL (error set). */
static const kn_attr *chain_attr(kn_kctx *k, const char *name, int32_t type, int32_t count)
{
    const kn_attr *a = kn_node_attr(k->node, name);
    if (!a || a->type != type || a->count != count) {
        kn_fail(k->err, KN_ERR_INVALID_MODEL,
                "ElementwiseChain: attribute %s must be a list of %d entries", name, (int)count);
        return NULL;
    }
    return a;
}

/* A tensor operand X's shape, or one element of rank <= X's. */
static int operand_fits(const kn_tensor *t, const kn_tensor *x)
{
    if (kn_tensor_numel(t) == 1 && t->rank <= x->rank)
        return 1;
    if (t->rank != x->rank)
        return 0;
    for (int32_t d = 0; d < x->rank; d++)
        if (t->dims[d] != x->dims[d])
            return 0;
    return 1;
}

static int parse_step(kn_kctx *k, int32_t i, const char *name, int64_t operand,
                      const float *params, chain_step *s)
{
    size_t e = 0, n_entries = sizeof step_table / sizeof step_table[0];
    while (e < n_entries && strcmp(step_table[e].name, name) != 0)
        e++;
    if (e == n_entries)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "ElementwiseChain: step %d is '%s', "
                       "not an op it runs", (int)i, name);
    memset(s, 0, sizeof *s);
    s->kind = step_table[e].kind;
    s->input = -1;
    if (s->kind == CK_ACT)
        s->act = (kn_activation){(kn_act_kind)step_table[e].code, params[0], params[1]};
    if (s->kind != CK_BINARY) {
        if (operand != -1)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "ElementwiseChain: step %d (%s) is "
                           "unary but names operand input %lld", (int)i, name, (long long)operand);
        return KN_OK;
    }
    s->op = (kn_binop)step_table[e].code;
    s->operand_first = step_table[e].operand_first;
    s->scalar = params[0];
    if (operand == -1)
        return KN_OK;
    const kn_tensor *t = operand >= 1 && operand < k->n_in ? k->in[operand] : NULL;
    if (!t)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "ElementwiseChain: step %d (%s) names "
                       "operand input %lld, which the node does not have", (int)i, name,
                       (long long)operand);
    if (t->dtype != KN_FLOAT)
        return kn_fail(k->err, KN_ERR_DTYPE, "ElementwiseChain: step %d (%s): operand input "
                       "%lld must be float", (int)i, name, (long long)operand);
    if (!operand_fits(t, k->in[0]))
        return kn_fail(k->err, KN_ERR_SHAPE, "ElementwiseChain: step %d (%s): operand input "
                       "%lld has neither X's shape nor a single element", (int)i, name,
                       (long long)operand);
    s->input = (int32_t)operand;
    return KN_OK;
}

static int chain_prepare(kn_kctx *k)
{
    int rc = kn_need_inputs(k, 1);
    if (rc != KN_OK)
        return rc;
    const kn_attr *steps = kn_node_attr(k->node, "steps");
    if (!steps || steps->type != KN_ATTR_STRINGS || steps->count < 1 ||
        steps->count > CHAIN_MAX_STEPS)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "ElementwiseChain: attribute steps must "
                       "list 1 to %d op names", CHAIN_MAX_STEPS);
    int32_t n = steps->count;
    const kn_attr *ops = chain_attr(k, "operands", KN_ATTR_INTS, n);
    const kn_attr *params = ops ? chain_attr(k, "params", KN_ATTR_FLOATS, 2 * n) : NULL;
    if (!params)
        return k->err->code;
    chain_state *st = calloc(1, sizeof *st + sizeof(chain_step) * (size_t)n);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "ElementwiseChain: out of memory");
    st->n_steps = n;
    k->state = st;
    for (int32_t i = 0; i < n; i++) {
        rc = parse_step(k, i, steps->strings[i], ops->ints[i], params->floats + 2 * i,
                        &st->steps[i]);
        if (rc != KN_OK) {
            chain_release(k);
            return rc;
        }
    }
    kn_copy_desc(k->out[0], k->in[0]);
    return KN_OK;
}

typedef struct chain_job {
    const chain_state *st;
    const kn_kctx *k;
    const float *x;
    float *y;
    int64_t n;
} chain_job;

/* dst[0, m) = step(src[0, m)); the block starts at element lo of X. */
static void run_step(const chain_job *j, const chain_step *s, float *dst, const float *src,
                     int64_t m, int64_t lo)
{
    const kn_simd_kernels *v = kn_simd();
    switch (s->kind) {
    case CK_ACT:
        v->act(dst, src, m, &s->act);
        return;
    case CK_EXP:
        v->math(KN_MATH_EXP, dst, src, m);
        return;
    case CK_NEG:
        for (int64_t i = 0; i < m; i++)
            dst[i] = -src[i];
        return;
    case CK_ABS:
        for (int64_t i = 0; i < m; i++)
            dst[i] = fabsf(src[i]);
        return;
    case CK_SQRT:
        for (int64_t i = 0; i < m; i++)
            dst[i] = sqrtf(src[i]);
        return;
    case CK_RECIPROCAL:
        for (int64_t i = 0; i < m; i++)
            dst[i] = 1.0f / src[i];
        return;
    case CK_BINARY: {
        const float *t = &s->scalar;
        int64_t ts = 0;
        if (s->input >= 0) {
            const kn_tensor *op = j->k->in[s->input];
            t = op->data;
            if (kn_tensor_numel(op) != 1) {
                t += lo;
                ts = 1;
            }
        }
        if (s->operand_first)
            v->binary(s->op, dst, t, ts, src, 1, m);
        else
            v->binary(s->op, dst, src, 1, t, ts, m);
        return;
    }
    }
}

static void chain_range(void *ctx, int64_t begin, int64_t end)
{
    const chain_job *j = ctx;
    /* The block lives on this thread's stack; steps read and write it in
     * place, and only the last step writes Y. Y may be X itself (in place)
     * while a later step also reads X as its operand: X's block is then
     * still unchanged when that step reads it, as Y's block is written only
     * by the last step, element by element after reading. */
    _Alignas(64) float buf[CHAIN_BLOCK];
    int32_t last = j->st->n_steps - 1;
    for (int64_t b = begin; b < end; b++) {
        int64_t lo = b * CHAIN_BLOCK;
        int64_t m = j->n - lo < CHAIN_BLOCK ? j->n - lo : CHAIN_BLOCK;
        const float *src = j->x + lo;
        for (int32_t s = 0; s <= last; s++) {
            float *dst = s == last ? j->y + lo : buf;
            run_step(j, &j->st->steps[s], dst, src, m, lo);
            src = dst;
        }
    }
}

static int chain_run(kn_kctx *k)
{
    chain_job j = {k->state, k, k->in[0]->data, k->out[0]->data, kn_tensor_numel(k->in[0])};
    if (j.n > 0)
        kn_parallel_for(k->threads, (j.n + CHAIN_BLOCK - 1) / CHAIN_BLOCK, CHAIN_GRAIN, chain_range,
                        &j);
    return KN_OK;
}

const kn_op_def kn_op_kiln_ElementwiseChain = {
    .domain = "kiln", .op_type = "ElementwiseChain", .since_version = 1,
    .dtypes = KN_BIT(KN_FLOAT), .flags = KN_OP_INPLACE, .prepare = chain_prepare,
    .run = chain_run, .release = chain_release
};
