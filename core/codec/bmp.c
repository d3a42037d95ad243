/* BMP: uncompressed 24- and 32-bit (BI_RGB or BI_BITFIELDS in the usual
 * B, G, R order) and 8-bit palette images, bottom-up or top-down. */
#include <stdint.h>

#include "core/codec/codec_format.h"

typedef struct bmp {
    int64_t w, h;
    size_t data, stride, palette;
    int bpp, top_down, palette_n;
} bmp;

static int parse(const uint8_t *p, size_t n, bmp *m, kn_err *err)
{
    if (!kn_codec_has(n, 0, 54))
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "truncated header (%zu bytes)", n);
    uint32_t dib = kn_codec_rd32(p, 14, 0), comp = kn_codec_rd32(p, 30, 0);
    uint32_t used = kn_codec_rd32(p, 46, 0);
    int32_t w = (int32_t)kn_codec_rd32(p, 18, 0), h = (int32_t)kn_codec_rd32(p, 22, 0);
    m->data = kn_codec_rd32(p, 10, 0);
    m->bpp = (int)kn_codec_rd16(p, 28, 0);
    if (dib < 40 || w <= 0 || h == 0 || h == INT32_MIN)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "bad header (DIB size %u, %dx%d)",
                       (unsigned)dib, (int)w, (int)h);
    if (!(m->bpp == 24 || m->bpp == 32 || m->bpp == 8) ||
        !(comp == 0 || (comp == 3 && m->bpp == 32)))
        return kn_fail(err, KN_ERR_UNSUPPORTED,
                       "%d-bit compression %u: only uncompressed 8-, "
                       "24- and 32-bit BMP is supported",
                       m->bpp, (unsigned)comp);
    m->w = w;
    m->h = h < 0 ? -(int64_t)h : h;
    m->top_down = h < 0;
    m->stride = (((size_t)m->w * (size_t)m->bpp + 31) / 32) * 4;
    if (m->bpp == 8) {
        m->palette = 14 + (size_t)dib;
        m->palette_n = used ? (int)(used > 256 ? 256 : used) : 256;
        if (!kn_codec_has(n, m->palette, (size_t)m->palette_n * 4))
            return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "truncated palette");
    }
    if (m->stride > n / (size_t)m->h || !kn_codec_has(n, m->data, m->stride * (size_t)m->h))
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT,
                       "truncated pixels (%zu bytes for %lld "
                       "rows of %zu)",
                       n, (long long)m->h, m->stride);
    return KN_OK;
}

static int probe(const uint8_t *p, size_t n, int64_t *w, int64_t *h, kn_err *err)
{
    bmp m = {0};
    int rc = parse(p, n, &m, err);
    *w = m.w;
    *h = m.h;
    return rc;
}

static int decode_rgb(const uint8_t *p, size_t n, int64_t w, int64_t h, uint8_t *rgb, kn_err *err)
{
    bmp m = {0};
    int rc = parse(p, n, &m, err);
    if (rc != KN_OK)
        return rc;
    for (int64_t y = 0; y < h; y++) {
        int64_t row = m.top_down ? y : h - 1 - y;
        const uint8_t *src = p + m.data + (size_t)row * m.stride;
        for (int64_t x = 0; x < w; x++, rgb += 3) {
            const uint8_t *px = src + (size_t)x * (size_t)(m.bpp / 8);
            if (m.bpp == 8) /* out-of-range indices take entry 0 */
                px = p + m.palette + (size_t)(px[0] < m.palette_n ? px[0] : 0) * 4;
            rgb[0] = px[2]; /* stored B, G, R */
            rgb[1] = px[1];
            rgb[2] = px[0];
        }
    }
    return KN_OK;
}

const kn_codec kn_codec_bmp = {.name = "BMP", .probe = probe, .decode_rgb = decode_rgb};
