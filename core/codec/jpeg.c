/* JPEG through libjpeg (libjpeg-turbo on Debian): baseline and
 * progressive, gray or YCbCr, decoded to RGB with the library's defaults
 * (ISLOW integer IDCT, fancy upsampling) -- what PIL does, and so what
 * ONNX's reference outputs hold. CMYK/YCCK files fail as unsupported.
 *
 * libjpeg reports errors by calling error_exit, which must not return:
 * it longjmps back to the setjmp in run(). Nothing run() needs after the
 * jump lives in a local it changed, so no local needs volatile. */
#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE */
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

#include "core/codec/codec_format.h"

typedef struct jpeg_ctx {
    struct jpeg_error_mgr mgr; /* first, so the library's pointer is ours */
    jmp_buf jump;
    char msg[JMSG_LENGTH_MAX];
} jpeg_ctx;

static void on_error(j_common_ptr cinfo)
{
    jpeg_ctx *ctx = (jpeg_ctx *)cinfo->err;
    ctx->mgr.format_message(cinfo, ctx->msg);
    longjmp(ctx->jump, 1);
}

/* Warnings (level -1) are corrupt data the library would paper over with
 * gray; a truncated file is one. Decoding it would be a silent wrong
 * answer, so the first one stops the decode. Trace messages are dropped:
 * the library never prints. */
static void on_message(j_common_ptr cinfo, int level)
{
    if (level < 0)
        on_error(cinfo);
}

static int run(const uint8_t *p, size_t n, kn_image_job *j, kn_err *err)
{
    struct jpeg_decompress_struct cinfo;
    jpeg_ctx ctx;
    cinfo.err = jpeg_std_error(&ctx.mgr);
    ctx.mgr.error_exit = on_error;
    ctx.mgr.emit_message = on_message;
    ctx.msg[0] = 0;
    if (setjmp(ctx.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "%s", ctx.msg);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, p, (unsigned long)n);
    jpeg_read_header(&cinfo, TRUE);
    if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
        jpeg_destroy_decompress(&cinfo);
        return kn_fail(err, KN_ERR_UNSUPPORTED, "CMYK JPEG is not supported");
    }
    j->w = cinfo.image_width;
    j->h = cinfo.image_height;
    if (j->rgb) {
        cinfo.out_color_space = JCS_RGB;
        jpeg_start_decompress(&cinfo);
        if (cinfo.output_width != j->w || cinfo.output_height != j->h ||
            cinfo.output_components != 3) {
            jpeg_destroy_decompress(&cinfo);
            return kn_fail(err, KN_ERR_INTERNAL, "decoder output is %ux%u with %d components",
                           (unsigned)cinfo.output_width, (unsigned)cinfo.output_height,
                           cinfo.output_components);
        }
        while (cinfo.output_scanline < cinfo.output_height) {
            JSAMPROW row = j->rgb + (size_t)cinfo.output_scanline * (size_t)j->w * 3;
            jpeg_read_scanlines(&cinfo, &row, 1);
        }
        jpeg_finish_decompress(&cinfo);
    }
    jpeg_destroy_decompress(&cinfo);
    return KN_OK;
}

const kn_codec kn_codec_jpeg = {.name = "JPEG", .library = "libjpeg", .read = run};
