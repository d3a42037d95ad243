/* The descriptors and NCHW views the cuDNN-backed ops share (cudnn_descs.h). */
#include <string.h>

#include "core/cuda/cudnn_descs.h"

void kn_cudnn_descs_destroy(const kn_cuda_api *api, kn_cudnn_descs *d)
{
    if (d->x)
        api->cudnnDestroyTensorDescriptor(d->x);
    if (d->y)
        api->cudnnDestroyTensorDescriptor(d->y);
    if (d->b)
        api->cudnnDestroyTensorDescriptor(d->b);
    if (d->w)
        api->cudnnDestroyFilterDescriptor(d->w);
    if (d->conv)
        api->cudnnDestroyConvolutionDescriptor(d->conv);
    if (d->pool)
        api->cudnnDestroyPoolingDescriptor(d->pool);
    if (d->activation)
        api->cudnnDestroyActivationDescriptor(d->activation);
    memset(d, 0, sizeof *d);
}

void kn_cuda_nchw_dims(const kn_tensor *t, int nhwc, int64_t *dims)
{
    memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
    if (nhwc) {
        dims[1] = t->dims[3];
        dims[2] = t->dims[1];
        dims[3] = t->dims[2];
    }
}

void kn_cuda_window_output(kn_tensor *y, const int64_t *xd, int32_t rank, int64_t channels,
                           const kn_cuda_window *win, int nhwc, int64_t *yd)
{
    y->dtype = KN_FLOAT;
    y->rank = rank;
    yd[0] = xd[0];
    yd[1] = channels;
    for (int32_t d = 0; d < rank - 2; d++)
        yd[2 + d] = win->out[d];
    memcpy(y->dims, yd, sizeof(int64_t) * (size_t)rank);
    if (nhwc) {
        y->dims[1] = yd[2];
        y->dims[2] = yd[3];
        y->dims[3] = channels;
    }
}
