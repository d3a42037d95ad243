/* The float kernels of kernels.h, written once over vec.h / vec_math.h.
 * Included by one core/cpu/simd_<isa>.c per instruction set, which first
 * defines KN_SIMD_ISA, KS_TABLE (the table's name) and KS_SFX (a name
 * suffix such as _avx2). Everything here is static except the table and
 * the GEMM entry points kn_sgemm<KS_SFX>. */
#include <math.h>
#include <string.h>

#include "core/simd/kernels.h"
#include "core/simd/vec_math.h"

#define KS_CAT_(a, b) a##b
#define KS_CAT(a, b) KS_CAT_(a, b)
#define KS(name) KS_CAT(name, KS_SFX)

/* ---- GEMM: blocked algorithm of gemm_impl.h with a kv micro-kernel ---- */

/* Micro-tile: 6 rows (one broadcast of A each) by 2 vectors of B, so 12
 * accumulators: 6 x 32 on AVX-512, 6 x 16 on AVX2, 6 x 8 on 4-lane ISAs
 * (12 of SSE2's 16 registers). 6 x 64 on AVX-512 measured no faster on
 * AMD Zen 4 (whose FMA units are 256 bits wide) and wastes more of the
 * last column panel on 7x7 and 14x14 images. The 6 rows are fixed for
 * every x86 ISA so that A packed once (Conv weights) is valid whichever
 * table runs. */
#if KN_SIMD_ISA == KN_SIMD_WASM128
/* WebAssembly SIMD128 has no fused multiply-add, so every update needs a
 * product register besides the accumulators, and V8 keeps one of x86-64's
 * 16 xmm registers as scratch: 6 x 8 (12 accumulators, 2 B vectors, the
 * broadcast, the product) needs 16 and spills in the inner loop, 5 x 8
 * needs 14. Measured in Node 20 on Zen 4, resnet50: 6 x 8 328 ms, 4 x 8
 * 231 ms, 5 x 8 217 ms. This is the table's own tile; gemm_tiles.c holds
 * the others a page can choose at run time (gemm_tune.c). KS_WASM_MR and
 * KS_WASM_NV override it for experiments. */
#ifndef KS_WASM_MR
#define KS_WASM_MR 5
#endif
#ifndef KS_WASM_NV
#define KS_WASM_NV 2
#endif
#define GTILE_ROWS KS_WASM_MR
#define GTILE_VECS KS_WASM_NV
#elif KN_SIMD_ISA == KN_SIMD_NEON
/* AArch64 has 32 vector registers and a fused multiply-add: 6 x 16 keeps
 * 24 accumulators, 4 B vectors and the broadcast A value in registers
 * (6 x 8 leaves half the file idle and loads B twice as often per FMA).
 * Per depth step the inner loop is 4 B loads, 6 broadcast loads (LD1R)
 * and 24 FMLA: 34 instructions for 96 multiply-adds, against 6 x 8's 20
 * (2 + 6 + 12) for 48. Six rows, as on x86, so the packed-A layout stays
 * the base instance's (gemm_tiles.c packs for the table's tile with it). */
#define GTILE_ROWS 6
#define GTILE_VECS 4
#else
#define GTILE_ROWS 6
#define GTILE_VECS 2
#endif
#define GTILE_SFX KS_SFX
#include "core/simd/gemm_tile.h"

/* ---- activations ---- */

/* KS_ACT_SWITCH(LOOP): one loop per activation kind, so the kind is
 * tested once per call, not once per vector. LOOP(EXPR) computes EXPR of
 * the vector v over the range. Clamps are written kv_min(hi, kv_max(lo, v))
 * so that NaN passes through, as the scalar definitions do. */
#define KS_ACT_SWITCH(a, LOOP)                                                                     \
    do {                                                                                           \
        const kv zero_ = kv_zero(), one_ = kv_set1(1.0f);                                          \
        const kv al_ = kv_set1(a ? a->alpha : 0), be_ = kv_set1(a ? a->beta : 0);                  \
        (void)zero_, (void)one_, (void)al_, (void)be_;                                             \
        switch (a ? a->kind : KN_ACT_NONE) {                                                       \
        case KN_ACT_RELU: LOOP(kv_max(zero_, v)); break;                                           \
        case KN_ACT_CLIP: LOOP(kv_min(be_, kv_max(al_, v))); break;                                \
        case KN_ACT_LEAKY_RELU: LOOP(kv_select(kv_lt(v, zero_), kv_mul(al_, v), v)); break;        \
        case KN_ACT_SIGMOID: LOOP(kv_sigmoid(v)); break;                                           \
        case KN_ACT_HARD_SIGMOID: LOOP(kv_min(one_, kv_max(zero_, kv_fma(al_, v, be_)))); break;   \
        case KN_ACT_TANH: LOOP(kv_tanh(v)); break;                                                 \
        case KN_ACT_HARD_SWISH:                                                                    \
            LOOP(kv_mul(v, kv_min(one_, kv_max(zero_, kv_fma(v, kv_set1(1.0f / 6.0f),             \
                                                             kv_set1(0.5f))))));                   \
            break;                                                                                 \
        case KN_ACT_SILU: LOOP(kv_mul(v, kv_sigmoid(v))); break;                                   \
        case KN_ACT_GELU: LOOP(kv_gelu_erf(v)); break;                                             \
        default: LOOP(v); break;                                                                   \
        }                                                                                          \
    } while (0)

static void KS(act)(float *y, const float *x, int64_t n, const kn_activation *a)
{
#define KS_LOOP(EXPR)                                                                              \
    do {                                                                                           \
        int64_t i = 0;                                                                             \
        for (; i + KV_W <= n; i += KV_W) {                                                         \
            kv v = kv_loadu(x + i);                                                                \
            kv_storeu(y + i, EXPR);                                                                \
        }                                                                                          \
        if (i < n) {                                                                               \
            kv v = kv_load_part(x + i, (int)(n - i), 0.0f);                                        \
            kv_store_part(y + i, EXPR, (int)(n - i));                                              \
        }                                                                                          \
    } while (0)
    KS_ACT_SWITCH(a, KS_LOOP);
#undef KS_LOOP
}

static void KS(bias_act)(float *y, int64_t n, float bias, const float *z, const kn_activation *a)
{
    const kv bv = kv_set1(bias);
#define KS_LOOP(EXPR)                                                                              \
    do {                                                                                           \
        int64_t i = 0;                                                                             \
        for (; i + KV_W <= n; i += KV_W) {                                                         \
            kv v = kv_add(kv_loadu(y + i), bv);                                                    \
            if (z)                                                                                 \
                v = kv_add(v, kv_loadu(z + i));                                                    \
            kv_storeu(y + i, EXPR);                                                                \
        }                                                                                          \
        if (i < n) {                                                                               \
            int t = (int)(n - i);                                                                  \
            kv v = kv_add(kv_load_part(y + i, t, 0.0f), bv);                                       \
            if (z)                                                                                 \
                v = kv_add(v, kv_load_part(z + i, t, 0.0f));                                       \
            kv_store_part(y + i, EXPR, t);                                                         \
        }                                                                                          \
    } while (0)
    KS_ACT_SWITCH(a, KS_LOOP);
#undef KS_LOOP
}

static void KS(math)(kn_mathfn fn, float *y, const float *x, int64_t n)
{
#define KS_LOOP(FN)                                                                                \
    do {                                                                                           \
        int64_t i = 0;                                                                             \
        for (; i + KV_W <= n; i += KV_W)                                                           \
            kv_storeu(y + i, FN(kv_loadu(x + i)));                                                 \
        if (i < n)                                                                                 \
            kv_store_part(y + i, FN(kv_load_part(x + i, (int)(n - i), 0.0f)), (int)(n - i));       \
    } while (0)
    switch (fn) {
    case KN_MATH_EXP: KS_LOOP(kv_exp); break;
    case KN_MATH_ERF: KS_LOOP(kv_erf); break;
    }
#undef KS_LOOP
}

/* ---- binary arithmetic with scalar broadcast ---- */

/* One row: y[i] = a[i sa] FN b[i sb], sa and sb in {0, 1}. */
#define KS_LOAD(p, s, i) ((s) ? kv_loadu((p) + (i)) : kv_set1(*(p)))
#define KS_LOADP(p, s, i, t) ((s) ? kv_load_part((p) + (i), (t), 1.0f) : kv_set1(*(p)))
#define KS_BIN_ROW(FN, y, a, sa, b, sb, n)                                                         \
    do {                                                                                           \
        int64_t i = 0;                                                                             \
        for (; i + KV_W <= (n); i += KV_W)                                                         \
            kv_storeu((y) + i, FN(KS_LOAD(a, sa, i), KS_LOAD(b, sb, i)));                          \
        if (i < (n)) {                                                                             \
            int t = (int)((n) - i);                                                                \
            kv_store_part((y) + i, FN(KS_LOADP(a, sa, i, t), KS_LOADP(b, sb, i, t)), t);           \
        }                                                                                          \
    } while (0)

static void KS(binary)(kn_binop op, float *y, const float *a, int64_t sa, const float *b,
                       int64_t sb, int64_t n)
{
    switch (op) {
    case KN_BIN_ADD: KS_BIN_ROW(kv_add, y, a, sa, b, sb, n); break;
    case KN_BIN_SUB: KS_BIN_ROW(kv_sub, y, a, sa, b, sb, n); break;
    case KN_BIN_MUL: KS_BIN_ROW(kv_mul, y, a, sa, b, sb, n); break;
    case KN_BIN_DIV: KS_BIN_ROW(kv_div, y, a, sa, b, sb, n); break;
    }
}

/* Rows of n: row r of a starts at a + r ra n (ra 0: every row reads the
 * same one), likewise b. A per-channel scale over NHWC is rows of C
 * elements: one call instead of one per pixel. */
static void KS(binary_rows)(kn_binop op, float *y, const float *a, int64_t ra, const float *b,
                            int64_t rb, int64_t rows, int64_t n)
{
#define KS_ROWS(FN)                                                                                \
    for (int64_t r = 0; r < rows; r++)                                                             \
    KS_BIN_ROW(FN, y + r * n, a + r * ra * n, 1, b + r * rb * n, 1, n)
    switch (op) {
    case KN_BIN_ADD: KS_ROWS(kv_add); break;
    case KN_BIN_SUB: KS_ROWS(kv_sub); break;
    case KN_BIN_MUL: KS_ROWS(kv_mul); break;
    case KN_BIN_DIV: KS_ROWS(kv_div); break;
    }
#undef KS_ROWS
}
#undef KS_BIN_ROW
#undef KS_LOADP
#undef KS_LOAD

/* ---- reductions over contiguous rows ---- */

/* Two accumulators so consecutive adds do not wait on each other. */
static float KS(sum)(const float *x, int64_t n)
{
    kv s0 = kv_zero(), s1 = kv_zero();
    int64_t i = 0;
    for (; i + 2 * KV_W <= n; i += 2 * KV_W) {
        s0 = kv_add(s0, kv_loadu(x + i));
        s1 = kv_add(s1, kv_loadu(x + i + KV_W));
    }
    for (; i + KV_W <= n; i += KV_W)
        s0 = kv_add(s0, kv_loadu(x + i));
    if (i < n)
        s1 = kv_add(s1, kv_load_part(x + i, (int)(n - i), 0.0f));
    return kv_hsum(kv_add(s0, s1));
}

/* Column sums: the accumulators of four vectors of columns stay in
 * registers while every row passes, so each row costs loads and adds only;
 * four independent chains hide the add latency. */
static void KS(sum_rows)(float *acc, const float *x, int64_t rows, int64_t n, int64_t ld)
{
    int64_t i = 0;
    for (; i + 4 * KV_W <= n; i += 4 * KV_W) {
        kv a0 = kv_loadu(acc + i), a1 = kv_loadu(acc + i + KV_W);
        kv a2 = kv_loadu(acc + i + 2 * KV_W), a3 = kv_loadu(acc + i + 3 * KV_W);
        const float *p = x + i;
        for (int64_t r = 0; r < rows; r++, p += ld) {
            a0 = kv_add(a0, kv_loadu(p));
            a1 = kv_add(a1, kv_loadu(p + KV_W));
            a2 = kv_add(a2, kv_loadu(p + 2 * KV_W));
            a3 = kv_add(a3, kv_loadu(p + 3 * KV_W));
        }
        kv_storeu(acc + i, a0);
        kv_storeu(acc + i + KV_W, a1);
        kv_storeu(acc + i + 2 * KV_W, a2);
        kv_storeu(acc + i + 3 * KV_W, a3);
    }
    /* The last 0-3 whole vectors in one pass over the rows. Each column is
     * one chain of additions in row order here as above, so its sum does
     * not depend on where its vector falls: a global pool that splits the
     * channels between threads gives the same bits on any thread count. */
    const int64_t left = (n - i) / KV_W;
    if (left > 0) {
        kv a0 = kv_loadu(acc + i);
        kv a1 = left > 1 ? kv_loadu(acc + i + KV_W) : kv_zero();
        kv a2 = left > 2 ? kv_loadu(acc + i + 2 * KV_W) : kv_zero();
        const float *p = x + i;
        for (int64_t r = 0; r < rows; r++, p += ld) {
            a0 = kv_add(a0, kv_loadu(p));
            if (left > 1)
                a1 = kv_add(a1, kv_loadu(p + KV_W));
            if (left > 2)
                a2 = kv_add(a2, kv_loadu(p + 2 * KV_W));
        }
        kv_storeu(acc + i, a0);
        if (left > 1)
            kv_storeu(acc + i + KV_W, a1);
        if (left > 2)
            kv_storeu(acc + i + 2 * KV_W, a2);
        i += left * KV_W;
    }
    if (i < n) { /* a partial vector */
        int part = (int)(n - i);
        kv a = kv_load_part(acc + i, part, 0.0f);
        const float *p = x + i;
        for (int64_t r = 0; r < rows; r++, p += ld)
            a = kv_add(a, kv_load_part(p, part, 0.0f));
        kv_store_part(acc + i, a, part);
    }
}

/* NaN-propagating maximum (a NaN anywhere makes the result NaN). */
static float KS(max)(const float *x, int64_t n)
{
    if (n <= 0)
        return -__builtin_inff();
    kv m = kv_set1(x[0]), nan = kv_zero();
    int64_t i = 0;
    for (; i + KV_W <= n; i += KV_W) {
        kv v = kv_loadu(x + i);
        m = kv_max(m, v);
        nan = kv_select(kv_ne(v, v), v, nan);
    }
    if (i < n) {
        kv v = kv_load_part(x + i, (int)(n - i), x[0]);
        m = kv_max(m, v);
        nan = kv_select(kv_ne(v, v), v, nan);
    }
    float nz = kv_hsum(nan); /* NaN if any lane held one, else 0 */
    return nz != nz ? nz : kv_hmax(m);
}

static void KS(softmax_row)(float *y, const float *x, int64_t n, int log)
{
    if (n <= 0)
        return;
    const kv m = kv_set1(KS(max)(x, n));
    kv s = kv_zero();
    int64_t i = 0;
    for (; i + KV_W <= n; i += KV_W) {
        kv e = kv_exp(kv_sub(kv_loadu(x + i), m));
        s = kv_add(s, e);
        if (!log)
            kv_storeu(y + i, e);
    }
    if (i < n) {
        int t = (int)(n - i);
        /* lanes past the row load -inf, whose exponential adds 0 */
        kv e = kv_exp(kv_sub(kv_load_part(x + i, t, -__builtin_inff()), m));
        s = kv_add(s, e);
        if (!log)
            kv_store_part(y + i, e, t);
    }
    float sum = kv_hsum(s);
    if (log) {
        /* (x - max) - log(sum): exact subtraction first keeps precision */
        const kv ls = kv_set1(logf(sum));
        for (i = 0; i + KV_W <= n; i += KV_W)
            kv_storeu(y + i, kv_sub(kv_sub(kv_loadu(x + i), m), ls));
        if (i < n) {
            int t = (int)(n - i);
            kv_store_part(y + i, kv_sub(kv_sub(kv_load_part(x + i, t, 0.0f), m), ls), t);
        }
        return;
    }
    const kv inv = kv_set1(1.0f / sum);
    for (i = 0; i + KV_W <= n; i += KV_W)
        kv_storeu(y + i, kv_mul(kv_loadu(y + i), inv));
    if (i < n) {
        int t = (int)(n - i);
        kv_store_part(y + i, kv_mul(kv_load_part(y + i, t, 0.0f), inv), t);
    }
}

static void KS(layernorm_row)(float *y, const float *x, int64_t n, const float *scale,
                              const float *bias, float eps, float *mean_out, float *inv_out)
{
    float mean = KS(sum)(x, n) / (float)n;
    const kv mv = kv_set1(mean);
    /* second pass over centred values: no cancellation of E[x^2] - E[x]^2 */
    kv q0 = kv_zero(), q1 = kv_zero();
    int64_t i = 0;
    for (; i + KV_W <= n; i += KV_W) {
        kv d = kv_sub(kv_loadu(x + i), mv);
        q0 = kv_fma(d, d, q0);
    }
    if (i < n) {
        kv d = kv_sub(kv_load_part(x + i, (int)(n - i), mean), mv);
        q1 = kv_fma(d, d, q1);
    }
    float var = kv_hsum(kv_add(q0, q1)) / (float)n;
    float inv = 1.0f / sqrtf(var + eps);
    const kv iv = kv_set1(inv);
    for (i = 0; i + KV_W <= n; i += KV_W) {
        kv v = kv_mul(kv_mul(kv_sub(kv_loadu(x + i), mv), iv), kv_loadu(scale + i));
        if (bias)
            v = kv_add(v, kv_loadu(bias + i));
        kv_storeu(y + i, v);
    }
    if (i < n) {
        int t = (int)(n - i);
        kv v = kv_mul(kv_mul(kv_sub(kv_load_part(x + i, t, 0.0f), mv), iv),
                      kv_load_part(scale + i, t, 0.0f));
        if (bias)
            v = kv_add(v, kv_load_part(bias + i, t, 0.0f));
        kv_store_part(y + i, v, t);
    }
    if (mean_out)
        *mean_out = mean;
    if (inv_out)
        *inv_out = inv;
}

/* ---- depthwise convolution, one padded plane ---- */

/* Vector loads of the last row overrun the padded plane by up to
 * 2 * KV_W - 2 floats (stride 2 reads two vectors' worth). */
_Static_assert(2 * KV_W <= KN_DW_SLACK, "KN_DW_SLACK too small for this vector width");

static inline void KS(dw_store)(float *y, kv v, int64_t ox, int64_t ow)
{
    if (ox + KV_W <= ow)
        kv_storeu(y + ox, v);
    else
        kv_store_part(y + ox, v, (int)(ow - ox));
}

/* KH, KW, SH, SW are constants at the call sites below (0: read them from
 * p), so the tap loops unroll and the weights stay in registers. Output
 * rows go in pairs: the input rows both members read are loaded once
 * (for 3x3 stride 1, 12 loads feed 18 multiply-adds instead of 9 for 9). */
static inline __attribute__((always_inline)) void
KS(dw_rows)(const kn_dw_plane *p, const int KH, const int KW, const int SH, const int SW)
{
    kv wv[25];
    const int kh = KH ? KH : p->kh, kw = KW ? KW : p->kw;
    const int sh = SH ? SH : p->sh, sw = SW ? SW : p->sw;
    const int64_t xs = p->xs, ow = p->ow;
    const int taps = kh * kw <= 25 ? kh * kw : 25;
    for (int t = 0; t < taps; t++)
        wv[t] = kv_set1(p->w[t]);
#define KS_TAP(i, j) ((i) * kw + (j) < 25 ? wv[(i) * kw + (j)] : kv_set1(p->w[(i) * kw + (j)]))
#define KS_LOAD_X(src) (sw == 1 ? kv_loadu(src) : kv_load_even(src))
    const kv bias = kv_set1(p->bias);
    int64_t oy = 0;
    for (; oy + 2 <= p->oh; oy += 2) {
        float *y0 = p->y + oy * ow, *y1 = y0 + ow;
        const float *xr = p->x + oy * sh * xs;
        for (int64_t ox = 0; ox < ow; ox += KV_W) {
            kv a0 = bias, a1 = bias;
            const float *xb = xr + ox * sw;
            for (int r = 0; r < kh + sh; r++)
                for (int j = 0; j < kw; j++) {
                    kv xv = KS_LOAD_X(xb + r * xs + j);
                    if (r < kh)
                        a0 = kv_fma(KS_TAP(r, j), xv, a0);
                    if (r >= sh && r - sh < kh)
                        a1 = kv_fma(KS_TAP(r - sh, j), xv, a1);
                }
            KS(dw_store)(y0, a0, ox, ow);
            KS(dw_store)(y1, a1, ox, ow);
        }
    }
    for (; oy < p->oh; oy++) {
        float *y = p->y + oy * ow;
        const float *xr = p->x + oy * sh * xs;
        for (int64_t ox = 0; ox < ow; ox += KV_W) {
            kv acc = bias;
            const float *xb = xr + ox * sw;
            for (int i = 0; i < kh; i++)
                for (int j = 0; j < kw; j++)
                    acc = kv_fma(KS_TAP(i, j), KS_LOAD_X(xb + i * xs + j), acc);
            KS(dw_store)(y, acc, ox, ow);
        }
    }
#undef KS_LOAD_X
#undef KS_TAP
}

static void KS(dw_plane)(const kn_dw_plane *p)
{
    int same = p->sh == p->sw;
    if (p->kh == 3 && p->kw == 3 && same && p->sw == 1)
        KS(dw_rows)(p, 3, 3, 1, 1);
    else if (p->kh == 3 && p->kw == 3 && same && p->sw == 2)
        KS(dw_rows)(p, 3, 3, 2, 2);
    else if (p->kh == 5 && p->kw == 5 && same && p->sw == 1)
        KS(dw_rows)(p, 5, 5, 1, 1);
    else if (p->kh == 5 && p->kw == 5 && same && p->sw == 2)
        KS(dw_rows)(p, 5, 5, 2, 2);
    else
        KS(dw_rows)(p, 0, 0, 0, 0);
    /* Residual and activation once over the finished plane (contiguous, still
     * in cache): a call per output row costs more than it saves when rows
     * are 7 to 112 floats, as in the mobile nets. */
    if (p->z || (p->act && p->act->kind != KN_ACT_NONE))
        KS(bias_act)(p->y, p->oh * p->ow, 0.0f, p->z, p->act);
}

/* ---- 8-bit requantizing add (kiln.QAdd) ----
 * Plain loops the compiler vectorises for this file's ISA (8-bit loads
 * widened to float, the float products, rounding by the 1.5 * 2^23 trick
 * once clamped into range, narrowed back): the SSE2 build of the same loop
 * took 1 ns an element, a third of ResNet-50's int8 time outside its
 * convolutions. Contracted into FMA where the ISA has it, so the result of
 * a value at an exact rounding tie may differ by one step between ISAs. */
#define KS_QADD(T, NAME)                                                                           \
    static void KS(NAME)(T *c, const T *a, int64_t sa, const T *b, int64_t sb, int64_t n,         \
                         const kn_qadd_params *p)                                                  \
    {                                                                                              \
        const float ka = p->ka, kb = p->kb, k0 = p->k0, lo = p->lo, hi = p->hi;                    \
        const float magic = 12582912.0f;                                                           \
        if (sa == 1 && sb == 1) {                                                                  \
            for (int64_t i = 0; i < n; i++) {                                                      \
                float v = ka * (float)a[i] + kb * (float)b[i] + k0;                                \
                v = v < lo ? lo : v;                                                               \
                v = v > hi ? hi : v;                                                               \
                c[i] = (T)(int32_t)((v + magic) - magic);                                          \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            float v = ka * (float)a[i * sa] + kb * (float)b[i * sb] + k0;                          \
            v = v < lo ? lo : v;                                                                   \
            v = v > hi ? hi : v;                                                                   \
            c[i] = (T)(int32_t)((v + magic) - magic);                                              \
        }                                                                                          \
    }
KS_QADD(uint8_t, qadd_u8)
KS_QADD(int8_t, qadd_s8)
#undef KS_QADD

/* ---- min(0, x) and max(0, x) (DynamicQuantizeLinear's range) ----
 * kv_min(x, acc) keeps acc where x is NaN, as the scalar x < lo ? x : lo
 * does; the padding of the last part is 0, already in the range. */
static void KS(range_with_zero)(const float *x, int64_t n, float *lo_out, float *hi_out)
{
    kv lo = kv_zero(), hi = kv_zero();
    int64_t i = 0;
    for (; i + KV_W <= n; i += KV_W) {
        kv v = kv_loadu(x + i);
        lo = kv_min(v, lo);
        hi = kv_max(v, hi);
    }
    if (i < n) {
        kv v = kv_load_part(x + i, (int)(n - i), 0.0f);
        lo = kv_min(v, lo);
        hi = kv_max(v, hi);
    }
    *lo_out = -kv_hmax(kv_sub(kv_zero(), lo));
    *hi_out = kv_hmax(hi);
}

/* ---- float to 8-bit (QuantizeLinear) ----
 * Division, not a multiply by the reciprocal: QuantizeLinear's definition,
 * and the portable path's result on every ISA. */
#define KS_QUANTIZE(T, NAME)                                                                       \
    static void KS(NAME)(T * y, const float *x, int64_t n, const kn_quantize_params *p)            \
    {                                                                                              \
        const float sc = p->scale, zp = p->zp, lo = p->lo, hi = p->hi;                             \
        const float magic = 12582912.0f;                                                           \
        for (int64_t i = 0; i < n; i++) {                                                          \
            float v = x[i] / sc;                                                                   \
            v = v == v ? v : 0; /* NaN quantizes to the zero point */                              \
            v = v < lo ? lo : v;                                                                   \
            v = v > hi ? hi : v;                                                                   \
            y[i] = (T)(int32_t)((v + magic) - magic + zp);                                         \
        }                                                                                          \
    }
KS_QUANTIZE(uint8_t, quantize_u8)
KS_QUANTIZE(int8_t, quantize_s8)
#undef KS_QUANTIZE

/* The 8-bit loops below go a chunk at a time, the 8-bit values widened to
 * int32 in a loop of their own: with the widening inside the float loop,
 * clang (14) vectorized it for WebAssembly with each lane loaded,
 * converted and inserted alone (EfficientNet-B0's SE gates took ten times
 * the float graph's Mul, 29 ms against 3 ms under load, and its int8
 * squeeze inputs' DequantizeLinear 2-3 ns an element); int32 to float is
 * one vector instruction. */
#define KS_WIDEN_CHUNK 256

/* ---- 8-bit to float (DequantizeLinear per tensor or along an axis) ----
 * y = (x - zp) * scale: no product is followed by an addition, so every
 * ISA gives the scalar definition's result. */
#define KS_DEQUANTIZE(T, NAME)                                                                     \
    static void KS(NAME)(float *y, const T *x, int64_t n, float scale, float zp)                   \
    {                                                                                              \
        int32_t wide[KS_WIDEN_CHUNK];                                                              \
        for (int64_t i0 = 0; i0 < n; i0 += KS_WIDEN_CHUNK) {                                       \
            int64_t m = n - i0 < KS_WIDEN_CHUNK ? n - i0 : KS_WIDEN_CHUNK;                         \
            for (int64_t i = 0; i < m; i++)                                                        \
                wide[i] = x[i0 + i];                                                               \
            for (int64_t i = 0; i < m; i++)                                                        \
                y[i0 + i] = ((float)wide[i] - zp) * scale;                                         \
        }                                                                                          \
    }
KS_DEQUANTIZE(uint8_t, dequantize_u8)
KS_DEQUANTIZE(int8_t, dequantize_s8)
#undef KS_DEQUANTIZE

/* ---- 8-bit times float, requantized (kiln.QMulFloat) ----
 * The same kind of loops. No product is followed by an addition, so there
 * is nothing to contract into FMA: every ISA gives the graph's result. */
#define KS_QMUL_LOOP(IB)                                                                           \
    for (int64_t i = 0; i < m; i++) {                                                              \
        float v = ((float)ai[i] - za) * ka * (IB) / sc;                                            \
        v = v == v ? v : 0; /* NaN quantizes to the zero point */                                  \
        v = v < lo ? lo : v;                                                                       \
        v = v > hi ? hi : v;                                                                       \
        q[i] = (int32_t)((v + magic) - magic + zc);                                                \
    }
#define KS_QMUL(T, NAME)                                                                           \
    static void KS(NAME)(T * c, const T *a, int64_t sa, const float *b, int64_t sb, int64_t n,     \
                         const kn_qmul_params *p)                                                  \
    {                                                                                              \
        const float za = p->za, ka = p->sa, sc = p->sc, zc = p->zc, lo = p->lo, hi = p->hi;        \
        const float magic = 12582912.0f;                                                           \
        int32_t ai[KS_WIDEN_CHUNK], q[KS_WIDEN_CHUNK];                                             \
        for (int64_t i0 = 0; i0 < n; i0 += KS_WIDEN_CHUNK) {                                       \
            int64_t m = n - i0 < KS_WIDEN_CHUNK ? n - i0 : KS_WIDEN_CHUNK;                         \
            const T *ac = a + i0 * sa;                                                             \
            const float *bc = b + i0 * sb;                                                         \
            if (sa == 1)                                                                           \
                for (int64_t i = 0; i < m; i++)                                                    \
                    ai[i] = ac[i];                                                                 \
            else                                                                                   \
                for (int64_t i = 0; i < m; i++)                                                    \
                    ai[i] = ac[i * sa];                                                            \
            if (sb == 0) {                                                                         \
                const float bb = bc[0];                                                            \
                KS_QMUL_LOOP(bb)                                                                   \
            } else if (sb == 1) {                                                                  \
                KS_QMUL_LOOP(bc[i])                                                                \
            } else {                                                                               \
                KS_QMUL_LOOP(bc[i * sb])                                                           \
            }                                                                                      \
            for (int64_t i = 0; i < m; i++)                                                        \
                c[i0 + i] = (T)q[i];                                                               \
        }                                                                                          \
    }
KS_QMUL(uint8_t, qmul_u8)
KS_QMUL(int8_t, qmul_s8)
#undef KS_QMUL
#undef KS_QMUL_LOOP
#undef KS_WIDEN_CHUNK

const kn_simd_kernels KS_TABLE = {
    .name = KV_NAME,
    .lanes = KV_W,
    .sgemm = KS(kn_sgemm),
    .sgemm_workspace_size = KS(kn_sgemm_workspace_size),
    .gemm_rows = GTILE_ROWS,
    .gemm_cols = GTILE_VECS * KV_W,
    .act = KS(act),
    .bias_act = KS(bias_act),
    .math = KS(math),
    .binary = KS(binary),
    .binary_rows = KS(binary_rows),
    .softmax_row = KS(softmax_row),
    .layernorm_row = KS(layernorm_row),
    .sum = KS(sum),
    .sum_rows = KS(sum_rows),
    .max = KS(max),
    .dw_plane = KS(dw_plane),
    .qadd_u8 = KS(qadd_u8),
    .qadd_s8 = KS(qadd_s8),
    .range_with_zero = KS(range_with_zero),
    .quantize_u8 = KS(quantize_u8),
    .quantize_s8 = KS(quantize_s8),
    .dequantize_u8 = KS(dequantize_u8),
    .dequantize_s8 = KS(dequantize_s8),
    .qmul_u8 = KS(qmul_u8),
    .qmul_s8 = KS(qmul_s8),
};

#undef KS_ACT_SWITCH
#undef GTILE_ROWS
#undef GTILE_VECS
#undef GTILE_SFX
