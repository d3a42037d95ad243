/* CPU kernels: resampling and spatial ops (Resize, GridSample, RoiAlign, Pad, ConvTranspose, ...). One row per kn_op_def. */
#include <stddef.h>

#include "core/op.h"

extern const kn_op_def kn_op_upsample_7, kn_op_upsample_9, kn_op_resize_10, kn_op_resize_11,
    kn_op_resize_18;
extern const kn_op_def kn_op_pad_1, kn_op_pad_11, kn_op_pad_18, kn_op_centercroppad_18;
extern const kn_op_def kn_op_convtranspose_1, kn_op_convtranspose_11, kn_op_col2im_18;
extern const kn_op_def kn_op_gridsample_16, kn_op_gridsample_20, kn_op_affinegrid_20;
extern const kn_op_def kn_op_roialign_10, kn_op_roialign_16, kn_op_maxroipool_1;
extern const kn_op_def kn_op_nonmaxsuppression_10;
extern const kn_op_def kn_op_maxunpool_9, kn_op_lppool_1, kn_op_lppool_18;
extern const kn_op_def kn_op_reversesequence_10;

const kn_op_def *const kn_cpu_image_ops[] = {
    /* resize.c */
    &kn_op_upsample_7,
    &kn_op_upsample_9,
    &kn_op_resize_10,
    &kn_op_resize_11,
    &kn_op_resize_18,
    /* pad.c */
    &kn_op_pad_1,
    &kn_op_pad_11,
    &kn_op_pad_18,
    /* center_crop_pad.c */
    &kn_op_centercroppad_18,
    /* conv_transpose.c */
    &kn_op_convtranspose_1,
    &kn_op_convtranspose_11,
    /* col2im.c */
    &kn_op_col2im_18,
    /* grid_sample.c */
    &kn_op_gridsample_16,
    &kn_op_gridsample_20,
    /* affine_grid.c */
    &kn_op_affinegrid_20,
    /* roi_align.c */
    &kn_op_roialign_10,
    &kn_op_roialign_16,
    /* roi_pool.c */
    &kn_op_maxroipool_1,
    /* nms.c */
    &kn_op_nonmaxsuppression_10,
    /* unpool.c */
    &kn_op_maxunpool_9,
    /* lp_pool.c */
    &kn_op_lppool_1,
    &kn_op_lppool_18,
    /* reverse_sequence.c */
    &kn_op_reversesequence_10,
    NULL,
};
