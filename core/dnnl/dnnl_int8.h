/* What the oneDNN integer kernels share (dnnl_qconv.c, dnnl_qmatmul.c): the
 * primitive descriptor with requantization in its attribute, and the int8
 * weights packed once. */
#ifndef KN_DNNL_INT8_H
#define KN_DNNL_INT8_H

#include "core/dnnl/dnnl_common.h"

/* An epilogue between the accumulation and the requantization (fused
 * integer convolutions and matrix products): a residual summed onto the
 * destination, which holds it quantized (scale sum_scale relative to the
 * output scales, zero point sum_zp, stored as sum_type), then a multiply
 * by a float scalar of layout mul_md known only at run time (a dynamically
 * quantized input's scale: oneDNN 2.6's int8 kernels take no run-time
 * output scales; NULL for none; argument KN_DNNL_INT8_MUL_ARG(post)), then
 * a float operand of layout add_md added (a per-column bias; NULL for none;
 * argument KN_DNNL_INT8_ADD_ARG(post)), then an activation, then a multiply
 * by post_scale (1 for none). */
typedef struct kn_dnnl_int8_post {
    int with_sum;
    float sum_scale;
    int32_t sum_zp;
    dnnl_data_type_t sum_type;
    const dnnl_memory_desc_t *mul_md;
    const dnnl_memory_desc_t *add_md;
    kn_activation act;
    float post_scale;
} kn_dnnl_int8_post;

#define KN_DNNL_INT8_MUL_ARG(post) \
    (DNNL_ARG_ATTR_MULTIPLE_POST_OP((post)->with_sum ? 1 : 0) | DNNL_ARG_SRC_1)
#define KN_DNNL_INT8_ADD_ARG(post)                                                         \
    (DNNL_ARG_ATTR_MULTIPLE_POST_OP(((post)->with_sum ? 1 : 0) + ((post)->mul_md ? 1 : 0)) | \
     DNNL_ARG_SRC_1)

/* The reason an int8 primitive declines on a CPU without VNNI or AMX
 * (dnnl_int8.c says why); tests skip on it. */
#define KN_DNNL_INT8_NEEDS_VNNI "int8 products without VNNI or AMX saturate (16-bit pair sums)"

/* *pd for op_desc with output scales (n_scales of them: one, or one per
 * output channel / column, dim 1 of the destination), the source's and
 * destination's zero points (0: none; the source's DNNL_RUNTIME_S32_VAL:
 * given at each run as DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC), the epilogue `post` (NULL: none)
 * and user scratchpad. KN_ERR_DECLINE (KN_DNNL_INT8_NEEDS_VNNI) when
 * oneDNN's implementation does not multiply with VNNI or AMX. */
int kn_dnnl_int8_pd(kn_kctx *k, kn_dnnl_prim *p, const void *op_desc, const float *scales,
                    int64_t n_scales, int32_t src_zp, int32_t dst_zp, const kn_dnnl_int8_post *post,
                    dnnl_primitive_desc_t *pd);

/* Binds constant int8 weights, input `input` laid out as `have`, in the
 * layout pd wants: the model's shared packed copy when its store shares
 * them, else a copy of the session's own. One way: the packed int8 weights
 * carry oneDNN's compensation terms, not a layout to reorder back from. */
int kn_dnnl_int8_weights(kn_dnnl_prim *p, kn_kctx *k, int32_t input,
                         const dnnl_memory_desc_t *have, const_dnnl_primitive_desc_t pd);

#endif
