/* JPEG 2000 through libopenjp2: JP2 files and bare J2K codestreams, one or
 * two components (gray, gray + alpha) or three or more (R, G, B, extra
 * ones dropped), all at full resolution. Samples of other precisions are
 * scaled to 8 bits; signed samples are shifted to unsigned. Subsampled
 * components (YCbCr 4:2:0 codestreams) fail as unsupported. */
#include <stdio.h>
#include <string.h>

#include <openjpeg.h>

#include "core/codec/codec_format.h"

typedef struct j2k_ctx {
    const uint8_t *p;
    size_t n, pos;
    char msg[200];
} j2k_ctx;

/* ---- a memory stream: every read bounded by the data ---- */

static OPJ_SIZE_T on_read(void *out, OPJ_SIZE_T len, void *user)
{
    j2k_ctx *c = user;
    size_t left = c->n - c->pos;
    if (left == 0)
        return (OPJ_SIZE_T)-1; /* end of stream */
    len = len < left ? len : left;
    memcpy(out, c->p + c->pos, len);
    c->pos += len;
    return len;
}

static OPJ_OFF_T on_skip(OPJ_OFF_T len, void *user)
{
    j2k_ctx *c = user;
    if (len < 0 ? (size_t)-len > c->pos : (uint64_t)len > c->n - c->pos)
        return -1;
    c->pos = (size_t)((OPJ_OFF_T)c->pos + len);
    return len;
}

static OPJ_BOOL on_seek(OPJ_OFF_T to, void *user)
{
    j2k_ctx *c = user;
    if (to < 0 || (uint64_t)to > c->n)
        return OPJ_FALSE;
    c->pos = (size_t)to;
    return OPJ_TRUE;
}

/* The first error message is kept for the caller; warnings and info are
 * dropped (the library never prints). */
static void on_error(const char *msg, void *user)
{
    j2k_ctx *c = user;
    if (!c->msg[0]) {
        snprintf(c->msg, sizeof c->msg, "%s", msg);
        size_t len = strlen(c->msg);
        while (len && (c->msg[len - 1] == '\n' || c->msg[len - 1] == ' '))
            c->msg[--len] = 0;
    }
}

static void on_quiet(const char *msg, void *user)
{
    (void)msg;
    (void)user;
}

/* ---- components to R, G, B ---- */

static uint8_t to_8bit(const opj_image_comp_t *c, OPJ_INT32 v)
{
    if (c->sgnd)
        v += 1 << (c->prec - 1);
    int64_t max = ((int64_t)1 << c->prec) - 1;
    v = v < 0 ? 0 : v > max ? (OPJ_INT32)max : v;
    if (c->prec == 8)
        return (uint8_t)v;
    return c->prec > 8 ? (uint8_t)(v >> (c->prec - 8)) : (uint8_t)((v * 255 + max / 2) / max);
}

static int check_components(const opj_image_t *img, int64_t w, int64_t h, kn_err *err)
{
    if (img->numcomps == 0)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "no components");
    if (img->color_space == OPJ_CLRSPC_SYCC || img->color_space == OPJ_CLRSPC_CMYK ||
        img->color_space == OPJ_CLRSPC_EYCC)
        return kn_fail(err, KN_ERR_UNSUPPORTED, "only RGB and gray JPEG 2000 are supported");
    unsigned used = img->numcomps >= 3 ? 3 : 1;
    for (unsigned i = 0; i < used; i++) {
        const opj_image_comp_t *c = &img->comps[i];
        if (c->dx != 1 || c->dy != 1 || c->w != w || c->h != h || c->factor != 0)
            return kn_fail(err, KN_ERR_UNSUPPORTED, "component %u is subsampled", i);
        if (c->prec < 1 || c->prec > 31)
            return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "component %u has %u-bit samples", i,
                           (unsigned)c->prec);
        if (!c->data)
            return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "component %u was not decoded", i);
    }
    return KN_OK;
}

static void to_rgb(const opj_image_t *img, size_t count, uint8_t *rgb)
{
    int gray = img->numcomps < 3;
    for (size_t i = 0; i < count; i++, rgb += 3)
        for (int k = 0; k < 3; k++) {
            const opj_image_comp_t *c = &img->comps[gray ? 0 : k];
            rgb[k] = to_8bit(c, c->data[i]);
        }
}

/* ---- decode ---- */

static int run(const uint8_t *p, size_t n, kn_image_job *j, kn_err *err)
{
    j2k_ctx ctx = {.p = p, .n = n};
    int jp2 = n >= 4 && memcmp(p, "\xff\x4f\xff\x51", 4) != 0;
    opj_codec_t *codec = opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
    opj_stream_t *stream = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE);
    opj_image_t *img = NULL;
    int rc = KN_OK;
    if (!codec || !stream) {
        rc = kn_fail(err, KN_ERR_OUT_OF_MEMORY, "no memory for the decoder");
        goto done;
    }
    opj_set_error_handler(codec, on_error, &ctx);
    opj_set_warning_handler(codec, on_quiet, &ctx);
    opj_set_info_handler(codec, on_quiet, &ctx);
    opj_stream_set_user_data(stream, &ctx, NULL);
    opj_stream_set_user_data_length(stream, n);
    opj_stream_set_read_function(stream, on_read);
    opj_stream_set_skip_function(stream, on_skip);
    opj_stream_set_seek_function(stream, on_seek);
    opj_dparameters_t params;
    opj_set_default_decoder_parameters(&params);
    if (!opj_setup_decoder(codec, &params) || !opj_read_header(stream, codec, &img) || !img) {
        rc = kn_fail(err, KN_ERR_INVALID_ARGUMENT, "bad header: %s",
                     ctx.msg[0] ? ctx.msg : "unreadable");
        goto done;
    }
    j->w = (int64_t)img->x1 - img->x0;
    j->h = (int64_t)img->y1 - img->y0;
    if (!j->rgb || j->w <= 0 || j->h <= 0)
        goto done; /* the dispatcher rejects non-positive sizes */
    if (!opj_decode(codec, stream, img) || !opj_end_decompress(codec, stream)) {
        rc = kn_fail(err, KN_ERR_INVALID_ARGUMENT, "%s", ctx.msg[0] ? ctx.msg : "decoding failed");
        goto done;
    }
    rc = check_components(img, j->w, j->h, err);
    if (rc == KN_OK)
        to_rgb(img, (size_t)j->w * (size_t)j->h, j->rgb);
done:
    opj_image_destroy(img);
    opj_stream_destroy(stream);
    opj_destroy_codec(codec);
    return rc;
}

const kn_codec kn_codec_jpeg2000 = {.name = "JPEG 2000", .library = "libopenjp2", .read = run};
