/* ImageDecoder (opset 20): an encoded image (1-D uint8) to [H, W, C]
 * uint8 pixels, C = 3 for pixel_format RGB or BGR, 1 for Grayscale.
 *
 * Decoded here: BMP (uncompressed 24/32-bit and 8-bit palette), binary PNM
 * (P5 gray, P6 colour, any maxval up to 255) and baseline TIFF
 * (uncompressed 8-bit strips: RGB, RGBA, gray). PNG, JPEG, JPEG 2000 and
 * WebP need entropy decoders Kiln does not carry: they fail with
 * KN_ERR_UNSUPPORTED naming the format. Grayscale output from colour uses
 * ITU-R 601 luma in 16-bit fixed point, as PIL does.
 *
 * The output shape comes from the image header, so prepare() needs the
 * bytes (KN_ERR_NEEDS_VALUE otherwise). Every read is checked against the
 * stream's length; a truncated or inconsistent image fails with
 * KN_ERR_INVALID_ARGUMENT. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

enum { FMT_BMP, FMT_PNM, FMT_TIFF };
enum { OUT_RGB, OUT_BGR, OUT_GRAY };

typedef struct img {
    const uint8_t *p;
    size_t n;
    int format;
    int64_t w, h;
    /* BMP */
    size_t data, stride, palette;
    int bpp, top_down, palette_n;
    /* PNM */
    int channels, maxval;
    /* TIFF */
    int big, spp, invert;
    int64_t rows_per_strip;
    size_t strip_off_entry, strip_cnt_entry; /* IFD entries of the two tables */
    int64_t strips;
} img;

/* ---- bounded little/big-endian reads ---- */

static int has(const img *m, size_t off, size_t len) { return off <= m->n && len <= m->n - off; }

static uint32_t rd16(const img *m, size_t off, int big)
{
    const uint8_t *b = m->p + off;
    return big ? (uint32_t)b[0] << 8 | b[1] : (uint32_t)b[1] << 8 | b[0];
}

static uint32_t rd32(const img *m, size_t off, int big)
{
    return big ? rd16(m, off, 1) << 16 | rd16(m, off + 2, 1) : rd16(m, off + 2, 0) << 16 | rd16(m, off, 0);
}

/* ---- BMP ---- */

static const char *bmp_parse(img *m)
{
    if (!has(m, 0, 54))
        return "truncated BMP header";
    uint32_t dib = rd32(m, 14, 0), comp = rd32(m, 30, 0), used = rd32(m, 46, 0);
    int32_t w = (int32_t)rd32(m, 18, 0), h = (int32_t)rd32(m, 22, 0);
    m->data = rd32(m, 10, 0);
    m->bpp = (int)rd16(m, 28, 0);
    if (dib < 40 || w <= 0 || h == 0 || h == INT32_MIN)
        return "unsupported BMP header";
    if (!(m->bpp == 24 || m->bpp == 32 || m->bpp == 8) || !(comp == 0 || (comp == 3 && m->bpp == 32)))
        return "only uncompressed 8-, 24- and 32-bit BMP is supported";
    m->w = w;
    m->h = h < 0 ? -(int64_t)h : h;
    m->top_down = h < 0;
    m->stride = (((size_t)m->w * (size_t)m->bpp + 31) / 32) * 4;
    if (m->bpp == 8) {
        m->palette = 14 + dib;
        m->palette_n = used ? (int)(used > 256 ? 256 : used) : 256;
        if (!has(m, m->palette, (size_t)m->palette_n * 4))
            return "truncated BMP palette";
    }
    if (m->stride > m->n / (size_t)m->h || !has(m, m->data, m->stride * (size_t)m->h))
        return "truncated BMP pixels";
    return NULL;
}

static void bmp_pixel(const img *m, int64_t x, int64_t y, uint8_t rgb[3])
{
    int64_t row = m->top_down ? y : m->h - 1 - y;
    const uint8_t *px = m->p + m->data + (size_t)row * m->stride + (size_t)x * (size_t)(m->bpp / 8);
    if (m->bpp == 8) {
        int i = px[0] < m->palette_n ? px[0] : 0;
        px = m->p + m->palette + (size_t)i * 4;
    }
    rgb[0] = px[2]; /* stored B, G, R */
    rgb[1] = px[1];
    rgb[2] = px[0];
}

/* ---- PNM (P5, P6) ---- */

/* Next header number after whitespace and # comments; -1 on error. */
static int64_t pnm_number(const img *m, size_t *pos)
{
    while (*pos < m->n) {
        uint8_t c = m->p[*pos];
        if (c == '#')
            while (*pos < m->n && m->p[*pos] != '\n')
                (*pos)++;
        else if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
            (*pos)++;
        else
            break;
    }
    int64_t v = 0;
    size_t start = *pos;
    while (*pos < m->n && m->p[*pos] >= '0' && m->p[*pos] <= '9' && v < (1 << 24))
        v = v * 10 + (m->p[(*pos)++] - '0');
    return *pos > start ? v : -1;
}

static const char *pnm_parse(img *m)
{
    m->channels = m->p[1] == '5' ? 1 : 3;
    size_t pos = 2;
    int64_t w = pnm_number(m, &pos), h = pnm_number(m, &pos), maxval = pnm_number(m, &pos);
    if (w <= 0 || h <= 0 || maxval <= 0 || maxval > 255 || pos >= m->n)
        return "bad PNM header (only 8-bit binary P5/P6 is supported)";
    m->w = w;
    m->h = h;
    m->maxval = (int)maxval;
    m->data = pos + 1; /* one whitespace byte ends the header */
    if (!has(m, m->data, (size_t)(w * h * m->channels)))
        return "truncated PNM pixels";
    return NULL;
}

static void pnm_pixel(const img *m, int64_t x, int64_t y, uint8_t rgb[3])
{
    const uint8_t *px = m->p + m->data + (size_t)((y * m->w + x) * m->channels);
    for (int c = 0; c < 3; c++) {
        int v = px[m->channels == 3 ? c : 0];
        v = v > m->maxval ? m->maxval : v;
        rgb[c] = (uint8_t)((v * 255 + m->maxval / 2) / m->maxval);
    }
}

/* ---- TIFF (baseline, uncompressed, chunky 8-bit) ---- */

/* Element i of the array an IFD entry describes (SHORT or LONG). */
static int tiff_value(const img *m, size_t entry, int64_t i, uint32_t *v)
{
    uint32_t type = rd16(m, entry + 2, m->big), count = rd32(m, entry + 4, m->big);
    size_t size = type == 3 ? 2 : type == 4 ? 4 : 0;
    if (!size || i < 0 || (uint64_t)i >= count)
        return 0;
    size_t at = (uint64_t)count * size <= 4 ? entry + 8 : rd32(m, entry + 8, m->big);
    at += (size_t)i * size;
    if (!has(m, at, size))
        return 0;
    *v = size == 2 ? rd16(m, at, m->big) : rd32(m, at, m->big);
    return 1;
}

static const char *tiff_parse(img *m)
{
    m->big = m->p[0] == 'M';
    size_t ifd = rd32(m, 4, m->big);
    if (!has(m, ifd, 2))
        return "truncated TIFF";
    uint32_t entries = rd16(m, ifd, m->big), w = 0, h = 0, comp = 1, photo = 2, planar = 1;
    uint32_t bits = 8, spp = 1, rps = 0xFFFFFFFFu;
    if (!has(m, ifd + 2, (size_t)entries * 12))
        return "truncated TIFF directory";
    for (uint32_t e = 0; e < entries; e++) {
        size_t at = ifd + 2 + (size_t)e * 12;
        uint32_t tag = rd16(m, at, m->big), v = 0;
        int ok = tiff_value(m, at, 0, &v);
        switch (tag) {
        case 256: w = v; break;
        case 257: h = v; break;
        case 258: bits = v; break;
        case 259: comp = v; break;
        case 262: photo = v; break;
        case 273: m->strip_off_entry = at; break;
        case 277: spp = v; break;
        case 278: rps = v; break;
        case 279: m->strip_cnt_entry = at; break;
        case 284: planar = v; break;
        default: break;
        }
        if (!ok && (tag == 256 || tag == 257))
            return "bad TIFF dimensions";
    }
    if (comp != 1)
        return "compressed TIFF is not supported";
    if (bits != 8 || planar != 1 || photo > 2 || (photo == 2 ? spp < 3 : spp < 1) || spp > 4)
        return "only 8-bit chunky RGB or gray TIFF is supported";
    if (!w || !h || !m->strip_off_entry || !m->strip_cnt_entry)
        return "bad TIFF dimensions or strips";
    m->w = w;
    m->h = h;
    m->spp = (int)spp;
    m->invert = photo == 0;
    m->channels = photo == 2 ? 3 : 1;
    m->rows_per_strip = rps < h ? rps : h;
    if (m->rows_per_strip == 0)
        return "bad TIFF rows per strip";
    if ((uint64_t)w > m->n || (uint64_t)h * spp > m->n / w) /* 1 byte per sample */
        return "truncated TIFF";
    m->strips = (m->h + m->rows_per_strip - 1) / m->rows_per_strip;
    for (int64_t s = 0; s < m->strips; s++) {
        uint32_t off, cnt;
        int64_t rows = m->h - s * m->rows_per_strip;
        rows = rows < m->rows_per_strip ? rows : m->rows_per_strip;
        if (!tiff_value(m, m->strip_off_entry, s, &off) || !tiff_value(m, m->strip_cnt_entry, s, &cnt) ||
            (uint64_t)cnt < (uint64_t)(rows * m->w * m->spp) || !has(m, off, (size_t)(rows * m->w * m->spp)))
            return "truncated TIFF strip";
    }
    return NULL;
}

static void tiff_pixel(const img *m, int64_t x, int64_t y, uint8_t rgb[3])
{
    uint32_t off = 0;
    tiff_value(m, m->strip_off_entry, y / m->rows_per_strip, &off); /* checked in parse */
    const uint8_t *px = m->p + off + (size_t)(((y % m->rows_per_strip) * m->w + x) * m->spp);
    for (int c = 0; c < 3; c++) {
        uint8_t v = px[m->channels == 3 ? c : 0];
        rgb[c] = m->invert ? (uint8_t)(255 - v) : v;
    }
}

/* ---- the op ---- */

static const char *identify(img *m)
{
    const uint8_t *p = m->p;
    if (m->n >= 2 && p[0] == 'B' && p[1] == 'M') {
        m->format = FMT_BMP;
        return bmp_parse(m);
    }
    if (m->n >= 3 && p[0] == 'P' && (p[1] == '5' || p[1] == '6')) {
        m->format = FMT_PNM;
        return pnm_parse(m);
    }
    if (m->n >= 8 && ((p[0] == 'I' && p[1] == 'I' && p[2] == 42 && p[3] == 0) ||
                      (p[0] == 'M' && p[1] == 'M' && p[2] == 0 && p[3] == 42))) {
        m->format = FMT_TIFF;
        return tiff_parse(m);
    }
    if (m->n >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0)
        return "PNG images are not supported";
    if (m->n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF)
        return "JPEG images are not supported";
    if (m->n >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0)
        return "WebP images are not supported";
    if (m->n >= 12 && (memcmp(p, "\0\0\0\x0cjP  ", 8) == 0 || memcmp(p, "\xff\x4f\xff\x51", 4) == 0))
        return "JPEG 2000 images are not supported";
    return "unrecognised image format";
}

static int decoder_prepare(kn_kctx *k)
{
    const char *op = "ImageDecoder";
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    if (x->dtype != KN_UINT8 || x->rank != 1)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: encoded_stream must be 1-D uint8", op);
    const char *fmt = kn_attr_string(k->node, "pixel_format", "RGB");
    int out = strcmp(fmt, "RGB") == 0 ? OUT_RGB : strcmp(fmt, "BGR") == 0 ? OUT_BGR
              : strcmp(fmt, "Grayscale") == 0 ? OUT_GRAY : -1;
    if (out < 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: pixel_format must be RGB, BGR or "
                       "Grayscale, not '%s'", op, fmt);
    if (!x->data)
        return kn_fail(k->err, KN_ERR_NEEDS_VALUE,
                       "%s: output shape depends on the value of input 'encoded_stream'", op);
    img m = {.p = x->data, .n = (size_t)x->dims[0]};
    const char *why = identify(&m);
    if (why)
        return kn_fail(k->err, strstr(why, "not supported") ? KN_ERR_UNSUPPORTED
                                                            : KN_ERR_INVALID_ARGUMENT,
                       "%s: %s", op, why);
    kn_tensor *y = k->out[0];
    y->dtype = KN_UINT8;
    y->rank = 3;
    y->dims[0] = m.h;
    y->dims[1] = m.w;
    y->dims[2] = out == OUT_GRAY ? 1 : 3;
    return KN_OK;
}

static int decoder_run(kn_kctx *k)
{
    const kn_tensor *x = k->in[0];
    img m = {.p = x->data, .n = (size_t)x->dims[0]};
    const char *why = identify(&m);
    const kn_tensor *y = k->out[0];
    if (why || m.h != y->dims[0] || m.w != y->dims[1])
        return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "ImageDecoder: the image changed after "
                       "planning");
    const char *fmt = kn_attr_string(k->node, "pixel_format", "RGB");
    int out = strcmp(fmt, "BGR") == 0 ? OUT_BGR : strcmp(fmt, "Grayscale") == 0 ? OUT_GRAY : OUT_RGB;
    uint8_t *dst = y->data, rgb[3];
    for (int64_t r = 0; r < m.h; r++)
        for (int64_t c = 0; c < m.w; c++) {
            if (m.format == FMT_BMP)
                bmp_pixel(&m, c, r, rgb);
            else if (m.format == FMT_PNM)
                pnm_pixel(&m, c, r, rgb);
            else
                tiff_pixel(&m, c, r, rgb);
            if (out == OUT_GRAY) {
                *dst++ = (uint8_t)((rgb[0] * 19595u + rgb[1] * 38470u + rgb[2] * 7471u + 0x8000u) >> 16);
            } else {
                *dst++ = rgb[out == OUT_BGR ? 2 : 0];
                *dst++ = rgb[1];
                *dst++ = rgb[out == OUT_BGR ? 0 : 2];
            }
        }
    return KN_OK;
}

const kn_op_def kn_op_ImageDecoder = {
    .op_type = "ImageDecoder", .since_version = 20, .dtypes = KN_BIT(KN_UINT8),
    .prepare = decoder_prepare, .run = decoder_run
};
