/* Kernel auto-tuning: where the kernel of a tuned backend
 * (KN_BACKEND_TUNED) and the next backend's kernel can both serve a node,
 * or the tuned kernel has variants (a oneDNN convolution: Kiln's choice of
 * Winograd or implementation, and oneDNN's own first), time them on the
 * planned shapes at plan time and keep the fastest. Choices persist in a
 * tuning-cache text file, one line per choice:
 *
 *     <key> <backend>[#<variant>]
 *     key = <model hash>|<cpu model>|<isa>|t<threads>|n<node>|<input shapes>
 *
 * so a later plan of the same model on the same machine and thread count
 * reads its choices instead of timing. Lines for other models or machines
 * are kept when the file is rewritten.
 *
 * A device kernel times its own candidates (kn_engine_api.tuned_choice:
 * its library's algorithms, on the device) and keeps its choice here too:
 *
 *     <key> <backend>/<choice>
 *     key = <model hash>|<device>|p<precision>|n<node>|<input shapes>
 *
 * where <device> is the backend's describe() of the device (its name,
 * compute capability, driver and library versions), blanks and bars made
 * '_': a choice made on another GPU or library version is never applied. */
#ifndef KN_TUNING_H
#define KN_TUNING_H

#include "core/ir/graph.h"
#include "core/kernel/backend.h"
#include "core/kernel/op.h"

typedef struct kn_tuner kn_tuner;

/* Reads cache_path (may be NULL or absent: nothing cached). */
int kn_tuner_open(kn_tuner **out, const kn_model_ir *ir, const kn_graph *g, const char *cache_path,
                  int32_t threads, kn_err *err);
/* Writes the cache when choices were added; frees t (NULL-safe). */
int kn_tuner_close(kn_tuner *t, kn_err *err);

/* For node `node` whose kernel k was prepared with `fast` (a tuned backend's
 * entry, as variant 0): which candidate serves it fastest. The candidates
 * are fast's other variants (1 .. k->n_variants - 1) and `other` (the next
 * entry; may be NULL). *choice gets 0 (keep k), a variant to prepare
 * instead, or KN_TUNE_OTHER. The answer comes from the cache, else from
 * timing (each candidate prepared on a copy of k and released again);
 * *timed tells which it was. */
#define KN_TUNE_OTHER (-1)
typedef struct kn_tune_candidate {
    const kn_op_def *def;
    const kn_backend *backend; /* its name goes into the cache */
} kn_tune_candidate;
/* The device kernel's choice cached for node `node` of k's input shapes
 * on `device` (a describe() text), or NULL when there is none. */
const char *kn_tuner_device_choice(const kn_tuner *t, int32_t node, const kn_kctx *k,
                                   const kn_backend *backend, const char *device);
/* Stores it; written to the cache file by kn_tuner_close. */
int kn_tuner_keep_device_choice(kn_tuner *t, int32_t node, const kn_kctx *k,
                                const kn_backend *backend, const char *device, const char *choice,
                                kn_err *err);

int kn_tuner_choose(kn_tuner *t, int32_t node, const kn_tune_candidate *fast, kn_kctx *k,
                    const kn_tune_candidate *other, int32_t *choice, int *timed, kn_err *err);

#endif
