/* What the cuDNN-backed ops (Conv and its fused forms, the pools) share to
 * describe a node to cuDNN: the descriptors they hold between prepare and
 * release, and the NCHW view of a tensor that may be channels-last. */
#ifndef KN_CUDA_CUDNN_DESCS_H
#define KN_CUDA_CUDNN_DESCS_H

#include "core/cuda/cuda_api.h"
#include "core/cuda/cuda_kernels.h"

/* Every descriptor kind such a node uses; the ones it does not use, or has
 * not created yet when its prepare fails, stay NULL. */
typedef struct kn_cudnn_descs {
    kn_cudnnTensorDesc x, y, b;
    kn_cudnnFilterDesc w;
    kn_cudnnConvDesc conv;
    kn_cudnnPoolingDesc pool;
    kn_cudnnActivationDesc activation;
} kn_cudnn_descs;

/* Destroys the descriptors that are not NULL and sets them to NULL. */
void kn_cudnn_descs_destroy(const kn_cuda_api *api, kn_cudnn_descs *d);

/* t's dims in NCHW order whatever its layout: the order cuDNN's descriptors
 * and the window arithmetic take (nhwc: t is rank 4, channels-last). */
void kn_cuda_nchw_dims(const kn_tensor *t, int nhwc, int64_t *dims);

/* Sets y, the output of a sliding window over X (NCHW dims xd), to float
 * with `channels` channels and the window's spatial dims, channels-last
 * when nhwc; yd gets its NCHW dims. */
void kn_cuda_window_output(kn_tensor *y, const int64_t *xd, int32_t rank, int64_t channels,
                           const kn_cuda_window *win, int nhwc, int64_t *yd);

#endif
