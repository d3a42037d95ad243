/* Ops that move values without changing them, between quantized tensors
 * with one set of parameters, run on the 8-bit values themselves:
 *
 *   DequantizeLinear(xq) -> MaxPool | Reshape | Flatten | Transpose |
 *       Squeeze | Unsqueeze -> QuantizeLinear   (same scale and zero point)
 *   DequantizeLinear(x1q), ... -> Concat -> QuantizeLinear  (all the same)
 *
 * become the op reading xq (the x_iq) directly, writing what the
 * QuantizeLinear wrote. Exact: these ops only select or rearrange values,
 * and quantizing a dequantized value with its own parameters gives back the
 * code it came from; MaxPool because rounding and clamping keep order.
 * Kiln's calibrator gives such ops shared parameters (core/calib/qdq_plan.h)
 * so that this applies, as ONNX Runtime's quantizer does. Runs after
 * qdq_conv and qdq_add, which make the integer producers these read. */
#include <string.h>

#include "core/opt/passes.h"
#include "core/opt/qdq_match.h"

enum { MAX_INPUTS = 64 };

static int moves_values(const kn_node *n)
{
    static const char *const ops[] = {"MaxPool", "Reshape", "Flatten", "Transpose",
                                      "Squeeze", "Unsqueeze", "Concat", NULL};
    for (const char *const *op = ops; *op; op++)
        if (kn_opt_is_op(n, *op))
            return 1;
    return 0;
}

static int fuse_one(kn_opt *o, int32_t id)
{
    kn_node n = *kn_opt_node(o, id);
    /* MaxPool's Indices output, if asked for, stays float's business */
    if (n.n_outputs != 1 || n.outputs[0] < 0 || n.n_inputs < 1 || n.n_inputs > MAX_INPUTS)
        return KN_OK;
    int32_t q_id, first_data = 0;
    if (!kn_opt_is_private(o, n.outputs[0]) || kn_opt_consumers(o, n.outputs[0], &q_id, 1) != 1)
        return KN_OK;
    const kn_node *q = kn_opt_node(o, q_id);
    kn_qparams out, in;
    if (!kn_opt_is_op(q, "QuantizeLinear") || !kn_qdq_read_params(o, q, 0, &out) ||
        out.zero < 0 || kn_attr_int(q, "saturate", 1) != 1)
        return KN_OK;
    int32_t inputs[MAX_INPUTS];
    /* the data inputs: all of Concat's, the first of the others (Reshape's
     * shape, Squeeze's axes... stay as they are) */
    int32_t n_data = kn_opt_is_op(&n, "Concat") ? n.n_inputs : 1;
    for (int32_t j = 0; j < n.n_inputs; j++) {
        inputs[j] = n.inputs[j];
        if (j < first_data || j >= n_data)
            continue;
        int32_t dq = n.inputs[j] >= 0 ? kn_qdq_activation(o, n.inputs[j], &in) : -1;
        if (dq < 0 || !kn_qdq_same_params(&in, &out))
            return KN_OK;
        inputs[j] = kn_opt_node(o, dq)->inputs[0];
    }
    int32_t y = q->outputs[0];
    kn_opt_remove(o, q_id);
    kn_opt_remove(o, id);
    return kn_opt_add_node(o, id, n.op_type, n.domain, inputs, n.n_inputs, &y, 1, n.attrs,
                           n.n_attrs) < 0
               ? o->err->code
               : KN_OK;
}

int kn_pass_qdq_passthrough(kn_opt *o)
{
    int32_t n = kn_opt_node_count(o);
    for (int32_t id = 0; id < n; id++) {
        if (!kn_opt_live(o, id) || !moves_values(kn_opt_node(o, id)))
            continue;
        int rc = fuse_one(o, id);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
