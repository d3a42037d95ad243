/* ImageDecoder (opset 20): an encoded image (1-D uint8) to [H, W, C]
 * uint8 pixels, C = 3 for pixel_format RGB or BGR, 1 for Grayscale.
 *
 * Only the op's glue lives here; core/codec/ decodes (which formats, how
 * gray is computed and what fails how: core/codec/codec.h). The output
 * shape comes from the image header, so prepare() needs the bytes
 * (KN_ERR_NEEDS_VALUE otherwise). */
#include <string.h>

#include "core/codec/codec.h"
#include "core/kernel/tensor_common.h"

enum { OUT_RGB, OUT_BGR, OUT_GRAY };

static const char *const op = "ImageDecoder";

static int pixel_format(const kn_kctx *k)
{
    const char *fmt = kn_attr_string(k->node, "pixel_format", "RGB");
    return strcmp(fmt, "RGB") == 0         ? OUT_RGB
           : strcmp(fmt, "BGR") == 0       ? OUT_BGR
           : strcmp(fmt, "Grayscale") == 0 ? OUT_GRAY
                                           : -1;
}

static int decoder_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    if (x->dtype != KN_UINT8 || x->rank != 1)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: encoded_stream must be 1-D uint8", op);
    int out = pixel_format(k);
    if (out < 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "%s: pixel_format must be RGB, BGR or "
                       "Grayscale, not '%s'",
                       op, kn_attr_string(k->node, "pixel_format", ""));
    if (!x->data)
        return kn_fail(k->err, KN_ERR_NEEDS_VALUE,
                       "%s: output shape depends on the value of input 'encoded_stream'", op);
    int64_t w = 0, h = 0;
    if (kn_image_probe(x->data, (size_t)x->dims[0], &w, &h, k->err) != KN_OK) {
        kn_err_prefix(k->err, "%s", op);
        return k->err->code;
    }
    kn_tensor *y = k->out[0];
    y->dtype = KN_UINT8;
    y->rank = 3;
    y->dims[0] = h;
    y->dims[1] = w;
    y->dims[2] = out == OUT_GRAY ? 1 : 3;
    return KN_OK;
}

static int decoder_run(kn_kctx *k)
{
    const kn_tensor *x = k->in[0];
    const kn_tensor *y = k->out[0];
    int out = pixel_format(k);
    size_t count = (size_t)y->dims[0] * (size_t)y->dims[1];
    /* The probe in prepare() fixed the output's size; a stream that no
     * longer matches it fails the byte-count check in kn_image_decode. */
    if (kn_image_decode(x->data, (size_t)x->dims[0], (int)y->dims[2], y->data,
                        count * (size_t)y->dims[2], k->err) != KN_OK) {
        kn_err_prefix(k->err, "%s", op);
        return k->err->code;
    }
    if (out == OUT_BGR)
        for (uint8_t *px = y->data; count--; px += 3) {
            uint8_t r = px[0];
            px[0] = px[2];
            px[2] = r;
        }
    return KN_OK;
}

const kn_op_def kn_op_ImageDecoder = {.op_type = "ImageDecoder",
                                      .since_version = 20,
                                      .dtypes = KN_BIT(KN_UINT8),
                                      .prepare = decoder_prepare,
                                      .run = decoder_run};
