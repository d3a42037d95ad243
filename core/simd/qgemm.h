/* Integer matrix product for the 8-bit kernels that run without oneDNN
 * (the WebAssembly build above all): C = A x B with A and B int16 (8-bit
 * values minus their zero points, so within [-255, 255]) and C int32,
 * exact. Both operands are first packed as pairs of consecutive depth
 * elements, the shape of one pairwise multiply-add instruction
 * (vec_i16.h: WebAssembly i32x4.dot_i16x8_s, x86 pmaddwd): 8 products
 * per instruction where float SIMD128 has 4 per multiply and 4 per add.
 *
 *   packed A: panels of KN_QGEMM_MR rows; in a panel, for each depth pair
 *             p, row r's (a[r][2p], a[r][2p+1]) for r = 0 .. MR-1
 *   packed B: panels of KN_QGEMM_NR columns; for each depth pair p,
 *             column j's (b[2p][j], b[2p+1][j]) for j = 0 .. NR-1
 *
 * Rows, columns and an odd depth are padded with zeros. Weights are packed
 * once per model (A), the image's columns once per product (B). */
#ifndef KN_SIMD_QGEMM_H
#define KN_SIMD_QGEMM_H

#include <stddef.h>
#include <stdint.h>

#define KN_QGEMM_MR 4
#define KN_QGEMM_NR 8

/* Depth pairs of a depth k. */
static inline int64_t kn_qgemm_pairs(int64_t k) { return (k + 1) / 2; }
/* int16 elements of packed A (m x k) and B (k x n). */
size_t kn_qgemm_packed_a_len(int64_t m, int64_t k);
size_t kn_qgemm_packed_b_len(int64_t k, int64_t n);
/* a: m x k, row stride lda. */
void kn_qgemm_pack_a(int64_t m, int64_t k, const int16_t *a, int64_t lda, int16_t *dst);
/* b: k x n, row stride ldb. */
void kn_qgemm_pack_b(int64_t k, int64_t n, const int16_t *b, int64_t ldb, int16_t *dst);
/* c[m x n] (row stride ldc) = A x B for packed A (all m rows) and B (all n
 * columns) of depth k. */
void kn_qgemm_packed(int64_t m, int64_t n, int64_t k, const int16_t *pa, const int16_t *pb,
                     int32_t *c, int64_t ldc);
/* The depthwise convolution's inner loop (core/cpu/quant):
 * out[f] = sum over t < taps of w[t] src[t][f], for f in [0, n) with n a
 * multiple of 8 (each src[t] readable that far). Taps go in pairs through
 * the same pairwise multiply-add: two sources zipped, one instruction per
 * four outputs and two taps; the sums stay in registers across the taps. */
void kn_qdw_taps(int32_t *out, const int16_t *const *src, const int16_t *w, int32_t taps,
                 int64_t n);
/* Whether this GEMM outruns the float GEMM on the same exact integers
 * (quant_common.h's matmul chooses by it): in WebAssembly, where one
 * i32x4.dot_i16x8_s makes 8 products and a float multiply-add 4; not in
 * native builds, whose float kernels have FMA on 8 or 16 lanes. */
int kn_qgemm_beats_float(void);
/* Which integer vector code was compiled in ("wasm128", "sse2", "portable"). */
const char *kn_qgemm_isa(void);

#endif
