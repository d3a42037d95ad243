/* MaxPool and AveragePool on cuDNN, float, 1-D to 3-D (1-D as 2-D with a
 * unit dim), and kiln.NhwcMaxPool / NhwcAveragePool (2-D, channels-last). Declined: MaxPool's
 * Indices output, dilations, asymmetric pads, and a ceil_mode that adds a window (cuDNN rounds
 * down); they run on the next backend. AveragePool's count_include_pad picks cuDNN's mode. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda/cuda_kernels.h"
#include "core/cuda/cudnn_descs.h"

typedef struct pool_state {
    kn_cudnn_descs d; /* x, y, pool */
} pool_state;

static void pool_release(kn_kctx *k)
{
    pool_state *st = k->state;
    if (!st)
        return;
    kn_cudnn_descs_destroy(kn_cuda_dev(k)->api, &st->d);
    free(st);
    k->state = NULL;
}

static int pool_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    const kn_tensor *x = k->in[0];
    /* kiln.NhwcMaxPool / NhwcAveragePool: the same on channels-last X and Y */
    int nhwc = strncmp(k->node->op_type, "Nhwc", 4) == 0;
    int is_max = strcmp(k->node->op_type + (nhwc ? 4 : 0), "MaxPool") == 0;
    if (!x || x->dtype != KN_FLOAT || x->rank < 3 || x->rank > 5 || (k->n_out > 1 && k->out[1]) ||
        (nhwc && x->rank != 4))
        return KN_ERR_DECLINE;
    int64_t xd[5], yd[5];
    kn_cuda_nchw_dims(x, nhwc, xd);
    int32_t nsp = x->rank - 2, n_kernel = 0, n_dil = 0;
    const int64_t *kernel = kn_attr_ints(k->node, "kernel_shape", &n_kernel);
    const int64_t *dil = kn_attr_ints(k->node, "dilations", &n_dil);
    if (n_kernel != nsp)
        return KN_ERR_DECLINE;
    for (int32_t d = 0; d < n_dil; d++)
        if (dil[d] != 1)
            return KN_ERR_DECLINE;
    kn_cuda_window win;
    int rc = kn_cuda_window_read(k, nsp, xd + 2, kernel, 0, &win);
    if (rc != KN_OK)
        return rc;
    kn_cuda_window_output(k->out[0], xd, x->rank, xd[1], &win, nhwc, yd);

    pool_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    k->state = st;
    int window[3];
    int32_t rank = x->rank == 3 ? 4 : x->rank;
    for (int32_t d = 0; d < nsp; d++)
        window[d] = (int)kernel[d];
    if (x->rank == 3) {
        xd[3] = yd[3] = 1;
        window[1] = 1;
        win.pads[1] = 0;
        win.strides[1] = 1;
    }
    const kn_cuda_device *dev = kn_cuda_dev(k);
    int mode = is_max ? KN_CUDNN_POOLING_MAX
               : kn_attr_int(k->node, "count_include_pad", 0)
                   ? KN_CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                   : KN_CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    rc = kn_cuda_tensor_desc(k, &st->d.x, xd, rank, nhwc);
    if (rc == KN_OK)
        rc = kn_cuda_tensor_desc(k, &st->d.y, yd, rank, nhwc);
    if (rc == KN_OK)
        rc = kn_cudnn_check(dev, dev->api->cudnnCreatePoolingDescriptor(&st->d.pool),
                            "creating the pooling", k->err);
    if (rc == KN_OK)
        rc = kn_cudnn_check(dev,
                            dev->api->cudnnSetPoolingNdDescriptor(st->d.pool, mode,
                                                                  KN_CUDNN_PROPAGATE_NAN, rank - 2,
                                                                  window, win.pads, win.strides),
                            "describing the pooling", k->err);
    if (rc != KN_OK)
        pool_release(k);
    return rc;
}

static int pool_run(kn_kctx *k)
{
    pool_state *st = k->state;
    kn_cuda_device *dev = kn_cuda_dev(k);
    if (kn_tensor_numel(k->out[0]) == 0)
        return KN_OK;
    float one = 1.0f, zero = 0.0f;
    int rc = kn_cuda_use(dev, k->err);
    if (rc != KN_OK)
        return rc;
    pthread_mutex_lock(&dev->dnn_lock);
    rc = kn_cudnn_check(dev, dev->api->cudnnSetStream(dev->dnn, k->stream), "setting the stream",
                        k->err);
    if (rc == KN_OK)
        rc = kn_cudnn_check(dev,
                            dev->api->cudnnPoolingForward(dev->dnn, st->d.pool, &one, st->d.x,
                                                          k->in[0]->data, &zero, st->d.y,
                                                          k->out[0]->data),
                            k->node->op_type, k->err);
    pthread_mutex_unlock(&dev->dnn_lock);
    return rc;
}

#define F32 KN_BIT(KN_FLOAT)
const kn_op_def kn_cuda_MaxPool = {.op_type = "MaxPool",
                                   .since_version = 1,
                                   .dtypes = F32,
                                   .prepare = pool_prepare,
                                   .run = pool_run,
                                   .release = pool_release};
const kn_op_def kn_cuda_kiln_NhwcMaxPool = {.domain = "kiln",
                                            .op_type = "NhwcMaxPool",
                                            .since_version = 1,
                                            .dtypes = F32,
                                            .prepare = pool_prepare,
                                            .run = pool_run,
                                            .release = pool_release};
const kn_op_def kn_cuda_kiln_NhwcAveragePool = {.domain = "kiln",
                                                .op_type = "NhwcAveragePool",
                                                .since_version = 1,
                                                .dtypes = F32,
                                                .prepare = pool_prepare,
                                                .run = pool_run,
                                                .release = pool_release};
const kn_op_def kn_cuda_AveragePool = {.op_type = "AveragePool",
                                       .since_version = 1,
                                       .dtypes = F32,
                                       .prepare = pool_prepare,
                                       .run = pool_run,
                                       .release = pool_release};
