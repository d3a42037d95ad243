/* Image decoding (core/codec/ through kiln_image_decode): every format on
 * small committed images (tests/data/images/make_images.py made them),
 * exact pixels for lossless formats and a tolerance for lossy ones, gray
 * output, the two-call pattern, and corrupt input: every truncation and
 * every single-byte corruption of every file must fail cleanly or decode,
 * never crash or read out of bounds (the ASan build runs this too).
 *
 * A format whose library this build lacks must fail with UNSUPPORTED and
 * name the library; its pixel checks then skip, saying so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_helpers.h"

enum { W = 7, H = 5 };

/* The pattern make_images.py draws. */
static void pattern_pixel(int x, int y, uint8_t rgb[3])
{
    rgb[0] = (uint8_t)(37 * x % 256);
    rgb[1] = (uint8_t)(53 * y % 256);
    rgb[2] = (uint8_t)((11 * x * y + 7) % 256);
}

typedef struct image_file {
    const char *name;
    const char *format;  /* as error messages name it */
    const char *library; /* NULL: decoded by Kiln itself */
    int lossy;           /* 0: exact; else the largest mean error allowed, in levels */
    int gray;            /* pixels are the pattern's R in every channel */
} image_file;

static const image_file files[] = {
    {"pattern.png", "PNG", "libpng", 0, 0},
    {"pattern_interlaced.png", "PNG", "libpng", 0, 0},
    {"pattern_rgba.png", "PNG", "libpng", 0, 0},
    {"pattern_palette.png", "PNG", "libpng", 0, 0},
    {"pattern_gray.png", "PNG", "libpng", 0, 1},
    {"pattern_gray16.png", "PNG", "libpng", 0, 1},
    {"pattern.jpg", "JPEG", "libjpeg", 6, 0},
    {"pattern_progressive.jpg", "JPEG", "libjpeg", 6, 0},
    {"pattern_gray.jpg", "JPEG", "libjpeg", 6, 1},
    {"pattern.webp", "WebP", "libwebp", 0, 0},
    {"pattern_lossy.webp", "WebP", "libwebp", 10, 0},
    {"pattern.jp2", "JPEG 2000", "libopenjp2", 0, 0},
    {"pattern.j2k", "JPEG 2000", "libopenjp2", 0, 0},
    {"pattern.bmp", "BMP", NULL, 0, 0},
    {"pattern.ppm", "PNM", NULL, 0, 0},
    {"pattern_gray.pgm", "PNM", NULL, 0, 1},
    {"pattern.tif", "TIFF", NULL, 0, 0},
};
#define FILE_COUNT (sizeof files / sizeof files[0])

static uint8_t *load(const char *name, size_t *size)
{
    char rel[128];
    snprintf(rel, sizeof rel, "tests/data/images/%s", name);
    uint8_t *data = kt_read_file(kt_src_path(rel), size);
    cr_assert(data, "cannot read %s", rel);
    return data;
}

static void last_error(char *msg, size_t cap) { kiln_last_error(msg, (int32_t)cap); }

/* 1 when this build decodes the file's format; otherwise asserts the
 * refusal names the library and returns 0. */
static int supported(const image_file *f, const uint8_t *data, size_t size)
{
    int32_t w = 0, h = 0;
    int32_t rc = kiln_image_decode(data, size, 3, NULL, 0, NULL, &w, &h);
    if (rc == KILN_OK)
        return 1;
    char msg[512], want[128];
    last_error(msg, sizeof msg);
    cr_assert(f->library, "%s: %d (%s)", f->name, (int)rc, msg);
    snprintf(want, sizeof want, "Kiln was built without %s", f->library);
    cr_assert_eq(rc, KILN_ERR_UNSUPPORTED, "%s: %d (%s)", f->name, (int)rc, msg);
    cr_assert(strstr(msg, want), "%s: message '%s' lacks '%s'", f->name, msg, want);
    return 0;
}

/* Decodes a whole file with the two-call pattern; NULL if unsupported. */
static uint8_t *decode(const image_file *f, int32_t channels, int32_t *w, int32_t *h)
{
    size_t size = 0, needed = 0;
    uint8_t *data = load(f->name, &size);
    if (!supported(f, data, size)) {
        free(data);
        return NULL;
    }
    KT_OK(kiln_image_decode(data, size, channels, NULL, 0, &needed, w, h));
    cr_assert_eq(needed, (size_t)*w * (size_t)*h * (size_t)channels, "%s", f->name);
    uint8_t *px = malloc(needed);
    cr_assert(px);
    KT_OK(kiln_image_decode(data, size, channels, px, needed, &needed, w, h));
    free(data);
    return px;
}

Test(codec, every_format_decodes_to_the_pattern)
{
    int skipped = 0;
    for (size_t i = 0; i < FILE_COUNT; i++) {
        const image_file *f = &files[i];
        int32_t w = 0, h = 0;
        uint8_t *px = decode(f, 3, &w, &h);
        if (!px) {
            cr_log_warn("skip %s: this build has no %s", f->name, f->library);
            skipped++;
            continue;
        }
        cr_assert(w == W && h == H, "%s: %dx%d", f->name, (int)w, (int)h);
        long total_error = 0;
        int worst = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                uint8_t want[3];
                pattern_pixel(x, y, want);
                for (int c = 0; c < 3; c++) {
                    int expected = f->gray ? want[0] : want[c];
                    int d = abs(px[(y * W + x) * 3 + c] - expected);
                    total_error += d;
                    worst = d > worst ? d : worst;
                    if (!f->lossy)
                        cr_expect_eq(d, 0, "%s: pixel (%d, %d) channel %d is %d, expected %d",
                                     f->name, x, y, c, px[(y * W + x) * 3 + c], expected);
                }
            }
        /* Quality 95 on a 7x5 pattern of sharp steps: a few levels on
         * average (lossy WebP, always 4:2:0 chroma, a few more). */
        if (f->lossy)
            cr_expect(total_error <= (long)f->lossy * W * H * 3, "%s: mean error %.1f (worst %d)",
                      f->name, (double)total_error / (W * H * 3), worst);
        free(px);
    }
    if (skipped)
        cr_log_warn("%d file(s) skipped for missing libraries", skipped);
}

Test(codec, one_channel_is_pil_luma)
{
    for (size_t i = 0; i < FILE_COUNT; i++) {
        const image_file *f = &files[i];
        if (f->lossy)
            continue;
        int32_t w = 0, h = 0;
        uint8_t *px = decode(f, 1, &w, &h);
        if (!px)
            continue;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                uint8_t c[3];
                pattern_pixel(x, y, c);
                /* convert("L"): 601 weights in 16-bit fixed point */
                unsigned want =
                    f->gray ? c[0] : (c[0] * 19595u + c[1] * 38470u + c[2] * 7471u + 0x8000u) >> 16;
                cr_expect_eq(px[y * W + x], want, "%s: luma at (%d, %d) is %d, expected %u",
                             f->name, x, y, px[y * W + x], want);
            }
        free(px);
    }
}

Test(codec, two_call_pattern_and_argument_errors)
{
    size_t size = 0, needed = 0;
    uint8_t *data = load("pattern.bmp", &size);
    int32_t w = 0, h = 0;
    KT_OK(kiln_image_decode(data, size, 3, NULL, 0, &needed, &w, &h));
    cr_assert(w == W && h == H && needed == W * H * 3);
    KT_OK(kiln_image_decode(data, size, 1, NULL, 0, NULL, &w, &h)); /* needed may be NULL */
    uint8_t px[W * H * 3 + 8];
    needed = 0;
    KT_FAILS(kiln_image_decode(data, size, 3, px, W * H * 3 - 1, &needed, &w, &h),
             KILN_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(needed, W * H * 3, "needed is set on BUFFER_TOO_SMALL");
    KT_OK(kiln_image_decode(data, size, 3, px, sizeof px, NULL, &w, &h)); /* a larger buffer */
    KT_FAILS(kiln_image_decode(NULL, size, 3, NULL, 0, NULL, &w, &h), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_image_decode(data, size, 3, NULL, 0, NULL, NULL, &h), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_image_decode(data, size, 2, NULL, 0, NULL, &w, &h), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_image_decode(data, 0, 3, NULL, 0, NULL, &w, &h), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_image_decode("GIF89a", 6, 3, NULL, 0, NULL, &w, &h), KILN_ERR_INVALID_ARGUMENT);
    char msg[512];
    last_error(msg, sizeof msg);
    cr_expect(strstr(msg, "unrecognised image format"), "message: %s", msg);
    free(data);
}

/* The message after a failed decode names the format. */
static void expect_named_failure(const image_file *f, int32_t rc, const char *what)
{
    char msg[512];
    last_error(msg, sizeof msg);
    cr_expect(rc == KILN_ERR_INVALID_ARGUMENT || rc == KILN_ERR_UNSUPPORTED || rc == KILN_ERR_LIMIT,
              "%s %s: status %d (%s)", f->name, what, (int)rc, msg);
    char want[64];
    snprintf(want, sizeof want, "kiln_image_decode: %s image", f->format);
    cr_expect(strstr(msg, want) || strstr(msg, "unrecognised image format") ||
                  strstr(msg, "is empty"),
              "%s %s: message '%s' does not name the format", f->name, what, msg);
}

Test(codec, every_truncation_fails_cleanly)
{
    for (size_t i = 0; i < FILE_COUNT; i++) {
        const image_file *f = &files[i];
        size_t size = 0;
        uint8_t *data = load(f->name, &size);
        if (!supported(f, data, size)) {
            free(data);
            continue;
        }
        uint8_t *px = malloc(W * H * 3);
        for (size_t n = 1; n < size; n++) {
            /* A copy of exactly n bytes, so ASan sees any read past it. */
            uint8_t *cut = malloc(n);
            memcpy(cut, data, n);
            int32_t w = 0, h = 0;
            int32_t rc = kiln_image_decode(cut, n, 3, NULL, 0, NULL, &w, &h);
            if (rc == KILN_OK && w == W && h == H)
                rc = kiln_image_decode(cut, n, 3, px, W * H * 3, NULL, &w, &h);
            /* JPEG 2000 is progressive by design: a codestream cut after
             * its first layers decodes (at lower quality), as OpenJPEG
             * allows. Every other format must refuse a cut file. */
            if (rc != KILN_OK)
                expect_named_failure(f, rc, "cut short");
            else
                cr_expect(strcmp(f->format, "JPEG 2000") == 0, "%s cut to %zu of %zu bytes decoded",
                          f->name, n, size);
            free(cut);
        }
        free(px);
        free(data);
    }
}

Test(codec, every_corrupted_byte_fails_cleanly_or_decodes)
{
    for (size_t i = 0; i < FILE_COUNT; i++) {
        const image_file *f = &files[i];
        size_t size = 0;
        uint8_t *data = load(f->name, &size);
        if (!supported(f, data, size)) {
            free(data);
            continue;
        }
        for (size_t at = 0; at < size; at++)
            for (int flip = 0; flip < 2; flip++) {
                uint8_t *bad = malloc(size);
                memcpy(bad, data, size);
                bad[at] = flip ? (uint8_t)~bad[at] : (uint8_t)(bad[at] + 1);
                int32_t w = 0, h = 0;
                size_t needed = 0;
                int32_t rc = kiln_image_decode(bad, size, 3, NULL, 0, &needed, &w, &h);
                /* Decode whatever the header now claims, if it is small. */
                if (rc == KILN_OK && needed <= ((size_t)1 << 20)) {
                    uint8_t *px = malloc(needed);
                    rc = kiln_image_decode(bad, size, 3, px, needed, NULL, &w, &h);
                    free(px);
                }
                if (rc != KILN_OK) {
                    char msg[512];
                    last_error(msg, sizeof msg);
                    cr_expect(rc != KILN_ERR_INTERNAL && strlen(msg) > 0,
                              "%s with byte %zu changed: status %d (%s)", f->name, at, (int)rc,
                              msg);
                }
                free(bad);
            }
        free(data);
    }
}

Test(codec, a_huge_header_is_refused_before_any_pixel_memory)
{
    /* pattern.jpg with its frame header (SOF0) claiming 60000 x 60000:
     * 3.6 G pixels, past the 2^28 limit, refused at the probe. */
    const image_file *f = &files[6];
    size_t size = 0;
    uint8_t *data = load(f->name, &size);
    if (!supported(f, data, size)) {
        free(data);
        cr_skip_test("this build has no libjpeg");
    }
    size_t sof = 0;
    for (size_t i = 2; i + 9 < size && !sof; i++)
        if (data[i] == 0xFF && data[i + 1] == 0xC0)
            sof = i;
    cr_assert(sof, "no SOF0 marker in pattern.jpg");
    data[sof + 5] = data[sof + 7] = 0xEA; /* 0xEA60 = 60000 */
    data[sof + 6] = data[sof + 8] = 0x60;
    int32_t w = 0, h = 0;
    KT_FAILS(kiln_image_decode(data, size, 3, NULL, 0, NULL, &w, &h), KILN_ERR_LIMIT);
    char msg[512];
    last_error(msg, sizeof msg);
    cr_expect(strstr(msg, "60000x60000"), "message: %s", msg);
    free(data);
}
