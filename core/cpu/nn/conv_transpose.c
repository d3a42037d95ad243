/* ConvTranspose (opsets 1 and 11, same semantics): 1-D to 3-D, groups,
 * strides, dilations, pads / auto_pad, output_padding, output_shape,
 * optional bias; float and double.
 *
 * The transposed convolution is the adjoint of Conv's im2col + GEMM: per
 * image and group, the column matrix col[Mg*K x HWin] = W_g^T * X_g (W_g is
 * Cg x Mg*K as stored), then col2im adds every column into the output
 * window it belongs to. Columns are processed in blocks so the column
 * matrix stays cache-sized; the GEMM runs on the pool and col2im splits
 * the output channels across it. A 1x1 kernel with stride 1 and no
 * padding needs no col2im: the GEMM writes the output directly.
 *
 * Output size per spatial dim (ONNX): stride * (in - 1) + output_padding
 * + (kernel - 1) * dilation + 1 - pad_begin - pad_end; when output_shape
 * is given (or auto_pad is SAME_*, which asks for in * stride), the pads
 * are whatever makes that size, split as the spec says (SAME_UPPER puts
 * the odd unit at the end). */
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/simd/gemm.h"
#include "core/cpu/image/image_col2im.h"
#include "core/cpu/image/image_common.h"

typedef struct convt_state {
    kn_window win; /* as col2im sees it: in = output image, out = input grid */
    int32_t dtype;
    int pointwise;
    int64_t batch, cin, cout, group, cg, mg, kvol;
    int64_t in_size, out_size; /* spatial element counts of X and Y */
    int64_t block;             /* input columns per GEMM block */
    size_t col_bytes, ws_bytes;
    void *packed_w; /* constant weights packed per group, or NULL */
    size_t packed_group_bytes;
} convt_state;

static void convt_release(kn_kctx *k)
{
    convt_state *st = k->state;
    if (st)
        free(st->packed_w);
    free(st);
    k->state = NULL;
}

/* Reads an ints attribute of `want` values, each >= min; absent keeps dst. */
static int read_ints(kn_kctx *k, const char *name, int32_t want, int64_t min, int64_t *dst)
{
    int32_t n;
    const int64_t *v = kn_attr_ints(k->node, name, &n);
    if (!v)
        return KN_OK;
    if (n != want)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "ConvTranspose: %s has %d values, expected %d",
                       name, (int)n, (int)want);
    for (int32_t i = 0; i < n; i++) {
        if (v[i] < min || v[i] > INT32_MAX) /* huge values would overflow sizes */
            return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                           "ConvTranspose: %s[%d] = %lld is outside [%lld, 2^31)", name, (int)i,
                           (long long)v[i], (long long)min);
        dst[i] = v[i];
    }
    return KN_OK;
}

/* Output spatial sizes and pads from the attributes. */
static int convt_geometry(kn_kctx *k, const int64_t *in, const int64_t *kernel, int32_t nsp,
                          int64_t *out, int64_t *pb, int64_t *pe, int64_t *stride, int64_t *dil)
{
    int64_t opad[KN_WIN_DIMS], pads[2 * KN_WIN_DIMS], oshape[KN_MAX_RANK];
    for (int32_t i = 0; i < nsp; i++) {
        stride[i] = dil[i] = 1;
        opad[i] = pads[i] = pads[nsp + i] = 0;
    }
    int rc;
    if ((rc = read_ints(k, "strides", nsp, 1, stride)) != KN_OK ||
        (rc = read_ints(k, "dilations", nsp, 1, dil)) != KN_OK ||
        (rc = read_ints(k, "output_padding", nsp, 0, opad)) != KN_OK)
        return rc;
    const char *auto_pad = kn_attr_string(k->node, "auto_pad", "NOTSET");
    int upper = strcmp(auto_pad, "SAME_UPPER") == 0, lower = strcmp(auto_pad, "SAME_LOWER") == 0;
    if (!upper && !lower && strcmp(auto_pad, "VALID") != 0 && strcmp(auto_pad, "NOTSET") != 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "ConvTranspose: unknown auto_pad '%s'",
                       auto_pad);
    if (strcmp(auto_pad, "NOTSET") == 0 && (rc = read_ints(k, "pads", 2 * nsp, 0, pads)) != KN_OK)
        return rc;
    int32_t nshape;
    const int64_t *os = kn_attr_ints(k->node, "output_shape", &nshape);
    if (os) {
        /* Spatial dims only per the spec; some exporters write N and C too. */
        if (nshape != nsp && nshape != nsp + 2)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                           "ConvTranspose: output_shape has %d values for %d spatial dims",
                           (int)nshape, (int)nsp);
        memcpy(oshape, os + (nshape - nsp), sizeof(int64_t) * (size_t)nsp);
    }
    for (int32_t i = 0; i < nsp; i++) {
        int64_t full = stride[i] * (in[i] - 1) + opad[i] + (kernel[i] - 1) * dil[i] + 1;
        if (os || upper || lower) {
            int64_t want = os ? oshape[i] : in[i] * stride[i];
            if (want > INT32_MAX)
                return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                               "ConvTranspose: output size %lld is too large", (long long)want);
            int64_t total = full - want;
            int64_t half = img_floor_div(total, 2);
            pb[i] = upper ? half : total - half;
            pe[i] = total - pb[i];
            out[i] = want;
        } else {
            pb[i] = pads[i];
            pe[i] = pads[nsp + i];
            out[i] = full - pb[i] - pe[i];
        }
        if (out[i] < 0 || in[i] < 1)
            return kn_fail(k->err, KN_ERR_SHAPE,
                           "ConvTranspose: spatial dim %d: input %lld gives output %lld", (int)i,
                           (long long)in[i], (long long)out[i]);
    }
    return KN_OK;
}

static void pack_weights(const convt_state *st, const char *w, char *dst)
{
    size_t esz = kn_dtype_size(st->dtype);
    int64_t m = st->mg * st->kvol;
    for (int64_t g = 0; g < st->group; g++)
        kn_gemm_pack_a(st->dtype, 1, m, st->cg, w + (size_t)(g * st->cg * m) * esz, m,
                       dst + st->packed_group_bytes * (size_t)g);
}

static int convt_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *w = k->in[1], *b = kn_input(k, 2);
    if (w->dtype != x->dtype || (b && b->dtype != x->dtype))
        return kn_fail(k->err, KN_ERR_DTYPE, "ConvTranspose: X, W and B must have one type");
    if (x->rank < 3 || w->rank != x->rank)
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "ConvTranspose: X (rank %d) and W (rank %d) must be N x C x spatial",
                       (int)x->rank, (int)w->rank);
    int32_t nsp = x->rank - 2;
    if (nsp > KN_WIN_DIMS)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED,
                       "ConvTranspose: %d spatial dimensions (only 1 to 3 are supported)",
                       (int)nsp);
    int64_t group = kn_attr_int(k->node, "group", 1), cin = x->dims[1];
    if (group < 1 || cin % group != 0 || w->dims[0] != cin)
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "ConvTranspose: W has %lld input channels, X %lld, group %lld",
                       (long long)w->dims[0], (long long)cin, (long long)group);
    int64_t cout = w->dims[1] * group;
    if (b && (b->rank != 1 || b->dims[0] != cout))
        return kn_fail(k->err, KN_ERR_SHAPE, "ConvTranspose: B must be 1-D of %lld",
                       (long long)cout);
    int32_t nk;
    const int64_t *ks = kn_attr_ints(k->node, "kernel_shape", &nk);
    for (int32_t i = 0; ks && i < nsp; i++)
        if (nk != nsp || ks[i] != w->dims[2 + i])
            return kn_fail(k->err, KN_ERR_SHAPE, "ConvTranspose: kernel_shape does not match W");

    int64_t out[KN_WIN_DIMS], pb[KN_WIN_DIMS], pe[KN_WIN_DIMS], stride[KN_WIN_DIMS],
        dil[KN_WIN_DIMS];
    int rc = convt_geometry(k, x->dims + 2, w->dims + 2, nsp, out, pb, pe, stride, dil);
    if (rc != KN_OK)
        return rc;
    convt_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "ConvTranspose: out of memory");
    k->state = st;
    img_window_set(&st->win, nsp, out, x->dims + 2, w->dims + 2, stride, dil, pb, pe);
    st->dtype = x->dtype;
    st->batch = x->dims[0];
    st->cin = cin;
    st->cout = cout;
    st->group = group;
    st->cg = cin / group;
    st->mg = w->dims[1];
    st->kvol = kn_window_kvol(&st->win);
    st->in_size = kn_window_out_size(&st->win);
    st->out_size = kn_window_in_size(&st->win);
    st->pointwise = st->kvol == 1;
    for (int32_t d = 0; d < KN_WIN_DIMS; d++)
        st->pointwise &=
            st->win.stride[d] == 1 && st->win.pad_begin[d] == 0 && st->win.in[d] == st->win.out[d];

    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = x->rank;
    y->dims[0] = x->dims[0];
    y->dims[1] = cout;
    memcpy(y->dims + 2, out, sizeof(int64_t) * (size_t)nsp);

    size_t esz = kn_dtype_size(x->dtype);
    int64_t m = st->mg * st->kvol;
    int32_t threads = kn_threadpool_threads(k->threads);
    if (st->pointwise) {
        st->block = st->in_size > 0 ? st->in_size : 1;
    } else {
        /* ~1 MiB of column matrix per block, whole GEMM panels (16) */
        int64_t block = (int64_t)((1 << 20) / esz) / (m > 0 ? m : 1);
        block = block < 64 ? 64 : block & ~(int64_t)15;
        block = block < st->in_size ? block : st->in_size;
        st->block = block > 0 ? block : 1;
        st->col_bytes = kn_align_up((size_t)m * (size_t)st->block * esz, 64);
    }
    st->ws_bytes =
        kn_align_up(kn_gemm_workspace_size(x->dtype, m, st->block, st->cg, threads), 64);
    k->scratch_bytes = st->col_bytes + st->ws_bytes;
    if (w->data && m > 1 && st->cg > 0) {
        st->packed_group_bytes = kn_align_up(kn_gemm_packed_a_size(x->dtype, m, st->cg), 64);
        st->packed_w = malloc(st->packed_group_bytes * (size_t)group);
        if (!st->packed_w) {
            convt_release(k);
            return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "ConvTranspose: out of memory");
        }
        pack_weights(st, w->data, st->packed_w);
    }
    return KN_OK;
}

typedef struct convt_job {
    const convt_state *st;
    const char *col;
    char *y; /* the group's first output plane */
    int64_t ld, c0, c1;
} convt_job;

static void col2im_channels(void *ctx, int64_t begin, int64_t end)
{
    const convt_job *j = ctx;
    img_col2im(j->st->dtype, &j->st->win, j->col, j->ld, j->y, begin, end, j->c0, j->c1);
}

/* Sets each plane of the group to its bias (or zero) before summing. */
static void fill_bias(const convt_state *st, char *y, const char *bias)
{
    size_t esz = kn_dtype_size(st->dtype);
    for (int64_t c = 0; c < st->mg; c++) {
        char *plane = y + (size_t)(c * st->out_size) * esz;
        if (bias)
            kn_fill_pattern(plane, bias + (size_t)c * esz, esz, st->out_size);
        else
            memset(plane, 0, (size_t)st->out_size * esz);
    }
}

static int convt_run(kn_kctx *k)
{
    const convt_state *st = k->state;
    const kn_tensor *b = kn_input(k, 2);
    const char *x = k->in[0]->data, *w = k->in[1]->data, *bias = b ? b->data : NULL;
    char *y = k->out[0]->data, *col = k->scratch, *ws = col + st->col_bytes;
    size_t esz = kn_dtype_size(st->dtype);
    int64_t m = st->mg * st->kvol;
    if (st->out_size == 0 || st->cout == 0)
        return KN_OK;
    for (int64_t n = 0; n < st->batch; n++) {
        for (int64_t g = 0; g < st->group; g++) {
            const char *xg = x + (size_t)((n * st->cin + g * st->cg) * st->in_size) * esz;
            char *yg = y + (size_t)((n * st->cout + g * st->mg) * st->out_size) * esz;
            const char *bg = bias ? bias + (size_t)(g * st->mg) * esz : NULL;
            kn_gemm_args ga = {
                .trans_a = 1,
                .m = m,
                .k = st->cg,
                .alpha = 1,
                .beta = 0,
                .a = w + (size_t)(g * st->cg * m) * esz,
                .lda = m,
                .ldb = st->in_size,
                .packed_a =
                    st->packed_w ? (char *)st->packed_w + st->packed_group_bytes * (size_t)g : NULL,
            };
            if (st->pointwise) {
                ga.n = st->in_size;
                ga.b = xg;
                ga.c = yg;
                ga.ldc = st->out_size;
                ga.bias = bg;
                if (st->cg == 0)
                    fill_bias(st, yg, bg);
                else
                    kn_gemm(st->dtype, k->threads, &ga, ws, st->ws_bytes);
                continue;
            }
            fill_bias(st, yg, bg);
            if (st->cg == 0)
                continue;
            for (int64_t c0 = 0; c0 < st->in_size; c0 += st->block) {
                int64_t c1 = c0 + st->block < st->in_size ? c0 + st->block : st->in_size;
                ga.n = c1 - c0;
                ga.b = xg + (size_t)c0 * esz;
                ga.c = col;
                ga.ldc = c1 - c0;
                kn_gemm(st->dtype, k->threads, &ga, ws, st->ws_bytes);
                convt_job j = {st, col, yg, c1 - c0, c0, c1};
                int64_t grain = 1 + KN_GRAIN / (st->kvol * (c1 - c0) + 1);
                kn_parallel_for(k->threads, st->mg, grain, col2im_channels, &j);
            }
        }
    }
    return KN_OK;
}

const kn_op_def kn_op_convtranspose_1 = {
    .op_type = "ConvTranspose", .since_version = 1, .until_version = 10,
    .dtypes = KN_MASK_FLOATS, .prepare = convt_prepare, .run = convt_run,
    .release = convt_release
};
const kn_op_def kn_op_convtranspose_11 = {
    .op_type = "ConvTranspose", .since_version = 11, .dtypes = KN_MASK_FLOATS,
    .prepare = convt_prepare, .run = convt_run, .release = convt_release
};
