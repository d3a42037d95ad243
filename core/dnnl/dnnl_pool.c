/* Pooling on oneDNN: MaxPool (without the Indices output), AveragePool,
 * GlobalAveragePool, in NCHW and as the layout pass's NHWC ops
 * (kiln.NhwcMaxPool, kiln.NhwcAveragePool; kiln.NhwcGlobalAveragePool runs
 * on Kiln's own kernel, nhwc_global_pool.c, which splits it over threads).
 *
 * ceil_mode becomes extra end padding; oneDNN never reads padding for max
 * and excludes it from averages when asked, as ONNX does. An average that
 * counts padding cannot count the ceil_mode extension (ONNX does not), so
 * that one case declines. */

#include "core/kernel/im2col.h"
#include "core/dnnl/dnnl_common.h"

enum { POOL_MAX, POOL_AVG, POOL_GLOBAL_AVG };


static int pool_build(kn_kctx *k, kn_dnnl_prim *p, int kind, int nhwc)
{
    const kn_tensor *x = k->in[0];
    /* 8-bit MaxPool: a QDQ model's pooling between integer convolutions */
    int q8 = x && kind == POOL_MAX && (x->dtype == KN_UINT8 || x->dtype == KN_INT8);
    if (!x || (x->dtype != KN_FLOAT && !q8))
        return kn_dnnl_decline(k, "float32 (or 8-bit MaxPool) only");
    if (x->rank < 3 || x->rank > 5 || (nhwc && x->rank != 4))
        return kn_dnnl_decline(k, "rank not served");
    if (kind == POOL_MAX && k->n_out > 1 && k->out[1])
        return kn_dnnl_decline(k, "the Indices output is left to the CPU kernel");
    int32_t r = x->rank, nsp = r - 2;
    int64_t xd[KN_MAX_RANK], yd[KN_MAX_RANK];
    xd[0] = x->dims[0];
    xd[1] = nhwc ? x->dims[r - 1] : x->dims[1];
    for (int32_t i = 2; i < r; i++)
        xd[i] = nhwc ? x->dims[i - 1] : x->dims[i];
    dnnl_dims_t kernel, strides, dil, pad_l, pad_r;
    int include_pad = 0;
    if (kind == POOL_GLOBAL_AVG) {
        for (int32_t i = 0; i < nsp; i++) {
            kernel[i] = xd[2 + i];
            strides[i] = 1;
            dil[i] = pad_l[i] = pad_r[i] = 0;
            yd[2 + i] = 1;
        }
    } else {
        kn_window win;
        kn_window_opts opts = {.op = k->node->op_type};
        /* the NHWC ops carry the attributes of the newest opsets */
        int64_t opset = nhwc ? 19 : k->opset;
        opts.ceil_mode = opset >= 10 && kn_attr_int(k->node, "ceil_mode", 0) != 0;
        opts.dilations = kind == POOL_MAX ? opset >= 10 : opset >= 19;
        if (kn_window_init(&win, k->node, xd + 2, nsp, &opts, k->err) != KN_OK)
            return kn_dnnl_decline(k, "left to the CPU kernel to report");
        include_pad = kind == POOL_AVG && opset >= 7 &&
                      kn_attr_int(k->node, "count_include_pad", 0) != 0;
        for (int32_t i = 0; i < nsp; i++) {
            int32_t c = KN_WIN_DIMS - nsp + i;
            int64_t ext = (win.kernel[c] - 1) * win.dilation[c] + 1;
            int64_t need = (win.out[c] - 1) * win.stride[c] + ext - win.in[c] - win.pad_begin[c];
            if (need > win.pad_end[c] && include_pad)
                return kn_dnnl_decline(k, "count_include_pad with ceil_mode");
            kernel[i] = win.kernel[c];
            strides[i] = win.stride[c];
            dil[i] = win.dilation[c] - 1;
            pad_l[i] = win.pad_begin[c];
            pad_r[i] = need > win.pad_end[c] ? need : win.pad_end[c];
            yd[2 + i] = win.out[c];
        }
    }
    yd[0] = xd[0];
    yd[1] = xd[1];
    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = r;
    y->dims[0] = yd[0];
    for (int32_t i = 1; i < r; i++)
        y->dims[i] = nhwc ? (i == r - 1 ? yd[1] : yd[i + 1]) : yd[i];
    if (kn_dnnl_too_large(y))
        return kn_dnnl_decline(k, "output too large");
    if ((double)kn_tensor_numel(y) * (double)kn_shape_numel(kernel, nsp) < KN_DNNL_MIN_POOL_TAPS)
        return kn_dnnl_decline(k, "too small for a oneDNN call");

    dnnl_memory_desc_t xmd, ymd;
    dnnl_data_type_t type = x->dtype == KN_UINT8 ? dnnl_u8 : x->dtype == KN_INT8 ? dnnl_s8 : dnnl_f32;
    int rc = kn_dnnl_md_typed(&xmd, r, xd, type, nhwc, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_md_typed(&ymd, r, yd, type, nhwc, k->err);
    if (rc != KN_OK)
        return rc;
    dnnl_alg_kind_t alg = kind == POOL_MAX ? dnnl_pooling_max
                          : include_pad    ? dnnl_pooling_avg_include_padding
                                           : dnnl_pooling_avg_exclude_padding;
    dnnl_pooling_v2_desc_t pdesc;
    dnnl_status_t s = dnnl_pooling_v2_forward_desc_init(&pdesc, dnnl_forward_inference, alg, &xmd,
                                                        &ymd, strides, kernel, dil, pad_l, pad_r);
    if (s != dnnl_success)
        return kn_dnnl_fail(k->err, s, "pooling descriptor");
    dnnl_primitive_desc_t pd = NULL;
    rc = kn_dnnl_pd_create(&pdesc, NULL, 0, NULL, p, &pd, k->err);
    if (rc != KN_OK)
        return rc;
    rc = kn_dnnl_add_arg(p, DNNL_ARG_SRC, KN_DNNL_BIND_INPUT, 0, &xmd, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_add_arg(p, DNNL_ARG_DST, KN_DNNL_BIND_OUTPUT, 0, &ymd, k->err);
    if (rc == KN_OK)
        return kn_dnnl_finish(p, pd, k);
    dnnl_primitive_desc_destroy(pd);
    return rc;
}

static int pool_prepare_common(kn_kctx *k, int kind, int nhwc)
{
    return kn_dnnl_prepare(k, sizeof(kn_dnnl_prim), pool_build, kind, nhwc);
}

static int max_prepare(kn_kctx *k) { return pool_prepare_common(k, POOL_MAX, 0); }
static int avg_prepare(kn_kctx *k) { return pool_prepare_common(k, POOL_AVG, 0); }
static int gavg_prepare(kn_kctx *k) { return pool_prepare_common(k, POOL_GLOBAL_AVG, 0); }
static int nhwc_max_prepare(kn_kctx *k) { return pool_prepare_common(k, POOL_MAX, 1); }
static int nhwc_avg_prepare(kn_kctx *k) { return pool_prepare_common(k, POOL_AVG, 1); }

#define POOL_DEF(name, domain_arg, op, since, until, prep, types)                                      \
    const kn_op_def name = { \
    .domain = domain_arg, .op_type = op, .since_version = since, .until_version = until, \
    .dtypes = types, .prepare = prep, .run = kn_dnnl_run, .release = kn_dnnl_release \
};
#define POOL_Q8 (KN_BIT(KN_FLOAT) | KN_BIT(KN_UINT8) | KN_BIT(KN_INT8))
POOL_DEF(kn_dnnl_max_pool, "", "MaxPool", 1, 0, max_prepare, POOL_Q8)
POOL_DEF(kn_dnnl_average_pool, "", "AveragePool", 1, 0, avg_prepare, KN_BIT(KN_FLOAT))
POOL_DEF(kn_dnnl_global_average_pool, "", "GlobalAveragePool", 1, 0, gavg_prepare, KN_BIT(KN_FLOAT))
POOL_DEF(kn_dnnl_nhwc_max_pool, "kiln", "NhwcMaxPool", 1, 1, nhwc_max_prepare, POOL_Q8)
POOL_DEF(kn_dnnl_nhwc_average_pool, "kiln", "NhwcAveragePool", 1, 1, nhwc_avg_prepare, KN_BIT(KN_FLOAT))
