/* MatMulIntegerToFloat (com.microsoft 1) on oneDNN's int8 matmul, the form
 * the qdq_matmul pass gives a QDQ transformer's linear layers:
 *
 *     Y = (A - a_zp)(B - b_zp) a_scale b_scale + bias
 *
 * and kiln.QFusedMatMul, the same with what follows it in the graph
 * (the qmatmul_epilogue pass): an activation, then optionally the
 * requantization to y_scale, y_zero_point.
 *
 * A is uint8/int8 of any rank (its leading dims folded into M), B a
 * constant int8 [K, N] packed once (shared by the model's sessions through
 * its weight store), a_scale and a_zp constants per tensor, b_scale per
 * tensor or per column, b_zp 0, bias float [N]. oneDNN accumulates in
 * int32 (VNNI, AMX) and applies a_scale b_scale as its output scale, then
 * the epilogue as post-ops: the bias as a per-column binary add (oneDNN
 * 2.x adds its own bias argument before the output scale, in accumulator
 * units), the activation as an eltwise post-op, and 1 / y_scale with
 * y_zero_point as the destination's quantization. Without bias and with
 * no activation or Relu (which commutes with the positive 1 / y_scale),
 * 1 / y_scale joins the output scale instead.
 *
 * a_scale and a_zp may also be computed at run time, as dynamic
 * quantization does (DynamicQuantizeLinear before the product; the
 * dynamic_matmul pass). oneDNN 2.6's int8 matrix products take a zero
 * point at run time but no run-time output scales (with them it falls back
 * to a kernel without VNNI), so a computed a_scale is a post-op instead:
 * the output scale is b_scale alone and a binary multiply by the a_scale
 * tensor follows it, before the bias. A computed a_zp is converted to the
 * int32 oneDNN reads at the start of the kernel's scratch. Anything else
 * computed at run time but A, or a non-zero b_zp, declines to the CPU
 * kernel (core/cpu/quant/ms_matmul_float.c). */
#include <stdlib.h>
#include <string.h>

#include "core/dnnl/dnnl_int8.h"
#include "core/kernel/fused_common.h"
#include "core/kernel/tensor_common.h"

enum { IN_A, IN_B, IN_AS, IN_BS, IN_AZ, IN_BZ, IN_BIAS, IN_YS, IN_YZ };

/* The kernel's state: with a_zp computed at run time, the scratch starts
 * with it as the int32 oneDNN reads (ZP_BYTES, oneDNN's scratchpad after). */
typedef struct qmm_state {
    kn_dnnl_prim p;
    int zp_at_run;
} qmm_state;

enum { ZP_BYTES = 64 };

/* kiln.QFusedMatMul's epilogue as read from the node */
typedef struct qmm_epilogue {
    kn_activation act;
    int quantized;         /* y_scale given: 8-bit output */
    dnnl_data_type_t yt;   /* output type */
    float y_scale;
    int32_t y_zp;
} qmm_epilogue;

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
    if (!as || as->dtype != KN_FLOAT || kn_tensor_numel(as) != 1)
        return "needs a scalar a_scale";
    int64_t n = b->dims[1], n_bs = bs ? kn_tensor_numel(bs) : 0;
    if (!bs || !bs->data || bs->dtype != KN_FLOAT || (n_bs != 1 && n_bs != n))
        return "needs a constant b_scale per tensor or per column";
    if (az && (az->dtype != a->dtype || kn_tensor_numel(az) != 1))
        return "needs a scalar a_zero_point of A's type";
    if (bz) {
        if (!bz->data || bz->dtype != KN_INT8 || kn_tensor_numel(bz) != n_bs)
            return "needs constant int8 b_zero_point";
        for (int64_t i = 0; i < n_bs; i++)
            if (((const int8_t *)bz->data)[i] != 0)
                return "b_zero_point must be 0";
    }
    const kn_tensor *bias = kn_input(k, IN_BIAS);
    if (bias && (bias->dtype != KN_FLOAT || bias->rank != 1 || bias->dims[0] != n))
        return "needs a float bias of B's columns";
    return NULL;
}

/* kiln.QFusedMatMul's activation and output quantization; the reason it is
 * not served otherwise. */
static const char *epilogue(kn_kctx *k, int fused, qmm_epilogue *e)
{
    *e = (qmm_epilogue){.yt = dnnl_f32, .y_scale = 1.0f};
    if (!fused)
        return NULL;
    if (kn_fused_activation(k, &e->act) != KN_OK)
        return "left to the CPU kernel to report";
    const kn_tensor *ys = kn_input(k, IN_YS), *yz = kn_input(k, IN_YZ);
    if (!ys)
        return NULL;
    if (!ys->data || ys->dtype != KN_FLOAT || kn_tensor_numel(ys) != 1 ||
        !(*(const float *)ys->data > 0.0f))
        return "needs a constant positive scalar y_scale";
    if (yz && (!yz->data || kn_tensor_numel(yz) != 1 ||
               (yz->dtype != KN_UINT8 && yz->dtype != KN_INT8)))
        return "needs a constant uint8/int8 scalar y_zero_point";
    e->quantized = 1;
    e->y_scale = *(const float *)ys->data;
    e->yt = yz && yz->dtype == KN_INT8 ? dnnl_s8 : dnnl_u8;
    e->y_zp = !yz ? 0 : yz->dtype == KN_INT8 ? *(const int8_t *)yz->data
                                              : *(const uint8_t *)yz->data;
    return NULL;
}

/* *pd with output scale a_scale * b_scale (per column or one), A's zero
 * point and the epilogue (bias_md: the bias's layout, or NULL; scale_md:
 * a_scale's, multiplied in as a post-op when it is computed). */
static int qmm_pd(kn_kctx *k, qmm_state *st, const dnnl_matmul_desc_t *md,
                  const qmm_epilogue *e, const dnnl_memory_desc_t *scale_md,
                  const dnnl_memory_desc_t *bias_md, kn_dnnl_int8_post *post,
                  dnnl_primitive_desc_t *pd)
{
    const kn_tensor *as = k->in[IN_AS], *bs = k->in[IN_BS], *az = kn_input(k, IN_AZ);
    int64_t n_bs = kn_tensor_numel(bs);
    st->zp_at_run = az && !az->data;
    float sa = as->data ? *(const float *)as->data : 1.0f;
    /* the bias and most activations need real values: 1 / y_scale after them */
    int real = bias_md || (e->act.kind != KN_ACT_NONE && e->act.kind != KN_ACT_RELU);
    float to_out = e->quantized && !real ? 1.0f / e->y_scale : 1.0f;
    *post = (kn_dnnl_int8_post){.mul_md = as->data ? NULL : scale_md,
                                .add_md = bias_md,
                                .act = e->act,
                                .post_scale = e->quantized && real ? 1.0f / e->y_scale : 1.0f};
    float *scales = malloc(sizeof(float) * (size_t)n_bs);
    if (!scales)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    for (int64_t i = 0; i < n_bs; i++)
        scales[i] = sa * ((const float *)bs->data)[i] * to_out;
    int32_t za = !az                    ? 0
                 : st->zp_at_run        ? DNNL_RUNTIME_S32_VAL
                 : az->dtype == KN_INT8 ? (int32_t)*(const int8_t *)az->data
                                        : (int32_t)*(const uint8_t *)az->data;
    int with_post = post->mul_md || bias_md || e->act.kind != KN_ACT_NONE ||
                    post->post_scale != 1.0f;
    int rc =
        kn_dnnl_int8_pd(k, &st->p, md, scales, n_bs, za, e->y_zp, with_post ? post : NULL, pd);
    free(scales);
    return rc;
}

/* A's run-time zero point at the start of the scratch, oneDNN's
 * scratchpad after it. */
static int runtime_zero_point(kn_kctx *k, qmm_state *st)
{
    int64_t one = 1;
    dnnl_memory_desc_t zmd;
    int rc = kn_dnnl_md_typed(&zmd, 1, &one, dnnl_s32, 0, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_add_scratch_arg(&st->p, DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, 0, &zmd,
                                     k->err);
    if (rc == KN_OK) {
        kn_dnnl_set_scratch_offset(&st->p, DNNL_ARG_SCRATCHPAD, ZP_BYTES);
        k->scratch_bytes += ZP_BYTES;
    }
    return rc;
}

static int qmm_build(kn_kctx *k, kn_dnnl_prim *p, int fused, int unused)
{
    (void)unused;
    qmm_state *st = (qmm_state *)p;
    dnnl_data_type_t at;
    qmm_epilogue e;
    const char *why = k->n_in >= 4 ? unserved(k, &at) : "inputs missing";
    if (!why)
        why = epilogue(k, fused, &e);
    if (why)
        return kn_dnnl_decline(k, why);
    const kn_tensor *a = k->in[IN_A], *b = k->in[IN_B];
    int64_t kdim = b->dims[0], n = b->dims[1], m = kn_tensor_numel(a) / (kdim ? kdim : 1);
    kn_tensor *y = k->out[0];
    y->dtype = !e.quantized ? KN_FLOAT : e.yt == dnnl_s8 ? KN_INT8 : KN_UINT8;
    y->rank = a->rank;
    memcpy(y->dims, a->dims, sizeof(int64_t) * (size_t)a->rank);
    y->dims[a->rank - 1] = n;
    if (kn_dnnl_too_large(y) || kn_dnnl_too_large(a))
        return kn_dnnl_decline(k, "tensor too large for oneDNN");
    int64_t ad[2] = {m, kdim}, yd[2] = {m, n}, biasd[2] = {1, n}, scaled[2] = {1, 1};
    const kn_tensor *bias = kn_input(k, IN_BIAS);
    int scale_at_run = !k->in[IN_AS]->data;
    dnnl_memory_desc_t amd, bmd_user, bmd_any, ymd, biasmd, scalemd;
    int rc = kn_dnnl_md_typed(&amd, 2, ad, at, 0, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_md_typed(&bmd_user, 2, b->dims, dnnl_s8, 0, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_md_typed(&ymd, 2, yd, e.yt, 0, k->err);
    if (rc == KN_OK && bias)
        rc = kn_dnnl_md_typed(&biasmd, 2, biasd, dnnl_f32, 0, k->err);
    if (rc == KN_OK && scale_at_run)
        rc = kn_dnnl_md_typed(&scalemd, 2, scaled, dnnl_f32, 0, k->err);
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
    kn_dnnl_int8_post post;
    if (rc == KN_OK)
        rc = qmm_pd(k, st, &md, &e, scale_at_run ? &scalemd : NULL, bias ? &biasmd : NULL, &post,
                    &pd);
    if (rc != KN_OK)
        return rc;
    rc = kn_dnnl_add_arg(p, DNNL_ARG_SRC, KN_DNNL_BIND_INPUT, IN_A, &amd, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_int8_weights(p, k, IN_B, &bmd_user, pd);
    if (rc == KN_OK && scale_at_run)
        rc = kn_dnnl_add_arg(p, KN_DNNL_INT8_MUL_ARG(&post), KN_DNNL_BIND_INPUT, IN_AS, &scalemd,
                             k->err);
    if (rc == KN_OK && bias)
        rc = kn_dnnl_add_arg(p, KN_DNNL_INT8_ADD_ARG(&post), KN_DNNL_BIND_INPUT, IN_BIAS, &biasmd,
                             k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_add_arg(p, DNNL_ARG_DST, KN_DNNL_BIND_OUTPUT, 0, &ymd, k->err);
    if (rc != KN_OK) {
        dnnl_primitive_desc_destroy(pd);
        return rc;
    }
    rc = kn_dnnl_finish(p, pd, k);
    return rc == KN_OK && st->zp_at_run ? runtime_zero_point(k, st) : rc;
}

static int qmm_prepare(kn_kctx *k)
{
    return kn_dnnl_prepare(k, sizeof(qmm_state), qmm_build, 0, 0);
}

static int qfused_mm_prepare(kn_kctx *k)
{
    return kn_dnnl_prepare(k, sizeof(qmm_state), qmm_build, 1, 0);
}

/* A run-time a_zp goes to the scratch as oneDNN's int32 first. */
static int qmm_run(kn_kctx *k)
{
    qmm_state *st = k->state;
    if (st->zp_at_run) {
        const kn_tensor *az = k->in[IN_AZ];
        *(int32_t *)k->scratch =
            az->dtype == KN_INT8 ? *(const int8_t *)az->data : *(const uint8_t *)az->data;
    }
    return kn_dnnl_execute(&st->p, k);
}

/* KN_OP_PACKS_WEIGHTS: prepare takes B from the model's weight store itself. */
const kn_op_def kn_dnnl_matmul_integer_to_float = {
    .domain = "com.microsoft", .op_type = "MatMulIntegerToFloat", .since_version = 1,
    .dtypes = KN_BIT(KN_UINT8) | KN_BIT(KN_INT8), .flags = KN_OP_PACKS_WEIGHTS,
    .prepare = qmm_prepare, .run = qmm_run, .release = kn_dnnl_release
};
const kn_op_def kn_dnnl_qfused_matmul = {
    .domain = "kiln", .op_type = "QFusedMatMul", .since_version = 1, .until_version = 1,
    .dtypes = KN_BIT(KN_UINT8) | KN_BIT(KN_INT8), .flags = KN_OP_PACKS_WEIGHTS,
    .prepare = qfused_mm_prepare, .run = qmm_run, .release = kn_dnnl_release
};
