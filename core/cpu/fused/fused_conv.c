/* kiln.FusedConv(X, W, B?, Z?): Y = act(Conv(X, W) + B + Z), float.
 * Every Conv attribute (auto_pad, dilations, group, kernel_shape, pads,
 * strides) plus `activation` and `activation_params` (fused_common.h).
 * Z, the residual, has Y's shape (then it is added inside the conv's own
 * epilogue, kn_conv_f32) or broadcasts to it (added afterwards). */
#include <stdlib.h>

#include "core/cpu/nn/conv.h"
#include "core/kernel/fused_common.h"
#include "core/kernel/tensor_common.h"

typedef struct fconv_state {
    kn_conv_params p;
    kn_activation act;
    int z_same_shape;
} fconv_state;

static void fconv_release(kn_kctx *k)
{
    fconv_state *st = k->state;
    if (st)
        kn_conv_release(&st->p);
    free(st);
    k->state = NULL;
}

static int same_shape(const kn_tensor *a, const kn_tensor *b)
{
    if (a->rank != b->rank)
        return 0;
    for (int32_t d = 0; d < a->rank; d++)
        if (a->dims[d] != b->dims[d])
            return 0;
    return 1;
}

static int check_inputs(kn_kctx *k)
{
    const kn_tensor *x = k->in[0], *w = k->n_in > 1 ? k->in[1] : NULL;
    const kn_tensor *b = k->n_in > 2 ? k->in[2] : NULL;
    if (!x || !w)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "FusedConv: inputs X and W are required");
    if (w->dtype != KN_FLOAT || x->dtype != KN_FLOAT || (b && b->dtype != KN_FLOAT))
        return kn_fail(k->err, KN_ERR_DTYPE, "FusedConv: X, W and B must be float");
    if (x->rank < 3 || x->rank > 5 || w->rank != x->rank)
        return kn_fail(k->err, KN_ERR_SHAPE, "FusedConv: X has rank %d and W rank %d, expected "
                       "both N x C x 1 to 3 spatial dims", (int)x->rank, (int)w->rank);
    int64_t group = kn_attr_int(k->node, "group", 1);
    int64_t cin = x->dims[1], cout = w->dims[0];
    if (group < 1 || cin % group != 0 || cout % group != 0 || w->dims[1] * group != cin)
        return kn_fail(k->err, KN_ERR_SHAPE, "FusedConv: group %lld does not fit input channels "
                       "%lld, weight %lld x %lld", (long long)group, (long long)cin,
                       (long long)cout, (long long)w->dims[1]);
    if (b && (b->rank != 1 || b->dims[0] != cout))
        return kn_fail(k->err, KN_ERR_SHAPE, "FusedConv: bias must be 1-D of %lld (output "
                       "channels)", (long long)cout);
    return KN_OK;
}

static int fconv_prepare(kn_kctx *k)
{
    int rc = check_inputs(k);
    if (rc != KN_OK)
        return rc;
    const kn_tensor *x = k->in[0], *w = k->in[1];
    const kn_tensor *z = k->n_in > 3 ? k->in[3] : NULL;
    fconv_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "FusedConv: out of memory");
    k->state = st;
    rc = kn_fused_activation(k, &st->act);
    int32_t nsp = x->rank - 2;
    kn_window win;
    kn_window_opts opts = {.op = "FusedConv", .kernel = w->dims + 2, .dilations = 1};
    if (rc == KN_OK)
        rc = kn_window_init(&win, k->node, x->dims + 2, nsp, &opts, k->err);
    if (rc == KN_OK)
        rc = kn_conv_init(&st->p, KN_FLOAT, &win, x->dims[0], x->dims[1], w->dims[0],
                          kn_attr_int(k->node, "group", 1), w->data,
                          kn_threadpool_threads(k->threads), k->err);
    if (rc != KN_OK) {
        fconv_release(k);
        return rc;
    }
    k->scratch_bytes = st->p.scratch_bytes;
    kn_tensor *y = k->out[0];
    y->dtype = KN_FLOAT;
    y->rank = x->rank;
    y->dims[0] = x->dims[0];
    y->dims[1] = w->dims[0];
    for (int32_t i = 0; i < nsp; i++)
        y->dims[2 + i] = win.out[KN_WIN_DIMS - nsp + i];
    if (z) {
        kn_tensor both;
        if (z->dtype != KN_FLOAT)
            rc = kn_fail(k->err, KN_ERR_DTYPE, "FusedConv: Z is %s, expected float",
                         kn_dtype_name(z->dtype));
        else if (kn_broadcast_shape(y, z, &both, k->err) != KN_OK || !same_shape(&both, y))
            rc = kn_fail(k->err, KN_ERR_SHAPE, "FusedConv: Z does not broadcast to Y's shape");
        st->z_same_shape = same_shape(z, y);
    }
    if (rc != KN_OK)
        fconv_release(k);
    return rc;
}

static int fconv_run(kn_kctx *k)
{
    const fconv_state *st = k->state;
    const kn_tensor *b = k->n_in > 2 ? k->in[2] : NULL;
    const kn_tensor *z = k->n_in > 3 ? k->in[3] : NULL;
    if (kn_tensor_numel(k->out[0]) == 0)
        return KN_OK;
    if (!z || st->z_same_shape) {
        kn_conv_f32(&st->p, k->in[0]->data, k->in[1]->data, b ? b->data : NULL,
                    z ? z->data : NULL, &st->act, k->out[0]->data, k->scratch, k->threads);
        return KN_OK;
    }
    kn_conv_f32(&st->p, k->in[0]->data, k->in[1]->data, b ? b->data : NULL, NULL, NULL,
                k->out[0]->data, k->scratch, k->threads);
    if (z)
        kn_fused_add_act(k->threads, k->out[0], z, &st->act);
    else
        kn_fused_act(k->threads, k->out[0]->data, kn_tensor_numel(k->out[0]), &st->act);
    return KN_OK;
}

const kn_op_def kn_op_kiln_FusedConv = {
    .domain = "kiln", .op_type = "FusedConv", .since_version = 1, .dtypes = KN_BIT(KN_FLOAT),
    .prepare = fconv_prepare, .run = fconv_run, .release = fconv_release
};
