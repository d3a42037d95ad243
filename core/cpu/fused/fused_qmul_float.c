/* kiln.QMulFloat: a quantized tensor times a float one, requantized,
 * written by the qdq_mul pass in place of a QDQ graph's
 *
 *     DequantizeLinear(a) -> Mul(., b) -> QuantizeLinear -> c
 *
 * where b stays float: the gate of a squeeze-and-excitation block
 * (EfficientNet's Sigmoid of its SE convolutions, one value per channel).
 * Inputs: A, A_scale, A_zero_point, B, C_scale, C_zero_point (scalar
 * scales and zero points; A and C both uint8 or both int8; B float32,
 * numpy broadcasting against A).
 *
 *     c = saturate(round_half_even((float)((a - za) * sa) * b / sc) + zc)
 *
 * with the graph's own float operations in the graph's order, so the
 * result is the unfused graph's exactly (the SIMD table's qmul rows,
 * core/simd/kernels_body.h); one pass over 8-bit values where
 * the graph made three over float ones (its DequantizeLinear may still run
 * for another reader, the SE block's pooling). */
#include <math.h>
#include <stdlib.h>

#include "core/kernel/op.h"
#include "core/kernel/tensor_common.h"
#include "core/simd/kernels.h"

enum { IN_A, IN_AS, IN_AZ, IN_B, IN_CS, IN_CZ };

typedef struct qmul_state {
    kn_bcast_plan plan;
    int32_t dtype; /* A's and C's */
    kn_qmul_params q;
} qmul_state;

typedef struct qmul_job {
    const qmul_state *s;
    const void *a;
    const float *b;
    void *c;
} qmul_job;

static void qmul_row(void *ctx, const int64_t *in_off, int64_t out_off, int64_t n)
{
    const qmul_job *j = ctx;
    const qmul_state *s = j->s;
    int64_t sa = s->plan.strides[0][s->plan.rank - 1], sb = s->plan.strides[1][s->plan.rank - 1];
    const float *b = j->b + in_off[1];
    if (s->dtype == KN_UINT8)
        kn_simd()->qmul_u8((uint8_t *)j->c + out_off, (const uint8_t *)j->a + in_off[0], sa, b, sb,
                           n, &s->q);
    else
        kn_simd()->qmul_s8((int8_t *)j->c + out_off, (const int8_t *)j->a + in_off[0], sa, b, sb, n,
                           &s->q);
}

static void qmul_range(void *ctx, int64_t begin, int64_t end)
{
    const qmul_job *j = ctx;
    kn_bcast_walk(&j->s->plan, begin, end, qmul_row, ctx);
}

/* A scalar constant: a scale (float) or a zero point of `dtype`. */
static int scalar(kn_kctx *k, int32_t j, int32_t dtype, float *out)
{
    const kn_tensor *t = kn_input(k, j);
    if (!t || !t->data || t->dtype != dtype || kn_tensor_numel(t) != 1)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED,
                       "kiln.QMulFloat: input %d must be a constant %s scalar", (int)j,
                       kn_dtype_name(dtype));
    *out = dtype == KN_FLOAT  ? *(const float *)t->data
           : dtype == KN_INT8 ? (float)*(const int8_t *)t->data
                              : (float)*(const uint8_t *)t->data;
    return KN_OK;
}

static int is_q8(const kn_tensor *t) { return t && (t->dtype == KN_UINT8 || t->dtype == KN_INT8); }

static int qmul_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 6) != KN_OK)
        return k->err->code;
    const kn_tensor *a = k->in[IN_A], *b = k->in[IN_B], *cz = k->in[IN_CZ];
    if (!is_q8(a) || !b || b->dtype != KN_FLOAT || !cz || cz->dtype != a->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE,
                       "kiln.QMulFloat: A and C must both be uint8 or both int8, B float32");
    float sa = 0, za = 0, sc = 0, zc = 0;
    int rc = scalar(k, IN_AS, KN_FLOAT, &sa);
    if (rc == KN_OK)
        rc = scalar(k, IN_AZ, a->dtype, &za);
    if (rc == KN_OK)
        rc = scalar(k, IN_CS, KN_FLOAT, &sc);
    if (rc == KN_OK)
        rc = scalar(k, IN_CZ, cz->dtype, &zc);
    if (rc != KN_OK)
        return rc;
    kn_tensor *c = k->out[0];
    if (kn_broadcast_shape(a, b, c, k->err) != KN_OK)
        return k->err->code;
    c->dtype = cz->dtype;
    qmul_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "kiln.QMulFloat: out of memory");
    const kn_tensor *in[2] = {a, b};
    kn_bcast_init(&s->plan, c, 2, in);
    s->dtype = a->dtype;
    /* saturating before rounding gives the same integers: the bounds are */
    s->q = (kn_qmul_params){.za = za,
                            .sa = sa,
                            .sc = sc,
                            .zc = zc,
                            .lo = (c->dtype == KN_INT8 ? -128.0f : 0.0f) - zc,
                            .hi = (c->dtype == KN_INT8 ? 127.0f : 255.0f) - zc};
    k->state = s;
    return KN_OK;
}

static int qmul_run(kn_kctx *k)
{
    const qmul_state *s = k->state;
    qmul_job job = {s, k->in[IN_A]->data, k->in[IN_B]->data, k->out[0]->data};
    if (s->plan.numel > 0)
        kn_parallel_for(k->threads, s->plan.numel, KN_GRAIN, qmul_range, &job);
    return KN_OK;
}

static void qmul_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_kiln_QMulFloat = {.domain = "kiln",
                                        .op_type = "QMulFloat",
                                        .since_version = 1,
                                        .until_version = 1,
                                        .dtypes = KN_BIT(KN_UINT8) | KN_BIT(KN_INT8),
                                        .prepare = qmul_prepare,
                                        .run = qmul_run,
                                        .release = qmul_release};
