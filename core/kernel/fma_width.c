/* kn_cpu_splits_512 from the CPU's identity rather than from a timing.
 * Timing the two widths against each other (what this file did before)
 * gave different answers in different processes on one Sapphire Rapids
 * VM: a quarter of the starts measured 512-bit FMAs 2.4x slower, on every
 * try of the process, presumably while the hyperthread sibling was busy.
 * The answer picks oneDNN implementations, so two processes then computed
 * different bits for the same model and input. The identity is stable:
 *  - AMD family 19h (Zen 4) executes each 512-bit FMA as two 256-bit
 *    halves: splits;
 *  - Intel's AVX-512 cores and AMD's family 1Ah (Zen 5, full-width
 *    datapath on desktop and server parts): native. Intel parts with a
 *    single 512-bit FMA unit (some Xeon Silver/Bronze, client cores) are
 *    taken as native too: there the cost is speed, never a wrong result. */
#include "core/kernel/fma_width.h"

#include <stdatomic.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

static int identify(void)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f"))
        return 0;
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
        return 0;
    /* "AuthenticAMD" in ebx, edx, ecx */
    int amd = ebx == 0x68747541u && edx == 0x69746e65u && ecx == 0x444d4163u;
    if (!amd || !__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return 0;
    unsigned int family = (eax >> 8) & 0xf;
    if (family == 0xf)
        family += (eax >> 20) & 0xff;
    return family == 0x19;
}
#else
static int identify(void) { return 0; }
#endif

int kn_cpu_splits_512(void)
{
    static atomic_int known = -1; /* racing first calls answer alike */
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v < 0) {
        v = identify();
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v;
}
