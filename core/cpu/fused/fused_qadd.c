/* kiln.QAdd: the sum of two quantized tensors, requantized, written by the
 * qdq_add pass in place of a QDQ graph's
 *
 *     DequantizeLinear(a), DequantizeLinear(b) -> Add -> QuantizeLinear
 *         (-> DequantizeLinear -> Relu -> QuantizeLinear, same parameters)?
 *
 * Inputs as com.microsoft's QLinearAdd: A, A_scale, A_zero_point, B, B_scale,
 * B_zero_point, C_scale, C_zero_point (scalar scales and zero points, uint8
 * or int8 tensors, numpy broadcasting). Attribute relu = 1 clamps the
 * result at C's zero point, which is exactly QuantizeLinear(Relu(real)) with
 * C's parameters.
 *
 *     c = saturate(round(ka * a + kb * b + k0)),  ka = sa / sc, kb = sb / sc,
 *     k0 = zc - ka * za - kb * zb
 *
 * in float (the SIMD table's qadd rows, core/simd/kernels_body.h): one
 * multiply-add per operand and a rounding per element, where the graph as
 * written took two DequantizeLinear, an Add, a QuantizeLinear and (with the
 * Relu) three more passes over memory. The rounding is to nearest even, as
 * QuantizeLinear's; the float products can put a result one step away from
 * the double-precision reference at an exact tie. */
#include <math.h>
#include <stdlib.h>

#include "core/kernel/op.h"
#include "core/kernel/tensor_common.h"
#include "core/simd/kernels.h"

typedef struct qadd_state {
    kn_bcast_plan plan;
    kn_qadd_params q;
    int32_t dtype; /* KN_UINT8 or KN_INT8 */
} qadd_state;

typedef struct qadd_job {
    const qadd_state *s;
    const void *a, *b;
    void *c;
} qadd_job;

static void qadd_row(void *ctx, const int64_t *in_off, int64_t out_off, int64_t n)
{
    const qadd_job *j = ctx;
    const qadd_state *s = j->s;
    int64_t sa = s->plan.strides[0][s->plan.rank - 1], sb = s->plan.strides[1][s->plan.rank - 1];
    if (s->dtype == KN_UINT8)
        kn_simd()->qadd_u8((uint8_t *)j->c + out_off, (const uint8_t *)j->a + in_off[0], sa,
                           (const uint8_t *)j->b + in_off[1], sb, n, &s->q);
    else
        kn_simd()->qadd_s8((int8_t *)j->c + out_off, (const int8_t *)j->a + in_off[0], sa,
                           (const int8_t *)j->b + in_off[1], sb, n, &s->q);
}

static void qadd_range(void *ctx, int64_t begin, int64_t end)
{
    const qadd_job *j = ctx;
    kn_bcast_walk(&j->s->plan, begin, end, qadd_row, ctx);
}

/* A scalar constant scale (float) or zero point (the data type). */
static int scalar(kn_kctx *k, int32_t j, int32_t dtype, float *out)
{
    const kn_tensor *t = kn_input(k, j);
    if (!t || !t->data || t->dtype != dtype || kn_tensor_numel(t) != 1)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED,
                       "kiln.QAdd: input %d must be a constant %s scalar", (int)j,
                       kn_dtype_name(dtype));
    *out = dtype == KN_FLOAT   ? *(const float *)t->data
           : dtype == KN_INT8 ? (float)*(const int8_t *)t->data
                              : (float)*(const uint8_t *)t->data;
    return KN_OK;
}

static int qadd_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 8) != KN_OK)
        return k->err->code;
    const kn_tensor *a = k->in[0], *b = k->in[3];
    if (!a || !b || (a->dtype != KN_UINT8 && a->dtype != KN_INT8) || b->dtype != a->dtype ||
        !k->in[7] || k->in[7]->dtype != a->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "kiln.QAdd: A, B and C must all be uint8 or int8");
    float sa = 0, za = 0, sb = 0, zb = 0, sc = 0, zc = 0;
    int rc = scalar(k, 1, KN_FLOAT, &sa);
    if (rc == KN_OK)
        rc = scalar(k, 2, a->dtype, &za);
    if (rc == KN_OK)
        rc = scalar(k, 4, KN_FLOAT, &sb);
    if (rc == KN_OK)
        rc = scalar(k, 5, a->dtype, &zb);
    if (rc == KN_OK)
        rc = scalar(k, 6, KN_FLOAT, &sc);
    if (rc == KN_OK)
        rc = scalar(k, 7, a->dtype, &zc);
    if (rc != KN_OK)
        return rc;
    if (!(sc > 0.0f) || !isfinite(sc))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "kiln.QAdd: C_scale must be positive");
    const float ka = sa / sc, kb = sb / sc, k0 = zc - ka * za - kb * zb;
    /* an infinite or NaN factor makes NaN sums, which no rounding turns
     * into an integer */
    if (!isfinite(ka) || !isfinite(kb) || !isfinite(k0))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "kiln.QAdd: A_scale %g and B_scale %g over C_scale %g do not give finite "
                       "factors",
                       (double)sa, (double)sb, (double)sc);
    kn_tensor *c = k->out[0];
    if (kn_broadcast_shape(a, b, c, k->err) != KN_OK)
        return k->err->code;
    c->dtype = a->dtype;
    qadd_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "kiln.QAdd: out of memory");
    const kn_tensor *in[2] = {a, b};
    kn_bcast_init(&s->plan, c, 2, in);
    s->dtype = a->dtype;
    s->q.ka = ka;
    s->q.kb = kb;
    s->q.k0 = k0;
    s->q.lo = a->dtype == KN_UINT8 ? 0.0f : -128.0f;
    s->q.hi = a->dtype == KN_UINT8 ? 255.0f : 127.0f;
    if (kn_attr_int(k->node, "relu", 0))
        s->q.lo = zc; /* Relu: real 0 is C's zero point */
    k->state = s;
    return KN_OK;
}

static int qadd_run(kn_kctx *k)
{
    const qadd_state *s = k->state;
    qadd_job job = {s, k->in[0]->data, k->in[3]->data, k->out[0]->data};
    if (s->plan.numel > 0)
        kn_parallel_for(k->threads, s->plan.numel, KN_GRAIN, qadd_range, &job);
    return KN_OK;
}

static void qadd_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_kiln_QAdd = {
    .domain = "kiln", .op_type = "QAdd", .since_version = 1, .until_version = 1,
    .dtypes = KN_BIT(KN_UINT8) | KN_BIT(KN_INT8), .prepare = qadd_prepare, .run = qadd_run,
    .release = qadd_release
};
