/* Kernel auto-tuning: where a oneDNN and a CPU kernel can both serve a
 * node, time both on the planned shapes at plan time and keep the faster.
 * Choices persist in a tuning-cache text file, one line per choice:
 *
 *     <key> <backend>
 *     key = <model hash>|<cpu model>|<isa>|t<threads>|n<node>|<input shapes>
 *
 * so a later plan of the same model on the same machine and thread count
 * reads its choices instead of timing. Lines for other models or machines
 * are kept when the file is rewritten. */
#ifndef KN_DNNL_TUNING_H
#define KN_DNNL_TUNING_H

#include "core/graph.h"
#include "core/op.h"

typedef struct kn_tuner kn_tuner;

/* Reads cache_path (may be NULL or absent: nothing cached). */
int kn_tuner_open(kn_tuner **out, const kn_model_ir *ir, const kn_graph *g, const char *cache_path,
                  int32_t threads, kn_err *err);
/* Writes the cache when choices were added; frees t (NULL-safe). */
int kn_tuner_close(kn_tuner *t, kn_err *err);

/* For node `node` whose kernel k was prepared with `fast` (the oneDNN
 * entry): whether `other` (the CPU entry) serves it faster. The answer
 * comes from the cache, else from timing both (other is prepared on a
 * copy of k and released again). *timed tells which it was. */
int kn_tuner_prefer_other(kn_tuner *t, int32_t node, const kn_op_def *fast, kn_kctx *k,
                          const kn_op_def *other, int *use_other, int *timed, kn_err *err);

#endif
