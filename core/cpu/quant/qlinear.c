/* QLinearMatMul (opsets 10, 21) and QLinearConv (10): the integer product
 * of quant_common.h's engines, then requantisation to the output's type:
 *
 *     y = saturate(round_half_even(acc * (s_a * s_b / s_y)) + zp_y)
 *
 * where acc is the exact int32 sum of (a - zp_a) * (b - zp_b) (plus the
 * int32 bias for QLinearConv). The multiplier is formed in float from the
 * scales, as the reference does, and applied in double so no rounding
 * beyond the final one depends on acc's magnitude. Scales are per tensor,
 * or per row of A / column of B (QLinearMatMul) and per output channel of
 * the weights (QLinearConv); opset 21 adds float16/bfloat16 scales.
 *
 * kiln.QFusedConv is QLinearConv with an epilogue before the
 * requantization, written by the optimizer (pass_qdq_conv.c,
 * pass_qconv_add.c) where a QDQ graph had one: inputs 9 to 11, Z, Z_scale
 * and Z_zero_point, add a quantized residual of Y's shape, and the
 * `activation` attribute (core/kernel/fused_common.h) applies to the real
 * sum:
 *
 *     y = saturate(round(act(s_x s_w[c] acc + s_z (z - zp_z)) / s_y) + zp_y)
 *
 * the same formula in double, once per element; the graph it replaces
 * rounded the convolution's result to 8 bits first. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/cpu/quant/quant_common.h"
#include "core/kernel/fused_common.h"
#include "core/kernel/tensor_common.h"
#include "core/simd/vec_requant.h"
#include "core/simd/vec_requant_silu.h"

/* Type of y from its zero point (else A's / x's type), with its range. */
static int output_type(kn_kctx *k, const kn_tensor *y_zp, int32_t fallback, int32_t *dtype,
                       int64_t *lo, int64_t *hi)
{
    *dtype = y_zp ? y_zp->dtype : fallback;
    if (*dtype != KN_INT8 && *dtype != KN_UINT8)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: y_zero_point must be int8 or uint8, not %s",
                       k->node->op_type, kn_dtype_name(*dtype));
    quant_range(*dtype, lo, hi);
    return KN_OK;
}

/* ---- QLinearMatMul ---- */

typedef struct qmm_state {
    quant_mm mm;
    int32_t y_dtype;
    int64_t lo, hi;
    size_t mm_bytes, acc_bytes;
} qmm_state;

static void qmm_release(kn_kctx *k)
{
    qmm_state *s = k->state;
    if (s)
        quant_mm_release(&s->mm);
    free(s);
    k->state = NULL;
}

static int qmm_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 7) != KN_OK || !kn_input(k, 3))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "QLinearMatMul: a, b and the scales are required");
    const kn_tensor *a = k->in[0], *b = k->in[3];
    qmm_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "QLinearMatMul: out of memory");
    k->state = s;
    int rc = quant_mm_prepare(k, &s->mm, a, b, kn_input(k, 2), kn_input(k, 5), k->out[0]);
    if (rc == KN_OK)
        rc = quant_check_pair(k, "a", k->in[1], kn_input(k, 2), a->dtype, s->mm.m);
    if (rc == KN_OK)
        rc = quant_check_pair(k, "b", k->in[4], kn_input(k, 5), b->dtype, s->mm.n);
    const kn_tensor *y_zp = kn_input(k, 7);
    if (rc == KN_OK)
        rc = output_type(k, y_zp, a->dtype, &s->y_dtype, &s->lo, &s->hi);
    if (rc == KN_OK)
        rc = quant_check_pair(k, "y", k->in[6], y_zp, s->y_dtype, -1);
    if (rc != KN_OK)
        return rc;
    static const int32_t scales[] = {1, 4, 6}; /* a, b, y */
    for (int32_t i = 0; i < 3 && k->opset < 21; i++)
        if (k->in[scales[i]]->dtype != KN_FLOAT)
            return kn_fail(k->err, KN_ERR_DTYPE, "QLinearMatMul: scales must be float before "
                           "opset 21");
    k->out[0]->dtype = s->y_dtype;
    s->mm_bytes = kn_align_up(quant_mm_scratch(&s->mm), 16);
    s->acc_bytes = kn_align_up((size_t)(s->mm.batches * s->mm.m * s->mm.n) * sizeof(int32_t), 16);
    /* then a and b scales as float, one per row / column */
    k->scratch_bytes = s->mm_bytes + s->acc_bytes + (size_t)(s->mm.m + s->mm.n) * sizeof(float);
    return KN_OK;
}

typedef struct qmm_job {
    const qmm_state *s;
    const int32_t *acc;
    const float *as, *bs; /* per row of A / column of B (repeated if per tensor) */
    float ys;
    int32_t y_zp;
    char *y;
} qmm_job;

/* Rows [begin, end) of all batches (row r is row r % m of its matrix). */
static void qmm_requant(void *ctx, int64_t begin, int64_t end)
{
    const qmm_job *j = ctx;
    const quant_mm *mm = &j->s->mm;
    size_t es = kn_dtype_size(j->s->y_dtype);
    int32_t q[KN_CHUNK];
    for (int64_t r = begin; r < end; r++) {
        float as = j->as[r % mm->m];
        for (int64_t c0 = 0; c0 < mm->n; c0 += KN_CHUNK) {
            int64_t len = mm->n - c0 < KN_CHUNK ? mm->n - c0 : KN_CHUNK;
            for (int64_t c = 0; c < len; c++) {
                float mult = as * j->bs[c0 + c] / j->ys;
                q[c] = quant_saturate((double)j->acc[r * mm->n + c0 + c] * mult, j->y_zp, j->s->lo,
                                      j->s->hi);
            }
            kn_convert(KN_INT32, q, j->s->y_dtype, j->y + (size_t)(r * mm->n + c0) * es, len);
        }
    }
}

/* Scale s as n floats (one value repeated if s is per tensor). */
static void scales(const kn_tensor *s, float *dst, int64_t n)
{
    int64_t have = kn_tensor_numel(s);
    for (int64_t i = 0; i < n; i++)
        dst[i] = quant_scale_at(s, have == 1 ? 0 : i);
}

static int qmm_run(kn_kctx *k)
{
    const qmm_state *s = k->state;
    char *sp = k->scratch;
    int32_t *acc = (int32_t *)(sp + s->mm_bytes);
    float *as = (float *)(sp + s->mm_bytes + s->acc_bytes), *bs = as + s->mm.m;
    quant_mm_run(&s->mm, k->in[0]->data, k->in[3]->data, kn_input(k, 2), kn_input(k, 5), acc,
                 k->scratch, k->threads);
    scales(k->in[1], as, s->mm.m);
    scales(k->in[4], bs, s->mm.n);
    qmm_job j = {s, acc, as, bs, quant_scale_at(k->in[6], 0), quant_zp_at(kn_input(k, 7), 0),
                 k->out[0]->data};
    int64_t rows = s->mm.batches * s->mm.m;
    kn_parallel_for(k->threads, rows, 1 + KN_GRAIN / (s->mm.n > 0 ? s->mm.n : 1), qmm_requant, &j);
    return KN_OK;
}

const kn_op_def kn_op_QLinearMatMul = {
    .op_type = "QLinearMatMul", .since_version = 10, .until_version = 20,
    .dtypes = QUANT_MASK_Q8, .prepare = qmm_prepare, .run = qmm_run, .release = qmm_release
};
const kn_op_def kn_op_QLinearMatMul_21 = {
    .op_type = "QLinearMatMul", .since_version = 21, .dtypes = QUANT_MASK_Q8,
    .prepare = qmm_prepare, .run = qmm_run, .release = qmm_release
};

/* ---- QLinearConv ---- */

enum { QCONV_Z = 9, QCONV_Z_SCALE, QCONV_Z_ZERO };

typedef struct qconv_state {
    quant_conv conv;
    int32_t y_dtype;
    int64_t lo, hi;
    size_t conv_bytes;
    /* kiln.QFusedConv's epilogue: fused is set when it has one */
    int fused;
    kn_activation act;
} qconv_state;

static void qconv_release(kn_kctx *k)
{
    qconv_state *s = k->state;
    if (s)
        quant_conv_release(&s->conv);
    free(s);
    k->state = NULL;
}

/* kiln.QFusedConv's activation and residual Z (uint8 or int8, Y's shape,
 * per-tensor scale and zero point); nothing for QLinearConv. */
static int qconv_epilogue(kn_kctx *k, qconv_state *s)
{
    if (!k->node->domain || strcmp(k->node->domain, "kiln") != 0)
        return KN_OK;
    int rc = kn_fused_activation(k, &s->act);
    if (rc != KN_OK)
        return rc;
    const kn_tensor *z = kn_input(k, QCONV_Z);
    s->fused = z || s->act.kind != KN_ACT_NONE;
    if (!z)
        return KN_OK;
    if (z->dtype != KN_UINT8 && z->dtype != KN_INT8)
        return kn_fail(k->err, KN_ERR_DTYPE, "kiln.QFusedConv: Z must be uint8 or int8, not %s",
                       kn_dtype_name(z->dtype));
    if (!kn_shape_equal(z->dims, z->rank, k->out[0]->dims, k->out[0]->rank))
        return kn_fail(k->err, KN_ERR_SHAPE, "kiln.QFusedConv: Z does not have Y's shape");
    if (!kn_input(k, QCONV_Z_SCALE))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "kiln.QFusedConv: Z_scale is required");
    return quant_check_pair(k, "z", k->in[QCONV_Z_SCALE], kn_input(k, QCONV_Z_ZERO), z->dtype, -1);
}

/* Per output channel: the requantization's constants, worked out once a run. */
typedef struct qconv_chan {
    double mult, step;  /* the reference's: s_x s_w / s_y as float, and s_x s_w exactly */
    float multf, stepf; /* the same in float, for the fast loops */
    int32_t bias;
    int fast; /* the float loops may serve (finite constants, clamp activation) */
    /* every (acc + bias) is below 2^24 in magnitude, so exact in float: the
     * products' bound (kdim x 255 x 255) plus |bias| */
    int small;
} qconv_chan;

static int qconv_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 7) != KN_OK || !kn_input(k, 3))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "QLinearConv: x, w and the scales are required");
    const kn_tensor *x = k->in[0], *w = k->in[3], *bias = kn_input(k, 8);
    qconv_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "QLinearConv: out of memory");
    k->state = s;
    int rc = quant_conv_prepare(k, &s->conv, x, w, k->out[0]);
    if (rc == KN_OK)
        rc = quant_check_pair(k, "x", k->in[1], kn_input(k, 2), x->dtype, -1);
    if (rc == KN_OK)
        rc = quant_check_pair(k, "w", k->in[4], kn_input(k, 5), w->dtype, s->conv.cout);
    if (rc == KN_OK)
        rc = quant_conv_const_weights(k, &s->conv, w, kn_input(k, 5));
    const kn_tensor *y_zp = kn_input(k, 7);
    if (rc == KN_OK)
        rc = output_type(k, y_zp, x->dtype, &s->y_dtype, &s->lo, &s->hi);
    if (rc == KN_OK)
        rc = quant_check_pair(k, "y", k->in[6], y_zp, s->y_dtype, -1);
    if (rc != KN_OK)
        return rc;
    if (bias && (bias->dtype != KN_INT32 || bias->rank != 1 || bias->dims[0] != s->conv.cout))
        return kn_fail(k->err, KN_ERR_SHAPE, "QLinearConv: B must be int32 of %lld (output "
                       "channels), got %s of rank %d", (long long)s->conv.cout,
                       kn_dtype_name(bias->dtype), (int)bias->rank);
    k->out[0]->dtype = s->y_dtype;
    rc = qconv_epilogue(k, s);
    if (rc != KN_OK)
        return rc;
    s->conv_bytes = kn_align_up(quant_conv_scratch(&s->conv), 16);
    k->scratch_bytes = s->conv_bytes + (size_t)s->conv.cout * sizeof(qconv_chan);
    return KN_OK;
}

typedef struct qconv_job {
    const qconv_state *s;
    const qconv_chan *chan;
    const kn_tensor *xs, *ws, *ys, *zs;
    int32_t y_zp, z_zp;
    int32_t z_dtype;
    const char *z; /* this image's residual, or NULL */
    char *y;       /* this image's output */
    double lo, hi; /* y's range less its zero point */
    float act_lo, act_hi, ysf, zsf, err_scale;
    /* requant_smooth_row_f32's inner clamp, [-87, 88] for SiLU's e^-x and
     * [0, 1] for HardSwish, held here so that clang sees no constant bound
     * (clampf) */
    float smooth_lo[2], smooth_hi[2];
    const kq_consts *k; /* quant_loop_values, behind a pointer (see there) */
} qconv_job;

/* One channel's values through kiln.QFusedConv's epilogue, in real units. */
static void qconv_fused_row(const qconv_job *j, int64_t m, const int32_t *acc, int64_t b,
                            int64_t i0, int64_t len, int32_t *q)
{
    const qconv_state *s = j->s;
    int64_t n_ws = kn_tensor_numel(j->ws);
    double step = (double)quant_scale_at(j->xs, 0) * quant_scale_at(j->ws, n_ws == 1 ? 0 : m);
    double zs = j->z ? (double)quant_scale_at(j->zs, 0) : 0.0;
    double ys = (double)quant_scale_at(j->ys, 0);
    int64_t at = m * s->conv.out_size + i0;
    for (int64_t i = 0; i < len; i++) {
        double real = (double)(acc[i] + b) * step;
        if (j->z) {
            int32_t z = j->z_dtype == KN_INT8 ? ((const int8_t *)j->z)[at + i]
                                              : ((const uint8_t *)j->z)[at + i];
            real += (double)(z - j->z_zp) * zs;
        }
        real = (double)kn_act_ref(&s->act, (float)real);
        q[i] = quant_saturate(real / ys, j->y_zp, s->lo, s->hi);
    }
}

/* Round half to even and clamp, without branches so that the loops below
 * vectorize: equal to quant_saturate for finite v (lo, hi: y's range less
 * its zero point, integers, so a clamped value rounds to itself). */
static inline int32_t requant_clamped(double v, double lo, double hi)
{
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    return (int32_t)quant_rint(v);
}

/* The float loops below give the reference's double result except near a
 * rounding tie: their error bound is far below the margin here, so an
 * element whose float value lies farther than QUANT_TIE_EDGE from the
 * nearest integer rounds as the reference does. The others (a few in ten
 * thousand) are flagged and redone in double. Float SIMD has twice the
 * lanes of double and converts int32 in one instruction. */
#define QUANT_FLAGGED INT32_MIN
#define QUANT_TIE_EDGE 0x1p-12f
/* 2^24: an int32 a is exact in float when |a| < 2^24, and one that is not
 * converts to a float of magnitude 2^24 or more, so |(float)a| >= 2^24 flags
 * every inexact a (and 2^24 itself, needlessly): two float instructions per
 * vector where the same test on the integer took an add and an unsigned
 * compare, which SIMD128 lacks for int32 and V8 builds of four. */
#define QUANT_F32_EXACT 0x1p24f

/* v clamped to [lo, hi], written as v < lo ? lo : v and v < hi ? v : hi,
 * the forms clang 14 turns into SIMD128's f32x4.pmax and f32x4.pmin, one
 * instruction each in V8 (v > hi ? hi : v became a compare and a
 * bitselect). With a constant bound clang proves the result NaN-exact
 * and writes f32x4.max / f32x4.min, which order NaN and -0 and take about
 * eight instructions each in V8: the loops pass their bounds as values. */
static inline float clampf(float v, float lo, float hi)
{
    v = v < lo ? lo : v;
    return v < hi ? v : hi;
}

/* 1.5 2^23: for |v| < 2^22, v + QUANT_ROUNDER is v rounded to an integer
 * (ties to even) plus the constant, and that integer is the sum's bits less
 * QUANT_ROUNDER_BITS. Reading it from the bits spares a float to int
 * conversion per element: i32x4.trunc_sat_f32x4_s, several instructions
 * in V8 (it handles NaN and overflow, which cannot occur here). */
#define QUANT_ROUNDER 0x1.8p23f
#define QUANT_ROUNDER_BITS 0x4B400000

static inline int32_t f32_bits(float v)
{
    int32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* The fused loops' constants, read at run time through the job's pointer
 * (qconv_job.k) rather than written as literals. With literals, clang
 * leaves each v128.const in the loop, and V8 builds every one again at
 * each use once the loop's values outnumber the 16 vector registers (the
 * SiLU loop has about 24): several instructions per constant per four
 * elements. Values it cannot see are splatted once before the loop and at
 * worst reloaded from the stack. EfficientNet-B0's int8 epilogue, headless
 * Chromium 156 on AMD Zen 4, 1 thread: 55.9 -> 52.2 ms a run. The struct
 * (kq_consts) is vec_requant_silu.h's, whose SIMD128 SiLU row reads the
 * same values. */
static const kq_consts quant_loop_values = {
    .rounder = QUANT_ROUNDER, .tie_edge = QUANT_TIE_EDGE, .half = 0.5f, .one = 1.0f,
    .f32_exact = QUANT_F32_EXACT, .smooth_margin = 8.0f, .silu_floor = -80.0f, .sixth_div = 6.0f,
    .log2e = 0x1.715476p0f, .ln2_hi = 0x1.62e4p-1f, .ln2_lo = 0x1.7f7d1cp-20f,
    .c6 = 0x1.6c16c2p-10f /* 1/720 */, .c5 = 0x1.111112p-7f, .c4 = 0x1.555556p-5f,
    .c3 = 0x1.555556p-3f, .c2 = 0.5f,
    .rounder_bits = QUANT_ROUNDER_BITS, .flagged = QUANT_FLAGGED, .exp_bias = 127 << 23};

/* kiln.QFusedConv's epilogue for a clamp activation (none, Relu, Clip) in
 * float: real = (acc + b) s_x s_w + zq s_z, clamped, over s_y. Its error
 * grows with the two terms (they may cancel), so the margin does too:
 * err_scale = 2^-20 / s_y per unit of |term|, many times the float error. */
static inline __attribute__((always_inline)) int
requant_clamp_row_f32(const kq_consts *restrict k, const int32_t *restrict acc,
                      const int32_t *restrict zq, int64_t len, int32_t b, float step, float zs,
                      float act_lo, float act_hi, float ys, float err_scale, float lo, float hi,
                      int32_t *restrict q)
{
    const float rounder = k->rounder, tie_edge = k->tie_edge, half = k->half,
                f32_exact = k->f32_exact;
    const int32_t rounder_bits = k->rounder_bits, flagged = k->flagged;
    int32_t bad = 0;
    for (int64_t i = 0; i < len; i++) {
        int32_t a = (int32_t)((uint32_t)acc[i] + (uint32_t)b);
        float af = (float)a, t1 = af * step, t2 = zq ? (float)zq[i] * zs : 0.0f;
        float p = clampf(clampf(t1 + t2, act_lo, act_hi) / ys, lo, hi);
        float t = p + rounder, r = t - rounder;
        float edge = tie_edge + (fabsf(t1) + fabsf(t2)) * err_scale;
        int32_t flag = (fabsf(p - r) > half - edge) | (fabsf(af) >= f32_exact);
        bad |= flag;
        q[i] = flag ? flagged : f32_bits(t) - rounder_bits;
    }
    return bad;
}

/* e^y in float for y in [-87, 88], without branches so that the loop
 * calling it vectorizes: y = n ln2 + r with |r| <= ln2 / 2 (ln2 in two
 * parts, n ln2_hi exact), e^r by its Taylor series to degree 6 (relative
 * error under 2^-21 with the rounding), 2^n built in the exponent bits.
 * The series is summed in Estrin's order, (1 + r) + r^2 (1/2 + r/6) +
 * r^4 (1/24 + r/120 + r^2/720): five dependent steps where Horner's has
 * twelve. The loop is bound by that chain's latency, not by its
 * instruction count (V8 keeps about three iterations in flight): 3.4 ->
 * 2.8 ns an element alone in headless Chromium 156 on AMD Zen 4. */
static inline float exp_poly(const kq_consts *restrict k, float y)
{
    float t = y * k->log2e + k->rounder, n = t - k->rounder;
    float r = (y - n * k->ln2_hi) - n * k->ln2_lo;
    float r2 = r * r, r4 = r2 * r2;
    float low = k->one + r, mid = k->c2 + r * k->c3, high = (k->c4 + r * k->c5) + r2 * k->c6;
    float p = (low + r2 * mid) + r4 * high;
    /* (n + 127) 2^23 from t's bits (QUANT_ROUNDER_BITS 2^23 is 0 mod 2^32) */
    int32_t bits = (int32_t)(((uint32_t)f32_bits(t) << 23) + (uint32_t)k->exp_bias);
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/* The smooth activations that the float loops serve, as compile-time
 * constants so that each gets its own loop. */
enum { SMOOTH_SILU, SMOOTH_HARD_SWISH };

/* kiln.QFusedConv's epilogue for SiLU or HardSwish in float, as
 * requant_clamp_row_f32 with the activation between the sum and the
 * division. The activation adds to the error: a slope of at most 1.5 on the
 * sum's error and, for SiLU, |x| / 4 times exp_poly's relative error, so
 * the margin per unit of |term| is err_scale 2^3 (2^-17 / s_y), still
 * several times the bound. Below -80 SiLU's e^-x leaves exp_poly's range:
 * flagged (the result is 0 unless s_y is absurdly small). */
static inline __attribute__((always_inline)) int
requant_smooth_row_f32(const kq_consts *restrict k, int kind,
                       const int32_t *restrict acc, const int32_t *restrict zq, int64_t len,
                       int32_t b, float step, float zs, float ys, float err_scale, float lo,
                       float hi, float in_lo, float in_hi, int32_t *restrict q)
{
    const float rounder = k->rounder, tie_edge = k->tie_edge, half = k->half, one = k->one,
                f32_exact = k->f32_exact, silu_floor = k->silu_floor, six = k->sixth_div;
    const float margin = err_scale * k->smooth_margin;
    const int32_t rounder_bits = k->rounder_bits, flagged = k->flagged;
    int32_t bad = 0;
    for (int64_t i = 0; i < len; i++) {
        int32_t a = (int32_t)((uint32_t)acc[i] + (uint32_t)b);
        float af = (float)a, t1 = af * step, t2 = zq ? (float)zq[i] * zs : 0.0f;
        float x = t1 + t2, f;
        /* SiLU over s_y in one division, x / ((1 + e^-x) s_y): two
         * roundings as the two divisions had, so the margin holds, and one
         * division's latency less on the loop's chain */
        if (kind == SMOOTH_SILU)
            f = x / ((one + exp_poly(k, clampf(-x, in_lo, in_hi))) * ys);
        else
            f = x * clampf(x / six + half, in_lo, in_hi) / ys;
        float p = clampf(f, lo, hi);
        float t = p + rounder, r = t - rounder;
        float edge = tie_edge + (fabsf(t1) + fabsf(t2)) * margin;
        int32_t flag =
            (fabsf(p - r) > half - edge) | (fabsf(af) >= f32_exact) | (x < silu_floor);
        bad |= flag;
        q[i] = flag ? flagged : f32_bits(t) - rounder_bits;
    }
    return bad;
}

/* kiln.QFusedConv's float loop for channel ch's row of n accumulators,
 * with the residual zq or without (NULL). Each loop is written out once per
 * case so that the test on zq leaves it: the compilers vectorize a loop
 * only without it (a load that may not happen is one WebAssembly SIMD
 * cannot make for four lanes). */
static int fused_row_f32(const qconv_job *j, const qconv_chan *ch, kn_act_kind kind,
                         const int32_t *a, const int32_t *zq, int64_t n, int32_t *q)
{
    float lo = (float)j->lo, hi = (float)j->hi;
    if (KQ_SILU_ROW && kind == KN_ACT_SILU) {
        kq_silu row = {.bias = ch->bias,
                       .step = ch->stepf,
                       .zs = j->zsf,
                       .ys = j->ysf,
                       .lo = lo,
                       .hi = hi,
                       .in_lo = j->smooth_lo[SMOOTH_SILU],
                       .in_hi = j->smooth_hi[SMOOTH_SILU],
                       .margin = j->err_scale * j->k->smooth_margin};
        return zq ? kq_silu_row(j->k, &row, 1, a, zq, n, q)
                  : kq_silu_row(j->k, &row, 0, a, NULL, n, q);
    }
#define KN_FUSED_ROW(Z)                                                                            \
    (kind == KN_ACT_SILU                                                                           \
         ? requant_smooth_row_f32(j->k, SMOOTH_SILU, a, Z, n, ch->bias, ch->stepf, j->zsf,         \
                                  j->ysf, j->err_scale, lo, hi, j->smooth_lo[SMOOTH_SILU],         \
                                  j->smooth_hi[SMOOTH_SILU], q)                                    \
     : kind == KN_ACT_HARD_SWISH                                                                   \
         ? requant_smooth_row_f32(j->k, SMOOTH_HARD_SWISH, a, Z, n, ch->bias, ch->stepf, j->zsf,   \
                                  j->ysf, j->err_scale, lo, hi, j->smooth_lo[SMOOTH_HARD_SWISH],   \
                                  j->smooth_hi[SMOOTH_HARD_SWISH], q)                              \
         : requant_clamp_row_f32(j->k, a, Z, n, ch->bias, ch->stepf, j->zsf, j->act_lo,            \
                                 j->act_hi, j->ysf, j->err_scale, lo, hi, q))
    return zq ? KN_FUSED_ROW(zq) : KN_FUSED_ROW(NULL);
#undef KN_FUSED_ROW
}

/* n 8-bit values of type T less z, as int32 (the residual). */
#define KN_Z_ROW(T, SFX)                                                                           \
    static void z_row_##SFX(const T *restrict z, int32_t zz, int64_t n, int32_t *restrict dst)     \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            dst[i] = z[i] - zz;                                                                    \
    }
KN_Z_ROW(uint8_t, u8)
KN_Z_ROW(int8_t, s8)

/* q + zp into 8-bit y of type T (q within y's range less zp). */
#define KN_STORE_ROW(T, SFX)                                                                       \
    static void store_row_##SFX(T *restrict y, const int32_t *restrict q, int32_t zp, int64_t n)   \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            y[i] = (T)(q[i] + zp);                                                                 \
    }
KN_STORE_ROW(uint8_t, u8)
KN_STORE_ROW(int8_t, s8)

/* Whether the activation is one requant_smooth_row_f32 serves. */
static int act_smooth(const kn_activation *a)
{
    return a->kind == KN_ACT_SILU || a->kind == KN_ACT_HARD_SWISH;
}

/* The activation as a clamp [lo, hi] when it is one. */
static int act_clamp(const kn_activation *a, int fused, float *lo, float *hi)
{
    *lo = -INFINITY;
    *hi = INFINITY;
    if (!fused || a->kind == KN_ACT_NONE)
        return 1;
    if (a->kind == KN_ACT_RELU) {
        *lo = 0.0f;
        return 1;
    }
    if (a->kind == KN_ACT_CLIP && a->alpha <= a->beta) {
        *lo = a->alpha;
        *hi = a->beta;
        return 1;
    }
    return 0;
}

/* The float loops' vector width in SIMD128 (and the least x86 one). */
#define QUANT_LANES 4

/* fused_row_f32 over n elements, the last n % QUANT_LANES of them as one full
 * vector padded with zeros: the loops' scalar remainder costs several
 * times as much per element, and the depthwise kernel's rows of 7 or 14
 * (EfficientNet-B0's and MobileNet-V2's last stages) left 3 or 2 of each
 * there. A padding lane may be flagged: it only costs the scan for the
 * real ones. */
static int fast_rows(const qconv_job *j, const qconv_chan *ch, const int32_t *a,
                     const int32_t *zq, int64_t n, int32_t *q)
{
    int64_t body = n & ~(int64_t)(QUANT_LANES - 1), rest = n - body;
    int bad = body > 0 ? fused_row_f32(j, ch, j->s->act.kind, a, zq, body, q) : 0;
    if (rest > 0) {
        int32_t ta[QUANT_LANES] = {0}, tz[QUANT_LANES] = {0}, tq[QUANT_LANES];
        memcpy(ta, a + body, (size_t)rest * sizeof *ta);
        if (zq)
            memcpy(tz, zq + body, (size_t)rest * sizeof *tz);
        bad |= fused_row_f32(j, ch, j->s->act.kind, ta, zq ? tz : NULL, QUANT_LANES, tq);
        memcpy(q + body, tq, (size_t)rest * sizeof *tq);
    }
    return bad;
}

/* n (at most 16) elements of a plain row in the reference's double
 * arithmetic, stored as y's type. */
static void plain_exact(const qconv_job *j, const qconv_chan *ch, const int32_t *a, int64_t n,
                        char *y)
{
    int32_t q[16];
    for (int64_t i = 0; i < n; i++)
        q[i] = requant_clamped(((double)a[i] + ch->bias) * ch->mult, j->lo, j->hi);
    if (j->s->y_dtype == KN_UINT8)
        store_row_u8((uint8_t *)y, q, j->y_zp, n);
    else
        store_row_s8((int8_t *)y, q, j->y_zp, n);
}

/* A plain QLinearConv row (no fused epilogue) straight to bytes, 16 at a
 * time through vec_requant.h; the groups it flags, and the last n % 16
 * elements, in double. u8 (y's type) and exact (whether acc + b may be
 * inexact in float) are constants at each call, one loop per case. */
static inline __attribute__((always_inline)) void
plain_groups(const qconv_job *j, const qconv_chan *ch, int u8, int exact, const int32_t *a,
             int64_t n, char *y)
{
    kq_requant r = kq_requant_setup(ch->bias, ch->multf, (float)j->lo, (float)j->hi, j->y_zp,
                                    QUANT_TIE_EDGE);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        if (kq_requant16(&r, exact, u8, a + i, y + i))
            plain_exact(j, ch, a + i, 16, y + i);
    }
    if (i < n)
        plain_exact(j, ch, a + i, n - i, y + i);
}

static void plain_row(const qconv_job *j, const qconv_chan *ch, const int32_t *a, int64_t n,
                      char *y)
{
    int u8 = j->s->y_dtype == KN_UINT8;
    if (u8 && ch->small)
        plain_groups(j, ch, 1, 0, a, n, y);
    else if (u8)
        plain_groups(j, ch, 1, 1, a, n, y);
    else if (ch->small)
        plain_groups(j, ch, 0, 0, a, n, y);
    else
        plain_groups(j, ch, 0, 1, a, n, y);
}

/* quant_epilogue row: output channel m's columns [col, col + len) of one
 * image, requantized into y while the convolution's results are in cache. */
static void qconv_row(void *ctx, int64_t m, int64_t col, const int32_t *acc, int64_t len)
{
    const qconv_job *j = ctx;
    const qconv_state *s = j->s;
    const qconv_chan *ch = &j->chan[m];
    size_t es = kn_dtype_size(s->y_dtype);
    int32_t q[KN_CHUNK], zq[KN_CHUNK];
    for (int64_t i0 = 0; i0 < len; i0 += KN_CHUNK) {
        int64_t n = len - i0 < KN_CHUNK ? len - i0 : KN_CHUNK;
        int64_t at = m * s->conv.out_size + col + i0;
        char *y = j->y + (size_t)at * es;
        const int32_t *a = acc + i0;
        if (!ch->fast) {
            if (s->fused)
                qconv_fused_row(j, m, a, ch->bias, col + i0, n, q);
            else
                for (int64_t i = 0; i < n; i++)
                    q[i] = quant_saturate((double)((int64_t)a[i] + ch->bias) * ch->mult, j->y_zp,
                                          s->lo, s->hi);
            kn_convert(KN_INT32, q, s->y_dtype, y, n);
            continue;
        }
        if (!s->fused) {
            plain_row(j, ch, a, n, y);
            continue;
        }
        int bad;
        {
            const int32_t *zrow = NULL;
            if (j->z) {
                if (j->z_dtype == KN_INT8)
                    z_row_s8((const int8_t *)j->z + at, j->z_zp, n, zq);
                else
                    z_row_u8((const uint8_t *)j->z + at, j->z_zp, n, zq);
                zrow = zq;
            }
            bad = fast_rows(j, ch, a, zrow, n, q);
            for (int64_t i = 0; bad && i < n; i++)
                if (q[i] == QUANT_FLAGGED) {
                    /* the reference's arithmetic for this element */
                    double real = ((double)a[i] + ch->bias) * ch->step;
                    if (zrow)
                        real += (double)zrow[i] * (double)j->zsf;
                    float f = kn_act_ref(&s->act, (float)real);
                    q[i] = requant_clamped((double)f / (double)j->ysf, j->lo, j->hi);
                }
        }
        if (s->y_dtype == KN_UINT8)
            store_row_u8((uint8_t *)y, q, j->y_zp, n);
        else
            store_row_s8((int8_t *)y, q, j->y_zp, n);
    }
}

static int qconv_run(kn_kctx *k)
{
    const qconv_state *s = k->state;
    const quant_conv *c = &s->conv;
    qconv_chan *chan = (qconv_chan *)((char *)k->scratch + s->conv_bytes);
    const kn_tensor *bias = kn_input(k, 8);
    const kn_tensor *z = s->fused ? kn_input(k, QCONV_Z) : NULL;
    qconv_job j = {.s = s,
                   .chan = chan,
                   .xs = k->in[1],
                   .ws = k->in[4],
                   .ys = k->in[6],
                   .zs = z ? k->in[QCONV_Z_SCALE] : NULL,
                   .y_zp = quant_zp_at(kn_input(k, 7), 0),
                   .z_zp = z ? quant_zp_at(kn_input(k, QCONV_Z_ZERO), 0) : 0,
                   .z_dtype = z ? z->dtype : 0,
                   .smooth_lo = {[SMOOTH_SILU] = -87.0f, [SMOOTH_HARD_SWISH] = 0.0f},
                   .smooth_hi = {[SMOOTH_SILU] = 88.0f, [SMOOTH_HARD_SWISH] = 1.0f},
                   .k = &quant_loop_values};
    j.lo = (double)(s->lo - j.y_zp);
    j.hi = (double)(s->hi - j.y_zp);
    j.ysf = quant_scale_at(j.ys, 0);
    j.zsf = z ? quant_scale_at(j.zs, 0) : 0.0f;
    j.err_scale = 0x1p-20f / j.ysf;
    int fast_act = act_clamp(&s->act, s->fused, &j.act_lo, &j.act_hi) || act_smooth(&s->act);
    float xs = quant_scale_at(j.xs, 0);
    int64_t n_ws = kn_tensor_numel(j.ws);
    for (int64_t m = 0; m < c->cout; m++) {
        float wsm = quant_scale_at(j.ws, n_ws == 1 ? 0 : m);
        qconv_chan *ch = &chan[m];
        ch->multf = xs * wsm / j.ysf;
        ch->mult = (double)ch->multf;
        ch->step = (double)xs * wsm;
        ch->stepf = xs * wsm;
        ch->bias = bias ? ((const int32_t *)bias->data)[m] : 0;
        /* operands less their zero points lie in [-255, 255] (8-bit both) */
        double bound = (double)c->kdim * 255.0 * 255.0 + fabs((double)ch->bias);
        ch->small = bound < 0x1p24;
        ch->fast = fast_act && isfinite(ch->multf) && isfinite(ch->stepf) && isfinite(j.zsf) &&
                   isfinite(j.err_scale) && isfinite(1.0f / j.ysf);
    }
    quant_epilogue ep = {qconv_row, &j};
    size_t image_bytes = (size_t)(c->cout * c->out_size) * kn_dtype_size(s->y_dtype);
    quant_conv_weights(c, k->in[3]->data, kn_input(k, 5), k->scratch);
    for (int64_t n = 0; n < c->batch; n++) {
        j.y = (char *)k->out[0]->data + image_bytes * (size_t)n;
        j.z = z ? (const char *)z->data + image_bytes * (size_t)n : NULL; /* 8-bit, as y */
        quant_conv_image(c, n, k->in[0]->data, kn_input(k, 2), NULL, &ep, k->scratch, k->threads);
    }
    return KN_OK;
}

const kn_op_def kn_op_QLinearConv = {
    .op_type = "QLinearConv", .since_version = 10, .dtypes = QUANT_MASK_Q8,
    .prepare = qconv_prepare, .run = qconv_run, .release = qconv_release
};
const kn_op_def kn_op_QFusedConv = {.domain = "kiln",
                                    .op_type = "QFusedConv",
                                    .since_version = 1,
                                    .until_version = 1,
                                    .dtypes = QUANT_MASK_Q8,
                                    .prepare = qconv_prepare,
                                    .run = qconv_run,
                                    .release = qconv_release};
