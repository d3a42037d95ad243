/* MaxPool and AveragePool on cuDNN, float, 1-D to 3-D (1-D as 2-D with a
 * unit dim), and kiln.NhwcMaxPool / NhwcAveragePool (2-D, channels-last).
 * AveragePool's count_include_pad picks cuDNN's mode. The windows cuDNN
 * cannot describe (dilations, asymmetric pads, a ceil_mode that adds a
 * window: cuDNN rounds down) go to Kiln's own kernel (pool.cu); MaxPool's
 * Indices output is declined to the next backend. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda/cuda_kernels.h"
#include "core/cuda/cudnn_descs.h"

typedef struct pool_state {
    kn_cudnn_descs d;     /* x, y, pool */
    kn_cudaKernel direct; /* pool.cu's kernel instead of cuDNN, with p */
    kn_cuda_pool p;
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

/* The window as the node states it (auto_pad from the output the CPU
 * kernel's shape rule gave) for pool.cu's kernel, or KN_ERR_DECLINE. */
static int direct_prepare(kn_kctx *k, int nhwc, int is_max)
{
    const kn_tensor *x = k->in[0];
    int32_t nsp = x->rank - 2, n_kernel = 0, n_pads = 0, n_strides = 0, n_dil = 0;
    const int64_t *kernel = kn_attr_ints(k->node, "kernel_shape", &n_kernel);
    const int64_t *pads = kn_attr_ints(k->node, "pads", &n_pads);
    const int64_t *strides = kn_attr_ints(k->node, "strides", &n_strides);
    const int64_t *dil = kn_attr_ints(k->node, "dilations", &n_dil);
    const char *auto_pad = kn_attr_string(k->node, "auto_pad", "NOTSET");
    if (nsp < 1 || nsp > 3 || n_kernel != nsp || (n_pads && n_pads != 2 * nsp) ||
        (n_strides && n_strides != nsp) || (n_dil && n_dil != nsp))
        return KN_ERR_DECLINE;
    int rc = kn_cuda_shapes_from_cpu(k);
    if (rc != KN_OK)
        return rc;
    const kn_tensor *y = k->out[0];
    int64_t xd[5], yd[5];
    kn_cuda_nchw_dims(x, nhwc, xd);
    kn_cuda_nchw_dims(y, nhwc, yd);
    kn_cuda_pool p = {.n = kn_tensor_numel(y),
                      .nsp = nsp,
                      .mode = is_max ? KN_CUDA_POOL_MAX
                              : kn_attr_int(k->node, "count_include_pad", 0) != 0 &&
                                      (nhwc || k->opset >= 7)
                                  ? KN_CUDA_POOL_AVERAGE_INCLUDE_PAD
                                  : KN_CUDA_POOL_AVERAGE_EXCLUDE_PAD,
                      .nhwc = nhwc,
                      .batch = xd[0],
                      .channels = xd[1]};
    int same = strncmp(auto_pad, "SAME_", 5) == 0;
    for (int32_t d = 0; d < nsp; d++) {
        p.in[d] = xd[2 + d];
        p.out[d] = yd[2 + d];
        p.kernel[d] = kernel[d];
        p.stride[d] = n_strides ? strides[d] : 1;
        p.dilation[d] = n_dil ? dil[d] : 1;
        int explicit_pads = n_pads && strcmp(auto_pad, "NOTSET") == 0;
        p.pad[d] = explicit_pads ? pads[d] : 0;
        p.pad_end[d] = explicit_pads ? pads[nsp + d] : 0;
        if (same) {
            int64_t span = (kernel[d] - 1) * p.dilation[d] + 1;
            int64_t total = (p.out[d] - 1) * p.stride[d] + span - p.in[d];
            total = total < 0 ? 0 : total;
            p.pad[d] = auto_pad[5] == 'U' ? total / 2 : total - total / 2;
            p.pad_end[d] = total - p.pad[d];
        }
    }
    pool_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    st->p = p;
    k->state = st;
    st->direct = kn_cuda_kernel(kn_cuda_dev(k), "pool", "kn_pool_f32", k->err);
    if (!st->direct) {
        free(st);
        k->state = NULL;
        return k->err->code;
    }
    return KN_OK;
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
            return direct_prepare(k, nhwc, is_max);
    kn_cuda_window win;
    int rc = kn_cuda_window_read(k, nsp, xd + 2, kernel, 0, &win);
    if (rc == KN_ERR_DECLINE)
        return direct_prepare(k, nhwc, is_max);
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
    if (st->direct) {
        const void *x = k->in[0]->data;
        void *y = k->out[0]->data;
        void *args[] = {&x, &y, &st->p};
        return kn_cuda_launch_1d(k, st->direct, st->p.n, args);
    }
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
