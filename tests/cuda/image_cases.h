/* The image family's cases the CUDA backend's two suites run through their
 * check (tests/cuda/cuda_cases.h). Resize and Upsample: the nearest modes
 * on float and on integer dtypes of 1, 2 and 8 bytes (exact), linear and
 * cubic under each coordinate transform, by scales and by sizes, NCHW and
 * channels-last (opset 18 axes), 5-D, opset 10 and Upsample (within tol).
 * Pad: each mode, negative pads, axes, a constant value, opset 2's
 * attributes, on float, int64 and uint8 (exact). And the pooling windows
 * cuDNN cannot describe, which pool.c gives Kiln's own kernel: ceil_mode,
 * asymmetric pads, dilations, SAME pads, count_include_pad, 1-D and 3-D,
 * NHWC (exact for MaxPool, within tol for AveragePool). */
#ifndef KN_TEST_CUDA_IMAGE_CASES_H
#define KN_TEST_CUDA_IMAGE_CASES_H

#include "tests/cuda/cuda_cases.h"

void resize_cases(cuda_check_fn check, double tol);
void pad_cases(cuda_check_fn check);
void pool_window_cases(cuda_check_fn check, double tol);
/* Convolutions whose pads differ on the two sides of a dim (conv_pads.c):
 * Conv, FusedConv with Z, grouped NhwcConv, 1-D, and SAME_UPPER. */
void uneven_pad_conv_cases(cuda_check_fn check, double tol);

/* Nodes the CUDA kernel leaves to the CPU: its prepare declines them. */
void resize_declined_cases(void *device);

#endif
