/* A quantized residual addition into the integer convolution before it:
 *
 *     QLinearConv (or kiln.QFusedConv without activation or Z) -> y,
 *     kiln.QAdd(y, z) or com.microsoft QLinearAdd(y, z) -> out
 *
 * becomes kiln.QFusedConv(..., Z = z) -> out, with the QAdd's Relu as its
 * activation (core/cpu/quant/qlinear.c says what it computes). On oneDNN
 * the addition is then a sum post-op and the Relu an eltwise one after it
 * (core/dnnl/dnnl_qconv.c): ResNet's and MobileNet's residual connections
 * cost no pass over memory of their own, where the QAdd read two 8-bit
 * tensors and wrote a third.
 *
 * The convolution's result is no longer rounded to 8 bits before the
 * addition, so a value may differ from the graph as written by about one
 * step of the output's scale (the rounding that went, measured in the
 * output's steps, plus the one that stays); nor clipped to y's range,
 * which calibration made to hold y's values. Only where y's zero point is
 * not its type's lowest code: there the saturation is a Relu or Relu6 that
 * qdq_conv folded into it, and it must stay. And only where y is read by the addition alone, the
 * addition's view of y has the parameters the convolution wrote it with,
 * and z has y's shape as far as the graph says (the kernels check it
 * again, and broadcasting is left to the addition). */
#include <string.h>

#include "core/opt/passes.h"
#include "core/opt/qdq_match.h"

enum { ADD_A, ADD_AS, ADD_AZ, ADD_B, ADD_BS, ADD_BZ, ADD_CS, ADD_CZ };
enum { CONV_YS = 6, CONV_YZ = 7, CONV_B = 8 };

static int is_domain_op(const kn_node *n, const char *domain, const char *op)
{
    return n->domain && strcmp(n->domain, domain) == 0 && strcmp(n->op_type, op) == 0;
}

/* The one value of a float or 8-bit scalar initializer, as a double. */
static int scalar_value(kn_opt *o, int32_t v, double *out)
{
    if (v < 0)
        return 0;
    const kn_value *val = kn_opt_value(o, v);
    if (!val->is_initializer || !val->init_data || kn_shape_numel(val->dims, val->rank) != 1)
        return 0;
    if (val->dtype == KN_FLOAT && val->init_nbytes == 4) {
        float f;
        memcpy(&f, val->init_data, 4);
        *out = f;
        return 1;
    }
    if (kn_is_q8(val->dtype) && val->init_nbytes == 1) {
        *out = kn_qdq_int8_value(val, 0);
        return 1;
    }
    return 0;
}

static int same_scalar(kn_opt *o, int32_t a, int32_t b)
{
    double x, y;
    return a == b || (scalar_value(o, a, &x) && scalar_value(o, b, &y) && x == y);
}

/* Shapes the graph gives for both and that differ (unknown: not known to). */
static int shapes_differ(kn_opt *o, int32_t a, int32_t b)
{
    const kn_value *x = kn_opt_value(o, a), *y = kn_opt_value(o, b);
    if (x->rank < 0 || y->rank < 0)
        return 0;
    if (x->rank != y->rank)
        return 1;
    for (int32_t i = 0; i < x->rank; i++)
        if (x->dims[i] >= 0 && y->dims[i] >= 0 && x->dims[i] != y->dims[i])
            return 1;
    return 0;
}

/* The integer convolution producing v for this addition alone, with no
 * epilogue yet; -1 when there is none. */
static int32_t fusable_conv(kn_opt *o, int32_t v)
{
    int32_t id = kn_opt_producer(o, v);
    if (id < 0 || !kn_opt_is_private(o, v))
        return -1;
    const kn_node *c = kn_opt_node(o, id);
    int fused = is_domain_op(c, KN_OPT_DOMAIN_NAME, "QFusedConv");
    if (!(fused || kn_opt_is_op(c, "QLinearConv")) || c->n_inputs < 8 || c->n_inputs > 9 ||
        c->n_outputs != 1 || c->outputs[0] != v)
        return -1;
    if (fused && kn_attr_string(c, "activation", "")[0])
        return -1;
    return id;
}

static int fuse_one(kn_opt *o, int32_t add_id)
{
    kn_node add = *kn_opt_node(o, add_id);
    for (int side = 0; side < 2; side++) {
        int32_t y_in = side ? ADD_B : ADD_A, z_in = side ? ADD_A : ADD_B;
        int32_t conv_id = fusable_conv(o, add.inputs[y_in]);
        if (conv_id < 0)
            continue;
        kn_node conv = *kn_opt_node(o, conv_id);
        int32_t z = add.inputs[z_in];
        double y_zp;
        if (!same_scalar(o, conv.inputs[CONV_YS], add.inputs[y_in + 1]) ||
            !same_scalar(o, conv.inputs[CONV_YZ], add.inputs[y_in + 2]) ||
            !scalar_value(o, conv.inputs[CONV_YZ], &y_zp) ||
            y_zp == kn_qmin(kn_opt_value(o, conv.inputs[CONV_YZ])->dtype) ||
            shapes_differ(o, add.inputs[y_in], z))
            continue;
        int relu = kn_attr_int(&add, "relu", 0) != 0;
        int32_t n_attrs = conv.n_attrs + relu;
        kn_attr *attrs = kn_opt_attrs(o, n_attrs);
        if (!attrs)
            return kn_opt_oom(o);
        for (int32_t i = 0; i < conv.n_attrs; i++)
            attrs[i] = conv.attrs[i];
        if (relu && kn_opt_attr_string(o, &attrs[conv.n_attrs], "activation", "Relu") != KN_OK)
            return kn_opt_oom(o);
        int rc = kn_opt_import_kiln(o);
        if (rc != KN_OK)
            return rc;
        int32_t inputs[12];
        memcpy(inputs, conv.inputs, sizeof(int32_t) * 8);
        inputs[CONV_YS] = add.inputs[ADD_CS];
        inputs[CONV_YZ] = add.inputs[ADD_CZ];
        inputs[CONV_B] = conv.n_inputs > CONV_B ? conv.inputs[CONV_B] : -1;
        inputs[9] = z;
        inputs[10] = add.inputs[z_in + 1];
        inputs[11] = add.inputs[z_in + 2];
        int32_t out = add.outputs[0];
        kn_opt_remove(o, add_id);
        kn_opt_remove(o, conv_id);
        return kn_opt_add_node(o, add_id, "QFusedConv", KN_OPT_DOMAIN_NAME, inputs, 12, &out, 1,
                               attrs, n_attrs) < 0
                   ? o->err->code
                   : KN_OK;
    }
    return KN_OK;
}

int kn_pass_qconv_add(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        const kn_node *a = kn_opt_node(o, id);
        if (!kn_opt_live(o, id) || a->n_inputs != 8 || a->n_outputs != 1 || a->outputs[0] < 0 ||
            a->inputs[ADD_A] < 0 || a->inputs[ADD_B] < 0 || a->inputs[ADD_CS] < 0 ||
            !(is_domain_op(a, KN_OPT_DOMAIN_NAME, "QAdd") ||
              is_domain_op(a, "com.microsoft", "QLinearAdd")))
            continue;
        int rc = fuse_one(o, id);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
