// Row-wise float kernels of the CUDA backend: one thread block per row of
// `cols` contiguous elements (Softmax / LogSoftmax over the last axis,
// LayerNormalization, reductions over trailing axes and the global
// pools), plus a strided reduction for axes that are not trailing.
#include <float.h>

#include "core/cuda/device_math.cuh"

enum { KN_ROW_THREADS = 256 };
enum { KN_R_SUM = 0, KN_R_MEAN = 1, KN_R_MAX = 2, KN_R_MIN = 3 };

// The block's combined value of v (sum, or max when is_max); every thread
// gets it. Blocks are KN_ROW_THREADS threads.
__device__ float block_reduce(float v, int op)
{
    __shared__ float part[32];
    for (int off = 16; off > 0; off >>= 1) {
        float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = op == KN_R_MAX ? fmaxf(v, o) : op == KN_R_MIN ? fminf(v, o) : v + o;
    }
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads(); // part[] may still be read from a previous call
    if (lane == 0)
        part[warp] = v;
    __syncthreads();
    int warps = blockDim.x >> 5;
    v = lane < warps ? part[lane] : (op == KN_R_MAX ? -FLT_MAX : op == KN_R_MIN ? FLT_MAX : 0.0f);
    for (int off = 16; off > 0; off >>= 1) {
        float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = op == KN_R_MAX ? fmaxf(v, o) : op == KN_R_MIN ? fminf(v, o) : v + o;
    }
    return v;
}

// Softmax's two block-wide passes over a row r: its max *m, then the sum
// *s of exp(r[c] - *m) (the max taken out so exp cannot overflow); every
// thread of the block gets both.
__device__ void row_max_and_exp_sum(const float *r, int64_t cols, float *m, float *s)
{
    float mx = -FLT_MAX;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
        mx = fmaxf(mx, r[c]);
    mx = block_reduce(mx, KN_R_MAX);
    float sum = 0.0f;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
        sum += expf(r[c] - mx);
    *m = mx;
    *s = block_reduce(sum, KN_R_SUM);
}

// y = softmax(x) (or log-softmax) over each row.
extern "C" __global__ void kn_softmax_rows_f32(const float *x, float *y, int64_t cols, int log)
{
    const float *xr = x + blockIdx.x * cols;
    float *yr = y + blockIdx.x * cols;
    float m, s;
    row_max_and_exp_sum(xr, cols, &m, &s);
    if (log) {
        float ls = logf(s);
        for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
            yr[c] = xr[c] - m - ls;
    } else {
        float inv = 1.0f / s;
        for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
            yr[c] = expf(xr[c] - m) * inv;
    }
}

// y = (x - mean) / sqrt(var + eps) * scale + bias over each row (bias may
// be NULL); the variance is the mean of squared deviations, computed in a
// second pass for accuracy.
extern "C" __global__ void kn_layernorm_rows_f32(const float *x, const float *scale,
                                                 const float *bias, float *y, int64_t cols,
                                                 float eps)
{
    const float *xr = x + blockIdx.x * cols;
    float *yr = y + blockIdx.x * cols;
    float s = 0.0f;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
        s += xr[c];
    float mean = block_reduce(s, KN_R_SUM) / (float)cols;
    float q = 0.0f;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
        float d = xr[c] - mean;
        q += d * d;
    }
    float inv = rsqrtf(block_reduce(q, KN_R_SUM) / (float)cols + eps);
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = (xr[c] - mean) * inv * scale[c];
        yr[c] = bias ? v + bias[c] : v;
    }
}

// y[row] = OP over the row's cols elements (KN_R_*).
extern "C" __global__ void kn_reduce_rows_f32(const float *x, float *y, int64_t cols, int op)
{
    const float *xr = x + blockIdx.x * cols;
    float v = op == KN_R_MAX ? -FLT_MAX : op == KN_R_MIN ? FLT_MAX : 0.0f;
    int nan = 0;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
        float e = xr[c];
        nan |= e != e;
        v = op == KN_R_MAX ? fmaxf(v, e) : op == KN_R_MIN ? fminf(v, e) : v + e;
    }
    v = block_reduce(v, op == KN_R_MEAN ? KN_R_SUM : op);
    nan = __syncthreads_or(nan);
    if (threadIdx.x == 0)
        y[blockIdx.x] = nan && (op == KN_R_MAX || op == KN_R_MIN) ? __int_as_float(0x7fc00000)
                        : op == KN_R_MEAN                         ? v / (float)cols
                                                                  : v;
}

// The general case: output element i (walk `out`, stride[0] into x) is OP
// over the `count` elements of walk `red` (stride[0] into x) from there.
extern "C" __global__ void kn_reduce_strided_f32(const float *x, float *y, kn_cuda_walk out,
                                                 kn_cuda_walk red, int op)
{
    KN_GRID_LOOP(i, out.n)
    {
        int64_t base, unused;
        kn_walk_offsets(out, i, &base, &unused);
        float v = op == KN_R_MAX ? -FLT_MAX : op == KN_R_MIN ? FLT_MAX : 0.0f;
        int nan = 0;
        for (int64_t r = 0; r < red.n; r++) {
            int64_t off;
            kn_walk_offsets(red, r, &off, &unused);
            float e = x[base + off];
            nan |= e != e;
            v = op == KN_R_MAX ? fmaxf(v, e) : op == KN_R_MIN ? fminf(v, e) : v + e;
        }
        y[i] = nan && (op == KN_R_MAX || op == KN_R_MIN) ? __int_as_float(0x7fc00000)
               : op == KN_R_MEAN                         ? v / (float)red.n
                                                         : v;
    }
}

// kiln.Attention's middle step: s = softmax(s + mask) over each row of the
// scores (the scale is already in the product that wrote them); the mask
// (may be NULL) is read through w.stride[1], which broadcasts it to the
// scores' shape.
extern "C" __global__ void kn_masked_softmax_rows_f32(float *s, const float *mask, int64_t cols,
                                                      kn_cuda_walk w)
{
    float *sr = s + blockIdx.x * cols;
    const int64_t row0 = (int64_t)blockIdx.x * cols;
    if (mask)
        for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
            int64_t unused, m;
            kn_walk_offsets(w, row0 + c, &unused, &m);
            sr[c] += mask[m];
        }
    __syncthreads();
    float mx, sum;
    row_max_and_exp_sum(sr, cols, &mx, &sum);
    float inv = 1.0f / sum;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
        sr[c] = expf(sr[c] - mx) * inv;
}
