#include "core/cuda/cuda_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda/cuda_fatbins.h"
#include "core/kernel/backend.h"

int kn_cuda_check(const kn_cuda_device *dev, kn_cudaError status, const char *what, kn_err *err)
{
    if (status == KN_cudaSuccess)
        return KN_OK;
    const char *msg = dev->api->libs.cudaGetErrorString(status);
    return kn_fail(err, KN_ERR_INTERNAL, "CUDA device %d: %s: %s (%d)", dev->index, what,
                   msg ? msg : "?", status);
}

int kn_cublas_check(const kn_cuda_device *dev, kn_cublasStatus status, const char *what,
                    kn_err *err)
{
    if (status == KN_CUBLAS_STATUS_SUCCESS)
        return KN_OK;
    const char *msg = dev->api->cublasLtGetStatusString(status);
    return kn_fail(err, KN_ERR_INTERNAL, "CUDA device %d: cuBLASLt %s: %s (%d)", dev->index, what,
                   msg ? msg : "?", status);
}

int kn_cudnn_check(const kn_cuda_device *dev, kn_cudnnStatus status, const char *what, kn_err *err)
{
    if (status == KN_CUDNN_STATUS_SUCCESS)
        return KN_OK;
    const char *msg = dev->api->cudnnGetErrorString(status);
    return kn_fail(err, KN_ERR_INTERNAL, "CUDA device %d: cuDNN %s: %s (%d)", dev->index, what,
                   msg ? msg : "?", status);
}

int kn_cuda_use(const kn_cuda_device *dev, kn_err *err)
{
    return kn_cuda_check(dev, dev->api->cudaSetDevice(dev->index), "cudaSetDevice", err);
}

void kn_cuda_device_read_description(kn_cuda_device *dev)
{
    const kn_cuda_api *api = dev->api;
    _Alignas(16) char prop[KN_CUDA_DEVICE_PROP_BYTES] = {0};
    const char *name = "unknown NVIDIA GPU";
    if (api->cudaGetDeviceProperties((kn_cudaDeviceProp *)(void *)prop, dev->index) ==
        KN_cudaSuccess) {
        prop[255] = '\0'; /* the name is char[256] at the start of the struct */
        name = prop;
    }
    int driver = 0, runtime = 0;
    api->libs.cudaDriverGetVersion(&driver);
    api->libs.cudaRuntimeGetVersion(&runtime);
    size_t lt = api->libs.cublasLtGetVersion(), dnn = api->libs.cudnnGetVersion();
    snprintf(dev->description, sizeof dev->description,
             "%.200s (sm_%d%d, %d SMs), driver CUDA %d.%d, runtime CUDA %d.%d, cuBLASLt %zu.%zu.%zu, "
             "cuDNN %zu.%zu.%zu",
             name, dev->cc_major, dev->cc_minor, dev->sm_count, driver / 1000, driver % 1000 / 10,
             runtime / 1000, runtime % 1000 / 10, lt / 10000, lt / 100 % 100, lt % 100, dnn / 10000,
             dnn / 100 % 100, dnn % 100);
}

static int load_modules(kn_cuda_device *dev, kn_err *err)
{
    for (int i = 0; kn_cuda_fatbins[i].name; i++) {
        if (i >= KN_CUDA_MAX_MODULES)
            return kn_fail(err, KN_ERR_INTERNAL, "CUDA: more than %d embedded modules",
                           KN_CUDA_MAX_MODULES);
        char what[96];
        snprintf(what, sizeof what, "loading Kiln's %s kernels", kn_cuda_fatbins[i].name);
        int rc =
            kn_cuda_check(dev,
                          dev->api->cudaLibraryLoadData(&dev->modules[i], kn_cuda_fatbins[i].data,
                                                        NULL, NULL, 0, NULL, NULL, 0),
                          what, err);
        if (rc != KN_OK)
            return rc;
        dev->n_modules = i + 1;
    }
    return KN_OK;
}

void kn_cuda_device_close(void *handle)
{
    kn_cuda_device *dev = handle;
    if (!dev)
        return;
    const kn_cuda_api *api = dev->api;
    api->cudaSetDevice(dev->index);
    for (int i = 0; i < dev->n_modules; i++)
        api->cudaLibraryUnload(dev->modules[i]);
    if (dev->blaslt)
        api->cublasLtDestroy(dev->blaslt);
    if (dev->dnn)
        api->cudnnDestroy(dev->dnn);
    pthread_mutex_destroy(&dev->dnn_lock);
    free(dev);
}

void *kn_cuda_device_open(int32_t index, kn_err *err)
{
    const kn_cuda_api *api = kn_cuda_api_get(err);
    if (!api)
        return NULL;
    int count = 0;
    if (kn_cuda_device_count(&api->libs, &count, err) != KN_OK)
        return NULL;
    if (index < 0 || index >= count) {
        kn_fail(err, KN_ERR_NOT_FOUND, "CUDA: no device %d: the driver sees %d (cuda:0 to cuda:%d)",
                (int)index, count, count - 1);
        return NULL;
    }
    kn_cuda_device *dev = calloc(1, sizeof *dev);
    if (!dev) {
        kn_fail(err, KN_ERR_OUT_OF_MEMORY, "CUDA: out of memory opening device %d", (int)index);
        return NULL;
    }
    dev->api = api;
    dev->index = index;
    pthread_mutex_init(&dev->dnn_lock, NULL);
    int rc = kn_cuda_use(dev, err);
    if (rc == KN_OK)
        rc = kn_cuda_check(dev,
                           api->cudaDeviceGetAttribute(&dev->cc_major,
                                                       KN_cudaDevAttrComputeCapabilityMajor, index),
                           "reading the compute capability", err);
    if (rc == KN_OK)
        rc = kn_cuda_check(dev,
                           api->cudaDeviceGetAttribute(&dev->cc_minor,
                                                       KN_cudaDevAttrComputeCapabilityMinor, index),
                           "reading the compute capability", err);
    if (rc == KN_OK)
        rc = kn_cuda_check(
            dev,
            api->cudaDeviceGetAttribute(&dev->sm_count, KN_cudaDevAttrMultiProcessorCount, index),
            "reading the multiprocessor count", err);
    if (rc == KN_OK && dev->cc_major < 8)
        rc = kn_fail(err, KN_ERR_UNSUPPORTED,
                     "CUDA device %d has compute capability %d.%d; Kiln's kernels need 8.0 "
                     "(Ampere) or newer",
                     (int)index, dev->cc_major, dev->cc_minor);
    if (rc == KN_OK)
        rc = kn_cublas_check(dev, api->cublasLtCreate(&dev->blaslt), "cublasLtCreate", err);
    if (rc == KN_OK)
        rc = kn_cudnn_check(dev, api->cudnnCreate(&dev->dnn), "cudnnCreate", err);
    if (rc == KN_OK)
        rc = load_modules(dev, err);
    if (rc == KN_OK &&
        !(dev->bias_act = kn_cuda_kernel(dev, "elementwise", "kn_bias_act_f32", err)))
        rc = err && err->code ? err->code : KN_ERR_INTERNAL;
    if (rc == KN_OK && !(dev->binary = kn_cuda_kernel(dev, "elementwise", "kn_binary_f32", err)))
        rc = err && err->code ? err->code : KN_ERR_INTERNAL;
    if (rc != KN_OK) {
        kn_cuda_device_close(dev);
        return NULL;
    }
    kn_cuda_device_read_description(dev);
    return dev;
}

void *kn_cuda_device_alloc(void *handle, size_t bytes, kn_err *err)
{
    kn_cuda_device *dev = handle;
    void *ptr = NULL;
    if (kn_cuda_use(dev, err) != KN_OK)
        return NULL;
    /* cudaMalloc's memory is aligned to at least 256 bytes */
    kn_cudaError status = dev->api->cudaMalloc(&ptr, bytes ? bytes : 1);
    if (status != KN_cudaSuccess) {
        char what[80];
        snprintf(what, sizeof what, "allocating %zu bytes", bytes);
        kn_cuda_check(dev, status, what, err);
        return NULL;
    }
    return ptr;
}

void kn_cuda_device_free(void *handle, void *ptr)
{
    kn_cuda_device *dev = handle;
    if (dev && ptr && dev->api->cudaSetDevice(dev->index) == KN_cudaSuccess)
        dev->api->cudaFree(ptr);
}

int kn_cuda_device_copy(void *handle, void *dst, const void *src, size_t bytes, int32_t direction,
                        void *stream, kn_err *err)
{
    kn_cuda_device *dev = handle;
    if (bytes == 0 || dst == src)
        return KN_OK;
    kn_cudaMemcpyKind kind = direction == KN_COPY_TO_HOST     ? KN_cudaMemcpyDeviceToHost
                             : direction == KN_COPY_TO_DEVICE ? KN_cudaMemcpyHostToDevice
                                                              : KN_cudaMemcpyDeviceToDevice;
    int rc = kn_cuda_use(dev, err);
    if (rc == KN_OK)
        rc = kn_cuda_check(dev, dev->api->cudaMemcpyAsync(dst, src, bytes, kind, stream),
                           "cudaMemcpyAsync", err);
    return rc;
}

void *kn_cuda_stream_create(void *handle, kn_err *err)
{
    kn_cuda_device *dev = handle;
    kn_cudaStream stream = NULL;
    /* non-blocking: no implicit ordering with the legacy default stream,
     * which another library in the process may be using */
    if (kn_cuda_use(dev, err) != KN_OK ||
        kn_cuda_check(dev, dev->api->cudaStreamCreateWithFlags(&stream, KN_cudaStreamNonBlocking),
                      "cudaStreamCreateWithFlags", err) != KN_OK)
        return NULL;
    return stream;
}

void kn_cuda_stream_destroy(void *handle, void *stream)
{
    kn_cuda_device *dev = handle;
    if (!dev || !stream || dev->api->cudaSetDevice(dev->index) != KN_cudaSuccess)
        return;
    /* cudaStreamDestroy returns at once; the contract says destroy waits */
    dev->api->cudaStreamSynchronize(stream);
    dev->api->cudaStreamDestroy(stream);
}

int kn_cuda_stream_sync(void *handle, void *stream, kn_err *err)
{
    kn_cuda_device *dev = handle;
    int rc = kn_cuda_use(dev, err);
    return rc == KN_OK ? kn_cuda_check(dev, dev->api->cudaStreamSynchronize(stream),
                                       "waiting for the stream", err)
                       : rc;
}

int kn_cuda_graph_begin(void *handle, void *stream, kn_err *err)
{
    kn_cuda_device *dev = handle;
    int rc = kn_cuda_use(dev, err);
    return rc == KN_OK ? kn_cuda_check(dev,
                                       dev->api->cudaStreamBeginCapture(
                                           stream, KN_cudaStreamCaptureModeThreadLocal),
                                       "starting a stream capture", err)
                       : rc;
}

int kn_cuda_graph_end(void *handle, void *stream, void **out, kn_err *err)
{
    kn_cuda_device *dev = handle;
    *out = NULL;
    int rc = kn_cuda_use(dev, err);
    if (rc != KN_OK)
        return rc;
    /* always ended, also after a failed launch inside the capture: the
     * stream then runs work as it is queued again */
    kn_cudaGraph graph = NULL;
    rc = kn_cuda_check(dev, dev->api->cudaStreamEndCapture(stream, &graph),
                       "ending a stream capture", err);
    if (rc != KN_OK)
        return rc;
    kn_cudaGraphExec exec = NULL;
    rc = kn_cuda_check(dev, dev->api->cudaGraphInstantiateWithFlags(&exec, graph, 0),
                       "instantiating a captured graph", err);
    /* the executable graph is independent of the graph it was made from */
    dev->api->cudaGraphDestroy(graph);
    if (rc == KN_OK)
        *out = exec;
    return rc;
}

int kn_cuda_graph_launch(void *handle, void *graph, void *stream, kn_err *err)
{
    kn_cuda_device *dev = handle;
    int rc = kn_cuda_use(dev, err);
    return rc == KN_OK ? kn_cuda_check(dev, dev->api->cudaGraphLaunch(graph, stream),
                                       "launching a captured graph", err)
                       : rc;
}

void kn_cuda_graph_destroy(void *handle, void *graph)
{
    kn_cuda_device *dev = handle;
    if (!dev || !graph || dev->api->cudaSetDevice(dev->index) != KN_cudaSuccess)
        return;
    dev->api->cudaGraphExecDestroy(graph);
}

const char *kn_cuda_device_describe(void *handle)
{
    kn_cuda_device *dev = handle;
    return dev ? dev->description : NULL;
}

kn_cudaKernel kn_cuda_kernel(const kn_cuda_device *dev, const char *module, const char *name,
                             kn_err *err)
{
    for (int i = 0; i < dev->n_modules; i++) {
        if (strcmp(kn_cuda_fatbins[i].name, module) != 0)
            continue;
        kn_cudaKernel kernel = NULL;
        char what[128];
        snprintf(what, sizeof what, "finding kernel %s in module %s", name, module);
        if (kn_cuda_check(dev, dev->api->cudaLibraryGetKernel(&kernel, dev->modules[i], name), what,
                          err) != KN_OK)
            return NULL;
        return kernel;
    }
    kn_fail(err, KN_ERR_INTERNAL, "CUDA: no embedded module %s (for kernel %s)", module, name);
    return NULL;
}

int kn_cuda_launch(kn_kctx *k, kn_cudaKernel kernel, kn_dim3 grid, kn_dim3 block,
                   size_t shared_bytes, void **args)
{
    const kn_cuda_device *dev = kn_cuda_dev(k);
    int rc = kn_cuda_use(dev, k->err);
    if (rc != KN_OK)
        return rc;
    /* a cudaKernel_t is accepted where the runtime takes a kernel's address */
    return kn_cuda_check(dev,
                         dev->api->cudaLaunchKernel((const void *)kernel, grid, block, args,
                                                    shared_bytes, k->stream),
                         k->node ? k->node->op_type : "launching a kernel", k->err);
}

int kn_cuda_launch_1d(kn_kctx *k, kn_cudaKernel kernel, int64_t n, void **args)
{
    if (n <= 0)
        return KN_OK;
    const int64_t threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    /* the kernels stride over n, so the grid need not cover it */
    const int64_t max_blocks = 65535LL * 32;
    if (blocks > max_blocks)
        blocks = max_blocks;
    kn_dim3 grid = {(unsigned)blocks, 1, 1}, block = {(unsigned)threads, 1, 1};
    return kn_cuda_launch(k, kernel, grid, block, 0, args);
}

int kn_cuda_copy_on_device(kn_kctx *k, void *dst, const void *src, size_t bytes)
{
    return kn_cuda_device_copy(k->device, dst, src, bytes, KN_COPY_ON_DEVICE, k->stream, k->err);
}
