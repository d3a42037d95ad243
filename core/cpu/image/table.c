/* The image family of CPU kernels: resampling and spatial ops: Resize,
 * GridSample, RoiAlign, NMS, Pad, Col2Im, image decoding. One row per
 * kn_op_def, grouped by the file that defines it; several rows for one op
 * where opset ranges or dtypes differ. core/cpu/backend_cpu.c lists this
 * table. */
#include <stddef.h>

#include "core/kernel/op.h"

extern const kn_op_def kn_op_upsample_7, kn_op_upsample_9, kn_op_resize_10, kn_op_resize_11,
    kn_op_resize_18;
extern const kn_op_def kn_op_pad_1, kn_op_pad_11, kn_op_pad_18;
extern const kn_op_def kn_op_centercroppad_18;
extern const kn_op_def kn_op_col2im_18;
extern const kn_op_def kn_op_gridsample_16, kn_op_gridsample_20;
extern const kn_op_def kn_op_affinegrid_20;
extern const kn_op_def kn_op_roialign_10, kn_op_roialign_16;
extern const kn_op_def kn_op_maxroipool_1;
extern const kn_op_def kn_op_nonmaxsuppression_10;
extern const kn_op_def kn_op_ImageDecoder;

const kn_op_def *const kn_cpu_image_ops[] = {
    /* resize.c */
    &kn_op_upsample_7, &kn_op_upsample_9, &kn_op_resize_10, &kn_op_resize_11, &kn_op_resize_18,
    /* pad.c */
    &kn_op_pad_1, &kn_op_pad_11, &kn_op_pad_18,
    /* center_crop_pad.c */
    &kn_op_centercroppad_18,
    /* col2im.c */
    &kn_op_col2im_18,
    /* grid_sample.c */
    &kn_op_gridsample_16, &kn_op_gridsample_20,
    /* affine_grid.c */
    &kn_op_affinegrid_20,
    /* roi_align.c */
    &kn_op_roialign_10, &kn_op_roialign_16,
    /* roi_pool.c */
    &kn_op_maxroipool_1,
    /* nms.c */
    &kn_op_nonmaxsuppression_10,
    /* misc_image_decoder.c */
    &kn_op_ImageDecoder,
    NULL,
};
