// Elementwise float kernels of the CUDA backend: unary operations,
// broadcasting binary operations with an optional activation after them,
// and the bias + activation epilogue of convolutions and products.
#include "core/cuda/device_math.cuh"

extern "C" __global__ void kn_unary_f32(const float *x, float *y, int64_t n, kn_cuda_act a)
{
    KN_GRID_LOOP(i, n) y[i] = kn_unary(a.op, x[i], a.alpha, a.beta);
}

__device__ __forceinline__ float kn_binary(int op, float a, float b)
{
    switch (op) {
    case KN_CUDA_B_ADD:
        return a + b;
    case KN_CUDA_B_SUB:
        return a - b;
    case KN_CUDA_B_MUL:
        return a * b;
    case KN_CUDA_B_DIV:
        return a / b;
    case KN_CUDA_B_POW:
        return powf(a, b);
    case KN_CUDA_B_MAX:
        return (a != a || b != b) ? a + b : fmaxf(a, b); // NaN wins, as ONNX says
    case KN_CUDA_B_MIN:
        return (a != a || b != b) ? a + b : fminf(a, b);
    case KN_CUDA_B_PRELU:
        return a < 0.0f ? a * b : a;
    default:
        return a;
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
