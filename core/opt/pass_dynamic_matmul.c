/* Dynamically quantized matrix products, as ONNX Runtime's quantize_dynamic
 * writes them, to MatMulIntegerToFloat (com.microsoft 1):
 *
 *   DynamicQuantizeLinear(X) -> Xq, Xs, Xz
 *   MatMulInteger(Xq, Wq, Xz, Wz) -> Cast(float) -> Mul(., Mul(Xs, Ws)) -> Y
 *
 * becomes MatMulIntegerToFloat(Xq, Wq, Xs, Ws, Xz, Wz) -> Y. The three
 * nodes after the product are each a pass over an int32 or float [M, N]
 * tensor, and the integer product alone has no kernel that knows its
 * scale: as one op it runs on the int8 matrix product with the scale in
 * its epilogue, and the qmatmul_epilogue pass then takes the bias Add and
 * the activation after it too. The result is the same float arithmetic:
 * MatMulIntegerToFloat multiplies the int32 sum, converted to float, by
 * a_scale * b_scale computed in float, as Cast and the two Muls do.
 *
 * Only that form: Wq a 2-D int8/uint8 initializer, Ws a float initializer
 * per tensor or per column, Wz an initializer if present (of Ws's shape,
 * or zeros, which are then left out), Xs the scale
 * of the DynamicQuantizeLinear that produced Xq (Xz, if given, its zero
 * point). The int32 product and its float copy must be private to the
 * chain. */
#include "core/opt/passes.h"

/* Ws: a float initializer of one value or one per column of W; its count. */
static int64_t weight_scale(kn_opt *o, int32_t v, int64_t n)
{
    int64_t count = 0;
    return v >= 0 && kn_opt_const_floats(o, v, &count) && (count == 1 || count == n) ? count : 0;
}

/* Wz as MatMulIntegerToFloat takes it, shaped like Ws: itself, or -1 (none)
 * for zeros of another shape (a scalar 0 with per-column scales); -2 when
 * it cannot be expressed. */
static int32_t weight_zero_point(kn_opt *o, int32_t wz, int64_t n_scales)
{
    if (wz < 0)
        return -1;
    const kn_value *z = kn_opt_value(o, wz);
    if (kn_shape_numel(z->dims, z->rank) == n_scales)
        return wz;
    const uint8_t *bytes = z->init_data;
    for (int64_t i = 0; i < z->init_nbytes; i++)
        if (bytes[i] != 0)
            return -2;
    return -1;
}

static int fuse_one(kn_opt *o, int32_t mi_id)
{
    const kn_node *mi = kn_opt_node(o, mi_id);
    int32_t xq = mi->inputs[0], wq = mi->inputs[1];
    int32_t xz = mi->n_inputs > 2 ? mi->inputs[2] : -1, wz = mi->n_inputs > 3 ? mi->inputs[3] : -1;
    const kn_value *w = kn_opt_value(o, wq);
    if (!w->is_initializer || w->rank != 2 || (w->dtype != KN_INT8 && w->dtype != KN_UINT8) ||
        (wz >= 0 && !kn_opt_value(o, wz)->is_initializer))
        return KN_OK;
    int32_t dql_id = kn_opt_producer_op(o, xq, "DynamicQuantizeLinear");
    if (dql_id < 0)
        return KN_OK;
    const kn_node *dql = kn_opt_node(o, dql_id);
    if (dql->n_outputs != 3 || dql->outputs[0] != xq || (xz >= 0 && xz != dql->outputs[2]))
        return KN_OK;
    int32_t xs = dql->outputs[1];

    int32_t acc = mi->outputs[0], cast_id = kn_opt_sole_reader(o, acc);
    if (cast_id < 0)
        return KN_OK;
    const kn_node *cast = kn_opt_node(o, cast_id);
    if (!kn_opt_is_op(cast, "Cast") || kn_attr_int(cast, "to", 0) != KN_FLOAT ||
        cast->n_outputs != 1)
        return KN_OK;
    int32_t real = cast->outputs[0], mul_id = kn_opt_sole_reader(o, real);
    if (mul_id < 0)
        return KN_OK;
    const kn_node *mul = kn_opt_node(o, mul_id);
    int32_t scales =
        kn_opt_is_op(mul, "Mul") && mul->n_outputs == 1 ? kn_opt_other_operand(mul, real) : -1;
    int32_t scales_id = scales >= 0 ? kn_opt_producer_op(o, scales, "Mul") : -1;
    if (scales_id < 0)
        return KN_OK;
    int32_t ws = kn_opt_other_operand(kn_opt_node(o, scales_id), xs);
    int64_t n_scales = weight_scale(o, ws, w->dims[1]);
    if (!n_scales || (wz = weight_zero_point(o, wz, n_scales)) == -2)
        return KN_OK;
    if (kn_opt_import_domain(o, "com.microsoft", 1) != KN_OK)
        return o->err->code;
    int32_t y = mul->outputs[0];
    int32_t inputs[6] = {xq, wq, xs, ws, xz, wz};
    int32_t n_inputs = wz >= 0 ? 6 : xz >= 0 ? 5 : 4;
    /* the scale product stays for any other reader; dead_nodes drops it */
    kn_opt_remove(o, mul_id);
    kn_opt_remove(o, cast_id);
    kn_opt_remove(o, mi_id);
    return kn_opt_add_node(o, mi_id, "MatMulIntegerToFloat", "com.microsoft", inputs, n_inputs, &y,
                           1, NULL, 0) >= 0
               ? KN_OK
               : o->err->code;
}

int kn_pass_dynamic_matmul(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        const kn_node *m = kn_opt_node(o, id);
        if (!kn_opt_live(o, id) || !kn_opt_is_op(m, "MatMulInteger") || m->n_inputs < 2 ||
            m->n_outputs != 1 || m->outputs[0] < 0 || m->inputs[0] < 0 || m->inputs[1] < 0)
            continue;
        int rc = fuse_one(o, id);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
