/* The 8-bit matrix product of qgemm.h on an i8 dot-product instruction
 * (vec_i8dot.h: Relaxed SIMD's i32x4.relaxed_dot_i8x16_i7x16_add_s, in
 * the relaxed WebAssembly engine only): 16 products per instruction where
 * the pairwise int16 multiply-add has 8 and needs an add besides.
 *
 * The instruction multiplies signed bytes by bytes it reads exactly only
 * within [0, 127]. So the operands are shifted into bytes and the shifts
 * undone afterwards, exactly (int32 arithmetic wraps, and the true sums fit):
 *
 *   A (weights, W - w_zp, within [-255, 255]): each row r shifted by its
 *     own t[r] into signed bytes (t = 0 for symmetric int8 weights);
 *     a row whose values span more than 255 cannot be, and the caller keeps
 *     the int16 product (kn_qgemm_dot_pack_a says so).
 *   B (the image's columns, X - x_zp): plus z (x_zp for uint8 X, x_zp +
 *     128 for int8), unsigned bytes.
 *
 *   sum (a - t)(b' - z) = dot(a, b') - z sum(a) - t sum(b' - z)
 *
 * with sum(a) kept per row of packed A and sum(b' - z) per column of packed
 * B. Where the engine reads bytes above 127 exactly (x64 with AVX-VNNI: one
 * vpdpbusd), one dot per depth quad (KN_QDOT_UNSIGNED); elsewhere each
 * byte goes as two 7-bit halves, b' = lo + 128 hi, two dots
 * (KN_QDOT_HALVES), except where the engine saturates int16 pairs (x64
 * without AVX-VNNI), whose two dots cost more than the int16 GEMM. A probe
 * at start picks, through the same instruction.
 *
 *   packed A: panels of KN_QGEMM_MR rows: int32 sum(a)[MR], int32 t[MR],
 *             then for each depth quad q, row r's bytes a[r][4q .. 4q+3]
 *   packed B: panels of KN_QGEMM_NR columns: int32 sum(b' - z)[NR], then
 *             for each quad q, column j's bytes b'[4q .. 4q+3][j] (in
 *             halves: every quad's low 7 bits, then every quad's high bit)
 *
 * Depth is padded to a multiple of 4 with zero weights. */
#ifndef KN_SIMD_QGEMM_DOT_H
#define KN_SIMD_QGEMM_DOT_H

#include <stddef.h>
#include <stdint.h>

enum { KN_QDOT_OFF = 0, KN_QDOT_UNSIGNED = 1, KN_QDOT_HALVES = 2 };

/* Which way the dot product is used here: KN_QDOT_OFF where there is no
 * such instruction (native builds, the SIMD128 engine), where the probe
 * found it inexact even within [0, 127], or where it saturates int16 pairs
 * (two such dots cost more than the int16 GEMM). Probed once. */
int kn_qgemm_dot_mode(void);
/* Sets the mode (tests: KN_QDOT_HALVES anywhere the instruction is exact
 * within [0, 127]); returns the one before. */
int kn_qgemm_dot_set_mode(int mode);
/* What the probe found the instruction can do exactly (KN_QDOT_UNSIGNED:
 * all bytes, KN_QDOT_HALVES: bytes within [0, 127], else KN_QDOT_OFF), and
 * in lanes[0..3] the lanes of a = 127, b = 255 (129540 exact, 65534
 * saturated pairs, -508 signed). */
int kn_qgemm_dot_probe(int32_t lanes[4]);

/* Depth quads of a depth k. */
static inline int64_t kn_qgemm_quads(int64_t k) { return (k + 3) / 4; }
/* Bytes of packed A (m x k) and of packed B (k x n, room for halves). */
size_t kn_qgemm_dot_packed_a_bytes(int64_t m, int64_t k);
size_t kn_qgemm_dot_packed_b_bytes(int64_t k, int64_t n);
/* a: m x k int16 (8-bit values less a zero point), row stride lda.
 * Returns 0 (dst partly written) when a row spans more than 255, else
 * KN_QDOT_ROWS_AS_THEY_ARE when no row needed a shift (t = 0: symmetric
 * int8 weights), else KN_QDOT_ROWS_SHIFTED. */
enum { KN_QDOT_ROWS_AS_THEY_ARE = 1, KN_QDOT_ROWS_SHIFTED = 2 };
int kn_qgemm_dot_pack_a(int64_t m, int64_t k, const int16_t *a, int64_t lda, void *dst);
/* B from the int16 packing of qgemm.h (kn_qgemm_pack_b's output for k x n),
 * each value plus z within [0, 255], for `mode`. The column sums only
 * with `sums` (what every A it meets packed as KN_QDOT_ROWS_SHIFTED needs;
 * zeros otherwise). */
void kn_qgemm_dot_pack_b(int64_t k, int64_t n, const int16_t *packed16, int32_t z, int mode,
                         int sums, void *dst);
/* Bytes of one packed B panel (KN_QGEMM_NR columns) in `mode`. */
size_t kn_qgemm_dot_panel_b_bytes(int64_t k, int mode);
/* One packed B panel from its depth rows as bytes already: rows holds
 * 4 kn_qgemm_quads(k) rows of KN_QGEMM_NR bytes (b' itself, rows past k
 * equal to z), for `mode`; the column sums (of b' - z) only with `sums`. */
void kn_qgemm_dot_pack_b_rows(int64_t k, const uint8_t *rows, int32_t z, int mode, int sums,
                              void *dst);
/* c[m x n] (row stride ldc) = (A - t) x (B' - z), exactly the int16
 * product of the same matrices. */
void kn_qgemm_dot_packed(int64_t m, int64_t n, int64_t k, const void *pa, const void *pb, int32_t z,
                         int mode, int32_t *c, int64_t ldc);
/* Which dot code was compiled in ("wasm-relaxed-dot", "portable"). */
const char *kn_qgemm_dot_isa(void);

#endif
