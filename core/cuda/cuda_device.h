/* One CUDA device as the CUDA backend's kernels see it: the context the
 * engine opens through kn_backend_cuda.memory.open (one per device index a
 * model runs on), holding the cuBLASLt and cuDNN handles, the device's
 * properties and Kiln's own kernels loaded from the fatbins embedded in the
 * library (cuda_fatbins.h); and the functions every kernel uses to launch
 * work and report CUDA errors. */
#ifndef KN_CUDA_DEVICE_H
#define KN_CUDA_DEVICE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cuda/cuda_api.h"
#include "core/kernel/op.h"

enum { KN_CUDA_MAX_MODULES = 16 };

typedef struct kn_cuda_device {
    const kn_cuda_api *api;
    int index;
    int cc_major, cc_minor, sm_count;
    kn_cublasLtHandle blaslt;
    kn_cudnnHandle dnn;
    /* cuDNN keeps the stream in its handle: setting it and queueing the call
     * must not interleave with another session's pair */
    pthread_mutex_t dnn_lock;
    kn_cudaLibrary modules[KN_CUDA_MAX_MODULES]; /* kn_cuda_fatbins' order */
    int n_modules;
    /* the epilogue kernels several families launch, found once at open */
    kn_cudaKernel bias_act, binary;
    char description[640]; /* room for the longest numbers gcc can see */
} kn_cuda_device;

/* Why kn_backend_cuda is not available here (the loader's or the
 * driver's message), or NULL when it is (core/cuda/backend.c). */
const char *kn_cuda_unavailable_reason(void);

/* The memory hooks of kn_backend_cuda (core/kernel/backend.h). */
void *kn_cuda_device_open(int32_t index, kn_err *err);
void kn_cuda_device_close(void *dev);
void *kn_cuda_device_alloc(void *dev, size_t bytes, kn_err *err);
void kn_cuda_device_free(void *dev, void *ptr);
int kn_cuda_device_copy(void *dev, void *dst, const void *src, size_t bytes, int32_t direction,
                        void *stream, kn_err *err);
void *kn_cuda_stream_create(void *dev, kn_err *err);
void kn_cuda_stream_destroy(void *dev, void *stream);
int kn_cuda_stream_sync(void *dev, void *stream, kn_err *err);
const char *kn_cuda_device_describe(void *dev);
/* Fills dev->description from the runtime and the libraries (name,
 * compute capability, SMs, driver, runtime, cuBLASLt and cuDNN versions):
 * what describe() shows and the tuning cache's key holds. Done by open. */
void kn_cuda_device_read_description(kn_cuda_device *dev);
/* Captured graphs (kn_backend_memory.graph_*): stream capture, thread-local
 * mode, so another thread's CUDA calls are not caught in (or broken by) the
 * recording. */
int kn_cuda_graph_begin(void *dev, void *stream, kn_err *err);
int kn_cuda_graph_end(void *dev, void *stream, void **graph, kn_err *err);
int kn_cuda_graph_launch(void *dev, void *graph, void *stream, kn_err *err);
void kn_cuda_graph_destroy(void *dev, void *graph);

/* KN_OK when status is cudaSuccess, else KN_ERR_INTERNAL with "CUDA
 * device N: WHAT: the runtime's message". */
int kn_cuda_check(const kn_cuda_device *dev, kn_cudaError status, const char *what, kn_err *err);
int kn_cublas_check(const kn_cuda_device *dev, kn_cublasStatus status, const char *what,
                    kn_err *err);
int kn_cudnn_check(const kn_cuda_device *dev, kn_cudnnStatus status, const char *what, kn_err *err);

/* Makes dev the calling thread's current device: the runtime's calls act
 * on the current device, and one process may drive several. Cheap when it
 * already is. */
int kn_cuda_use(const kn_cuda_device *dev, kn_err *err);

/* Kernel `name` (an extern "C" __global__ function) of embedded module
 * `module` (the .cu file's name without extension), or NULL with err set. */
kn_cudaKernel kn_cuda_kernel(const kn_cuda_device *dev, const char *module, const char *name,
                             kn_err *err);

/* Queues kernel on the node's stream over n threads (one-dimensional grid
 * of 256-thread blocks), args as cudaLaunchKernel takes them. */
int kn_cuda_launch_1d(kn_kctx *k, kn_cudaKernel kernel, int64_t n, void **args);
/* The same with an explicit grid and block and dynamic shared memory. */
int kn_cuda_launch(kn_kctx *k, kn_cudaKernel kernel, kn_dim3 grid, kn_dim3 block,
                   size_t shared_bytes, void **args);

/* Device-to-device copy of bytes on the node's stream (nothing when the
 * pointers are equal). */
int kn_cuda_copy_on_device(kn_kctx *k, void *dst, const void *src, size_t bytes);

/* The kernel's device, or NULL (then prepare declines): a CUDA kernel runs
 * only where the engine gave it a device context. */
static inline kn_cuda_device *kn_cuda_dev(const kn_kctx *k) { return (kn_cuda_device *)k->device; }

/* The decline every CUDA kernel's prepare() starts with when the node was
 * not given a device (a host plan, a test calling it directly). */
#define KN_CUDA_REQUIRE_DEVICE(k)                                                                  \
    do {                                                                                           \
        if (!(k)->device)                                                                          \
            return KN_ERR_DECLINE;                                                                 \
    } while (0)

#endif
