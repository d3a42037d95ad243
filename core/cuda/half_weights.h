/* FP16 sessions (KN_PRECISION_FP16) keep constant weights as IEEE half on
 * the device: a MatMul/Gemm's B and a convolution's filter are converted
 * once per model and device on the host (round to nearest even, denormals,
 * infinities and NaN as IEEE 754 says: kn_convert) and uploaded through the
 * model's weight store under a key naming float16, so every FP16 session of
 * the model on that device reads the same half copy, and the float32
 * weight is not uploaded at all: the device holds half the bytes.
 *
 * The libraries then take half operands (cuBLASLt A and B in CUDA_R_16F,
 * cuDNN's filter, input and output in CUDNN_DATA_HALF), so the float32
 * activations a node reads are converted to half on the device into the
 * node's scratch first (and a convolution's half output back to float32):
 * tensors between nodes stay float32. */
#ifndef KN_CUDA_HALF_WEIGHTS_H
#define KN_CUDA_HALF_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/cuda/cuda_device.h"
#include "core/kernel/op.h"

/* Whether input `input` of the node gets a half copy: an FP16 session, the
 * input a float constant the model's weight store shares (a float
 * initializer of 4 KiB or more that only ever serves as such a weight;
 * smaller ones stay float and the library rounds them inside the call). */
int kn_cuda_half_weight_wanted(const kn_kctx *k, int32_t input);

/* The device's half copy of constant input `input` (made and uploaded on
 * the first call for the model and device), its float32 bytes left on the
 * host: the engine then uploads nothing for it (k->in[input] is cleared,
 * so run() must read *half instead). Release with
 * kn_cuda_half_weight_release. */
int kn_cuda_half_weight_acquire(kn_kctx *k, int32_t input, const void **half);
void kn_cuda_half_weight_release(kn_kctx *k, const void *half); /* NULL-safe */

/* The two conversion kernels (elementwise.cu), looked up once in prepare. */
typedef struct kn_cuda_half_kernels {
    kn_cudaKernel to_half, to_float;
} kn_cuda_half_kernels;
int kn_cuda_half_kernels_find(kn_kctx *k, kn_cuda_half_kernels *kernels);

/* Queues y (half, n elements) = x (float) rounded to nearest even, and the
 * way back, on the node's stream. */
int kn_cuda_to_half(kn_kctx *k, const kn_cuda_half_kernels *kernels, const float *x, void *y,
                    int64_t n);
int kn_cuda_to_float(kn_kctx *k, const kn_cuda_half_kernels *kernels, const void *x, float *y,
                     int64_t n);

/* Bytes of scratch from `at` on that hold n half elements, 256-byte
 * aligned as the libraries want their operands; returns the end. */
static inline size_t kn_cuda_half_region(size_t at, int64_t n, size_t *offset)
{
    *offset = (at + 255) & ~(size_t)255;
    return *offset + (size_t)n * 2;
}

#endif
