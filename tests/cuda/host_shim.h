// Lets the CUDA backend's .cu files compile as ordinary host C++ for
// tests/test_cuda_emulated.c: the CUDA keywords vanish and a launch is one
// thread in one block, so a grid-stride loop (KN_GRID_LOOP) walks every
// element in turn. Kernels that need a whole block cooperating
// (block_reduce in rows.cu) compile but are not run this way.
#ifndef KN_TEST_CUDA_HOST_SHIM_H
#define KN_TEST_CUDA_HOST_SHIM_H

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static

struct kn_host_dim3 {
    unsigned x, y, z;
};
static const kn_host_dim3 blockIdx = {0, 0, 0}, threadIdx = {0, 0, 0}, blockDim = {1, 1, 1},
                          gridDim = {1, 1, 1};

template <typename T> static inline T __shfl_xor_sync(unsigned, T v, int) { return v; }
static inline void __syncthreads() {}
static inline int __syncthreads_or(int p) { return p; }
static inline float __int_as_float(int i)
{
    float f;
    std::memcpy(&f, &i, sizeof f);
    return f;
}
static inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }

// Half conversions: Kiln's host ones (core/ir/tensor.h), round to nearest
// even as the device's __float2half_rn.
extern "C" float kn_f16_to_f32(uint16_t h);
extern "C" uint16_t kn_f32_to_f16(float f);
static inline uint16_t kn_half_bits(float x) { return kn_f32_to_f16(x); }
static inline float kn_half_value(uint16_t h) { return kn_f16_to_f32(h); }

#endif
