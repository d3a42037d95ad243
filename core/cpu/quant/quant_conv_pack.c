/* The integer convolution's columns packed straight from the image: for a
 * 2-D window, each 8-column panel of qgemm.h's packed B (the layout
 * kn_qgemm_pack_b writes) is gathered from the image less its zero point,
 * without first writing the im2col matrix and reading it back.
 *
 * Row r of the im2col matrix is (channel, kernel row, kernel column);
 * column j is an output position (oy, ox). A panel whose 8 columns lie on
 * one output line reads, for each row, 8 inputs at a fixed stride from one
 * input row: one vector load at stride 1, two loads and an even-lane
 * shuffle at stride 2 (ResNet's downsampling convolutions and stems), as
 * long as the run is inside the input row; the other panels and rows (a
 * line's end, the padding) are gathered element by element, zero outside
 * the image (the zero point, as the spec pads). */
#include "core/cpu/quant/quant_common.h"
#include <string.h>

#include "core/simd/qgemm.h"
#include "core/simd/qgemm_dot.h"
#include "core/simd/vec_i16.h"

#define NR KN_QGEMM_NR

int quant_pack_fits(const quant_conv *c)
{
    const kn_window *w = &c->win;
    return w->kernel[0] == 1 && w->in[0] == 1 && w->out[0] == 1;
}

/* Far outside any image: an unused column's corner, so every tap on it
 * reads as padding (no overflow: |dy|, |dx| are far smaller). */
#define PACK_OUTSIDE (-((int64_t)1 << 40))

/* Row (input channel ci, tap ky, kx) of the 8 columns with top-left input
 * corners (y0[j], x0[j]): the 8 int16 values as one vector. line: all 8
 * columns on one output line, consecutive (x0[j] = x0[0] + j sw). */
static ki pack_row(const int16_t *src, int64_t ih, int64_t iw, int64_t sw, int line,
                   const int64_t *y0, const int64_t *x0, int64_t dy, int64_t dx)
{
    if (line) {
        int64_t iy = y0[0] + dy, ix = x0[0] + dx;
        if (iy >= 0 && iy < ih && ix >= 0) {
            const int16_t *s = src + iy * iw + ix;
            if (sw == 1 && ix + NR <= iw)
                return ki_load(s);
            /* reads 2 NR elements, the last one unused */
            if (sw == 2 && ix + 2 * NR <= iw)
                return ki_even16(ki_load(s), ki_load(s + NR));
        }
    }
    int16_t t[NR];
    for (int64_t j = 0; j < NR; j++) {
        int64_t iy = y0[j] + dy, ix = x0[j] + dx;
        t[j] = iy >= 0 && iy < ih && ix >= 0 && ix < iw ? src[iy * iw + ix] : 0;
    }
    return ki_load(t);
}

/* The input row and column where the windows of output columns n0 ..
 * n0 + NR - 1 start (top-left tap, before dilation); columns past `cols`
 * get PACK_OUTSIDE, which no tap brings inside the image. */
static void column_origins(const kn_window *w, int64_t n0, int64_t cols, int64_t y0[NR],
                           int64_t x0[NR])
{
    const int64_t ow = w->out[2];
    for (int64_t j = 0; j < NR; j++) {
        int64_t o = n0 + j;
        y0[j] = j < cols ? (o / ow) * w->stride[1] - w->pad_begin[1] : PACK_OUTSIDE;
        x0[j] = j < cols ? (o % ow) * w->stride[2] - w->pad_begin[2] : PACK_OUTSIDE;
    }
}

void quant_pack_cols(const quant_conv *c, const int16_t *xg, int64_t c0, int64_t c1, int16_t *dst)
{
    const kn_window *w = &c->win;
    const int64_t ih = w->in[1], iw = w->in[2], ow = w->out[2];
    const int64_t sw = w->stride[2], kh = w->kernel[1], kw = w->kernel[2];
    const int64_t dh = w->dilation[1], dw = w->dilation[2];
    const int64_t kdim = c->kdim, kp = kn_qgemm_pairs(kdim), plane = c->in_size;
    for (int64_t n0 = c0; n0 < c1; n0 += NR) {
        int64_t cols = c1 - n0 < NR ? c1 - n0 : NR;
        int64_t y0[NR], x0[NR];
        column_origins(w, n0, cols, y0, x0);
        int line = cols == NR && n0 % ow + NR <= ow;
        /* the row being read: channel ci, tap (ky, kx) */
        int64_t ci = 0, ky = 0, kx = 0;
        for (int64_t p = 0; p < kp; p++, dst += 2 * NR) {
            ki v[2];
            for (int h = 0; h < 2; h++) {
                if (2 * p + h >= kdim) { /* odd depth: a zero row */
                    v[h] = ki_zero();
                    continue;
                }
                v[h] = pack_row(xg + ci * plane, ih, iw, sw, line, y0, x0, ky * dh, kx * dw);
                if (++kx == kw) {
                    kx = 0;
                    if (++ky == kh) {
                        ky = 0;
                        ci++;
                    }
                }
            }
            ki_store(dst, ki_zip_lo16(v[0], v[1]));
            ki_store(dst + NR, ki_zip_hi16(v[0], v[1]));
        }
    }
}

/* pack_row for the dot GEMM: the row's 8 bytes straight from the 8-bit
 * image, each x ^ flip (x + 128 for int8: the unsigned byte), zb outside
 * the image (the zero point, so flipped too). */
static void pack_row8(const uint8_t *src, int64_t ih, int64_t iw, int64_t sw, int line,
                      const int64_t *y0, const int64_t *x0, int64_t dy, int64_t dx, uint8_t flip,
                      uint8_t zb, uint8_t *out)
{
    if (line) {
        int64_t iy = y0[0] + dy, ix = x0[0] + dx;
        if (iy >= 0 && iy < ih && ix >= 0) {
            const uint8_t *s = src + iy * iw + ix;
            if (ix + (NR - 1) * sw < iw) {
                for (int64_t j = 0; j < NR; j++)
                    out[j] = s[j * sw] ^ flip;
                return;
            }
        }
    }
    for (int64_t j = 0; j < NR; j++) {
        int64_t iy = y0[j] + dy, ix = x0[j] + dx;
        out[j] = iy >= 0 && iy < ih && ix >= 0 && ix < iw ? src[iy * iw + ix] ^ flip : zb;
    }
}

void quant_pack_cols_dot(const quant_conv *c, const uint8_t *x8g, uint8_t flip, int32_t z,
                         int64_t c0, int64_t c1, uint8_t *rows, void *dst)
{
    const kn_window *w = &c->win;
    const int64_t ih = w->in[1], iw = w->in[2], ow = w->out[2];
    const int64_t sw = w->stride[2], kh = w->kernel[1], kw = w->kernel[2];
    const int64_t dh = w->dilation[1], dw = w->dilation[2];
    const int64_t kdim = c->kdim, depth = 4 * kn_qgemm_quads(kdim), plane = c->in_size;
    const size_t panel = kn_qgemm_dot_panel_b_bytes(kdim, c->dot);
    uint8_t *d = dst;
    for (int64_t n0 = c0; n0 < c1; n0 += NR, d += panel) {
        int64_t cols = c1 - n0 < NR ? c1 - n0 : NR;
        int64_t y0[NR], x0[NR];
        column_origins(w, n0, cols, y0, x0);
        int line = cols == NR && n0 % ow + NR <= ow;
        int64_t ci = 0, ky = 0, kx = 0;
        for (int64_t r = 0; r < depth; r++) {
            uint8_t *out = rows + r * NR;
            if (r >= kdim) { /* the last quad's rows past the depth */
                memset(out, z, NR);
                continue;
            }
            if (c->pointwise && cols == NR) { /* consecutive positions: one run */
                const uint8_t *s = x8g + ci * plane + n0;
                for (int64_t j = 0; j < NR; j++)
                    out[j] = s[j] ^ flip;
            } else {
                pack_row8(x8g + ci * plane, ih, iw, sw, line, y0, x0, ky * dh, kx * dw, flip,
                          (uint8_t)z, out);
            }
            if (++kx == kw) {
                kx = 0;
                if (++ky == kh) {
                    ky = 0;
                    ci++;
                }
            }
        }
        kn_qgemm_dot_pack_b_rows(kdim, rows, z, c->dot, c->dot_shifted, d);
    }
}
