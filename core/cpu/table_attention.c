/* CPU kernels for attention-style sequence ops (Attention, FlexAttention,
 * LinearAttention, CausalConvWithState) and the smaller ops that arrived
 * with them (BitCast, CumProd, Swish, DeformConv, TensorScatter). One row
 * per kn_op_def. */
#include "core/op.h"

extern const kn_op_def kn_op_Attention_23, kn_op_Attention_24;
extern const kn_op_def kn_op_FlexAttention;
extern const kn_op_def kn_op_LinearAttention;
extern const kn_op_def kn_op_CausalConvWithState;
extern const kn_op_def kn_op_BitCast, kn_op_CumProd, kn_op_Swish, kn_op_TensorScatter;
extern const kn_op_def kn_op_DeformConv_19, kn_op_DeformConv_22;

const kn_op_def *const kn_cpu_attention_ops[] = {
    /* attention.c */
    &kn_op_Attention_23,
    &kn_op_Attention_24,
    /* flex_attention.c */
    &kn_op_FlexAttention,
    /* linear_attention.c */
    &kn_op_LinearAttention,
    /* causal_conv.c */
    &kn_op_CausalConvWithState,
    /* bitcast.c */
    &kn_op_BitCast,
    /* cumprod.c */
    &kn_op_CumProd,
    /* swish.c */
    &kn_op_Swish,
    /* tensor_scatter.c */
    &kn_op_TensorScatter,
    /* deform_conv.c */
    &kn_op_DeformConv_19,
    &kn_op_DeformConv_22,
    NULL,
};
