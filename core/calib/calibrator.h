/* INT8 calibration: runs a model on the user's calibration batches, taps
 * every float activation inside the runtime (a kn_tap on its session; the
 * graph is not changed and no outputs are added), folds each batch into
 * per-tensor histograms and then writes a QDQ model (core/calib/qdq_plan.h,
 * core/onnx/qdq_writer.h). Memory is the model, one session and one fixed
 * histogram per float tensor, whatever the number of batches.
 *
 * The model is loaded from its bytes without graph optimization, so that
 * every tensor of the file is computed under its own name (a fused Conv +
 * Relu would hide the Conv's output), and the bytes are kept: the QDQ
 * model is those bytes rewritten. */
#ifndef KN_CALIBRATOR_H
#define KN_CALIBRATOR_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/thread_pool.h"
#include "core/calib/qdq_plan.h"
#include "core/engine/model.h"

typedef struct kn_calibrator kn_calibrator;

typedef struct kn_calibrator_config {
    const char *source;     /* the model file's name, for messages; NULL: bytes */
    const char *base_dir;   /* where external data lives; NULL: none allowed */
    size_t max_bytes;       /* model size limit; 0 = none */
    uint32_t backends_off;  /* as kn_load_options */
} kn_calibrator_config;

/* Copies the bytes. Errors: those of loading the model; UNSUPPORTED when
 * the model imports the default domain below opset 13 (per-channel
 * QuantizeLinear/DequantizeLinear came in 13). */
int kn_calibrator_create(const void *bytes, size_t size, const kn_calibrator_config *cfg,
                         kn_threadpool *pool, kn_calibrator **out, kn_err *err);
void kn_calibrator_destroy(kn_calibrator *c); /* NULL-safe */

/* The model's graph inputs, as a session's (kn_session_bind); the bytes
 * are copied. */
int kn_calibrator_bind(kn_calibrator *c, int32_t index, int32_t dtype, const int64_t *dims,
                       int32_t rank, const void *data, size_t nbytes, kn_err *err);
/* Runs the model on the bound inputs and adds every float tensor it
 * computes (and every float input) to its histogram. */
int kn_calibrator_add_batch(kn_calibrator *c, kn_err *err);
int64_t kn_calibrator_batches(const kn_calibrator *c);
const kn_model *kn_calibrator_model(const kn_calibrator *c);

/* Chooses every range with `settings` and writes the QDQ model: *out
 * (malloc'd; the caller frees it), *size. The plan behind it (report lines
 * included) stays readable with kn_calibrator_report until the next write
 * or destroy. Errors: STATE (no batch added), INVALID_ARGUMENT (bad
 * settings), OUT_OF_MEMORY. */
int kn_calibrator_write(kn_calibrator *c, const kn_qdq_settings *settings, uint8_t **out,
                        size_t *size, kn_err *err);
const kn_qdq_plan *kn_calibrator_report(const kn_calibrator *c); /* NULL before a write */

#endif
