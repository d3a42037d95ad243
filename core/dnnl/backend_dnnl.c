/* The oneDNN backend: convolutions, matrix products, pooling, binary ops,
 * Concat and attention on oneDNN's primitives (the library is loaded at run
 * time, dnnl_loader.h says why). It contributes two optimizer passes, which
 * pay off only when its kernels serve the model: NHWC layout for its
 * convolutions, and horizontal fusion of sibling products. Its kernels are
 * tuned (a convolution has implementation and Winograd variants) and are
 * not used in eager plans, where building primitives per run costs more
 * than they save. */
#include <stddef.h>

#include "core/dnnl/dnnl_loader.h"
#include "core/kernel/backend.h"
#include "core/opt/optimize.h"
#include "core/opt/passes.h"

#define DNNL_OPS(X)                                                                                \
    X(kn_dnnl_conv) X(kn_dnnl_fused_conv) X(kn_dnnl_nhwc_conv) X(kn_dnnl_matmul)                 \
    X(kn_dnnl_fused_matmul) X(kn_dnnl_gemm) X(kn_dnnl_fused_gemm) X(kn_dnnl_max_pool)             \
    X(kn_dnnl_average_pool) X(kn_dnnl_global_average_pool) X(kn_dnnl_nhwc_max_pool)              \
    X(kn_dnnl_nhwc_average_pool) X(kn_dnnl_add) X(kn_dnnl_sub) X(kn_dnnl_mul) X(kn_dnnl_div)     \
    X(kn_dnnl_max) X(kn_dnnl_min) X(kn_dnnl_concat) X(kn_dnnl_attention)      \
    X(kn_dnnl_qlinear_conv) X(kn_dnnl_qfused_conv) X(kn_dnnl_nhwc_qlinear_conv) \
    X(kn_dnnl_matmul_integer_to_float) X(kn_dnnl_qfused_matmul)

#define DECLARE(name) extern const kn_op_def name;
DNNL_OPS(DECLARE)
#undef DECLARE

#define ENTRY(name) &name,
static const kn_op_def *const dnnl_ops[] = {DNNL_OPS(ENTRY) NULL};
#undef ENTRY

static const kn_op_def *const *const dnnl_tables[] = {dnnl_ops, NULL};

int kn_pass_layout_nhwc(kn_opt *o); /* pass_layout_nhwc.c */

static const kn_backend_pass dnnl_passes[] = {
    /* Sibling products merge before the bias / activation fusions, so the
     * merged MatMul + bias Add still becomes one FusedMatMul. oneDNN runs
     * the wider product as fast as the siblings (and a wider product splits
     * better over many cores), while with Kiln's own GEMM on one thread the
     * Split's copy made BERT-sized Q/K/V ~10% slower (5.2 vs 4.7 ms). */
    {.name = "horizontal", .slot = KN_PASS_SLOT_BEFORE_EPILOGUES, .level = KN_OPT_ALL,
     .run = kn_pass_horizontal},
    /* oneDNN's fast convolutions read and write channels-last activations */
    {.name = "layout_nhwc", .slot = KN_PASS_SLOT_LAYOUT, .level = KN_OPT_ALL,
     .run = kn_pass_layout_nhwc},
    {0},
};

const kn_backend kn_backend_dnnl = {
    .name = "dnnl",
    .available = kn_dnnl_load,
    .kernel_tables = dnnl_tables,
    .passes = dnnl_passes,
    .memory = {.kind = KN_MEMORY_HOST},
    /* Offered eager plans too (no KN_BACKEND_NOT_EAGER): rebuilt every run,
     * they find their primitives in oneDNN's primitive cache and their
     * packed weights in the model's store, so a detector whose output count
     * depends on its data (Faster R-CNN: 242 -> 162 ms) runs its backbone
     * on oneDNN like any other model. */
    .flags = KN_BACKEND_TUNED,
};
