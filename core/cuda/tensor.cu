// Data movement kernels of the CUDA backend, by element size (the bytes
// move unchanged, so one kernel serves every dtype of that size):
// a strided gather that is Transpose, Slice and Expand, and Gather.
#include "core/cuda/device_math.cuh"

template <typename T> __device__ void strided_copy(const T *x, T *y, const kn_cuda_walk &w)
{
    KN_GRID_LOOP(i, w.n)
    {
        int64_t src, unused;
        kn_walk_offsets(w, i, &src, &unused);
        y[i] = x[src];
    }
}

// y[o][j][i] = x[o][indices[j]][i], o < outer, j < n_idx, i < inner; an
// index outside [-axis_len, axis_len) gives zeros instead of a fault.
template <typename T, typename I>
__device__ void gather(const T *x, const I *indices, T *y, int64_t outer, int64_t axis_len,
                       int64_t n_idx, int64_t inner)
{
    const int64_t n = outer * n_idx * inner;
    KN_GRID_LOOP(e, n)
    {
        int64_t i = e % inner, j = e / inner % n_idx, o = e / (inner * n_idx);
        int64_t idx = (int64_t)indices[j];
        if (idx < 0)
            idx += axis_len;
        y[e] = idx >= 0 && idx < axis_len ? x[(o * axis_len + idx) * inner + i] : T(0);
    }
}

// One extern "C" entry point per element size (and index type, for Gather):
// the names tensor.c asks the loaded module for.
#define KN_BY_SIZE(X) X(1, uint8_t) X(2, uint16_t) X(4, uint32_t) X(8, uint64_t)
#define KN_GATHER(bytes, T, suffix, I)                                                             \
    extern "C" __global__ void kn_gather_##bytes##_##suffix(const T *x, const I *indices, T *y,    \
                                                            int64_t outer, int64_t axis_len,       \
                                                            int64_t n_idx, int64_t inner)          \
    {                                                                                              \
        gather<T, I>(x, indices, y, outer, axis_len, n_idx, inner);                                \
    }
#define KN_STRIDED(bytes, T)                                                                       \
    extern "C" __global__ void kn_strided_copy_##bytes(const T *x, T *y, kn_cuda_walk w)           \
    {                                                                                              \
        strided_copy<T>(x, y, w);                                                                  \
    }                                                                                              \
    KN_GATHER(bytes, T, i64, int64_t)                                                              \
    KN_GATHER(bytes, T, i32, int32_t)
KN_BY_SIZE(KN_STRIDED)
