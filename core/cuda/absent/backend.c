/* The CUDA backend's descriptor in a build without nvcc (CMake compiles this
 * file instead of the backend's own in core/cuda/; the library loader
 * cuda_libs.c is in both): never available, so no session can ask for
 * device "cuda", and every build has the same list of backends. */
#include <stddef.h>

#include "core/kernel/backend.h"

static int never(void) { return 0; }

/* Only called to say why the device is missing (core/engine/devices.c). */
static void *open_absent(int32_t index, kn_err *err)
{
    kn_fail(err, KN_ERR_UNSUPPORTED,
            "CUDA: this Kiln was built without the CUDA backend (no nvcc at build time; "
            "configure with -DKILN_WITH_CUDA=ON and the CUDA toolkit installed), so device %d "
            "cannot be used",
            (int)index);
    return NULL;
}

const kn_backend kn_backend_cuda = {
    .name = "cuda",
    .available = never,
    .memory = {.kind = KN_MEMORY_DEVICE, .open = open_absent},
    .flags = KN_BACKEND_OPT_IN | KN_BACKEND_NOT_EAGER,
};
