/* Convolution on oneDNN: Conv (1-D to 3-D, NCHW), kiln.FusedConv (Conv +
 * residual Z + activation) and kiln.NhwcConv (FusedConv with X, Z and Y in
 * NHWC order, written by the layout pass; W stays OIHW).
 *
 * The residual becomes a sum post-op (Z is copied into Y, the convolution
 * accumulates onto it; the planner puts Y over a Z read for the last time,
 * KN_OP_INPLACE_Z, so there is nothing to copy) and the activation an
 * eltwise post-op, or Kiln's own after the primitive where that is faster
 * (kn_dnnl_take_activation: SiLU). Weights must be
 * constant: they are reordered once, here, into the blocked layout the
 * primitive picked. Anything oneDNN does not serve declines to the CPU
 * kernel. */
#include <string.h>

#include "core/kernel/im2col.h"
#include "core/kernel/weights.h"
#include "core/kernel/fused_common.h"
#include "core/kernel/fma_width.h"
#include "core/dnnl/dnnl_conv_blocked.h"
#include "core/dnnl/dnnl_conv_geometry.h"
#include "core/dnnl/dnnl_conv_wino.h"
#include "core/dnnl/dnnl_impl_choice.h"

typedef struct conv_state {
    kn_dnnl_prim prim; /* first: the state is kn_dnnl_prepare's; unused when wino.on */
    /* bfloat16 (KN_PRECISION_BF16 on a CPU with bf16 instructions): X is
     * converted into the scratch by this reorder before each convolution,
     * W was converted once with its reordering; Y stays float32 */
    kn_dnnl_prim to_bf16;
    int bf16;
    int has_z;
    size_t y_bytes;
    kn_conv_wino wino;
    kn_conv_blocked blocked; /* 3-D */
} conv_state;

/* 3x3, stride 1, undilated, ungrouped, channels in whole 16-blocks, no
 * residual: what oneDNN's Winograd kernels take; and at least 100 output
 * pixels. Below that (ResNet-50's 7x7 last stage) Winograd saved ~12% of
 * each layer while its weight transform added 30 ms to session creation
 * and 15 MB per layer (2.4 M weights). */
static int wino_shape(const kn_tensor *w, int64_t group, const dnnl_dims_t strides,
                      const dnnl_dims_t dil, int has_z, const int64_t *yd)
{
    return w->rank == 4 && w->dims[2] == 3 && w->dims[3] == 3 && group == 1 && !has_z &&
           strides[0] == 1 && strides[1] == 1 && dil[0] == 0 && dil[1] == 0 &&
           w->dims[0] % 16 == 0 && w->dims[1] % 16 == 0 && yd[2] * yd[3] >= 100;
}

static int conv_build(kn_kctx *k, kn_dnnl_prim *p, int fused, int nhwc)
{
    conv_state *st = (conv_state *)p;
    const kn_tensor *x = k->in[0], *w = k->n_in > 1 ? k->in[1] : NULL;
    const kn_tensor *b = k->n_in > 2 ? k->in[2] : NULL;
    const kn_tensor *z = fused && k->n_in > 3 ? k->in[3] : NULL;
    if (!x || !w || x->dtype != KN_FLOAT || w->dtype != KN_FLOAT || (b && b->dtype != KN_FLOAT) ||
        (z && z->dtype != KN_FLOAT))
        return kn_fail(k->err, KN_ERR_DECLINE, "oneDNN Conv serves float32 only");
    if (!w->data)
        return kn_fail(k->err, KN_ERR_DECLINE, "oneDNN Conv needs constant weights");
    if (x->rank < 3 || x->rank > 5 || w->rank != x->rank || (nhwc && x->rank != 4))
        return kn_fail(k->err, KN_ERR_DECLINE, "oneDNN Conv: rank %d not served", (int)x->rank);
    kn_activation act = {0};
    if (fused && kn_fused_activation(k, &act) != KN_OK)
        return kn_fail(k->err, KN_ERR_DECLINE, "left to the CPU kernel");
    int64_t xd[KN_MAX_RANK];
    kn_dnnl_logical_dims(x, nhwc, xd);
    int64_t group = kn_attr_int(k->node, "group", 1);
    int64_t cin = xd[1], cout = w->dims[0];
    if (group < 1 || cin % group || cout % group || w->dims[1] * group != cin ||
        (b && (b->rank != 1 || b->dims[0] != cout)))
        return kn_fail(k->err, KN_ERR_DECLINE, "left to the CPU kernel to report");
    int32_t nsp = x->rank - 2;
    kn_dnnl_conv_window cw;
    if (kn_dnnl_conv_window_init(k, xd, x->rank, w, &cw) != KN_OK)
        return KN_ERR_DECLINE;
    const int64_t *yd = cw.yd;
    int64_t *strides = cw.strides, *dil = cw.dil, *pad_l = cw.pad_l, *pad_r = cw.pad_r;
    kn_tensor *y = k->out[0];
    y->dtype = KN_FLOAT;
    kn_dnnl_stored_dims(y, x->rank, yd, nhwc);
    if (z && !kn_shape_equal(z->dims, z->rank, y->dims, y->rank))
        return kn_fail(k->err, KN_ERR_DECLINE, "residual Z does not match Y");
    double macs = (double)kn_tensor_numel(y) * (double)(cin / group) *
                  (double)kn_shape_numel(w->dims + 2, nsp);
    if (kn_dnnl_too_large(y))
        return kn_fail(k->err, KN_ERR_DECLINE, "output too large for oneDNN");
    if (macs < KN_DNNL_MIN_MACS)
        return kn_fail(k->err, KN_ERR_DECLINE, "too small for a oneDNN call");
    st->has_z = z != NULL;
    st->y_bytes = (size_t)kn_tensor_nbytes(y);
    kn_dnnl_take_activation(&st->prim, &act);

    dnnl_memory_desc_t xmd, ymd, bmd, wmd_any, wmd_user;
    int rc = kn_dnnl_md_plain(&xmd, x->rank, xd, nhwc, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_md_plain(&ymd, x->rank, yd, nhwc, k->err);
    if (rc == KN_OK && b)
        rc = kn_dnnl_md_plain(&bmd, 1, &cout, 0, k->err);
    /* grouped weights are (G, O/G, I/G, k...) in oneDNN: the same bytes */
    int64_t wd[KN_MAX_RANK + 1];
    int32_t wrank = w->rank;
    if (group > 1) {
        wd[0] = group;
        wd[1] = cout / group;
        memcpy(wd + 2, w->dims + 1, sizeof(int64_t) * (size_t)(w->rank - 1));
        wrank++;
    } else {
        memcpy(wd, w->dims, sizeof(int64_t) * (size_t)w->rank);
    }
    if (rc == KN_OK)
        rc = kn_dnnl_md_plain(&wmd_user, wrank, wd, 0, k->err);
    dnnl_dims_t wdd;
    for (int32_t i = 0; i < wrank; i++)
        wdd[i] = wd[i];
    if (rc == KN_OK && dnnl_memory_desc_init_by_tag(&wmd_any, wrank, wdd, dnnl_f32,
                                                    dnnl_format_tag_any) != dnnl_success)
        rc = kn_fail(k->err, KN_ERR_DECLINE, "oneDNN: weights descriptor");
    /* Variant 0 is Kiln's choice: Winograd where it serves, else the
     * implementation dnnl_impl_choice prefers. Variant 1, for the tuner to
     * time against it where the two differ, is oneDNN's own first direct
     * implementation. */
    const char *const *prefer = kn_dnnl_conv_prefer(
        group, cin, cout, kn_shape_numel(w->dims + 2, nsp), kn_cpu_splits_512());
    /* bf16 direct kernels multiply at twice float32's rate where the CPU
     * has them (Zen 4's vdpbf16ps): they take the 3x3 layers from the
     * float32 Winograd too */
    st->bf16 = rc == KN_OK && k->variant == 0 && kn_dnnl_bf16_wanted(k);
    int wino = nhwc && !st->bf16 && wino_shape(w, group, strides, dil, z != NULL, yd);
    if (k->variant == 1)
        wino = 0, prefer = NULL;
    k->n_variants = k->variant == 1 || prefer ? 2 : 1;
    /* W in the model's weight store: the direct kernels share one reordered
     * copy per model and layout (every session and every plan of new input
     * shapes), and the store may give the initializer's pages back. */
    int shared = kn_weight_store_shares(k->weights, k->node->inputs[1]);
    if (rc == KN_OK && wino) {
        kn_err direct = *k->err; /* a Winograd decline is no error */
        if (kn_conv_wino_build(k, &st->wino, &xmd, &ymd, &wmd_user, w->data, b ? &bmd : NULL,
                               pad_l, pad_r, &act, &st->prim.after) == KN_OK) {
            k->n_variants = 2;
            return KN_OK;
        }
        *k->err = direct;
    }
    /* 3-D always; 1-D where the work hides the reorders (a Conformer's
     * 2.5 M-MAC pointwise layers lose, wav2vec2's 10^8-MAC feature layers
     * win) */
    if (rc == KN_OK && !st->bf16 && !nhwc && (x->rank == 5 || (x->rank == 3 && macs >= 16e6))) {
        kn_err plain = *k->err; /* a decline is no error */
        if (kn_conv_blocked_build(k, &st->blocked, &xmd, &ymd, &wmd_user, w->data,
                                  b ? &bmd : NULL, strides, dil, pad_l, pad_r, &act, z != NULL,
                                  &st->prim.after) == KN_OK)
            return KN_OK;
        *k->err = plain;
    }
    dnnl_primitive_desc_t pd = NULL;
    /* X's own layout in bf16 (strides count elements, so only the type
     * changes), W in whatever layout the bf16 kernel picks */
    dnnl_memory_desc_t xmd_bf16 = xmd, wmd_bf16;
    xmd_bf16.data_type = dnnl_bf16;
    if (rc == KN_OK && st->bf16) {
        kn_err f32 = *k->err; /* no bf16 kernel: float32 as before, no error */
        dnnl_convolution_desc_t cd;
        if (dnnl_memory_desc_init_by_tag(&wmd_bf16, wrank, wdd, dnnl_bf16,
                                         dnnl_format_tag_any) != dnnl_success ||
            dnnl_dilated_convolution_forward_desc_init(
                &cd, dnnl_forward_inference, dnnl_convolution_direct, &xmd_bf16, &wmd_bf16,
                b ? &bmd : NULL, &ymd, strides, dil, pad_l, pad_r) != dnnl_success ||
            kn_dnnl_pd_create(&cd, &act, z != NULL, NULL, &st->prim, &pd, k->err) != KN_OK) {
            *k->err = f32;
            st->bf16 = 0;
            pd = NULL;
        }
    }
    if (rc == KN_OK && !pd) {
        dnnl_convolution_desc_t cd;
        dnnl_status_t s = dnnl_dilated_convolution_forward_desc_init(
            &cd, dnnl_forward_inference, dnnl_convolution_direct, &xmd, &wmd_any, b ? &bmd : NULL,
            &ymd, strides, dil, pad_l, pad_r);
        if (s != dnnl_success)
            rc = kn_dnnl_fail(k->err, s, "convolution descriptor");
        if (rc == KN_OK)
            rc = kn_dnnl_pd_create(&cd, &act, z != NULL, prefer, &st->prim, &pd, k->err);
    }
    if (rc != KN_OK)
        return rc;
    /* oneDNN 2.6 runs a grouped 1-D convolution (a Conformer's depthwise
     * kernel-31 layer) as im2col + GEMM: 8x slower than Kiln's direct
     * kernel (0.34 vs 0.042 ms). 2-D ones mostly run NHWC, not measured. */
    const char *impl = NULL;
    if (group > 1 && x->rank == 3 && dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) ==
                         dnnl_success && impl && strstr(impl, "gemm")) {
        dnnl_primitive_desc_destroy(pd);
        return kn_fail(k->err, KN_ERR_DECLINE, "oneDNN would run a grouped convolution as GEMM");
    }
    const dnnl_memory_desc_t *want = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    size_t x_off = 0;
    if (st->bf16) {
        rc = kn_dnnl_add_bf16_src(k, &st->prim, &st->to_bf16, pd, &xmd, &xmd_bf16, &x_off);
    } else {
        rc = kn_dnnl_add_arg(&st->prim, DNNL_ARG_SRC, KN_DNNL_BIND_INPUT, 0, &xmd, k->err);
    }
    /* one way in bf16: the converted copy cannot give the float32 bytes back */
    if (rc == KN_OK)
        rc = shared ? kn_dnnl_add_shared_weights(&st->prim, k, 1, &wmd_user, want, st->bf16)
                    : kn_dnnl_add_const_weights(&st->prim, &wmd_user, want, w->data, k->err);
    if (rc == KN_OK && b)
        rc = kn_dnnl_add_arg(&st->prim, DNNL_ARG_BIAS, KN_DNNL_BIND_INPUT, 2, &bmd, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_add_arg(&st->prim, DNNL_ARG_DST, KN_DNNL_BIND_OUTPUT, 0, &ymd, k->err);
    if (rc == KN_OK) {
        rc = kn_dnnl_finish(&st->prim, pd, k);
        if (rc == KN_OK && st->bf16)
            k->scratch_bytes = kn_dnnl_bf16_src_scratch(x_off, &xmd_bf16);
        return rc;
    }
    dnnl_primitive_desc_destroy(pd);
    return rc;
}

static int conv_build_or_clean(kn_kctx *k, kn_dnnl_prim *p, int fused, int nhwc)
{
    int rc = conv_build(k, p, fused, nhwc);
    if (rc != KN_OK) /* kn_dnnl_prepare releases the first primitive only */
        kn_dnnl_prim_destroy(&((conv_state *)p)->to_bf16);
    return rc;
}

static int conv_prepare_common(kn_kctx *k, int fused, int nhwc)
{
    return kn_dnnl_prepare(k, sizeof(conv_state), conv_build_or_clean, fused, nhwc);
}

static int conv_prepare(kn_kctx *k) { return conv_prepare_common(k, 0, 0); }
static int fused_conv_prepare(kn_kctx *k) { return conv_prepare_common(k, 1, 0); }
static int nhwc_conv_prepare(kn_kctx *k) { return conv_prepare_common(k, 1, 1); }

static int conv_run(kn_kctx *k)
{
    conv_state *st = k->state;
    if (st->wino.on)
        return kn_conv_wino_run(k, &st->wino);
    if (st->blocked.on)
        return kn_conv_blocked_run(k, &st->blocked);
    if (st->has_z && k->out[0]->data != k->in[3]->data)
        memmove(k->out[0]->data, k->in[3]->data, st->y_bytes);
    int rc = st->bf16 ? kn_dnnl_execute(&st->to_bf16, k) : KN_OK;
    return rc == KN_OK ? kn_dnnl_execute(&st->prim, k) : rc;
}

static void conv_release(kn_kctx *k)
{
    conv_state *st = k->state;
    if (st) {
        kn_conv_wino_destroy(&st->wino);
        kn_conv_blocked_destroy(&st->blocked);
        kn_dnnl_prim_destroy(&st->to_bf16);
    }
    kn_dnnl_release(k);
}

/* KN_OP_PACKS_WEIGHTS: prepare takes W from the model's weight store itself
 * (a shared reordered copy, or the raw bytes held resident). */
const kn_op_def kn_dnnl_conv = {
    .op_type = "Conv", .since_version = 1, .dtypes = KN_BIT(KN_FLOAT),
    .flags = KN_OP_PACKS_WEIGHTS, .prepare = conv_prepare, .run = conv_run,
    .release = conv_release
};
const kn_op_def kn_dnnl_fused_conv = {
    .domain = "kiln", .op_type = "FusedConv", .since_version = 1, .until_version = 1,
    .dtypes = KN_BIT(KN_FLOAT), .flags = KN_OP_INPLACE_Z | KN_OP_PACKS_WEIGHTS,
    .prepare = fused_conv_prepare,
    .run = conv_run, .release = conv_release
};
const kn_op_def kn_dnnl_nhwc_conv = {
    .domain = "kiln", .op_type = "NhwcConv", .since_version = 1, .until_version = 1,
    .dtypes = KN_BIT(KN_FLOAT), .flags = KN_OP_INPLACE_Z | KN_OP_PACKS_WEIGHTS,
    .prepare = nhwc_conv_prepare,
    .run = conv_run, .release = conv_release
};
