/* QLinearConcat (com.microsoft 1): Concat of int8/uint8 tensors that each
 * have their own scale and zero point, requantized to the output's:
 *
 *   inputs: Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) per tensor
 *   Y = concat over `axis` of quantize(X_scale (X - X_zp) / Y_scale + Y_zp)
 *
 * Each input maps its 256 possible bytes through a table built per run
 * (256 entries per input, less work than the copy itself); an input whose
 * scale and zero point equal the output's is copied as it is. Values are
 * computed as ONNX Runtime does: dequantized in float, divided by Y_scale
 * in float, rounded half to even. */
#include <stdlib.h>
#include <string.h>

#include "core/cpu/quant/ms_quant.h"
#include "core/kernel/tensor_common.h"

enum { FIRST_X = 2 };

typedef struct qconcat_shape {
    int32_t n;           /* inputs */
    int32_t dtype;
    int64_t outer;       /* product of the dims before axis */
    int64_t out_chunk;   /* bytes of Y per outer index */
} qconcat_shape;

/* The triple of input t: X at FIRST_X + 3 t. */
static const kn_tensor *x_of(const kn_kctx *k, int32_t t) { return k->in[FIRST_X + 3 * t]; }

static int qconcat_prepare(kn_kctx *k)
{
    const char *op = "QLinearConcat";
    int32_t n_in = k->n_in;
    if (n_in < FIRST_X + 3 || (n_in - FIRST_X) % 3 != 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "%s: expected Y_scale, Y_zero_point and (X, X_scale, X_zero_point) per "
                       "tensor, got %d inputs", op, (int)n_in);
    if (!k->in[0] || !k->out[0])
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: Y_scale and the output are required", op);
    int32_t n = (n_in - FIRST_X) / 3;
    for (int32_t t = 0; t < n; t++)
        if (!x_of(k, t) || !k->in[FIRST_X + 3 * t + 1])
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: tensor %d or its scale is missing",
                           op, (int)t);
    const kn_tensor *y_zp = kn_input(k, 1), *x0 = x_of(k, 0);
    int32_t dtype = y_zp ? y_zp->dtype : x0->dtype;
    if (!q8_is(dtype))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: Y_zero_point must be int8 or uint8, not %s", op,
                       kn_dtype_name(dtype));
    int rc = ms_check_scalar_pair(k, "Y", k->in[0], y_zp, dtype);
    if (rc != KN_OK)
        return rc;
    if (!kn_node_attr(k->node, "axis"))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: attribute axis is required", op);
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", 0), x0->rank, NULL);
    if (axis < 0 || x0->rank < 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: axis %lld is out of range for rank %d",
                       op, (long long)kn_attr_int(k->node, "axis", 0), (int)x0->rank);
    kn_tensor *y = k->out[0];
    kn_copy_desc(y, x0);
    y->dtype = dtype;
    y->dims[axis] = 0;
    char sa[128], sb[128];
    for (int32_t t = 0; t < n; t++) {
        const kn_tensor *x = x_of(k, t);
        if (x->dtype != dtype)
            return kn_fail(k->err, KN_ERR_DTYPE, "%s: tensor %d is %s but Y is %s", op, (int)t,
                           kn_dtype_name(x->dtype), kn_dtype_name(dtype));
        rc = ms_check_scalar_pair(k, "X", k->in[FIRST_X + 3 * t + 1],
                                  kn_input(k, FIRST_X + 3 * t + 2), dtype);
        if (rc != KN_OK)
            return rc;
        int same = x->rank == x0->rank;
        for (int32_t d = 0; same && d < x->rank; d++)
            same = d == axis || x->dims[d] == x0->dims[d];
        if (!same) {
            kn_shape_format(x0->dims, x0->rank, sa, sizeof sa);
            kn_shape_format(x->dims, x->rank, sb, sizeof sb);
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: tensor %d has shape %s, tensor 0 has %s; "
                           "they may differ only on axis %d", op, (int)t, sb, sa, (int)axis);
        }
        y->dims[axis] += x->dims[axis];
    }
    qconcat_shape *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    s->n = n;
    s->dtype = dtype;
    s->outer = kn_shape_numel(y->dims, axis);
    s->out_chunk = kn_shape_numel(y->dims + axis, y->rank - axis);
    k->state = s;
    /* per input: a 256-byte table and whether it is a plain copy */
    k->scratch_bytes = (size_t)n * 257;
    return KN_OK;
}

static void qconcat_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

typedef struct qconcat_job {
    const qconcat_shape *s;
    const kn_kctx *k;
    const uint8_t *tables, *copy;
    uint8_t *y;
} qconcat_job;

/* Outer indices [begin, end): each input's chunk for that index, in order. */
static void qconcat_range(void *ctx, int64_t begin, int64_t end)
{
    const qconcat_job *j = ctx;
    const qconcat_shape *s = j->s;
    for (int64_t o = begin; o < end; o++) {
        uint8_t *dst = j->y + o * s->out_chunk;
        for (int32_t t = 0; t < s->n; t++) {
            const kn_tensor *x = x_of(j->k, t);
            int64_t chunk = kn_tensor_numel(x) / (s->outer > 0 ? s->outer : 1);
            const uint8_t *src = (const uint8_t *)x->data + o * chunk;
            if (j->copy[t]) {
                memcpy(dst, src, (size_t)chunk);
            } else {
                const uint8_t *table = j->tables + 256 * (size_t)t;
                for (int64_t i = 0; i < chunk; i++)
                    dst[i] = table[src[i]];
            }
            dst += chunk;
        }
    }
}

static int qconcat_run(kn_kctx *k)
{
    const qconcat_shape *s = k->state;
    uint8_t *tables = k->scratch, *copy = tables + 256 * (size_t)s->n;
    float ys = ms_scale(k->in[0]);
    int32_t y_zp = ms_zp(kn_input(k, 1));
    for (int32_t t = 0; t < s->n; t++) {
        float xs = ms_scale(k->in[FIRST_X + 3 * t + 1]);
        int32_t x_zp = ms_zp(kn_input(k, FIRST_X + 3 * t + 2));
        copy[t] = xs == ys && x_zp == y_zp;
        for (int v = 0; !copy[t] && v < 256; v++) {
            float real = xs * (float)(q8_value(s->dtype, (uint8_t)v) - x_zp);
            tables[256 * t + v] = q8_quantize((double)(real / ys), y_zp, s->dtype);
        }
    }
    qconcat_job j = {s, k, tables, copy, k->out[0]->data};
    int64_t grain = 1 + KN_GRAIN / (s->out_chunk > 0 ? s->out_chunk : 1);
    kn_parallel_for(k->threads, s->outer, grain, qconcat_range, &j);
    return KN_OK;
}

const kn_op_def kn_op_QLinearConcat = {
    .domain = QUANT_MS_DOMAIN, .op_type = "QLinearConcat", .since_version = 1,
    .dtypes = KN_BIT(KN_FLOAT), .prepare = qconcat_prepare, .run = qconcat_run,
    .release = qconcat_release
};
