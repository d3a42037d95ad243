/* CenterCropPad (opset 18): crops or zero-pads the chosen axes (all by
 * default) to the requested sizes, keeping the content centred; an odd
 * difference puts the extra element at the end. It is Pad in constant
 * mode with pads (cropping: negative) derived from the sizes, so it runs
 * on Pad's engine (image_pad.h). The shape input decides the output shape:
 * KN_ERR_NEEDS_VALUE when it is not known at prepare time. */
#include <string.h>

#include "core/cpu/image/image_common.h"
#include "core/cpu/image/image_pad.h"

static int ccp_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    int32_t rank = x->rank, axes[KN_MAX_RANK], naxes = rank, nshape;
    int64_t shape[KN_MAX_RANK], begin[KN_MAX_RANK] = {0}, end[KN_MAX_RANK] = {0};
    int rc = img_const_ints(k, 1, "shape", shape, KN_MAX_RANK, &nshape);
    if (rc != KN_OK)
        return rc;
    const int64_t *ax = kn_attr_ints(k->node, "axes", &naxes);
    if (ax) {
        if (naxes > rank)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "CenterCropPad: %d axes for rank %d",
                           (int)naxes, (int)rank);
        if (kn_norm_axes(k, ax, naxes, rank, 1, axes) != KN_OK)
            return k->err->code;
    } else {
        naxes = rank;
        for (int32_t d = 0; d < rank; d++)
            axes[d] = d;
    }
    if (nshape != naxes)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "CenterCropPad: shape has %d values for %d axes", (int)nshape, (int)naxes);
    for (int32_t i = 0; i < naxes; i++) {
        int32_t d = axes[i];
        if (shape[i] < 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "CenterCropPad: size %lld for axis %d",
                           (long long)shape[i], (int)d);
        int64_t diff = shape[i] - x->dims[d]; /* > 0 pads, < 0 crops */
        int64_t small = (diff < 0 ? -diff : diff) / 2;
        begin[d] = diff < 0 ? -small : small;
        end[d] = diff - begin[d];
    }
    unsigned char zero[16] = {0};
    return img_pad_plan(k, "CenterCropPad", IMG_PAD_CONSTANT, begin, end, zero, -1);
}

const kn_op_def kn_op_centercroppad_18 = {
    .op_type = "CenterCropPad", .since_version = 18, .dtypes = KN_MASK_ANY_FIXED,
    .prepare = ccp_prepare, .run = img_pad_run, .release = img_pad_release
};
