/* The shape Pad and Resize share: one kernel that reads X and writes Y
 * over n output elements, given one parameter block built at prepare
 * (core/cuda/device_params.h). The state keeps the kernel and a copy of
 * the block; run launches it as (x, y, params). */
#ifndef KILN_CUDA_XY_KERNEL_H
#define KILN_CUDA_XY_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/kernel/op.h"

/* Sets k->state; finds kernel `name` of module `module` unless n is 0
 * (an empty output launches nothing). */
int kn_cuda_xy_prepare(kn_kctx *k, const char *module, const char *name, const void *params,
                       size_t params_bytes, int64_t n);
int kn_cuda_xy_run(kn_kctx *k);
void kn_cuda_xy_release(kn_kctx *k);

#endif
