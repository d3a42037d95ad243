/* The fused family of CPU kernels: Kiln's own domain: the fused kernels the
 * optimizer writes and the NHWC ops of the layout pass. One row per kn_op_def,
 * grouped by the file that defines it; several rows for one op where opset
 * ranges or dtypes differ. core/cpu/backend_cpu.c lists this table. */
#include <stddef.h>

#include "core/kernel/op.h"

extern const kn_op_def kn_op_kiln_FusedConv;
extern const kn_op_def kn_op_kiln_FusedGemm, kn_op_kiln_FusedMatMul;
extern const kn_op_def kn_op_kiln_Gelu, kn_op_kiln_Silu;
extern const kn_op_def kn_op_kiln_Attention;
extern const kn_op_def kn_op_kiln_LayerNormalization;
extern const kn_op_def kn_op_kiln_ElementwiseChain;
extern const kn_op_def kn_op_kiln_QAdd, kn_op_kiln_QMulFloat;
extern const kn_op_def kn_cpu_nhwc_conv, kn_cpu_nhwc_max_pool, kn_cpu_nhwc_average_pool,
    kn_cpu_nhwc_qlinear_conv;
extern const kn_op_def kn_cpu_nhwc_global_average_pool;

const kn_op_def *const kn_cpu_fused_ops[] = {
    /* fused_conv.c */
    &kn_op_kiln_FusedConv,
    /* fused_gemm.c */
    &kn_op_kiln_FusedGemm, &kn_op_kiln_FusedMatMul,
    /* fused_act.c */
    &kn_op_kiln_Gelu, &kn_op_kiln_Silu,
    /* fused_attention.c */
    &kn_op_kiln_Attention,
    /* fused_layernorm.c */
    &kn_op_kiln_LayerNormalization,
    /* fused_elementwise.c */
    &kn_op_kiln_ElementwiseChain,
    /* fused_qadd.c, fused_qmul_float.c */
    &kn_op_kiln_QAdd, &kn_op_kiln_QMulFloat,
    /* nhwc_fallback.c */
    &kn_cpu_nhwc_conv, &kn_cpu_nhwc_max_pool, &kn_cpu_nhwc_average_pool,
    &kn_cpu_nhwc_qlinear_conv,
    /* nhwc_global_pool.c */
    &kn_cpu_nhwc_global_average_pool,
    NULL,
};
