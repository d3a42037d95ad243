/* What Kiln's CUDA loader (core/cuda/cuda_libs.c) finds on this machine:
 * the libraries, their versions, the driver and the devices. Exit 0 when
 * at least one device is usable, 1 with the loader's error otherwise.
 * Built and run by tests/gpu/run.sh. */
#include <stdio.h>

#include "core/cuda/cuda_libs.h"

int main(void)
{
    kn_cuda_libs libs;
    kn_err err = {0};
    if (kn_cuda_libs_open_default(&libs, &err) != KN_OK) {
        fprintf(stderr, "cuda_probe: %s\n", err.msg);
        return 1;
    }
    int runtime = 0, driver = 0, count = 0;
    libs.cudaRuntimeGetVersion(&runtime);
    libs.cudaDriverGetVersion(&driver);
    printf(
        "cuda_probe: runtime %d.%d (libcudart.so.%d), driver API %d.%d, cuBLASLt %zu, cuDNN %zu\n",
        runtime / 1000, runtime % 1000 / 10, libs.cuda_major, driver / 1000, driver % 1000 / 10,
        libs.cublasLtGetVersion(), libs.cudnnGetVersion());
    if (kn_cuda_device_count(&libs, &count, &err) != KN_OK) {
        fprintf(stderr, "cuda_probe: %s\n", err.msg);
        return 1;
    }
    printf("cuda_probe: %d device(s)\n", count);
    return 0;
}
