/* Image preprocessing: 8-bit pixels to a normalised float NCHW tensor, the
 * step in front of nearly every vision model. A pure function over caller
 * memory; capi/api_image.c checks the arguments before calling it. */
#ifndef KN_IMAGE_PREP_H
#define KN_IMAGE_PREP_H

#include <stdint.h>

typedef struct kn_image_view {
    const uint8_t *pixels;
    int32_t width, height;
    int32_t stride;   /* bytes between rows, >= width * channels */
    int32_t channels; /* 1 gray, 3 RGB, 4 RGBA (alpha ignored) */
} kn_image_view;

/* Writes [1, out_channels, out_height, out_width] floats to out:
 * bilinear resize with half-pixel centres (ONNX Resize, mode linear,
 * coordinate_transformation_mode half_pixel, no antialiasing; samples past
 * an edge take the edge pixel), then per output channel
 * (value / 255 - mean[c]) / std[c]. out_channels 1 is luma
 * (0.299 R + 0.587 G + 0.114 B) or the gray value; 3 is R, G, B (B, G, R
 * when bgr is set), a gray image repeated. mean and std hold out_channels
 * entries or are NULL (0 and 1). All arguments must be valid. */
void kn_image_to_tensor(const kn_image_view *src, int32_t out_width, int32_t out_height,
                        int32_t out_channels, const float *mean, const float *std, int bgr,
                        float *out);

#endif
