/* NHWC layout for the oneDNN kernels: a pass the oneDNN backend contributes
 * (backend_dnnl.c), level 2, run only when oneDNN may serve the model.
 * oneDNN's fast convolutions read and write channels-last activations; in
 * NCHW it falls back to slower paths. So:
 *
 *  - every 2-D float Conv / kiln.FusedConv with constant weights becomes a
 *    kiln.NhwcConv (FusedConv semantics; X, Z and Y NHWC, W still OIHW),
 *    and every 2-D QLinearConv or kiln.QFusedConv with constant int8
 *    weights a kiln.NhwcQLinearConv (X, Z and Y NHWC);
 *  - MaxPool (without Indices), AveragePool and GlobalAveragePool whose
 *    input is already NHWC become kiln.NhwcMaxPool / NhwcAveragePool /
 *    NhwcGlobalAveragePool;
 *  - ops that do not care about layout run on the NHWC values when all
 *    their computed inputs have them: unary elementwise ops (per-tensor
 *    QuantizeLinear and DequantizeLinear among them), kiln.QAdd and
 *    kiln.QMulFloat, binary and n-ary elementwise ops (a constant operand
 *    is permuted to match, a scalar kept), and Concat (axis remapped);
 *  - an inference BatchNormalization of an NHWC value (one no Conv could
 *    absorb: DenseNet's, after each Concat) becomes Mul and Add by
 *    per-channel constants, which then run on the NHWC value.
 *
 * Values walk forward in NHWC; a value gets its NCHW form back (a Transpose
 * writing the original value, so names and graph outputs stay) only where
 * some other node, a subgraph or the graph's caller reads it, and an NCHW
 * value gets an NHWC copy once, however many converted nodes read it. So
 * transposes appear only at the borders of the converted regions: no pair
 * of inverse transposes is ever created that would then need cancelling.
 *
 * A graph converted from an NHWC framework (tf2onnx's Keras models) brings
 * its own borders: Transpose NHWC->NCHW before every Conv and back after
 * it. Those are the model's own, so the pass reads them as what they are:
 * the input of a Transpose(0,3,1,2) is its output's NHWC twin, and a
 * Transpose(0,2,3,1) of a value with a twin is that twin (the node goes).
 * Without this, each Conv ran between four transposes, two of them ours. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/opt/passes.h"

static const int64_t to_nhwc_perm[4] = {0, 2, 3, 1}, to_nchw_perm[4] = {0, 3, 1, 2};

typedef struct layout {
    kn_opt *o;
    int32_t n_values;  /* values that existed when the pass began */
    int32_t *nhwc;     /* per value: its NHWC twin, or -1 */
    uint8_t *moved;    /* per value: its NCHW producer was replaced (twin only) */
} layout;

static const char *const unary_ops[] = {
    "Relu", "Sigmoid", "Tanh", "LeakyRelu", "HardSigmoid", "HardSwish", "Elu", "Selu",
    "Softplus", "Softsign", "Exp", "Log", "Abs", "Neg", "Sqrt", "Erf", "Reciprocal", "Floor",
    "Ceil", "Round", "Sign", "Clip", "Identity", "Celu", "ThresholdedRelu", "Mish", "Gelu", NULL};
static const char *const kiln_unary_ops[] = {"Silu", "Gelu", NULL};
static const char *const nary_ops[] = {"Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Mean",
                                       "Pow", "PRelu", NULL};

static int in_list(const char *const *list, const char *op)
{
    for (; *list; list++)
        if (strcmp(*list, op) == 0)
            return 1;
    return 0;
}

static int is_kiln(const kn_node *n, const char *op)
{
    return n->domain && strcmp(n->domain, KN_OPT_DOMAIN_NAME) == 0 && strcmp(n->op_type, op) == 0;
}

static int moved(const layout *L, int32_t v) { return v >= 0 && v < L->n_values && L->moved[v]; }
static int32_t twin(const layout *L, int32_t v)
{
    return v >= 0 && v < L->n_values ? L->nhwc[v] : -1;
}

static kn_attr *perm_attr(kn_opt *o, const int64_t *perm)
{
    kn_attr *a = kn_opt_attrs(o, 1);
    int64_t *ints = kn_opt_alloc(o, sizeof(int64_t) * 4);
    if (!a || !ints)
        return NULL;
    memcpy(ints, perm, sizeof(int64_t) * 4);
    a->name = "perm";
    a->type = KN_ATTR_INTS;
    a->count = 4;
    a->ints = ints;
    return a;
}

/* The element type for a new value holding v's data in another layout:
 * v's when known (an int8 QDQ value), else float as before. */
static int32_t dtype_like(kn_opt *o, int32_t v)
{
    int32_t dt = kn_opt_value(o, v)->dtype;
    return dt == KN_UINT8 || dt == KN_INT8 ? dt : KN_FLOAT;
}

/* Adds Transpose(from) -> to (a new value when to < 0); returns to. */
static int32_t add_transpose(layout *L, int32_t anchor, int32_t from, int32_t to,
                             const int64_t *perm)
{
    kn_opt *o = L->o;
    if (to < 0)
        to = kn_opt_add_value(o, kn_opt_value(o, from)->name, dtype_like(o, from));
    kn_attr *a = to >= 0 ? perm_attr(o, perm) : NULL;
    if (!a)
        return kn_opt_oom(o), -1;
    return kn_opt_add_node(o, anchor, "Transpose", "", &from, 1, &to, 1, a, 1) < 0 ? -1 : to;
}

/* The NHWC twin of a 4-D NCHW value v, made once. */
static int32_t nhwc_of(layout *L, int32_t anchor, int32_t v)
{
    if (twin(L, v) >= 0)
        return L->nhwc[v];
    int32_t t = add_transpose(L, anchor, v, -1, to_nhwc_perm);
    if (t >= 0 && v < L->n_values)
        L->nhwc[v] = t;
    return t;
}

/* A new value for the NHWC result of node id's output 0. */
static int32_t new_output(layout *L, int32_t id)
{
    kn_opt *o = L->o;
    int32_t y = kn_opt_node(o, id)->outputs[0];
    int32_t t = kn_opt_add_value(o, kn_opt_value(o, y)->name, dtype_like(o, y));
    if (t < 0)
        return kn_opt_oom(o), -1;
    L->nhwc[y] = t;
    L->moved[y] = 1;
    return t;
}

/* Replaces node id by op (kiln domain when kiln) on the given inputs, its
 * output NHWC. */
static int replace(layout *L, int32_t id, const char *op, const char *domain, int32_t *inputs,
                   int32_t n_in, kn_attr *attrs, int32_t n_attrs)
{
    kn_opt *o = L->o;
    int32_t out = new_output(L, id);
    if (out < 0)
        return o->err->code;
    if (kn_opt_add_node(o, id, op, domain, inputs, n_in, &out, 1, attrs, n_attrs) < 0)
        return o->err->code;
    kn_opt_remove(o, id);
    return KN_OK;
}

static int convert_conv(layout *L, int32_t id)
{
    kn_opt *o = L->o;
    const kn_node *n = kn_opt_node(o, id);
    int fused = is_kiln(n, "FusedConv");
    if (!(fused || kn_opt_is_op(n, "Conv")) || n->n_inputs < 2 || n->n_outputs != 1 ||
        n->inputs[0] < 0 || n->inputs[1] < 0 || n->outputs[0] < 0)
        return 0;
    const kn_value *w = kn_opt_value(o, n->inputs[1]);
    if (!w->is_initializer || w->dtype != KN_FLOAT || w->rank != 4)
        return 0;
    return 1;
}

/* QLinearConv or kiln.QFusedConv, 2-D, with constant int8 weights (input
 * 3): kiln.NhwcQLinearConv. */
static int convert_qconv(layout *L, int32_t id)
{
    kn_opt *o = L->o;
    const kn_node *n = kn_opt_node(o, id);
    int fused = is_kiln(n, "QFusedConv");
    if (!(fused || kn_opt_is_op(n, "QLinearConv")) || n->n_inputs < 8 ||
        n->n_inputs > (fused ? 12 : 9) || n->n_outputs != 1 || n->inputs[0] < 0 ||
        n->inputs[3] < 0 || n->outputs[0] < 0)
        return 0;
    const kn_value *w = kn_opt_value(o, n->inputs[3]);
    return w->is_initializer && w->dtype == KN_INT8 && w->rank == 4;
}

static int do_qconv(layout *L, int32_t id)
{
    kn_opt *o = L->o;
    kn_node n = *kn_opt_node(o, id);
    int32_t in[12];
    memcpy(in, n.inputs, sizeof(int32_t) * (size_t)n.n_inputs);
    in[0] = nhwc_of(L, id, n.inputs[0]);
    int has_z = n.n_inputs > 9 && n.inputs[9] >= 0;
    if (has_z)
        in[9] = nhwc_of(L, id, n.inputs[9]);
    if (in[0] < 0 || (has_z && in[9] < 0))
        return o->err->code ? o->err->code : KN_ERR_OUT_OF_MEMORY;
    return replace(L, id, "NhwcQLinearConv", KN_OPT_DOMAIN_NAME, in, n.n_inputs, n.attrs,
                   n.n_attrs);
}

static int do_conv(layout *L, int32_t id)
{
    kn_opt *o = L->o;
    kn_node n = *kn_opt_node(o, id);
    int32_t in[4] = {-1, n.inputs[1], n.n_inputs > 2 ? n.inputs[2] : -1, -1};
    in[0] = nhwc_of(L, id, n.inputs[0]);
    if (n.n_inputs > 3 && n.inputs[3] >= 0)
        in[3] = nhwc_of(L, id, n.inputs[3]);
    if (in[0] < 0 || (n.n_inputs > 3 && n.inputs[3] >= 0 && in[3] < 0))
        return o->err->code ? o->err->code : KN_ERR_OUT_OF_MEMORY;
    int32_t n_in = in[3] >= 0 ? 4 : in[2] >= 0 ? 3 : 2;
    return replace(L, id, "NhwcConv", KN_OPT_DOMAIN_NAME, in, n_in, n.attrs, n.n_attrs);
}

static int convert_pool(layout *L, int32_t id, const char **op)
{
    kn_opt *o = L->o;
    const kn_node *n = kn_opt_node(o, id);
    if (n->n_inputs < 1 || !moved(L, n->inputs[0]) || n->outputs[0] < 0)
        return 0;
    int32_t count = 0;
    if (kn_opt_is_op(n, "GlobalAveragePool") && n->n_outputs == 1) {
        *op = "NhwcGlobalAveragePool";
        return 1;
    }
    if (kn_opt_is_op(n, "MaxPool") && (n->n_outputs == 1 || n->outputs[1] < 0) &&
        kn_attr_ints(n, "kernel_shape", &count) && count == 2) {
        *op = "NhwcMaxPool";
        return 1;
    }
    if (kn_opt_is_op(n, "AveragePool") && n->n_outputs == 1 &&
        kn_attr_ints(n, "kernel_shape", &count) && count == 2) {
        *op = "NhwcAveragePool";
        return 1;
    }
    return 0;
}

/* A constant operand of an elementwise op on NHWC values: scalars stay,
 * others are right-aligned to rank 4 and permuted like the data. */
static int32_t permuted_const(layout *L, int32_t v)
{
    kn_opt *o = L->o;
    const kn_value *c = kn_opt_value(o, v);
    int64_t numel = kn_shape_numel(c->dims, c->rank);
    if (numel == 1)
        return v;
    size_t es = kn_dtype_size(c->dtype);
    if (c->rank > 4 || es == 0 || numel < 0 || c->init_nbytes != (int64_t)es * numel)
        return -1;
    int64_t d4[4], out[4], src_strides[4];
    for (int32_t i = 0; i < 4; i++)
        d4[i] = i < 4 - c->rank ? 1 : c->dims[i - (4 - c->rank)];
    for (int32_t i = 0; i < 4; i++)
        out[i] = d4[to_nhwc_perm[i]];
    src_strides[3] = 1;
    for (int32_t i = 2; i >= 0; i--)
        src_strides[i] = src_strides[i + 1] * d4[i + 1];
    unsigned char *data = malloc((size_t)numel * es + 1);
    if (!data)
        return kn_opt_oom(o), -1;
    const unsigned char *src = c->init_data;
    int64_t k = 0;
    for (int64_t a = 0; a < out[0]; a++)
        for (int64_t b = 0; b < out[1]; b++)
            for (int64_t d = 0; d < out[2]; d++)
                for (int64_t e = 0; e < out[3]; e++, k++) {
                    int64_t idx[4] = {a, b, d, e}, off = 0;
                    for (int32_t i = 0; i < 4; i++)
                        off += idx[i] * src_strides[to_nhwc_perm[i]];
                    memcpy(data + (size_t)k * es, src + (size_t)off * es, es);
                }
    int32_t r = kn_opt_add_initializer(o, c->name, c->dtype, 4, out, data, (size_t)numel * es);
    free(data);
    return r;
}

/* Inputs of an elementwise/Concat node on NHWC values, or 0 when it stays:
 * every computed input has a twin, at least one has moved, constants (only
 * where allow_const) can follow. */
static int nhwc_inputs(layout *L, const kn_node *n, int allow_const, int32_t first_const,
                       int32_t *in)
{
    kn_opt *o = L->o;
    int any_moved = 0;
    for (int32_t j = 0; j < n->n_inputs; j++) {
        int32_t v = n->inputs[j];
        in[j] = v;
        if (v < 0)
            continue;
        const kn_value *val = kn_opt_value(o, v);
        if (j >= first_const) {
            if (!val->is_initializer)
                return 0;
            continue;
        }
        if (twin(L, v) >= 0) {
            any_moved |= moved(L, v);
            in[j] = L->nhwc[v];
        } else if (!(allow_const && val->is_initializer && val->rank >= 0 && val->rank <= 4)) {
            return 0;
        }
    }
    return any_moved;
}

/* QuantizeLinear / DequantizeLinear with one scale (and zero point) for
 * the whole tensor: elementwise, so a QDQ model's pairs between NHWC
 * convolutions stay NHWC instead of being wrapped in transposes. */
static int per_tensor_qdq(kn_opt *o, const kn_node *n)
{
    if ((n->domain && n->domain[0]) ||
        (!kn_opt_is_op(n, "QuantizeLinear") && !kn_opt_is_op(n, "DequantizeLinear")))
        return 0;
    for (int32_t j = 1; j < n->n_inputs; j++) {
        const kn_value *c = n->inputs[j] >= 0 ? kn_opt_value(o, n->inputs[j]) : NULL;
        if (c && (!c->is_initializer || kn_shape_numel(c->dims, c->rank) != 1))
            return 0;
    }
    return 1;
}

static int do_elementwise(layout *L, int32_t id)
{
    kn_opt *o = L->o;
    kn_node n = *kn_opt_node(o, id);
    if (n.n_outputs != 1 || n.outputs[0] < 0 || n.outputs[0] >= L->n_values)
        return KN_OK;
    int unary = (n.domain == NULL || n.domain[0] == 0)
                    ? in_list(unary_ops, n.op_type) || per_tensor_qdq(o, &n)
                    : strcmp(n.domain, KN_OPT_DOMAIN_NAME) == 0 && in_list(kiln_unary_ops, n.op_type);
    int nary = (n.domain == NULL || n.domain[0] == 0) && in_list(nary_ops, n.op_type);
    int concat = kn_opt_is_op(&n, "Concat");
    if (!unary && !nary && !concat)
        return KN_OK;
    int32_t *in = kn_opt_alloc(o, sizeof(int32_t) * (size_t)(n.n_inputs + 1));
    if (!in)
        return kn_opt_oom(o);
    if (!nhwc_inputs(L, &n, nary, unary ? 1 : n.n_inputs, in))
        return KN_OK;
    for (int32_t j = 0; nary && j < n.n_inputs; j++) {
        if (n.inputs[j] >= 0 && in[j] == n.inputs[j]) {
            in[j] = permuted_const(L, n.inputs[j]);
            if (in[j] < 0)
                return o->err->code; /* KN_OK when the constant just does not fit */
        }
    }
    kn_attr *attrs = n.attrs;
    if (concat) {
        attrs = kn_opt_attrs(o, n.n_attrs ? n.n_attrs : 1);
        if (!attrs)
            return kn_opt_oom(o);
        for (int32_t a = 0; a < n.n_attrs; a++) {
            attrs[a] = n.attrs[a];
            if (strcmp(n.attrs[a].name, "axis") == 0) {
                int64_t axis = n.attrs[a].i < 0 ? n.attrs[a].i + 4 : n.attrs[a].i;
                if (axis < 0 || axis > 3)
                    return KN_OK; /* left for Concat to report */
                static const int64_t where[4] = {0, 3, 1, 2};
                attrs[a].i = where[axis];
            }
        }
    }
    return replace(L, id, n.op_type, n.domain, in, n.n_inputs, attrs, n.n_attrs);
}

/* kiln.QAdd or kiln.QMulFloat of two NHWC values (inputs 0 and 3; the
 * rest are scalar constants): elementwise, so it runs on them as they are. */
static int do_qadd(layout *L, int32_t id)
{
    kn_opt *o = L->o;
    kn_node n = *kn_opt_node(o, id);
    if (n.n_inputs < 6 || n.n_inputs > 8 || n.n_outputs != 1 || n.outputs[0] < 0 ||
        n.outputs[0] >= L->n_values)
        return KN_OK;
    int32_t a = n.inputs[0], b = n.inputs[3];
    if (twin(L, a) < 0 || twin(L, b) < 0 || !(moved(L, a) || moved(L, b)))
        return KN_OK;
    int32_t in[8];
    memcpy(in, n.inputs, sizeof(int32_t) * (size_t)n.n_inputs);
    in[0] = L->nhwc[a];
    in[3] = L->nhwc[b];
    return replace(L, id, n.op_type, n.domain, in, n.n_inputs, n.attrs, n.n_attrs);
}

static int perm_is(const kn_node *n, const int64_t *perm)
{
    int32_t count = 0;
    const int64_t *p = kn_attr_ints(n, "perm", &count);
    return p && count == 4 && memcmp(p, perm, sizeof(int64_t) * 4) == 0;
}

/* The model's own layout Transposes (see the top of the file); returns 1
 * when node id was one. */
static int do_model_transpose(layout *L, int32_t id)
{
    kn_opt *o = L->o;
    const kn_node *n = kn_opt_node(o, id);
    if (!kn_opt_is_op(n, "Transpose") || n->n_inputs != 1 || n->n_outputs != 1)
        return 0;
    int32_t x = n->inputs[0], y = n->outputs[0];
    /* any dtype (it is often not inferred yet): a twin only serves nodes
     * that are converted on their own terms */
    if (x < 0 || y < 0 || x >= L->n_values || y >= L->n_values)
        return 0;
    if (perm_is(n, to_nchw_perm) && twin(L, y) < 0) {
        L->nhwc[y] = x; /* the node stays for any NCHW reader; unread, it goes */
        return 1;
    }
    if (perm_is(n, to_nhwc_perm) && twin(L, x) >= 0 && kn_opt_bypass(o, L->nhwc[x], y)) {
        kn_opt_remove(o, id);
        return 1;
    }
    return 0;
}

/* Per-channel constant input j of BatchNormalization n (C floats), or NULL. */
static const float *bn_param(kn_opt *o, const kn_node *n, int32_t j, int64_t c)
{
    int64_t count = 0;
    const float *p = n->inputs[j] >= 0 ? kn_opt_const_floats(o, n->inputs[j], &count) : NULL;
    return p && count == c ? p : NULL;
}

/* A constant [1, 1, 1, c] (NHWC per channel). */
static int32_t channel_const(kn_opt *o, const char *hint, const float *v, int64_t c)
{
    const int64_t dims[4] = {1, 1, 1, c};
    return kn_opt_add_initializer(o, hint, KN_FLOAT, 4, dims, v, sizeof(float) * (size_t)c);
}

/* BatchNormalization (inference) of an NHWC value: y = x * s + t with
 * s = scale / sqrt(var + eps), t = B - mean * s, per channel. */
static int do_batchnorm(layout *L, int32_t id)
{
    kn_opt *o = L->o;
    kn_node n = *kn_opt_node(o, id);
    if (!kn_opt_is_op(&n, "BatchNormalization") || n.n_inputs != 5 || n.n_outputs < 1 ||
        n.outputs[0] < 0 || n.outputs[0] >= L->n_values || kn_attr_int(&n, "training_mode", 0))
        return KN_OK;
    for (int32_t j = 1; j < n.n_outputs; j++)
        if (n.outputs[j] >= 0)
            return KN_OK; /* running statistics asked for */
    int32_t x = n.inputs[0];
    if (x < 0 || !moved(L, x))
        return KN_OK;
    int64_t count = 0;
    if (!kn_opt_const_floats(o, n.inputs[1], &count) || count <= 0)
        return KN_OK;
    const float *scale = bn_param(o, &n, 1, count), *bias = bn_param(o, &n, 2, count);
    const float *mean = bn_param(o, &n, 3, count), *var = bn_param(o, &n, 4, count);
    if (!scale || !bias || !mean || !var)
        return KN_OK;
    float eps = kn_attr_float(&n, "epsilon", 1e-5f);
    float *s = malloc(sizeof(float) * 2 * (size_t)count);
    if (!s)
        return kn_opt_oom(o);
    float *t = s + count;
    for (int64_t c = 0; c < count; c++) {
        s[c] = scale[c] / sqrtf(var[c] + eps);
        t[c] = bias[c] - mean[c] * s[c];
    }
    const char *name = kn_opt_value(o, n.outputs[0])->name;
    int32_t sv = channel_const(o, name, s, count), tv = channel_const(o, name, t, count);
    free(s);
    int32_t mid = kn_opt_add_value(o, name, KN_FLOAT);
    if (sv < 0 || tv < 0 || mid < 0)
        return kn_opt_oom(o);
    int32_t mul_in[2] = {L->nhwc[x], sv}, add_in[2] = {mid, tv};
    if (kn_opt_add_node(o, id, "Mul", "", mul_in, 2, &mid, 1, NULL, 0) < 0)
        return o->err->code;
    return replace(L, id, "Add", "", add_in, 2, NULL, 0);
}

int kn_pass_layout_nhwc(kn_opt *o)
{
    /* Runs only when the oneDNN backend is usable for the model (its passes
     * are skipped otherwise): without oneDNN, NHWC would only cost transposes. */
    layout L = {.o = o, .n_values = o->g->n_values};
    size_t nv = (size_t)(L.n_values ? L.n_values : 1);
    L.nhwc = malloc(sizeof *L.nhwc * nv);
    L.moved = calloc(nv, 1);
    if (!L.nhwc || !L.moved) {
        free(L.nhwc);
        free(L.moved);
        return kn_opt_oom(o);
    }
    for (int32_t v = 0; v < L.n_values; v++)
        L.nhwc[v] = -1;
    int rc = KN_OK, converted = 0;
    int32_t n_orig = o->n_orig;
    for (int32_t id = 0; rc == KN_OK && id < n_orig; id++) {
        if (!kn_opt_live(o, id))
            continue;
        const char *pool_op = NULL;
        if (do_model_transpose(&L, id)) {
            continue;
        } else if (convert_conv(&L, id) || convert_qconv(&L, id)) {
            if (!converted++ && (rc = kn_opt_import_kiln(o)) != KN_OK)
                break;
            const kn_node *c = kn_opt_node(o, id);
            rc = kn_opt_is_op(c, "QLinearConv") || is_kiln(c, "QFusedConv") ? do_qconv(&L, id)
                                                                            : do_conv(&L, id);
        } else if (convert_pool(&L, id, &pool_op)) {
            kn_node n = *kn_opt_node(o, id);
            int32_t x = L.nhwc[n.inputs[0]];
            rc = replace(&L, id, pool_op, KN_OPT_DOMAIN_NAME, &x, 1, n.attrs, n.n_attrs);
        } else if (kn_opt_is_op(kn_opt_node(o, id), "BatchNormalization")) {
            rc = do_batchnorm(&L, id);
        } else if (is_kiln(kn_opt_node(o, id), "QAdd") ||
                   is_kiln(kn_opt_node(o, id), "QMulFloat")) {
            rc = do_qadd(&L, id);
        } else {
            rc = do_elementwise(&L, id);
        }
    }
    /* NCHW forms where something still reads them */
    for (int32_t v = 0; rc == KN_OK && v < L.n_values; v++) {
        if (!L.moved[v] || (kn_opt_use_count(o, v) == 0 && !kn_opt_is_observed(o, v)))
            continue;
        int32_t anchor = kn_opt_value(o, v)->producer;
        if (add_transpose(&L, anchor >= 0 ? anchor : 0, L.nhwc[v], v, to_nchw_perm) < 0)
            rc = o->err->code ? o->err->code : KN_ERR_OUT_OF_MEMORY;
    }
    free(L.nhwc);
    free(L.moved);
    return rc;
}
