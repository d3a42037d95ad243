/* Every backend Kiln is built with, in the order the planner offers them a
 * node (core/kernel/backend.h). One line per backend: a backend whose
 * library or toolkit was missing at build time still has its descriptor,
 * from its folder's absent/ variant, whose probe answers "not available". */
#include <stddef.h>

#include "core/kernel/backend.h"

extern const kn_backend kn_backend_cuda; /* core/cuda/: opt-in, asked for by name ("cuda") */
extern const kn_backend kn_backend_dnnl; /* core/dnnl/ */

const kn_backend *const kn_builtin_backends[] = {
    &kn_backend_cuda,
    &kn_backend_dnnl,
    &kn_backend_cpu, /* last: it serves every op */
    NULL,
};
