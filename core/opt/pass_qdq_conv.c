/* QDQ convolutions to QLinearConv, so they run as integer convolutions:
 *
 *   DequantizeLinear(xq) -> Conv(., DequantizeLinear(wq), DequantizeLinear(bq)?)
 *       -> (Relu | Clip)? -> QuantizeLinear -> yq
 *
 * becomes QLinearConv(xq, sx, zx, wq, sw, zw, sy, zy, bq) -> yq. This is the
 * shape every QDQ writer gives a quantized convolution (Kiln's calibrator,
 * ONNX Runtime's quantization tool, TensorRT's explicit-precision graphs),
 * and QLinearConv is the standard op that says "integer convolution with
 * requantization": every backend with an int8 convolution serves it, and
 * QOperator models arrive with it already.
 *
 * It runs before constant folding, which would otherwise fold the weights'
 * DequantizeLinear into float weights and lose the int8 ones.
 *
 * A Relu or Clip between them goes where quantization already clips:
 * QuantizeLinear saturates to [qmin, qmax], so Relu is exact when y's zero
 * point is qmin (real 0 is the lowest code), and Clip(lo, hi) when lo
 * quantizes to qmin or below and hi to qmax or above (a Relu6 calibrated to
 * [0, 6]). Any other activation (activation_match.h: SiLU as x * Sigmoid(x),
 * HardSwish, a Clip inside the range, ...) stays, in kiln.QFusedConv's
 * `activation` (core/cpu/quant/qlinear.c): applied to the real result
 * before the requantization, as the graph does, so EfficientNet's
 * convolutions run on integers too instead of in float between a
 * DequantizeLinear and a QuantizeLinear. A bias whose scale is not
 * sx * sw leaves the node alone: the float graph still runs it, only
 * slower. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/opt/activation_match.h"
#include "core/opt/passes.h"
#include "core/opt/qdq_match.h"

/* Weights: DequantizeLinear of an int8 initializer [O, I/g, kh, kw...],
 * per tensor or per output channel (axis 0), zero points all 0. */
static int32_t dq_weights(kn_opt *o, int32_t v, kn_qparams *q, int32_t *wq)
{
    int32_t id = kn_opt_producer_op(o, v, "DequantizeLinear");
    if (id < 0)
        return -1;
    const kn_node *n = kn_opt_node(o, id);
    if (n->inputs[0] < 0 || !kn_qdq_read_params(o, n, 1, q))
        return -1;
    const kn_value *w = kn_opt_value(o, n->inputs[0]);
    const kn_value *s = kn_opt_value(o, q->scale);
    int64_t channels = kn_shape_numel(s->dims, s->rank);
    if (!w->is_initializer || w->dtype != KN_INT8 || w->rank < 3 ||
        (channels > 1 && (kn_attr_int(n, "axis", 1) != 0 || channels != w->dims[0])))
        return -1;
    if (q->zero >= 0) {
        const kn_value *z = kn_opt_value(o, q->zero);
        for (int64_t i = 0; i < channels; i++)
            if (kn_qdq_int8_value(z, i) != 0)
                return -1;
    }
    *wq = n->inputs[0];
    return id;
}

/* The int32 bias: DequantizeLinear of an int32 initializer whose scale is
 * sx * sw (within float rounding) and zero point 0. */
static int32_t dq_bias(kn_opt *o, int32_t v, float sx, const float *sw, int64_t channels)
{
    int32_t id = kn_opt_producer_op(o, v, "DequantizeLinear");
    if (id < 0)
        return -1;
    const kn_node *n = kn_opt_node(o, id);
    if (n->n_inputs < 2 || n->inputs[0] < 0 || n->inputs[1] < 0)
        return -1;
    const kn_value *b = kn_opt_value(o, n->inputs[0]);
    int64_t count = 0;
    const float *sb = kn_opt_const_floats(o, n->inputs[1], &count);
    if (!b->is_initializer || b->dtype != KN_INT32 || b->rank != 1 || !sb ||
        (count != 1 && count != channels))
        return -1;
    if (n->n_inputs > 2 && n->inputs[2] >= 0) { /* zero points, all 0 */
        const kn_value *z = kn_opt_value(o, n->inputs[2]);
        if (!z->is_initializer || z->dtype != KN_INT32 || z->init_nbytes % 4 != 0)
            return -1;
        const unsigned char *bytes = z->init_data;
        for (int64_t i = 0; i < z->init_nbytes; i++)
            if (bytes[i] != 0)
                return -1;
    }
    for (int64_t c = 0; c < channels; c++) {
        float want = sx * sw[channels > 1 ? c : 0], have = sb[count > 1 ? c : 0];
        if (fabsf(want - have) > 1e-6f * fabsf(want))
            return -1;
    }
    return n->inputs[0];
}

/* Whether activation a changes nothing that QuantizeLinear(y) keeps. */
static int absorbed_by_quantize(const kn_activation *a, const kn_qparams *y)
{
    if (a->kind == KN_ACT_RELU)
        return y->zp == kn_qmin(y->dtype);
    if (a->kind != KN_ACT_CLIP)
        return 0;
    /* an absent bound is +-FLT_MAX: open */
    return nearbyint((double)a->alpha / y->s) + y->zp <= kn_qmin(y->dtype) &&
           (a->beta >= FLT_MAX || nearbyint((double)a->beta / y->s) + y->zp >= kn_qmax(y->dtype));
}

/* The activation reading y alone, as activation_match.h finds it, except
 * that a Clip's bounds may still be Constant nodes here (this pass runs
 * before constant folding); 0 when there is none. */
static int activation_after(kn_opt *o, int32_t y, kn_act_match *m)
{
    int32_t id;
    if (kn_opt_match_activation(o, y, m))
        return 1;
    if (!kn_opt_is_private(o, y) || kn_opt_consumers(o, y, &id, 1) != 1)
        return 0;
    const kn_node *n = kn_opt_node(o, id);
    if (!kn_opt_is_op(n, "Clip") || n->inputs[0] != y || n->n_outputs != 1 || n->outputs[0] < 0 ||
        kn_opt_opset(o) < 11)
        return 0;
    *m = (kn_act_match){.act = {.kind = KN_ACT_CLIP, .alpha = -FLT_MAX, .beta = FLT_MAX},
                        .output = n->outputs[0],
                        .nodes = {id},
                        .n_nodes = 1};
    return (n->n_inputs < 2 || n->inputs[1] < 0 ||
            kn_qdq_const_scalar(o, n->inputs[1], &m->act.alpha)) &&
           (n->n_inputs < 3 || n->inputs[2] < 0 ||
            kn_qdq_const_scalar(o, n->inputs[2], &m->act.beta));
}

/* The QuantizeLinear reading conv's output y, directly or through an
 * activation (matched into *m, m->n_nodes 0 when none; *keep set when the
 * quantization does not absorb it); -1 when the pattern is not there. */
static int32_t quantize_after(kn_opt *o, int32_t y, kn_qparams *q, kn_act_match *m, int *keep)
{
    int32_t id, v = y;
    *keep = 0;
    if (activation_after(o, y, m))
        v = m->output;
    else
        m->n_nodes = 0;
    if (!kn_opt_is_private(o, v) || kn_opt_consumers(o, v, &id, 1) != 1)
        return -1;
    const kn_node *n = kn_opt_node(o, id);
    if (!kn_opt_is_op(n, "QuantizeLinear") || !kn_qdq_read_params(o, n, 0, q) || q->zero < 0 ||
        !kn_is_q8(q->dtype) || kn_attr_int(n, "saturate", 1) != 1)
        return -1;
    *keep = m->n_nodes > 0 && !absorbed_by_quantize(&m->act, q);
    return id;
}

static int fuse_one(kn_opt *o, int32_t conv_id)
{
    kn_node conv = *kn_opt_node(o, conv_id);
    kn_qparams x, w, y;
    kn_act_match act;
    int32_t wq = -1, bias = -1;
    int keep_act = 0;
    if (kn_qdq_activation(o, conv.inputs[0], &x) < 0 || dq_weights(o, conv.inputs[1], &w, &wq) < 0)
        return KN_OK;
    int32_t q_id = quantize_after(o, conv.outputs[0], &y, &act, &keep_act);
    if (q_id < 0)
        return KN_OK;
    int64_t count = 0;
    const float *sw = kn_opt_const_floats(o, w.scale, &count);
    if (!sw)
        return KN_OK;
    if (conv.n_inputs > 2 && conv.inputs[2] >= 0) {
        bias = dq_bias(o, conv.inputs[2], x.s, sw, count);
        if (bias < 0)
            return KN_OK;
    }
    int32_t w_zero = w.zero;
    if (w_zero < 0) { /* QLinearConv's zero points are not optional */
        int64_t dims[1] = {count};
        int8_t *zeros = kn_opt_alloc(o, (size_t)count);
        w_zero = zeros ? kn_opt_add_initializer(o, kn_opt_value(o, wq)->name, KN_INT8,
                                                count > 1 ? 1 : 0, dims, zeros, (size_t)count)
                       : -1;
        if (w_zero < 0)
            return kn_opt_oom(o);
    }
    const kn_node *q = kn_opt_node(o, q_id);
    int32_t out = q->outputs[0];
    int32_t inputs[9] = {kn_opt_node(o, kn_opt_producer(o, conv.inputs[0]))->inputs[0],
                         x.scale, x.zero, wq, w.scale, w_zero, y.scale, y.zero, bias};
    kn_attr *attrs = conv.attrs;
    int32_t n_attrs = conv.n_attrs;
    if (keep_act) { /* kiln.QFusedConv: the activation before the requantization */
        attrs = kn_opt_attrs_with_activation(o, conv.attrs, conv.n_attrs, &act.act, &n_attrs);
        if (!attrs)
            return kn_opt_oom(o);
        if (kn_opt_import_kiln(o) != KN_OK)
            return o->err->code;
    }
    kn_opt_remove(o, q_id);
    for (int32_t i = 0; i < act.n_nodes; i++)
        kn_opt_remove(o, act.nodes[i]);
    kn_opt_remove(o, conv_id);
    return kn_opt_add_node(o, conv_id, keep_act ? "QFusedConv" : "QLinearConv",
                           keep_act ? KN_OPT_DOMAIN_NAME : "", inputs, bias >= 0 ? 9 : 8, &out, 1,
                           attrs, n_attrs) < 0
               ? o->err->code
               : KN_OK;
}

int kn_pass_qdq_conv(kn_opt *o)
{
    if (kn_opt_opset(o) < 10) /* no QLinearConv before opset 10 */
        return KN_OK;
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        const kn_node *c = kn_opt_node(o, id);
        if (!kn_opt_live(o, id) || !kn_opt_is_op(c, "Conv") || c->n_inputs < 2 ||
            c->n_outputs != 1 || c->outputs[0] < 0 || c->inputs[0] < 0 || c->inputs[1] < 0)
            continue;
        int rc = fuse_one(o, id);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
