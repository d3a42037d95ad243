/* Float kernels (core/simd/kernels_body.h) for the compiler's default
 * target: SSE2 on any x86-64, NEON on arm64, SIMD128 under
 * emcc -msimd128. The wider x86 instances are simd_avx2.c, simd_avx512.c. */
#define KS_TABLE kn_simd_table_base
#define KS_SFX _base
#include "core/simd/kernels_body.h"
