/* Scaled dot-product attention written out as ops becomes kiln.Attention:
 *   MatMul(Q', Kt) -> (Div|Mul by c)? -> (Add mask)? -> Softmax(last axis)
 *   -> MatMul(., V)
 * where Q' is Q itself or Div/Mul(Q, c) (the scale folded into the query,
 * as torch exports do). Kt is passed as K with k_transposed=1, so any
 * Transpose producing it stays (it is a cheap copy next to the products).
 * Every intermediate must be private to the pattern; the pattern must show
 * it is float (a float scale, mask or declared type). */
#include "core/opt/passes.h"

/* Node `id` is Div or Mul of some value by a float scalar constant: the
 * factor it applies goes to *scale, the other operand to *x. */
static int scaled_by_const(kn_opt *o, int32_t id, float *scale, int32_t *x)
{
    const kn_node *n = kn_opt_node(o, id);
    float c;
    if (n->n_inputs != 2 || n->n_outputs != 1)
        return 0;
    if (kn_opt_is_op(n, "Div") && kn_opt_const_scalar(o, n->inputs[1], &c) && c != 0.0f) {
        *scale *= 1.0f / c;
        *x = n->inputs[0];
        return 1;
    }
    if (!kn_opt_is_op(n, "Mul"))
        return 0;
    for (int s = 0; s < 2; s++)
        if (kn_opt_const_scalar(o, n->inputs[s], &c)) {
            *scale *= c;
            *x = n->inputs[1 - s];
            return 1;
        }
    return 0;
}

typedef struct att_match {
    int32_t q, k, v, mask, out;
    float scale;
    int known_float;
    int32_t nodes[6];
    int32_t n_nodes;
} att_match;

/* Private value v produced by a node scaling by a constant. */
static int take_scale(kn_opt *o, int32_t v, att_match *m, int32_t *src)
{
    int32_t p = kn_opt_producer(o, v);
    if (p < 0 || !kn_opt_is_private(o, v) || !scaled_by_const(o, p, &m->scale, src))
        return 0;
    m->nodes[m->n_nodes++] = p;
    m->known_float = 1; /* kn_opt_const_scalar only reads float constants */
    return 1;
}

/* From the scores value back to the first MatMul. */
static int match_scores(kn_opt *o, int32_t scores, att_match *m)
{
    int32_t v = scores;
    int32_t p = kn_opt_producer(o, v);
    if (p >= 0 && kn_opt_is_private(o, v) && kn_opt_is_op(kn_opt_node(o, p), "Add") &&
        kn_opt_node(o, p)->n_inputs == 2) {
        /* Which operand is the chain: the one a MatMul or scaling produced. */
        const kn_node *add = kn_opt_node(o, p);
        for (int s = 0; s < 2 && m->mask < 0; s++) {
            int32_t c = add->inputs[s], q = kn_opt_producer(o, c);
            if (q < 0 || !kn_opt_is_private(o, c))
                continue;
            const kn_node *qn = kn_opt_node(o, q);
            if (kn_opt_is_op(qn, "MatMul") || kn_opt_is_op(qn, "Div") || kn_opt_is_op(qn, "Mul")) {
                m->mask = add->inputs[1 - s];
                v = c;
            }
        }
        if (m->mask < 0)
            return 0;
        m->nodes[m->n_nodes++] = p;
        if (kn_opt_value(o, m->mask)->dtype == KN_FLOAT)
            m->known_float = 1;
    }
    int32_t src;
    if (take_scale(o, v, m, &src))
        v = src;
    int32_t mm = kn_opt_producer_op(o, v, "MatMul");
    if (mm < 0 || !kn_opt_is_private(o, v))
        return 0;
    m->nodes[m->n_nodes++] = mm;
    const kn_node *mn = kn_opt_node(o, mm);
    m->q = mn->inputs[0];
    m->k = mn->inputs[1];
    if (take_scale(o, m->q, m, &src))
        m->q = src;
    return m->q >= 0 && m->k >= 0;
}

static int softmax_last_axis(kn_opt *o, const kn_node *s)
{
    const kn_attr *axis = kn_node_attr(s, "axis");
    if (axis)
        return axis->type == KN_ATTR_INT && axis->i == -1;
    return kn_opt_opset(o) >= 13;
}

static int match_at_softmax(kn_opt *o, int32_t sid, att_match *m)
{
    const kn_node *s = kn_opt_node(o, sid);
    m->mask = -1;
    m->scale = 1.0f;
    m->n_nodes = 0;
    m->known_float = 0;
    if (s->n_inputs != 1 || s->n_outputs != 1 || !softmax_last_axis(o, s))
        return 0;
    int32_t p = s->outputs[0], mm2;
    if (!kn_opt_is_private(o, p) || kn_opt_consumers(o, p, &mm2, 1) != 1)
        return 0;
    const kn_node *m2 = kn_opt_node(o, mm2);
    if (!kn_opt_is_op(m2, "MatMul") || m2->n_inputs != 2 || m2->inputs[0] != p ||
        m2->n_outputs != 1)
        return 0;
    m->v = m2->inputs[1];
    m->out = m2->outputs[0];
    m->nodes[m->n_nodes++] = sid;
    m->nodes[m->n_nodes++] = mm2;
    if (!match_scores(o, s->inputs[0], m))
        return 0;
    int32_t ins[3] = {m->q, m->k, m->v};
    for (int i = 0; i < 3; i++)
        if (kn_opt_value(o, ins[i])->dtype == KN_FLOAT)
            m->known_float = 1;
    return m->known_float && m->v >= 0;
}

int kn_pass_attention(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        att_match m;
        if (!kn_opt_live(o, id) || !kn_opt_is_op(kn_opt_node(o, id), "Softmax") ||
            !match_at_softmax(o, id, &m))
            continue;
        kn_attr *attrs = kn_opt_attrs(o, 2);
        if (!attrs || kn_opt_import_kiln(o) != KN_OK)
            return o->err->code ? o->err->code : KN_ERR_OUT_OF_MEMORY;
        kn_opt_attr_float(&attrs[0], "scale", m.scale);
        kn_opt_attr_int(&attrs[1], "k_transposed", 1);
        int32_t inputs[4] = {m.q, m.k, m.v, m.mask};
        int32_t last = m.nodes[1]; /* the second MatMul */
        for (int32_t i = 0; i < m.n_nodes; i++)
            kn_opt_remove(o, m.nodes[i]);
        if (kn_opt_add_node(o, last, "Attention", KN_OPT_DOMAIN_NAME, inputs, m.mask >= 0 ? 4 : 3,
                            &m.out, 1, attrs, 2) < 0)
            return o->err->code;
    }
    return KN_OK;
}
