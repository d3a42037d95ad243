/* QLinearAdd and QLinearMul (com.microsoft 1): elementwise on int8/uint8
 * operands of one type, with numpy broadcasting and per-tensor scales:
 *
 *   QLinearAdd: C = (A_scale (A - A_zp) + B_scale (B - B_zp)) / C_scale + C_zp
 *   QLinearMul: C = (A - A_zp)(B - B_zp) A_scale B_scale / C_scale + C_zp
 *
 * rounded half to even and saturated to the type, computed in double
 * (the one rounding that matters is the last). Each operand has only 256
 * possible bytes, so run() first tabulates each operand's term (Add:
 * A_scale / C_scale (a - A_zp); Mul: the integer a - A_zp) and the element
 * loop is two lookups, an add (Mul: the exact integer product times the
 * multiplier) and the rounding. 512 table entries per run cost less than
 * the first thousand elements; scales that are not constants need no other
 * path.
 *
 * ONNX Runtime computes these in float, so a value within about 1e-6 of a
 * tie (decimal scales make such values common) may round the other way
 * there: one step (tests/models/test_msquant_vs_ort.py counts them).
 */
#include <stdlib.h>

#include "core/cpu/quant/ms_quant.h"
#include "core/kernel/tensor_common.h"

typedef struct qbin_state {
    kn_bcast_plan plan;
    int32_t dtype;
} qbin_state;

static void qbin_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

static int qbin_prepare(kn_kctx *k)
{
    const char *op = k->node->op_type;
    if (ms_require(k, 1u << 0 | 1u << 1 | 1u << 3 | 1u << 4 | 1u << 6,
                   "A, A_scale, B, B_scale and C_scale") != KN_OK)
        return k->err->code;
    const kn_tensor *a = k->in[0], *b = k->in[3];
    int rc = ms_check_q8(k, "A", a);
    if (rc == KN_OK && b->dtype != a->dtype)
        rc = kn_fail(k->err, KN_ERR_DTYPE, "%s: A is %s but B is %s; both must have one type", op,
                     kn_dtype_name(a->dtype), kn_dtype_name(b->dtype));
    if (rc == KN_OK)
        rc = ms_check_scalar_pair(k, "A", k->in[1], kn_input(k, 2), a->dtype);
    if (rc == KN_OK)
        rc = ms_check_scalar_pair(k, "B", k->in[4], kn_input(k, 5), a->dtype);
    if (rc == KN_OK)
        rc = ms_check_scalar_pair(k, "C", k->in[6], kn_input(k, 7), a->dtype);
    if (rc != KN_OK)
        return rc;
    kn_tensor *y = k->out[0];
    if (kn_broadcast_shape(a, b, y, k->err) != KN_OK) {
        kn_err_prefix(k->err, "%s", op);
        return k->err->code;
    }
    y->dtype = a->dtype;
    qbin_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    s->dtype = a->dtype;
    const kn_tensor *ins[2] = {a, b};
    kn_bcast_init(&s->plan, y, 2, ins);
    k->state = s;
    return KN_OK;
}

typedef struct qbin_job {
    const qbin_state *s;
    const uint8_t *a, *b;
    uint8_t *y;
    double ta[256], tb[256]; /* each operand's term by byte */
    double mult;             /* Mul: the scales' product over C_scale */
    int32_t y_zp;
    int mul;
} qbin_job;

static void qbin_row(void *ctx, const int64_t *in_off, int64_t out_off, int64_t n)
{
    const qbin_job *j = ctx;
    const kn_bcast_plan *p = &j->s->plan;
    const int64_t sa = p->strides[0][p->rank - 1], sb = p->strides[1][p->rank - 1];
    const uint8_t *a = j->a + in_off[0], *b = j->b + in_off[1];
    uint8_t *y = j->y + out_off;
    int32_t zp = j->y_zp, dt = j->s->dtype;
    if (j->mul)
        for (int64_t i = 0; i < n; i++)
            y[i] = q8_quantize(j->ta[a[i * sa]] * j->tb[b[i * sb]] * j->mult, zp, dt);
    else
        for (int64_t i = 0; i < n; i++)
            y[i] = q8_quantize(j->ta[a[i * sa]] + j->tb[b[i * sb]], zp, dt);
}

static void qbin_range(void *ctx, int64_t begin, int64_t end)
{
    const qbin_job *j = ctx;
    kn_bcast_walk(&j->s->plan, begin, end, qbin_row, ctx);
}

static int qbin_run(kn_kctx *k, int mul)
{
    const qbin_state *s = k->state;
    qbin_job j = {.s = s, .a = k->in[0]->data, .b = k->in[3]->data, .y = k->out[0]->data,
                  .y_zp = ms_zp(kn_input(k, 7)), .mul = mul};
    double as = ms_scale(k->in[1]), bs = ms_scale(k->in[4]), cs = ms_scale(k->in[6]);
    int32_t a_zp = ms_zp(kn_input(k, 2)), b_zp = ms_zp(kn_input(k, 5));
    /* Add: each term over C_scale; Mul: the integers, whose product is
     * exact, then one multiply */
    double ma = mul ? 1.0 : as / cs, mb = mul ? 1.0 : bs / cs;
    j.mult = as * bs / cs;
    for (int v = 0; v < 256; v++) {
        j.ta[v] = ma * (q8_value(s->dtype, (uint8_t)v) - a_zp);
        j.tb[v] = mb * (q8_value(s->dtype, (uint8_t)v) - b_zp);
    }
    if (s->plan.numel > 0)
        kn_parallel_for(k->threads, s->plan.numel, KN_GRAIN, qbin_range, &j);
    return KN_OK;
}

static int qadd_run(kn_kctx *k) { return qbin_run(k, 0); }
static int qmul_run(kn_kctx *k) { return qbin_run(k, 1); }

const kn_op_def kn_op_QLinearAdd = {
    .domain = QUANT_MS_DOMAIN, .op_type = "QLinearAdd", .since_version = 1,
    .dtypes = QUANT_MASK_Q8, .prepare = qbin_prepare, .run = qadd_run, .release = qbin_release
};
const kn_op_def kn_op_QLinearMul = {
    .domain = QUANT_MS_DOMAIN, .op_type = "QLinearMul", .since_version = 1,
    .dtypes = QUANT_MASK_Q8, .prepare = qbin_prepare, .run = qmul_run, .release = qbin_release
};
