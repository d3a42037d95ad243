/* Load-time graph optimizer: rewrites a freshly read model's top-level
 * graph (before kn_model_create validates it) into an equivalent one that
 * runs faster: dead code and no-op nodes removed, constants folded,
 * BatchNormalization folded into convolutions, and chains of ops fused into
 * ops of the internal "kiln" domain (core/cpu/fused_*.c serve them).
 * Subgraphs (If/Loop/Scan bodies) are left as they are. */
#ifndef KN_OPT_OPTIMIZE_H
#define KN_OPT_OPTIMIZE_H

#include "core/ir/graph.h"
#include "core/base/status.h"

/* Optimization levels (KILN_OPT_OPTIMIZE). */
enum {
    KN_OPT_NONE = 0,
    KN_OPT_BASIC = 1,  /* dead nodes, Identity/Dropout, constant folding, Conv+BN */
    KN_OPT_ALL = 2     /* + fusion into kiln-domain ops */
};

/* The internal op domain and the opset version its ops carry. */
#define KN_OPT_DOMAIN_NAME "kiln"
#define KN_OPT_DOMAIN_VERSION 1

struct kn_backend;
/* Runs the passes of `level` (levels above 2 act as 2) over ir's top-level
 * graph in place, with the passes that `backends` (those that may serve the
 * model, NULL-ended; NULL: none) contribute at their slots. On error the IR
 * may be partly rewritten and must be dropped. */
int kn_optimize(kn_model_ir *ir, int level, const struct kn_backend *const *backends,
                kn_err *err);

#endif
