/* The oneDNN backend's descriptor in a build without oneDNN's headers
 * (CMake compiles this file instead of the .c files in core/dnnl/): it is never
 * available, so the planner never offers it a node, and every build has the
 * same list of backends. */
#include <stddef.h>

#include "core/kernel/backend.h"

static int never(void) { return 0; }

const kn_backend kn_backend_dnnl = {
    .name = "dnnl",
    .available = never,
    .memory = {.kind = KN_MEMORY_HOST},
};
