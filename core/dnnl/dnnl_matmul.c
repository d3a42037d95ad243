/* Matrix products on oneDNN's matmul primitive: MatMul (numpy batching and
 * broadcast, 1-D operands), kiln.FusedMatMul (+ 1-D bias + activation),
 * Gemm and kiln.FusedGemm (transposes, alpha = 1, C as a bias that
 * broadcasts to M x N with beta = 1; anything else declines).
 *
 * A constant B is read in the layout the primitive prefers (blocked), which
 * makes a transformer's matmuls ~13% faster than reading the file's
 * layout. A big initializer only matrix products read (a transformer's
 * weights, a CNN's classifier) is packed into the model's weight store
 * (core/engine/weight_store.h): one copy for all sessions, and the initializer's
 * own pages are given back while no kernel reads them raw, so packing
 * costs no memory. BERT-base, 1 thread: 246 -> 212 ms per run, peak RSS
 * 430 -> 437 MiB (one weight held twice while it is packed; a packed copy
 * per session next to the original would peak at ~755 MiB); vit_b_16:
 * 376 -> 337 ms, 351 -> 355 MiB. The reorders add ~0.2 s to the first
 * session's creation; later sessions reuse the packed copies.
 * Other constants are packed per session when small (at most
 * KN_DNNL_PACK_MAX_BYTES) and read in place when bigger, since their raw
 * bytes must stay for the other readers; a B computed at run time
 * (attention's Q K^T) is always read in place. */
#define KN_DNNL_PACK_MAX_BYTES ((int64_t)1 << 20)
#include <string.h>

#include "core/base/alloc.h"
#include "core/kernel/fused_common.h"
#include "core/kernel/weights.h"
#include "core/dnnl/dnnl_common.h"

/* What a node asks for, reduced to: out = act(A' x B' + bias), with A' of
 * dims a[0..rank), B' of dims b[0..rank) (batch dims broadcast), each
 * possibly read transposed, bias broadcast to the output. */
typedef struct mm_shape {
    int32_t rank;
    int64_t a[KN_MAX_RANK], b[KN_MAX_RANK], y[KN_MAX_RANK];
    int trans_a, trans_b;
    int32_t bias_input;     /* input index of the bias, or -1 */
    int64_t bias[KN_MAX_RANK];
} mm_shape;

/* Dims of a tensor of rank r placed right-aligned in `rank` dims. */
static void right_align(const int64_t *dims, int32_t r, int32_t rank, int64_t *out)
{
    for (int32_t i = 0; i < rank; i++)
        out[i] = i < rank - r ? 1 : dims[i - (rank - r)];
}

static int matmul_shape(kn_kctx *k, int fused, mm_shape *s, int32_t *out_rank, int64_t *out_dims)
{
    const kn_tensor *a = k->in[0], *b = k->in[1];
    if (a->rank < 1 || b->rank < 1 || a->rank > 6 || b->rank > 6)
        return kn_dnnl_decline(k, "rank not served");
    /* 1-D operands: A gets a leading 1 (removed from Y), B a trailing 1 */
    int64_t ad[KN_MAX_RANK], bd[KN_MAX_RANK];
    int32_t ar = a->rank, br = b->rank;
    memcpy(ad, a->dims, sizeof(int64_t) * (size_t)ar);
    memcpy(bd, b->dims, sizeof(int64_t) * (size_t)br);
    if (ar == 1) {
        ad[1] = ad[0];
        ad[0] = 1;
        ar = 2;
    }
    if (br == 1) {
        bd[1] = 1;
        br = 2;
    }
    int32_t rank = ar > br ? ar : br;
    s->rank = rank;
    right_align(ad, ar, rank, s->a);
    right_align(bd, br, rank, s->b);
    if (s->a[rank - 1] != s->b[rank - 2])
        return kn_dnnl_decline(k, "inner dimensions differ");
    for (int32_t i = 0; i < rank - 2; i++) {
        if (s->a[i] != s->b[i] && s->a[i] != 1 && s->b[i] != 1)
            return kn_dnnl_decline(k, "batch dims do not broadcast");
        s->y[i] = s->a[i] == 1 ? s->b[i] : s->a[i];
    }
    s->y[rank - 2] = s->a[rank - 2];
    s->y[rank - 1] = s->b[rank - 1];
    /* Y drops what the 1-D promotions added */
    int32_t yr = 0;
    for (int32_t i = 0; i < rank; i++) {
        if ((i == rank - 2 && a->rank == 1) || (i == rank - 1 && b->rank == 1))
            continue;
        out_dims[yr++] = s->y[i];
    }
    *out_rank = yr;
    /* A batch of rows times one 2-D B is one 2-D product with the batch
     * folded into M: oneDNN then keeps B in its blocked layout instead of
     * re-packing a plain 3-D B on every call. */
    if (b->rank == 2 && a->rank > 2) {
        int64_t rows = 1;
        for (int32_t i = 0; i < rank - 1; i++)
            rows *= s->a[i];
        s->a[0] = s->y[0] = rows;
        s->a[1] = s->a[rank - 1];
        s->b[0] = s->b[rank - 2];
        s->b[1] = s->b[rank - 1];
        s->y[1] = s->b[1];
        s->rank = rank = 2;
    }
    s->bias_input = -1;
    const kn_tensor *bias = fused && k->n_in > 2 ? k->in[2] : NULL;
    if (bias) {
        if (bias->rank != 1 || bias->dims[0] != s->y[rank - 1])
            return kn_dnnl_decline(k, "bias is not 1-D of N");
        s->bias_input = 2;
        for (int32_t i = 0; i < rank; i++)
            s->bias[i] = i == rank - 1 ? s->y[i] : 1;
    }
    return KN_OK;
}

static int gemm_shape(kn_kctx *k, mm_shape *s, int32_t *out_rank, int64_t *out_dims)
{
    const kn_tensor *a = k->in[0], *b = k->in[1];
    const kn_tensor *c = k->n_in > 2 ? k->in[2] : NULL;
    if (a->rank != 2 || b->rank != 2)
        return kn_dnnl_decline(k, "A and B must be 2-D");
    if (kn_attr_float(k->node, "alpha", 1.0f) != 1.0f)
        return kn_dnnl_decline(k, "alpha != 1");
    s->rank = 2;
    s->trans_a = kn_attr_int(k->node, "transA", 0) != 0;
    s->trans_b = kn_attr_int(k->node, "transB", 0) != 0;
    s->a[0] = a->dims[s->trans_a];
    s->a[1] = a->dims[!s->trans_a];
    s->b[0] = b->dims[s->trans_b];
    s->b[1] = b->dims[!s->trans_b];
    if (s->a[1] != s->b[0])
        return kn_dnnl_decline(k, "inner dimensions differ");
    s->y[0] = s->a[0];
    s->y[1] = s->b[1];
    out_dims[0] = s->y[0];
    out_dims[1] = s->y[1];
    *out_rank = 2;
    s->bias_input = -1;
    if (c) {
        if (kn_attr_float(k->node, "beta", 1.0f) != 1.0f)
            return kn_dnnl_decline(k, "beta != 1");
        if (c->rank > 2)
            return kn_dnnl_decline(k, "C has rank > 2");
        right_align(c->dims, c->rank, 2, s->bias);
        for (int32_t i = 0; i < 2; i++)
            if (s->bias[i] != 1 && s->bias[i] != s->y[i])
                return kn_dnnl_decline(k, "C does not broadcast to M x N");
        s->bias_input = 2;
    }
    return KN_OK;
}

/* Plain md of dims, read transposed in its last two dims when trans. */
static int md_maybe_trans(dnnl_memory_desc_t *md, int32_t rank, const int64_t *dims, int trans,
                          kn_err *err)
{
    if (!trans)
        return kn_dnnl_md_plain(md, rank, dims, 0, err);
    dnnl_dims_t d, st;
    for (int32_t i = 0; i < rank; i++)
        d[i] = dims[i];
    /* stored as (..., cols, rows) */
    st[rank - 2] = 1;
    st[rank - 1] = dims[rank - 2];
    int64_t stride = dims[rank - 2] * dims[rank - 1];
    for (int32_t i = rank - 3; i >= 0; i--) {
        st[i] = stride;
        stride *= dims[i];
    }
    return dnnl_memory_desc_init_by_strides(md, rank, d, dnnl_f32, st) == dnnl_success
               ? KN_OK
               : kn_fail(err, KN_ERR_DECLINE, "oneDNN: transposed descriptor");
}

typedef struct mm_state {
    kn_dnnl_prim prim; /* first: the state is kn_dnnl_prepare's */
    /* bfloat16 (KN_PRECISION_BF16 on a CPU with bf16 instructions): A is
     * converted into the scratch by this reorder before each product, B was
     * converted once with its packing */
    kn_dnnl_prim to_bf16;
    int bf16;
} mm_state;

/* Descriptor of dims in bfloat16, plain (row-major) or `any`. */
static int md_bf16(dnnl_memory_desc_t *md, int32_t rank, const int64_t *dims, int any, kn_err *err)
{
    dnnl_dims_t d;
    for (int32_t i = 0; i < rank; i++)
        d[i] = dims[i];
    static const dnnl_format_tag_t plain[] = {dnnl_format_tag_undef, dnnl_a, dnnl_ab, dnnl_abc,
                                              dnnl_abcd, dnnl_abcde, dnnl_abcdef};
    return dnnl_memory_desc_init_by_tag(md, rank, d, dnnl_bf16,
                                        any ? dnnl_format_tag_any : plain[rank]) == dnnl_success
               ? KN_OK
               : kn_fail(err, KN_ERR_DECLINE, "oneDNN: bf16 descriptor");
}

static int mm_build_inner(kn_kctx *k, kn_dnnl_prim *p, int gemm, int fused)
{
    mm_state *st = (mm_state *)p;
    const kn_tensor *a = k->in[0], *b = k->n_in > 1 ? k->in[1] : NULL;
    if (!a || !b || a->dtype != KN_FLOAT || b->dtype != KN_FLOAT)
        return kn_dnnl_decline(k, "float32 only");
    for (int32_t j = 2; j < k->n_in; j++)
        if (k->in[j] && k->in[j]->dtype != KN_FLOAT)
            return kn_dnnl_decline(k, "float32 only");
    kn_activation act = {0};
    if (fused && kn_fused_activation(k, &act) != KN_OK)
        return kn_dnnl_decline(k, "left to the CPU kernel");
    mm_shape s = {0};
    kn_tensor *y = k->out[0];
    int rc = gemm ? gemm_shape(k, &s, &y->rank, y->dims) : matmul_shape(k, fused, &s, &y->rank,
                                                                         y->dims);
    if (rc != KN_OK)
        return rc;
    y->dtype = KN_FLOAT;
    if (kn_dnnl_too_large(y))
        return kn_dnnl_decline(k, "output too large");
    /* One output row is a matrix-vector product: Kiln's kernel streams the
     * weight rows as stored, while oneDNN's M = 1 path over its blocked
     * layout reads them more slowly when they are not cached (a CNN's
     * classifier, read once per run: mobilenet_v2's 1000 x 1280 Gemm takes
     * 0.42 ms on oneDNN, 0.27 ms on Kiln's kernel, inside the model). */
    if (kn_tensor_numel(y) == s.y[s.rank - 1])
        return kn_dnnl_decline(k, "one output row: Kiln's matrix-vector kernel is faster");
    if ((double)kn_tensor_numel(y) * (double)s.a[s.rank - 1] < KN_DNNL_MIN_MACS)
        return kn_dnnl_decline(k, "too small for a oneDNN call");

    dnnl_memory_desc_t amd, bmd_user, bmd, ymd, cmd;
    rc = md_maybe_trans(&amd, s.rank, s.a, s.trans_a, k->err);
    if (rc == KN_OK)
        rc = md_maybe_trans(&bmd_user, s.rank, s.b, s.trans_b, k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_md_plain(&ymd, s.rank, s.y, 0, k->err);
    if (rc == KN_OK && s.bias_input >= 0)
        rc = kn_dnnl_md_plain(&cmd, s.rank, s.bias, 0, k->err);
    /* a shared initializer is packed into the model's shared store */
    int shared = b->data && kn_weight_store_shares(k->weights, k->node->inputs[1]);
    /* bf16: constant B (converted once), A as stored (converted per run) */
    st->bf16 = rc == KN_OK && b->data && !s.trans_a && kn_dnnl_bf16_wanted(k);
    dnnl_memory_desc_t amd_bf16;
    if (st->bf16 && (md_bf16(&amd_bf16, s.rank, s.a, 0, k->err) != KN_OK ||
                     md_bf16(&bmd, s.rank, s.b, 1, k->err) != KN_OK))
        st->bf16 = 0;
    if (!st->bf16)
        bmd = bmd_user;
    if (rc == KN_OK && !st->bf16 && b->data &&
        (shared || kn_tensor_nbytes(b) <= KN_DNNL_PACK_MAX_BYTES)) {
        dnnl_dims_t d;
        for (int32_t i = 0; i < s.rank; i++)
            d[i] = s.b[i];
        if (dnnl_memory_desc_init_by_tag(&bmd, s.rank, d, dnnl_f32, dnnl_format_tag_any) !=
            dnnl_success)
            rc = kn_dnnl_decline(k, "weights descriptor");
    }
    dnnl_matmul_desc_t md;
    if (rc == KN_OK) {
        dnnl_status_t ds = dnnl_matmul_desc_init(&md, st->bf16 ? &amd_bf16 : &amd, &bmd,
                                                 s.bias_input >= 0 ? &cmd : NULL, &ymd);
        if (ds != dnnl_success)
            rc = kn_dnnl_fail(k->err, ds, "matmul descriptor");
    }
    kn_dnnl_take_activation(p, &act);
    dnnl_primitive_desc_t pd = NULL;
    if (rc == KN_OK)
        rc = kn_dnnl_pd_create(&md, &act, 0, NULL, p, &pd, k->err);
    if (rc != KN_OK)
        return rc;
    size_t a_off = 0;
    if (st->bf16) {
        rc = kn_dnnl_add_bf16_src(k, p, &st->to_bf16, pd, &amd, &amd_bf16, &a_off);
    } else {
        rc = kn_dnnl_add_arg(p, DNNL_ARG_SRC, KN_DNNL_BIND_INPUT, 0, &amd, k->err);
    }
    /* one way in bf16: the packed copy cannot give the float32 bytes back */
    if (rc == KN_OK && shared)
        rc = kn_dnnl_add_shared_weights(p, k, 1, &bmd_user,
                                        dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0),
                                        st->bf16);
    else if (rc == KN_OK && b->data)
        rc = kn_dnnl_add_const_weights(p, &bmd_user,
                                       dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0),
                                       b->data, k->err);
    else if (rc == KN_OK)
        rc = kn_dnnl_add_arg(p, DNNL_ARG_WEIGHTS, KN_DNNL_BIND_INPUT, 1, &bmd, k->err);
    if (rc == KN_OK && s.bias_input >= 0)
        rc = kn_dnnl_add_arg(p, DNNL_ARG_BIAS, KN_DNNL_BIND_INPUT, s.bias_input, &cmd,
                             k->err);
    if (rc == KN_OK)
        rc = kn_dnnl_add_arg(p, DNNL_ARG_DST, KN_DNNL_BIND_OUTPUT, 0, &ymd, k->err);
    if (rc == KN_OK) {
        rc = kn_dnnl_finish(p, pd, k);
        if (rc == KN_OK && st->bf16)
            k->scratch_bytes = kn_dnnl_bf16_src_scratch(a_off, &amd_bf16);
        return rc;
    }
    dnnl_primitive_desc_destroy(pd);
    return rc;
}

static int mm_build(kn_kctx *k, kn_dnnl_prim *p, int gemm, int fused)
{
    int rc = mm_build_inner(k, p, gemm, fused);
    if (rc != KN_OK) /* kn_dnnl_prepare releases the first primitive only */
        kn_dnnl_prim_destroy(&((mm_state *)p)->to_bf16);
    return rc;
}

static int mm_run(kn_kctx *k)
{
    mm_state *st = k->state;
    int rc = st->bf16 ? kn_dnnl_execute(&st->to_bf16, k) : KN_OK;
    return rc == KN_OK ? kn_dnnl_execute(&st->prim, k) : rc;
}

static void mm_release(kn_kctx *k)
{
    mm_state *st = k->state;
    if (st)
        kn_dnnl_prim_destroy(&st->to_bf16);
    kn_dnnl_release(k);
}

static int mm_prepare_common(kn_kctx *k, int gemm, int fused)
{
    if (k->n_in < 2 || !k->in[0] || !k->in[1])
        return kn_dnnl_decline(k, "A and B are required");
    return kn_dnnl_prepare(k, sizeof(mm_state), mm_build, gemm, fused);
}

static int matmul_prepare(kn_kctx *k) { return mm_prepare_common(k, 0, 0); }
static int fused_matmul_prepare(kn_kctx *k) { return mm_prepare_common(k, 0, 1); }
static int gemm_prepare(kn_kctx *k) { return mm_prepare_common(k, 1, 0); }
static int fused_gemm_prepare(kn_kctx *k) { return mm_prepare_common(k, 1, 1); }

/* KN_OP_PACKS_WEIGHTS: prepare takes B from the model's weight store
 * (kn_dnnl_add_shared_weights) when the store shares it. */
#define MM_DEF(name, domain_arg, op, since, until, prep)                                               \
    const kn_op_def name = { \
    .domain = domain_arg, .op_type = op, .since_version = since, .until_version = until, \
    .dtypes = KN_BIT(KN_FLOAT), .flags = KN_OP_PACKS_WEIGHTS, .prepare = prep, \
    .run = mm_run, .release = mm_release \
};
MM_DEF(kn_dnnl_matmul, "", "MatMul", 1, 0, matmul_prepare)
MM_DEF(kn_dnnl_fused_matmul, "kiln", "FusedMatMul", 1, 1, fused_matmul_prepare)
MM_DEF(kn_dnnl_gemm, "", "Gemm", 1, 0, gemm_prepare)
MM_DEF(kn_dnnl_fused_gemm, "kiln", "FusedGemm", 1, 1, fused_gemm_prepare)
