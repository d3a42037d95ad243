/* QDQ parameter reading for the integer-op passes (qdq_match.h). */
#include "core/opt/qdq_match.h"

#include <string.h>

int32_t kn_qdq_int8_value(const kn_value *v, int64_t i)
{
    const unsigned char *p = v->init_data;
    return v->dtype == KN_INT8 ? (int32_t)(signed char)p[i] : (int32_t)p[i];
}

int kn_qdq_read_params(kn_opt *o, const kn_node *n, int per_channel, kn_qparams *q)
{
    if (n->n_inputs < 2 || n->inputs[1] < 0 || n->n_outputs != 1 || n->outputs[0] < 0)
        return 0;
    const kn_value *s = kn_opt_value(o, n->inputs[1]);
    if (!s->is_initializer || s->dtype != KN_FLOAT || s->rank > 1)
        return 0;
    int64_t count = kn_shape_numel(s->dims, s->rank);
    if (count < 1 || (count > 1 && !per_channel) || s->init_nbytes != count * 4)
        return 0;
    *q = (kn_qparams){.scale = n->inputs[1], .zero = -1, .dtype = KN_UINT8};
    memcpy(&q->s, s->init_data, sizeof(float));
    if (n->n_inputs > 2 && n->inputs[2] >= 0) {
        const kn_value *z = kn_opt_value(o, n->inputs[2]);
        if (!z->is_initializer || !kn_is_q8(z->dtype) ||
            kn_shape_numel(z->dims, z->rank) != count || z->init_nbytes != count)
            return 0;
        q->zero = n->inputs[2];
        q->dtype = z->dtype;
        q->zp = kn_qdq_int8_value(z, 0);
    }
    return 1;
}

int32_t kn_qdq_activation(kn_opt *o, int32_t v, kn_qparams *q)
{
    int32_t id = kn_opt_producer_op(o, v, "DequantizeLinear");
    if (id < 0)
        return -1;
    const kn_node *n = kn_opt_node(o, id);
    return n->inputs[0] >= 0 && kn_qdq_read_params(o, n, 0, q) && q->zero >= 0 ? id : -1;
}

int kn_qdq_same_params(const kn_qparams *a, const kn_qparams *b)
{
    return a->s == b->s && a->zp == b->zp && a->dtype == b->dtype;
}

int kn_qdq_const_scalar(kn_opt *o, int32_t v, float *out)
{
    if (kn_opt_const_scalar(o, v, out))
        return 1;
    int32_t id = kn_opt_producer_op(o, v, "Constant");
    if (id < 0)
        return 0;
    const kn_node *n = kn_opt_node(o, id);
    for (int32_t a = 0; a < n->n_attrs; a++) {
        const kn_attr *at = &n->attrs[a];
        if (strcmp(at->name, "value_float") == 0 && at->type == KN_ATTR_FLOAT) {
            *out = at->f;
            return 1;
        }
        if (strcmp(at->name, "value") == 0 && at->type == KN_ATTR_TENSOR && at->t &&
            at->t->dtype == KN_FLOAT && at->t->data && kn_tensor_numel(at->t) == 1) {
            memcpy(out, at->t->data, sizeof(float));
            return 1;
        }
    }
    return 0;
}
