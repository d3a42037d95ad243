/* Binary PNM: P5 (gray) and P6 (colour), maxval up to 255 (scaled to
 * 0..255; samples above maxval are clamped). */
#include "core/codec/codec_format.h"

typedef struct pnm {
    int64_t w, h;
    int channels, maxval;
    size_t data;
} pnm;

/* The next header number after whitespace and # comments; -1 if none. */
static int64_t number(const uint8_t *p, size_t n, size_t *pos)
{
    while (*pos < n) {
        uint8_t c = p[*pos];
        if (c == '#')
            while (*pos < n && p[*pos] != '\n')
                (*pos)++;
        else if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
            (*pos)++;
        else
            break;
    }
    int64_t v = 0;
    size_t start = *pos;
    while (*pos < n && p[*pos] >= '0' && p[*pos] <= '9' && v < (1 << 24))
        v = v * 10 + (p[(*pos)++] - '0');
    return *pos > start ? v : -1;
}

static int parse(const uint8_t *p, size_t n, pnm *m, kn_err *err)
{
    m->channels = p[1] == '5' ? 1 : 3;
    size_t pos = 2;
    int64_t w = number(p, n, &pos), h = number(p, n, &pos), maxval = number(p, n, &pos);
    if (w <= 0 || h <= 0 || maxval <= 0 || pos >= n)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT,
                       "bad header (width, height and maxval "
                       "must be positive numbers)");
    if (maxval > 255)
        return kn_fail(err, KN_ERR_UNSUPPORTED, "maxval %lld: only 8-bit P5/P6 is supported",
                       (long long)maxval);
    m->w = w;
    m->h = h;
    m->maxval = (int)maxval;
    m->data = pos + 1; /* one whitespace byte ends the header */
    /* w, h < 2^24 each, so the product fits in 64 bits. */
    if (!kn_codec_has(n, m->data, (size_t)(w * h * m->channels)))
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "truncated pixels (%zu bytes for %lldx%lld)",
                       n, (long long)w, (long long)h);
    return KN_OK;
}

static int probe(const uint8_t *p, size_t n, int64_t *w, int64_t *h, kn_err *err)
{
    pnm m = {0};
    int rc = parse(p, n, &m, err);
    *w = m.w;
    *h = m.h;
    return rc;
}

static int decode_rgb(const uint8_t *p, size_t n, int64_t w, int64_t h, uint8_t *rgb, kn_err *err)
{
    pnm m = {0};
    int rc = parse(p, n, &m, err);
    if (rc != KN_OK)
        return rc;
    const uint8_t *src = p + m.data;
    for (int64_t i = 0; i < w * h; i++, src += m.channels)
        for (int c = 0; c < 3; c++) {
            int v = src[m.channels == 3 ? c : 0];
            v = v > m.maxval ? m.maxval : v;
            *rgb++ = (uint8_t)((v * 255 + m.maxval / 2) / m.maxval);
        }
    return KN_OK;
}

const kn_codec kn_codec_pnm = {.name = "PNM", .probe = probe, .decode_rgb = decode_rgb};
