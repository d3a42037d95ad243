/* Chooses the float kernel table (core/simd/kernels.h) once per process:
 * the widest instance this CPU runs, or the one KILN_SIMD names. The
 * choice is a pointer published with an atomic store; threads that race
 * on the first call compute the same answer, so no lock is needed. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/simd/kernels.h"

#if defined(KN_SIMD_HAVE_NEON) && defined(__linux__)
#include <sys/auxv.h>
#endif

/* AArch64 features from the kernel's hwcaps (Linux, Android). ASIMD is
 * architectural there, but a kernel may still hide it (and a later
 * dot-product or fp16 instance needs the optional ones), so the bits are
 * read rather than assumed. Values as in the kernel's uapi asm/hwcap.h,
 * spelled out because a libc's headers may predate them. */
#ifdef KN_SIMD_HAVE_NEON
enum {
    KN_HWCAP_ASIMD = 1ul << 1,
    KN_HWCAP_FPHP = 1ul << 9,
    KN_HWCAP_ASIMDHP = 1ul << 10,
    KN_HWCAP_ASIMDDP = 1ul << 20,
    KN_HWCAP2_I8MM = 1ul << 13,
};

unsigned kn_simd_arm_features(void)
{
    unsigned f = 0;
#if defined(__linux__)
    unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
    f |= (hw & KN_HWCAP_ASIMD) ? KN_ARM_ASIMD : 0;
    f |= (hw & KN_HWCAP_ASIMDDP) ? KN_ARM_DOTPROD : 0;
    f |= ((hw & KN_HWCAP_FPHP) && (hw & KN_HWCAP_ASIMDHP)) ? KN_ARM_FP16 : 0;
    f |= (hw2 & KN_HWCAP2_I8MM) ? KN_ARM_I8MM : 0;
#else
    f = KN_ARM_ASIMD; /* architectural; no portable way to ask for the rest */
#endif
    return f;
}
#endif

static _Atomic(const kn_simd_kernels *) chosen;

static int cpu_runs(const kn_simd_kernels *t)
{
#ifdef KN_SIMD_HAVE_X86
    __builtin_cpu_init();
    if (t == &kn_simd_table_avx512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
               __builtin_cpu_supports("fma");
    if (t == &kn_simd_table_avx2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
#ifdef KN_SIMD_HAVE_NEON
    if (t == &kn_simd_table_neon)
        return (kn_simd_arm_features() & KN_ARM_ASIMD) != 0;
#endif
    return t == &kn_simd_table_base;
}

/* widest first */
static const kn_simd_kernels *const all_tables[] = {
#ifdef KN_SIMD_HAVE_X86
    &kn_simd_table_avx512,
    &kn_simd_table_avx2,
#endif
#ifdef KN_SIMD_HAVE_NEON
    &kn_simd_table_neon,
#endif
    &kn_simd_table_base,
};
#define N_TABLES (sizeof all_tables / sizeof all_tables[0])

const kn_simd_kernels *kn_simd_named(const char *name)
{
    if (name && strcmp(name, "base") == 0) /* the portable instance, whatever its ISA calls it */
        return &kn_simd_table_base;
    for (size_t i = 0; name && i < N_TABLES; i++)
        if (strcmp(all_tables[i]->name, name) == 0)
            return cpu_runs(all_tables[i]) ? all_tables[i] : NULL;
    return NULL;
}

static const kn_simd_kernels *choose(void)
{
    /* KILN_SIMD=avx2 (say) caps the choice, for comparisons and for
     * machines where the wide units slow the clock; unknown or
     * unsupported names are ignored. */
    const kn_simd_kernels *named = kn_simd_named(getenv("KILN_SIMD"));
    if (named)
        return named;
    for (size_t i = 0; i < N_TABLES; i++)
        if (cpu_runs(all_tables[i]))
            return all_tables[i];
    return &kn_simd_table_base;
}

const kn_simd_kernels *kn_simd(void)
{
    const kn_simd_kernels *t = atomic_load_explicit(&chosen, memory_order_acquire);
    if (!t) {
        t = choose();
        atomic_store_explicit(&chosen, t, memory_order_release);
    }
    return t;
}

int kn_simd_force(const char *name)
{
    const kn_simd_kernels *t = name ? kn_simd_named(name) : choose();
    if (!t)
        return -1;
    atomic_store_explicit(&chosen, t, memory_order_release);
    return 0;
}
