/* Whole-model coverage of the CUDA backend without a GPU: a model is
 * loaded and planned as a `--device cuda` session plans it (the same
 * optimizer, the same partitioning, each node offered to the CUDA kernel's
 * own prepare first) on a device backend whose kernels are the CUDA
 * backend's tables, and the plan's profile says which steps stayed on the
 * CPU and which values cross back to the host. */
#ifndef KN_TEST_CUDA_MODEL_COVERAGE_H
#define KN_TEST_CUDA_MODEL_COVERAGE_H

#include <stddef.h>

typedef struct model_coverage {
    int steps, device_steps;
    int host_steps;      /* nodes a CUDA kernel declined or has no kernel for */
    char host_ops[1024]; /* "name (Op), ..." of those */
    int bounces;         /* copies device→host of values that are not graph outputs */
    char bounced[1024];  /* their profile names */
} model_coverage;

/* Plans the model at path (input 0 from input_pb, a TensorProto file, when
 * the plan needs a run to exist) with device "cuda", which must name the
 * backend the caller plugged in. 0 on success; -1 when the file is absent. */
int cuda_model_coverage(const char *path, const char *input_pb, model_coverage *out);

/* Runs the model once with device "cuda" and once on the CPU, on the same
 * inputs (input 0 from input_pb when given, else every float input filled
 * with seeded values in [-1, 1)), and returns the largest difference over
 * every output, relative to max(1, the CPU output's largest magnitude). */
double cuda_model_difference(const char *path, const char *input_pb);

/* One ONNX backend test case (DIR/model.onnx with DIR/test_data_set_0's
 * input_K.pb) run with device "cuda" and on the CPU. Returns 0 when the
 * case cannot be run this way (an input that is not a plain numeric
 * tensor, or the CPU fails it), else 1 with *diff the largest difference
 * over the outputs (relative to max(1, |CPU|) for float, 0 or infinity for
 * exact types) and *device_steps the steps that ran on the device; a device
 * session that fails where the CPU's ran gives infinity and its message in
 * why. */
int cuda_case_difference(const char *dir, double *diff, int *device_steps, char *why,
                         size_t why_cap);

#endif
