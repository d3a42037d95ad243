/* PNG through libpng's progressive-free low-level API, with the
 * transformations that give what PIL's convert("RGB") gives (ONNX's
 * reference): palette and low-bit gray expanded, 16-bit samples cut to
 * their high byte, gray repeated into R, G and B, alpha dropped without
 * compositing, gAMA ignored. (libpng's simplified API would composite
 * and gamma-correct, so it is not used.)
 *
 * libpng reports errors through on_error, which longjmps back to the
 * setjmp in run(). */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <png.h>

#include "core/codec/codec_format.h"

typedef struct png_ctx {
    const uint8_t *p;
    size_t n, pos;
    char msg[200];
} png_ctx;

static void on_error(png_structp png, png_const_charp msg)
{
    png_ctx *ctx = png_get_error_ptr(png);
    snprintf(ctx->msg, sizeof ctx->msg, "%s", msg);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png; /* ancillary-chunk trouble: libpng skips the chunk */
    (void)msg;
}

/* Reads past the end are errors, never out-of-bounds reads. */
static void on_read(png_structp png, png_bytep out, size_t len)
{
    png_ctx *ctx = png_get_io_ptr(png);
    if (len > ctx->n - ctx->pos)
        png_error(png, "truncated data");
    memcpy(out, ctx->p + ctx->pos, len);
    ctx->pos += len;
}

static int run(const uint8_t *p, size_t n, kn_image_job *j, kn_err *err)
{
    png_ctx ctx = {.p = p, .n = n};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "no memory for the decoder");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "%s", ctx.msg);
    }
    png_set_read_fn(png, &ctx, on_read);
    png_read_info(png, info);
    j->w = png_get_image_width(png, info);
    j->h = png_get_image_height(png, info);
    if (j->rgb) {
        int type = png_get_color_type(png, info);
        png_set_strip_16(png);
        png_set_packing(png);
        if (type == PNG_COLOR_TYPE_PALETTE)
            png_set_palette_to_rgb(png);
        if (type == PNG_COLOR_TYPE_GRAY || type == PNG_COLOR_TYPE_GRAY_ALPHA) {
            png_set_expand_gray_1_2_4_to_8(png);
            png_set_gray_to_rgb(png);
        }
        png_set_strip_alpha(png);
        int passes = png_set_interlace_handling(png);
        png_read_update_info(png, info);
        if (png_get_rowbytes(png, info) != (size_t)j->w * 3)
            png_error(png, "unexpected row size after conversion to RGB");
        for (int pass = 0; pass < passes; pass++)
            for (int64_t y = 0; y < j->h; y++)
                png_read_row(png, j->rgb + (size_t)y * (size_t)j->w * 3, NULL);
        png_read_end(png, NULL);
    }
    png_destroy_read_struct(&png, &info, NULL);
    return KN_OK;
}

const kn_codec kn_codec_png = {.name = "PNG", .library = "libpng", .read = run};
