/* The oneDNN backend's registry table (core/registry.c lists it when Kiln
 * is built with oneDNN), and the CPU kernels of the NHWC ops the layout
 * pass writes, which exist only in such builds. */
#include "core/op.h"

#define DNNL_OPS(X)                                                                                \
    X(kn_dnnl_conv) X(kn_dnnl_fused_conv) X(kn_dnnl_nhwc_conv) X(kn_dnnl_matmul)                 \
    X(kn_dnnl_fused_matmul) X(kn_dnnl_gemm) X(kn_dnnl_fused_gemm) X(kn_dnnl_max_pool)             \
    X(kn_dnnl_average_pool) X(kn_dnnl_global_average_pool) X(kn_dnnl_nhwc_max_pool)              \
    X(kn_dnnl_nhwc_average_pool) X(kn_cpu_nhwc_conv) X(kn_cpu_nhwc_max_pool)                      \
    X(kn_cpu_nhwc_average_pool) X(kn_cpu_nhwc_global_average_pool)                                 \
    X(kn_dnnl_add) X(kn_dnnl_sub) X(kn_dnnl_mul) X(kn_dnnl_div) X(kn_dnnl_max) X(kn_dnnl_min)     \
    X(kn_dnnl_concat) X(kn_dnnl_attention)

#define DECLARE(name) extern const kn_op_def name;
DNNL_OPS(DECLARE)
#undef DECLARE

#define ENTRY(name) &name,
const kn_op_def *const kn_dnnl_ops[] = {DNNL_OPS(ENTRY) NULL};
#undef ENTRY
