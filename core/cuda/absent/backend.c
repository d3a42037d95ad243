/* The CUDA backend's descriptor in a build without nvcc (CMake compiles this
 * file instead of the backend's own in core/cuda/; the library loader
 * cuda_libs.c is in both): never available, so no session can ask for
 * device "cuda", and every build has the same list of backends. */
#include <stddef.h>

#include "core/kernel/backend.h"

static int never(void) { return 0; }

const kn_backend kn_backend_cuda = {
    .name = "cuda",
    .available = never,
    .memory = {.kind = KN_MEMORY_DEVICE},
    .flags = KN_BACKEND_OPT_IN | KN_BACKEND_NOT_EAGER,
};
