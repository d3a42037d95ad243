// Kiln's own pooling kernel for the windows cuDNN cannot describe
// (pool.c says which): one thread per output element walks its window.
#include "core/cuda/device_math.cuh"

extern "C" __global__ void kn_pool_f32(const float *x, float *y, kn_cuda_pool p)
{
    KN_GRID_LOOP(e, p.n)
    {
        int64_t o[3] = {0, 0, 0}, rest = e, c = 0, plane = 1;
        if (p.nhwc) {
            c = rest % p.channels;
            rest /= p.channels;
        }
        for (int d = p.nsp - 1; d >= 0; d--) {
            o[d] = rest % p.out[d];
            rest /= p.out[d];
            plane *= p.in[d];
        }
        if (!p.nhwc) {
            c = rest % p.channels;
            rest /= p.channels;
        }
        // rest is the batch index; element (spatial index s) of this
        // window's image and channel is at base + s * step
        const int64_t base =
            p.nhwc ? rest * plane * p.channels + c : (rest * p.channels + c) * plane;
        const int64_t step = p.nhwc ? p.channels : 1;
        // the CPU kernel's rules: the first tap inside wins ties and stands
        // for a NaN; an empty window (pads >= kernel) gives float's lowest
        float best = -3.402823466e+38f, sum = 0.0f;
        int64_t count = 0, t[3] = {0, 0, 0};
        for (;;) {
            int64_t s = 0, inside = 1;
            for (int d = 0; d < p.nsp; d++) {
                int64_t i = o[d] * p.stride[d] - p.pad[d] + t[d] * p.dilation[d];
                inside &= i >= 0 && i < p.in[d];
                s = s * p.in[d] + i;
            }
            if (inside) {
                float v = x[base + s * step];
                best = count == 0 || v > best ? v : best;
                sum += v;
                count++;
            }
            int d = p.nsp - 1;
            for (; d >= 0; d--) {
                if (++t[d] < p.kernel[d])
                    break;
                t[d] = 0;
            }
            if (d < 0)
                break;
        }
        if (p.mode == KN_CUDA_POOL_AVERAGE_INCLUDE_PAD) {
            count = 1;
            for (int d = 0; d < p.nsp; d++) {
                int64_t room = p.in[d] + p.pad_end[d] - (o[d] * p.stride[d] - p.pad[d]);
                int64_t taps = (room + p.dilation[d] - 1) / p.dilation[d];
                count *= taps < p.kernel[d] ? taps : p.kernel[d];
            }
        }
        y[e] = p.mode == KN_CUDA_POOL_MAX ? best : count ? sum / (float)count : 0.0f;
    }
}
