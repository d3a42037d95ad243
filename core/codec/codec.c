/* Format sniffing and the two entry points of core/codec/codec.h. */
#include "core/codec/codec.h"

#include <stdlib.h>
#include <string.h>

#include "core/codec/codec_format.h"

/* The format whose magic bytes start the data, or NULL. */
static const kn_codec *sniff(const uint8_t *p, size_t n)
{
    if (n >= 2 && p[0] == 'B' && p[1] == 'M')
        return &kn_codec_bmp;
    if (n >= 3 && p[0] == 'P' && (p[1] == '5' || p[1] == '6'))
        return &kn_codec_pnm;
    if (n >= 8 && (memcmp(p, "II*\0", 4) == 0 || memcmp(p, "MM\0*", 4) == 0))
        return &kn_codec_tiff;
    if (n >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0)
        return &kn_codec_png;
    if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF)
        return &kn_codec_jpeg;
    if (n >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0)
        return &kn_codec_webp;
    /* A JP2 file's signature box, or a bare J2K codestream (SOC, SIZ). */
    if ((n >= 12 && memcmp(p, "\0\0\0\x0cjP  \r\n\x87\n", 12) == 0) ||
        (n >= 4 && memcmp(p, "\xff\x4f\xff\x51", 4) == 0))
        return &kn_codec_jpeg2000;
    return NULL;
}

static int find(const uint8_t *data, size_t size, const kn_codec **codec, kn_err *err)
{
    if (!data || size == 0)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "the encoded image is empty");
    *codec = sniff(data, size);
    if (!*codec)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT,
                       "unrecognised image format (the first bytes are not those of BMP, "
                       "PNM, TIFF, PNG, JPEG, WebP or JPEG 2000)");
    if (!(*codec)->probe && !(*codec)->read)
        return kn_fail(err, KN_ERR_UNSUPPORTED,
                       "Kiln was built without %s: %s images are not supported", (*codec)->library,
                       (*codec)->name);
    return KN_OK;
}

static int probe(const kn_codec *codec, const uint8_t *data, size_t size, int64_t *width,
                 int64_t *height, kn_err *err)
{
    int64_t w = 0, h = 0;
    int rc;
    if (codec->read) {
        kn_image_job header = {0};
        rc = codec->read(data, size, &header, err);
        w = header.w;
        h = header.h;
    } else {
        rc = codec->probe(data, size, &w, &h, err);
    }
    if (rc == KN_OK && (w <= 0 || h <= 0))
        rc = kn_fail(err, KN_ERR_INVALID_ARGUMENT, "the header gives a %lldx%lld image",
                     (long long)w, (long long)h);
    if (rc == KN_OK && w > KN_IMAGE_MAX_PIXELS / h)
        rc = kn_fail(err, KN_ERR_LIMIT,
                     "the image is %lldx%lld pixels; Kiln decodes at most %lld pixels",
                     (long long)w, (long long)h, (long long)KN_IMAGE_MAX_PIXELS);
    if (rc != KN_OK) {
        kn_err_prefix(err, "%s image", codec->name);
        return rc;
    }
    *width = w;
    *height = h;
    return KN_OK;
}

int kn_image_probe(const uint8_t *data, size_t size, int64_t *width, int64_t *height, kn_err *err)
{
    const kn_codec *codec = NULL;
    int rc = find(data, size, &codec, err);
    return rc != KN_OK ? rc : probe(codec, data, size, width, height, err);
}

/* PIL's convert("L"): ITU-R 601 luma in 16-bit fixed point, rounded. In
 * place is fine: pixel i's luma lands at i, before or on its own bytes. */
static void rgb_to_luma(const uint8_t *rgb, uint8_t *luma, size_t pixels)
{
    for (size_t i = 0; i < pixels; i++, rgb += 3)
        luma[i] = (uint8_t)((rgb[0] * 19595u + rgb[1] * 38470u + rgb[2] * 7471u + 0x8000u) >> 16);
}

int kn_image_decode(const uint8_t *data, size_t size, int channels, uint8_t *pixels,
                    size_t pixels_bytes, kn_err *err)
{
    if (channels != 1 && channels != 3)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "channels is %d; expected 1 (gray) or 3 (RGB)",
                       channels);
    const kn_codec *codec = NULL;
    int64_t w = 0, h = 0;
    int rc = find(data, size, &codec, err);
    if (rc == KN_OK)
        rc = probe(codec, data, size, &w, &h, err);
    if (rc != KN_OK)
        return rc;
    size_t count = (size_t)w * (size_t)h; /* < 2^28: probe checked */
    if (!pixels || pixels_bytes != count * (size_t)channels)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT,
                       "the pixel buffer holds %zu bytes; a %lldx%lld image with %d "
                       "channel(s) needs %zu",
                       pixels_bytes, (long long)w, (long long)h, channels,
                       count * (size_t)channels);
    /* Formats decode to RGB; gray output needs room for that first. */
    uint8_t *rgb = channels == 3 ? pixels : malloc(count * 3);
    if (!rgb)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "%s image: no memory for %lldx%lld pixels",
                       codec->name, (long long)w, (long long)h);
    if (codec->read) {
        kn_image_job job = {.rgb = rgb};
        rc = codec->read(data, size, &job, err);
        if (rc == KN_OK && (job.w != w || job.h != h))
            rc = kn_fail(err, KN_ERR_INTERNAL, "size changed between probe and decode");
    } else {
        rc = codec->decode_rgb(data, size, w, h, rgb, err);
    }
    if (rc != KN_OK)
        kn_err_prefix(err, "%s image", codec->name);
    else if (channels == 1)
        rgb_to_luma(rgb, pixels, count);
    if (rgb != pixels)
        free(rgb);
    return rc;
}
