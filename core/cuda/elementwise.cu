// Elementwise float kernels of the CUDA backend: unary operations,
// broadcasting binary operations with an optional activation after them,
// and the bias + activation epilogue of convolutions and products.
#include "core/cuda/device_math.cuh"

extern "C" __global__ void kn_unary_f32(const float *x, float *y, int64_t n, kn_cuda_act a)
{
    KN_GRID_LOOP(i, n) y[i] = kn_unary(a.op, x[i], a.alpha, a.beta);
}

// FP16 sessions' operands (half_weights.h): activations rounded to half
// for the libraries, and a half result back to float32.
extern "C" __global__ void kn_f32_to_half(const float *x, uint16_t *y, int64_t n)
{
    KN_GRID_LOOP(i, n) y[i] = kn_half_bits(x[i]);
}
extern "C" __global__ void kn_half_to_f32(const uint16_t *x, float *y, int64_t n)
{
    KN_GRID_LOOP(i, n) y[i] = kn_half_value(x[i]);
}

__device__ __forceinline__ float kn_binary(int op, float a, float b)
{
    switch (op) {
    case KN_CUDA_B_ADD: return a + b;
    case KN_CUDA_B_SUB: return a - b;
    case KN_CUDA_B_MUL: return a * b;
    case KN_CUDA_B_DIV: return a / b;
    case KN_CUDA_B_POW: return powf(a, b);
    case KN_CUDA_B_MAX: return (a != a || b != b) ? a + b : fmaxf(a, b); // NaN wins, as ONNX says
    case KN_CUDA_B_MIN: return (a != a || b != b) ? a + b : fminf(a, b);
    case KN_CUDA_B_PRELU: return a < 0.0f ? a * b : a;
    default: return a;
    }
}

// y = act(a OP b); w.stride[0] walks a, w.stride[1] walks b.
extern "C" __global__ void kn_binary_f32(const float *a, const float *b, float *y, kn_cuda_walk w,
                                         int op, kn_cuda_act act)
{
    KN_GRID_LOOP(i, w.n)
    {
        int64_t ia, ib;
        kn_walk_offsets(w, i, &ia, &ib);
        y[i] = kn_act(act, kn_binary(op, a[ia], b[ib]));
    }
}

// y[i] = act(y[i] + bias[(i / inner) % channels]) (bias may be NULL): the
// per-channel bias of NCHW convolutions (inner = spatial size) and the
// per-column one of products (inner = 1).
extern "C" __global__ void kn_bias_act_f32(float *y, const float *bias, int64_t n, int64_t inner,
                                           int64_t channels, kn_cuda_act act)
{
    KN_GRID_LOOP(i, n)
    {
        float v = y[i];
        if (bias)
            v += bias[(i / inner) % channels];
        y[i] = kn_act(act, v);
    }
}

// kiln.ElementwiseChain: every step on one element while it is in a
// register, so the tensor crosses memory once instead of once per step.
extern "C" __global__ void kn_chain_f32(const float *x, float *y, kn_cuda_chain c,
                                        kn_cuda_chain_operands ops)
{
    KN_GRID_LOOP(i, c.n)
    {
        float v = x[i];
        for (int s = 0; s < c.n_steps; s++) {
            int op = c.op[s];
            if (op < KN_CUDA_CHAIN_BINARY) {
                v = kn_unary(op, v, c.alpha[s], c.beta[s]);
                continue;
            }
            int t = c.operand[s];
            float b = t < 0 ? c.alpha[s] : ops.data[t][ops.full[t] ? i : 0];
            v = c.reversed[s] ? kn_binary(op - KN_CUDA_CHAIN_BINARY, b, v)
                              : kn_binary(op - KN_CUDA_CHAIN_BINARY, v, b);
        }
        y[i] = v;
    }
}

// Comparisons with broadcasting, bool (one byte) out.
template <typename T>
__device__ void compare(const T *a, const T *b, uint8_t *y, const kn_cuda_walk &w, int op)
{
    KN_GRID_LOOP(i, w.n)
    {
        int64_t ia, ib;
        kn_walk_offsets(w, i, &ia, &ib);
        T x = a[ia], z = b[ib];
        bool r = op == KN_CUDA_C_EQUAL        ? x == z
                 : op == KN_CUDA_C_LESS       ? x < z
                 : op == KN_CUDA_C_GREATER    ? x > z
                 : op == KN_CUDA_C_LESS_EQUAL ? x <= z
                                              : x >= z;
        y[i] = r ? 1 : 0;
    }
}
extern "C" __global__ void kn_compare_f32(const float *a, const float *b, uint8_t *y,
                                          kn_cuda_walk w, int op)
{
    compare<float>(a, b, y, w, op);
}
extern "C" __global__ void kn_compare_i64(const int64_t *a, const int64_t *b, uint8_t *y,
                                          kn_cuda_walk w, int op)
{
    compare<int64_t>(a, b, y, w, op);
}
extern "C" __global__ void kn_compare_i32(const int32_t *a, const int32_t *b, uint8_t *y,
                                          kn_cuda_walk w, int op)
{
    compare<int32_t>(a, b, y, w, op);
}

// Where: out[i] = cond ? x : y, with cond and x walked by cx (operands 0
// and 1) and y by yw (operand 1), both over the output's dims.
template <typename T>
__device__ void where(const uint8_t *c, const T *x, const T *y, T *out, const kn_cuda_walk &cx,
                      const kn_cuda_walk &yw)
{
    KN_GRID_LOOP(i, cx.n)
    {
        int64_t ic, ix, unused, iy;
        kn_walk_offsets(cx, i, &ic, &ix);
        kn_walk_offsets(yw, i, &unused, &iy);
        out[i] = c[ic] ? x[ix] : y[iy];
    }
}
extern "C" __global__ void kn_where_4(const uint8_t *c, const uint32_t *x, const uint32_t *y,
                                      uint32_t *out, kn_cuda_walk cx, kn_cuda_walk yw)
{
    where<uint32_t>(c, x, y, out, cx, yw);
}
extern "C" __global__ void kn_where_8(const uint8_t *c, const uint64_t *x, const uint64_t *y,
                                      uint64_t *out, kn_cuda_walk cx, kn_cuda_walk yw)
{
    where<uint64_t>(c, x, y, out, cx, yw);
}

// Cast between float, double, the integers and bool (ONNX's numbers:
// 1 float, 2 uint8, 3 int8, 6 int32, 7 int64, 9 bool, 11 double). To bool
// is "not zero"; float to integer truncates toward zero, as C does.
__device__ __forceinline__ double cast_read(const void *x, int64_t i, int type)
{
    switch (type) {
    case 1: return ((const float *)x)[i];
    case 2:
    case 9: return ((const uint8_t *)x)[i];
    case 3: return ((const int8_t *)x)[i];
    case 6: return ((const int32_t *)x)[i];
    case 7: return (double)((const int64_t *)x)[i];
    default: return ((const double *)x)[i];
    }
}
extern "C" __global__ void kn_cast(const void *x, void *y, int64_t n, int from, int to)
{
    KN_GRID_LOOP(i, n)
    {
        // int64 to int64-sized types keeps every bit: no trip through double
        if (from == 7 && to == 7) {
            ((int64_t *)y)[i] = ((const int64_t *)x)[i];
            continue;
        }
        if (from == 7 && to == 6) {
            ((int32_t *)y)[i] = (int32_t)((const int64_t *)x)[i];
            continue;
        }
        double v = cast_read(x, i, from);
        switch (to) {
        case 1: ((float *)y)[i] = (float)v; break;
        case 2: ((uint8_t *)y)[i] = (uint8_t)(int64_t)v; break;
        case 3: ((int8_t *)y)[i] = (int8_t)(int64_t)v; break;
        case 6: ((int32_t *)y)[i] = (int32_t)(int64_t)v; break;
        case 7: ((int64_t *)y)[i] = (int64_t)v; break;
        case 9: ((uint8_t *)y)[i] = v != 0.0; break;
        default: ((double *)y)[i] = v;
        }
    }
}
