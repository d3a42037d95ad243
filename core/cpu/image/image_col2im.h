/* col2im: the adjoint of im2col (core/kernel/im2col.h). Given the column
 * matrix of one image, row c * kvol + tap holding for every window
 * position the value that tap contributes, it adds each value into the
 * image element the tap lands on (taps in the padding are dropped). Col2Im
 * is exactly this; ConvTranspose is a GEMM producing the column matrix
 * followed by this. Defined in col2im.c. */
#ifndef KN_CPU_IMAGE_COL2IM_H
#define KN_CPU_IMAGE_COL2IM_H

#include <stdint.h>

#include "core/kernel/im2col.h"

/* w describes the window as im2col sees it: w->in is the image (written
 * here), w->out the grid of window positions (the matrix columns). Adds
 * columns [col_begin, col_end) of the rows of channels [ch_begin, ch_end)
 * into planes ch of y (each kn_window_in_size(w) long). Column j of the
 * block is at col[row * ld + (j - col_begin)]. Channels are independent,
 * so disjoint channel ranges may run in parallel. dtype: KN_FLOAT or
 * KN_DOUBLE. */
void img_col2im(int32_t dtype, const kn_window *w, const void *col, int64_t ld, void *y,
                int64_t ch_begin, int64_t ch_end, int64_t col_begin, int64_t col_end);

/* Fills a window from explicit per-dim values (nsp of 1..3; leading
 * canonical dims get size 1): image dims, window-position grid, kernel,
 * strides, dilations, begin and end pads. */
void img_window_set(kn_window *w, int32_t nsp, const int64_t *image, const int64_t *grid,
                    const int64_t *kernel, const int64_t *stride, const int64_t *dilation,
                    const int64_t *pad_begin, const int64_t *pad_end);

#endif
