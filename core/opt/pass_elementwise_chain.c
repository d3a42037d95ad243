/* Chains of float elementwise ops become one kiln.ElementwiseChain, which
 * makes a single pass over memory (core/cpu/fused/fused_elementwise.c documents
 * its attributes). A chain is two or more of
 *   Relu, Sigmoid, Tanh, Exp, Neg, Abs, Sqrt, Reciprocal, LeakyRelu, Gelu
 *   (erf), Clip with constant bounds, kiln.Silu, kiln.Gelu, and
 *   Add / Sub / Mul / Div whose other operand is a float scalar constant or
 *   a tensor of the chain's own shape,
 * each reading the previous one's output, which nothing else reads and no
 * one observes. Operands that would broadcast the chain value (or whose
 * shape cannot be shown equal from the declared shapes) end the chain: the
 * fused kernel only handles same-shape and single-element operands.
 *
 * The pass runs after the conv / matrix product fusions (an activation is
 * cheaper in their epilogue) and after the NHWC layout pass (which moves
 * single elementwise ops into NHWC regions by op type). */
#include <math.h>
#include <string.h>

#include "core/opt/passes.h"

enum { MAX_STEPS = 64, MAX_FLOAT_HOPS = 64 };

typedef struct chain_step {
    const char *name;  /* the kernel's step name */
    int32_t operand;   /* tensor operand value, or -1 */
    float params[2];
} chain_step;

typedef struct chain {
    int32_t head_in;   /* X: the value the chain starts from */
    int32_t nodes[MAX_STEPS];
    chain_step steps[MAX_STEPS];
    int32_t n;
    int known_float;   /* an operand showed the chain is float */
} chain;

static int is_kiln_op(const kn_node *n, const char *op)
{
    return n->domain && strcmp(n->domain, KN_OPT_DOMAIN_NAME) == 0 && strcmp(n->op_type, op) == 0;
}

static int in_list(const kn_node *n, const char *const *list)
{
    for (; *list; list++)
        if (kn_opt_is_op(n, *list))
            return 1;
    return 0;
}

/* Clip's bounds (as the Clip kernel reads them): attributes before opset
 * 11, optional inputs after, which must then be scalar constants. */
static int clip_bounds(kn_opt *o, const kn_node *n, float params[2])
{
    params[0] = -INFINITY;
    params[1] = INFINITY;
    if (kn_opt_opset(o) < 11) {
        params[0] = kn_attr_float(n, "min", -INFINITY);
        params[1] = kn_attr_float(n, "max", INFINITY);
        return 1;
    }
    for (int32_t j = 1; j <= 2; j++)
        if (n->n_inputs > j && n->inputs[j] >= 0 &&
            !kn_opt_const_scalar(o, n->inputs[j], &params[j - 1]))
            return 0;
    return 1;
}

/* The step name of a unary elementwise node (params filled), else NULL. */
static const char *unary_step(kn_opt *o, const kn_node *n, float params[2])
{
    static const char *const plain[] = {"Relu", "Sigmoid", "Tanh", "Exp", "Neg",
                                        "Abs", "Sqrt", "Reciprocal", NULL};
    if (n->n_inputs < 1 || n->inputs[0] < 0)
        return NULL;
    if (is_kiln_op(n, "Silu") || is_kiln_op(n, "Gelu"))
        return n->n_inputs == 1 ? n->op_type : NULL;
    if (kn_opt_is_op(n, "Clip"))
        return clip_bounds(o, n, params) ? "Clip" : NULL;
    if (n->n_inputs != 1)
        return NULL;
    for (int i = 0; plain[i]; i++)
        if (kn_opt_is_op(n, plain[i]))
            return plain[i];
    if (kn_opt_is_op(n, "LeakyRelu")) {
        params[0] = kn_attr_float(n, "alpha", 0.01f);
        return "LeakyRelu";
    }
    if (kn_opt_is_op(n, "Gelu") && strcmp(kn_attr_string(n, "approximate", "none"), "none") == 0)
        return "Gelu";
    return NULL;
}

/* a and b have the same declared shape: every dim known and equal, or
 * named by the same symbol. */
static int same_shape(kn_opt *o, int32_t a, int32_t b)
{
    if (a == b)
        return 1;
    const kn_value *va = kn_opt_value(o, a), *vb = kn_opt_value(o, b);
    if (va->rank < 0 || va->rank != vb->rank)
        return 0;
    for (int32_t d = 0; d < va->rank; d++) {
        int known = va->dims[d] >= 0 && va->dims[d] == vb->dims[d];
        int named = va->dim_params[d] && vb->dim_params[d] &&
                    strcmp(va->dim_params[d], vb->dim_params[d]) == 0;
        if (!known && !named)
            return 0;
    }
    return 1;
}

/* The other operand t of a binary step: a scalar constant that cannot add
 * dimensions to the chain value, or a tensor of its shape. */
static int operand_ok(kn_opt *o, chain *c, int32_t t, chain_step *s)
{
    if (t < 0)
        return 0;
    const kn_value *tv = kn_opt_value(o, t);
    if (kn_opt_const_scalar(o, t, &s->params[0])) {
        int32_t head_rank = kn_opt_value(o, c->head_in)->rank;
        if (tv->rank > (head_rank >= 0 ? head_rank : 0))
            return 0;
        c->known_float = 1; /* a float constant: the other operand is float too */
        return 1;
    }
    if (tv->kind != KN_KIND_TENSOR || (tv->dtype != KN_UNDEFINED && tv->dtype != KN_FLOAT) ||
        !same_shape(o, t, c->head_in))
        return 0;
    c->known_float |= tv->dtype == KN_FLOAT;
    s->operand = t;
    return 1;
}

/* Node id as a step of chain c reading the chain value `in`. */
static int as_step(kn_opt *o, chain *c, int32_t id, int32_t in, chain_step *s)
{
    static const char *const binary[] = {"Add", "Sub", "Mul", "Div", NULL};
    const kn_node *n = kn_opt_node(o, id);
    memset(s, 0, sizeof *s);
    s->operand = -1;
    if (n->n_outputs != 1 || n->outputs[0] < 0)
        return 0;
    if ((s->name = unary_step(o, n, s->params)))
        return n->inputs[0] == in;
    if (!in_list(n, binary) || n->n_inputs != 2)
        return 0;
    int chain_first = n->inputs[0] == in;
    if (!chain_first && n->inputs[1] != in)
        return 0;
    if (!operand_ok(o, c, n->inputs[chain_first ? 1 : 0], s))
        return 0;
    s->name = n->op_type;
    if (!chain_first && kn_opt_is_op(n, "Sub"))
        s->name = "RSub";
    else if (!chain_first && kn_opt_is_op(n, "Div"))
        s->name = "RDiv";
    return 1;
}

/* Starts chain c at node id (its first computed input is the chain's X). */
static int start(kn_opt *o, chain *c, int32_t id)
{
    const kn_node *n = kn_opt_node(o, id);
    for (int32_t j = 0; j < n->n_inputs && j < 2; j++) {
        int32_t x = n->inputs[j];
        if (x < 0 || kn_opt_value(o, x)->is_initializer ||
            kn_opt_value(o, x)->kind != KN_KIND_TENSOR)
            continue;
        c->head_in = x;
        c->known_float = 0;
        if (as_step(o, c, id, x, &c->steps[0])) {
            c->nodes[0] = id;
            c->n = 1;
            return 1;
        }
    }
    return 0;
}

/* Ops whose output has input 0's element type, and those among them whose
 * input 1 has it too (so a float constant there shows it). */
static const char *const keeps_type[] = {
    "Relu", "Sigmoid", "Tanh", "Exp", "Neg", "Abs", "Sqrt", "Reciprocal", "LeakyRelu", "Clip",
    "Gelu", "Erf", "Log", "Pow", "Softmax", "LogSoftmax", "Transpose", "Reshape", "Flatten",
    "Squeeze", "Unsqueeze", "Slice", "Concat", "Split", "Gather", "Expand", "Tile", "Pad",
    "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "ReduceMean", "ReduceSum",
    "ReduceMax", "Identity", "Dropout", "Add", "Sub", "Mul", "Div", "MatMul", "Gemm", "Conv",
    "ConvTranspose", "BatchNormalization", "LayerNormalization", "InstanceNormalization",
    "PRelu", NULL};
static const char *const input1_same_type[] = {
    "Add", "Sub", "Mul", "Div", "MatMul", "Gemm", "Conv", "ConvTranspose", "BatchNormalization",
    "LayerNormalization", "InstanceNormalization", "PRelu", NULL};

/* v is float: declared so, or (following input 0 up through type-keeping
 * producers) some such producer has a declared float or float constant
 * operand. kiln ops all keep input 0's type, and their input 1 (weights,
 * K) has it too. */
static int known_float(kn_opt *o, int32_t v)
{
    int64_t count;
    for (int hop = 0; hop < MAX_FLOAT_HOPS && v >= 0; hop++) {
        const kn_value *val = kn_opt_value(o, v);
        if (val->kind != KN_KIND_TENSOR)
            return 0;
        if (val->dtype != KN_UNDEFINED)
            return val->dtype == KN_FLOAT;
        int32_t p = kn_opt_producer(o, v);
        if (p < 0)
            return 0;
        const kn_node *n = kn_opt_node(o, p);
        int kiln = n->domain && strcmp(n->domain, KN_OPT_DOMAIN_NAME) == 0;
        if (n->n_inputs < 1 || (!kiln && !in_list(n, keeps_type)))
            return 0;
        if (n->n_inputs > 1 && (kiln || in_list(n, input1_same_type)) &&
            kn_opt_const_floats(o, n->inputs[1], &count))
            return 1;
        v = n->inputs[0];
    }
    return 0;
}

/* Replaces c's nodes with one kiln.ElementwiseChain. */
static int emit(kn_opt *o, const chain *c)
{
    int32_t inputs[1 + MAX_STEPS], n_in = 1;
    inputs[0] = c->head_in;
    kn_attr *attrs = kn_opt_attrs(o, 3);
    const char **names = kn_opt_alloc(o, sizeof *names * (size_t)c->n);
    int64_t *operands = kn_opt_alloc(o, sizeof *operands * (size_t)c->n);
    float params[2 * MAX_STEPS];
    if (!attrs || !names || !operands || kn_opt_import_kiln(o) != KN_OK)
        return o->err->code ? o->err->code : KN_ERR_OUT_OF_MEMORY;
    for (int32_t i = 0; i < c->n; i++) {
        const chain_step *s = &c->steps[i];
        names[i] = s->name; /* static strings: they outlive the model */
        params[2 * i] = s->params[0];
        params[2 * i + 1] = s->params[1];
        operands[i] = -1;
        if (s->operand < 0)
            continue;
        int32_t j = 1; /* a tensor read by several steps is one input */
        while (j < n_in && inputs[j] != s->operand)
            j++;
        if (j == n_in)
            inputs[n_in++] = s->operand;
        operands[i] = j;
    }
    attrs[0] = (kn_attr){.name = "steps", .type = KN_ATTR_STRINGS, .count = c->n,
                         .strings = names};
    attrs[1] = (kn_attr){.name = "operands", .type = KN_ATTR_INTS, .count = c->n,
                         .ints = operands};
    if (kn_opt_attr_floats(o, &attrs[2], "params", params, 2 * c->n) != KN_OK)
        return o->err->code;
    int32_t last = c->nodes[c->n - 1];
    int32_t out = kn_opt_node(o, last)->outputs[0];
    for (int32_t i = 0; i < c->n; i++)
        kn_opt_remove(o, c->nodes[i]);
    return kn_opt_add_node(o, last, "ElementwiseChain", KN_OPT_DOMAIN_NAME, inputs, n_in, &out, 1,
                           attrs, 3) < 0 ? o->err->code : KN_OK;
}

int kn_pass_elementwise_chain(kn_opt *o)
{
    int32_t n_nodes = o->n_orig;
    chain c;
    for (int32_t id = 0; id < n_nodes; id++) {
        if (!kn_opt_live(o, id) || !start(o, &c, id))
            continue;
        /* Nodes are in topological order, so a chain is found from its
         * first node and grows forward through private values. */
        int32_t v = kn_opt_node(o, id)->outputs[0], next;
        while (c.n < MAX_STEPS && kn_opt_is_private(o, v) &&
               kn_opt_consumers(o, v, &next, 1) == 1 && kn_opt_live(o, next) &&
               as_step(o, &c, next, v, &c.steps[c.n])) {
            c.nodes[c.n++] = next;
            v = kn_opt_node(o, next)->outputs[0];
        }
        if (c.n < 2 || (!c.known_float && !known_float(o, c.head_in)))
            continue;
        int rc = emit(o, &c);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
