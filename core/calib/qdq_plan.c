#include "core/calib/qdq_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Building state: per value, whether it is quantized (and its parameters'
 * index), and the growing lists the spec and report point into. */
typedef struct builder {
    const kn_graph *g;
    kn_hist_lookup hist_of;
    void *ctx;
    const kn_qdq_settings *set;
    kn_bump *bump;
    int32_t *act_of;    /* per value: index in acts, -1 */
    int32_t *weight_of; /* per value: index in weights, -1 */
    int32_t *consumers; /* per value: how many node inputs read it */
    kn_qdq_activation *acts;
    kn_qdq_weight *weights;
    kn_qdq_report *report;
    int32_t n_acts, n_weights, n_report;
    kn_err *err;
} builder;

static int is_op(const kn_node *n, const char *op)
{
    return !n->domain[0] && !strcmp(n->op_type, op);
}

static int keeps_float(const builder *b, const kn_node *n)
{
    for (int32_t i = 0; i < b->set->n_keep_float; i++)
        if (!strcmp(b->set->keep_float[i], n->name) || !strcmp(b->set->keep_float[i], n->op_type))
            return 1;
    return 0;
}

static int name_taken(const builder *b, const char *name)
{
    for (int32_t v = 0; v < b->g->n_values; v++)
        if (!strcmp(b->g->values[v].name, name))
            return 1;
    for (int32_t i = 0; i < b->n_acts; i++) {
        const kn_qdq_activation *a = &b->acts[i];
        if (!strcmp(a->quantized, name) || !strcmp(a->dequantized, name) ||
            !strcmp(a->scale_name, name) || !strcmp(a->zero_point_name, name))
            return 1;
    }
    for (int32_t i = 0; i < b->n_weights; i++) {
        const kn_qdq_weight *w = &b->weights[i];
        if (!strcmp(w->quantized_name, name) || !strcmp(w->scale_name, name) ||
            !strcmp(w->zero_point_name, name))
            return 1;
    }
    return 0;
}

/* base + suffix, with a number added until no value of the model (nor
 * anything added so far) has the name. */
static const char *fresh_name(builder *b, const char *base, const char *suffix)
{
    size_t cap = strlen(base) + strlen(suffix) + 24;
    char *s = kn_bump_alloc(b->bump, cap);
    if (!s)
        return NULL;
    snprintf(s, cap, "%s%s", base, suffix);
    for (int k = 1; name_taken(b, s); k++)
        snprintf(s, cap, "%s%s_%d", base, suffix, k);
    return s;
}

static kn_qdq_report *add_report(builder *b, const char *name, int kind)
{
    kn_qdq_report *r = &b->report[b->n_report++];
    *r = (kn_qdq_report){.name = name, .kind = kind};
    return r;
}

/* Quantizes activation value v when it is a computed float tensor that
 * calibration saw; returns its index in acts, -1 (left float) or -2 (an
 * error, in b->err). */
static int32_t quantize_act(builder *b, int32_t v)
{
    if (v < 0)
        return -1;
    if (b->act_of[v] >= 0)
        return b->act_of[v];
    const kn_value *val = &b->g->values[v];
    /* Constants are weights or stay float; the model's outputs stay float
     * too (the user reads them, and an integer kernel can write float). */
    if (val->is_initializer || val->is_graph_output)
        return -1;
    /* Only float tensors were tapped (the file rarely declares the dtype of
     * an intermediate value, so the histogram is what says float). */
    const kn_calib_hist *h = b->hist_of(b->ctx, val->name);
    if (!h || h->count == 0)
        return -1;
    kn_quant_params q;
    if (kn_calib_choose(h, b->set->method, b->set->percentile, b->set->symmetric, &q, b->err))
        return -2;
    kn_qdq_activation *a = &b->acts[b->n_acts];
    *a = (kn_qdq_activation){.name = val->name,
                             .scale = q.scale,
                             .zero_point = q.zero_point,
                             .dtype = b->set->symmetric ? KN_INT8 : KN_UINT8};
    a->quantized = fresh_name(b, val->name, "_quantized");
    a->dequantized = fresh_name(b, val->name, "_dequantized");
    a->scale_name = fresh_name(b, val->name, "_scale");
    a->zero_point_name = fresh_name(b, val->name, "_zero_point");
    a->node_stem = val->name;
    if (!a->quantized || !a->dequantized || !a->scale_name || !a->zero_point_name) {
        kn_fail(b->err, KN_ERR_OUT_OF_MEMORY, "out of memory planning the quantization");
        return -2;
    }
    kn_qdq_report *r = add_report(b, val->name, KN_QDQ_ACTIVATION);
    r->min = h->min;
    r->max = h->max;
    r->threshold = fmax(-q.lo, q.hi);
    r->scale = q.scale;
    r->zero_point = q.zero_point;
    r->sqnr_db = kn_calib_sqnr_db(h, &q);
    r->nonfinite = h->nonfinite;
    b->act_of[v] = b->n_acts;
    return b->n_acts++;
}

/* Activation dst takes src's scale and zero point (the report says so,
 * with dst's own SQNR under them), so an op between the two moves 8-bit
 * values unchanged and an integer runtime needs no requantization there. */
static void share_params(builder *b, int32_t dst, int32_t src)
{
    kn_qdq_activation *d = &b->acts[dst];
    const kn_qdq_activation *s = &b->acts[src];
    if (d == s || d->dtype != s->dtype)
        return;
    d->scale = s->scale;
    d->zero_point = s->zero_point;
    for (int32_t i = 0; i < b->n_report; i++) {
        kn_qdq_report *r = &b->report[i];
        if (r->kind != KN_QDQ_ACTIVATION || strcmp(r->name, d->name) != 0)
            continue;
        const kn_calib_hist *h = b->hist_of(b->ctx, d->name);
        int32_t qmin = d->dtype == KN_INT8 ? -128 : 0, qmax = d->dtype == KN_INT8 ? 127 : 255;
        kn_quant_params q = {.lo = (qmin - d->zero_point) * (double)d->scale,
                             .hi = (qmax - d->zero_point) * (double)d->scale,
                             .scale = d->scale,
                             .zero_point = d->zero_point,
                             .qmin = qmin,
                             .qmax = qmax};
        r->scale = d->scale;
        r->zero_point = d->zero_point;
        r->threshold = fmax(-q.lo, q.hi);
        if (h)
            r->sqnr_db = kn_calib_sqnr_db(h, &q);
    }
}

/* Channel c of a weight quantized along `axis`: the elements at
 * [outer][c][inner]. */
typedef struct channel_walk {
    int64_t outer, channels, inner;
} channel_walk;

static channel_walk walk_of(const kn_value *w, int32_t axis)
{
    channel_walk cw = {1, 1, 1};
    for (int32_t d = 0; d < w->rank; d++) {
        if (d < axis)
            cw.outer *= w->dims[d];
        else if (d == axis)
            cw.channels = w->dims[d];
        else
            cw.inner *= w->dims[d];
    }
    return cw;
}

/* How far a constant moved when quantized: for its report line. */
typedef struct const_error {
    double signal, noise, lo, hi;
} const_error;

static void const_error_add(const_error *e, double value, double dequantized)
{
    e->signal += value * value;
    e->noise += (value - dequantized) * (value - dequantized);
    e->lo = fmin(e->lo, value);
    e->hi = fmax(e->hi, value);
}

/* Records constant v's replacement by `quantized` (one scale per channel
 * along axis) in the spec and the report. Returns its index in weights, or
 * -2 (out of memory, in b->err). */
static int32_t add_replacement(builder *b, int32_t v, int kind, kn_tensor quantized,
                               const float *scales, int64_t n_scales, int32_t axis,
                               const const_error *e)
{
    const kn_value *val = &b->g->values[v];
    kn_qdq_weight *w = &b->weights[b->n_weights];
    *w = (kn_qdq_weight){.name = val->name,
                         .quantized = quantized,
                         .scales = scales,
                         .n_scales = (int32_t)n_scales,
                         .axis = axis};
    w->quantized_name = fresh_name(b, val->name, "_quantized");
    w->scale_name = fresh_name(b, val->name, "_scale");
    w->zero_point_name = fresh_name(b, val->name, "_zero_point");
    w->node_name = fresh_name(b, val->name, "_DequantizeLinear");
    if (!w->quantized_name || !w->scale_name || !w->zero_point_name || !w->node_name) {
        kn_fail(b->err, KN_ERR_OUT_OF_MEMORY, "out of memory planning the quantization");
        return -2;
    }
    kn_qdq_report *r = add_report(b, val->name, kind);
    r->min = e->lo;
    r->max = e->hi;
    r->threshold = fmax(-e->lo, e->hi);
    r->scale = scales[0];
    r->sqnr_db = e->noise > 0 ? 10 * log10(e->signal / e->noise) : INFINITY;
    b->weight_of[v] = b->n_weights;
    return b->n_weights++;
}

/* Replaces constant weight v by int8 symmetric per channel along axis,
 * over [-qmax, qmax]: 127 (-128 left out, so that the range is symmetric),
 * or 63, where two products of a uint8 and a weight always fit a 16-bit
 * sum (255 x 126 < 2^15: VPMADDUBSW without VNNI). Returns the weight's
 * index, -1 when it stays float (shared by other nodes, not a float
 * constant). */
static int32_t quantize_weight(builder *b, int32_t v, int32_t axis, int qmax)
{
    if (v < 0)
        return -1;
    const kn_value *val = &b->g->values[v];
    if (!val->is_initializer || !val->init_data || val->dtype != KN_FLOAT || val->rank < 1 ||
        axis >= val->rank || b->consumers[v] != 1 || b->weight_of[v] >= 0)
        return -1;
    channel_walk cw = walk_of(val, axis);
    const float *w = val->init_data;
    int64_t n = cw.outer * cw.channels * cw.inner;
    float *scales = kn_bump_alloc(b->bump, sizeof *scales * (size_t)cw.channels);
    int8_t *q = kn_bump_alloc_uninit(b->bump, (size_t)n);
    if (!scales || !q) {
        kn_fail(b->err, KN_ERR_OUT_OF_MEMORY, "out of memory quantizing '%s'", val->name);
        return -2;
    }
    const_error e = {0};
    for (int64_t c = 0; c < cw.channels; c++) {
        float amax = 0;
        for (int64_t o = 0; o < cw.outer; o++)
            for (int64_t i = 0; i < cw.inner; i++)
                amax = fmaxf(amax, fabsf(w[(o * cw.channels + c) * cw.inner + i]));
        scales[c] = amax > 0 ? amax / (float)qmax : 1.0f;
        for (int64_t o = 0; o < cw.outer; o++)
            for (int64_t i = 0; i < cw.inner; i++) {
                int64_t at = (o * cw.channels + c) * cw.inner + i;
                float r = nearbyintf(w[at] / scales[c]);
                q[at] = (int8_t)fminf((float)qmax, fmaxf((float)-qmax, r));
                const_error_add(&e, w[at], q[at] * (double)scales[c]);
            }
    }
    kn_tensor quantized = {.dtype = KN_INT8, .rank = val->rank, .data = q};
    memcpy(quantized.dims, val->dims, sizeof val->dims);
    return add_replacement(b, v, KN_QDQ_WEIGHT, quantized, scales, cw.channels, axis, &e);
}

/* Replaces a constant 1-D bias by int32 with scale input scale x weight
 * scale per channel, zero point 0: what an integer kernel adds to its
 * int32 accumulators as it is. */
static int quantize_bias(builder *b, int32_t v, float input_scale, const kn_qdq_weight *weight)
{
    if (v < 0)
        return KN_OK;
    const kn_value *val = &b->g->values[v];
    if (!val->is_initializer || !val->init_data || val->dtype != KN_FLOAT || val->rank != 1 ||
        val->dims[0] != weight->n_scales || b->consumers[v] != 1 || b->weight_of[v] >= 0)
        return KN_OK;
    int64_t n = val->dims[0];
    float *scales = kn_bump_alloc(b->bump, sizeof *scales * (size_t)n);
    int32_t *q = kn_bump_alloc(b->bump, sizeof *q * (size_t)n);
    if (!scales || !q)
        return kn_fail(b->err, KN_ERR_OUT_OF_MEMORY, "out of memory quantizing '%s'", val->name);
    const float *bias = val->init_data;
    const_error e = {0};
    for (int64_t c = 0; c < n; c++) {
        scales[c] = input_scale * weight->scales[c];
        double r = nearbyint(bias[c] / scales[c]);
        q[c] = (int32_t)fmin(2147483647.0, fmax(-2147483647.0, r));
        const_error_add(&e, bias[c], q[c] * (double)scales[c]);
    }
    kn_tensor quantized = {.dtype = KN_INT32, .rank = 1, .dims = {n}, .data = q};
    return add_replacement(b, v, KN_QDQ_BIAS, quantized, scales, n, 0, &e) == -2 ? b->err->code
                                                                                 : KN_OK;
}

/* The single consumer of value v, when there is exactly one (and v is not
 * a graph output), else NULL. */
static const kn_node *only_consumer(const builder *b, int32_t v)
{
    if (b->consumers[v] != 1 || b->g->values[v].is_graph_output)
        return NULL;
    for (int32_t i = 0; i < b->g->n_nodes; i++) {
        const kn_node *n = &b->g->nodes[i];
        for (int32_t j = 0; j < n->n_inputs; j++)
            if (n->inputs[j] == v)
                return n;
    }
    return NULL;
}

/* Whether node n, reading value v, runs on 8-bit values when v is
 * quantized: what an integer runtime has kernels for. An Add only when its
 * other operand comes from such a producer too (a CNN's residual, not a
 * transformer's bias or its residual around a LayerNorm), so that a value
 * gets Q/DQ only where the pair buys integer work, not two more passes
 * over memory between float ops. */
static int integer_producer(const builder *b, int32_t v)
{
    const kn_graph *g = b->g;
    if (v < 0 || g->values[v].is_initializer || g->values[v].producer < 0)
        return 0;
    const kn_node *p = &g->nodes[g->values[v].producer];
    static const char *const ops[] = {"Conv", "Relu", "Clip", "MaxPool", "Concat", "Add",
                                      "AveragePool", "GlobalAveragePool", NULL};
    for (const char *const *op = ops; *op; op++)
        if (is_op(p, *op))
            return 1;
    return 0;
}

static int integer_consumer(const builder *b, const kn_node *n, int32_t v)
{
    if (keeps_float(b, n))
        return 0;
    static const char *const ops[] = {"Conv", "Concat", "MaxPool", "AveragePool",
                                      "GlobalAveragePool", "Reshape", "Flatten", "Transpose",
                                      "Squeeze", "Unsqueeze", "Relu", "Clip", NULL};
    for (const char *const *op = ops; *op; op++)
        if (is_op(n, *op))
            return 1;
    if ((is_op(n, "MatMul") || is_op(n, "Gemm")) && n->inputs[0] == v && n->n_inputs > 1 &&
        n->inputs[1] >= 0 && b->g->values[n->inputs[1]].is_initializer)
        return 1;
    if (is_op(n, "Add") && n->n_inputs == 2) {
        int32_t other = n->inputs[0] == v ? n->inputs[1] : n->inputs[0];
        return integer_producer(b, other);
    }
    return 0;
}

/* Some node reading v runs on 8-bit values. */
static int read_by_integer_op(const builder *b, int32_t v)
{
    for (int32_t i = 0; i < b->g->n_nodes; i++) {
        const kn_node *n = &b->g->nodes[i];
        for (int32_t j = 0; j < n->n_inputs; j++)
            if (n->inputs[j] == v && integer_consumer(b, n, v))
                return 1;
    }
    return 0;
}

/* Conv, Gemm, MatMul: activation in, weights, bias, and the output (after
 * a Relu or Clip that alone reads it) when an integer op reads it. A
 * MatMul of two computed tensors (attention's) stays float: no integer
 * kernel serves it, so its Q/DQ pairs would only cost. */
static int plan_compute(builder *b, const kn_node *n)
{
    if ((is_op(n, "MatMul") || is_op(n, "Gemm")) &&
        (n->n_inputs < 2 || n->inputs[1] < 0 || !b->g->values[n->inputs[1]].is_initializer))
        return KN_OK;
    int32_t x = quantize_act(b, n->inputs[0]);
    if (x == -2)
        return b->err->code;
    if (x < 0)
        return KN_OK; /* the input stays float: so does the node */
    int32_t w_axis = 0;
    if (is_op(n, "Gemm"))
        w_axis = kn_attr_int(n, "transB", 0) ? 0 : 1;
    else if (is_op(n, "MatMul"))
        w_axis = 1;
    int32_t wv = n->n_inputs > 1 ? n->inputs[1] : -1;
    int matmul_b_2d = is_op(n, "MatMul") && wv >= 0 && b->g->values[wv].rank == 2;
    int32_t w = (!is_op(n, "MatMul") || matmul_b_2d) ? quantize_weight(b, wv, w_axis, b->set->weight_qmax == 63 ? 63 : 127) : -1;
    if (w == -2)
        return b->err->code;
    if (w >= 0 && n->n_inputs > 2 && !is_op(n, "MatMul") &&
        quantize_bias(b, n->inputs[2], b->acts[x].scale, &b->weights[w]) != KN_OK)
        return b->err->code;
    int32_t out = n->outputs[0];
    const kn_node *next = out >= 0 ? only_consumer(b, out) : NULL;
    if (next && (is_op(next, "Relu") || is_op(next, "Clip")) && !keeps_float(b, next)) {
        out = next->outputs[0];
        next = only_consumer(b, out);
    }
    if (out < 0 || !read_by_integer_op(b, out))
        return KN_OK;
    return quantize_act(b, out) == -2 ? b->err->code : KN_OK;
}

/* Concat: the output is quantized, and each input read by the Concat
 * alone takes the output's parameters (its values all lie in the output's
 * range), so the integer Concat copies bytes. */
static int plan_concat(builder *b, const kn_node *n)
{
    int32_t out = quantize_act(b, n->outputs[0]);
    if (out == -2)
        return b->err->code;
    for (int32_t j = 0; j < n->n_inputs; j++) {
        int32_t in = quantize_act(b, n->inputs[j]);
        if (in == -2)
            return b->err->code;
        if (in >= 0 && out >= 0 && b->consumers[n->inputs[j]] == 1)
            share_params(b, in, out);
    }
    return KN_OK;
}

static int plan_node(builder *b, const kn_node *n)
{
    if (n->n_inputs < 1 || n->n_outputs < 1 || keeps_float(b, n))
        return KN_OK;
    if (is_op(n, "Conv") || is_op(n, "Gemm") || is_op(n, "MatMul"))
        return plan_compute(b, n);
    if (is_op(n, "Concat"))
        return plan_concat(b, n);
    /* an Add of two quantized values (a residual between convolutions);
     * any other Add stays float */
    if (is_op(n, "Add") && (n->n_inputs != 2 || n->inputs[0] < 0 || n->inputs[1] < 0 ||
                            b->act_of[n->inputs[0]] < 0 || b->act_of[n->inputs[1]] < 0))
        return KN_OK;
    static const char *const both_sides[] = {"Add", "AveragePool", "GlobalAveragePool"};
    for (size_t k = 0; k < sizeof both_sides / sizeof *both_sides; k++)
        if (is_op(n, both_sides[k])) {
            for (int32_t j = 0; j < n->n_inputs; j++)
                if (quantize_act(b, n->inputs[j]) == -2)
                    return b->err->code;
            /* a residual Add's Relu folds into its output, as a Conv's */
            int32_t out = n->outputs[0];
            const kn_node *next = is_op(n, "Add") ? only_consumer(b, out) : NULL;
            if (next && is_op(next, "Relu") && !keeps_float(b, next))
                out = next->outputs[0];
            return quantize_act(b, out) == -2 ? b->err->code : KN_OK;
        }
    /* Data movement and MaxPool pass values through unchanged: their
     * output shares the input's parameters. Relu and Clip get their own
     * (their range is the non-negative part of the input's). */
    static const char *const same_values[] = {"MaxPool", "Reshape", "Flatten",
                                              "Transpose", "Squeeze", "Unsqueeze"};
    static const char *const follow_input[] = {"Relu", "Clip"};
    int32_t in = n->inputs[0] >= 0 ? b->act_of[n->inputs[0]] : -1;
    for (size_t k = 0; in >= 0 && k < sizeof same_values / sizeof *same_values; k++)
        if (is_op(n, same_values[k])) {
            int32_t out = quantize_act(b, n->outputs[0]);
            if (out == -2)
                return b->err->code;
            if (out >= 0)
                share_params(b, out, in);
            return KN_OK;
        }
    for (size_t k = 0; in >= 0 && k < sizeof follow_input / sizeof *follow_input; k++)
        if (is_op(n, follow_input[k]))
            return quantize_act(b, n->outputs[0]) == -2 ? b->err->code : KN_OK;
    return KN_OK;
}

int kn_qdq_plan_build(const kn_graph *g, kn_hist_lookup hist_of, void *ctx,
                      const kn_qdq_settings *settings, kn_qdq_plan *out, kn_err *err)
{
    *out = (kn_qdq_plan){0};
    builder b = {.g = g, .hist_of = hist_of, .ctx = ctx, .set = settings, .err = err};
    b.bump = kn_bump_create();
    size_t nv = (size_t)g->n_values + 1;
    if (b.bump) {
        b.act_of = kn_bump_alloc(b.bump, sizeof *b.act_of * nv);
        b.weight_of = kn_bump_alloc(b.bump, sizeof *b.weight_of * nv);
        b.consumers = kn_bump_alloc(b.bump, sizeof *b.consumers * nv);
        /* Each value is quantized at most once, as one of the three. */
        b.acts = kn_bump_alloc(b.bump, sizeof *b.acts * nv);
        b.weights = kn_bump_alloc(b.bump, sizeof *b.weights * nv);
        b.report = kn_bump_alloc(b.bump, sizeof *b.report * nv);
    }
    if (!b.bump || !b.act_of || !b.weight_of || !b.consumers || !b.acts || !b.weights ||
        !b.report) {
        kn_bump_destroy(b.bump);
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory planning the quantization");
    }
    for (size_t v = 0; v < nv; v++)
        b.act_of[v] = b.weight_of[v] = -1;
    for (int32_t i = 0; i < g->n_nodes; i++)
        for (int32_t j = 0; j < g->nodes[i].n_inputs; j++)
            if (g->nodes[i].inputs[j] >= 0)
                b.consumers[g->nodes[i].inputs[j]]++;
    int rc = KN_OK;
    for (int32_t i = 0; i < g->n_nodes && rc == KN_OK; i++)
        rc = plan_node(&b, &g->nodes[i]);
    if (rc != KN_OK) {
        kn_bump_destroy(b.bump);
        return rc;
    }
    out->bump = b.bump;
    out->spec = (kn_qdq_spec){.acts = b.acts,
                              .n_acts = b.n_acts,
                              .weights = b.weights,
                              .n_weights = b.n_weights,
                              .keep_float = settings->keep_float,
                              .n_keep_float = settings->n_keep_float};
    out->report = b.report;
    out->n_report = b.n_report;
    return KN_OK;
}

void kn_qdq_plan_free(kn_qdq_plan *plan)
{
    if (plan) {
        kn_bump_destroy(plan->bump);
        *plan = (kn_qdq_plan){0};
    }
}
