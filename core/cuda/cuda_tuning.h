/* Auto-tuning of the library algorithms behind the CUDA kernels (cuBLASLt
 * products, cuDNN convolutions). Without tuning a kernel takes its
 * library's heuristic choice and times nothing, so a new shape pays only
 * a heuristic query. With the session's tuning on, prepare times the
 * heuristic's first few candidates on the planned shapes, on the session's
 * stream between CUDA events, keeps the fastest and stores it in the
 * tuning cache (through kn_engine_api.tuned_choice, keyed by the device's
 * name, compute capability and driver and library versions); a later plan
 * reads the choice back, checks it with the library and times nothing. A
 * cached choice that no longer checks out falls back to the heuristic. */
#ifndef KN_CUDA_TUNING_H
#define KN_CUDA_TUNING_H

#include <stddef.h>

#include "core/kernel/op.h"

/* How many of the heuristic's candidates are timed. */
enum { KN_CUDA_TUNE_CANDIDATES = 6 };

/* -1: the session does not tune this kernel; 0: nothing cached (time the
 * candidates); 1: the cached choice is in buf. */
int kn_cuda_tuned_choice(const kn_kctx *k, char *buf, size_t cap);

/* Keeps the choice timed for k's node (a word: letters, digits, ":=,.-"). */
int kn_cuda_keep_choice(kn_kctx *k, const char *choice);

/* Makes candidate i the prepared kernel's (its algorithm, its workspace
 * bytes); KN_OK, or anything else to leave it out. */
typedef int (*kn_cuda_pick_fn)(kn_kctx *k, void *ctx, int i);

/* Times the kernel's run() for each of n candidates on device buffers of
 * zeros for every input (a constant's host bytes are not read), output and
 * a workspace of `workspace` bytes (the largest a candidate needs): pick(),
 * one warm-up run, then KN_CUDA_TUNE_RUNS runs between two events on k's
 * stream. *best gets the fastest candidate, -1 when none ran. k is left as
 * it was found except for what pick() set; a candidate that fails is left
 * out without an error. */
enum { KN_CUDA_TUNE_RUNS = 3 };
int kn_cuda_time_candidates(kn_kctx *k, int n, kn_cuda_pick_fn pick, void *ctx,
                            int (*run)(kn_kctx *k), size_t workspace, int *best);

#endif
