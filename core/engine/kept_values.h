/* Kept values: a float32 copy of every tensor a session's run computes, by
 * the name the model's graph gives it, so tools can compare intermediate
 * tensors of two runs (`kiln diff`) without adding graph outputs (which
 * would stop in-place reuse and change the plan being examined).
 *
 * It is a plan tap (kn_tap, core/engine/plan.h): hand kn_kept_values_tap()
 * to the session at creation; the session calls kn_kept_values_begin()
 * and kn_kept_values_end() around each run, inside its run lock (a caller
 * doing it after kn_session_run returned raced a concurrent destroy). Buffers are kept between runs and grow
 * only, so repeated runs of one shape allocate nothing. Not thread-safe: it
 * follows its session's one-run-at-a-time rule. */
#ifndef KN_KEPT_VALUES_H
#define KN_KEPT_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "core/engine/model.h"
#include "core/engine/plan.h"

typedef struct kn_kept_values kn_kept_values;

/* For the root graph of model (which must outlive it). */
int kn_kept_values_create(const kn_model *model, kn_kept_values **out, kn_err *err);
void kn_kept_values_destroy(kn_kept_values *kv); /* NULL-safe */

/* The tap to put in kn_session_config.tap; lives as long as kv. */
const kn_tap *kn_kept_values_tap(kn_kept_values *kv);

/* Forgets the previous run's values (their buffers stay for reuse). */
void kn_kept_values_begin(kn_kept_values *kv);
/* Marks the run finished: ok = 1 keeps what it computed readable; 0 (the
 * run failed) leaves nothing readable. */
void kn_kept_values_end(kn_kept_values *kv, int ok);
/* Frees every buffer (kiln_session_release_memory); nothing is readable
 * until the next successful run. */
void kn_kept_values_release(kn_kept_values *kv);

/* 1 after a successful run since the last begin/release. */
int kn_kept_values_ready(const kn_kept_values *kv);
/* Values the last run kept, in the order it computed them. */
int32_t kn_kept_values_count(const kn_kept_values *kv);
/* Graph value index of kept value `i` (0 <= i < count). */
int32_t kn_kept_values_value(const kn_kept_values *kv, int32_t i);
/* The kept copy of graph value v, or NULL when the last run kept none for
 * it: *t gets the original dtype and the shape, *data the float32 copy of
 * kn_tensor_numel(t) elements. */
int kn_kept_values_get(const kn_kept_values *kv, int32_t v, kn_tensor *t, const float **data);

/* 1 when values of this dtype are kept (numeric tensors: every float, int
 * and bool type of one byte or more per element). */
int kn_kept_values_dtype_ok(int32_t dtype);

#endif
