/* WebP through libwebp: a still image, lossy or lossless, decoded to RGB
 * (alpha dropped) with the library's default fancy upsampling, as PIL
 * decodes it. Animated files fail as unsupported. */
#include <webp/decode.h>

#include "core/codec/codec_format.h"

static const char *status_text(VP8StatusCode s)
{
    switch (s) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "corrupt bitstream";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "truncated data";
    default: return "decoding failed";
    }
}

static int fail(kn_err *err, VP8StatusCode s)
{
    return kn_fail(err,
                   s == VP8_STATUS_OUT_OF_MEMORY         ? KN_ERR_OUT_OF_MEMORY
                   : s == VP8_STATUS_UNSUPPORTED_FEATURE ? KN_ERR_UNSUPPORTED
                                                         : KN_ERR_INVALID_ARGUMENT,
                   "%s", status_text(s));
}

static int probe(const uint8_t *p, size_t n, int64_t *w, int64_t *h, kn_err *err)
{
    WebPBitstreamFeatures f;
    VP8StatusCode s = WebPGetFeatures(p, n, &f);
    if (s != VP8_STATUS_OK)
        return fail(err, s);
    if (f.has_animation)
        return kn_fail(err, KN_ERR_UNSUPPORTED, "animated WebP is not supported");
    *w = f.width;
    *h = f.height;
    return KN_OK;
}

static int decode_rgb(const uint8_t *p, size_t n, int64_t w, int64_t h, uint8_t *rgb, kn_err *err)
{
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config))
        return kn_fail(err, KN_ERR_INTERNAL, "libwebp's version does not match its header");
    config.output.colorspace = MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = rgb;
    config.output.u.RGBA.stride = (int)(w * 3);
    config.output.u.RGBA.size = (size_t)w * (size_t)h * 3;
    VP8StatusCode s = WebPDecode(p, n, &config);
    WebPFreeDecBuffer(&config.output); /* external memory: frees nothing of ours */
    return s == VP8_STATUS_OK ? KN_OK : fail(err, s);
}

const kn_codec kn_codec_webp = {
    .name = "WebP", .library = "libwebp", .probe = probe, .decode_rgb = decode_rgb};
