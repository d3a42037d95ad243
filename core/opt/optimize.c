/* The optimizer's pass list and driver. Each pass runs over the whole
 * top-level graph once, in this order, and its edits are committed
 * (topological order restored) before the next one starts. Backends add
 * passes of their own at the slots marked below (core/kernel/backend.h);
 * those run only when the backend is usable for the model. */
#include "core/opt/optimize.h"

#include <stddef.h>

#include "core/kernel/backend.h"
#include "core/opt/passes.h"

typedef struct opt_pass {
    const char *name;
    int level;          /* lowest level it runs at */
    kn_opt_pass_fn run; /* NULL: a slot for backends' passes (each has its own level) */
    int32_t slot;       /* for a slot: KN_PASS_SLOT_* */
} opt_pass;

static const opt_pass passes[] = {
    /* Level 2, but first: a QDQ model's convolutions become integer ones
     * and its matrix products integer ones with float results, while their
     * weights are still int8 (const_fold would dequantize them); so do a
     * dynamically quantized model's (MatMulInteger -> Cast -> Mul),
     * then its residual additions between them and its products with a
     * float gate, then the pooling and data movement between those, on
     * 8-bit values. */
    {.name = "qdq_conv", .level = KN_OPT_ALL, .run = kn_pass_qdq_conv},
    {.name = "qdq_matmul", .level = KN_OPT_ALL, .run = kn_pass_qdq_matmul},
    {.name = "dynamic_matmul", .level = KN_OPT_ALL, .run = kn_pass_dynamic_matmul},
    {.name = "qdq_add", .level = KN_OPT_ALL, .run = kn_pass_qdq_add},
    {.name = "qdq_mul", .level = KN_OPT_ALL, .run = kn_pass_qdq_mul},
    {.name = "qdq_passthrough", .level = KN_OPT_ALL, .run = kn_pass_qdq_passthrough},
    /* Level 1: cleanups every backend benefits from. Folding first, so the
     * later passes see Constant outputs and Clip bounds as initializers. */
    {.name = "const_fold", .level = KN_OPT_BASIC, .run = kn_pass_const_fold},
    {.name = "identity", .level = KN_OPT_BASIC, .run = kn_pass_identity},
    {.name = "pad_fold", .level = KN_OPT_BASIC, .run = kn_pass_pad_fold},
    {.name = "conv_bn", .level = KN_OPT_BASIC, .run = kn_pass_conv_bn},
    {.name = "dead_nodes", .level = KN_OPT_BASIC, .run = kn_pass_dead_nodes},
    /* Level 2: fusion. A QDQ model's residual additions into the integer
     * convolutions before them, once dead_nodes has dropped the
     * DequantizeLinear nodes qdq_add left unread (the convolution's result
     * must have the addition as its only reader). Then formulas into ops
     * (Gelu before the matrix products that take it as their activation). */
    {.name = "qconv_add", .level = KN_OPT_ALL, .run = kn_pass_qconv_add},
    {.name = "gelu", .level = KN_OPT_ALL, .run = kn_pass_gelu},
    /* the integer products' bias, activation and requantization */
    {.name = "qmatmul_epilogue", .level = KN_OPT_ALL, .run = kn_pass_qmatmul_epilogue},
    {.name = "layernorm", .level = KN_OPT_ALL, .run = kn_pass_layernorm},
    {.name = "attention", .level = KN_OPT_ALL, .run = kn_pass_attention},
    {.name = "(backends: before epilogues)",
     .level = KN_OPT_BASIC,
     .slot = KN_PASS_SLOT_BEFORE_EPILOGUES},
    {.name = "fuse_matmul", .level = KN_OPT_ALL, .run = kn_pass_fuse_matmul},
    {.name = "fuse_gemm", .level = KN_OPT_ALL, .run = kn_pass_fuse_gemm},
    {.name = "fuse_conv", .level = KN_OPT_ALL, .run = kn_pass_fuse_conv},
    {.name = "silu", .level = KN_OPT_ALL, .run = kn_pass_silu},
    {.name = "dead_nodes", .level = KN_OPT_ALL, .run = kn_pass_dead_nodes},
    /* Layout passes run last, on the fused graph. */
    {.name = "(backends: layout)", .level = KN_OPT_BASIC, .slot = KN_PASS_SLOT_LAYOUT},
    /* a layout pass may leave a model's own Transpose unread */
    {.name = "dead_nodes", .level = KN_OPT_BASIC, .run = kn_pass_dead_nodes},
    /* After every fusion (an activation belongs in its producer's epilogue)
     * and after the layout passes, which move single elementwise ops into
     * NHWC regions by their op type. */
    {.name = "elementwise_chain", .level = KN_OPT_ALL, .run = kn_pass_elementwise_chain},
};

static int run_pass(kn_model_ir *ir, const char *name, kn_opt_pass_fn fn, int32_t *names_used,
                    kn_err *err)
{
    kn_opt o;
    int rc = kn_opt_begin(&o, ir, err);
    if (rc == KN_OK) {
        o.name_counter = *names_used; /* new names stay unique across passes */
        rc = fn(&o);
        *names_used = o.name_counter;
    }
    if (rc != KN_OK)
        kn_opt_end(&o);
    else
        rc = kn_opt_commit(&o);
    if (rc != KN_OK) {
        if (err->code == KN_OK)
            kn_fail(err, rc, "optimizer pass failed");
        kn_err_prefix(err, "optimizer pass %s", name);
    }
    return rc;
}

/* The passes the usable backends contribute at this slot, in backend order. */
static int run_slot(kn_model_ir *ir, int level, int32_t slot, const kn_backend *const *backends,
                    int32_t *names_used, kn_err *err)
{
    for (const kn_backend *const *b = backends; b && *b; b++) {
        for (const kn_backend_pass *p = (*b)->passes; p && p->run; p++) {
            if (p->slot != slot || level < p->level)
                continue;
            int rc = run_pass(ir, p->name, p->run, names_used, err);
            if (rc != KN_OK)
                return rc;
        }
    }
    return KN_OK;
}

int kn_optimize(kn_model_ir *ir, int level, const kn_backend *const *backends, kn_err *err)
{
    if (!ir || !ir->graph || level <= KN_OPT_NONE)
        return KN_OK;
    int32_t names_used = 0;
    for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++) {
        const opt_pass *p = &passes[i];
        if (level < p->level)
            continue;
        int rc = p->run ? run_pass(ir, p->name, p->run, &names_used, err)
                        : run_slot(ir, level, p->slot, backends, &names_used, err);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}
