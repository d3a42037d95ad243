/* The CUDA libraries Kiln's CUDA backend runs on (the runtime, cuBLASLt and
 * cuDNN 9), opened at run time by soname, never linked: libkiln.so then has
 * no CUDA dependency, one build runs on machines with and without a GPU,
 * and a missing library is an error that says which one and where it was
 * looked for, instead of the loader's "libcudnn.so.8 not found" at start.
 *
 * The runtime and cuBLASLt must come from one CUDA major version (13 is
 * tried first, then 12); cuDNN 9 serves both. Only the entry points named
 * below are resolved here; the backend's kernels add theirs as they come.
 *
 * Search order, first hit wins: the folders given (by default those of
 * $KILN_CUDA_PATH, colon-separated: pip's nvidia-*-cu12/13 wheels keep the
 * libraries in site-packages/nvidia/<name>/lib), then the dynamic loader's
 * own path (LD_LIBRARY_PATH, /etc/ld.so.cache), then the toolkit's default
 * folder /usr/local/cuda/lib64. */
#ifndef KN_CUDA_LIBS_H
#define KN_CUDA_LIBS_H

#include <stddef.h>

#include "core/base/status.h"

typedef struct kn_cuda_libs {
    void *cudart, *cublaslt, *cudnn; /* dlopen handles */
    int cuda_major;                  /* 13 or 12: the runtime's soname */
    /* CUDA runtime (cudaError_t is an int-sized enum) */
    int (*cudaRuntimeGetVersion)(int *version);
    int (*cudaDriverGetVersion)(int *version);
    int (*cudaGetDeviceCount)(int *count);
    const char *(*cudaGetErrorString)(int error);
    /* cuBLASLt and cuDNN: their versions (MAJOR*10000+MINOR*100+PATCH for
     * cuBLASLt 12+, MAJOR*10000+MINOR*100+PATCH for cuDNN 9) */
    size_t (*cublasLtGetVersion)(void);
    size_t (*cudnnGetVersion)(void);
} kn_cuda_libs;

/* Opens the three libraries, looking in each folder of `dirs` (NULL-ended,
 * may be NULL) and then, when use_loader_path is 1, where the dynamic
 * loader looks. On failure libs is cleared and err names the missing
 * library, every place searched and the variable to set (KN_ERR_UNSUPPORTED). */
int kn_cuda_libs_open(kn_cuda_libs *libs, const char *const *dirs, int use_loader_path,
                      kn_err *err);

/* The default search (see the top of this file). */
int kn_cuda_libs_open_default(kn_cuda_libs *libs, kn_err *err);

/* Forgets the handles; the libraries stay loaded (cuda_libs.c says why). */
void kn_cuda_libs_close(kn_cuda_libs *libs);

/* How many CUDA devices the driver reports. Without a driver (libcuda.so.1,
 * which the NVIDIA driver installs, missing or older than the runtime) or
 * without a device it fails, saying which (KN_ERR_UNSUPPORTED). */
int kn_cuda_device_count(const kn_cuda_libs *libs, int *count, kn_err *err);

#endif
