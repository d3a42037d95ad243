/* Identity and inference-mode Dropout pass their input through: readers
 * of the output read the input instead. Dropout qualifies when it has no
 * mask output in use and is not in training mode (opset 12+: input 2 absent
 * or a constant false; earlier: is_test or no training attribute). So does
 * a Pad whose pads are all zero, which torch writes before every AvgPool2d:
 * left in, it splits a region the NHWC layout pass could keep whole. */
#include <string.h>

#include "core/opt/passes.h"

static int dropout_is_noop(kn_opt *o, const kn_node *n)
{
    if (n->n_outputs > 1 && n->outputs[1] >= 0 &&
        (kn_opt_use_count(o, n->outputs[1]) > 0 || kn_opt_is_observed(o, n->outputs[1])))
        return 0;
    if (n->n_inputs > 2 && n->inputs[2] >= 0) {
        const kn_value *t = kn_opt_value(o, n->inputs[2]);
        if (!t->is_initializer || t->dtype != KN_BOOL || t->init_nbytes != 1 || !t->init_data ||
            *(const uint8_t *)t->init_data != 0)
            return 0;
    }
    return 1;
}

static int pad_is_noop(kn_opt *o, const kn_node *n)
{
    int32_t count = 0;
    const int64_t *attr = kn_attr_ints(n, "pads", &count);
    if (attr) { /* opsets 1-10 */
        for (int32_t i = 0; i < count; i++)
            if (attr[i] != 0)
                return 0;
        return 1;
    }
    if (n->n_inputs < 2 || n->inputs[1] < 0)
        return 0;
    const kn_value *p = kn_opt_value(o, n->inputs[1]);
    if (!p->is_initializer || p->dtype != KN_INT64 || !p->init_data || p->init_nbytes % 8)
        return 0;
    for (int64_t i = 0; i < p->init_nbytes / 8; i++) {
        int64_t v;
        memcpy(&v, (const unsigned char *)p->init_data + 8 * i, 8);
        if (v != 0)
            return 0;
    }
    return 1;
}

int kn_pass_identity(kn_opt *o)
{
    for (int32_t id = 0; id < kn_opt_node_count(o); id++) {
        kn_node *n = kn_opt_node(o, id);
        if (!kn_opt_live(o, id) || n->n_inputs < 1 || n->n_outputs < 1 || n->inputs[0] < 0 ||
            n->outputs[0] < 0)
            continue;
        int noop = kn_opt_is_op(n, "Identity") ||
                   (kn_opt_is_op(n, "Dropout") && dropout_is_noop(o, n)) ||
                   (kn_opt_is_op(n, "Pad") && pad_is_noop(o, n));
        /* Identity of a sequence or optional passes it through as well, but
         * keep those: their values carry kind-specific bookkeeping. */
        if (!noop || kn_opt_value(o, n->inputs[0])->kind != KN_KIND_TENSOR)
            continue;
        int32_t in = n->inputs[0], out = n->outputs[0];
        kn_opt_remove(o, id);
        if (!kn_opt_bypass(o, in, out)) {
            /* Output and input both must keep their names: keep the node. */
            o->removed[id] = 0;
            o->producer[out] = id;
        }
    }
    return KN_OK;
}
