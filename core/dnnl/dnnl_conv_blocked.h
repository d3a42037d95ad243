/* 3-D convolutions through oneDNN's blocked layouts (dnnl_conv_blocked.c).
 * oneDNN 2.6 has no fast kernel for plain NCDHW activations: it runs them
 * as im2col + GEMM ("gemm:jit"), 1.5x slower than ONNX Runtime on a video
 * ResNet. Given "any" layout it picks a blocked one (nCdhw16c) and its
 * direct kernels; this path reorders X (and a residual Z) into that layout,
 * runs the convolution and reorders Y back, all inside the kernel. */
#ifndef KN_DNNL_CONV_BLOCKED_H
#define KN_DNNL_CONV_BLOCKED_H

#include "core/dnnl/dnnl_common.h"

typedef struct kn_conv_blocked {
    int on, has_z;
    kn_dnnl_prim x_in, z_in, conv, y_out;
} kn_conv_blocked;

/* KN_ERR_DECLINE (c untouched, k->scratch_bytes restored) when oneDNN
 * would keep the plain layouts anyway. xmd, ymd: the plain X and Y; with_z:
 * input 3 is a residual added to Y (a sum post-op); after: an activation
 * Kiln applies to Y at the end. */
int kn_conv_blocked_build(kn_kctx *k, kn_conv_blocked *c, const dnnl_memory_desc_t *xmd,
                          const dnnl_memory_desc_t *ymd, const dnnl_memory_desc_t *wmd_user,
                          const void *w_data, const dnnl_memory_desc_t *bmd,
                          const dnnl_dims_t strides, const dnnl_dims_t dil,
                          const dnnl_dims_t pad_l, const dnnl_dims_t pad_r,
                          const kn_activation *act, int with_z, const kn_activation *after);
int kn_conv_blocked_run(kn_kctx *k, kn_conv_blocked *c);
void kn_conv_blocked_destroy(kn_conv_blocked *c);

#endif
