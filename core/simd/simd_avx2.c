/* Float kernels (core/simd/kernels_body.h) for x86-64 with AVX2 + FMA.
 * The target is enabled for this file only, by pragma rather than build
 * flags, so every build of the kernel sources gets it; simd_dispatch.c calls in
 * only when the CPU reports both features. */
#if defined(__x86_64__) && defined(__GNUC__)
/* headers first, outside the target region */
#include <math.h>
#include <string.h>

#include "core/simd/kernels.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

#define KN_SIMD_ISA KN_SIMD_AVX2
#define KS_TABLE kn_simd_table_avx2
#define KS_SFX _avx2
#include "core/simd/kernels_body.h"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#else
typedef int kn_simd_avx2_unused; /* ISO C wants something in a file */
#endif
