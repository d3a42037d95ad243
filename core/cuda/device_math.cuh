// Device-side pieces the .cu files share: the unary operations and
// activations by number (device_params.h), grid-stride loops and the
// offset of an element under a kn_cuda_walk.
#ifndef KN_CUDA_DEVICE_MATH_CUH
#define KN_CUDA_DEVICE_MATH_CUH

#include "core/cuda/device_params.h"

// IEEE half as its 16 bits (the C side's uint16_t), converted with the
// hardware's round-to-nearest-even conversions. The host build of these
// files (tests/cuda/host_shim.h) defines the two with Kiln's host
// conversions instead.
#ifdef __CUDACC__
#include <cuda_fp16.h>
__device__ __forceinline__ uint16_t kn_half_bits(float x)
{
    return __half_as_ushort(__float2half_rn(x));
}
__device__ __forceinline__ float kn_half_value(uint16_t h)
{
    return __half2float(__ushort_as_half(h));
}
#endif

#define KN_GRID_LOOP(i, n)                                                                         \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                      \
         i += (int64_t)blockDim.x * gridDim.x)

__device__ __forceinline__ float kn_unary(int op, float x, float alpha, float beta)
{
    switch (op) {
    case KN_CUDA_U_RELU: return x < 0.0f ? 0.0f : x; // NaN stays NaN, as on the CPU
    case KN_CUDA_U_CLIP: return x < alpha ? alpha : x > beta ? beta : x;
    case KN_CUDA_U_LEAKY_RELU: return x < 0.0f ? alpha * x : x;
    case KN_CUDA_U_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case KN_CUDA_U_HARD_SIGMOID: return fminf(fmaxf(alpha * x + beta, 0.0f), 1.0f);
    case KN_CUDA_U_TANH: return tanhf(x);
    case KN_CUDA_U_HARD_SWISH: return x * fminf(fmaxf(x / 6.0f + 0.5f, 0.0f), 1.0f);
    case KN_CUDA_U_SILU: return x / (1.0f + expf(-x));
    case KN_CUDA_U_GELU: return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case KN_CUDA_U_GELU_TANH:
        return 0.5f * x * (1.0f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
    case KN_CUDA_U_EXP: return expf(x);
    case KN_CUDA_U_LOG: return logf(x);
    case KN_CUDA_U_SQRT: return sqrtf(x);
    case KN_CUDA_U_NEG: return -x;
    case KN_CUDA_U_ABS: return fabsf(x);
    case KN_CUDA_U_RECIPROCAL: return 1.0f / x;
    case KN_CUDA_U_ERF: return erff(x);
    case KN_CUDA_U_FLOOR: return floorf(x);
    case KN_CUDA_U_CEIL: return ceilf(x);
    case KN_CUDA_U_SOFTPLUS: return log1pf(expf(x));
    case KN_CUDA_U_ELU: return x < 0.0f ? alpha * expm1f(x) : x;
    case KN_CUDA_U_SIN: return sinf(x);
    case KN_CUDA_U_COS: return cosf(x);
    default: return x;
    }
}

__device__ __forceinline__ float kn_act(const kn_cuda_act &a, float x)
{
    return a.op == KN_CUDA_U_NONE ? x : kn_unary(a.op, x, a.alpha, a.beta);
}

// Offsets of output element i in operands 0 and 1 of a walk.
__device__ __forceinline__ void kn_walk_offsets(const kn_cuda_walk &w, int64_t i, int64_t *o0,
                                                int64_t *o1)
{
    if (w.flat) {
        *o0 = w.offset + i;
        *o1 = i;
        return;
    }
    int64_t a = w.offset, b = 0;
    for (int d = w.rank - 1; d >= 0; d--) {
        int64_t c = i % w.dims[d];
        i /= w.dims[d];
        a += c * w.stride[0][d];
        b += c * w.stride[1][d];
    }
    *o0 = a;
    *o1 = b;
}

#endif
