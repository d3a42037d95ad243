/* CPU kernels of the optimizer's internal "kiln" domain (core/opt/): the
 * fused ops it rewrites graphs into. One row per kn_op_def. */
#include "core/op.h"

extern const kn_op_def kn_op_kiln_FusedConv;
extern const kn_op_def kn_op_kiln_FusedGemm, kn_op_kiln_FusedMatMul;
extern const kn_op_def kn_op_kiln_Gelu, kn_op_kiln_Silu;
extern const kn_op_def kn_op_kiln_Attention;
extern const kn_op_def kn_op_kiln_LayerNormalization;
extern const kn_op_def kn_op_kiln_ElementwiseChain;

const kn_op_def *const kn_cpu_fused_ops[] = {
    /* fused_conv.c */
    &kn_op_kiln_FusedConv,
    /* fused_gemm.c */
    &kn_op_kiln_FusedGemm,
    &kn_op_kiln_FusedMatMul,
    /* fused_act.c */
    &kn_op_kiln_Gelu,
    &kn_op_kiln_Silu,
    /* fused_attention.c */
    &kn_op_kiln_Attention,
    /* fused_layernorm.c */
    &kn_op_kiln_LayerNormalization,
    /* fused_elementwise.c */
    &kn_op_kiln_ElementwiseChain,
    NULL,
};
