/* Bilinear resize + colour conversion + normalisation in one pass, so the
 * resized RGB image never needs a buffer of its own. Nothing is allocated. */
#include "core/ir/image_prep.h"

#include <stddef.h>

/* One axis of a half-pixel bilinear resize: output index i reads source
 * indices i0 and i1 with weight w on i1. The source coordinate is clamped
 * to [0, n - 1], which is what edge padding gives ONNX's reference. Double
 * precision keeps the identity resize exact for any size. */
typedef struct axis_tap {
    int32_t i0, i1;
    float w;
} axis_tap;

static axis_tap axis_tap_at(int32_t i, int32_t in_size, int32_t out_size)
{
    double x = ((double)i + 0.5) * (double)in_size / (double)out_size - 0.5;
    if (x < 0.0)
        x = 0.0;
    if (x > (double)(in_size - 1))
        x = (double)(in_size - 1);
    axis_tap t;
    t.i0 = (int32_t)x; /* x >= 0, so truncation is floor */
    t.i1 = t.i0 + 1 < in_size ? t.i0 + 1 : t.i0;
    t.w = (float)(x - (double)t.i0);
    return t;
}

/* The bilinear blend of source channel c at the four taps. */
static float blend(const uint8_t *row0, const uint8_t *row1, const axis_tap *tx, float wy,
                   int32_t channels, int32_t c)
{
    float p00 = row0[(size_t)tx->i0 * channels + c], p01 = row0[(size_t)tx->i1 * channels + c];
    float p10 = row1[(size_t)tx->i0 * channels + c], p11 = row1[(size_t)tx->i1 * channels + c];
    float top = p00 + (p01 - p00) * tx->w;
    float bottom = p10 + (p11 - p10) * tx->w;
    return top + (bottom - top) * wy;
}

void kn_image_to_tensor(const kn_image_view *src, int32_t out_width, int32_t out_height,
                        int32_t out_channels, const float *mean, const float *std, int bgr,
                        float *out)
{
    const int32_t in_c = src->channels;
    const size_t plane = (size_t)out_width * (size_t)out_height;
    /* Source channel feeding each output channel (3 outputs), or the
     * luma weights (1 output from colour). */
    int32_t pick[3] = {0, 0, 0};
    if (in_c >= 3) {
        pick[0] = bgr ? 2 : 0;
        pick[1] = 1;
        pick[2] = bgr ? 0 : 2;
    }
    const int luma = out_channels == 1 && in_c >= 3;
    float m[3], s[3];
    for (int32_t c = 0; c < out_channels; c++) {
        m[c] = mean ? mean[c] : 0.0f;
        s[c] = std ? std[c] : 1.0f;
    }
    for (int32_t y = 0; y < out_height; y++) {
        axis_tap ty = axis_tap_at(y, src->height, out_height);
        const uint8_t *row0 = src->pixels + (size_t)ty.i0 * (size_t)src->stride;
        const uint8_t *row1 = src->pixels + (size_t)ty.i1 * (size_t)src->stride;
        float *dst = out + (size_t)y * (size_t)out_width;
        for (int32_t x = 0; x < out_width; x++) {
            axis_tap tx = axis_tap_at(x, src->width, out_width);
            if (luma) {
                float r = blend(row0, row1, &tx, ty.w, in_c, 0);
                float g = blend(row0, row1, &tx, ty.w, in_c, 1);
                float b = blend(row0, row1, &tx, ty.w, in_c, 2);
                float v = 0.299f * r + 0.587f * g + 0.114f * b;
                dst[x] = (v / 255.0f - m[0]) / s[0];
                continue;
            }
            for (int32_t c = 0; c < out_channels; c++) {
                float v = blend(row0, row1, &tx, ty.w, in_c, pick[c]);
                dst[(size_t)c * plane + x] = (v / 255.0f - m[c]) / s[c];
            }
        }
    }
}
