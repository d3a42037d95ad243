/* Resize (opset 10 on) and Upsample (7, 9) on the GPU (resize.cu): nearest
 * with the four nearest_modes for any dtype of 1, 2, 4 or 8 bytes; linear
 * (bilinear, trilinear, over any axes) and cubic on float32; the
 * coordinate transforms half_pixel, half_pixel_symmetric,
 * pytorch_half_pixel, align_corners, asymmetric and tf_half_pixel_for_nn;
 * scales or sizes (with the stretch policy) and opset 18's axes.
 * Declined, so the CPU kernel serves them: tf_crop_and_resize (its roi and
 * extrapolation), antialias, exclude_outside, the not_larger / not_smaller
 * aspect policies, and scales or sizes computed at run time.
 * The output shape comes from the CPU kernel's prepare, so both backends
 * read the many forms of scales and sizes alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda/cuda_kernels.h"
#include "core/cuda/xy_kernel.h"

static int lookup(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* The node's interpolation and coordinate rules into p, or KN_ERR_DECLINE
 * for those left to the CPU. Opset 10 and Upsample behave as the CPU
 * kernel reads them (ONNX's version converter): asymmetric, rounding down. */
static int read_modes(kn_kctx *k, int upsample, kn_cuda_resize *p)
{
    /* in the order of device_params.h's KN_CUDA_CT_* and KN_CUDA_NM_* */
    static const char *const transforms[] = {"half_pixel",         "half_pixel_symmetric",
                                             "pytorch_half_pixel", "align_corners",
                                             "asymmetric",         "tf_half_pixel_for_nn"};
    static const char *const roundings[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                            "ceil"};
    const char *mode = kn_attr_string(k->node, "mode", "nearest");
    int newer = !upsample && k->opset >= 11;
    if (strcmp(mode, "nearest") == 0)
        p->mode = KN_CUDA_RS_NEAREST;
    else if (strcmp(mode, "linear") == 0 || strcmp(mode, "bilinear") == 0)
        p->mode = KN_CUDA_RS_LINEAR;
    else if (newer && strcmp(mode, "cubic") == 0)
        p->mode = KN_CUDA_RS_CUBIC;
    else
        return KN_ERR_DECLINE;
    p->ctm = KN_CUDA_CT_ASYMMETRIC;
    p->nearest_mode = KN_CUDA_NM_FLOOR;
    p->cubic_a = -0.75;
    if (!newer)
        return KN_OK;
    p->ctm = lookup(kn_attr_string(k->node, "coordinate_transformation_mode", "half_pixel"),
                    transforms, 6);
    p->nearest_mode =
        lookup(kn_attr_string(k->node, "nearest_mode", "round_prefer_floor"), roundings, 4);
    p->cubic_a = kn_attr_float(k->node, "cubic_coeff_a", -0.75f);
    if (p->ctm < 0 || p->nearest_mode < 0 || kn_attr_int(k->node, "exclude_outside", 0) != 0 ||
        (k->opset >= 18 && kn_attr_int(k->node, "antialias", 0) != 0 &&
         p->mode != KN_CUDA_RS_NEAREST) ||
        strcmp(kn_attr_string(k->node, "keep_aspect_ratio_policy", "stretch"), "stretch") != 0)
        return KN_ERR_DECLINE;
    return KN_OK;
}

/* A constant input's values as doubles: 1 and *n set when given, 0 when
 * omitted or empty (ONNX's "not given"), -1 when only known at run time. */
static int const_values(kn_kctx *k, int32_t i, double *v, int32_t cap, int32_t *n)
{
    const kn_tensor *t = i < k->n_in ? k->in[i] : NULL;
    if (!t || kn_tensor_numel(t) == 0)
        return 0;
    if (!t->data || kn_tensor_numel(t) > cap)
        return -1;
    *n = (int32_t)kn_tensor_numel(t);
    for (int32_t j = 0; j < *n; j++)
        v[j] = kn_read_double(t, j);
    return 1;
}

/* Each axis's scale and real-valued output length: from the scales, or
 * from the sizes the CPU kernel has already turned into y's dims. */
static int read_scales(kn_kctx *k, int upsample, kn_cuda_resize *p)
{
    const kn_tensor *x = k->in[0], *y = k->out[0];
    int32_t axes[KN_MAX_RANK], naxes = x->rank, nsc = 0, nsz = 0;
    double sc[KN_MAX_RANK], sz[KN_MAX_RANK];
    for (int32_t d = 0; d < x->rank; d++)
        axes[d] = d;
    int32_t nattr = 0;
    const int64_t *ax = !upsample && k->opset >= 18 ? kn_attr_ints(k->node, "axes", &nattr) : NULL;
    if (ax) {
        naxes = nattr;
        for (int32_t i = 0; i < naxes; i++)
            if ((axes[i] = kn_norm_axis(ax[i], x->rank, k->err)) < 0)
                return KN_ERR_DECLINE; /* the CPU kernel has accepted it: cannot happen */
    }
    int has_sc, has_sz = 0;
    if (upsample && k->opset < 9) {
        const float *f = kn_attr_floats(k->node, "scales", &nsc);
        has_sc = f && nsc <= KN_MAX_RANK;
        for (int32_t i = 0; has_sc && i < nsc; i++)
            sc[i] = f[i];
    } else {
        has_sc = const_values(k, upsample || k->opset < 11 ? 1 : 2, sc, KN_MAX_RANK, &nsc);
        if (!upsample && k->opset >= 11)
            has_sz = const_values(k, 3, sz, KN_MAX_RANK, &nsz);
    }
    if (has_sc < 0 || has_sz < 0 || has_sc + has_sz != 1 || (has_sc ? nsc : nsz) != naxes)
        return KN_ERR_DECLINE;
    for (int32_t d = 0; d < x->rank; d++) {
        p->scale[d] = 1;
        p->width[d] = (double)x->dims[d];
    }
    for (int32_t i = 0; i < naxes; i++) {
        int32_t d = axes[i];
        if (has_sc) {
            p->scale[d] = sc[i];
            p->width[d] = sc[i] * (double)x->dims[d];
        } else if (x->dims[d] > 0) {
            p->scale[d] = (double)y->dims[d] / (double)x->dims[d];
            p->width[d] = (double)y->dims[d];
        }
    }
    return KN_OK;
}

static int resize_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    const kn_tensor *x = k->in[0];
    int upsample = strcmp(k->node->op_type, "Upsample") == 0;
    if (!x || x->rank < 1 || x->rank > KN_CUDA_MAX_DIMS || x->dtype == KN_STRING ||
        x->dtype <= KN_UNDEFINED || x->dtype >= KN_DTYPE_COUNT)
        return KN_ERR_DECLINE;
    kn_cuda_resize p;
    memset(&p, 0, sizeof p);
    int rc = read_modes(k, upsample, &p);
    if (rc != KN_OK)
        return rc;
    size_t es = kn_dtype_size(x->dtype);
    if (p.mode == KN_CUDA_RS_NEAREST ? !(es == 1 || es == 2 || es == 4 || es == 8)
                                     : x->dtype != KN_FLOAT)
        return KN_ERR_DECLINE;
    if ((rc = kn_cuda_shapes_from_cpu(k)) != KN_OK || (rc = read_scales(k, upsample, &p)) != KN_OK)
        return rc;
    const kn_tensor *y = k->out[0];
    p.n = kn_tensor_numel(y);
    p.rank = x->rank;
    int64_t stride = 1;
    for (int32_t d = x->rank - 1; d >= 0; d--) {
        p.in_dims[d] = x->dims[d];
        p.out_dims[d] = y->dims[d];
        p.in_stride[d] = stride;
        stride *= x->dims[d];
        /* An axis of unchanged length and scale 1 reads index o for output
         * o under every transform but tf_half_pixel_for_nn (which shifts by
         * half an element): no coordinate work there. */
        p.moves[d] = !(p.out_dims[d] == p.in_dims[d] && p.scale[d] == 1.0 &&
                       p.ctm != KN_CUDA_CT_TF_HALF_PIXEL_FOR_NN);
    }
    char name[40];
    if (p.mode == KN_CUDA_RS_NEAREST)
        snprintf(name, sizeof name, "kn_resize_nearest_%zu", es);
    else
        snprintf(name, sizeof name, "kn_resize_interp_f32");
    return kn_cuda_xy_prepare(k, "resize", name, &p, sizeof p, p.n);
}

const kn_op_def kn_cuda_Resize = {.op_type = "Resize",
                                  .since_version = 10,
                                  .prepare = resize_prepare,
                                  .run = kn_cuda_xy_run,
                                  .release = kn_cuda_xy_release};
const kn_op_def kn_cuda_Upsample = {.op_type = "Upsample",
                                    .since_version = 7,
                                    .until_version = 9,
                                    .prepare = resize_prepare,
                                    .run = kn_cuda_xy_run,
                                    .release = kn_cuda_xy_release};
