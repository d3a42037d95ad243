/* Geometry shared by the oneDNN convolutions (float dnnl_conv.c, integer
 * dnnl_qconv.c): logical dims of activations stored NCHW or NHWC, and the
 * window attributes in oneDNN's terms. */
#ifndef KN_DNNL_CONV_GEOMETRY_H
#define KN_DNNL_CONV_GEOMETRY_H

#include "core/dnnl/dnnl_common.h"

/* Logical (N, C, spatial...) dims of an activation stored NCHW or NHWC. */
void kn_dnnl_logical_dims(const kn_tensor *t, int nhwc, int64_t *dims);

typedef struct kn_dnnl_conv_window {
    int64_t yd[KN_MAX_RANK]; /* logical output dims (N, C_out, spatial...) */
    dnnl_dims_t strides, dil, pad_l, pad_r; /* dilation 0 = dense, oneDNN's way */
} kn_dnnl_conv_window;

/* The window of convolution node k over logical input dims xd with weights
 * [C_out, C_in/group, k...]; KN_ERR_DECLINE when the attributes are bad
 * (left to the CPU kernel to report). */
int kn_dnnl_conv_window_init(kn_kctx *k, const int64_t *xd, int32_t rank, const kn_tensor *w,
                             kn_dnnl_conv_window *cw);

/* Y's stored dims (NCHW or NHWC order) from the logical ones. */
void kn_dnnl_stored_dims(kn_tensor *y, int32_t rank, const int64_t *yd, int nhwc);

#endif
