/* Encoded images to 8-bit pixels: the one decoder both the ImageDecoder op
 * (core/cpu/image/) and the C API (kiln_image_decode) use.
 *
 * Formats are recognised by their magic bytes. BMP, binary PNM and
 * baseline TIFF are decoded here; PNG, JPEG, WebP and JPEG 2000 go through
 * libpng, libjpeg(-turbo), libwebp and libopenjp2 when the build found them
 * (CMake swaps in core/codec/absent/ otherwise, and those formats fail with
 * KN_ERR_UNSUPPORTED naming the missing library). Output is height rows of
 * width pixels, channels interleaved: 3 = R, G, B; 1 = luma from ITU-R 601
 * weights in 16-bit fixed point, as PIL's convert("L") computes it (ONNX's
 * reference outputs come from PIL). Alpha is dropped, not composited.
 *
 * Every read is bounded by size; a truncated or corrupt image fails with
 * KN_ERR_INVALID_ARGUMENT and a message naming the format and the defect.
 * Images above KN_IMAGE_MAX_PIXELS fail with KN_ERR_LIMIT before any pixel
 * memory is touched. */
#ifndef KN_CODEC_H
#define KN_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/status.h"

/* 2^28 pixels (16384 x 16384): 768 MiB of RGB. A few hundred bytes of PNG
 * or JPEG can claim any size; this bounds what such a file can make us
 * allocate. */
#define KN_IMAGE_MAX_PIXELS ((int64_t)1 << 28)

/* Reads the header only: the image's width and height (both > 0). */
int kn_image_probe(const uint8_t *data, size_t size, int64_t *width, int64_t *height, kn_err *err);

/* Decodes the whole image into pixels, which holds exactly
 * width * height * channels bytes (the sizes kn_image_probe reports);
 * channels is 1 or 3. */
int kn_image_decode(const uint8_t *data, size_t size, int channels, uint8_t *pixels,
                    size_t pixels_bytes, kn_err *err);

#endif
