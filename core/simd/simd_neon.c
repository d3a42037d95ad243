/* Float kernels (core/simd/kernels_body.h) for AArch64 Advanced SIMD
 * (vec_neon.h). ASIMD is architectural on AArch64, so no target pragma;
 * simd_dispatch.c still asks the kernel's hwcaps (HWCAP_ASIMD) before
 * choosing it. Compiles to nothing elsewhere. */
#if defined(__aarch64__) && defined(__GNUC__)
#include <math.h>
#include <string.h>

#include "core/simd/kernels.h"

#define KN_SIMD_ISA KN_SIMD_NEON
#define KS_TABLE kn_simd_table_neon
#define KS_SFX _neon
#include "core/simd/kernels_body.h"
#else
typedef int kn_simd_neon_unused; /* ISO C wants something in a file */
#endif
