/* Conv followed by inference-mode BatchNormalization folds into the conv:
 *   s = scale / sqrt(var + eps);  W'[o] = W[o] * s[o];  B' = (B - mean) * s + bias
 * when W, B (if present) and the four BN tensors are float initializers and
 * the conv output is read only by the BN. New initializers hold W' and B'
 * (the originals may be shared with other nodes). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/opt/passes.h"

/* The BN's per-channel tensors, all of length c, or 0. */
static int bn_params(kn_opt *o, const kn_node *bn, int64_t c, const float *p[4])
{
    if (bn->n_inputs != 5)
        return 0;
    for (int32_t j = 0; j < 4; j++) {
        int64_t n;
        p[j] = kn_opt_const_floats(o, bn->inputs[1 + j], &n);
        if (!p[j] || n != c)
            return 0;
    }
    return 1;
}

static int bn_is_inference(kn_opt *o, const kn_node *bn)
{
    if (kn_attr_int(bn, "training_mode", 0) != 0 || kn_attr_int(bn, "is_test", 1) == 0)
        return 0;
    for (int32_t j = 1; j < bn->n_outputs; j++)
        if (bn->outputs[j] >= 0 && (kn_opt_use_count(o, bn->outputs[j]) > 0 ||
                                    kn_opt_is_observed(o, bn->outputs[j])))
            return 0;
    return 1;
}

static float read_f(const float *p, int64_t i)
{
    float f;
    memcpy(&f, p + i, sizeof f); /* initializers need not be aligned */
    return f;
}

static int fold_one(kn_opt *o, int32_t conv_id, int32_t bn_id)
{
    kn_node *conv = kn_opt_node(o, conv_id), *bn = kn_opt_node(o, bn_id);
    const kn_value *wv = kn_opt_value(o, conv->inputs[1]);
    int64_t wn, bn_count = 0;
    const float *w = kn_opt_const_floats(o, conv->inputs[1], &wn);
    if (!w || wv->rank < 3 || wv->dims[0] <= 0)
        return KN_OK;
    int64_t cout = wv->dims[0], per = wn / cout;
    const float *b = NULL;
    if (conv->n_inputs > 2 && conv->inputs[2] >= 0) {
        b = kn_opt_const_floats(o, conv->inputs[2], &bn_count);
        if (!b || bn_count != cout)
            return KN_OK;
    }
    const float *p[4];
    if (!bn_params(o, bn, cout, p) || !bn_is_inference(o, bn))
        return KN_OK;
    float eps = kn_attr_float(bn, "epsilon", 1e-5f);
    float *nw = malloc(sizeof *nw * (size_t)wn), *nb = malloc(sizeof *nb * (size_t)cout);
    if (!nw || !nb) {
        free(nw);
        free(nb);
        return kn_opt_oom(o);
    }
    for (int64_t c = 0; c < cout; c++) {
        float s = read_f(p[0], c) / sqrtf(read_f(p[3], c) + eps);
        for (int64_t i = 0; i < per; i++)
            nw[c * per + i] = read_f(w, c * per + i) * s;
        nb[c] = ((b ? read_f(b, c) : 0.0f) - read_f(p[2], c)) * s + read_f(p[1], c);
    }
    int32_t wnew = kn_opt_add_initializer(o, wv->name, KN_FLOAT, wv->rank, wv->dims, nw,
                                          sizeof *nw * (size_t)wn);
    int32_t bnew = wnew < 0 ? -1
                            : kn_opt_add_initializer(o, wv->name, KN_FLOAT, 1, &cout, nb,
                                                     sizeof *nb * (size_t)cout);
    free(nw);
    free(nb);
    if (bnew < 0)
        return o->err->code;
    conv = kn_opt_node(o, conv_id);
    bn = kn_opt_node(o, bn_id);
    int32_t inputs[3] = {conv->inputs[0], wnew, bnew};
    int32_t out = bn->outputs[0];
    kn_opt_remove(o, conv_id);
    kn_opt_remove(o, bn_id);
    return kn_opt_add_node(o, bn_id, "Conv", "", inputs, 3, &out, 1, conv->attrs,
                           conv->n_attrs) < 0 ? o->err->code : KN_OK;
}

int kn_pass_conv_bn(kn_opt *o)
{
    for (int32_t id = 0; id < kn_opt_node_count(o); id++) {
        kn_node *bn = kn_opt_node(o, id);
        if (!kn_opt_live(o, id) || !kn_opt_is_op(bn, "BatchNormalization") || bn->n_inputs < 1 ||
            bn->n_outputs < 1 || bn->outputs[0] < 0)
            continue;
        int32_t conv_id = kn_opt_producer_op(o, bn->inputs[0], "Conv");
        if (conv_id < 0 || !kn_opt_is_private(o, bn->inputs[0]) ||
            kn_opt_node(o, conv_id)->n_inputs < 2)
            continue;
        int rc = fold_one(o, conv_id, id);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
