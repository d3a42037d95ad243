/* The tensor family of CPU kernels: shapes, data movement, indexing,
 * constants, generators and sorting (TopK, Unique). One row per kn_op_def,
 * grouped by the file that defines it; several rows for one op where opset
 * ranges or dtypes differ. core/cpu/backend_cpu.c lists this table. */
#include <stddef.h>

#include "core/kernel/op.h"

extern const kn_op_def kn_op_Reshape, kn_op_Flatten, kn_op_Squeeze, kn_op_Unsqueeze,
    kn_op_Identity, kn_op_Dropout, kn_op_Shape, kn_op_Size;
extern const kn_op_def kn_op_Transpose;
extern const kn_op_def kn_op_Concat, kn_op_Split;
extern const kn_op_def kn_op_Gather, kn_op_GatherElements, kn_op_GatherND;
extern const kn_op_def kn_op_Slice;
extern const kn_op_def kn_op_Expand, kn_op_Tile;
extern const kn_op_def kn_op_DepthToSpace, kn_op_SpaceToDepth;
extern const kn_op_def kn_op_Trilu;
extern const kn_op_def kn_op_ScatterElements, kn_op_Scatter, kn_op_ScatterND;
extern const kn_op_def kn_op_Constant, kn_op_ConstantOfShape, kn_op_EyeLike;
extern const kn_op_def kn_op_Range;
extern const kn_op_def kn_op_OneHot;
extern const kn_op_def kn_op_TopK_1, kn_op_TopK_10;
extern const kn_op_def kn_op_reversesequence_10;
extern const kn_op_def kn_op_NonZero;
extern const kn_op_def kn_op_Unique;
extern const kn_op_def kn_op_Compress;
extern const kn_op_def kn_op_RandomUniform, kn_op_RandomNormal, kn_op_RandomUniformLike,
    kn_op_RandomNormalLike, kn_op_Bernoulli, kn_op_Multinomial;
extern const kn_op_def kn_op_TensorScatter;

const kn_op_def *const kn_cpu_tensor_ops[] = {
    /* shape_ops.c */
    &kn_op_Reshape, &kn_op_Flatten, &kn_op_Squeeze, &kn_op_Unsqueeze, &kn_op_Identity,
    &kn_op_Dropout, &kn_op_Shape, &kn_op_Size,
    /* transpose.c */
    &kn_op_Transpose,
    /* concat.c */
    &kn_op_Concat, &kn_op_Split,
    /* gather.c */
    &kn_op_Gather, &kn_op_GatherElements, &kn_op_GatherND,
    /* slice.c */
    &kn_op_Slice,
    /* expand.c */
    &kn_op_Expand, &kn_op_Tile,
    /* depth_space.c */
    &kn_op_DepthToSpace, &kn_op_SpaceToDepth,
    /* trilu.c */
    &kn_op_Trilu,
    /* scatter.c */
    &kn_op_ScatterElements, &kn_op_Scatter, &kn_op_ScatterND,
    /* constant.c */
    &kn_op_Constant, &kn_op_ConstantOfShape, &kn_op_EyeLike,
    /* range.c */
    &kn_op_Range,
    /* onehot.c */
    &kn_op_OneHot,
    /* topk.c */
    &kn_op_TopK_1, &kn_op_TopK_10,
    /* reverse_sequence.c */
    &kn_op_reversesequence_10,
    /* nonzero.c */
    &kn_op_NonZero,
    /* unique.c */
    &kn_op_Unique,
    /* compress.c */
    &kn_op_Compress,
    /* random.c */
    &kn_op_RandomUniform, &kn_op_RandomNormal, &kn_op_RandomUniformLike,
    &kn_op_RandomNormalLike, &kn_op_Bernoulli, &kn_op_Multinomial,
    /* tensor_scatter.c */
    &kn_op_TensorScatter,
    NULL,
};
