/* MaxUnpool (opsets 9 and 11, same semantics): the partial inverse of
 * MaxPool. The output starts as zeros and each input value is written at
 * the position its index names; indices are flat positions (batch and
 * channel included) in the default output shape, (in - 1) * stride +
 * kernel - pads per spatial dim. With the optional output_shape input the
 * output takes that shape and every value keeps its default-shape
 * coordinates (the extra rows and columns stay zero), as ONNX's test data
 * expects. output_shape decides the shape: KN_ERR_NEEDS_VALUE when it is
 * not known at prepare time. Indices are data: one out of range fails at
 * run time with KN_ERR_INVALID_ARGUMENT. Any fixed-size element type. */
#include <stdlib.h>
#include <string.h>

#include "core/cpu/image/image_common.h"

typedef struct unpool_state {
    int32_t rank;
    size_t esz;
    int64_t def_dims[KN_MAX_RANK]; /* the default output shape */
    int64_t def_numel;
    int reshaped; /* output_shape differs from the default */
} unpool_state;

static int read_ints(kn_kctx *k, const char *name, int32_t want, int64_t min, int64_t *dst)
{
    int32_t n;
    const int64_t *v = kn_attr_ints(k->node, name, &n);
    if (!v)
        return KN_OK;
    if (n != want)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "MaxUnpool: %s has %d values, expected %d",
                       name, (int)n, (int)want);
    for (int32_t i = 0; i < n; i++) {
        if (v[i] < min || v[i] > INT32_MAX) /* huge values would overflow sizes */
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "MaxUnpool: %s[%d] = %lld is invalid",
                           name, (int)i, (long long)v[i]);
        dst[i] = v[i];
    }
    return KN_OK;
}

static int unpool_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *ind = k->in[1];
    int32_t rank = x->rank, nsp = rank - 2;
    size_t esz = kn_dtype_size(x->dtype);
    if (esz == 0)
        return kn_fail(k->err, KN_ERR_DTYPE, "MaxUnpool: type %s is not supported",
                       kn_dtype_name(x->dtype));
    if (nsp < 1 || !kn_shape_equal(x->dims, rank, ind->dims, ind->rank))
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "MaxUnpool: X must be N x C x spatial and I of the same shape");
    if (ind->dtype != KN_INT64)
        return kn_fail(k->err, KN_ERR_DTYPE, "MaxUnpool: I must be int64, not %s",
                       kn_dtype_name(ind->dtype));
    int64_t kernel[KN_MAX_RANK], stride[KN_MAX_RANK], pads[2 * KN_MAX_RANK];
    for (int32_t i = 0; i < nsp; i++) {
        kernel[i] = 0;
        stride[i] = 1;
        pads[i] = pads[nsp + i] = 0;
    }
    int rc;
    if (!kn_node_attr(k->node, "kernel_shape"))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "MaxUnpool: attribute kernel_shape is required");
    if ((rc = read_ints(k, "kernel_shape", nsp, 1, kernel)) != KN_OK ||
        (rc = read_ints(k, "strides", nsp, 1, stride)) != KN_OK ||
        (rc = read_ints(k, "pads", 2 * nsp, 0, pads)) != KN_OK)
        return rc;
    unpool_state st = {.rank = rank, .esz = esz};
    st.def_dims[0] = x->dims[0];
    st.def_dims[1] = x->dims[1];
    for (int32_t i = 0; i < nsp; i++) {
        st.def_dims[2 + i] = (x->dims[2 + i] - 1) * stride[i] + kernel[i] - pads[i] - pads[nsp + i];
        if (st.def_dims[2 + i] < 0 || x->dims[2 + i] < 1)
            return kn_fail(k->err, KN_ERR_SHAPE, "MaxUnpool: spatial dim %d gives size %lld",
                           (int)i, (long long)st.def_dims[2 + i]);
    }
    st.def_numel = kn_shape_numel(st.def_dims, rank);
    if (st.def_numel < 0)
        return kn_fail(k->err, KN_ERR_SHAPE, "MaxUnpool: output is too large");
    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = rank;
    memcpy(y->dims, st.def_dims, sizeof(int64_t) * (size_t)rank);
    int64_t shape[KN_MAX_RANK];
    int32_t nshape;
    if ((rc = img_const_ints(k, 2, "output_shape", shape, KN_MAX_RANK, &nshape)) != KN_OK)
        return rc;
    if (nshape >= 0) {
        if (nshape != rank)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                           "MaxUnpool: output_shape has %d values "
                           "for rank %d",
                           (int)nshape, (int)rank);
        for (int32_t d = 0; d < rank; d++)
            if (shape[d] < 0)
                return kn_fail(k->err, KN_ERR_INVALID_MODEL, "MaxUnpool: output_shape[%d] < 0",
                               (int)d);
        memcpy(y->dims, shape, sizeof(int64_t) * (size_t)rank);
        if (kn_shape_numel(y->dims, rank) < 0)
            return kn_fail(k->err, KN_ERR_SHAPE, "MaxUnpool: output_shape is too large");
        st.reshaped = !kn_shape_equal(y->dims, rank, st.def_dims, rank);
    }
    unpool_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "MaxUnpool: out of memory");
    *s = st;
    k->state = s;
    return KN_OK;
}

/* A scatter: serial, so repeated indices resolve the same way every run
 * (the last write wins). */
static int unpool_run(kn_kctx *k)
{
    const unpool_state *st = k->state;
    const kn_tensor *y = k->out[0];
    const int64_t *ind = k->in[1]->data;
    const char *x = k->in[0]->data;
    char *out = y->data;
    int64_t n = kn_tensor_numel(k->in[0]), ynum = kn_tensor_numel(y);
    if (ynum > 0)
        memset(out, 0, (size_t)ynum * st->esz);
    for (int64_t i = 0; i < n; i++) {
        int64_t at = ind[i];
        if (at < 0 || at >= st->def_numel)
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                           "MaxUnpool: index %lld at %lld is outside the output (%lld elements)",
                           (long long)at, (long long)i, (long long)st->def_numel);
        if (st->reshaped) { /* same coordinates in the requested shape */
            int64_t rem = at, pos = 0, mul = 1;
            for (int32_t d = st->rank - 1; d >= 0; d--) {
                int64_t c = rem % st->def_dims[d];
                rem /= st->def_dims[d];
                if (c >= y->dims[d])
                    return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                                   "MaxUnpool: index %lld falls outside output_shape",
                                   (long long)at);
                pos += c * mul;
                mul *= y->dims[d];
            }
            at = pos;
        }
        memcpy(out + (size_t)at * st->esz, x + (size_t)i * st->esz, st->esz);
    }
    return KN_OK;
}

static void unpool_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_maxunpool_9 = {
    .op_type = "MaxUnpool", .since_version = 9, .dtypes = KN_MASK_ANY_FIXED,
    .prepare = unpool_prepare, .run = unpool_run, .release = unpool_release
};
