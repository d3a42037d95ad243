/* The session's float precision (kn_kctx.precision) as the CUDA libraries
 * take it: cuBLASLt's compute type for products and cuDNN's math type for
 * convolutions. Tensors stay float32 at every precision; only the Tensor
 * Core arithmetic inside a product or convolution changes.
 *
 *   FP32  exact float32: CUBLAS_COMPUTE_32F, CUDNN_FMA_MATH (cuDNN's
 *         default math allows TF32 on Ampere and later, so strict float32
 *         has to name FMA math)
 *   TF32  inputs rounded to TF32 (10 mantissa bits), float32 accumulation:
 *         CUBLAS_COMPUTE_32F_FAST_TF32, CUDNN_DEFAULT_MATH
 *   BF16  as TF32: TF32 rounds less than bfloat16 would, so it stays
 *         within what the session allowed
 *   FP16  inputs down-converted to float16 Tensor Cores, float32
 *         accumulation: CUBLAS_COMPUTE_32F_FAST_16F,
 *         CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION; where a product's B or a
 *         convolution's filter is a stored weight it is kept as float16
 *         and the operands are half with COMPUTE_32F (half_weights.h) */
#ifndef KN_CUDA_PRECISION_H
#define KN_CUDA_PRECISION_H

#include "core/cuda/cuda_api.h"
#include "core/kernel/op.h"

static inline int kn_cuda_compute_type(int32_t precision)
{
    switch (precision) {
    case KN_PRECISION_FP16:
        return KN_CUBLAS_COMPUTE_32F_FAST_16F;
    case KN_PRECISION_TF32:
    case KN_PRECISION_BF16:
        return KN_CUBLAS_COMPUTE_32F_FAST_TF32;
    default:
        return KN_CUBLAS_COMPUTE_32F;
    }
}

static inline int kn_cuda_conv_math(int32_t precision)
{
    switch (precision) {
    case KN_PRECISION_FP16:
        return KN_CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    case KN_PRECISION_TF32:
    case KN_PRECISION_BF16:
        return KN_CUDNN_DEFAULT_MATH;
    default:
        return KN_CUDNN_FMA_MATH;
    }
}

#endif
