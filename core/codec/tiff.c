/* Baseline TIFF: uncompressed, chunky, 8 bits per sample, RGB(A) or gray
 * (either polarity), first image only, strips. */
#include "core/codec/codec_format.h"

typedef struct tiff {
    const uint8_t *p;
    size_t n;
    int big, spp, invert, channels;
    int64_t w, h, rows_per_strip, strips;
    size_t strip_off_entry, strip_cnt_entry; /* IFD entries of the two tables */
} tiff;

/* Element i of the array an IFD entry describes (SHORT or LONG); 0 when
 * the entry has another type, i is out of range, or the array lies
 * outside the file. */
static int value(const tiff *m, size_t entry, int64_t i, uint32_t *v)
{
    uint32_t type = kn_codec_rd16(m->p, entry + 2, m->big),
             count = kn_codec_rd32(m->p, entry + 4, m->big);
    size_t size = type == 3 ? 2 : type == 4 ? 4 : 0;
    if (!size || i < 0 || (uint64_t)i >= count)
        return 0;
    size_t at = (uint64_t)count * size <= 4 ? entry + 8 : kn_codec_rd32(m->p, entry + 8, m->big);
    at += (size_t)i * size;
    if (!kn_codec_has(m->n, at, size))
        return 0;
    *v = size == 2 ? kn_codec_rd16(m->p, at, m->big) : kn_codec_rd32(m->p, at, m->big);
    return 1;
}

static int bad(kn_err *err, const char *what)
{
    return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "%s", what);
}

static int parse(tiff *m, kn_err *err)
{
    m->big = m->p[0] == 'M';
    size_t ifd = kn_codec_rd32(m->p, 4, m->big);
    if (!kn_codec_has(m->n, ifd, 2))
        return bad(err, "truncated: the first directory lies past the end");
    uint32_t entries = kn_codec_rd16(m->p, ifd, m->big), w = 0, h = 0, comp = 1, photo = 2;
    uint32_t planar = 1, bits = 8, spp = 1, rps = 0xFFFFFFFFu;
    if (!kn_codec_has(m->n, ifd + 2, (size_t)entries * 12))
        return bad(err, "truncated directory");
    for (uint32_t e = 0; e < entries; e++) {
        size_t at = ifd + 2 + (size_t)e * 12;
        uint32_t tag = kn_codec_rd16(m->p, at, m->big), v = 0;
        int ok = value(m, at, 0, &v);
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
            return bad(err, "bad width or height entry");
    }
    if (comp != 1)
        return kn_fail(err, KN_ERR_UNSUPPORTED,
                       "compression %u: only uncompressed TIFF is "
                       "supported",
                       (unsigned)comp);
    if (bits != 8 || planar != 1 || photo > 2 || (photo == 2 ? spp < 3 : spp < 1) || spp > 4)
        return kn_fail(err, KN_ERR_UNSUPPORTED, "only 8-bit chunky RGB or gray TIFF is supported");
    if (!w || !h || !m->strip_off_entry || !m->strip_cnt_entry)
        return bad(err, "no width, height or strip tables");
    m->w = w;
    m->h = h;
    m->spp = (int)spp;
    m->invert = photo == 0;
    m->channels = photo == 2 ? 3 : 1;
    m->rows_per_strip = rps < h ? rps : h;
    if (m->rows_per_strip == 0)
        return bad(err, "rows per strip is 0");
    if ((uint64_t)w > m->n || (uint64_t)h * spp > m->n / w) /* 1 byte per sample */
        return bad(err, "truncated pixels");
    m->strips = (m->h + m->rows_per_strip - 1) / m->rows_per_strip;
    for (int64_t s = 0; s < m->strips; s++) {
        uint32_t off, cnt;
        int64_t rows = m->h - s * m->rows_per_strip;
        rows = rows < m->rows_per_strip ? rows : m->rows_per_strip;
        size_t bytes = (size_t)(rows * m->w * m->spp);
        if (!value(m, m->strip_off_entry, s, &off) || !value(m, m->strip_cnt_entry, s, &cnt) ||
            cnt < bytes || !kn_codec_has(m->n, off, bytes))
            return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "truncated strip %lld", (long long)s);
    }
    return KN_OK;
}

static int probe(const uint8_t *p, size_t n, int64_t *w, int64_t *h, kn_err *err)
{
    tiff m = {.p = p, .n = n};
    int rc = parse(&m, err);
    *w = m.w;
    *h = m.h;
    return rc;
}

static int decode_rgb(const uint8_t *p, size_t n, int64_t w, int64_t h, uint8_t *rgb, kn_err *err)
{
    tiff m = {.p = p, .n = n};
    int rc = parse(&m, err);
    if (rc != KN_OK)
        return rc;
    for (int64_t y = 0; y < h; y++) {
        uint32_t off = 0;
        value(&m, m.strip_off_entry, y / m.rows_per_strip, &off); /* checked in parse */
        const uint8_t *px = p + off + (size_t)((y % m.rows_per_strip) * w * m.spp);
        for (int64_t x = 0; x < w; x++, px += m.spp)
            for (int c = 0; c < 3; c++) {
                uint8_t v = px[m.channels == 3 ? c : 0];
                *rgb++ = m.invert ? (uint8_t)(255 - v) : v;
            }
    }
    return KN_OK;
}

const kn_codec kn_codec_tiff = {.name = "TIFF", .probe = probe, .decode_rgb = decode_rgb};
