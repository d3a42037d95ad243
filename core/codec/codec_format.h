/* One image format, as core/codec/codec.c dispatches to it. Each format
 * is one file here; a format that needs an outside library has a second
 * file in absent/ (compiled when the library is not found) whose
 * descriptor has no functions, so the dispatcher can say which library
 * the build lacked. Not for use outside core/codec/. */
#ifndef KN_CODEC_FORMAT_H
#define KN_CODEC_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/status.h"

/* What a library decoder reports in one pass: the size always, the
 * pixels too when rgb is set (NULL: stop after the header). */
typedef struct kn_image_job {
    int64_t w, h;
    uint8_t *rgb; /* width * height * 3 bytes, R, G, B */
} kn_image_job;

typedef struct kn_codec {
    const char *name;    /* "JPEG": starts every error message */
    const char *library; /* "libjpeg"; NULL when Kiln decodes the format itself */
    /* Width and height from the header. Messages name only the defect;
     * the dispatcher puts the format's name in front. NULL when built
     * without the library. */
    int (*probe)(const uint8_t *data, size_t size, int64_t *width, int64_t *height, kn_err *err);
    /* The whole image as R, G, B bytes into rgb (width * height * 3, the
     * probed sizes, already checked against KN_IMAGE_MAX_PIXELS). */
    int (*decode_rgb)(const uint8_t *data, size_t size, int64_t width, int64_t height, uint8_t *rgb,
                      kn_err *err);
    /* Instead of the two: one pass that learns the size as it decodes
     * (libpng, libjpeg, libopenjp2), run once for the header and once for
     * the pixels; the dispatcher checks the two agree. */
    int (*read)(const uint8_t *data, size_t size, kn_image_job *job, kn_err *err);
} kn_codec;

extern const kn_codec kn_codec_bmp, kn_codec_pnm, kn_codec_tiff;
extern const kn_codec kn_codec_png, kn_codec_jpeg, kn_codec_webp, kn_codec_jpeg2000;

/* Bounded little/big-endian reads for the formats parsed here: has()
 * says whether [off, off + len) lies inside the data. */
static inline int kn_codec_has(size_t size, size_t off, size_t len)
{
    return off <= size && len <= size - off;
}

static inline uint32_t kn_codec_rd16(const uint8_t *p, size_t off, int big)
{
    const uint8_t *b = p + off;
    return big ? (uint32_t)b[0] << 8 | b[1] : (uint32_t)b[1] << 8 | b[0];
}

static inline uint32_t kn_codec_rd32(const uint8_t *p, size_t off, int big)
{
    return big ? kn_codec_rd16(p, off, 1) << 16 | kn_codec_rd16(p, off + 2, 1)
               : kn_codec_rd16(p, off + 2, 0) << 16 | kn_codec_rd16(p, off, 0);
}

#endif
