/* QLinearSigmoid and QLinearLeakyRelu (com.microsoft 1): a float function
 * applied to the dequantized input and quantized again,
 *
 *   Y = quantize(f(X_scale (X - X_zp)) / Y_scale + Y_zp)
 *
 * with per-tensor scales. An 8-bit input has 256 possible bytes, so the
 * result is a 256-entry byte table: built once in prepare() when the
 * scales and zero points are constants (the usual case: the element loop
 * is then one lookup), per run when they are not and the tensor has more
 * elements than the table, and per element otherwise. All three paths
 * compute each value with the same function, so they agree exactly.
 *
 * Arithmetic follows ONNX Runtime: dequantize in float, f in float (the
 * sigmoid through double, which its float result rounds from), the
 * quotient by Y_scale in float, rounded half to even. */
#include <math.h>
#include <stdlib.h>

#include "core/cpu/quant/ms_quant.h"
#include "core/kernel/tensor_common.h"

typedef struct qlut_params {
    int32_t dtype;
    float x_scale, y_scale, alpha;
    int32_t x_zp, y_zp;
    int sigmoid;
} qlut_params;

typedef struct qlut_state {
    qlut_params p;
    int have_table; /* table holds the constant-parameter result */
    uint8_t table[256];
} qlut_state;

static uint8_t qlut_value(const qlut_params *p, uint8_t byte)
{
    float x = p->x_scale * (float)(q8_value(p->dtype, byte) - p->x_zp);
    float y = p->sigmoid ? (float)(1.0 / (1.0 + exp(-(double)x))) : x >= 0 ? x : p->alpha * x;
    return q8_quantize((double)(y / p->y_scale), p->y_zp, p->dtype);
}

static void qlut_build(const qlut_params *p, uint8_t *table)
{
    for (int v = 0; v < 256; v++)
        table[v] = qlut_value(p, (uint8_t)v);
}

static void qlut_params_read(kn_kctx *k, qlut_params *p, int sigmoid)
{
    p->dtype = k->in[0]->dtype;
    p->x_scale = ms_scale(k->in[1]);
    p->x_zp = ms_zp(kn_input(k, 2));
    p->y_scale = ms_scale(k->in[3]);
    p->y_zp = ms_zp(kn_input(k, 4));
    p->alpha = kn_attr_float(k->node, "alpha", 0.01f);
    p->sigmoid = sigmoid;
}

static void qlut_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

static int qlut_prepare(kn_kctx *k, int sigmoid)
{
    const char *op = k->node->op_type;
    if (ms_require(k, 1u << 0 | 1u << 1 | 1u << 3, "X, X_scale and Y_scale") != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    int rc = ms_check_q8(k, "X", x);
    if (rc == KN_OK)
        rc = ms_check_scalar_pair(k, "X", k->in[1], kn_input(k, 2), x->dtype);
    if (rc == KN_OK)
        rc = ms_check_scalar_pair(k, "Y", k->in[3], kn_input(k, 4), x->dtype);
    if (rc != KN_OK)
        return rc;
    qlut_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    int known = 1;
    for (int32_t i = 1; i <= 4; i++)
        known &= ms_known(kn_input(k, i));
    if (known) {
        qlut_params_read(k, &s->p, sigmoid);
        qlut_build(&s->p, s->table);
        s->have_table = 1;
    }
    kn_copy_desc(k->out[0], x);
    return KN_OK;
}

typedef struct qlut_job {
    const qlut_params *p;
    const uint8_t *table; /* or NULL: per element */
    const uint8_t *x;
    uint8_t *y;
} qlut_job;

static void qlut_range(void *ctx, int64_t begin, int64_t end)
{
    const qlut_job *j = ctx;
    if (j->table)
        for (int64_t i = begin; i < end; i++)
            j->y[i] = j->table[j->x[i]];
    else
        for (int64_t i = begin; i < end; i++)
            j->y[i] = qlut_value(j->p, j->x[i]);
}

static int qlut_run(kn_kctx *k, int sigmoid)
{
    const qlut_state *s = k->state;
    int64_t n = kn_tensor_numel(k->in[0]);
    qlut_params p;
    uint8_t table[256];
    qlut_job j = {&s->p, s->table, k->in[0]->data, k->out[0]->data};
    if (!s->have_table) {
        qlut_params_read(k, &p, sigmoid);
        j.p = &p;
        j.table = NULL;
        if (n > 256) {
            qlut_build(&p, table);
            j.table = table;
        }
    }
    kn_parallel_for(k->threads, n, KN_GRAIN, qlut_range, &j);
    return KN_OK;
}

static int sigmoid_prepare(kn_kctx *k) { return qlut_prepare(k, 1); }
static int sigmoid_run(kn_kctx *k) { return qlut_run(k, 1); }
static int leaky_prepare(kn_kctx *k) { return qlut_prepare(k, 0); }
static int leaky_run(kn_kctx *k) { return qlut_run(k, 0); }

const kn_op_def kn_op_QLinearSigmoid = {
    .domain = QUANT_MS_DOMAIN, .op_type = "QLinearSigmoid", .since_version = 1,
    .dtypes = QUANT_MASK_Q8, .flags = KN_OP_INPLACE, .prepare = sigmoid_prepare,
    .run = sigmoid_run, .release = qlut_release
};
const kn_op_def kn_op_QLinearLeakyRelu = {
    .domain = QUANT_MS_DOMAIN, .op_type = "QLinearLeakyRelu", .since_version = 1,
    .dtypes = QUANT_MASK_Q8, .flags = KN_OP_INPLACE, .prepare = leaky_prepare,
    .run = leaky_run, .release = qlut_release
};
