/* CPU kernels for the NHWC ops the layout pass writes (kiln.NhwcConv,
 * kiln.NhwcQLinearConv, kiln.NhwcMaxPool, kiln.NhwcAveragePool; the global
 * pool has a kernel of its own, nhwc_global_pool.c), so a node the oneDNN kernel declines still
 * has a kernel. Not fast, only correct: X is transposed to NCHW in scratch,
 * the op's own CPU kernel runs there, and the result is transposed back,
 * with NhwcConv's residual and activation applied on the way out.
 * NhwcQLinearConv's residual is transposed too, for the inner kernel's
 * epilogue (kiln.QFusedConv's, which reads the node's activation). */
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/kernel/backend.h"
#include "core/kernel/fused_common.h"
#include "core/kernel/op.h"
#include "core/kernel/tensor_common.h"
#include "core/simd/kernels.h"

typedef struct nhwc_state {
    const kn_op_def *inner;
    kn_kctx ik;
    kn_tensor x, y, z; /* NCHW views in scratch (z: NhwcQLinearConv's Z) */
    kn_tensor *in[12], *out[1];
    kn_strided_plan to_nchw, to_nhwc, z_to_nchw;
    size_t x_off, y_off, z_off; /* in scratch, after the inner kernel's */
    int has_qz;                 /* NhwcQLinearConv with Z (input 9) */
    int is_conv;
    int one_pixel;               /* H = W = 1 in and out: NHWC is NCHW, nothing to transpose */
    /* NhwcConv's Z broadcast to Y (a squeeze-and-excitation gate added as a
     * residual): Z's element strides along Y's dims, 0 where it repeats */
    int z_broadcast;
    int64_t z_strides[4];
    kn_activation act;
} nhwc_state;

static void nhwc_release(kn_kctx *k)
{
    nhwc_state *st = k->state;
    if (st && st->inner->release)
        st->inner->release(&st->ik);
    free(st);
    k->state = NULL;
}

/* dst dims and source strides of a rank-4 permutation of dense src. */
static void plan_perm(kn_strided_plan *p, const int64_t *src_dims, const int32_t *perm,
                      int64_t *dst_dims, size_t elem_bytes)
{
    int64_t src_strides[4], strides[4];
    kn_dense_strides(src_dims, 4, src_strides);
    for (int32_t i = 0; i < 4; i++) {
        dst_dims[i] = src_dims[perm[i]];
        strides[i] = src_strides[perm[i]];
    }
    kn_strided_init(p, elem_bytes, 4, dst_dims, strides, 0);
}

static const int32_t nhwc_to_nchw[4] = {0, 3, 1, 2}, nchw_to_nhwc[4] = {0, 2, 3, 1};

static int nhwc_prepare(kn_kctx *k, const char *op, int64_t opset)
{
    const kn_tensor *x = k->in[0];
    int qconv = strcmp(op, "QLinearConv") == 0;
    /* 8-bit X: QLinearConv always, MaxPool as well as float */
    int q8 = qconv || strcmp(op, "MaxPool") == 0;
    int32_t x_dtype = q8 && x && (x->dtype == KN_UINT8 || x->dtype == KN_INT8) ? x->dtype
                      : qconv                                                 ? KN_UINT8
                                                                              : KN_FLOAT;
    if (!x || x->rank != 4 || x->dtype != x_dtype)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: X must be a 4-D %s NHWC tensor",
                       k->node->op_type, qconv ? "uint8 or int8" : q8 ? "float32, uint8 or int8" : "float32");
    nhwc_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    st->inner = kn_backend_kernel(&kn_backend_cpu, "", op, opset, x_dtype);
    if (!st->inner) {
        free(st);
        return kn_fail(k->err, KN_ERR_INTERNAL, "%s: no CPU %s kernel", k->node->op_type, op);
    }
    st->is_conv = strcmp(op, "Conv") == 0;
    int rc = st->is_conv ? kn_fused_activation(k, &st->act) : KN_OK;
    if (rc != KN_OK) {
        free(st);
        return rc;
    }
    st->x = (kn_tensor){.dtype = x_dtype, .rank = 4};
    plan_perm(&st->to_nchw, x->dims, nhwc_to_nchw, st->x.dims, kn_dtype_size(x_dtype));
    st->in[0] = &st->x;
    /* a convolution's W and B; all of QLinearConv's scales and zero points,
     * and kiln.QFusedConv's Z with its own */
    int32_t n_in = qconv         ? (k->n_in < 12 ? k->n_in : 12)
                   : st->is_conv ? (k->n_in < 3 ? k->n_in : 3)
                                 : 1;
    for (int32_t j = 1; j < n_in; j++)
        st->in[j] = k->in[j];
    const kn_tensor *qz = qconv && n_in > 9 ? k->in[9] : NULL;
    if (qz) {
        if (qz->rank != 4) {
            free(st);
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: Z must be 4-D NHWC", k->node->op_type);
        }
        st->has_qz = 1;
        st->z = (kn_tensor){.dtype = qz->dtype, .rank = 4};
        plan_perm(&st->z_to_nchw, qz->dims, nhwc_to_nchw, st->z.dims, kn_dtype_size(qz->dtype));
        st->in[9] = &st->z;
    }
    st->out[0] = &st->y;
    st->ik = (kn_kctx){.node = k->node, .opset = opset, .n_in = n_in, .n_out = 1, .in = st->in,
                       .out = st->out, .threads = k->threads, .err = k->err,
                       .engine_api = k->engine_api, .engine = k->engine,
                       .max_bytes = k->max_bytes};
    rc = st->inner->prepare(&st->ik);
    if (rc != KN_OK) {
        free(st);
        return rc;
    }
    k->state = st;
    kn_tensor *y = k->out[0];
    if (st->y.rank != 4 || (!q8 && st->y.dtype != KN_FLOAT)) {
        nhwc_release(k);
        return kn_fail(k->err, KN_ERR_INTERNAL, "%s: unexpected inner output", k->node->op_type);
    }
    y->dtype = st->y.dtype;
    y->rank = 4;
    plan_perm(&st->to_nhwc, st->y.dims, nchw_to_nhwc, y->dims, kn_dtype_size(y->dtype));
    const kn_tensor *z = st->is_conv && k->n_in > 3 ? k->in[3] : NULL;
    if (z && !kn_shape_equal(z->dims, z->rank, y->dims, y->rank)) {
        /* the layout pass folds an Add whose other side broadcasts (oneDNN
         * takes it as a binary post-op); here it is added after the conv */
        int64_t step = 1;
        int fits = z->rank <= 4;
        for (int32_t d = 3; fits && d >= 0; d--) {
            int32_t zd = d - (4 - z->rank);
            int64_t n = zd >= 0 ? z->dims[zd] : 1;
            fits = n == y->dims[d] || n == 1;
            st->z_strides[d] = n == 1 ? 0 : step;
            step *= n;
        }
        if (!fits) {
            nhwc_release(k);
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: residual Z does not broadcast to Y's shape",
                           k->node->op_type);
        }
        st->z_broadcast = 1;
    }
    st->one_pixel = x->dims[1] == 1 && x->dims[2] == 1 && y->dims[1] == 1 && y->dims[2] == 1;
    st->x_off = kn_align_up(st->ik.scratch_bytes, 64);
    st->y_off = st->x_off + kn_align_up((size_t)kn_tensor_nbytes(x), 64);
    st->z_off = st->y_off + kn_align_up((size_t)kn_tensor_nbytes(y), 64);
    /* one pixel needs no transposed copies, only the inner kernel's scratch */
    k->scratch_bytes =
        st->one_pixel
            ? st->ik.scratch_bytes
            : st->z_off + (st->has_qz ? kn_align_up((size_t)kn_tensor_nbytes(&st->z), 64) : 0);
    return KN_OK;
}

/* y += z over Y's 4 dims, z read with the given strides. */
static void add_broadcast(float *y, const int64_t *dims, const float *z, const int64_t *zs)
{
    for (int64_t a = 0; a < dims[0]; a++)
        for (int64_t b = 0; b < dims[1]; b++)
            for (int64_t c = 0; c < dims[2]; c++) {
                const float *zr = z + a * zs[0] + b * zs[1] + c * zs[2];
                for (int64_t d = 0; d < dims[3]; d++)
                    *y++ += zr[d * zs[3]];
            }
}

static int nhwc_run(kn_kctx *k)
{
    nhwc_state *st = k->state;
    char *scratch = k->scratch;
    float *y = k->out[0]->data;
    /* one pixel (a squeeze-and-excitation block's 1x1 convolutions): the
     * inner kernel reads X and writes Y where they are */
    st->x.data = st->one_pixel ? k->in[0]->data : scratch + st->x_off;
    st->y.data = st->one_pixel ? (void *)y : scratch + st->y_off;
    st->ik.scratch = st->ik.scratch_bytes ? scratch : NULL;
    st->ik.err = k->err;
    st->ik.threads = k->threads;
    if (st->has_qz)
        st->z.data = st->one_pixel ? k->in[9]->data : scratch + st->z_off;
    if (!st->one_pixel) {
        kn_strided_run(&st->to_nchw, k->in[0]->data, st->x.data, k->threads);
        if (st->has_qz)
            kn_strided_run(&st->z_to_nchw, k->in[9]->data, st->z.data, k->threads);
    }
    int rc = st->inner->run(&st->ik);
    if (rc != KN_OK)
        return rc;
    if (!st->one_pixel)
        kn_strided_run(&st->to_nhwc, st->y.data, y, k->threads);
    const kn_tensor *z = st->is_conv && k->n_in > 3 ? k->in[3] : NULL;
    if (z && st->z_broadcast) {
        add_broadcast(y, k->out[0]->dims, z->data, st->z_strides);
        z = NULL;
    }
    if (!z && st->act.kind == KN_ACT_NONE)
        return KN_OK;
    /* the vector epilogue: the scalar definition (kn_act_ref) took ~15 ns
     * an element for SiLU and Sigmoid, the whole of an SE block's step */
    kn_simd()->bias_act(y, kn_tensor_numel(k->out[0]), 0.0f, z ? z->data : NULL, &st->act);
    return KN_OK;
}

static int conv_prepare(kn_kctx *k) { return nhwc_prepare(k, "Conv", 11); }
static int max_prepare(kn_kctx *k) { return nhwc_prepare(k, "MaxPool", 12); }
static int avg_prepare(kn_kctx *k) { return nhwc_prepare(k, "AveragePool", 19); }
static int qconv_prepare(kn_kctx *k) { return nhwc_prepare(k, "QLinearConv", 10); }

#define NHWC_DEF(name, op, prep)                                                                   \
    const kn_op_def name = { \
    .domain = "kiln", .op_type = op, .since_version = 1, .until_version = 1, \
    .dtypes = KN_BIT(KN_FLOAT), .prepare = prep, .run = nhwc_run, .release = nhwc_release \
};
NHWC_DEF(kn_cpu_nhwc_conv, "NhwcConv", conv_prepare)
const kn_op_def kn_cpu_nhwc_max_pool = {
    .domain = "kiln", .op_type = "NhwcMaxPool", .since_version = 1, .until_version = 1,
    .dtypes = KN_BIT(KN_FLOAT) | KN_BIT(KN_UINT8) | KN_BIT(KN_INT8), .prepare = max_prepare,
    .run = nhwc_run, .release = nhwc_release
};
NHWC_DEF(kn_cpu_nhwc_average_pool, "NhwcAveragePool", avg_prepare)
const kn_op_def kn_cpu_nhwc_qlinear_conv = {
    .domain = "kiln", .op_type = "NhwcQLinearConv", .since_version = 1, .until_version = 1,
    .dtypes = KN_BIT(KN_UINT8) | KN_BIT(KN_INT8), .prepare = qconv_prepare, .run = nhwc_run,
    .release = nhwc_release
};
