/* What the CUDA backend's kernel files share on the host side: building
 * the walks and activations their device kernels take (device_params.h),
 * output shapes from the portable kernel's prepare, and the epilogue
 * launches several families use. */
#ifndef KN_CUDA_KERNELS_H
#define KN_CUDA_KERNELS_H

#include "core/cuda/cuda_device.h"
#include "core/cuda/device_params.h"
#include "core/kernel/op.h"

/* The walk of y = f(a, b) with numpy broadcasting (b may be NULL: a unary
 * walk); a and b must broadcast to y's shape (checked by the caller). */
void kn_cuda_walk_binary(kn_cuda_walk *w, const kn_tensor *y, const kn_tensor *a,
                         const kn_tensor *b);

/* The fused node's `activation` / `activation_params` (fused_common.h) as
 * a device activation. */
int kn_cuda_node_activation(kn_kctx *k, kn_cuda_act *act);

/* Sets the output dtypes and shapes as the portable (CPU) kernel for the
 * node would: prepares that kernel on the node's host-side view and
 * releases it again. For ops whose shape rules are long (Reshape, Slice,
 * Gather, Concat, MatMul) the two backends then cannot disagree. */
int kn_cuda_shapes_from_cpu(kn_kctx *k);

/* Queues y = act(y + bias[channel]) over y (bias may be NULL), channel =
 * (i / inner) % channels. */
int kn_cuda_bias_act(kn_kctx *k, float *y, const float *bias, int64_t n, int64_t inner,
                     int64_t channels, const kn_cuda_act *act);

/* Queues y = act(a OP b) with broadcasting (KN_CUDA_B_*). */
int kn_cuda_binary(kn_kctx *k, int op, const kn_tensor *a, const kn_tensor *b, kn_tensor *y,
                   const kn_cuda_act *act);

/* Whether a and b have the same rank and dims. */
int kn_cuda_same_shape(const kn_tensor *a, const kn_tensor *b);

/* A sliding window (Conv, pooling) over `nsp` spatial dims: the node's
 * strides, dilations, pads / auto_pad for input spatial dims `in` and
 * kernel dims `kernel`, giving the output dims. cuDNN pads both sides of a
 * dim alike: KN_ERR_DECLINE when the node's pads differ, or when ceil_mode
 * makes the output longer than cuDNN's floor gives. */
typedef struct kn_cuda_window {
    int32_t nsp;
    int pads[3], strides[3], dilations[3];
    int64_t out[3];
} kn_cuda_window;
int kn_cuda_window_read(kn_kctx *k, int32_t nsp, const int64_t *in, const int64_t *kernel,
                        int with_dilations, kn_cuda_window *w);

/* Sets a cuDNN tensor descriptor for logical NCHW dims (rank 4 or 5;
 * callers pad a 1-D case to 2-D), laid out NCHW-contiguous, or
 * channels-last (NHWC) when nhwc. */
int kn_cuda_tensor_desc(kn_kctx *k, kn_cudnnTensorDesc *desc, const int64_t *dims, int32_t rank,
                        int nhwc);
/* The same with elements of cuDNN data type `type` (KN_CUDNN_DATA_*). */
int kn_cuda_tensor_desc_typed(kn_kctx *k, kn_cudnnTensorDesc *desc, const int64_t *dims,
                              int32_t rank, int nhwc, int type);

#endif
