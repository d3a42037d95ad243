/* oneDNN int8 primitives' common parts (dnnl_int8.h). */
#include <string.h>

#include "core/dnnl/dnnl_int8.h"
#include "core/kernel/weights.h"

/* The epilogue as post-ops; *missing when oneDNN has none for its activation. */
static dnnl_status_t set_post_ops(dnnl_primitive_attr_t attr, const kn_dnnl_int8_post *post,
                                  int *missing)
{
    dnnl_post_ops_t po = NULL;
    dnnl_status_t s = dnnl_post_ops_create(&po);
    if (s == dnnl_success && post->with_sum)
        s = dnnl_post_ops_append_sum_v3(po, post->sum_scale, post->sum_zp, post->sum_type);
    if (s == dnnl_success && post->mul_md)
        s = dnnl_post_ops_append_binary(po, dnnl_binary_mul, post->mul_md);
    if (s == dnnl_success && post->add_md)
        s = dnnl_post_ops_append_binary(po, dnnl_binary_add, post->add_md);
    if (s == dnnl_success)
        s = kn_dnnl_append_activation(po, &post->act, missing);
    if (s == dnnl_success && post->post_scale != 1.0f)
        s = dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_linear, post->post_scale, 0.0f);
    if (s == dnnl_success)
        s = dnnl_primitive_attr_set_post_ops(attr, po);
    if (po)
        dnnl_post_ops_destroy(po);
    return s;
}

/* Without VNNI (or AMX) oneDNN 2.6 multiplies uint8 by int8 with
 * vpmaddubsw, whose sums of two products saturate at 16 bits: 255 * 127 * 2
 * does not fit, and a QDQ model's activations and weights reach it. On an
 * AVX2 or AVX-512 CPU without VNNI (ONEDNN_MAX_CPU_ISA=AVX512_CORE shows it
 * here) the QDQ test models' integer convolutions and products then missed
 * the reference by many steps; Kiln's CPU kernels are exact, so they serve
 * there instead. oneDNN's implementation names say which instructions
 * they use. */
static int multiplies_exactly(const_dnnl_primitive_desc_t pd)
{
    const char *impl = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success || !impl)
        return 0;
    return strstr(impl, "vnni") != NULL || strstr(impl, "amx") != NULL;
}

int kn_dnnl_int8_pd(kn_kctx *k, kn_dnnl_prim *p, const void *op_desc, const float *scales,
                    int64_t n_scales, int32_t src_zp, int32_t dst_zp, const kn_dnnl_int8_post *post,
                    dnnl_primitive_desc_t *pd)
{
    int missing = 0;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_status_t s = dnnl_primitive_attr_create(&attr);
    if (s == dnnl_success)
        s = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
    if (s == dnnl_success)
        s = dnnl_primitive_attr_set_output_scales(attr, n_scales, n_scales > 1 ? 1 << 1 : 0,
                                                  scales);
    if (s == dnnl_success && src_zp != 0)
        s = dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0, &src_zp);
    if (s == dnnl_success && dst_zp != 0)
        s = dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0, &dst_zp);
    if (s == dnnl_success && post)
        s = set_post_ops(attr, post, &missing);
    int rc = s == dnnl_success ? kn_dnnl_pd_create_attr(op_desc, attr, NULL, p, pd, k->err)
             : missing         ? kn_dnnl_decline(k, "no post-op for this activation")
                               : kn_dnnl_fail(k->err, s, "int8 primitive attributes");
    if (attr)
        dnnl_primitive_attr_destroy(attr);
    if (rc == KN_OK && !multiplies_exactly(*pd)) {
        dnnl_primitive_desc_destroy(*pd);
        *pd = NULL;
        rc = kn_dnnl_decline(k, KN_DNNL_INT8_NEEDS_VNNI);
    }
    return rc;
}

int kn_dnnl_int8_weights(kn_dnnl_prim *p, kn_kctx *k, int32_t input,
                         const dnnl_memory_desc_t *have, const_dnnl_primitive_desc_t pd)
{
    const dnnl_memory_desc_t *want = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    return kn_weight_store_shares(k->weights, k->node->inputs[input])
               ? kn_dnnl_add_shared_weights(p, k, input, have, want, 1)
               : kn_dnnl_add_const_weights(p, have, want, k->in[input]->data, k->err);
}
