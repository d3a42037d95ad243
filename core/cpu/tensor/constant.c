/* Constant (a tensor held in an attribute) and ConstantOfShape (a shape
 * input filled with one value). Both are normally folded at load time;
 * these kernels are what the folding runs. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

/* Where the value's bytes live (the model's attribute storage, which
 * outlives every session) and how many there are. */
typedef struct const_state {
    const void *src;
    size_t nbytes;
    unsigned char elem[16]; /* ConstantOfShape's fill value */
    size_t elem_size;
} const_state;

static const_state *state_new(kn_kctx *k)
{
    const_state *s = calloc(1, sizeof *s);
    if (!s)
        kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    k->state = s;
    return s;
}

static int constant_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 0) != KN_OK)
        return k->err->code;
    static const char *const unsupported[] = {"value_string", "value_strings", "sparse_value"};
    kn_tensor *out = k->out[0];
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        if (kn_node_attr(k->node, unsupported[i]))
            return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Constant: attribute '%s' is not supported",
                           unsupported[i]);
    const_state *s = state_new(k);
    if (!s)
        return k->err->code;
    const kn_attr *a;
    if ((a = kn_node_attr(k->node, "value")) && a->type == KN_ATTR_TENSOR && a->t) {
        kn_copy_desc(out, a->t);
        s->src = a->t->data;
    } else if ((a = kn_node_attr(k->node, "value_float")) && a->type == KN_ATTR_FLOAT) {
        out->dtype = KN_FLOAT;
        out->rank = 0;
        s->src = &a->f;
    } else if ((a = kn_node_attr(k->node, "value_floats")) && a->type == KN_ATTR_FLOATS) {
        out->dtype = KN_FLOAT;
        out->rank = 1;
        out->dims[0] = a->count;
        s->src = a->floats;
    } else if ((a = kn_node_attr(k->node, "value_int")) && a->type == KN_ATTR_INT) {
        out->dtype = KN_INT64;
        out->rank = 0;
        s->src = &a->i;
    } else if ((a = kn_node_attr(k->node, "value_ints")) && a->type == KN_ATTR_INTS) {
        out->dtype = KN_INT64;
        out->rank = 1;
        out->dims[0] = a->count;
        s->src = a->ints;
    } else {
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Constant: no value attribute");
    }
    int64_t nb = kn_tensor_nbytes(out);
    if (nb < 0)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Constant: type %s is not supported",
                       kn_dtype_name(out->dtype));
    if (nb > 0 && !s->src)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Constant: value has no data");
    s->nbytes = (size_t)nb;
    return KN_OK;
}

static int constant_run(kn_kctx *k)
{
    const const_state *s = k->state;
    if (s->nbytes)
        memcpy(k->out[0]->data, s->src, s->nbytes);
    return KN_OK;
}

/* ---- ConstantOfShape ---- */

static int const_of_shape_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    kn_tensor *out = k->out[0];
    int64_t dims[KN_MAX_RANK];
    int32_t n;
    if (kn_const_ints(k, 0, "input", dims, KN_MAX_RANK, &n) != KN_OK)
        return k->err->code;
    const_state *s = state_new(k);
    if (!s)
        return k->err->code;
    out->dtype = KN_FLOAT; /* default value: float 0 */
    s->elem_size = 4;
    const kn_attr *a = kn_node_attr(k->node, "value");
    if (a && a->type == KN_ATTR_TENSOR && a->t) {
        size_t es = kn_dtype_size(a->t->dtype);
        if (kn_tensor_numel(a->t) != 1 || es == 0 || es > sizeof s->elem || !a->t->data)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                           "ConstantOfShape: 'value' must be a one-element numeric tensor");
        out->dtype = a->t->dtype;
        s->elem_size = es;
        memcpy(s->elem, a->t->data, es);
    }
    out->rank = n;
    for (int32_t i = 0; i < n; i++) {
        if (dims[i] < 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "ConstantOfShape: dim %d is %lld",
                           (int)i, (long long)dims[i]);
        out->dims[i] = dims[i];
    }
    if (kn_tensor_nbytes(out) < 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "ConstantOfShape: shape is too large");
    return KN_OK;
}

static int const_of_shape_run(kn_kctx *k)
{
    const const_state *s = k->state;
    kn_fill_pattern(k->out[0]->data, s->elem, s->elem_size, kn_tensor_numel(k->out[0]));
    return KN_OK;
}

static void const_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* copies whole bytes: the packed sub-byte types too */
const kn_op_def kn_op_Constant = {
    .op_type = "Constant", .since_version = 1, .flags = KN_OP_PACKED,
    .prepare = constant_prepare, .run = constant_run, .release = const_release
};
const kn_op_def kn_op_ConstantOfShape = {
    .op_type = "ConstantOfShape", .since_version = 9, .dtypes = KN_BIT(KN_INT64),
    .prepare = const_of_shape_prepare, .run = const_of_shape_run, .release = const_release
};

/* ---- EyeLike: ones on the k-th diagonal of a 2-D shape ---- */

static int eyelike_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    if (in->rank != 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "EyeLike: input must be 2-D, not rank %d", (int)in->rank);
    int32_t dt = (int32_t)kn_attr_int(k->node, "dtype", in->dtype);
    if (!kn_convert_supported(dt))
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "EyeLike: type %s is not supported",
                       kn_dtype_name(dt));
    const_state *s = state_new(k);
    if (!s)
        return k->err->code;
    kn_copy_desc(out, in);
    out->dtype = dt;
    s->elem_size = kn_dtype_size(dt);
    kn_scalar_from_double(dt, 1.0, s->elem);
    return KN_OK;
}

static int eyelike_run(kn_kctx *k)
{
    const const_state *s = k->state;
    kn_tensor *out = k->out[0];
    int64_t rows = out->dims[0], cols = out->dims[1], diag = kn_attr_int(k->node, "k", 0);
    memset(out->data, 0, (size_t)(rows * cols) * s->elem_size);
    for (int64_t i = 0; i < rows; i++)
        if (i + diag >= 0 && i + diag < cols)
            memcpy((char *)out->data + (size_t)(i * cols + i + diag) * s->elem_size, s->elem,
                   s->elem_size);
    return KN_OK;
}

const kn_op_def kn_op_EyeLike = {
    .op_type = "EyeLike", .since_version = 9, .prepare = eyelike_prepare, .run = eyelike_run,
    .release = const_release
};
