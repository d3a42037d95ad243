/* Float CPU kernels written once over vec.h and compiled once per
 * instruction set (core/cpu/simd_<isa>.c); kn_simd() hands out the table for
 * the machine, chosen at first use. Callers keep their own shape logic and
 * call these for contiguous rows, planes and matrix products. */
#ifndef KN_SIMD_KERNELS_H
#define KN_SIMD_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "core/simd/gemm.h"
#include "core/base/thread_pool.h"
#include "core/simd/activation.h"

typedef enum kn_binop { KN_BIN_ADD, KN_BIN_SUB, KN_BIN_MUL, KN_BIN_DIV } kn_binop;

/* Elementwise functions that are not activations (vec_math.h accuracy). */
typedef enum kn_mathfn { KN_MATH_EXP, KN_MATH_ERF } kn_mathfn;

/* One output plane of a 2-D depthwise convolution over an input plane that
 * the caller has already zero-padded:
 *   y[oy][ox] = act(bias + z[oy][ox] + sum_ij w[i][j] x[(oy sh + i) xs + ox sw + j])
 * sw is 1 or 2. x must stay readable 2 * 16 + kw floats past the last
 * element the window reaches (vector loads overrun and are discarded). */
typedef struct kn_dw_plane {
    const float *x;
    int64_t xs;                /* padded row stride */
    float *y;
    int64_t oh, ow;
    const float *w;            /* kh x kw taps */
    int32_t kh, kw, sh, sw;
    float bias;
    const float *z;            /* residual plane (oh x ow) or NULL */
    const kn_activation *act;  /* NULL: none */
} kn_dw_plane;
#define KN_DW_SLACK 40         /* floats of readable slack past a padded plane (>= 2 x lanes) */

/* c = saturate(round_even(ka a + kb b + k0)) into [lo, hi] for 8-bit a, b,
 * c (kiln.QAdd's requantizing sum; lo, hi integers within the type). */
typedef struct kn_qadd_params {
    float ka, kb, k0, lo, hi;
} kn_qadd_params;

/* y = saturate(round_even(x / scale) + zp) for float x, 8-bit y
 * (QuantizeLinear per tensor or along an axis); lo, hi: y's range less zp. */
typedef struct kn_quantize_params {
    float scale, zp, lo, hi;
} kn_quantize_params;

/* c = saturate(round_even((float)((a - za) sa) b / sc) + zc) for 8-bit a
 * and c of one type and float b (kiln.QMulFloat: the graph's Dequantize,
 * Mul and Quantize, in their order); lo, hi: c's range less zc. */
typedef struct kn_qmul_params {
    float za, sa, sc, zc, lo, hi;
} kn_qmul_params;

typedef struct kn_simd_kernels {
    const char *name; /* "avx512", "avx2", "neon", "generic", "wasm128" */
    int32_t lanes;

    /* kn_sgemm for this ISA (gemm.h semantics; the packed-A layout is the
     * same for every ISA, so weights packed once serve all). */
    void (*sgemm)(kn_threadpool *pool, const kn_sgemm_args *g, void *ws, size_t ws_bytes);
    size_t (*sgemm_workspace_size)(int64_t m, int64_t n, int64_t k, int32_t threads);
    int32_t gemm_rows, gemm_cols; /* its micro-tile (gemm_tiles.h) */

    /* y = act(x) over n elements (y == x allowed) */
    void (*act)(float *y, const float *x, int64_t n, const kn_activation *a);
    /* y = act(y + bias + z) over n elements; z may be NULL: the epilogue
     * of Conv / Gemm rows and of fused ops */
    void (*bias_act)(float *y, int64_t n, float bias, const float *z, const kn_activation *a);
    /* y = fn(x) over n elements (y == x allowed) */
    void (*math)(kn_mathfn fn, float *y, const float *x, int64_t n);
    /* y[i] = a[i * sa] op b[i * sb] with sa, sb in {0, 1} (0: broadcast) */
    void (*binary)(kn_binop op, float *y, const float *a, int64_t sa, const float *b, int64_t sb,
                   int64_t n);
    /* rows of n contiguous elements: y[r n + i] = a[r ra n + i] op b[r rb n + i], ra and rb in
     * {0, 1} (0: the same row for every r) */
    void (*binary_rows)(kn_binop op, float *y, const float *a, int64_t ra, const float *b,
                        int64_t rb, int64_t rows, int64_t n);
    /* softmax (or log-softmax) of one contiguous row; y == x allowed */
    void (*softmax_row)(float *y, const float *x, int64_t n, int log);
    /* y = (x - mean) / sqrt(var + eps) * scale + bias (bias may be NULL),
     * population variance; returns mean and 1/sqrt(var + eps) */
    void (*layernorm_row)(float *y, const float *x, int64_t n, const float *scale,
                          const float *bias, float eps, float *mean, float *inv_std);
    float (*sum)(const float *x, int64_t n);
    /* acc[i] += x[r ld + i] summed over r in [0, rows), i in [0, n):
     * column sums of a row-major block (NHWC pixels' channels, for a
     * global pool) */
    void (*sum_rows)(float *acc, const float *x, int64_t rows, int64_t n, int64_t ld);
    float (*max)(const float *x, int64_t n);
    void (*dw_plane)(const kn_dw_plane *p);
    /* kn_qadd_params' sum over n elements; a and b advance by sa and sb
     * (1, or 0 for a scalar operand). */
    void (*qadd_u8)(uint8_t *c, const uint8_t *a, int64_t sa, const uint8_t *b, int64_t sb,
                    int64_t n, const kn_qadd_params *p);
    void (*qadd_s8)(int8_t *c, const int8_t *a, int64_t sa, const int8_t *b, int64_t sb,
                    int64_t n, const kn_qadd_params *p);
    /* min(0, x) and max(0, x) over n floats, NaN skipped
     * (DynamicQuantizeLinear's range) */
    void (*range_with_zero)(const float *x, int64_t n, float *lo, float *hi);
    /* kn_quantize_params' quantization of n contiguous floats */
    void (*quantize_u8)(uint8_t *y, const float *x, int64_t n, const kn_quantize_params *p);
    void (*quantize_s8)(int8_t *y, const float *x, int64_t n, const kn_quantize_params *p);
    /* y = (x - zp) * scale over n contiguous 8-bit values (DequantizeLinear) */
    void (*dequantize_u8)(float *y, const uint8_t *x, int64_t n, float scale, float zp);
    void (*dequantize_s8)(float *y, const int8_t *x, int64_t n, float scale, float zp);
    /* kn_qmul_params' product over n elements, the same strides */
    void (*qmul_u8)(uint8_t *c, const uint8_t *a, int64_t sa, const float *b, int64_t sb, int64_t n,
                    const kn_qmul_params *p);
    void (*qmul_s8)(int8_t *c, const int8_t *a, int64_t sa, const float *b, int64_t sb, int64_t n,
                    const kn_qmul_params *p);
} kn_simd_kernels;

/* The table for this CPU: the widest ISA it supports, unless the
 * environment variable KILN_SIMD names another (avx512, avx2, neon, generic;
 * "base" names the portable instance whatever its name) it supports. Chosen once; safe to call from any thread. */
const kn_simd_kernels *kn_simd(void);

/* The table of a named ISA if it is compiled in and this CPU runs it,
 * else NULL. */
const kn_simd_kernels *kn_simd_named(const char *name);

/* Tests: make kn_simd() return the named table (NULL: back to automatic).
 * Returns 0, or -1 when that ISA is not available. Not for use while other
 * threads run kernels. */
int kn_simd_force(const char *name);

/* Per-ISA tables (core/cpu/simd_<isa>.c). The base table is built for the
 * compiler's default target: SSE2 on x86-64, SIMD128 under emcc -msimd128. */
extern const kn_simd_kernels kn_simd_table_base;
#if defined(__x86_64__) && defined(__GNUC__)
#define KN_SIMD_HAVE_X86 1
extern const kn_simd_kernels kn_simd_table_avx2;
extern const kn_simd_kernels kn_simd_table_avx512;
#endif
#if defined(__aarch64__) && defined(__GNUC__)
#define KN_SIMD_HAVE_NEON 1
extern const kn_simd_kernels kn_simd_table_neon;
/* The CPU's optional AArch64 features, from hwcaps (simd_dispatch.c). */
#define KN_ARM_ASIMD 1u
#define KN_ARM_DOTPROD 2u /* SDOT/UDOT */
#define KN_ARM_FP16 4u    /* half-precision arithmetic, scalar and vector */
#define KN_ARM_I8MM 8u    /* SMMLA/UMMLA/USDOT */
unsigned kn_simd_arm_features(void);
#endif

/* The base instance's packing entry points, used by gemm.c for every ISA. */
size_t kn_sgemm_workspace_size_base(int64_t m, int64_t n, int64_t k, int32_t threads);
size_t kn_sgemm_packed_a_size_base(int64_t m, int64_t k);
void kn_sgemm_pack_a_base(int trans_a, int64_t m, int64_t k, const float *a, int64_t lda,
                          float *dst);

#endif
