/* Shared by the quantization kernels (quantize.c, integer_ops.c,
 * qlinear.c): reading scales and zero points, the integer range of a
 * quantized type, and the two integer engines the *Integer and QLinear*
 * ops are built on:
 *
 *  - quant_mm: numpy-style batched matrix product of 8-bit operands minus
 *    their zero points (per tensor, per row of A, per column of B), int32
 *    results (MatMulInteger, QLinearMatMul);
 *  - quant_conv: N-D convolution of 8-bit operands minus their zero points
 *    (per tensor, weights also per output channel), one image at a time,
 *    int32 results (ConvInteger, QLinearConv).
 *
 * quant_mm subtracts zero points while converting the operands to float
 * and multiplies with the shared float GEMM (gemm.h), depth QUANT_KC at a
 * time: operands are integers in [-255, 255], so a partial sum of QUANT_KC
 * products stays below 2^24 in magnitude and every float operation on it
 * is exact. The partial sums are added into int32 accumulators (wrapping,
 * never undefined, if a huge K overflows them), so the result is the exact
 * integer product, at float GEMM speed. quant_conv multiplies in integers
 * (below): as exact, with 8 products per instruction instead of 4. */
#ifndef KN_CPU_QUANT_COMMON_H
#define KN_CPU_QUANT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "core/kernel/op.h"
#include "core/kernel/im2col.h"

/* Depth of one exact float partial product: 256 * 255 * 255 < 2^24. */
#define QUANT_KC 256

/* dtypes a QuantizeLinear output / DequantizeLinear input may have. */
#define QUANT_MASK_Q8 (KN_BIT(KN_INT8) | KN_BIT(KN_UINT8))
#define QUANT_MASK_Q16 (KN_BIT(KN_INT16) | KN_BIT(KN_UINT16))
/* The packed ones: 4-bit integers from opset 21, FLOAT4E2M1 from 23,
 * 2-bit integers from 25. */
#define QUANT_MASK_Q4 (KN_BIT(KN_INT4) | KN_BIT(KN_UINT4))
#define QUANT_MASK_Q2 (KN_BIT(KN_INT2) | KN_BIT(KN_UINT2))
/* Scale types: float, and float16/bfloat16 from opset 19. */
#define QUANT_MASK_SCALE (KN_BIT(KN_FLOAT) | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))

/* Range of an integer quantized type; 0 if dt is not one. */
static inline int quant_range(int32_t dt, int64_t *lo, int64_t *hi)
{
    switch (dt) {
    case KN_INT8: *lo = INT8_MIN; *hi = INT8_MAX; return 1;
    case KN_UINT8: *lo = 0; *hi = UINT8_MAX; return 1;
    case KN_INT16: *lo = INT16_MIN; *hi = INT16_MAX; return 1;
    case KN_UINT16: *lo = 0; *hi = UINT16_MAX; return 1;
    case KN_INT32: *lo = INT32_MIN; *hi = INT32_MAX; return 1;
    case KN_INT4: *lo = -8; *hi = 7; return 1;
    case KN_UINT4: *lo = 0; *hi = 15; return 1;
    case KN_INT2: *lo = -2; *hi = 1; return 1;
    case KN_UINT2: *lo = 0; *hi = 3; return 1;
    default: return 0;
    }
}

/* Round half to even without a libm call (SSE2, the x86-64 baseline, has
 * no rounding instruction, and this runs once per element): adding and
 * removing 1.5 * 2^52 leaves the nearest integer, ties to even, in the
 * default rounding mode. Exact for |v| < 2^51; callers clamp first. */
static inline double quant_rint(double v)
{
    return (v + 0x1.8p52) - 0x1.8p52;
}

/* saturate(round_half_even(v) + zp) into [lo, hi]; NaN gives zp. The
 * zero point is added after rounding: it decides no tie. */
static inline int32_t quant_saturate(double v, int32_t zp, int64_t lo, int64_t hi)
{
    if (v != v)
        return zp;
    if (v <= (double)(lo - zp))
        return (int32_t)lo;
    if (v >= (double)(hi - zp))
        return (int32_t)hi;
    return (int32_t)quant_rint(v) + zp; /* within [lo, hi]: the bounds are integers */
}

static inline int quant_is_scale_type(int32_t dt)
{
    return dt > 0 && dt < 32 && (KN_BIT(dt) & QUANT_MASK_SCALE) != 0;
}

/* Element i of a scale (float, float16 or bfloat16) as float. */
static inline float quant_scale_at(const kn_tensor *t, int64_t i)
{
    return (float)kn_read_double(t, i);
}

/* Element i of a zero point as int32; 0 for an omitted one (NULL). */
static inline int32_t quant_zp_at(const kn_tensor *t, int64_t i)
{
    return t ? (int32_t)kn_read_int(t, i) : 0;
}

/* Checks that a scale / zero-point pair of an op with 8-bit operands is
 * per tensor (one element) or a vector of `per` elements (per row, column
 * or channel, `per` < 0: per tensor only). `what` names the operand in
 * messages ("a", "w", ...); zp may be NULL (omitted) and must otherwise
 * have type zp_dtype. Returns KN_OK or fails. */
int quant_check_pair(kn_kctx *k, const char *what, const kn_tensor *scale, const kn_tensor *zp,
                     int32_t zp_dtype, int64_t per);

/* ---- batched integer matrix product (integer_ops.c) ---- */

typedef struct quant_mm {
    int32_t a_dtype, b_dtype;      /* int8 or uint8 */
    int64_t m, n, k;
    int32_t brank;                 /* output batch rank */
    int64_t bdims[KN_MAX_RANK];    /* output batch dims */
    int64_t a_step[KN_MAX_RANK];   /* element step of A / B per batch index; 0 = broadcast */
    int64_t b_step[KN_MAX_RANK];
    int64_t batches;
    int64_t a_numel, b_numel;
    int64_t a_zp_n, b_zp_n;        /* zero-point elements: 1, m (n for B) or a_numel / k */
    size_t a_bytes, b_bytes, tmp_bytes, ws_bytes; /* scratch parts */
    float *b_const;                /* B - b_zp when both are constants (owned), or NULL */
    /* B - b_zp packed for qgemm.h's int16 GEMM instead, where that GEMM
     * beats the float one (kn_qgemm_beats_float) and B is a 2-D constant
     * (owned), or NULL; then a_bytes holds A as int16 and packed */
    int16_t *b_packed;
} quant_mm;

/* Validates A [.., M, K] and B [.., K, N] (numpy matmul rules, 1-D
 * promoted) and their zero points (NULL = 0; one element, M for A's rows,
 * N for B's columns, or one per row / column of every batch of that
 * operand), and sets y's rank and dims (dtype is the caller's). Constant
 * weights (B and b_zp) are converted here, once; quant_mm_release frees
 * them. */
int quant_mm_prepare(kn_kctx *k, quant_mm *mm, const kn_tensor *a, const kn_tensor *b,
                     const kn_tensor *a_zp, const kn_tensor *b_zp, kn_tensor *y);
/* Whether quant_mm_prepare kept its own copy of the constant B (so the
 * caller's may go). */
static inline int quant_mm_owns_b(const quant_mm *mm) { return mm->b_const || mm->b_packed; }
/* Scratch quant_mm_run needs (a multiple of 64 bytes). */
size_t quant_mm_scratch(const quant_mm *mm);
/* acc[batches x M x N] = (A - a_zp) x (B - b_zp), exactly in int32. */
void quant_mm_run(const quant_mm *mm, const void *a, const void *b, const kn_tensor *a_zp,
                  const kn_tensor *b_zp, int32_t *acc, void *scratch, kn_threadpool *pool);
void quant_mm_release(quant_mm *mm);

/* ---- integer convolution (integer_ops.c, quant_depthwise.c) ---- */

/* Unlike quant_mm, the convolution multiplies in integers: operands minus
 * their zero points as int16, on the packed pairwise GEMM of
 * core/simd/qgemm.h (weights packed once), or channel by channel for
 * depthwise convolutions (quant_depthwise.c). */
typedef struct quant_conv {
    kn_window win;
    int32_t x_dtype, w_dtype;
    int64_t batch, cin, cout, group, cg, mg;
    int64_t kdim;                  /* GEMM depth: cg * kernel volume */
    int64_t in_size, out_size;     /* spatial element counts */
    int pointwise;                 /* 1x1, stride 1, no padding: no im2col */
    int direct_pack;               /* 2-D: columns packed from the image (quant_pack_cols) */
    int depthwise;                 /* quant_dw_fits: channel by channel */
    int64_t block;                 /* output columns per block */
    int32_t tasks;                 /* blocks (channels) in parallel, one scratch slot each */
    size_t w_bytes, x_bytes;       /* scratch: weights (packed, and W - w_zp), image as int16 */
    size_t col_bytes, pack_bytes, tile_bytes, slot_bytes; /* per slot: im2col block, packed
                                                              block, rows for the epilogue */
    int16_t *w_const; /* weights prepared once (owned), or NULL */
    /* Winograd F(2x2, 3x3) (quant_winograd.c): when set, wg_w holds the 16
     * transformed weight matrices, packed (owned), and a block is wg_rows
     * rows of 2x2 tiles */
    int winograd;
    int64_t wg_rows;
    int16_t *wg_w;
    /* The dot-product GEMM (core/simd/qgemm_dot.h, the relaxed WebAssembly
     * engine): its mode when the constant weights were packed for it into
     * dot_w (owned), else KN_QDOT_OFF; dot_b_bytes, per slot, the column
     * block packed for it */
    int dot;
    int dot_shifted; /* some weight rows were shifted: column sums needed */
    int dot_bytes;   /* the columns packed from the 8-bit image (quant_pack_fits) */
    unsigned char *dot_w;
    size_t dot_b_bytes;
} quant_conv;

/* Validates X [N, C, spatial], W [M, C/group, kernel] and the window
 * attributes, sets y's rank and dims (dtype is the caller's). Zero points
 * are checked by the caller (X per tensor, W per tensor or per output
 * channel). */
int quant_conv_prepare(kn_kctx *k, quant_conv *c, const kn_tensor *x, const kn_tensor *w,
                       kn_tensor *y);
/* After the zero points are checked: prepares constant weights once. */
int quant_conv_const_weights(kn_kctx *k, quant_conv *c, const kn_tensor *w, const kn_tensor *w_zp);
size_t quant_conv_scratch(const quant_conv *c);
/* Prepares W - w_zp into scratch, once per run before the images, unless
 * quant_conv_const_weights did it already. */
void quant_conv_weights(const quant_conv *c, const void *w, const kn_tensor *w_zp, void *scratch);
/* What a convolution's caller does with finished int32 results: row(ctx,
 * m, col, acc, len) gets output channel m's columns [col, col + len) while
 * they are still in cache (QLinearConv requantizes them there), from any
 * of the pool's threads, each element once. */
typedef struct quant_epilogue {
    void (*row)(void *ctx, int64_t m, int64_t col, const int32_t *acc, int64_t len);
    void *ctx;
} quant_epilogue;

/* conv(X[n] - x_zp, W - w_zp) for image n: into acc[M x out_size], or
 * (acc NULL) through ep. */
void quant_conv_image(const quant_conv *c, int64_t n, const void *x, const kn_tensor *x_zp,
                      int32_t *acc, const quant_epilogue *ep, void *scratch, kn_threadpool *pool);
void quant_conv_release(quant_conv *c);

/* Depthwise (quant_depthwise.c): whether c qualifies, the scratch one
 * channel needs, and channel ch's int32 result (out_size values, into acc
 * or through ep as quant_conv_image) from its 8-bit plane x and its taps
 * w (W - w_zp). */
int quant_dw_fits(const quant_conv *c);
size_t quant_dw_plane_bytes(const quant_conv *c);
void quant_dw_channel(const quant_conv *c, int64_t ch, const void *x, int32_t zx, const int16_t *w,
                      int32_t *acc, const quant_epilogue *ep, int16_t *plane);

/* Packing from the image (quant_conv_pack.c): whether c's window is one
 * it handles (2-D or 1-D), and columns [c0, c1) of one group's im2col
 * matrix packed as kn_qgemm_pack_b would pack them, from xg (the group's
 * channels less the zero point, int16). */
int quant_pack_fits(const quant_conv *c);
void quant_pack_cols(const quant_conv *c, const int16_t *xg, int64_t c0, int64_t c1, int16_t *dst);
/* The same columns as the dot GEMM's packed B (core/simd/qgemm_dot.h, in
 * c->dot's mode) straight from the 8-bit image x8g (the group's channels):
 * each byte x ^ flip (128 for int8), z (the zero point so flipped) outside
 * the image; rows: scratch of 32 kn_qgemm_quads(kdim) bytes. */
void quant_pack_cols_dot(const quant_conv *c, const uint8_t *x8g, uint8_t flip, int32_t z,
                         int64_t c0, int64_t c1, uint8_t *rows, void *dst);

/* Winograd (quant_winograd.c), for constant weights: whether c takes it,
 * given W - w_zp as int16 rows (then it sets c's fields and scratch sizes
 * for `threads`); its blocks, and block `item`'s int32 results (into acc or
 * through ep as quant_conv_image) from the image x minus its zero point. */
int quant_wg_prepare(quant_conv *c, const int16_t *g, int32_t threads);
int64_t quant_wg_items(const quant_conv *c);
void quant_wg_item(const quant_conv *c, const int16_t *x, const int16_t *w, int64_t item,
                   int32_t *acc, const quant_epilogue *ep, char *slot);

#endif
