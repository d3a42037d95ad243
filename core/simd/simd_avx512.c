/* Float kernels (core/simd/kernels_body.h) for x86-64 with AVX-512F (with AVX2 + FMA).
 * The target is enabled for this file only, by pragma rather than build
 * flags, so every build of the kernel sources gets it; simd_dispatch.c calls in
 * only when the CPU reports all three. */
#if defined(__x86_64__) && defined(__GNUC__)
/* headers first, outside the target region */
#include <math.h>
#include <string.h>

#include "core/simd/kernels.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
#endif

#define KN_SIMD_ISA KN_SIMD_AVX512
#define KS_TABLE kn_simd_table_avx512
#define KS_SFX _avx512
#include "core/simd/kernels_body.h"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#else
typedef int kn_simd_avx512_unused; /* ISO C wants something in a file */
#endif
