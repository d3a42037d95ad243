/* Integer convolution on oneDNN: QLinearConv (2-D, NCHW), kiln.QFusedConv
 * (QLinearConv with a quantized residual Z and an activation before the
 * requantization, core/cpu/quant/qlinear.c) and kiln.NhwcQLinearConv
 * (QFusedConv with X, Z and Y NHWC, written by the layout pass). uint8 or
 * int8 activations, int8 weights per tensor or per output channel, int32
 * bias, uint8 or int8 output:
 *
 *     y = saturate(round((sum (x - zx) * w + b) * sx * sw[c] / sy) + zy)
 *
 * and with the epilogue
 *
 *     y = saturate(round(act(sx sw[c] acc + sz (z - zz)) / sy) + zy)
 *
 * Z is a sum post-op (with its zero point and its own 8-bit type): Z is
 * copied into Y, or the planner puts Y over a Z read for the last time
 * (KN_OP_INPLACE_Z), and the convolution accumulates onto it. Relu (or
 * none) commutes with the positive scale 1 / sy, so the output scales stay
 * sx sw / sy and Z's is sz / sy; any other activation needs real values:
 * the output scales are then sx sw, Z's sz, and an eltwise linear post-op
 * multiplies by 1 / sy after the activation. A residual block's addition
 * and its Relu, or EfficientNet's SiLU, then cost no pass over memory of
 * their own.
 *
 * oneDNN's int8 kernels (AVX512-VNNI / AMX where the CPU has them) do the
 * whole of it: the accumulation in int32, the bias, the per-channel output
 * scale sx * sw / sy, and the zero points as attributes (the source's with
 * its compensation for padded borders). Scales and zero points must be
 * constants, the weights' zero points all 0 (oneDNN 2.6 takes none for
 * weights); anything else declines to the CPU kernel, which computes the
 * same formula in double. oneDNN multiplies in float: a result may differ
 * from the CPU kernel's by one step where the product sits at a rounding
 * tie, as between any two int8 runtimes. */
#include <stdlib.h>
#include <string.h>

#include "core/dnnl/dnnl_conv_geometry.h"
#include "core/dnnl/dnnl_int8.h"
#include "core/kernel/fused_common.h"

enum { IN_X, IN_XS, IN_XZ, IN_W, IN_WS, IN_WZ, IN_YS, IN_YZ, IN_B, IN_Z, IN_ZS, IN_ZZ };

typedef struct qconv_state {
    kn_dnnl_prim prim; /* first: the state is kn_dnnl_prepare's */
    int has_z;
    size_t y_bytes;
} qconv_state;

static int q8_type(int32_t dt, dnnl_data_type_t *t)
{
    *t = dt == KN_UINT8 ? dnnl_u8 : dnnl_s8;
    return dt == KN_UINT8 || dt == KN_INT8;
}

static int32_t zero_point(const kn_tensor *z)
{
    return z->dtype == KN_INT8 ? (int32_t)((const int8_t *)z->data)[0]
                               : (int32_t)((const uint8_t *)z->data)[0];
}

static int is_const_scalar(const kn_tensor *t, int32_t dtype)
{
    return t && t->data && t->dtype == dtype && kn_tensor_numel(t) == 1;
}

static const kn_tensor *residual(const kn_kctx *k) { return k->n_in > IN_Z ? k->in[IN_Z] : NULL; }

/* *pd with the requantization: output scale sx * sw[c] / sy per channel
 * (or one), the zero points of X and Y; the epilogue as the header says. */
static int qconv_pd(kn_kctx *k, kn_dnnl_prim *p, const dnnl_convolution_desc_t *cd,
                    const kn_activation *act, dnnl_data_type_t zt, dnnl_primitive_desc_t *pd)
{
    const kn_tensor *ws = k->in[IN_WS], *z = residual(k);
    int64_t n_ws = kn_tensor_numel(ws);
    float sx = *(const float *)k->in[IN_XS]->data, sy = *(const float *)k->in[IN_YS]->data;
    int real = act->kind != KN_ACT_NONE && act->kind != KN_ACT_RELU;
    float to_out = real ? 1.0f : 1.0f / sy;
    kn_dnnl_int8_post post = {.act = *act, .post_scale = real ? 1.0f / sy : 1.0f};
    if (z) {
        post.with_sum = 1;
        post.sum_scale = *(const float *)k->in[IN_ZS]->data * to_out;
        post.sum_zp = k->n_in > IN_ZZ && k->in[IN_ZZ] ? zero_point(k->in[IN_ZZ]) : 0;
        post.sum_type = zt;
    }
    float *scales = malloc(sizeof(float) * (size_t)n_ws);
    if (!scales)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "QLinearConv: out of memory");
    for (int64_t c = 0; c < n_ws; c++)
        scales[c] =
            real ? sx * ((const float *)ws->data)[c] : sx * ((const float *)ws->data)[c] / sy;
    int rc =
        kn_dnnl_int8_pd(k, p, cd, scales, n_ws, zero_point(k->in[IN_XZ]), zero_point(k->in[IN_YZ]),
                        z || act->kind != KN_ACT_NONE ? &post : NULL, pd);
    free(scales);
    return rc;
}

/* Z's type, and whether its scale and zero point are constant scalars. */
static int residual_served(kn_kctx *k, dnnl_data_type_t *zt)
{
    const kn_tensor *z = residual(k);
    if (!z)
        return 1;
    const kn_tensor *zz = k->n_in > IN_ZZ ? k->in[IN_ZZ] : NULL;
    return q8_type(z->dtype, zt) && k->n_in > IN_ZS && is_const_scalar(k->in[IN_ZS], KN_FLOAT) &&
           (!zz || is_const_scalar(zz, z->dtype));
}

/* What oneDNN's kernel takes; the reason otherwise (CPU kernel serves). */
static const char *unserved(kn_kctx *k, dnnl_data_type_t *xt, dnnl_data_type_t *yt)
{
    if (k->n_in < 8)
        return "inputs missing";
    const kn_tensor *x = k->in[IN_X], *w = k->in[IN_W], *ws = k->in[IN_WS], *wz = k->in[IN_WZ];
    const kn_tensor *b = k->n_in > IN_B ? k->in[IN_B] : NULL;
    if (!x || !w || !ws || !wz || !q8_type(x->dtype, xt) || w->dtype != KN_INT8 || !w->data)
        return "needs uint8/int8 X and constant int8 W";
    if (!is_const_scalar(k->in[IN_XS], KN_FLOAT) || !is_const_scalar(k->in[IN_YS], KN_FLOAT) ||
        !is_const_scalar(k->in[IN_XZ], x->dtype) || !k->in[IN_YZ] || !k->in[IN_YZ]->data ||
        kn_tensor_numel(k->in[IN_YZ]) != 1 || !q8_type(k->in[IN_YZ]->dtype, yt))
        return "needs constant per-tensor scales and zero points for X and Y";
    int64_t cout = w->rank > 0 ? w->dims[0] : 0, n_ws = kn_tensor_numel(ws);
    if (!ws->data || ws->dtype != KN_FLOAT || (n_ws != 1 && n_ws != cout) || !wz->data ||
        wz->dtype != KN_INT8 || kn_tensor_numel(wz) != n_ws)
        return "needs constant float W scales and int8 W zero points";
    for (int64_t i = 0; i < n_ws; i++)
        if (((const int8_t *)wz->data)[i] != 0)
            return "W zero points must be 0";
    if (b && (b->dtype != KN_INT32 || b->rank != 1 || b->dims[0] != cout))
        return "bias must be int32 [C_out]";
    if (x->rank != 4 || w->rank != 4)
        return "2-D convolutions only";
    return NULL;
}

static int qconv_build(kn_kctx *k, kn_dnnl_prim *p, int nhwc, int fused)
{
    qconv_state *st = (qconv_state *)p;
    dnnl_data_type_t xt, yt, zt = dnnl_u8;
    const char *why = unserved(k, &xt, &yt);
    if (why)
        return kn_dnnl_decline(k, why);
    kn_activation act = {0};
    if (fused && kn_fused_activation(k, &act) != KN_OK)
        return kn_dnnl_decline(k, "left to the CPU kernel to report");
    if (!residual_served(k, &zt))
        return kn_dnnl_decline(k, "needs uint8/int8 Z with constant scalar scale and zero point");
    const kn_tensor *x = k->in[IN_X], *w = k->in[IN_W];
    const kn_tensor *b = k->n_in > IN_B ? k->in[IN_B] : NULL;
    int64_t xd[KN_MAX_RANK];
    kn_dnnl_logical_dims(x, nhwc, xd);
    int64_t group = kn_attr_int(k->node, "group", 1), cin = xd[1], cout = w->dims[0];
    if (group < 1 || cin % group || cout % group || w->dims[1] * group != cin)
        return kn_dnnl_decline(k, "left to the CPU kernel to report");
    kn_dnnl_conv_window cw;
    if (kn_dnnl_conv_window_init(k, xd, 4, w, &cw) != KN_OK)
        return KN_ERR_DECLINE;
    kn_tensor *y = k->out[0];
    y->dtype = k->in[IN_YZ]->dtype;
    kn_dnnl_stored_dims(y, 4, cw.yd, nhwc);
    if (kn_dnnl_too_large(y) || kn_dnnl_too_large(x))
        return kn_dnnl_decline(k, "tensor too large for oneDNN");
    const kn_tensor *z = residual(k);
    if (z && !kn_shape_equal(z->dims, z->rank, y->dims, y->rank))
        return kn_dnnl_decline(k, "residual Z does not have Y's shape");
    st->has_z = z != NULL;
    st->y_bytes = (size_t)kn_tensor_nbytes(y);

    int64_t wd[5];
    int32_t wrank = 4;
    if (group > 1) { /* oneDNN's grouped weights (G, O/G, I/G, kh, kw): the same bytes */
        wd[0] = group;
        wd[1] = cout / group;
        memcpy(wd + 2, w->dims + 1, sizeof(int64_t) * 3);
        wrank = 5;
    } else {
        memcpy(wd, w->dims, sizeof(int64_t) * 4);
    }
    dnnl_memory_desc_t xmd, ymd, bmd, wmd_user, wmd_any;
    int rc = kn_dnnl_md_typed(&xmd, 4, xd, xt, nhwc, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_md_typed(&ymd, 4, cw.yd, yt, nhwc, k->err);
    if (rc == KN_OK && b)
        rc = kn_dnnl_md_typed(&bmd, 1, &cout, dnnl_s32, 0, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_md_typed(&wmd_user, wrank, wd, dnnl_s8, 0, k->err);
    dnnl_dims_t wdd;
    for (int32_t i = 0; i < wrank; i++)
        wdd[i] = wd[i];
    if (rc == KN_OK && dnnl_memory_desc_init_by_tag(&wmd_any, wrank, wdd, dnnl_s8,
                                                    dnnl_format_tag_any) != dnnl_success)
        rc = kn_dnnl_decline(k, "weights descriptor");
    dnnl_convolution_desc_t cd;
    if (rc == KN_OK) {
        dnnl_status_t s = dnnl_dilated_convolution_forward_desc_init(
            &cd, dnnl_forward_inference, dnnl_convolution_direct, &xmd, &wmd_any, b ? &bmd : NULL,
            &ymd, cw.strides, cw.dil, cw.pad_l, cw.pad_r);
        if (s != dnnl_success)
            rc = kn_dnnl_fail(k->err, s, "int8 convolution descriptor");
    }
    dnnl_primitive_desc_t pd = NULL;
    if (rc == KN_OK)
        rc = qconv_pd(k, p, &cd, &act, zt, &pd);
    if (rc != KN_OK)
        return rc;
    rc = kn_dnnl_add_arg(p, DNNL_ARG_SRC, KN_DNNL_BIND_INPUT, IN_X, &xmd, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_int8_weights(p, k, IN_W, &wmd_user, pd);
    if (rc == KN_OK && b)
        rc = kn_dnnl_add_arg(p, DNNL_ARG_BIAS, KN_DNNL_BIND_INPUT, IN_B, &bmd, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_add_arg(p, DNNL_ARG_DST, KN_DNNL_BIND_OUTPUT, 0, &ymd, k->err);
    if (rc == KN_OK)
        return kn_dnnl_finish(p, pd, k);
    dnnl_primitive_desc_destroy(pd);
    return rc;
}

static int qconv_prepare(kn_kctx *k)
{
    return kn_dnnl_prepare(k, sizeof(qconv_state), qconv_build, 0, 0);
}

static int qfused_conv_prepare(kn_kctx *k)
{
    return kn_dnnl_prepare(k, sizeof(qconv_state), qconv_build, 0, 1);
}

static int nhwc_qconv_prepare(kn_kctx *k)
{
    return kn_dnnl_prepare(k, sizeof(qconv_state), qconv_build, 1, 1);
}

static int qconv_run(kn_kctx *k)
{
    const qconv_state *st = k->state;
    if (st->has_z && k->out[0]->data != k->in[IN_Z]->data)
        memmove(k->out[0]->data, k->in[IN_Z]->data, st->y_bytes);
    return kn_dnnl_execute((kn_dnnl_prim *)k->state, k);
}

#define QCONV_DTYPES (KN_BIT(KN_UINT8) | KN_BIT(KN_INT8))

/* KN_OP_PACKS_WEIGHTS: prepare takes W from the model's weight store itself. */
const kn_op_def kn_dnnl_qlinear_conv = {.op_type = "QLinearConv",
                                        .since_version = 10,
                                        .dtypes = QCONV_DTYPES,
                                        .flags = KN_OP_PACKS_WEIGHTS,
                                        .prepare = qconv_prepare,
                                        .run = qconv_run,
                                        .release = kn_dnnl_release};
const kn_op_def kn_dnnl_qfused_conv = {.domain = "kiln",
                                       .op_type = "QFusedConv",
                                       .since_version = 1,
                                       .until_version = 1,
                                       .dtypes = QCONV_DTYPES,
                                       .flags = KN_OP_PACKS_WEIGHTS | KN_OP_INPLACE_Z,
                                       .z_input = IN_Z,
                                       .prepare = qfused_conv_prepare,
                                       .run = qconv_run,
                                       .release = kn_dnnl_release};
const kn_op_def kn_dnnl_nhwc_qlinear_conv = {.domain = "kiln",
                                             .op_type = "NhwcQLinearConv",
                                             .since_version = 1,
                                             .until_version = 1,
                                             .dtypes = QCONV_DTYPES,
                                             .flags = KN_OP_PACKS_WEIGHTS | KN_OP_INPLACE_Z,
                                             .z_input = IN_Z,
                                             .prepare = nhwc_qconv_prepare,
                                             .run = qconv_run,
                                             .release = kn_dnnl_release};
