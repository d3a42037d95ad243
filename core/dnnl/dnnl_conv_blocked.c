/* 3-D convolutions through oneDNN's blocked layouts (dnnl_conv_blocked.h).
 *
 * Scratch holds, in order: the largest scratchpad of the primitives, X in
 * the blocked layout, Y in the blocked layout (where a residual Z is
 * reordered first: the sum post-op adds to what Y holds). */
#include <string.h>

#include "core/base/alloc.h"
#include "core/dnnl/dnnl_conv_blocked.h"
#include "core/kernel/weights.h"

static size_t max3(size_t a, size_t b, size_t c)
{
    size_t m = a > b ? a : b;
    return m > c ? m : c;
}

static int build(kn_kctx *k, kn_conv_blocked *c, const dnnl_memory_desc_t *xmd,
                 const dnnl_memory_desc_t *ymd, const dnnl_memory_desc_t *wmd_user,
                 const void *w_data, const dnnl_memory_desc_t *bmd, const dnnl_dims_t strides,
                 const dnnl_dims_t dil, const dnnl_dims_t pad_l, const dnnl_dims_t pad_r,
                 const kn_activation *act, int with_z)
{
    dnnl_memory_desc_t xany, yany, wany;
    if (dnnl_memory_desc_init_by_tag(&xany, xmd->ndims, xmd->dims, dnnl_f32,
                                     dnnl_format_tag_any) != dnnl_success ||
        dnnl_memory_desc_init_by_tag(&yany, ymd->ndims, ymd->dims, dnnl_f32,
                                     dnnl_format_tag_any) != dnnl_success ||
        dnnl_memory_desc_init_by_tag(&wany, wmd_user->ndims, wmd_user->dims, dnnl_f32,
                                     dnnl_format_tag_any) != dnnl_success)
        return kn_fail(k->err, KN_ERR_DECLINE, "oneDNN: blocked convolution descriptors");
    int rc = kn_dnnl_prim_init(&c->conv, k);
    if (rc != KN_OK)
        return rc;
    dnnl_convolution_desc_t cd;
    dnnl_status_t s = dnnl_dilated_convolution_forward_desc_init(
        &cd, dnnl_forward_inference, dnnl_convolution_direct, &xany, &wany, bmd, &yany, strides,
        dil, pad_l, pad_r);
    if (s != dnnl_success)
        return kn_dnnl_fail(k->err, s, "blocked convolution");
    dnnl_primitive_desc_t pd = NULL;
    rc = kn_dnnl_pd_create(&cd, act, with_z, NULL, &c->conv, &pd, k->err);
    if (rc != KN_OK)
        return rc;
    dnnl_memory_desc_t xb = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    dnnl_memory_desc_t yb = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    if (dnnl_memory_desc_equal(&xb, xmd) && dnnl_memory_desc_equal(&yb, ymd)) {
        dnnl_primitive_desc_destroy(pd);
        return kn_fail(k->err, KN_ERR_DECLINE, "oneDNN keeps the plain layouts");
    }
    const dnnl_memory_desc_t *want = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    rc = kn_weight_store_shares(k->weights, k->node->inputs[1])
             ? kn_dnnl_add_shared_weights(&c->conv, k, 1, wmd_user, want, 0)
             : kn_dnnl_add_const_weights(&c->conv, wmd_user, want, w_data, k->err);
    size_t sp = kn_dnnl_scratchpad_bytes(pd), sp_x = 0, sp_z = 0, sp_y = 0;
    /* The blocked X and Y go after the largest scratchpad, known once the
     * reorders are built: build them at offset 0, then move them. */
    if (rc == KN_OK)
        rc = kn_dnnl_reorder_build(k, &c->x_in, xmd, &xb, 0, &sp_x);
    if (rc == KN_OK && with_z)
        rc = kn_dnnl_reorder_build(k, &c->z_in, ymd, &yb, 3, &sp_z);
    if (rc == KN_OK)
        rc = kn_dnnl_reorder_build(k, &c->y_out, &yb, ymd, -1, &sp_y);
    if (rc != KN_OK) {
        dnnl_primitive_desc_destroy(pd);
        return rc;
    }
    size_t pad = kn_align_up(max3(sp, sp_x, sp_z > sp_y ? sp_z : sp_y), 64);
    const size_t x_off = pad, y_off = pad + kn_align_up(dnnl_memory_desc_get_size(&xb), 64);
    kn_dnnl_set_scratch_offset(&c->x_in, DNNL_ARG_TO, x_off);
    if (with_z)
        kn_dnnl_set_scratch_offset(&c->z_in, DNNL_ARG_TO, y_off);
    kn_dnnl_set_scratch_offset(&c->y_out, DNNL_ARG_FROM, y_off);
    rc = kn_dnnl_add_scratch_arg(&c->conv, DNNL_ARG_SRC, x_off, &xb, k->err);
    if (rc == KN_OK && bmd)
        rc = kn_dnnl_add_arg(&c->conv, DNNL_ARG_BIAS, KN_DNNL_BIND_INPUT, 2, bmd, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_add_scratch_arg(&c->conv, DNNL_ARG_DST, y_off, &yb, k->err);
    if (rc != KN_OK) {
        dnnl_primitive_desc_destroy(pd);
        return rc;
    }
    rc = kn_dnnl_finish(&c->conv, pd, k);
    k->scratch_bytes = y_off + kn_align_up(dnnl_memory_desc_get_size(&yb), 64);
    return rc;
}

int kn_conv_blocked_build(kn_kctx *k, kn_conv_blocked *c, const dnnl_memory_desc_t *xmd,
                          const dnnl_memory_desc_t *ymd, const dnnl_memory_desc_t *wmd_user,
                          const void *w_data, const dnnl_memory_desc_t *bmd,
                          const dnnl_dims_t strides, const dnnl_dims_t dil,
                          const dnnl_dims_t pad_l, const dnnl_dims_t pad_r,
                          const kn_activation *act, int with_z, const kn_activation *after)
{
    memset(c, 0, sizeof *c);
    size_t scratch_before = k->scratch_bytes;
    int rc = build(k, c, xmd, ymd, wmd_user, w_data, bmd, strides, dil, pad_l, pad_r, act,
                   with_z);
    if (rc != KN_OK) {
        kn_conv_blocked_destroy(c);
        k->scratch_bytes = scratch_before;
        return rc;
    }
    c->y_out.after = *after;
    c->has_z = with_z;
    c->on = 1;
    return KN_OK;
}

int kn_conv_blocked_run(kn_kctx *k, kn_conv_blocked *c)
{
    int rc = kn_dnnl_execute(&c->x_in, k);
    if (rc == KN_OK && c->has_z)
        rc = kn_dnnl_execute(&c->z_in, k);
    if (rc == KN_OK)
        rc = kn_dnnl_execute(&c->conv, k);
    if (rc == KN_OK)
        rc = kn_dnnl_execute(&c->y_out, k);
    return rc;
}

void kn_conv_blocked_destroy(kn_conv_blocked *c)
{
    kn_dnnl_prim_destroy(&c->x_in);
    kn_dnnl_prim_destroy(&c->z_in);
    kn_dnnl_prim_destroy(&c->conv);
    kn_dnnl_prim_destroy(&c->y_out);
    c->on = 0;
}
