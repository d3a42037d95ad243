/* Winograd convolution for the 3x3, stride-1 layers (dnnl_conv_wino.h).
 * It does 2.25x to 4x fewer multiplications than the direct convolution.
 * On ResNet-50's 3x3 layers (1 thread) oneDNN 2.6's direct NHWC kernel
 * takes ~2.0 ms each; this path, reorders included, 1.15 ms at 64 channels
 * (56x56), 0.85-0.96 ms at 128 (28x28), 1.2 ms at 256 (14x14); the whole
 * model goes 75 -> 65 ms. Its rounding differs from the direct sum's: the
 * models still agree with ONNX Runtime to 1.7e-5 relative (limit 1e-4;
 * tests: models_vs_onnxruntime, dnnl_conv::winograd_3x3). oneDNN picks
 * F(2x2, 3x3) where it also has F(4x4, 3x3); the latter ran 1.2-1.7x
 * faster per layer with its weights cached, but slower inside the models,
 * where its 2.25x larger transformed weights come from memory each run
 * (ResNet-50 66.8 vs 65.8 ms, SqueezeNet 6.39 vs 6.11 ms at 1 thread and
 * 3.79 vs 3.15 ms at 2), so oneDNN's choice stands.
 *
 * Scratch holds, in order: the largest scratchpad of the three
 * primitives, X in nChw16c, Y in nChw16c. */
#include <string.h>

#include "core/base/alloc.h"
#include "core/dnnl/dnnl_conv_wino.h"
#include "core/kernel/weights.h"

static int build(kn_kctx *k, kn_conv_wino *w, const dnnl_memory_desc_t *xmd,
                 const dnnl_memory_desc_t *ymd, const dnnl_memory_desc_t *wmd_user,
                 const void *w_data, const dnnl_memory_desc_t *bmd, const dnnl_dims_t pad_l,
                 const dnnl_dims_t pad_r, const kn_activation *act)
{
    dnnl_memory_desc_t xb, yb, wany;
    if (dnnl_memory_desc_init_by_tag(&xb, 4, xmd->dims, dnnl_f32, dnnl_nChw16c) != dnnl_success ||
        dnnl_memory_desc_init_by_tag(&yb, 4, ymd->dims, dnnl_f32, dnnl_nChw16c) != dnnl_success ||
        dnnl_memory_desc_init_by_tag(&wany, 4, wmd_user->dims, dnnl_f32, dnnl_format_tag_any) !=
            dnnl_success)
        return kn_fail(k->err, KN_ERR_DECLINE, "oneDNN: Winograd descriptors");
    int rc = kn_dnnl_prim_init(&w->conv, k);
    if (rc != KN_OK)
        return rc;
    dnnl_convolution_desc_t cd;
    const dnnl_dims_t strides = {1, 1}, undilated = {0, 0};
    dnnl_status_t s = dnnl_dilated_convolution_forward_desc_init(
        &cd, dnnl_forward_inference, dnnl_convolution_winograd, &xb, &wany, bmd, &yb, strides,
        undilated, pad_l, pad_r);
    if (s != dnnl_success)
        return kn_dnnl_fail(k->err, s, "Winograd convolution");
    dnnl_primitive_desc_t pd = NULL;
    rc = kn_dnnl_pd_create(&cd, act, 0, NULL, &w->conv, &pd, k->err);
    if (rc != KN_OK)
        return rc;
    size_t sp = kn_dnnl_scratchpad_bytes(pd), sp_in = 0, sp_out = 0;
    size_t xb_bytes = dnnl_memory_desc_get_size(&xb), yb_bytes = dnnl_memory_desc_get_size(&yb);
    const dnnl_memory_desc_t *want = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    /* Shared through the model's store when W is in it, as a one-way copy:
     * the transform cannot be undone exactly. */
    rc = kn_weight_store_shares(k->weights, k->node->inputs[1])
             ? kn_dnnl_add_shared_weights(&w->conv, k, 1, wmd_user, want, 1)
             : kn_dnnl_add_const_weights(&w->conv, wmd_user, want, w_data, k->err);
    dnnl_primitive_desc_t conv_pd = pd;
    if (rc != KN_OK) {
        dnnl_primitive_desc_destroy(conv_pd);
        return rc;
    }
    /* The blocked X and Y go after the largest scratchpad, known once the
     * reorders are built: build them at offset 0, then move them. */
    rc = kn_dnnl_reorder_build(k, &w->to_blocked, xmd, &xb, 0, &sp_in);
    if (rc == KN_OK)
        rc = kn_dnnl_reorder_build(k, &w->from_blocked, &yb, ymd, -1, &sp_out);
    if (rc != KN_OK) {
        dnnl_primitive_desc_destroy(conv_pd);
        return rc;
    }
    size_t pad = sp > sp_in ? sp : sp_in;
    pad = kn_align_up(pad > sp_out ? pad : sp_out, 64);
    const size_t x_off = pad, y_off = pad + kn_align_up(xb_bytes, 64);
    kn_dnnl_set_scratch_offset(&w->to_blocked, DNNL_ARG_TO, x_off);
    kn_dnnl_set_scratch_offset(&w->from_blocked, DNNL_ARG_FROM, y_off);
    rc = kn_dnnl_add_scratch_arg(&w->conv, DNNL_ARG_SRC, x_off, &xb, k->err);
    if (rc == KN_OK && bmd)
        rc = kn_dnnl_add_arg(&w->conv, DNNL_ARG_BIAS, KN_DNNL_BIND_INPUT, 2, bmd, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_add_scratch_arg(&w->conv, DNNL_ARG_DST, y_off, &yb, k->err);
    if (rc != KN_OK) {
        dnnl_primitive_desc_destroy(conv_pd);
        return rc;
    }
    rc = kn_dnnl_finish(&w->conv, conv_pd, k);
    k->scratch_bytes = y_off + kn_align_up(yb_bytes, 64);
    return rc;
}

int kn_conv_wino_build(kn_kctx *k, kn_conv_wino *w, const dnnl_memory_desc_t *xmd,
                       const dnnl_memory_desc_t *ymd, const dnnl_memory_desc_t *wmd_user,
                       const void *w_data, const dnnl_memory_desc_t *bmd,
                       const dnnl_dims_t pad_l, const dnnl_dims_t pad_r,
                       const kn_activation *act, const kn_activation *after)
{
    memset(w, 0, sizeof *w);
    size_t scratch_before = k->scratch_bytes;
    int rc = build(k, w, xmd, ymd, wmd_user, w_data, bmd, pad_l, pad_r, act);
    if (rc != KN_OK) {
        kn_conv_wino_destroy(w);
        k->scratch_bytes = scratch_before;
        return rc;
    }
    w->from_blocked.after = *after;
    w->on = 1;
    return KN_OK;
}

int kn_conv_wino_run(kn_kctx *k, kn_conv_wino *w)
{
    int rc = kn_dnnl_execute(&w->to_blocked, k);
    if (rc == KN_OK)
        rc = kn_dnnl_execute(&w->conv, k);
    if (rc == KN_OK)
        rc = kn_dnnl_execute(&w->from_blocked, k);
    return rc;
}

void kn_conv_wino_destroy(kn_conv_wino *w)
{
    kn_dnnl_prim_destroy(&w->to_blocked);
    kn_dnnl_prim_destroy(&w->conv);
    kn_dnnl_prim_destroy(&w->from_blocked);
    w->on = 0;
}
