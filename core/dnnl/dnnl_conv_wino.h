/* A 3x3, stride-1 NHWC convolution on oneDNN's Winograd kernels (F(4x4,
 * 3x3) and F(2x2, 3x3) on AVX-512): they take blocked nChw16c activations
 * only, so X is reordered into scratch, convolved there and the result
 * reordered back into Y. */
#ifndef KN_DNNL_CONV_WINO_H
#define KN_DNNL_CONV_WINO_H

#include "core/dnnl/dnnl_common.h"

typedef struct kn_conv_wino {
    int on;
    kn_dnnl_prim to_blocked, conv, from_blocked;
} kn_conv_wino;

/* The convolution X (xmd, NHWC) * W (wmd_user, constant w_data) + bias
 * (bmd, or NULL) -> Y (ymd, NHWC), padding pad_l / pad_r, activation act as
 * a post-op and `after` applied by Kiln to Y. Leaves w->on 0 and returns
 * KN_ERR_DECLINE when oneDNN has no Winograd kernel for it. */
int kn_conv_wino_build(kn_kctx *k, kn_conv_wino *w, const dnnl_memory_desc_t *xmd,
                       const dnnl_memory_desc_t *ymd, const dnnl_memory_desc_t *wmd_user,
                       const void *w_data, const dnnl_memory_desc_t *bmd,
                       const dnnl_dims_t pad_l, const dnnl_dims_t pad_r,
                       const kn_activation *act, const kn_activation *after);
int kn_conv_wino_run(kn_kctx *k, kn_conv_wino *w);
void kn_conv_wino_destroy(kn_conv_wino *w);

#endif
