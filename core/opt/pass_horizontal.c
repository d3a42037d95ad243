/* Horizontal fusion: sibling products that read the same activation X with
 * constant weights, such as a transformer layer's Q, K and V projections,
 * become one product over the weights joined along N (output columns or
 * channels) and a Split that hands each former consumer its slice:
 *
 *   MatMul(X, W_i) [+ b_i] and Gemm(X, W_i, C_i) (transA 0, alpha 1, beta 1)
 *     -> MatMul(X, [W_1 .. W_n]) + [b_1 .. b_n] -> Split(last axis)
 *   1x1 Conv(X, W_i, B_i) (group 1, stride 1, no padding)
 *     -> Conv(X, [W_1; ..; W_n], [B_1; ..; B_n]) -> Split(axis 1)
 *
 * One wide product keeps the cores busier and reads X once instead of n
 * times. A MatMul's bias Add is taken in when the product's output is
 * private to it; siblings without a bias get zeros (x + 0 is x). The merged
 * MatMul + Add then becomes a kiln.FusedMatMul in the next pass. The Split
 * writes the siblings' own output values, so names and graph outputs stay.
 * Weights must be 2-D float constants (Conv: (M, C, 1, ..., 1)) with the
 * same K; at least two siblings must qualify. A product whose result goes
 * on into an activation (or, for Conv, an Add) stays as it is: the fusion
 * passes put that into its epilogue, which merging would give up. The joined weights are a new
 * initializer in the model's pool (the old ones stay there unread); when the
 * model memory limit has no room for it, the siblings are left alone. */
#include <string.h>

#include "core/opt/activation_match.h"
#include "core/opt/passes.h"

enum { MAX_SIBLINGS = 64 }; /* the Split kernel's output limit */

typedef enum { FAMILY_DENSE, FAMILY_CONV } sib_family;

typedef struct sibling {
    int32_t node, bias_add;  /* bias_add: MatMul's private bias Add, or -1 */
    int32_t weight, bias;    /* bias: float constant of n values, or -1 */
    int trans_b;             /* weight stored (N, K) (Gemm transB) */
    sib_family family;
    int32_t w_rank;          /* Conv: the weight's rank (spatial rank + 2) */
    int is_gemm;
    int64_t k, n;
    int32_t out;             /* the value the Split writes */
} sibling;

/* v is a float constant of exactly n values. */
static int const_of(kn_opt *o, int32_t v, int64_t n)
{
    int64_t count;
    return v >= 0 && kn_opt_const_floats(o, v, &count) && count == n;
}

/* The Add reading only v (a MatMul output) with a 1-D constant of n floats. */
static void take_bias_add(kn_opt *o, sibling *s, int32_t v)
{
    int32_t id;
    if (!kn_opt_is_private(o, v) || kn_opt_consumers(o, v, &id, 1) != 1)
        return;
    const kn_node *add = kn_opt_node(o, id);
    if (!kn_opt_is_op(add, "Add") || add->n_inputs != 2 || add->n_outputs != 1 ||
        add->outputs[0] < 0)
        return;
    int32_t b = add->inputs[0] == v ? add->inputs[1] : add->inputs[0];
    if (b == v || !const_of(o, b, s->n) || kn_opt_value(o, b)->rank != 1)
        return;
    s->bias_add = id;
    s->bias = b;
    s->out = add->outputs[0];
}

/* Ints attribute `name` absent or every entry equal to v. */
static int ints_all(const kn_node *n, const char *name, int64_t v)
{
    int32_t count;
    const int64_t *ints = kn_attr_ints(n, name, &count);
    for (int32_t i = 0; ints && i < count; i++)
        if (ints[i] != v)
            return 0;
    return 1;
}

static int classify_dense(kn_opt *o, const kn_node *n, sibling *s)
{
    const kn_value *w = kn_opt_value(o, n->inputs[1]);
    s->is_gemm = kn_opt_is_op(n, "Gemm");
    if (s->is_gemm) {
        if (n->n_inputs > 3 || kn_attr_int(n, "transA", 0) != 0 ||
            kn_attr_float(n, "alpha", 1.0f) != 1.0f)
            return 0;
        s->trans_b = kn_attr_int(n, "transB", 0) != 0;
    } else if (n->n_inputs != 2) {
        return 0;
    }
    if (w->rank != 2 || !const_of(o, n->inputs[1], w->dims[0] * w->dims[1]))
        return 0;
    s->k = w->dims[s->trans_b ? 1 : 0];
    s->n = w->dims[s->trans_b ? 0 : 1];
    if (s->is_gemm && n->n_inputs == 3 && n->inputs[2] >= 0) {
        /* C must be a per-column bias: (N) or (1, N) */
        const kn_value *c = kn_opt_value(o, n->inputs[2]);
        if (kn_attr_float(n, "beta", 1.0f) != 1.0f || !const_of(o, n->inputs[2], s->n) ||
            !(c->rank == 1 || (c->rank == 2 && c->dims[0] == 1)))
            return 0;
        s->bias = n->inputs[2];
    }
    if (!s->is_gemm)
        take_bias_add(o, s, n->outputs[0]);
    return 1;
}

static int classify_conv(kn_opt *o, const kn_node *n, sibling *s)
{
    const kn_value *w = kn_opt_value(o, n->inputs[1]);
    if (n->n_inputs > 3 || w->rank < 3 || kn_attr_int(n, "group", 1) != 1 ||
        !ints_all(n, "strides", 1) || !ints_all(n, "pads", 0))
        return 0;
    int64_t count = w->dims[0] * w->dims[1];
    for (int32_t d = 2; d < w->rank; d++)
        if (w->dims[d] != 1)
            return 0;
    if (!const_of(o, n->inputs[1], count))
        return 0;
    /* With a 1x1 kernel and stride 1 every auto_pad mode pads nothing. */
    s->family = FAMILY_CONV;
    s->w_rank = w->rank;
    s->n = w->dims[0];
    s->k = w->dims[1];
    if (n->n_inputs == 3 && n->inputs[2] >= 0) {
        if (!const_of(o, n->inputs[2], s->n))
            return 0;
        s->bias = n->inputs[2];
    }
    return 1;
}

/* The product's result feeds what the matrix / conv fusions would take
 * into its epilogue: an activation, or for Conv a residual Add. Merging
 * would trade that epilogue for a separate pass over each slice. */
static int has_epilogue(kn_opt *o, const sibling *s)
{
    kn_act_match m;
    int32_t id;
    if (kn_opt_match_activation(o, s->out, &m))
        return 1;
    return s->family == FAMILY_CONV && kn_opt_is_private(o, s->out) &&
           kn_opt_consumers(o, s->out, &id, 1) == 1 && kn_opt_is_op(kn_opt_node(o, id), "Add");
}

/* Node id, reading x as input 0, as a sibling. */
static int classify(kn_opt *o, int32_t id, int32_t x, sibling *s)
{
    const kn_node *n = kn_opt_node(o, id);
    memset(s, 0, sizeof *s);
    s->node = id;
    s->bias_add = s->bias = -1;
    if (!kn_opt_live(o, id) || n->n_inputs < 2 || n->inputs[0] != x || n->inputs[1] < 0 ||
        n->inputs[1] == x || n->n_outputs != 1 || n->outputs[0] < 0)
        return 0;
    s->weight = n->inputs[1];
    s->out = n->outputs[0];
    int ok = 0;
    if (kn_opt_is_op(n, "MatMul") || kn_opt_is_op(n, "Gemm"))
        ok = classify_dense(o, n, s);
    else if (kn_opt_is_op(n, "Conv"))
        ok = classify_conv(o, n, s);
    return ok && !has_epilogue(o, s);
}

static int same_group(const sibling *a, const sibling *b)
{
    return a->family == b->family && a->k == b->k && a->w_rank == b->w_rank;
}

/* A new float initializer whose bytes the caller fills: NULL (and nothing
 * added) when the model memory limit has no room for it. */
static float *new_weights(kn_opt *o, const char *hint, int32_t rank, const int64_t *dims,
                          int64_t count, int32_t *value)
{
    /* kn_bump_alloc, not kn_opt_alloc: running out here is no error */
    float *data = kn_bump_alloc(o->ir->bump, count ? (size_t)count * sizeof(float) : 1);
    if (!data)
        return NULL;
    int32_t v = kn_opt_add_value(o, hint, KN_FLOAT);
    if (v < 0)
        return NULL;
    kn_value *val = kn_opt_value(o, v);
    val->rank = rank;
    for (int32_t d = 0; d < rank; d++)
        val->dims[d] = dims[d];
    val->init_data = data;
    val->init_nbytes = count * (int64_t)sizeof(float);
    val->is_initializer = 1;
    *value = v;
    return data;
}

/* Joins the siblings' weights (as (K, N) for dense, (N, C, 1..) for conv)
 * and biases; -1 in *bias when none has one. Returns 0 when there is no
 * room (nothing changed but possibly unread values). */
static int join_constants(kn_opt *o, const sibling *sib, int32_t n_sib, int64_t total,
                          int32_t *weight, int32_t *bias)
{
    const sibling *s0 = &sib[0];
    const char *hint = kn_opt_value(o, s0->weight)->name;
    int64_t k = s0->k, dims[KN_MAX_RANK];
    int32_t rank = s0->family == FAMILY_CONV ? s0->w_rank : 2;
    for (int32_t d = 0; d < rank; d++)
        dims[d] = 1;
    dims[0] = s0->family == FAMILY_CONV ? total : k;
    dims[1] = s0->family == FAMILY_CONV ? k : total;
    float *w = new_weights(o, hint, rank, dims, k * total, weight);
    if (!w)
        return 0;
    int64_t col = 0, count;
    for (int32_t i = 0; i < n_sib; i++) {
        const sibling *s = &sib[i];
        /* initializer bytes need not be float-aligned: copy bytes */
        const char *src = (const char *)kn_opt_const_floats(o, s->weight, &count);
        if (s->family == FAMILY_CONV)
            memcpy(w + col * k, src, (size_t)(s->n * k) * sizeof(float));
        else if (!s->trans_b)
            for (int64_t r = 0; r < k; r++)
                memcpy(w + r * total + col, src + (size_t)(r * s->n) * sizeof(float),
                       (size_t)s->n * sizeof(float));
        else
            for (int64_t r = 0; r < k; r++)
                for (int64_t c = 0; c < s->n; c++)
                    memcpy(w + r * total + col + c, src + (size_t)(c * k + r) * sizeof(float),
                           sizeof(float));
        col += s->n;
    }
    *bias = -1;
    int any_bias = 0;
    for (int32_t i = 0; i < n_sib; i++)
        any_bias |= sib[i].bias >= 0;
    if (!any_bias)
        return 1;
    float *b = new_weights(o, hint, 1, &total, total, bias);
    if (!b)
        return 0;
    col = 0;
    for (int32_t i = 0; i < n_sib; i++) {
        if (sib[i].bias >= 0) /* pool memory is zeroed: no bias reads as 0 */
            memcpy(b + col, kn_opt_const_floats(o, sib[i].bias, &count),
                   (size_t)sib[i].n * sizeof(float));
        col += sib[i].n;
    }
    return 1;
}

/* The Split axis for the merged output, or KN_MAX_RANK when it cannot be
 * written (a negative axis needs opset 11; before, the rank must be known). */
static int64_t split_axis(kn_opt *o, const sibling *sib, int32_t n_sib, int32_t x)
{
    if (sib[0].family == FAMILY_CONV)
        return 1;
    if (kn_opt_opset(o) >= 11)
        return -1;
    for (int32_t i = 0; i < n_sib; i++)
        if (sib[i].is_gemm)
            return 1;
    int32_t rank = kn_opt_value(o, x)->rank;
    return rank < 0 ? KN_MAX_RANK : rank >= 2 ? rank - 1 : 0;
}

/* Split(y) into the siblings' outputs: sizes as an input from opset 13,
 * as the `split` attribute before. */
static int add_split(kn_opt *o, int32_t anchor, int32_t y, int64_t axis, const sibling *sib,
                     int32_t n_sib)
{
    int64_t sizes[MAX_SIBLINGS];
    int32_t outs[MAX_SIBLINGS];
    for (int32_t i = 0; i < n_sib; i++) {
        sizes[i] = sib[i].n;
        outs[i] = sib[i].out;
    }
    int new_form = kn_opt_opset(o) >= 13;
    kn_attr *attrs = kn_opt_attrs(o, new_form ? 1 : 2);
    int64_t *ints = new_form ? NULL : kn_opt_alloc(o, sizeof *ints * (size_t)n_sib);
    if (!attrs || (!new_form && !ints))
        return o->err->code;
    kn_opt_attr_int(&attrs[0], "axis", axis);
    int32_t inputs[2] = {y, -1};
    if (new_form) {
        int64_t n = n_sib;
        inputs[1] = kn_opt_add_initializer(o, kn_opt_value(o, y)->name, KN_INT64, 1, &n, sizes,
                                           sizeof sizes[0] * (size_t)n_sib);
        if (inputs[1] < 0)
            return o->err->code;
    } else {
        memcpy(ints, sizes, sizeof *ints * (size_t)n_sib);
        attrs[1] = (kn_attr){.name = "split", .type = KN_ATTR_INTS, .count = n_sib, .ints = ints};
    }
    return kn_opt_add_node(o, anchor, "Split", "", inputs, new_form ? 2 : 1, outs, n_sib, attrs,
                           new_form ? 1 : 2) < 0 ? o->err->code : KN_OK;
}

/* Replaces the group's products (and bias Adds) by one product + Split. */
static int merge(kn_opt *o, int32_t x, const sibling *sib, int32_t n_sib)
{
    int64_t total = 0;
    for (int32_t i = 0; i < n_sib; i++)
        total += sib[i].n;
    int64_t axis = split_axis(o, sib, n_sib, x);
    int32_t weight, bias;
    if (axis == KN_MAX_RANK || !join_constants(o, sib, n_sib, total, &weight, &bias))
        return o->err->code; /* KN_OK unless adding a value failed */
    const kn_node *first = kn_opt_node(o, sib[0].node);
    const char *hint = kn_opt_value(o, sib[0].out)->name;
    int32_t anchor = sib[0].node, y = kn_opt_add_value(o, hint, KN_FLOAT);
    if (y < 0)
        return o->err->code;
    for (int32_t i = 0; i < n_sib; i++) {
        kn_opt_remove(o, sib[i].node);
        if (sib[i].bias_add >= 0)
            kn_opt_remove(o, sib[i].bias_add);
    }
    int32_t inputs[3] = {x, weight, bias};
    if (sib[0].family == FAMILY_CONV) {
        /* Every sibling's attributes mean the same 1x1 convolution. */
        if (kn_opt_add_node(o, anchor, "Conv", "", inputs, bias >= 0 ? 3 : 2, &y, 1, first->attrs,
                            first->n_attrs) < 0)
            return o->err->code;
    } else {
        if (kn_opt_add_node(o, anchor, "MatMul", "", inputs, 2, &y, 1, NULL, 0) < 0)
            return o->err->code;
        if (bias >= 0) {
            int32_t yb = kn_opt_add_value(o, hint, KN_FLOAT);
            int32_t add_in[2] = {y, bias};
            if (yb < 0 || kn_opt_add_node(o, anchor, "Add", "", add_in, 2, &yb, 1, NULL, 0) < 0)
                return o->err->code;
            y = yb;
        }
    }
    return add_split(o, anchor, y, axis, sib, n_sib);
}

/* The products reading x, grouped by what can merge. */
static int fuse_readers_of(kn_opt *o, int32_t x)
{
    int32_t ids[MAX_SIBLINGS];
    sibling cand[MAX_SIBLINGS], group[MAX_SIBLINGS];
    int32_t n_ids = kn_opt_consumers(o, x, ids, MAX_SIBLINGS), n_cand = 0;
    if (n_ids > MAX_SIBLINGS)
        n_ids = MAX_SIBLINGS;
    for (int32_t i = 0; i < n_ids; i++)
        if (classify(o, ids[i], x, &cand[n_cand]))
            n_cand++;
    /* In graph order, so the joined weights keep the siblings' order. */
    for (int32_t i = 1; i < n_cand; i++)
        for (int32_t j = i; j > 0 && cand[j].node < cand[j - 1].node; j--) {
            sibling t = cand[j];
            cand[j] = cand[j - 1];
            cand[j - 1] = t;
        }
    uint8_t taken[MAX_SIBLINGS] = {0};
    for (int32_t i = 0; i < n_cand; i++) {
        if (taken[i])
            continue;
        int32_t n_group = 0;
        for (int32_t j = i; j < n_cand; j++)
            if (!taken[j] && same_group(&cand[i], &cand[j])) {
                taken[j] = 1;
                group[n_group++] = cand[j];
            }
        if (n_group < 2)
            continue;
        int rc = merge(o, x, group, n_group);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}

int kn_pass_horizontal(kn_opt *o)
{
    int32_t n_values = o->g->n_values; /* values the pass adds read nothing new */
    for (int32_t x = 0; x < n_values; x++) {
        const kn_value *v = kn_opt_value(o, x);
        if (v->is_initializer || v->kind != KN_KIND_TENSOR)
            continue;
        int rc = fuse_readers_of(o, x);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
