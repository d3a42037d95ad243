/* Where a calibrated model gets its Q/DQ pairs, and with which parameters.
 *
 * Walking the graph as written (not Kiln's optimized form: the QDQ model
 * must run anywhere), in topological order:
 *   - Conv, Gemm and MatMul: their activation inputs are quantized (uint8
 *     asymmetric, or int8 symmetric when asked), a constant weight becomes
 *     int8 symmetric per output channel, a constant bias int32 with scale
 *     input scale x weight scale (what integer kernels accumulate in); the
 *     output is quantized after a single Relu or Clip that follows, so that
 *     the activation folds into the quantized output;
 *   - Add and average pooling: inputs and output quantized (an Add's after
 *     a single Relu that follows, like a Conv's);
 *   - Concat: output quantized, and inputs that only the Concat reads take
 *     the output's scale and zero point (the integer Concat copies bytes);
 *   - MaxPool, Reshape, Flatten, Transpose, Squeeze and Unsqueeze: output
 *     quantized with the input's own parameters when the input is quantized
 *     (the values pass through unchanged, so do their 8-bit codes);
 *   - Relu and Clip after a quantized input: output quantized (its own
 *     parameters: the range is the input's non-negative part).
 * Nodes named (by node name or op type) in keep_float are left alone and
 * keep reading float. A tensor never seen during calibration (a branch no
 * batch reached) stays float. */
#ifndef KN_CALIB_QDQ_PLAN_H
#define KN_CALIB_QDQ_PLAN_H

#include <stdint.h>

#include "core/base/bump_alloc.h"
#include "core/calib/calib_threshold.h"
#include "core/ir/graph.h"
#include "core/onnx/qdq_writer.h"

typedef struct kn_qdq_settings {
    int method;          /* KN_CALIB_* */
    double percentile;   /* for KN_CALIB_PERCENTILE */
    int symmetric;       /* activations int8 symmetric (else uint8 asymmetric) */
    int weight_qmax;     /* weights over [-weight_qmax, weight_qmax]: 127, or 63
                          * (7-bit; 0 reads as 127) */
    const char *const *keep_float;
    int32_t n_keep_float;
} kn_qdq_settings;

enum { KN_QDQ_ACTIVATION = 0, KN_QDQ_WEIGHT = 1, KN_QDQ_BIAS = 2 };

/* One line of the calibration report. */
typedef struct kn_qdq_report {
    const char *name;
    int kind;            /* KN_QDQ_* */
    double min, max;     /* seen (activations) or present (weights) */
    double threshold;    /* the chosen magnitude (activations); max |w| (weights) */
    float scale;         /* the first channel's for per-channel weights */
    int32_t zero_point;
    double sqnr_db;      /* estimated from the histogram for activations, exact for weights */
    uint64_t nonfinite;  /* NaN/Inf values seen and left out */
} kn_qdq_report;

typedef struct kn_qdq_plan {
    kn_bump *bump;       /* owns everything below */
    kn_qdq_spec spec;
    kn_qdq_report *report;
    int32_t n_report;
} kn_qdq_plan;

/* hist_of(ctx, name): the tensor's calibration histogram, or NULL. */
typedef const kn_calib_hist *(*kn_hist_lookup)(void *ctx, const char *name);

int kn_qdq_plan_build(const kn_graph *g, kn_hist_lookup hist_of, void *ctx,
                      const kn_qdq_settings *settings, kn_qdq_plan *out, kn_err *err);
void kn_qdq_plan_free(kn_qdq_plan *plan); /* NULL-safe */

#endif
