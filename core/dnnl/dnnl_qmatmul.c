/* MatMulIntegerToFloat (com.microsoft 1) on oneDNN's int8 matmul, the form
 * the qdq_matmul pass gives a QDQ transformer's linear layers:
 *
 *     Y = (A - a_zp)(B - b_zp) a_scale b_scale
 *
 * with A uint8/int8 of any rank (its leading dims folded into M), B a
 * constant int8 [K, N] packed once (shared by the model's sessions through
 * its weight store), a_scale and a_zp constants per tensor, b_scale per
 * tensor or per column, b_zp 0. oneDNN accumulates in int32 (VNNI, AMX) and
 * applies a_scale b_scale as its output scale, writing float. A bias, a
 * non-zero b_zp or anything computed at run time declines to the CPU
 * kernel (core/cpu/quant/ms_matmul_float.c). */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"
#include "core/dnnl/dnnl_int8.h"

enum { IN_A, IN_B, IN_AS, IN_BS, IN_AZ, IN_BZ, IN_BIAS };

static const char *unserved(kn_kctx *k, dnnl_data_type_t *at)
{
    const kn_tensor *a = k->in[IN_A], *b = k->in[IN_B];
    const kn_tensor *as = kn_input(k, IN_AS), *bs = kn_input(k, IN_BS);
    const kn_tensor *az = kn_input(k, IN_AZ), *bz = kn_input(k, IN_BZ);
    if (!a || !b || (a->dtype != KN_UINT8 && a->dtype != KN_INT8) || b->dtype != KN_INT8)
        return "needs uint8/int8 A and int8 B";
    *at = a->dtype == KN_UINT8 ? dnnl_u8 : dnnl_s8;
    if (!b->data || b->rank != 2 || a->rank < 1 || a->dims[a->rank - 1] != b->dims[0])
        return "needs a constant 2-D B matching A";
    if (kn_input(k, IN_BIAS))
        return "a bias is left to the CPU kernel";
    if (!as || !as->data || as->dtype != KN_FLOAT || kn_tensor_numel(as) != 1)
        return "needs a constant scalar a_scale";
    int64_t n = b->dims[1], n_bs = bs ? kn_tensor_numel(bs) : 0;
    if (!bs || !bs->data || bs->dtype != KN_FLOAT || (n_bs != 1 && n_bs != n))
        return "needs a constant b_scale per tensor or per column";
    if (az && (!az->data || az->dtype != a->dtype || kn_tensor_numel(az) != 1))
        return "needs a constant scalar a_zero_point";
    if (bz) {
        if (!bz->data || bz->dtype != KN_INT8 || kn_tensor_numel(bz) != n_bs)
            return "needs constant int8 b_zero_point";
        for (int64_t i = 0; i < n_bs; i++)
            if (((const int8_t *)bz->data)[i] != 0)
                return "b_zero_point must be 0";
    }
    return NULL;
}

/* *pd with output scale a_scale * b_scale (per column or one) and A's
 * zero point. */
static int qmm_pd(kn_kctx *k, kn_dnnl_prim *p, const dnnl_matmul_desc_t *md,
                  dnnl_primitive_desc_t *pd)
{
    const kn_tensor *bs = k->in[IN_BS], *az = kn_input(k, IN_AZ);
    int64_t n_bs = kn_tensor_numel(bs);
    float sa = *(const float *)k->in[IN_AS]->data;
    float *scales = malloc(sizeof(float) * (size_t)n_bs);
    if (!scales)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "MatMulIntegerToFloat: out of memory");
    for (int64_t i = 0; i < n_bs; i++)
        scales[i] = sa * ((const float *)bs->data)[i];
    int32_t za = !az                      ? 0
                 : az->dtype == KN_INT8 ? (int32_t)*(const int8_t *)az->data
                                        : (int32_t)*(const uint8_t *)az->data;
    int rc = kn_dnnl_int8_pd(k, p, md, scales, n_bs, za, 0, NULL, pd);
    free(scales);
    return rc;
}

static int qmm_build(kn_kctx *k, kn_dnnl_prim *p, int unused_a, int unused_b)
{
    (void)unused_a;
    (void)unused_b;
    dnnl_data_type_t at;
    const char *why = k->n_in >= 4 ? unserved(k, &at) : "inputs missing";
    if (why)
        return kn_dnnl_decline(k, why);
    const kn_tensor *a = k->in[IN_A], *b = k->in[IN_B];
    int64_t kdim = b->dims[0], n = b->dims[1], m = kn_tensor_numel(a) / (kdim ? kdim : 1);
    kn_tensor *y = k->out[0];
    y->dtype = KN_FLOAT;
    y->rank = a->rank;
    memcpy(y->dims, a->dims, sizeof(int64_t) * (size_t)a->rank);
    y->dims[a->rank - 1] = n;
    if (kn_dnnl_too_large(y) || kn_dnnl_too_large(a))
        return kn_dnnl_decline(k, "tensor too large for oneDNN");
    int64_t ad[2] = {m, kdim}, yd[2] = {m, n};
    dnnl_memory_desc_t amd, bmd_user, bmd_any, ymd;
    int rc = kn_dnnl_md_typed(&amd, 2, ad, at, 0, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_md_typed(&bmd_user, 2, b->dims, dnnl_s8, 0, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_md_typed(&ymd, 2, yd, dnnl_f32, 0, k->err);
    dnnl_dims_t bdd = {kdim, n};
    if (rc == KN_OK &&
        dnnl_memory_desc_init_by_tag(&bmd_any, 2, bdd, dnnl_s8, dnnl_format_tag_any) != dnnl_success)
        rc = kn_dnnl_decline(k, "weights descriptor");
    dnnl_matmul_desc_t md;
    if (rc == KN_OK) {
        dnnl_status_t s = dnnl_matmul_desc_init(&md, &amd, &bmd_any, NULL, &ymd);
        if (s != dnnl_success)
            rc = kn_dnnl_fail(k->err, s, "int8 matmul descriptor");
    }
    dnnl_primitive_desc_t pd = NULL;
    if (rc == KN_OK)
        rc = qmm_pd(k, p, &md, &pd);
    if (rc != KN_OK)
        return rc;
    rc = kn_dnnl_add_arg(p, DNNL_ARG_SRC, KN_DNNL_BIND_INPUT, IN_A, &amd, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_int8_weights(p, k, IN_B, &bmd_user, pd);
    if (rc == KN_OK)
        rc = kn_dnnl_add_arg(p, DNNL_ARG_DST, KN_DNNL_BIND_OUTPUT, 0, &ymd, k->err);
    if (rc == KN_OK)
        return kn_dnnl_finish(p, pd, k);
    dnnl_primitive_desc_destroy(pd);
    return rc;
}

static int qmm_prepare(kn_kctx *k)
{
    return kn_dnnl_prepare(k, sizeof(kn_dnnl_prim), qmm_build, 0, 0);
}

/* KN_OP_PACKS_WEIGHTS: prepare takes B from the model's weight store itself. */
const kn_op_def kn_dnnl_matmul_integer_to_float = {
    .domain = "com.microsoft", .op_type = "MatMulIntegerToFloat", .since_version = 1,
    .dtypes = KN_BIT(KN_UINT8) | KN_BIT(KN_INT8), .flags = KN_OP_PACKS_WEIGHTS,
    .prepare = qmm_prepare, .run = kn_dnnl_run, .release = kn_dnnl_release
};
