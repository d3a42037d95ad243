/* The CUDA backend: Kiln's kernels on an NVIDIA GPU, through the CUDA
 * runtime, cuBLASLt (matrix products) and cuDNN (convolutions, pooling),
 * loaded at run time (cuda_libs.h says why), plus Kiln's own device code
 * embedded as fatbins (cuda_fatbins.h). Opt-in: only a session that asks
 * for device "cuda" or "cuda:N" loads the GPU stack; not offered eager
 * plans, whose kernels are rebuilt on every run. */
#include <pthread.h>
#include <stddef.h>

#include "core/cuda/cuda_api.h"
#include "core/cuda/cuda_device.h"
#include "core/kernel/backend.h"

extern const kn_op_def *const kn_cuda_elementwise_ops[],
    *const kn_cuda_tensor_ops[], *const kn_cuda_product_ops[],
                                     *const kn_cuda_conv_pool_ops[],
                                         *const kn_cuda_row_ops[], *const kn_cuda_attention_ops[];
extern const kn_op_def *const kn_cuda_image_ops[];

static const kn_op_def *const *const cuda_tables[] = {
    kn_cuda_elementwise_ops,
    kn_cuda_tensor_ops,
    kn_cuda_product_ops,
    kn_cuda_conv_pool_ops,
    kn_cuda_row_ops,
    kn_cuda_attention_ops,
    kn_cuda_image_ops,
    NULL,
};

static int cuda_usable = 0;
static kn_err cuda_why;
static pthread_once_t cuda_probe_once = PTHREAD_ONCE_INIT;

static void probe(void)
{
    const kn_cuda_api *api = kn_cuda_api_get(&cuda_why);
    int count = 0;
    cuda_usable = api && kn_cuda_device_count(&api->libs, &count, &cuda_why) == KN_OK;
}

/* The libraries load and the driver sees a device. */
static int cuda_available(void)
{
    pthread_once(&cuda_probe_once, probe);
    return cuda_usable;
}

const char *kn_cuda_unavailable_reason(void) { return cuda_available() ? NULL : cuda_why.msg; }

const kn_backend kn_backend_cuda = {
    .name = "cuda",
    .available = cuda_available,
    .kernel_tables = cuda_tables,
    .memory =
        {
            .kind = KN_MEMORY_DEVICE,
            .open = kn_cuda_device_open,
            .close = kn_cuda_device_close,
            .alloc = kn_cuda_device_alloc,
            .free = kn_cuda_device_free,
            .copy = kn_cuda_device_copy,
            .stream_create = kn_cuda_stream_create,
            .stream_destroy = kn_cuda_stream_destroy,
            .stream_sync = kn_cuda_stream_sync,
            .describe = kn_cuda_device_describe,
            .graph_begin = kn_cuda_graph_begin,
            .graph_end = kn_cuda_graph_end,
            .graph_launch = kn_cuda_graph_launch,
            .graph_destroy = kn_cuda_graph_destroy,
        },
    /* tuned: its products and convolutions time cuBLASLt's and cuDNN's
     * algorithms themselves (cuda_tuning.h) */
    .flags = KN_BACKEND_OPT_IN | KN_BACKEND_NOT_EAGER | KN_BACKEND_TUNED,
};
