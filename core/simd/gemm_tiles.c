/* The GEMM micro-tile candidates and the process-wide choice among them
 * (gemm_tiles.h). The alternatives are instances of gemm_tile.h for the
 * compiler's default target: SIMD128 under emcc -msimd128, SSE2/NEON
 * natively (where they serve the tests and KILN_GEMM_TILE experiments). */
#include "core/simd/gemm_tiles.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/simd/kernels.h"
#include "core/simd/vec.h"

/* Register budgets under SIMD128 without fused multiply-add (accumulators
 * + B vectors + broadcast + product, of the 15 xmm V8 leaves free):
 * 4 x 8: 8 + 2 + 2, 6 x 8: 12 + 2 + 2 (spills in V8 on Zen 4),
 * 2 x 16: 8 + 4 + 2 (fewer broadcasts per multiply). */
#define GTILE_ROWS 4
#define GTILE_VECS 2
#define GTILE_SFX _tile_4x2
#include "core/simd/gemm_tile.h"
#undef GTILE_ROWS
#undef GTILE_VECS
#undef GTILE_SFX

#define GTILE_ROWS 6
#define GTILE_VECS 2
#define GTILE_SFX _tile_6x2
#include "core/simd/gemm_tile.h"
#undef GTILE_ROWS
#undef GTILE_VECS
#undef GTILE_SFX

#define GTILE_ROWS 2
#define GTILE_VECS 4
#define GTILE_SFX _tile_2x4
#include "core/simd/gemm_tile.h"
#undef GTILE_ROWS
#undef GTILE_VECS
#undef GTILE_SFX

/* [0]: the table's own tile, through kn_simd() so KILN_SIMD and forced
 * tables keep working. Its workspace covers every x86 table this CPU runs
 * (a table forced later, in tests, still fits what prepare() reserved);
 * packing is the base instance's, whose layout every x86 table and NEON share. */
static void table_sgemm(kn_threadpool *pool, const kn_sgemm_args *g, void *ws, size_t ws_bytes)
{
    kn_simd()->sgemm(pool, g, ws, ws_bytes);
}

static size_t table_workspace_size(int64_t m, int64_t n, int64_t k, int32_t threads)
{
    static const char *const isas[] = {"avx512", "avx2", "neon", NULL};
    size_t need = kn_sgemm_workspace_size_base(m, n, k, threads);
    for (int i = 0; isas[i]; i++) {
        const kn_simd_kernels *t = kn_simd_named(isas[i]);
        size_t s = t ? t->sgemm_workspace_size(m, n, k, threads) : 0;
        need = s > need ? s : need;
    }
    return need;
}

/* Names ("5x8") are written at first use: the table's tile depends on
 * the ISA chosen, and the alternatives' width on the compiler's target. */
static char tile_names[4][16];

static kn_sgemm_tile tiles[] = {
    {tile_names[0], table_sgemm, table_workspace_size, kn_sgemm_packed_a_size_base,
     kn_sgemm_pack_a_base},
#define KN_TILE(i, sfx)                                                                            \
    {tile_names[i], kn_sgemm##sfx, kn_sgemm_workspace_size##sfx, kn_sgemm_packed_a_size##sfx,     \
     kn_sgemm_pack_a##sfx}
    KN_TILE(1, _tile_4x2),
    KN_TILE(2, _tile_6x2),
    KN_TILE(3, _tile_2x4),
#undef KN_TILE
};
#define N_TILES ((int32_t)(sizeof tiles / sizeof tiles[0]))
_Static_assert(N_TILES == 4, "the simulated slowdown below has one wrapper per tile");

/* ---- a simulated slower tile ----
 *
 * To show that the timed choice follows the machine, a test or benchmark
 * can make one tile slower, as it might be on another CPU: its products
 * then take `factor` times as long (the product runs, then the thread
 * spins for the rest), in the timing and in model runs alike, with the
 * same results. A simulation only: nothing sets it unless asked. */
static kn_sgemm_tile_fn original_sgemm[4];
static double slowdown[4];

static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void run_slowed(int i, kn_threadpool *pool, const kn_sgemm_args *g, void *ws, size_t ws_bytes)
{
    double t0 = wall_ms();
    original_sgemm[i](pool, g, ws, ws_bytes);
    double until = t0 + (wall_ms() - t0) * slowdown[i];
    while (wall_ms() < until)
        ;
}

#define KN_SLOWED(i)                                                                               \
    static void slowed_##i(kn_threadpool *pool, const kn_sgemm_args *g, void *ws, size_t wsb)      \
    {                                                                                              \
        run_slowed(i, pool, g, ws, wsb);                                                           \
    }
KN_SLOWED(0)
KN_SLOWED(1)
KN_SLOWED(2)
KN_SLOWED(3)
#undef KN_SLOWED
static const kn_sgemm_tile_fn slowed[4] = {slowed_0, slowed_1, slowed_2, slowed_3};

int kn_sgemm_tile_simulate_slowdown(const char *name, double factor)
{
    const kn_sgemm_tile *t = kn_sgemm_tile_named(name);
    if (!t || !(factor >= 1.0))
        return -1;
    int i = (int)kn_sgemm_tile_index(t);
    if (!original_sgemm[i])
        original_sgemm[i] = tiles[i].sgemm;
    slowdown[i] = factor;
    tiles[i].sgemm = factor > 1.0 ? slowed[i] : original_sgemm[i];
    return 0;
}

static pthread_once_t name_once = PTHREAD_ONCE_INIT;

static void name_tiles(void)
{
    static const int shapes[][2] = {{4, 2}, {6, 2}, {2, 4}}; /* rows, vectors: as included above */
    const kn_simd_kernels *t = kn_simd();
    snprintf(tile_names[0], sizeof tile_names[0], "%dx%d", (int)t->gemm_rows, (int)t->gemm_cols);
    for (int i = 1; i < N_TILES; i++)
        snprintf(tile_names[i], sizeof tile_names[i], "%dx%d", shapes[i - 1][0],
                 shapes[i - 1][1] * KV_W);
}

int32_t kn_sgemm_tile_count(void) { return N_TILES; }

const kn_sgemm_tile *kn_sgemm_tile_at(int32_t index)
{
    pthread_once(&name_once, name_tiles);
    return index >= 0 && index < N_TILES ? &tiles[index] : NULL;
}

const kn_sgemm_tile *kn_sgemm_tile_named(const char *name)
{
    pthread_once(&name_once, name_tiles);
    for (int32_t i = 0; name && i < N_TILES; i++)
        if (strcmp(tiles[i].name, name) == 0)
            return &tiles[i];
    return NULL;
}

int32_t kn_sgemm_tile_index(const kn_sgemm_tile *tile)
{
    return tile >= tiles && tile < tiles + N_TILES ? (int32_t)(tile - tiles) : 0;
}

/* ---- the choice ---- */

static _Atomic(const kn_sgemm_tile *) active;
static kn_sgemm_tune_report last_report; /* under choice_lock */
static pthread_mutex_t choice_lock = PTHREAD_MUTEX_INITIALIZER;

/* Under choice_lock: two threads making their first product at once must
 * not time separately and come to different answers. */
static const kn_sgemm_tile *choose_locked(const char *name)
{
    int tune = name && strcmp(name, "auto") == 0;
    const kn_sgemm_tile *t = tune ? NULL : kn_sgemm_tile_named(name);
    last_report = (kn_sgemm_tune_report){0};
    if (tune)
        t = kn_sgemm_tune(&last_report);
    return t ? t : kn_sgemm_tile_at(0);
}

const kn_sgemm_tile *kn_sgemm_tile_active(void)
{
    const kn_sgemm_tile *t = atomic_load_explicit(&active, memory_order_acquire);
    if (t)
        return t;
    pthread_mutex_lock(&choice_lock);
    t = atomic_load_explicit(&active, memory_order_relaxed);
    if (!t) {
        t = choose_locked(getenv("KILN_GEMM_TILE"));
        atomic_store_explicit(&active, t, memory_order_release);
    }
    pthread_mutex_unlock(&choice_lock);
    return t;
}

int kn_sgemm_tile_force(const char *name)
{
    if (!name || (strcmp(name, "auto") != 0 && !kn_sgemm_tile_named(name)))
        return -1;
    pthread_mutex_lock(&choice_lock);
    atomic_store_explicit(&active, choose_locked(name), memory_order_release);
    pthread_mutex_unlock(&choice_lock);
    return 0;
}

double kn_sgemm_tune_ms(void)
{
    kn_sgemm_tune_report r;
    kn_sgemm_tune_last_report(&r);
    return r.elapsed_ms;
}

void kn_sgemm_tune_last_report(kn_sgemm_tune_report *out)
{
    kn_sgemm_tile_active();
    pthread_mutex_lock(&choice_lock);
    *out = last_report;
    pthread_mutex_unlock(&choice_lock);
}

int kn_sgemm_tile_tune_shapes(const int64_t (*mnk)[3], int32_t count)
{
    pthread_mutex_lock(&choice_lock);
    const kn_sgemm_tile *t = kn_sgemm_tune_shapes(mnk, count, &last_report);
    atomic_store_explicit(&active, t ? t : kn_sgemm_tile_at(0), memory_order_release);
    pthread_mutex_unlock(&choice_lock);
    return t ? 0 : -1;
}

/* ---- the census of planned products ---- */

/* Distinct shapes kept: a model has a few dozen; past this, further new
 * shapes are dropped (the ones seen first stay). */
enum { CENSUS_MAX = 256 };

static struct census_entry {
    int64_t m, n, k;
    double macs;
} census[CENSUS_MAX];
static int32_t census_used;
static atomic_int census_open;

void kn_sgemm_census_begin(void)
{
    census_used = 0;
    atomic_store(&census_open, 1);
}

void kn_sgemm_census_note(int64_t m, int64_t n, int64_t k)
{
    if (!atomic_load_explicit(&census_open, memory_order_relaxed) || m <= 0 || n <= 0 || k <= 0)
        return;
    double macs = (double)m * (double)n * (double)k;
    for (int32_t i = 0; i < census_used; i++)
        if (census[i].m == m && census[i].n == n && census[i].k == k) {
            census[i].macs += macs;
            return;
        }
    if (census_used < CENSUS_MAX)
        census[census_used++] = (struct census_entry){m, n, k, macs};
}

int32_t kn_sgemm_census_end(int64_t (*top)[3], int32_t max)
{
    atomic_store(&census_open, 0);
    int32_t out = 0;
    for (; out < max && out < census_used; out++) {
        int32_t best = out; /* selection: a partial sort of the largest */
        for (int32_t i = out + 1; i < census_used; i++)
            best = census[i].macs > census[best].macs ? i : best;
        struct census_entry e = census[best];
        census[best] = census[out];
        census[out] = e;
        top[out][0] = e.m;
        top[out][1] = e.n;
        top[out][2] = e.k;
    }
    return out;
}
