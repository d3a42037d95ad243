/* DynamicQuantizeMatMul and MatMulIntegerToFloat (com.microsoft 1): an
 * 8-bit matrix product with a float result, what ONNX Runtime's dynamic
 * quantization writes for MatMul:
 *
 *   MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zp, b_zp, bias)
 *     Y = (A - a_zp)(B - b_zp) a_scale b_scale + bias
 *   DynamicQuantizeMatMul(A float, B, b_scale, b_zp, bias)
 *     A is first quantized to uint8 as ONNX Runtime does it (the range
 *     [min(A, 0), max(A, 0)] onto [0, 255]: scale (max - min) / 255, or 1
 *     when that range is empty, zero point round(-min / scale)), then as
 *     above.
 *
 * Numpy matmul shapes (batches broadcast); a_scale and a_zp per tensor,
 * b_scale and b_zp per tensor or per column (N), bias [N]. The product is
 * quant_mm's exact int32 (quant_common.h); then, in float as ONNX Runtime
 * does, y = acc * (a_scale b_scale) + bias.
 *
 *   kiln.QFusedMatMul(A, B, a_scale, b_scale, a_zp, b_zp, bias, y_scale, y_zp)
 *     MatMulIntegerToFloat with its epilogue (the qmatmul_epilogue pass):
 *     the `activation` attribute applied to that float result, then, with
 *     y_scale, QuantizeLinear's saturate(round(y / y_scale) + y_zp) into
 *     y_zp's type (uint8 without one). */
#include <stdlib.h>

#include "core/base/alloc.h"
#include "core/cpu/quant/ms_quant.h"
#include "core/kernel/fused_common.h"
#include "core/kernel/tensor_common.h"
#include "core/simd/kernels.h"

typedef struct qmmf_state {
    quant_mm mm;
    int dynamic;                 /* DynamicQuantizeMatMul: A is float */
    int32_t i_bs, i_bzp, i_bias; /* input slots of b_scale, b_zp, bias */
    kn_activation act;           /* kiln.QFusedMatMul's; none for the others */
    int32_t y_dtype;             /* KN_FLOAT, or the 8-bit type with y_scale */
    /* scratch, then the float result before quantization (y_scale), then A
     * quantized (dynamic) */
    size_t mm_bytes, acc_bytes, scale_bytes, yf_bytes;
} qmmf_state;

enum { IN_Y_SCALE = 7, IN_Y_ZP = 8 };

static void qmmf_release(kn_kctx *k)
{
    qmmf_state *s = k->state;
    if (s)
        quant_mm_release(&s->mm);
    free(s);
    k->state = NULL;
}

/* kiln.QFusedMatMul's activation and output type. */
static int epilogue_prepare(kn_kctx *k, qmmf_state *s)
{
    int rc = kn_fused_activation(k, &s->act);
    const kn_tensor *ys = kn_input(k, IN_Y_SCALE), *yz = kn_input(k, IN_Y_ZP);
    if (rc != KN_OK || !ys)
        return rc;
    if (yz && yz->dtype != KN_UINT8 && yz->dtype != KN_INT8)
        return kn_fail(k->err, KN_ERR_DTYPE, "QFusedMatMul: y_zero_point must be uint8 or int8, "
                       "not %s", kn_dtype_name(yz->dtype));
    s->y_dtype = yz ? yz->dtype : KN_UINT8;
    return ms_check_scalar_pair(k, "y", ys, yz, s->y_dtype);
}

static int qmmf_prepare(kn_kctx *k, int dynamic, int fused)
{
    const char *op = k->node->op_type;
    if (ms_require(k, dynamic ? 0x7u : 0xFu, dynamic ? "A, B and b_scale" :
                   "A, B, a_scale and b_scale") != KN_OK)
        return k->err->code;
    const kn_tensor *a = k->in[0], *b = k->in[1];
    qmmf_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    s->dynamic = dynamic;
    s->i_bs = dynamic ? 2 : 3;
    s->i_bzp = dynamic ? 3 : 5;
    s->i_bias = dynamic ? 4 : 6;
    s->y_dtype = KN_FLOAT;
    const kn_tensor *a_zp = dynamic ? NULL : kn_input(k, 4), *b_zp = kn_input(k, s->i_bzp);
    const kn_tensor *bias = kn_input(k, s->i_bias);
    if (dynamic && a->dtype != KN_FLOAT)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: A must be float, not %s", op,
                       kn_dtype_name(a->dtype));
    int rc = dynamic ? KN_OK : ms_check_q8(k, "A", a);
    if (rc == KN_OK)
        rc = ms_check_q8(k, "B", b);
    if (rc != KN_OK)
        return rc;
    /* A as quant_mm sees it: the uint8 quantized copy for the dynamic op,
     * with a scalar zero point that exists only at run time */
    kn_tensor a_view = *a, a_zp_view = {.dtype = KN_UINT8};
    a_view.data = NULL;
    if (dynamic) {
        a_view.dtype = KN_UINT8;
        a_zp = &a_zp_view;
    }
    rc = quant_mm_prepare(k, &s->mm, &a_view, b, a_zp, b_zp, k->out[0]);
    if (rc == KN_OK && !dynamic)
        rc = ms_check_scalar_pair(k, "a", k->in[2], a_zp, a->dtype);
    if (rc == KN_OK)
        rc = quant_check_pair(k, "b", k->in[s->i_bs], b_zp, b->dtype, s->mm.n);
    if (rc == KN_OK && bias &&
        (bias->dtype != KN_FLOAT || bias->rank != 1 || bias->dims[0] != s->mm.n))
        rc = kn_fail(k->err, KN_ERR_SHAPE, "%s: bias must be float of %lld (B's columns), got %s "
                     "of rank %d", op, (long long)s->mm.n, kn_dtype_name(bias->dtype),
                     (int)bias->rank);
    if (rc == KN_OK && fused)
        rc = epilogue_prepare(k, s);
    if (rc != KN_OK)
        return rc;
    k->out[0]->dtype = s->y_dtype;
    size_t elems = (size_t)(s->mm.batches * s->mm.m * s->mm.n);
    s->mm_bytes = kn_align_up(quant_mm_scratch(&s->mm), 64);
    s->acc_bytes = kn_align_up(elems * sizeof(int32_t), 64);
    s->scale_bytes = kn_align_up((size_t)(s->mm.n + 1) * sizeof(float), 64);
    s->yf_bytes = s->y_dtype == KN_FLOAT ? 0 : kn_align_up(elems * sizeof(float), 64);
    k->scratch_bytes = s->mm_bytes + s->acc_bytes + s->scale_bytes + s->yf_bytes +
                       (dynamic ? (size_t)s->mm.a_numel : 0);
    return KN_OK;
}

/* ---- quantizing A (DynamicQuantizeMatMul) ---- */

typedef struct dynq_job {
    const float *a;
    uint8_t *q;
    float scale;
    int32_t zp;
} dynq_job;

static void dynq_range(void *ctx, int64_t begin, int64_t end)
{
    const dynq_job *j = ctx;
    for (int64_t i = begin; i < end; i++)
        j->q[i] = (uint8_t)quant_saturate((double)(j->a[i] / j->scale), j->zp, 0, 255);
}

/* Quantizes a[0..n) into q; returns the scale, the zero point in *zp. */
static float quantize_a(const float *a, int64_t n, uint8_t *q, int32_t *zp, kn_threadpool *pool)
{
    float lo = 0, hi = 0; /* the range always holds 0 */
    for (int64_t i = 0; i < n; i++) {
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
    float z = 0.0f - lo / scale;
    z = z < 0 ? 0 : z > 255 ? 255 : z;
    *zp = (int32_t)quant_rint(z);
    dynq_job j = {a, q, scale, *zp};
    kn_parallel_for(pool, n, KN_GRAIN, dynq_range, &j);
    return scale;
}

/* ---- the product and its float result ---- */

typedef struct qmmf_job {
    const qmmf_state *s;
    const int32_t *acc;
    const float *mult, *bias; /* mult per column (or one), bias per column or NULL */
    int per_column;
    float *y;
} qmmf_job;

/* Rows [begin, end) over all batches. */
static void qmmf_rows(void *ctx, int64_t begin, int64_t end)
{
    const qmmf_job *j = ctx;
    const int64_t n = j->s->mm.n;
    for (int64_t r = begin; r < end; r++)
        for (int64_t c = 0; c < n; c++) {
            float v = (float)j->acc[r * n + c] * j->mult[j->per_column ? c : 0];
            j->y[r * n + c] = j->bias ? v + j->bias[c] : v;
        }
}

/* ---- kiln.QFusedMatMul's 8-bit output ---- */

typedef struct requant_job {
    const float *yf;
    void *y;
    int64_t n;
    int is_signed;
    kn_quantize_params q;
} requant_job;

static void requant_rows(void *ctx, int64_t begin, int64_t end)
{
    const requant_job *j = ctx;
    const float *x = j->yf + begin * j->n;
    int64_t count = (end - begin) * j->n;
    if (j->is_signed)
        kn_simd()->quantize_s8((int8_t *)j->y + begin * j->n, x, count, &j->q);
    else
        kn_simd()->quantize_u8((uint8_t *)j->y + begin * j->n, x, count, &j->q);
}

/* QuantizeLinear of the float result yf into output 0 (y_scale, y_zp). */
static void requantize(kn_kctx *k, const float *yf, int64_t rows, int64_t grain)
{
    const qmmf_state *s = k->state;
    const kn_tensor *yz = kn_input(k, IN_Y_ZP);
    int64_t lo = 0, hi = 255;
    quant_range(s->y_dtype, &lo, &hi);
    float zp = yz ? (float)quant_zp_at(yz, 0) : 0.0f;
    requant_job j = {yf, k->out[0]->data, s->mm.n, s->y_dtype == KN_INT8,
                     {quant_scale_at(k->in[IN_Y_SCALE], 0), zp, (float)lo - zp, (float)hi - zp}};
    kn_parallel_for(k->threads, rows, grain, requant_rows, &j);
}

static int qmmf_run(kn_kctx *k)
{
    const qmmf_state *s = k->state;
    char *sp = k->scratch;
    int32_t *acc = (int32_t *)(sp + s->mm_bytes);
    float *mult = (float *)(sp + s->mm_bytes + s->acc_bytes);
    const void *a = k->in[0]->data;
    float a_scale;
    uint8_t a_zp_byte = 0;
    kn_tensor a_zp_t = {.dtype = KN_UINT8, .data = &a_zp_byte};
    const kn_tensor *a_zp = &a_zp_t;
    if (s->dynamic) {
        uint8_t *aq = (uint8_t *)mult + s->scale_bytes + s->yf_bytes;
        int32_t zp;
        a_scale = quantize_a(a, s->mm.a_numel, aq, &zp, k->threads);
        a_zp_byte = (uint8_t)zp;
        a = aq;
    } else {
        a_scale = ms_scale(k->in[2]);
        a_zp = kn_input(k, 4);
    }
    quant_mm_run(&s->mm, a, k->in[1]->data, a_zp, kn_input(k, s->i_bzp), acc, k->scratch,
                 k->threads);
    const kn_tensor *bs = k->in[s->i_bs], *bias = kn_input(k, s->i_bias);
    int64_t n_scales = kn_tensor_numel(bs);
    for (int64_t i = 0; i < n_scales; i++)
        mult[i] = a_scale * quant_scale_at(bs, i);
    float *yf = s->yf_bytes ? (float *)((char *)mult + s->scale_bytes) : k->out[0]->data;
    qmmf_job j = {s, acc, mult, bias ? bias->data : NULL, n_scales > 1, yf};
    int64_t rows = s->mm.batches * s->mm.m, grain = 1 + KN_GRAIN / (s->mm.n > 0 ? s->mm.n : 1);
    kn_parallel_for(k->threads, rows, grain, qmmf_rows, &j);
    kn_fused_act(k->threads, yf, rows * s->mm.n, &s->act);
    if (s->yf_bytes)
        requantize(k, yf, rows, grain);
    return KN_OK;
}

static int dqmm_prepare(kn_kctx *k) { return qmmf_prepare(k, 1, 0); }
static int mmitf_prepare(kn_kctx *k) { return qmmf_prepare(k, 0, 0); }
static int qfused_mm_prepare(kn_kctx *k) { return qmmf_prepare(k, 0, 1); }

const kn_op_def kn_op_DynamicQuantizeMatMul = {
    .domain = QUANT_MS_DOMAIN, .op_type = "DynamicQuantizeMatMul", .since_version = 1,
    .dtypes = KN_BIT(KN_FLOAT), .prepare = dqmm_prepare, .run = qmmf_run, .release = qmmf_release
};
const kn_op_def kn_op_MatMulIntegerToFloat = {
    .domain = QUANT_MS_DOMAIN, .op_type = "MatMulIntegerToFloat", .since_version = 1,
    .dtypes = QUANT_MASK_Q8, .prepare = mmitf_prepare, .run = qmmf_run, .release = qmmf_release
};
const kn_op_def kn_op_QFusedMatMul = {
    .domain = "kiln", .op_type = "QFusedMatMul", .since_version = 1, .until_version = 1,
    .dtypes = QUANT_MASK_Q8, .prepare = qfused_mm_prepare, .run = qmmf_run,
    .release = qmmf_release
};
