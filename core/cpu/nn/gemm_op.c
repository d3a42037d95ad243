/* ONNX Gemm (opsets 1, 6, 7, 9, 11, 13): Y = alpha * A' * B' + beta * C
 * with A' = transA ? A^T : A, B' likewise, on 2-D float or double inputs
 * (float16 / bfloat16 through the float path, half_path.h).
 * C is broadcast unidirectionally to M x N (opset 7+, or with broadcast=1
 * before that; broadcast=0 wants C exactly M x N) and is optional from
 * opset 11. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/op.h"
#include "core/simd/gemm.h"
#include "core/kernel/half_path.h"

typedef struct gemm_state {
    int32_t dtype;
    int trans_a, trans_b;
    double alpha, beta;
    int64_t m, n, k;
    int64_t c_row_step, c_col_step; /* element steps of C along Y's rows / cols; 0 = broadcast */
    int has_c;
    size_t ws_bytes;
} gemm_state;

static int gemm_prepare(kn_kctx *k)
{
    const kn_tensor *a = k->in[0], *b = k->n_in > 1 ? k->in[1] : NULL;
    const kn_tensor *c = k->n_in > 2 ? k->in[2] : NULL;
    if (!a || !b)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Gemm: inputs A and B are required");
    if (b->dtype != a->dtype || (c && c->dtype != a->dtype))
        return kn_fail(k->err, KN_ERR_DTYPE, "Gemm: A is %s but %s is %s", kn_dtype_name(a->dtype),
                       b->dtype != a->dtype ? "B" : "C",
                       kn_dtype_name(b->dtype != a->dtype ? b->dtype : c->dtype));
    if (a->rank != 2 || b->rank != 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "Gemm: A and B must be 2-D, got ranks %d and %d",
                       (int)a->rank, (int)b->rank);
    gemm_state st = {.dtype = a->dtype};
    st.trans_a = kn_attr_int(k->node, "transA", 0) != 0;
    st.trans_b = kn_attr_int(k->node, "transB", 0) != 0;
    st.alpha = kn_attr_float(k->node, "alpha", 1.0f);
    st.beta = kn_attr_float(k->node, "beta", 1.0f);
    st.m = a->dims[st.trans_a ? 1 : 0];
    st.k = a->dims[st.trans_a ? 0 : 1];
    st.n = b->dims[st.trans_b ? 0 : 1];
    int64_t kb = b->dims[st.trans_b ? 1 : 0];
    if (kb != st.k)
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "Gemm: A' is %lldx%lld (transA=%d) but B' is %lldx%lld (transB=%d)",
                       (long long)st.m, (long long)st.k, st.trans_a, (long long)kb,
                       (long long)st.n, st.trans_b);
    if (c) {
        /* Right-align C's dims against (M, N); each must be 1 or equal. */
        int64_t cd[2] = {1, 1};
        if (c->rank > 2)
            return kn_fail(k->err, KN_ERR_SHAPE, "Gemm: C has rank %d, expected at most 2",
                           (int)c->rank);
        for (int32_t i = 0; i < c->rank; i++)
            cd[2 - c->rank + i] = c->dims[i];
        int exact = cd[0] == st.m && cd[1] == st.n;
        if ((cd[0] != 1 && cd[0] != st.m) || (cd[1] != 1 && cd[1] != st.n) ||
            (k->opset < 7 && !kn_attr_int(k->node, "broadcast", 0) && !exact)) {
            char cs[64];
            kn_shape_format(c->dims, c->rank, cs, sizeof cs);
            return kn_fail(k->err, KN_ERR_SHAPE,
                           "Gemm: C of shape %s does not broadcast to %lldx%lld", cs,
                           (long long)st.m, (long long)st.n);
        }
        st.has_c = 1;
        st.c_col_step = cd[1] == 1 ? 0 : 1;
        st.c_row_step = cd[0] == 1 ? 0 : cd[1];
    }
    st.ws_bytes =
        kn_gemm_workspace_size(st.dtype, st.m, st.n, st.k, kn_threadpool_threads(k->threads));
    gemm_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Gemm: out of memory");
    *s = st;
    k->state = s;
    k->scratch_bytes = st.ws_bytes;
    kn_tensor *y = k->out[0];
    y->dtype = a->dtype;
    y->rank = 2;
    y->dims[0] = st.m;
    y->dims[1] = st.n;
    return KN_OK;
}

/* Y = broadcast(C), so the product can then accumulate onto it with beta. */
#define KN_DEFINE_FILL(T, SFX)                                                                     \
    static void fill_c_##SFX(const gemm_state *st, const T *c, T *y)                               \
    {                                                                                              \
        for (int64_t i = 0; i < st->m; i++) {                                                      \
            const T *cr = c + i * st->c_row_step;                                                  \
            T *yr = y + i * st->n;                                                                 \
            if (st->c_col_step)                                                                    \
                memcpy(yr, cr, sizeof(T) * (size_t)st->n);                                         \
            else                                                                                   \
                for (int64_t j = 0; j < st->n; j++)                                                \
                    yr[j] = cr[0];                                                                 \
        }                                                                                          \
    }

KN_DEFINE_FILL(float, f32)
KN_DEFINE_FILL(double, f64)

static int gemm_run(kn_kctx *k)
{
    const gemm_state *st = k->state;
    void *y = k->out[0]->data;
    int use_c = st->has_c && st->beta != 0;
    if (use_c) {
        if (st->dtype == KN_DOUBLE)
            fill_c_f64(st, k->in[2]->data, y);
        else
            fill_c_f32(st, k->in[2]->data, y);
    }
    kn_gemm_args g = {
        .trans_a = st->trans_a, .trans_b = st->trans_b,
        .m = st->m, .n = st->n, .k = st->k,
        .alpha = st->alpha, .beta = use_c ? st->beta : 0,
        .a = k->in[0]->data, .lda = k->in[0]->dims[1],
        .b = k->in[1]->data, .ldb = k->in[1]->dims[1],
        .c = y, .ldc = st->n,
    };
    kn_gemm(st->dtype, k->threads, &g, k->scratch, st->ws_bytes);
    return KN_OK;
}

static void gemm_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* float16 and bfloat16 run the float code above on widened copies
 * (half_path.h); constant B and C are widened once, in prepare. */
static const kn_half_spec gemm_half = {.prepare = gemm_prepare, .run = gemm_run,
                                       .release = gemm_release, .widen = 0x7,
                                       .widen_once = 0x6, .bf16_since = 13};
KN_HALF_ENTRY_POINTS(gemm, gemm_half)

#define KN_GEMM_OP(NAME, FROM, TO, TYPES)                                                          \
    const kn_op_def NAME = { \
    .op_type = "Gemm", .since_version = FROM, .until_version = TO, .dtypes = TYPES, \
    .prepare = gemm_any_prepare, .run = gemm_any_run, .release = gemm_any_release \
};

/* The kernel reads `broadcast` only below opset 7; C is simply optional
 * when absent (required by the schema before 11). float16 from opset 1,
 * bfloat16 from 13 (the integer types of 9+ are not served). */
#define KN_GEMM_1 (KN_MASK_FLOATS | KN_BIT(KN_FLOAT16))
KN_GEMM_OP(kn_op_gemm_1, 1, 6, KN_GEMM_1)
KN_GEMM_OP(kn_op_gemm_7, 7, 8, KN_GEMM_1)
KN_GEMM_OP(kn_op_gemm_9, 9, 10, KN_GEMM_1)
KN_GEMM_OP(kn_op_gemm_11, 11, 12, KN_GEMM_1)
KN_GEMM_OP(kn_op_gemm_13, 13, 0, KN_GEMM_1 | KN_BIT(KN_BFLOAT16))
