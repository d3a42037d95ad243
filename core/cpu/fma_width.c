/* kn_cpu_splits_512: times a block of independent FMA chains at 512 and
 * at 256 bits. With enough chains to cover the FMA latency, the time is
 * the issue cost: equal per instruction where 512-bit FMAs are native,
 * about twice as long where the core splits them. */
#include "fma_width.h"

#include <stdatomic.h>
#include <time.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

enum { ITERS = 2048, TRIES = 15 };

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Ten chains: more than FMA latency x FMA ports on current cores, so the
 * loop runs at issue rate, not at latency. The result is returned so the
 * compiler keeps the work. */
#define CHAINS(V, FMA, SET1, ADD)                                                                  \
    V a0 = SET1(seed), a1 = SET1(seed + 0.1f), a2 = SET1(seed + 0.2f);                             \
    V a3 = SET1(seed + 0.3f), a4 = SET1(seed + 0.4f), a5 = SET1(seed + 0.5f);                      \
    V a6 = SET1(seed + 0.6f), a7 = SET1(seed + 0.7f), a8 = SET1(seed + 0.8f);                      \
    V a9 = SET1(seed + 0.9f);                                                                      \
    const V m = SET1(0.9999f), c = SET1(1e-4f);                                                    \
    for (int i = 0; i < ITERS; i++) {                                                              \
        a0 = FMA(a0, m, c); a1 = FMA(a1, m, c); a2 = FMA(a2, m, c); a3 = FMA(a3, m, c);            \
        a4 = FMA(a4, m, c); a5 = FMA(a5, m, c); a6 = FMA(a6, m, c); a7 = FMA(a7, m, c);            \
        a8 = FMA(a8, m, c); a9 = FMA(a9, m, c);                                                    \
    }                                                                                              \
    V s = ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(ADD(a6, a7), ADD(a8, a9))));

__attribute__((target("avx512f"), noinline)) static float chains_512(float seed)
{
    CHAINS(__m512, _mm512_fmadd_ps, _mm512_set1_ps, _mm512_add_ps)
    return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"), noinline)) static float chains_256(float seed)
{
    CHAINS(__m256, _mm256_fmadd_ps, _mm256_set1_ps, _mm256_add_ps)
    float lanes[8];
    _mm256_storeu_ps(lanes, s);
    return lanes[0] + lanes[7];
}

/* Each try times both widths back to back, so both see the same clock;
 * the answer is the median of the per-try ratios. Best-of-N per width
 * misjudged about one process start in a hundred here: the clock was
 * still changing, and the best 512-bit and best 256-bit times came from
 * tries at different clocks. */
static int measure(void)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx2") ||
        !__builtin_cpu_supports("fma"))
        return 0;
    /* The seed comes through a volatile, so no call can be folded or
     * shared with another: every call does its work. */
    volatile float seed = 1.0f, sink = chains_256(seed) + chains_512(seed); /* warm both */
    double ratio[TRIES];
    for (int t = 0; t < TRIES; t++) {
        double t0 = now_ns();
        sink += chains_512(seed);
        double t1 = now_ns();
        sink += chains_256(seed);
        double t2 = now_ns();
        double r = (t1 - t0) / (t2 - t1 > 1 ? t2 - t1 : 1);
        int i = t; /* insertion sort: TRIES is small */
        for (; i > 0 && ratio[i - 1] > r; i--)
            ratio[i] = ratio[i - 1];
        ratio[i] = r;
    }
    (void)sink;
    return ratio[TRIES / 2] > 1.5;
}
#else
static int measure(void) { return 0; }
#endif

int kn_cpu_splits_512(void)
{
    static atomic_int known = -1; /* racing first calls measure alike */
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v < 0) {
        v = measure();
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v;
}
