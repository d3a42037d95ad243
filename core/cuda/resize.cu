// Resize on the GPU: each thread works out, for its output element, the
// input coordinate along every axis that moves (device_params.h's
// kn_cuda_resize) and reads the taps there. Nearest is a gather, so one
// kernel per element size serves every dtype; linear and cubic weigh
// float32 taps. The coordinate rules are the ONNX operator's, evaluated in
// double as the CPU kernel does, so both pick the same input indices.
#include "core/cuda/device_math.cuh"

// Input coordinate of output index o along an axis of `in` elements
// resized to `out` (real-valued length `width` = scale * in).
__device__ __forceinline__ double kn_resize_source(int ctm, int64_t o, double scale, int64_t in,
                                                   int64_t out, double width)
{
    double x = (double)o;
    switch (ctm) {
    case KN_CUDA_CT_HALF_PIXEL_SYMMETRIC: {
        // the centre of the output canvas lands on the centre of the input
        double offset = (double)in / 2 * (1 - (double)out / width);
        return offset + (x + 0.5) / scale - 0.5;
    }
    case KN_CUDA_CT_PYTORCH_HALF_PIXEL: return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
    case KN_CUDA_CT_ALIGN_CORNERS:
        return width == 1 || out == 1 ? 0.0 : x * (double)(in - 1) / (width - 1);
    case KN_CUDA_CT_ASYMMETRIC: return x / scale;
    case KN_CUDA_CT_TF_HALF_PIXEL_FOR_NN: return (x + 0.5) / scale;
    default: return (x + 0.5) / scale - 0.5; // half_pixel
    }
}

__device__ __forceinline__ int64_t kn_resize_clamp(int64_t i, int64_t n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

// Keys' cubic convolution kernel with coefficient a.
__device__ __forceinline__ double kn_resize_cubic(double d, double a)
{
    d = fabs(d);
    if (d <= 1)
        return ((a + 2) * d - (a + 3)) * d * d + 1;
    if (d < 2)
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
    return 0;
}

// The taps of output index o along axis d: input offsets (index times the
// input stride, clamped to the edge) and weights; returns how many.
__device__ int kn_resize_taps(const kn_cuda_resize &p, int d, int64_t o, int64_t *off, float *w)
{
    const int64_t in = p.in_dims[d], stride = p.in_stride[d];
    double x = kn_resize_source(p.ctm, o, p.scale[d], in, p.out_dims[d], p.width[d]);
    x = x > -1e15 ? (x < 1e15 ? x : 1e15) : -1e15; // edge-clamped anyway; keeps the casts defined
    double base = floor(x), ratio = x - base;
    if (p.mode == KN_CUDA_RS_NEAREST) {
        int up;
        switch (p.nearest_mode) {
        case KN_CUDA_NM_ROUND_PREFER_FLOOR: up = ratio > 0.5; break;
        case KN_CUDA_NM_ROUND_PREFER_CEIL: up = ratio >= 0.5; break;
        case KN_CUDA_NM_FLOOR: up = 0; break;
        default: up = ratio > 0; break;
        }
        off[0] = kn_resize_clamp((int64_t)base + up, in) * stride;
        w[0] = 1.0f;
        return 1;
    }
    const int first = p.mode == KN_CUDA_RS_LINEAR ? 0 : -1, n = p.mode == KN_CUDA_RS_LINEAR ? 2 : 4;
    for (int t = 0; t < n; t++) {
        double dist = (double)(first + t) - ratio;
        double v = p.mode == KN_CUDA_RS_LINEAR ? (fabs(dist) < 1 ? 1 - fabs(dist) : 0.0)
                                               : kn_resize_cubic(dist, p.cubic_a);
        off[t] = kn_resize_clamp((int64_t)base + first + t, in) * stride;
        w[t] = (float)v;
    }
    return n;
}

// Splits output element e into its index along each axis.
__device__ __forceinline__ void kn_resize_index(const kn_cuda_resize &p, int64_t e, int64_t *o)
{
    for (int d = p.rank - 1; d >= 0; d--) {
        o[d] = e % p.out_dims[d];
        e /= p.out_dims[d];
    }
}

template <typename T> __device__ void resize_nearest(const T *x, T *y, const kn_cuda_resize &p)
{
    KN_GRID_LOOP(e, p.n)
    {
        int64_t o[KN_CUDA_MAX_DIMS], src = 0, off;
        float w;
        kn_resize_index(p, e, o);
        for (int d = 0; d < p.rank; d++) {
            if (!p.moves[d]) {
                src += o[d] * p.in_stride[d];
                continue;
            }
            kn_resize_taps(p, d, o[d], &off, &w);
            src += off;
        }
        y[e] = x[src];
    }
}

// Linear and cubic: the sum over every combination of the moving axes'
// taps of the product of their weights times the input there.
__device__ void resize_interp(const float *x, float *y, const kn_cuda_resize &p)
{
    KN_GRID_LOOP(e, p.n)
    {
        int64_t o[KN_CUDA_MAX_DIMS], off[KN_CUDA_MAX_DIMS][4], base = 0;
        float w[KN_CUDA_MAX_DIMS][4];
        int taps[KN_CUDA_MAX_DIMS], t[KN_CUDA_MAX_DIMS], n_moving = 0;
        kn_resize_index(p, e, o);
        for (int d = 0; d < p.rank; d++) {
            if (!p.moves[d]) {
                base += o[d] * p.in_stride[d];
                continue;
            }
            taps[n_moving] = kn_resize_taps(p, d, o[d], off[n_moving], w[n_moving]);
            t[n_moving++] = 0;
        }
        float acc = 0.0f;
        for (;;) {
            float wgt = 1.0f;
            int64_t src = base;
            for (int a = 0; a < n_moving; a++) {
                wgt *= w[a][t[a]];
                src += off[a][t[a]];
            }
            if (wgt != 0.0f)
                acc += wgt * x[src];
            int a = n_moving - 1;
            for (; a >= 0; a--) {
                if (++t[a] < taps[a])
                    break;
                t[a] = 0;
            }
            if (a < 0)
                break;
        }
        y[e] = acc;
    }
}

// The names resize.c asks the loaded module for.
#define KN_RESIZE_NEAREST(bytes, T)                                                                \
    extern "C" __global__ void kn_resize_nearest_##bytes(const T *x, T *y, kn_cuda_resize p)       \
    {                                                                                              \
        resize_nearest<T>(x, y, p);                                                                \
    }
KN_RESIZE_NEAREST(1, uint8_t)
KN_RESIZE_NEAREST(2, uint16_t)
KN_RESIZE_NEAREST(4, uint32_t)
KN_RESIZE_NEAREST(8, uint64_t)

extern "C" __global__ void kn_resize_interp_f32(const float *x, float *y, kn_cuda_resize p)
{
    resize_interp(x, y, p);
}
