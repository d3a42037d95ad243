/* Convolution geometry for the oneDNN kernels (dnnl_conv_geometry.h). */
#include "core/dnnl/dnnl_conv_geometry.h"

#include "core/kernel/im2col.h"

void kn_dnnl_logical_dims(const kn_tensor *t, int nhwc, int64_t *dims)
{
    int32_t r = t->rank;
    dims[0] = t->dims[0];
    dims[1] = nhwc ? t->dims[r - 1] : t->dims[1];
    for (int32_t i = 2; i < r; i++)
        dims[i] = nhwc ? t->dims[i - 1] : t->dims[i];
}

int kn_dnnl_conv_window_init(kn_kctx *k, const int64_t *xd, int32_t rank, const kn_tensor *w,
                             kn_dnnl_conv_window *cw)
{
    int32_t nsp = rank - 2;
    kn_window win;
    kn_window_opts opts = {.op = k->node->op_type, .kernel = w->dims + 2, .dilations = 1};
    if (kn_window_init(&win, k->node, xd + 2, nsp, &opts, k->err) != KN_OK)
        return kn_fail(k->err, KN_ERR_DECLINE, "left to the CPU kernel to report");
    cw->yd[0] = xd[0];
    cw->yd[1] = w->dims[0];
    for (int32_t i = 0; i < nsp; i++) {
        int32_t c = KN_WIN_DIMS - nsp + i;
        cw->yd[2 + i] = win.out[c];
        cw->strides[i] = win.stride[c];
        cw->dil[i] = win.dilation[c] - 1;
        cw->pad_l[i] = win.pad_begin[c];
        cw->pad_r[i] = win.pad_end[c];
    }
    return KN_OK;
}

void kn_dnnl_stored_dims(kn_tensor *y, int32_t rank, const int64_t *yd, int nhwc)
{
    y->rank = rank;
    y->dims[0] = yd[0];
    for (int32_t i = 1; i < rank; i++)
        y->dims[i] = nhwc ? (i == rank - 1 ? yd[1] : yd[i + 1]) : yd[i];
}
