/* Data-parallel ops on oneDNN, for the NHWC regions the layout pass makes:
 * Add, Sub, Mul, Div, Max, Min (opset 7+, numpy broadcast of one operand
 * onto the other, e.g. efficientnet's per-channel gates) and Concat (any
 * axis; in NHWC the channel axis is the innermost, where a plain copy loop
 * is slow). Plain row-major layouts throughout. */
#include <string.h>

#include "core/dnnl/dnnl_common.h"

static int all_float(kn_kctx *k)
{
    for (int32_t j = 0; j < k->n_in; j++)
        if (!k->in[j] || k->in[j]->dtype != KN_FLOAT || k->in[j]->rank < 1 || k->in[j]->rank > 6)
            return 0;
    return k->n_in > 0;
}

static const struct {
    const char *op;
    dnnl_alg_kind_t alg;
    int commutative;
} binary_algs[] = {{"Add", dnnl_binary_add, 1}, {"Sub", dnnl_binary_sub, 0},
                   {"Mul", dnnl_binary_mul, 1}, {"Div", dnnl_binary_div, 0},
                   {"Max", dnnl_binary_max, 1}, {"Min", dnnl_binary_min, 1}};

static int binary_build(kn_kctx *k, kn_dnnl_prim *p, int unused_a, int unused_b)
{
    (void)unused_a, (void)unused_b;
    if (k->n_in != 2 || !all_float(k) || k->opset < 7)
        return kn_dnnl_decline(k, "two float inputs with numpy broadcast only");
    int32_t a = -1;
    for (size_t i = 0; i < sizeof binary_algs / sizeof binary_algs[0]; i++)
        if (strcmp(binary_algs[i].op, k->node->op_type) == 0)
            a = (int32_t)i;
    if (a < 0)
        return kn_dnnl_decline(k, "not a binary op");
    kn_tensor *y = k->out[0];
    kn_err shape_err = {0};
    if (kn_broadcast_shape(k->in[0], k->in[1], y, &shape_err) != KN_OK)
        return kn_dnnl_decline(k, "left to the CPU kernel to report");
    y->dtype = KN_FLOAT;
    if (kn_dnnl_too_large(y) || kn_tensor_numel(y) < (int64_t)KN_DNNL_MIN_POOL_TAPS)
        return kn_dnnl_decline(k, "too small or too large for a oneDNN call");
    /* src0 must have the output's shape; the other operand broadcasts */
    int32_t full = kn_tensor_numel(k->in[0]) == kn_tensor_numel(y) ? 0 : 1;
    if (kn_tensor_numel(k->in[full]) != kn_tensor_numel(y) || (full && !binary_algs[a].commutative))
        return kn_dnnl_decline(k, "both operands broadcast, or the first one does");
    int64_t d0[KN_MAX_RANK], d1[KN_MAX_RANK];
    const kn_tensor *small = k->in[1 - full];
    /* One row over the innermost axis (a per-channel gate in NHWC): oneDNN
     * 2.6 takes 3x the time of Kiln's row kernel on 112x112x32. */
    if (kn_tensor_numel(small) == y->dims[y->rank - 1])
        return kn_dnnl_decline(k, "a row over the innermost axis is Kiln's");
    for (int32_t i = 0; i < y->rank; i++) {
        d0[i] = y->dims[i];
        int32_t off = y->rank - small->rank;
        d1[i] = i < off ? 1 : small->dims[i - off];
    }
    dnnl_memory_desc_t m0, m1, my;
    int rc = kn_dnnl_md_plain(&m0, y->rank, d0, 0, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_md_plain(&m1, y->rank, d1, 0, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_md_plain(&my, y->rank, y->dims, 0, k->err);
    dnnl_binary_desc_t bd;
    if (rc == KN_OK) {
        dnnl_status_t s = dnnl_binary_desc_init(&bd, binary_algs[a].alg, &m0, &m1, &my);
        if (s != dnnl_success)
            rc = kn_dnnl_fail(k->err, s, "binary descriptor");
    }
    dnnl_primitive_desc_t pd = NULL;
    if (rc == KN_OK)
        rc = kn_dnnl_pd_create(&bd, NULL, 0, NULL, p, &pd, k->err);
    if (rc != KN_OK)
        return rc;
    rc = kn_dnnl_add_arg(p, DNNL_ARG_SRC_0, KN_DNNL_BIND_INPUT, full, &m0, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_add_arg(p, DNNL_ARG_SRC_1, KN_DNNL_BIND_INPUT, 1 - full, &m1, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_add_arg(p, DNNL_ARG_DST, KN_DNNL_BIND_OUTPUT, 0, &my, k->err);
    if (rc == KN_OK)
        return kn_dnnl_finish(p, pd, k);
    dnnl_primitive_desc_destroy(pd);
    return rc;
}

static int concat_build(kn_kctx *k, kn_dnnl_prim *p, int unused_a, int unused_b)
{
    (void)unused_a, (void)unused_b;
    if (!all_float(k) || k->n_in < 2 || k->n_in > KN_DNNL_MAX_ARGS - 2)
        return kn_dnnl_decline(k, "2 to 14 float inputs only");
    const kn_tensor *x0 = k->in[0];
    int32_t r = x0->rank;
    int64_t axis = kn_attr_int(k->node, "axis", 0);
    axis = axis < 0 ? axis + r : axis;
    if (axis < 0 || axis >= r)
        return kn_dnnl_decline(k, "left to the CPU kernel to report");
    kn_tensor *y = k->out[0];
    *y = (kn_tensor){.dtype = KN_FLOAT, .rank = r};
    memcpy(y->dims, x0->dims, sizeof(int64_t) * (size_t)r);
    y->dims[axis] = 0;
    dnnl_memory_desc_t mds[KN_DNNL_MAX_ARGS], my;
    int rc = KN_OK;
    for (int32_t j = 0; rc == KN_OK && j < k->n_in; j++) {
        const kn_tensor *x = k->in[j];
        for (int32_t d = 0; d < r; d++)
            if (x->rank != r || (d != axis && x->dims[d] != x0->dims[d]) || x->dims[axis] == 0)
                return kn_dnnl_decline(k, "left to the CPU kernel (shapes, empty inputs)");
        y->dims[axis] += x->dims[axis];
        rc = kn_dnnl_md_plain(&mds[j], r, x->dims, 0, k->err);
    }
    if (rc == KN_OK &&
        (kn_dnnl_too_large(y) || kn_tensor_numel(y) < (int64_t)KN_DNNL_MIN_POOL_TAPS))
        return kn_dnnl_decline(k, "too small or too large for a oneDNN call");
    if (rc == KN_OK)
        rc = kn_dnnl_md_plain(&my, r, y->dims, 0, k->err);
    kn_activation none = {0};
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    if (rc == KN_OK)
        rc = kn_dnnl_attr_create(&none, 0, &attr, k->err);
    if (rc == KN_OK) {
        dnnl_status_t s = dnnl_concat_primitive_desc_create(&pd, &my, k->n_in, (int)axis, mds,
                                                            attr, p->engine);
        rc = s == dnnl_success ? kn_dnnl_pd_check(&pd, k->err) : kn_dnnl_fail(k->err, s, "concat");
    }
    if (attr)
        dnnl_primitive_attr_destroy(attr);
    if (rc != KN_OK)
        return rc;
    for (int32_t j = 0; rc == KN_OK && j < k->n_in; j++)
        rc = kn_dnnl_add_arg(p, DNNL_ARG_MULTIPLE_SRC + j, KN_DNNL_BIND_INPUT, j, &mds[j],
                             k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_add_arg(p, DNNL_ARG_DST, KN_DNNL_BIND_OUTPUT, 0, &my, k->err);
    if (rc == KN_OK)
        return kn_dnnl_finish(p, pd, k);
    dnnl_primitive_desc_destroy(pd);
    return rc;
}

static int binary_prepare(kn_kctx *k)
{
    return kn_dnnl_prepare(k, sizeof(kn_dnnl_prim), binary_build, 0, 0);
}

static int concat_prepare(kn_kctx *k)
{
    return kn_dnnl_prepare(k, sizeof(kn_dnnl_prim), concat_build, 0, 0);
}

#define BINARY_DEF(name, op)                                                                       \
    const kn_op_def name = { \
    .op_type = op, .since_version = 7, .dtypes = KN_BIT(KN_FLOAT), .flags = KN_OP_INPLACE, \
    .prepare = binary_prepare, .run = kn_dnnl_run, .release = kn_dnnl_release \
};
BINARY_DEF(kn_dnnl_add, "Add")
BINARY_DEF(kn_dnnl_sub, "Sub")
BINARY_DEF(kn_dnnl_mul, "Mul")
BINARY_DEF(kn_dnnl_div, "Div")
BINARY_DEF(kn_dnnl_max, "Max")
BINARY_DEF(kn_dnnl_min, "Min")
const kn_op_def kn_dnnl_concat = {
    .op_type = "Concat", .since_version = 4, .dtypes = KN_BIT(KN_FLOAT),
    .prepare = concat_prepare, .run = kn_dnnl_run, .release = kn_dnnl_release
};
