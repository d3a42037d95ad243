/* CPU kernels: resampling and spatial ops (Resize, GridSample, RoiAlign, Pad, ConvTranspose, ...). One row per kn_op_def. */
#include <stddef.h>

#include "core/op.h"

const kn_op_def *const kn_cpu_image_ops[] = {
    NULL,
};
