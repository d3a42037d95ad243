/* Sliding-window geometry shared by Conv and the pooling ops, and the
 * im2col transform that turns a convolution into a GEMM.
 *
 * Windows are described in a canonical 3-D form: a 1-D or 2-D op gets
 * leading spatial dims of size 1 (kernel 1, stride 1, no padding), so one
 * set of loops serves 1-D, 2-D and 3-D without per-rank copies. */
#ifndef KN_CPU_IM2COL_H
#define KN_CPU_IM2COL_H

#include <stdint.h>

#include "core/kernel/op.h"

#define KN_WIN_DIMS 3

typedef struct kn_window {
    int32_t nsp; /* spatial rank of the op (1..3); dims below are canonical 3-D */
    int64_t in[KN_WIN_DIMS], out[KN_WIN_DIMS];
    int64_t kernel[KN_WIN_DIMS], stride[KN_WIN_DIMS], dilation[KN_WIN_DIMS];
    int64_t pad_begin[KN_WIN_DIMS], pad_end[KN_WIN_DIMS];
} kn_window;

/* Largest spatial size, kernel, stride, dilation or pad kn_window_init
 * accepts (2^40): far past any real model, and small enough that the
 * window's sums cannot overflow. */
#define KN_WIN_MAX_EXTENT ((int64_t)1 << 40)

/* How kn_window_init reads a node. */
typedef struct kn_window_opts {
    const char *op;          /* for messages */
    const int64_t *kernel;   /* kernel from the weights (Conv), or NULL: then the
                                kernel_shape attribute is required (pools) */
    int ceil_mode;           /* round output sizes up (pools, opset >= 10) */
    int dilations;           /* read the dilations attribute */
} kn_window_opts;

/* Reads kernel_shape, strides, dilations, pads and auto_pad for an input
 * whose spatial dims are in_sp[0 .. nsp) and computes output sizes and the
 * effective padding. Fails with KN_ERR_UNSUPPORTED for nsp > 3,
 * KN_ERR_INVALID_MODEL for malformed attributes, KN_ERR_SHAPE when the
 * window does not fit the (padded) input. */
int kn_window_init(kn_window *w, const kn_node *node, const int64_t *in_sp, int32_t nsp,
                   const kn_window_opts *opts, kn_err *err);

/* Number of window taps along dim d, for output index o, that land inside
 * the input: taps [*lo, *hi) of 0 .. kernel[d]. */
void kn_window_taps(const kn_window *w, int32_t d, int64_t o, int64_t *lo, int64_t *hi);

/* Range [*lo, *hi) of output indices along dim d for which tap t lands
 * inside the input. */
void kn_window_outs(const kn_window *w, int32_t d, int64_t t, int64_t *lo, int64_t *hi);

static inline int64_t kn_window_kvol(const kn_window *w)
{
    return w->kernel[0] * w->kernel[1] * w->kernel[2];
}
static inline int64_t kn_window_out_size(const kn_window *w)
{
    return w->out[0] * w->out[1] * w->out[2];
}
static inline int64_t kn_window_in_size(const kn_window *w)
{
    return w->in[0] * w->in[1] * w->in[2];
}

/* Part of the column matrix of one image (x: its channel planes, each
 * in_size long). Row c * kvol + tap holds, for every output position, the
 * input value that tap sees (0 in padding). This fills rows [row_begin,
 * row_end) for output positions [col_begin, col_end) into col, a matrix
 * whose rows are col_end - col_begin long and whose row r is that of
 * channel-tap r (so disjoint row ranges can be filled in parallel, and a
 * column block can be built small enough to stay in cache). */
void kn_im2col_f32(const kn_window *w, const float *x, float *col, int64_t row_begin,
                   int64_t row_end, int64_t col_begin, int64_t col_end);
void kn_im2col_f64(const kn_window *w, const double *x, double *col, int64_t row_begin,
                   int64_t row_end, int64_t col_begin, int64_t col_end);
/* 8-bit values less their zero point (the integer convolutions of
 * core/cpu/quant): padding is 0, i.e. the zero point. */
void kn_im2col_i16(const kn_window *w, const int16_t *x, int16_t *col, int64_t row_begin,
                   int64_t row_end, int64_t col_begin, int64_t col_end);
/* The same for dtype KN_FLOAT or KN_DOUBLE. */
void kn_im2col(int32_t dtype, const kn_window *w, const void *x, void *col, int64_t row_begin,
               int64_t row_end, int64_t col_begin, int64_t col_end);

#endif
