/* A small float vector abstraction for the CPU kernels: kernels are
 * written once against kv_* and compiled once per instruction set.
 *
 * The backend is chosen by KN_SIMD_ISA when the includer defines it (the
 * per-ISA kernel files do, because their target is set by a pragma and
 * the compiler's __AVX2__-style macros cannot be relied on there), else
 * from the compiler's own target macros:
 *
 *   KN_SIMD_AVX512   16 lanes, x86-64 AVX-512F (+ AVX2, FMA)
 *   KN_SIMD_AVX2     8 lanes, x86-64 AVX2 + FMA
 *   KN_SIMD_WASM128  4 lanes, WebAssembly SIMD128 (emcc -msimd128)
 *   KN_SIMD_NEON     4 lanes, AArch64 Advanced SIMD with fused multiply-add
 *                    (only where the includer asks: core/simd/simd_neon.c;
 *                    the default on arm64 stays KN_SIMD_GENERIC, the
 *                    portable instance KILN_SIMD=base compares against)
 *   KN_SIMD_GENERIC  4 lanes as GCC/Clang vector extensions: SSE2 on any
 *                    x86-64, NEON on arm64, scalar code elsewhere
 *
 * Every backend gives the same results for the same lane values except
 * where noted (kv_fma fuses on AVX2/AVX-512/NEON only). Loads and stores are
 * unaligned: tensor rows carry no alignment promise. */
#ifndef KN_SIMD_VEC_H
#define KN_SIMD_VEC_H

#include <stdint.h>
#include <string.h>

#define KN_SIMD_GENERIC 0
#define KN_SIMD_WASM128 1
#define KN_SIMD_AVX2 2
#define KN_SIMD_AVX512 3
#define KN_SIMD_NEON 4

#ifndef KN_SIMD_ISA
#if defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)
#define KN_SIMD_ISA KN_SIMD_AVX512
#elif defined(__AVX2__) && defined(__FMA__)
#define KN_SIMD_ISA KN_SIMD_AVX2
#elif defined(__wasm_simd128__)
#define KN_SIMD_ISA KN_SIMD_WASM128
#else
#define KN_SIMD_ISA KN_SIMD_GENERIC
#endif
#endif

/* Each backend defines: kv (float vector), kvm (lane mask), KV_W (lanes),
 * KV_NAME (string), and the operations below.
 *   kv_zero kv_set1 kv_loadu kv_storeu
 *   kv_load_part(p, n, fill)  lanes [0, n) from p, the rest `fill` (n < KV_W)
 *   kv_store_part(p, v, n)    lanes [0, n) to p
 *   kv_load_even(p)           p[0], p[2], .. p[2*KV_W-2] (reads 2*KV_W-1)
 *   kv_add kv_sub kv_mul kv_div kv_fma(a, b, c) = a*b + c
 *   kv_max(a, b) = a > b ? a : b, kv_min(a, b) = a < b ? a : b (so a NaN in
 *                b passes through: kv_max(zero, x) is a NaN-keeping Relu)
 *   kv_abs kv_round (nearest, ties to even; |x| < 2^22)
 *   kv_pow2i(n)               2^n for integral n in [-126, 127]
 *   kv_scale2(p, n)           p * 2^n for integral n in [-127, 128] (AVX-512:
 *                             any n, one vscalefps)
 *   kv_recip(d)               1 / d for finite nonzero d, within 1 ulp (AVX-512:
 *                             vrcp14ps and one Newton step instead of a divide)
 *   kv_lt kv_gt kv_ne -> kvm, kv_select(m, t, f) = m ? t : f
 *   kv_hsum kv_hmax           across lanes */
#if KN_SIMD_ISA == KN_SIMD_AVX512
#include "core/simd/vec_avx512.h"
#elif KN_SIMD_ISA == KN_SIMD_AVX2
#include "core/simd/vec_avx2.h"
#elif KN_SIMD_ISA == KN_SIMD_WASM128
#include "core/simd/vec_wasm.h"
#elif KN_SIMD_ISA == KN_SIMD_NEON
#include "core/simd/vec_neon.h"
#else
#include "core/simd/vec_generic.h"
#endif

#endif
