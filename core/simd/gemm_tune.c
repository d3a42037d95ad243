/* Times the GEMM tile candidates (gemm_tiles.h) on this machine and
 * returns the fastest: TensorRT-style kernel auto-tuning, done where the
 * code runs (a web page cannot know its user's CPU in advance).
 *
 * By default the products are shaped like the convolutions that dominate
 * CNNs: a 3x3 conv over 32 channels on a 14x14 map (deep, 196 columns), a
 * pointwise conv over half a 28x28 map (wide, shallow) and a late 7x7
 * layer (49 columns: the last column panel is mostly empty). A caller that
 * knows its model's own products passes those instead
 * (kn_sgemm_tune_shapes): which tile wins depends on how a product's rows
 * and columns divide into tiles, so the model's dominant shapes decide
 * better than stand-ins. A model's products are cut to about 5 M
 * multiply-adds each (30 MFLOP per candidate for three, about 1 ms once
 * optimised: long against the 0.1 ms to which a browser page without
 * cross-origin isolation coarsens its clock) so that several rounds still
 * fit in the time budget. Weights are
 * packed once per tile, as a model load does, and only the products are
 * timed.
 *
 * Rounds alternate the candidates so drift in clock speed or machine load
 * falls on all of them alike, and each candidate's fastest round decides
 * (kn_sgemm_tune_decide, below). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/simd/gemm_tiles.h"

/* Warm-up before counting: a browser compiles wasm first with a baseline
 * compiler and moves hot functions to optimised code in the background
 * (V8's Liftoff -> TurboFan), candidate by candidate, so early rounds
 * time the compiler's progress, not the kernels: in Node 20 one tile ran
 * 2.5x faster than the rest for several rounds only because it was
 * optimised first. Warm-up rounds go on until no candidate got more than
 * 10 % faster in the last two rounds (or the warm-up budget is spent);
 * then up to COUNTED_ROUNDS are counted. A candidate still unoptimised when the
 * budget runs out looks slow and loses, which costs at most the gap
 * between it and the winner.
 *
 * The whole timing is held to TOTAL_BUDGET_MS, since it is paid on the
 * first model load of a page: warm-up ends early enough that the counted
 * rounds, at the pace of the last warm-up round, still fit, and a counted
 * round starts only if it still ends within the budget (none fits: the
 * warm-up's fastest rounds decide). A round of optimised candidates
 * takes 2-4 ms, but one slower than the one before (another process took
 * the core) overran a 45 ms budget to 50-54 ms in 3 of 20 pages at load
 * 4-8; 40 ms leaves room for that under the page's 50. The first warm-up
 * round always runs whole: where the browser has not yet optimised a
 * candidate (it ran 5-50 ms instead of 0.5-1 in pages at load 4-6) that
 * round alone can pass the budget. */
enum {
    COUNTED_ROUNDS = KN_SGEMM_TUNE_MAX_ROUNDS,
    MIN_WARM_ROUNDS = 2,
    MAX_WARM_ROUNDS = 12,
    MAX_TILES = KN_SGEMM_TUNE_MAX_TILES
};
#define TOTAL_BUDGET_MS 40.0
/* A counted timing spans at least this many steps of the clock: a page
 * that is not cross-origin isolated reads it in 0.1 ms steps, and a small
 * model's products (MobileNet-V2's, cut to size: 0.3 ms a candidate) were
 * timed to one step in three, so the margin below (each spread at least a
 * step) came to 66 % and not even a tile made 1.5x slower lost. Each
 * counted round therefore runs a candidate's products `reps` times in a
 * row, as many as this asks for and MIN_COUNTED_ROUNDS still fit. */
#define MIN_TICKS_PER_TIMING 8.0
#define MIN_COUNTED_ROUNDS 3

typedef struct tune_shape {
    int64_t m, n, k;
} tune_shape;

#define N_SHAPES KN_SGEMM_TUNE_MAX_SHAPES
/* The products one timing runs (count <= N_SHAPES). */
typedef struct tune_set {
    tune_shape s[N_SHAPES];
    size_t count;
} tune_set;

static const tune_set default_set = {{{32, 196, 288}, {64, 392, 64}, {128, 49, 288}}, 3};

/* A model's product cut to at most FIT_MACS multiply-adds, keeping what
 * decides between tiles: the depth up to one packed block (gemm_tile.h's
 * GKC is 256; deeper products repeat the same inner loop), the columns
 * left over in the last panel (n mod 16: every candidate's panel divides
 * 16) and the rows left over in the last tile (m mod 60: every
 * candidate's height divides 60). */
#define FIT_MACS 5.0e6

static tune_shape fit_shape(tune_shape p)
{
    if (p.k > 512)
        p.k = 256 + p.k % 256;
    while ((double)p.m * (double)p.n * (double)p.k > FIT_MACS && p.n >= 64)
        p.n = p.n / 2 / 16 * 16 + p.n % 16;
    while ((double)p.m * (double)p.n * (double)p.k > FIT_MACS && p.m >= 240)
        p.m = p.m / 2 / 60 * 60 + p.m % 60;
    while ((double)p.m * (double)p.n * (double)p.k > FIT_MACS && p.k >= 64)
        p.k /= 2;
    return p;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The clock's step in ms: a browser page that is not cross-origin
 * isolated coarsens performance.now() (which clock_gettime reads under
 * Emscripten) to 0.1 ms, a tenth to a quarter of a candidate's round;
 * natively well under a microsecond. The smaller of two steps seen (a
 * browser adds jitter to where the steps fall); 0.2-0.3 ms in a page. */
static double clock_tick_ms(void)
{
    double t = now_ms(), next = t, tick = 1e30;
    for (int change = 0; change < 3; change++) {
        for (long spin = 0; next == t && spin < 10000000L; spin++)
            next = now_ms();
        if (change > 0) /* the first change only aligns to a step */
            tick = next - t < tick ? next - t : tick;
        t = next;
    }
    return tick; /* 0 when the clock did not move */
}

/* The smallest of n values (n >= 1), and the second smallest (the
 * smallest again when n is 1). */
static void two_fastest(const double *v, int n, double *first, double *second)
{
    double a = v[0], b = 1e300;
    for (int i = 1; i < n; i++) {
        if (v[i] < a) {
            b = a;
            a = v[i];
        } else if (v[i] < b) {
            b = v[i];
        }
    }
    *first = a;
    *second = n > 1 ? b : a;
}

/* Each candidate's fastest round decides: interruptions by another process
 * or a compile thread only ever add time, and on a loaded 2-core VM the
 * fastest runs of identical sessions were 0.94-1.01 apart where their
 * medians were up to 1.36 apart (bench/web/README.md). But the tiles come
 * within a few percent of each other, and which of two near-equal ones is
 * faster in one timing is chance; a move off [0] (the kernel table's own
 * tile, which a page runs when it does not time) has to pay for itself.
 * So a challenger is chosen only if its fastest round beats [0]'s by more
 * than the timing's own spread: for each of the two, how far its second
 * fastest round lies above its fastest (how precisely the fastest is
 * known), but at least one step of the clock, the two added (the
 * uncertainty of a difference). Of the challengers that clear it, the
 * fastest wins. One round (the budget spent in the warm-up) measures no
 * spread but the clock's step: a tile the browser has not optimised yet
 * then loses, as it would have without the margin. */
int32_t kn_sgemm_tune_decide(const double (*times)[KN_SGEMM_TUNE_MAX_ROUNDS], int32_t tiles,
                             int32_t rounds, double tick_ms, kn_sgemm_tune_report *report)
{
    kn_sgemm_tune_report r = {.tiles = tiles, .rounds = rounds, .tick_ms = tick_ms};
    for (int32_t i = 0; i < tiles; i++) {
        double second;
        two_fastest(times[i], rounds, &r.fastest_ms[i], &second);
        second = second > r.fastest_ms[i] + tick_ms ? second : r.fastest_ms[i] + tick_ms;
        r.spread[i] = r.fastest_ms[i] > 0 ? second / r.fastest_ms[i] - 1.0 : 0.0;
        r.fastest = r.fastest_ms[i] < r.fastest_ms[r.fastest] ? i : r.fastest;
    }
    for (int32_t i = 1; i < tiles; i++) {
        double margin = r.spread[0] + r.spread[i];
        if (r.fastest_ms[i] * (1.0 + margin) < r.fastest_ms[0] &&
            r.fastest_ms[i] < r.fastest_ms[r.chosen])
            r.chosen = i;
    }
    if (report)
        *report = r; /* elapsed_ms: the caller's */
    return r.chosen;
}

typedef struct tune_buffers {
    const tune_set *set;
    float *a, *b, *c, *packed[N_SHAPES];
    void *ws;
    size_t ws_bytes;
} tune_buffers;

static void free_buffers(tune_buffers *t)
{
    free(t->a);
    free(t->b);
    free(t->c);
    for (size_t s = 0; s < N_SHAPES; s++)
        free(t->packed[s]);
    free(t->ws);
    memset(t, 0, sizeof *t);
}

/* Inputs with varied, normal values (zeros or denormals would time a
 * different path on some CPUs). */
static void fill(float *x, int64_t n, int64_t salt)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((i * 7 + salt) % 23 - 11) * 0.03125f;
}

/* Operands for the largest shape of `set`, and a workspace every tile fits. */
static int alloc_buffers(tune_buffers *t, const tune_set *set, int32_t n_tiles)
{
    int64_t a_max = 0, b_max = 0, c_max = 0;
    size_t ws = 0;
    t->set = set;
    for (size_t s = 0; s < set->count; s++) {
        const tune_shape *p = &set->s[s];
        a_max = p->m * p->k > a_max ? p->m * p->k : a_max;
        b_max = p->k * p->n > b_max ? p->k * p->n : b_max;
        c_max = p->m * p->n > c_max ? p->m * p->n : c_max;
        for (int32_t i = 0; i < n_tiles; i++) {
            size_t w = kn_sgemm_tile_at(i)->workspace_size(p->m, p->n, p->k, 1);
            ws = w > ws ? w : ws;
        }
    }
    t->a = malloc(sizeof(float) * (size_t)a_max);
    t->b = malloc(sizeof(float) * (size_t)b_max);
    t->c = malloc(sizeof(float) * (size_t)c_max);
    t->ws = aligned_alloc(64, (ws + 63) / 64 * 64);
    t->ws_bytes = ws;
    if (!t->a || !t->b || !t->c || !t->ws)
        return -1;
    fill(t->a, a_max, 1);
    fill(t->b, b_max, 5);
    return 0;
}

/* Packs each shape's A for `tile` (the layout is the tile's own). */
static int pack_for(tune_buffers *t, const kn_sgemm_tile *tile)
{
    for (size_t s = 0; s < t->set->count; s++) {
        const tune_shape *p = &t->set->s[s];
        free(t->packed[s]);
        t->packed[s] = malloc(tile->packed_a_size(p->m, p->k));
        if (!t->packed[s])
            return -1;
        tile->pack_a(0, p->m, p->k, t->a, p->k, t->packed[s]);
    }
    return 0;
}

static void run_products(const tune_buffers *t, const kn_sgemm_tile *tile,
                         float *const packed[N_SHAPES])
{
    for (size_t s = 0; s < t->set->count; s++) {
        const tune_shape *p = &t->set->s[s];
        kn_sgemm_args g = {.m = p->m, .n = p->n, .k = p->k, .alpha = 1, .beta = 0,
                           .a = t->a, .lda = p->k, .b = t->b, .ldb = p->n, .c = t->c,
                           .ldc = p->n, .packed_a = packed[s]};
        tile->sgemm(NULL, &g, t->ws, t->ws_bytes);
    }
}

/* How many times in a row a counted round runs each candidate's products:
 * enough for MIN_TICKS_PER_TIMING clock steps on the fastest candidate
 * (1 with a fine clock), but no more than lets MIN_COUNTED_ROUNDS rounds
 * of all of them fit in what is left of the budget. */
static int32_t repetitions(const double *fastest_ms, int32_t n, double tick_ms, double left_ms)
{
    double fastest = 1e30, round_ms = 0;
    for (int32_t i = 0; i < n; i++) {
        fastest = fastest_ms[i] < fastest ? fastest_ms[i] : fastest;
        round_ms += fastest_ms[i];
    }
    if (!(fastest > 0) || !(tick_ms > 0) || !(round_ms > 0))
        return 1;
    double want = ceil(MIN_TICKS_PER_TIMING * tick_ms / fastest);
    double fit = floor(left_ms / (MIN_COUNTED_ROUNDS * round_ms));
    double reps = want < fit ? want : fit;
    return reps < 1 ? 1 : reps > 64 ? 64 : (int32_t)reps;
}

static const kn_sgemm_tile *tune_set_of(const tune_set *set, kn_sgemm_tune_report *report)
{
    double start = now_ms();
    if (report)
        *report = (kn_sgemm_tune_report){0};
    double tick = clock_tick_ms();
    int32_t n = kn_sgemm_tile_count();
    n = n > MAX_TILES ? MAX_TILES : n;
    /* every tile's packed weights at once, so rounds can alternate */
    float *packed[MAX_TILES][N_SHAPES] = {{0}};
    tune_buffers buf = {0};
    const kn_sgemm_tile *best = NULL;
    int ok = alloc_buffers(&buf, set, n) == 0;
    for (int32_t i = 0; i < n && ok; i++) {
        const kn_sgemm_tile *tile = kn_sgemm_tile_at(i);
        ok = pack_for(&buf, tile) == 0;
        if (ok) {
            memcpy(packed[i], buf.packed, sizeof buf.packed);
            memset(buf.packed, 0, sizeof buf.packed);
        }
    }
    double fastest_seen[MAX_TILES];
    int last_gain[MAX_TILES] = {0};
    for (int32_t i = 0; i < n; i++)
        fastest_seen[i] = 1e30;
    double last_round_ms = 0;
    for (int round = 0; ok && round < MAX_WARM_ROUNDS; round++) {
        int settled = round >= MIN_WARM_ROUNDS;
        double round_start = now_ms();
        for (int32_t j = 0; j < n; j++) {
            int32_t i = (j + round) % n; /* rotate who goes first */
            double t0 = now_ms();
            run_products(&buf, kn_sgemm_tile_at(i), packed[i]);
            double t = now_ms() - t0;
            if (t < 0.9 * fastest_seen[i])
                last_gain[i] = round;
            fastest_seen[i] = t < fastest_seen[i] ? t : fastest_seen[i];
            settled = settled && round - last_gain[i] >= 2;
        }
        last_round_ms = now_ms() - round_start;
        if (settled || now_ms() - start + (COUNTED_ROUNDS + 1) * last_round_ms > TOTAL_BUDGET_MS)
            break;
    }
    int32_t reps = ok ? repetitions(fastest_seen, n, tick, TOTAL_BUDGET_MS - (now_ms() - start)) : 1;
    last_round_ms *= reps;
    /* Whole rounds only, so every candidate is timed as often; past the
     * budget (a busy machine) fewer rounds decide. */
    double times[MAX_TILES][COUNTED_ROUNDS];
    int counted = 0;
    for (int round = 0; ok && round < COUNTED_ROUNDS; round++) {
        double round_start = now_ms();
        if (now_ms() - start + last_round_ms > TOTAL_BUDGET_MS)
            break;
        for (int32_t j = 0; j < n; j++) {
            int32_t i = (j + round) % n;
            const kn_sgemm_tile *tile = kn_sgemm_tile_at(i);
            double t0 = now_ms();
            for (int32_t r = 0; r < reps; r++)
                run_products(&buf, tile, packed[i]);
            times[i][round] = (now_ms() - t0) / reps;
        }
        counted++;
        last_round_ms = now_ms() - round_start;
    }
    if (ok && counted == 0) { /* no counted round fitted */
        for (int32_t i = 0; i < n; i++)
            times[i][0] = fastest_seen[i];
        counted = 1;
        reps = 1;
    }
    /* a timing of reps runs is read to one clock step: tick / reps a run */
    if (ok)
        best = kn_sgemm_tile_at(kn_sgemm_tune_decide((const double(*)[COUNTED_ROUNDS])times, n,
                                                     counted, tick / reps, report));
    for (int32_t i = 0; i < n; i++)
        for (size_t s = 0; s < N_SHAPES; s++)
            free(packed[i][s]);
    free_buffers(&buf);
    if (report) {
        report->elapsed_ms = now_ms() - start;
        report->tick_ms = tick;
        report->reps = ok ? reps : 0;
    }
    return best; /* NULL (out of memory): the caller keeps the default */
}

const kn_sgemm_tile *kn_sgemm_tune(kn_sgemm_tune_report *report)
{
    return tune_set_of(&default_set, report);
}

const kn_sgemm_tile *kn_sgemm_tune_shapes(const int64_t (*mnk)[3], int32_t count,
                                          kn_sgemm_tune_report *report)
{
    tune_set set = {.count = 0};
    for (int32_t i = 0; mnk && i < count && set.count < N_SHAPES; i++)
        if (mnk[i][0] > 0 && mnk[i][1] > 0 && mnk[i][2] > 0)
            set.s[set.count++] = fit_shape((tune_shape){mnk[i][0], mnk[i][1], mnk[i][2]});
    return tune_set_of(set.count ? &set : &default_set, report);
}

/* One step of a warm-up before the timing: candidate `step` % count runs
 * the timing's products, cut to a quarter of their depth, once; WARM_CALLS
 * times per candidate in all. A browser compiles a function with its
 * optimising compiler only after the function has run for a while, on
 * background threads, and a timing that starts before that has finished
 * times the baseline compiler's code: on a loaded 2-core machine, every
 * candidate was still unoptimised in Chromium when the timing's budget was
 * spent, so the choice followed the compiler's progress and cost 50-100 ms.
 * The page runs these steps while it is idle after the engine started
 * (wasm/js/kiln-tuning.mjs), each a few ms, until the first large model
 * loads. Returns 1 while steps remain, else 0. */
enum { WARM_CALLS = 6 };

int kn_sgemm_tune_warm_step(int32_t step)
{
    int32_t n = kn_sgemm_tile_count();
    n = n > MAX_TILES ? MAX_TILES : n;
    if (step < 0 || step >= n * WARM_CALLS)
        return 0;
    tune_buffers buf = {0};
    if (alloc_buffers(&buf, &default_set, n) == 0) {
        const kn_sgemm_tile *tile = kn_sgemm_tile_at(step % n);
        for (size_t s = 0; s < default_set.count; s++) {
            const tune_shape *p = &default_set.s[s];
            kn_sgemm_args g = {.m = p->m, .n = p->n, .k = p->k / 4, .alpha = 1, .beta = 0,
                               .a = buf.a, .lda = p->k, .b = buf.b, .ldb = p->n, .c = buf.c,
                               .ldc = p->n};
            tile->sgemm(NULL, &g, buf.ws, buf.ws_bytes); /* packs A itself, warming that too */
        }
    }
    free_buffers(&buf);
    return step + 1 < n * WARM_CALLS;
}
