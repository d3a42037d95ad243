/* QGemm (com.microsoft 1): Gemm of int8/uint8 matrices,
 *
 *   inputs: A, a_scale, a_zp, B, b_scale, b_zp, C (int32), y_scale, y_zp
 *   acc = (A' - a_zp)(B' - b_zp) + C     (A' = A or A^T by transA, B' likewise)
 *   Y   = saturate(round_half_even(acc * alpha a_scale b_scale / y_scale) + y_zp)
 *
 * acc is the exact int32 product of quant_mm (quant_common.h) plus C, which
 * broadcasts to [M, N] (scalar, [N], [1, N], [M, 1] or [M, N]) and is the
 * bias quantized with scale alpha a_scale b_scale and zero point 0. b_scale
 * and b_zp are per tensor or per column (N). Without y_zero_point Y is
 * float: acc * alpha a_scale b_scale (divided by y_scale when that alone is
 * given, as ONNX Runtime does). The multiplier is formed in float as ONNX
 * Runtime does.
 *
 * quant_mm wants A [M, K] and B [K, N], so transposed operands are copied
 * transposed first: a constant B once in prepare(), anything else per run
 * into scratch. */
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/cpu/quant/ms_quant.h"
#include "core/kernel/tensor_common.h"

enum { IN_A, IN_AS, IN_AZP, IN_B, IN_BS, IN_BZP, IN_C, IN_YS, IN_YZP };

typedef struct qgemm_state {
    quant_mm mm;
    int trans_a, trans_b;
    int32_t y_dtype;              /* KN_FLOAT, or int8/uint8 */
    int64_t m, n, k;
    int64_t c_row, c_col;         /* C's element step per row / column of Y; 0: broadcast */
    uint8_t *b_t;                 /* constant B transposed (owned), or NULL */
    /* scratch: quant_mm's, the int32 products, the multipliers per
     * column, A^T, then B^T */
    size_t mm_bytes, acc_bytes, scale_bytes, at_bytes;
} qgemm_state;

static void qgemm_release(kn_kctx *k)
{
    qgemm_state *s = k->state;
    if (s) {
        quant_mm_release(&s->mm);
        free(s->b_t);
    }
    free(s);
    k->state = NULL;
}

/* C must broadcast to [M, N] in one direction; sets its steps. */
static int check_c(kn_kctx *k, qgemm_state *s, const kn_tensor *c)
{
    int64_t r = c->rank >= 2 ? c->dims[c->rank - 2] : 1, col = c->rank >= 1 ? c->dims[c->rank - 1] : 1;
    if (c->dtype != KN_INT32 || c->rank > 2 || (r != 1 && r != s->m) || (col != 1 && col != s->n)) {
        char sc[128];
        kn_shape_format(c->dims, c->rank, sc, sizeof sc);
        return kn_fail(k->err, KN_ERR_SHAPE, "QGemm: C must be int32 broadcastable to %lldx%lld, "
                       "got %s %s", (long long)s->m, (long long)s->n, kn_dtype_name(c->dtype), sc);
    }
    s->c_col = col == 1 ? 0 : 1;
    s->c_row = r == 1 ? 0 : col;
    return KN_OK;
}

static int qgemm_prepare(kn_kctx *k)
{
    const char *op = "QGemm";
    if (ms_require(k, 1u << IN_A | 1u << IN_AS | 1u << IN_B | 1u << IN_BS,
                   "A, a_scale, B and b_scale") != KN_OK)
        return k->err->code;
    const kn_tensor *a = k->in[IN_A], *b = k->in[IN_B], *c = kn_input(k, IN_C);
    const kn_tensor *ys = kn_input(k, IN_YS), *yzp = kn_input(k, IN_YZP);
    int rc = ms_check_q8(k, "A", a);
    if (rc == KN_OK)
        rc = ms_check_q8(k, "B", b);
    if (rc != KN_OK)
        return rc;
    if (a->rank != 2 || b->rank != 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: A and B must be matrices, got rank %d and %d", op,
                       (int)a->rank, (int)b->rank);
    qgemm_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    s->trans_a = kn_attr_int(k->node, "transA", 0) != 0;
    s->trans_b = kn_attr_int(k->node, "transB", 0) != 0;
    s->m = a->dims[s->trans_a ? 1 : 0];
    s->k = a->dims[s->trans_a ? 0 : 1];
    s->n = b->dims[s->trans_b ? 0 : 1];
    int64_t kb = b->dims[s->trans_b ? 1 : 0];
    if (kb != s->k)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: A gives K = %lld (transA %d) but B gives K = %lld "
                       "(transB %d)", op, (long long)s->k, s->trans_a, (long long)kb, s->trans_b);
    /* What quant_mm multiplies: A as [M, K], B as [K, N] (data only for a
     * constant B, which it then converts once). */
    kn_tensor a_view = {.dtype = a->dtype, .rank = 2, .dims = {s->m, s->k}};
    kn_tensor b_view = {.dtype = b->dtype, .rank = 2, .dims = {s->k, s->n}, .data = b->data};
    if (b->data && s->trans_b) {
        s->b_t = malloc((size_t)(s->k * s->n) + 1);
        if (!s->b_t)
            return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
        ms_transpose_bytes(b->data, s->b_t, s->n, s->k);
        b_view.data = s->b_t;
    }
    rc = quant_mm_prepare(k, &s->mm, &a_view, &b_view, kn_input(k, IN_AZP), kn_input(k, IN_BZP),
                          k->out[0]);
    if (quant_mm_owns_b(&s->mm)) { /* quant_mm keeps B - b_zp itself */
        free(s->b_t);
        s->b_t = NULL;
    }
    if (rc == KN_OK)
        rc = quant_check_pair(k, "a", k->in[IN_AS], kn_input(k, IN_AZP), a->dtype, -1);
    if (rc == KN_OK)
        rc = quant_check_pair(k, "b", k->in[IN_BS], kn_input(k, IN_BZP), b->dtype, s->n);
    if (rc == KN_OK && c)
        rc = check_c(k, s, c);
    s->y_dtype = yzp ? yzp->dtype : KN_FLOAT;
    if (rc == KN_OK && yzp && !ys)
        rc = kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: y_zero_point is given without y_scale", op);
    if (rc == KN_OK && yzp && !q8_is(yzp->dtype))
        rc = kn_fail(k->err, KN_ERR_DTYPE, "%s: y_zero_point must be int8 or uint8, not %s", op,
                     kn_dtype_name(yzp->dtype));
    if (rc == KN_OK && ys)
        rc = quant_check_pair(k, "y", ys, yzp, s->y_dtype, -1);
    if (rc != KN_OK)
        return rc;
    k->out[0]->dtype = s->y_dtype;
    s->mm_bytes = kn_align_up(quant_mm_scratch(&s->mm), 64);
    s->acc_bytes = kn_align_up((size_t)(s->m * s->n) * sizeof(int32_t), 64);
    s->scale_bytes = kn_align_up((size_t)(s->n + 1) * sizeof(float), 64);
    s->at_bytes = s->trans_a ? kn_align_up((size_t)(s->m * s->k), 64) : 0;
    size_t bt_bytes = s->trans_b && !b->data ? (size_t)(s->k * s->n) : 0;
    k->scratch_bytes = s->mm_bytes + s->acc_bytes + s->scale_bytes + s->at_bytes + bt_bytes;
    return KN_OK;
}

typedef struct qgemm_job {
    const qgemm_state *s;
    const int32_t *acc, *c;
    const float *scale;    /* per column of Y, or one */
    int per_column;
    int32_t y_zp;
    void *y;
} qgemm_job;

/* Rows [begin, end) of Y. */
static void qgemm_rows(void *ctx, int64_t begin, int64_t end)
{
    const qgemm_job *j = ctx;
    const qgemm_state *s = j->s;
    for (int64_t r = begin; r < end; r++) {
        const int32_t *acc = j->acc + r * s->n;
        const int32_t *c = j->c ? j->c + r * s->c_row : NULL;
        for (int64_t col = 0; col < s->n; col++) {
            /* the bias joins the exact sum (wrapping, as int32 does) */
            int32_t v = c ? (int32_t)((uint32_t)acc[col] + (uint32_t)c[col * s->c_col]) : acc[col];
            float scale = j->scale[j->per_column ? col : 0];
            if (s->y_dtype == KN_FLOAT)
                ((float *)j->y)[r * s->n + col] = (float)v * scale;
            else
                ((uint8_t *)j->y)[r * s->n + col] =
                    q8_quantize((double)v * scale, j->y_zp, s->y_dtype);
        }
    }
}

static int qgemm_run(kn_kctx *k)
{
    const qgemm_state *s = k->state;
    char *sp = k->scratch;
    int32_t *acc = (int32_t *)(sp + s->mm_bytes);
    float *scales = (float *)(sp + s->mm_bytes + s->acc_bytes);
    uint8_t *at = (uint8_t *)scales + s->scale_bytes, *bt = at + s->at_bytes;
    const uint8_t *a = k->in[IN_A]->data, *b = k->in[IN_B]->data;
    if (s->trans_a) {
        ms_transpose_bytes(a, at, s->k, s->m);
        a = at;
    }
    if (s->b_t) {
        b = s->b_t;
    } else if (s->trans_b && !quant_mm_owns_b(&s->mm)) {
        ms_transpose_bytes(b, bt, s->n, s->k);
        b = bt;
    }
    quant_mm_run(&s->mm, a, b, kn_input(k, IN_AZP), kn_input(k, IN_BZP), acc, k->scratch,
                 k->threads);

    /* alpha a_scale b_scale [/ y_scale], per column or one, in float as
     * ONNX Runtime forms it */
    const kn_tensor *bs = k->in[IN_BS], *ys = kn_input(k, IN_YS);
    int64_t n_scales = kn_tensor_numel(bs);
    float alpha = kn_attr_float(k->node, "alpha", 1.0f), as = ms_scale(k->in[IN_AS]);
    for (int64_t i = 0; i < n_scales; i++) {
        scales[i] = alpha * as * quant_scale_at(bs, i);
        if (ys)
            scales[i] /= ms_scale(ys);
    }
    const kn_tensor *c = kn_input(k, IN_C);
    qgemm_job j = {s, acc, c ? c->data : NULL, scales, n_scales > 1,
                   ms_zp(kn_input(k, IN_YZP)), k->out[0]->data};
    kn_parallel_for(k->threads, s->m, 1 + KN_GRAIN / (s->n > 0 ? s->n : 1), qgemm_rows, &j);
    return KN_OK;
}

const kn_op_def kn_op_QGemm = {
    .domain = QUANT_MS_DOMAIN, .op_type = "QGemm", .since_version = 1, .dtypes = QUANT_MASK_Q8,
    .prepare = qgemm_prepare, .run = qgemm_run, .release = qgemm_release
};
