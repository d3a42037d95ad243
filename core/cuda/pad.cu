// Pad on the GPU: each thread maps its output element back to the input
// element it copies (device_params.h's kn_cuda_pad), or writes the
// constant. The bytes move unchanged, so one kernel per element size
// serves every dtype.
#include "core/cuda/device_math.cuh"

// Input index for output index o along an axis of n elements padded by pb
// in front, or -1 for the constant.
__device__ __forceinline__ int64_t kn_pad_source(int mode, int64_t o, int64_t pb, int64_t n)
{
    int64_t i = o - pb;
    if (i >= 0 && i < n)
        return i;
    switch (mode) {
    case KN_CUDA_PAD_EDGE: return i < 0 ? 0 : n - 1;
    case KN_CUDA_PAD_WRAP: return ((i % n) + n) % n;
    case KN_CUDA_PAD_REFLECT: {
        // numpy's reflect: the edge is not repeated; wide pads repeat the period
        if (n == 1)
            return 0;
        int64_t period = 2 * (n - 1), m = ((i % period) + period) % period;
        return m < n ? m : period - m;
    }
    default: return -1;
    }
}

template <typename T> __device__ void pad(const T *x, T *y, const kn_cuda_pad &p)
{
    T value;
    memcpy(&value, &p.value, sizeof value);
    KN_GRID_LOOP(e, p.n)
    {
        int64_t rest = e, src = 0;
        int outside = 0;
        for (int d = p.rank - 1; d >= 0; d--) {
            int64_t i = kn_pad_source(p.mode, rest % p.out_dims[d], p.begin[d], p.in_dims[d]);
            rest /= p.out_dims[d];
            outside |= i < 0;
            src += i * p.in_stride[d];
        }
        y[e] = outside ? value : x[src];
    }
}

// The names pad.c asks the loaded module for.
#define KN_PAD(bytes, T)                                                                           \
    extern "C" __global__ void kn_pad_##bytes(const T *x, T *y, kn_cuda_pad p) { pad<T>(x, y, p); }
KN_PAD(1, uint8_t)
KN_PAD(2, uint16_t)
KN_PAD(4, uint32_t)
KN_PAD(8, uint64_t)
