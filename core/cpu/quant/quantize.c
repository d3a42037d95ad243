/* QuantizeLinear, DequantizeLinear (opsets 10, 13, 19, 21) and
 * DynamicQuantizeLinear (11).
 *
 *   QuantizeLinear:   y = saturate(round_half_even(x / scale) + zero_point)
 *   DequantizeLinear: y = (x - zero_point) * scale
 *
 * Scale and zero point are per tensor (opset 10), per slice along `axis`
 * (13), or per block of `block_size` elements along `axis` (21). All three
 * are one indexing scheme: x is viewed as [outer, D, inner] around axis
 * and the scale as [outer, ceil(D / block), inner] (blocked), [D]
 * (per axis) or [1] (per tensor).
 *
 * Arithmetic follows the reference: float x is divided by the scale in
 * float (the rounding of that quotient decides ties), int32 x in double;
 * dequantization is computed in float and stored in the scale's type.
 * float8 outputs (opset 19) take x / scale + zero_point rounded to nearest
 * even, saturating unless saturate = 0; FLOAT4E2M1 (23) likewise, always
 * saturating. The packed integer types (int4/uint4 from 21, int2/uint2
 * from 25) saturate to their range like the others; packed data is read
 * and written through kn_convert_span, work split at whole bytes. NaN
 * quantizes to the zero point (integers). */
#include <stdlib.h>
#include <string.h>

#include "core/cpu/quant/quant_common.h"
#include "core/kernel/packed.h"
#include "core/kernel/tensor_common.h"
#include "core/simd/kernels.h"

enum { QDQ_TENSOR, QDQ_AXIS, QDQ_BLOCKED };

typedef struct qdq_state {
    int quantize;
    int32_t x_dtype, y_dtype;
    int mode;
    int64_t d, inner;     /* x as [outer, d, inner] around the axis */
    int64_t block, nb;    /* blocked: elements per block, blocks along the axis */
    int64_t scale_n;      /* scale (and zero point) elements */
    int64_t lo, hi;       /* QuantizeLinear output range (integer types) */
    int div_double;       /* int32 x: quotient in double */
    int f8, saturate;     /* QuantizeLinear to float8 or float4, its saturate attribute */
    int64_t per;          /* elements per unit of parallel work: whole bytes of y */
    int fast;             /* float <-> int8/uint8 per tensor or axis: qdq_span_fast */
} qdq_state;

static void qdq_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* Layout of scale relative to x; fills mode, d, inner, block, nb. */
static int qdq_layout(kn_kctx *k, qdq_state *s, const kn_tensor *x, const kn_tensor *scale)
{
    const char *op = k->node->op_type;
    int64_t block = k->opset >= 21 ? kn_attr_int(k->node, "block_size", 0) : 0;
    int64_t numel = kn_tensor_numel(x);
    s->scale_n = kn_tensor_numel(scale);
    s->d = 1;
    s->inner = numel > 0 ? numel : 1;
    s->block = 1;
    if (block < 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: block_size %lld is negative", op,
                       (long long)block);
    if (block == 0 && s->scale_n == 1 && scale->rank <= 1) {
        s->mode = QDQ_TENSOR;
        return KN_OK;
    }
    if (k->opset < 13)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: scale must be a scalar before opset 13", op);
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", 1), x->rank, NULL);
    if (axis < 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: axis out of range for rank %d", op,
                       (int)x->rank);
    s->d = x->dims[axis];
    s->inner = kn_shape_numel(x->dims + axis + 1, x->rank - axis - 1);
    char sx[128], ss[128];
    kn_shape_format(x->dims, x->rank, sx, sizeof sx);
    kn_shape_format(scale->dims, scale->rank, ss, sizeof ss);
    if (block == 0) {
        if (scale->rank != 1 || scale->dims[0] != s->d)
            return kn_fail(k->err, KN_ERR_SHAPE,
                           "%s: per-axis scale %s must be 1-D of x's dim %d (x is %s)", op, ss,
                           (int)axis, sx);
        s->mode = QDQ_AXIS;
        return KN_OK;
    }
    s->mode = QDQ_BLOCKED;
    s->block = block;
    s->nb = (s->d + block - 1) / block;
    int ok = scale->rank == x->rank;
    for (int32_t i = 0; ok && i < x->rank; i++)
        ok = scale->dims[i] == (i == axis ? s->nb : x->dims[i]);
    if (!ok)
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "%s: blocked scale %s does not match x %s with block_size %lld on axis %d",
                       op, ss, sx, (long long)block, (int)axis);
    return KN_OK;
}

/* A dtype code no KN tensor can hold; E8M0 is a scale format, not a
 * quantized type. */
static int is_exotic(int64_t dt)
{
    return dt > 0 && (dt >= 32 || kn_dtype_bits((int32_t)dt) == 0 || dt == KN_FLOAT8E8M0);
}

#define Q_FLOAT8                                                              \
    (KN_BIT(KN_FLOAT8E4M3FN) | KN_BIT(KN_FLOAT8E4M3FNUZ) | KN_BIT(KN_FLOAT8E5M2) | \
     KN_BIT(KN_FLOAT8E5M2FNUZ))

/* Quantized types (QuantizeLinear's y, DequantizeLinear's x) an opset
 * allows beyond the 8-bit integers. */
static uint32_t quantized_types(int64_t opset)
{
    return (opset >= 19 ? Q_FLOAT8 : 0) | (opset >= 21 ? QUANT_MASK_Q16 | QUANT_MASK_Q4 : 0) |
           (opset >= 23 ? KN_BIT(KN_FLOAT4E2M1) : 0) | (opset >= 25 ? QUANT_MASK_Q2 : 0);
}

static int qdq_prepare(kn_kctx *k, int quantize)
{
    const char *op = k->node->op_type;
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *scale = k->in[1], *zp = kn_input(k, 2);
    if (!quant_is_scale_type(scale->dtype) || (k->opset < 19 && scale->dtype != KN_FLOAT))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: scale has type %s, expected float%s", op,
                       kn_dtype_name(scale->dtype), k->opset < 19 ? "" : ", float16 or bfloat16");
    /* a [1] zero point with a scalar scale occurs in the wild: numel decides */
    if (zp && (kn_tensor_numel(zp) != kn_tensor_numel(scale) ||
               (kn_tensor_numel(zp) > 1 && !kn_shape_equal(zp->dims, zp->rank, scale->dims,
                                                           scale->rank))))
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: zero point and scale differ in shape", op);
    qdq_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    s->quantize = quantize;
    s->x_dtype = x->dtype;
    int rc = qdq_layout(k, s, x, scale);
    if (rc != KN_OK)
        return rc;
    /* output_dtype exists from opset 21 (Quantize) / 23 (Dequantize) */
    int64_t out_attr =
        k->opset >= (quantize ? 21 : 23) ? kn_attr_int(k->node, "output_dtype", 0) : 0;
    if (is_exotic(out_attr) || (zp && is_exotic(zp->dtype)) || is_exotic(x->dtype))
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: E8M0 and unknown element types cannot "
                       "be quantized types", op);
    if (quantize) {
        int32_t y = zp ? zp->dtype : out_attr ? (int32_t)out_attr : KN_UINT8;
        if (zp && out_attr && out_attr != zp->dtype)
            return kn_fail(k->err, KN_ERR_DTYPE, "%s: output_dtype %lld differs from the zero "
                           "point's type %s", op, (long long)out_attr, kn_dtype_name(zp->dtype));
        uint32_t allowed = QUANT_MASK_Q8 | quantized_types(k->opset);
        if (y <= 0 || y >= 32 || !(KN_BIT(y) & allowed))
            return kn_fail(k->err, KN_ERR_DTYPE, "%s: cannot quantize to %s at opset %lld", op,
                           kn_dtype_name(y), (long long)k->opset);
        s->f8 = (KN_BIT(y) & (Q_FLOAT8 | KN_BIT(KN_FLOAT4E2M1))) != 0;
        s->saturate = kn_attr_int(k->node, "saturate", 1) != 0;
        if (!s->f8)
            quant_range(y, &s->lo, &s->hi);
        s->y_dtype = y;
        s->div_double = x->dtype == KN_INT32;
    } else {
        if (zp && zp->dtype != x->dtype)
            return kn_fail(k->err, KN_ERR_DTYPE, "%s: zero point is %s but x is %s", op,
                           kn_dtype_name(zp->dtype), kn_dtype_name(x->dtype));
        /* the registry's mask lets every packed type through from 21 */
        if (kn_dtype_is_packed(x->dtype) && !(KN_BIT(x->dtype) & quantized_types(k->opset)))
            return kn_fail(k->err, KN_ERR_DTYPE, "%s: cannot dequantize %s at opset %lld", op,
                           kn_dtype_name(x->dtype), (long long)k->opset);
        s->y_dtype = scale->dtype;
        if (out_attr) {
            if (!quant_is_scale_type((int32_t)out_attr))
                return kn_fail(k->err, KN_ERR_DTYPE, "%s: output_dtype %lld is not a float type",
                               op, (long long)out_attr);
            s->y_dtype = (int32_t)out_attr;
        }
    }
    kn_copy_desc(k->out[0], x);
    k->out[0]->dtype = s->y_dtype;
    s->per = kn_packed_per_byte(s->y_dtype);
    const int32_t int_side = quantize ? s->y_dtype : s->x_dtype;
    s->fast = s->mode != QDQ_BLOCKED && (quantize ? s->x_dtype : s->y_dtype) == KN_FLOAT &&
              (int_side == KN_INT8 || int_side == KN_UINT8) && !s->f8;
    /* zero points as double (exact for integers and float8), scales as
     * float, read once per run */
    k->scratch_bytes = (size_t)s->scale_n * (sizeof(double) + sizeof(float));
    return KN_OK;
}

typedef struct qdq_job {
    const qdq_state *s;
    const char *x;
    char *y;
    const float *scale;
    const double *zp;
    int64_t numel;
} qdq_job;

/* n elements starting at element i, scales from index si stepping by ss
 * (0: one scale for the run). */
static void qdq_run_span(const qdq_job *j, int64_t i, int64_t n, int64_t si, int64_t ss)
{
    const qdq_state *s = j->s;
    double xv[KN_CHUNK];
    kn_convert_span(s->x_dtype, j->x, i, KN_DOUBLE, xv, 0, n, 1, KN_E8M0_ROUND_UP);
    if (s->quantize && s->f8) {
        for (int64_t t = 0; t < n; t++) {
            float sc = j->scale[si + t * ss];
            float v = s->div_double ? (float)(xv[t] / sc) : (float)xv[t] / sc;
            xv[t] = v + (float)j->zp[si + t * ss];
        }
        kn_convert_span(KN_DOUBLE, xv, 0, s->y_dtype, j->y, i, n, s->saturate,
                        KN_E8M0_ROUND_UP);
    } else if (s->quantize) {
        int64_t q[KN_CHUNK];
        for (int64_t t = 0; t < n; t++) {
            float sc = j->scale[si + t * ss];
            double v = s->div_double ? xv[t] / sc : (double)((float)xv[t] / sc);
            q[t] = quant_saturate(v, (int32_t)j->zp[si + t * ss], s->lo, s->hi);
        }
        kn_convert_span(KN_INT64, q, 0, s->y_dtype, j->y, i, n, 1, KN_E8M0_ROUND_UP);
    } else {
        float r[KN_CHUNK];
        for (int64_t t = 0; t < n; t++)
            r[t] = ((float)xv[t] - (float)j->zp[si + t * ss]) * j->scale[si + t * ss];
        kn_convert_span(KN_FLOAT, r, 0, s->y_dtype, j->y, i, n, 1, KN_E8M0_ROUND_UP);
    }
}

/* The case QDQ models are made of, float activations to and from int8 or
 * uint8 with one scale per tensor or per channel, in float throughout so
 * that the loops vectorise: the same results as qdq_run_span. Saturating
 * before rounding gives the same integers (the bounds are integers), and
 * within them adding and subtracting 1.5 * 2^23 rounds half to even. */
static void qdq_span_fast(const qdq_job *j, int64_t i, int64_t n, int64_t si)
{
    const qdq_state *s = j->s;
    const float sc = j->scale[si], zp = (float)j->zp[si];
    const int is_signed = (s->quantize ? s->y_dtype : s->x_dtype) == KN_INT8;
    /* the SIMD table's rows: this file's baseline build (SSE2) took ~2 ns
     * an element to quantize, a fifth of a QDQ BERT's time at 1 thread, and
     * the WebAssembly build of a plain dequantizing loop converted lane by
     * lane (kernels_body.h says why) */
    if (!s->quantize) {
        float *y = (float *)j->y + i;
        if (is_signed)
            kn_simd()->dequantize_s8(y, (const int8_t *)j->x + i, n, sc, zp);
        else
            kn_simd()->dequantize_u8(y, (const uint8_t *)j->x + i, n, sc, zp);
        return;
    }
    const kn_quantize_params q = {sc, zp, (float)s->lo - zp, (float)s->hi - zp};
    const float *x = (const float *)j->x + i;
    if (is_signed)
        kn_simd()->quantize_s8((int8_t *)j->y + i, x, n, &q);
    else
        kn_simd()->quantize_u8((uint8_t *)j->y + i, x, n, &q);
}

/* [begin, end) counts groups of s->per elements (whole bytes of a packed
 * y), so no two threads write into one byte. */
static void qdq_range(void *ctx, int64_t begin, int64_t end)
{
    const qdq_job *j = ctx;
    const qdq_state *s = j->s;
    begin *= s->per;
    end = end * s->per < j->numel ? end * s->per : j->numel;
    for (int64_t i = begin; i < end;) {
        int64_t jj = i % s->inner, row = i / s->inner;
        int64_t a = row % s->d, o = row / s->d;
        int64_t n = s->inner - jj;
        n = n < end - i ? n : end - i;
        n = n < KN_CHUNK ? n : KN_CHUNK;
        if (s->fast)
            qdq_span_fast(j, i, n, s->mode == QDQ_TENSOR ? 0 : a);
        else if (s->mode == QDQ_TENSOR)
            qdq_run_span(j, i, n, 0, 0);
        else if (s->mode == QDQ_AXIS)
            qdq_run_span(j, i, n, a, 0);
        else
            qdq_run_span(j, i, n, (o * s->nb + a / s->block) * s->inner + jj, 1);
        i += n;
    }
}

static int qdq_run(kn_kctx *k)
{
    const qdq_state *s = k->state;
    const kn_tensor *scale = k->in[1], *zp = kn_input(k, 2);
    double *zv = k->scratch;
    float *sc = (float *)(zv + s->scale_n);
    kn_convert(scale->dtype, scale->data, KN_FLOAT, sc, s->scale_n);
    if (zp)
        kn_convert(zp->dtype, zp->data, KN_DOUBLE, zv, s->scale_n);
    else
        memset(zv, 0, (size_t)s->scale_n * sizeof *zv);
    int64_t numel = kn_tensor_numel(k->out[0]);
    qdq_job j = {s, k->in[0]->data, k->out[0]->data, sc, zv, numel};
    kn_parallel_for(k->threads, (numel + s->per - 1) / s->per, KN_GRAIN / s->per, qdq_range, &j);
    kn_packed_clear_tail(s->y_dtype, k->out[0]->data, numel);
    return KN_OK;
}

static int quantize_prepare(kn_kctx *k) { return qdq_prepare(k, 1); }
static int dequantize_prepare(kn_kctx *k) { return qdq_prepare(k, 0); }

#define Q_IN_10 (KN_BIT(KN_FLOAT) | KN_BIT(KN_INT32))
#define Q_IN_19 (Q_IN_10 | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))
#define DQ_IN_10 (QUANT_MASK_Q8 | KN_BIT(KN_INT32))
#define DQ_IN_19 (DQ_IN_10 | Q_FLOAT8)
/* 21 and later: every packed type; prepare checks the opset each needs */
#define DQ_IN_21 (DQ_IN_19 | QUANT_MASK_Q16 | KN_MASK_PACKED)

#define QDQ_DEF(name, op, since, until, mask, prep)                                                \
    const kn_op_def kn_op_##name = { \
    .op_type = #op, .since_version = since, .until_version = until, .dtypes = mask, \
    .flags = KN_OP_PACKED, .prepare = prep, .run = qdq_run, .release = qdq_release \
};
/* 10: per tensor; 13: per axis; 19: float16/bfloat16 scales (and float8);
 * 21: blocks, output_dtype, 16-bit types */
QDQ_DEF(QuantizeLinear, QuantizeLinear, 10, 12, Q_IN_10, quantize_prepare)
QDQ_DEF(QuantizeLinear_13, QuantizeLinear, 13, 18, Q_IN_10, quantize_prepare)
QDQ_DEF(QuantizeLinear_19, QuantizeLinear, 19, 20, Q_IN_19, quantize_prepare)
QDQ_DEF(QuantizeLinear_21, QuantizeLinear, 21, 0, Q_IN_19, quantize_prepare)
QDQ_DEF(DequantizeLinear, DequantizeLinear, 10, 12, DQ_IN_10, dequantize_prepare)
QDQ_DEF(DequantizeLinear_13, DequantizeLinear, 13, 18, DQ_IN_10, dequantize_prepare)
QDQ_DEF(DequantizeLinear_19, DequantizeLinear, 19, 20, DQ_IN_19, dequantize_prepare)
QDQ_DEF(DequantizeLinear_21, DequantizeLinear, 21, 0, DQ_IN_21, dequantize_prepare)

/* ---- DynamicQuantizeLinear: uint8 with scale and zero point chosen from
 * the data so that [min(x, 0), max(x, 0)] maps onto [0, 255] ---- */

static int dynq_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    kn_copy_desc(k->out[0], x);
    k->out[0]->dtype = KN_UINT8;
    for (int32_t i = 1; i <= 2; i++) {
        kn_tensor *o = kn_output(k, i);
        if (o) {
            o->dtype = i == 1 ? KN_FLOAT : KN_UINT8;
            o->rank = 0;
        }
    }
    return KN_OK;
}

typedef struct dynq_job {
    const float *x;
    uint8_t *y;
    kn_quantize_params q;
} dynq_job;

static void dynq_range(void *ctx, int64_t begin, int64_t end)
{
    const dynq_job *j = ctx;
    kn_simd()->quantize_u8(j->y + begin, j->x + begin, end - begin, &j->q);
}

/* The range by the vector kernel (NaN skipped), then QuantizeLinear's
 * vector loop with the scale and zero point it gives: a transformer's
 * dynamically quantized products spend as long here as multiplying
 * otherwise (BERT-base: 48 of these over 128 x 768 or 128 x 3072). */
static int dynq_run(kn_kctx *k)
{
    const float *x = k->in[0]->data;
    uint8_t *y = k->out[0]->data;
    int64_t n = kn_tensor_numel(k->in[0]);
    float lo = 0, hi = 0; /* the range always includes 0 */
    kn_simd()->range_with_zero(x, n, &lo, &hi);
    float scale = (hi - lo) / 255.0f;
    int32_t zp = scale > 0 ? quant_saturate((double)((0.0f - lo) / scale), 0, 0, 255) : 0;
    if (scale > 0) {
        dynq_job j = {x, y, {scale, (float)zp, 0.0f - (float)zp, 255.0f - (float)zp}};
        kn_parallel_for(k->threads, n, KN_GRAIN, dynq_range, &j);
    } else {
        memset(y, 0, (size_t)n); /* all zeros: scale 0 and zero point 0 */
    }
    kn_tensor *ys = kn_output(k, 1), *yz = kn_output(k, 2);
    if (ys)
        *(float *)ys->data = scale;
    if (yz)
        *(uint8_t *)yz->data = (uint8_t)zp;
    return KN_OK;
}

const kn_op_def kn_op_DynamicQuantizeLinear = {
    .op_type = "DynamicQuantizeLinear", .since_version = 11, .dtypes = KN_BIT(KN_FLOAT),
    .prepare = dynq_prepare, .run = dynq_run
};
