/* The depthwise 8-bit convolution (one input and one output channel per
 * group, 2-D, no dilation) of quant_conv: a GEMM of one row per channel
 * would use a quarter of the integer micro-kernel, so each channel is
 * computed directly instead, in int32 over an int16 copy of its plane.
 *
 * The copy holds the plane minus its zero point with the padding written
 * as 0 (the zero point, as the spec pads), split by the phases of the
 * strides: sub-plane (qi, qj) holds padded rows qi, qi + sh, ... and
 * columns qj, qj + sw, ..., each row `pitch` = ow + (kw - 1) / sw long.
 * Tap (i, j) then reads sub-plane (i % sh, j % sw) from row i / sh,
 * column j / sw on, and output (oy, ox) sits at oy * pitch + ox for every
 * tap: one long contiguous multiply-add per tap over all output rows at
 * once (the few columns past ow are computed and dropped), which
 * vectorizes for any stride, and short rows (7 or 14 wide) do not end in
 * scalar tails every few elements. */
#include <string.h>

#include "core/base/alloc.h"
#include "core/cpu/quant/quant_common.h"
#include "core/simd/qgemm.h"
#include "core/simd/vec_i16.h"

int quant_dw_fits(const quant_conv *c)
{
    const kn_window *w = &c->win;
    return c->cg == 1 && c->mg == 1 && w->kernel[0] == 1 && w->in[0] == 1 && w->out[0] == 1 &&
           w->dilation[1] == 1 && w->dilation[2] == 1 && w->stride[1] <= 4 && w->stride[2] <= 4 &&
           kn_window_kvol(w) <= 1024; /* 1024 products of 255 x 255 stay in int32 */
}

typedef struct dw_geometry {
    int64_t rows, pitch; /* of one sub-plane */
    int64_t sub;         /* elements of one sub-plane, with its slack */
    int64_t wide;        /* oh * pitch: the outputs with their dropped columns */
} dw_geometry;

static dw_geometry dw_shape(const kn_window *w)
{
    dw_geometry g;
    g.rows = w->out[1] + (w->kernel[1] - 1) / w->stride[1];
    g.pitch = w->out[2] + (w->kernel[2] - 1) / w->stride[2];
    /* the last tap's run starts (kw - 1) / sw past its row and is
     * oh * pitch long */
    g.sub = g.rows * g.pitch + g.pitch + 8; /* + kn_qdw_taps' last 8 */
    g.wide = w->out[1] * g.pitch;
    return g;
}

/* Output rows per strip: about 2048 int32 of them (8 KiB), so that the
 * taps' passes over a strip stay in L1. */
static int64_t dw_strip(const dw_geometry *g)
{
    int64_t rows = 2048 / g->pitch;
    return rows < 1 ? 1 : rows;
}

size_t quant_dw_plane_bytes(const quant_conv *c)
{
    const kn_window *w = &c->win;
    dw_geometry g = dw_shape(w);
    return kn_align_up((size_t)(g.sub * w->stride[1] * w->stride[2]) * sizeof(int16_t), 64) +
           kn_align_up((size_t)(dw_strip(&g) * g.pitch + 8) * sizeof(int32_t), 64);
}

/* x (one channel, 8-bit of type T) minus zx into the sub-planes. */
#define KN_DW_COPY(T, SFX, EVEN)                                                                   \
    static void dw_copy_##SFX(const kn_window *w, const dw_geometry *g, const T *x, int32_t zx,    \
                              int16_t *dst)                                                        \
    {                                                                                              \
        const int64_t sh = w->stride[1], sw = w->stride[2], ih = w->in[1], iw = w->in[2];          \
        const ki kz = ki_splat16((int16_t)zx);                                                     \
        for (int64_t qi = 0; qi < sh; qi++)                                                        \
            for (int64_t qj = 0; qj < sw; qj++) {                                                  \
                int16_t *sub = dst + (qi * sw + qj) * g->sub;                                      \
                /* columns c whose input column c sw + qj - left is inside */                      \
                int64_t first = qj - w->pad_begin[2];                                              \
                int64_t lo = first >= 0 ? 0 : (-first + sw - 1) / sw;                              \
                int64_t hi = iw - first > 0 ? (iw - first + sw - 1) / sw : 0;                      \
                lo = lo < g->pitch ? lo : g->pitch;                                                \
                hi = hi < g->pitch ? hi : g->pitch;                                                \
                hi = hi > lo ? hi : lo;                                                            \
                for (int64_t r = 0; r < g->rows; r++) {                                            \
                    int16_t *d = sub + r * g->pitch;                                               \
                    int64_t ir = r * sh + qi - w->pad_begin[1];                                    \
                    if (ir < 0 || ir >= ih) {                                                      \
                        memset(d, 0, (size_t)g->pitch * sizeof *d);                                \
                        continue;                                                                  \
                    }                                                                              \
                    const T *s = x + ir * iw + first;                                              \
                    for (int64_t c = 0; c < lo; c++)                                               \
                        d[c] = 0;                                                                  \
                    if (sw == 1) {                                                                 \
                        for (int64_t c = lo; c < hi; c++)                                          \
                            d[c] = (int16_t)(s[c] - zx);                                           \
                    } else if (sw == 2) {                                                          \
                        /* 8 columns from 16 bytes while those stay inside the row                 \
                         * (clang leaves a stride-2 loop scalar) */                                \
                        int64_t c = lo;                                                            \
                        for (; c + 8 <= hi && first + 2 * c + 16 <= iw; c += 8)                    \
                            ki_store(d + c, ki_sub16(EVEN(s + 2 * c), kz));                        \
                        for (; c < hi; c++)                                                        \
                            d[c] = (int16_t)(s[2 * c] - zx);                                       \
                    } else                                                                         \
                        for (int64_t c = lo; c < hi; c++)                                          \
                            d[c] = (int16_t)(s[c * sw] - zx);                                      \
                    for (int64_t c = hi; c < g->pitch; c++)                                        \
                        d[c] = 0;                                                                  \
                }                                                                                  \
                memset(sub + g->rows * g->pitch, 0, (size_t)(g->sub - g->rows * g->pitch) * 2);    \
            }                                                                                      \
    }
KN_DW_COPY(uint8_t, u8, ki_even_u8)
KN_DW_COPY(int8_t, s8, ki_even_s8)

void quant_dw_channel(const quant_conv *c, int64_t ch, const void *x, int32_t zx, const int16_t *w,
                      int32_t *acc, const quant_epilogue *ep, int16_t *plane)
{
    const kn_window *win = &c->win;
    dw_geometry g = dw_shape(win);
    if (c->x_dtype == KN_UINT8)
        dw_copy_u8(win, &g, x, zx, plane);
    else
        dw_copy_s8(win, &g, x, zx, plane);
    const int64_t sh = win->stride[1], sw = win->stride[2];
    const int64_t kh = win->kernel[1], kw = win->kernel[2], oh = win->out[1], ow = win->out[2];
    int32_t *wide =
        (int32_t *)((char *)plane + kn_align_up((size_t)(g.sub * sh * sw) * sizeof(int16_t), 64));
    int64_t strip = dw_strip(&g);
    const int16_t *src[1024]; /* quant_dw_fits: kh kw <= 1024 */
    for (int64_t y0 = 0; y0 < oh; y0 += strip) {
        int64_t rows = oh - y0 < strip ? oh - y0 : strip, n = rows * g.pitch;
        for (int64_t i = 0; i < kh; i++)
            for (int64_t j = 0; j < kw; j++) {
                const int16_t *sub = plane + ((i % sh) * sw + j % sw) * g.sub;
                src[i * kw + j] = sub + (y0 + i / sh) * g.pitch + j / sw;
            }
        kn_qdw_taps(wide, src, w, (int32_t)(kh * kw), (n + 7) & ~(int64_t)7);
        /* the strip's rows closed up (the dropped columns removed, in
         * place: row r moves down from r pitch to r ow), then handed on in
         * one piece: the epilogue's fixed cost per call and its padded
         * tail came once per output row, which on rows of 7 or 14
         * (MobileNet's and EfficientNet's last stages) cost about as much
         * as the row itself */
        for (int64_t r = 1; r < rows && g.pitch != ow; r++)
            memmove(wide + r * ow, wide + r * g.pitch, (size_t)ow * sizeof *wide);
        if (acc)
            memcpy(acc + y0 * ow, wide, (size_t)(rows * ow) * sizeof *acc);
        else
            ep->row(ep->ctx, ch, y0 * ow, wide, rows * ow);
    }
}
