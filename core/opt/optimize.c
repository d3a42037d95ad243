/* The optimizer's pass list and driver. Each pass runs over the whole
 * top-level graph once, in this order, and its edits are committed
 * (topological order restored) before the next one starts. */
#include "optimize.h"

#include <stddef.h>

#include "passes.h"

typedef struct opt_pass {
    const char *name;
    int level;          /* lowest level it runs at */
    int needs_dnnl;     /* runs only when oneDNN kernels may serve the model */
    kn_opt_pass_fn run;
} opt_pass;

static const opt_pass passes[] = {
    /* Level 1: cleanups every backend benefits from. Folding first, so the
     * later passes see Constant outputs and Clip bounds as initializers. */
    {"const_fold", KN_OPT_BASIC, 0, kn_pass_const_fold},
    {"identity", KN_OPT_BASIC, 0, kn_pass_identity},
    {"conv_bn", KN_OPT_BASIC, 0, kn_pass_conv_bn},
    {"dead_nodes", KN_OPT_BASIC, 0, kn_pass_dead_nodes},
    /* Level 2: fusion. Formulas into ops first (Gelu before the matrix
     * products that take it as their activation). */
    {"gelu", KN_OPT_ALL, 0, kn_pass_gelu},
    {"layernorm", KN_OPT_ALL, 0, kn_pass_layernorm},
    {"attention", KN_OPT_ALL, 0, kn_pass_attention},
#ifdef KILN_WITH_DNNL
    /* Sibling products merge before the bias / activation fusions, so the
     * merged MatMul + bias Add still becomes one FusedMatMul. Only when
     * oneDNN serves the model: it runs the wider product as fast as the
     * siblings (and a wider product splits better over many cores), while
     * with Kiln's own GEMM on one thread the Split's copy made BERT-sized
     * Q/K/V ~10% slower (5.2 vs 4.7 ms). */
    {"horizontal", KN_OPT_ALL, 1, kn_pass_horizontal},
#endif
    {"fuse_matmul", KN_OPT_ALL, 0, kn_pass_fuse_matmul},
    {"fuse_gemm", KN_OPT_ALL, 0, kn_pass_fuse_gemm},
    {"fuse_conv", KN_OPT_ALL, 0, kn_pass_fuse_conv},
    {"silu", KN_OPT_ALL, 0, kn_pass_silu},
    {"dead_nodes", KN_OPT_ALL, 0, kn_pass_dead_nodes},
    /* ---- slot: layout passes for oneDNN; they run last, on the fused graph.
     * core/opt/pass_layout_nhwc.c replaces NULL with kn_pass_layout_nhwc
     * (declared in passes.h); an entry without a function is skipped. ---- */
#ifdef KILN_WITH_DNNL
    {"layout_nhwc", KN_OPT_ALL, 1, kn_pass_layout_nhwc},
#endif
    /* After every fusion (an activation belongs in its producer's epilogue)
     * and after the layout pass, which moves single elementwise ops into
     * NHWC regions by their op type. */
    {"elementwise_chain", KN_OPT_ALL, 0, kn_pass_elementwise_chain},
};

int kn_optimize(kn_model_ir *ir, int level, int use_dnnl, kn_err *err)
{
    if (!ir || !ir->graph || level <= KN_OPT_NONE)
        return KN_OK;
    int32_t names_used = 0; /* new names stay unique across passes */
    for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++) {
        const opt_pass *p = &passes[i];
        if (!p->run || level < p->level || (p->needs_dnnl && !use_dnnl))
            continue;
        kn_opt o;
        int rc = kn_opt_begin(&o, ir, err);
        if (rc == KN_OK) {
            o.name_counter = names_used;
            rc = p->run(&o);
            names_used = o.name_counter;
        }
        if (rc != KN_OK)
            kn_opt_end(&o);
        else
            rc = kn_opt_commit(&o);
        if (rc != KN_OK) {
            if (err->code == KN_OK)
                kn_fail(err, rc, "optimizer pass failed");
            kn_err_prefix(err, "optimizer pass %s", p->name);
            return rc;
        }
    }
    return KN_OK;
}
