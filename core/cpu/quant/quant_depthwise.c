/* The depthwise 8-bit convolution (one input and one output channel per
 * group, 2-D, no dilation) of quant_conv: a GEMM of one row per channel
 * would use a quarter of the integer micro-kernel, so each channel is
 * computed directly instead, in int32 over an int16 copy of its plane.
 *
 * The copy holds the plane minus its zero point with the padding
 * written as 0 (the zero point, as the spec pads), and its columns split
 * by phase of the horizontal stride (column c at (c % sw) * phase + c /
 * sw): the tap at column offset j then reads a contiguous run for
 * consecutive outputs, and the inner loop (int16 times a constant tap,
 * added into int32) vectorizes for stride 2 as for stride 1. */
#include <string.h>

#include "core/base/alloc.h"
#include "core/cpu/quant/quant_common.h"

int quant_dw_fits(const quant_conv *c)
{
    const kn_window *w = &c->win;
    return c->cg == 1 && c->mg == 1 && w->kernel[0] == 1 && w->in[0] == 1 && w->out[0] == 1 &&
           w->dilation[1] == 1 && w->dilation[2] == 1 && w->stride[2] <= 4 &&
           kn_window_kvol(w) <= 1024; /* 1024 products of 255 x 255 stay in int32 */
}

/* Padded rows and phase length of one channel's copy. */
static void dw_geometry(const kn_window *w, int64_t *rows, int64_t *phase)
{
    *rows = (w->out[1] - 1) * w->stride[1] + w->kernel[1];
    int64_t cols = (w->out[2] - 1) * w->stride[2] + w->kernel[2];
    *phase = (cols + w->stride[2] - 1) / w->stride[2];
}

size_t quant_dw_plane_bytes(const quant_conv *c)
{
    int64_t rows, phase;
    dw_geometry(&c->win, &rows, &phase);
    return kn_align_up((size_t)(rows * phase * c->win.stride[2]) * sizeof(int16_t), 64);
}

/* x (one channel, 8-bit of type T) minus zx into the padded, phase-split
 * copy. */
#define KN_DW_COPY(T, SFX)                                                                          \
    static void dw_copy_##SFX(const kn_window *w, const T *x, int32_t zx, int16_t *dst)          \
    {                                                                                              \
        int64_t rows, phase;                                                                       \
        dw_geometry(w, &rows, &phase);                                                             \
        const int64_t sw = w->stride[2], len = sw * phase, ih = w->in[1], iw = w->in[2];           \
        const int64_t top = w->pad_begin[1], left = w->pad_begin[2];                               \
        for (int64_t r = 0; r < rows; r++) {                                                       \
            int16_t *d = dst + r * len;                                                            \
            int64_t ir = r - top;                                                                  \
            if (ir < 0 || ir >= ih) {                                                              \
                memset(d, 0, (size_t)len * sizeof *d);                                             \
                continue;                                                                          \
            }                                                                                      \
            const T *s = x + ir * iw;                                                              \
            for (int64_t q = 0; q < sw; q++) {                                                     \
                int16_t *dq = d + q * phase;                                                       \
                for (int64_t i = 0; i < phase; i++) {                                              \
                    int64_t ic = i * sw + q - left;                                                \
                    dq[i] = ic >= 0 && ic < iw ? (int16_t)(s[ic] - zx) : 0;                        \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
KN_DW_COPY(uint8_t, u8)
KN_DW_COPY(int8_t, s8)

void quant_dw_channel(const quant_conv *c, const void *x, int32_t zx, const int16_t *w,
                      int32_t *acc, int16_t *plane)
{
    const kn_window *win = &c->win;
    if (c->x_dtype == KN_UINT8)
        dw_copy_u8(win, x, zx, plane);
    else
        dw_copy_s8(win, x, zx, plane);
    int64_t rows, phase;
    dw_geometry(win, &rows, &phase);
    const int64_t sh = win->stride[1], sw = win->stride[2], len = sw * phase;
    const int64_t kh = win->kernel[1], kw = win->kernel[2], oh = win->out[1], ow = win->out[2];
    for (int64_t oy = 0; oy < oh; oy++) {
        int32_t *restrict a = acc + oy * ow;
        memset(a, 0, (size_t)ow * sizeof *a);
        for (int64_t i = 0; i < kh; i++) {
            const int16_t *row = plane + (oy * sh + i) * len;
            for (int64_t j = 0; j < kw; j++) {
                const int32_t t = w[i * kw + j];
                const int16_t *restrict s = row + (j % sw) * phase + j / sw;
                for (int64_t ox = 0; ox < ow; ox++)
                    a[ox] += t * s[ox];
            }
        }
    }
}
