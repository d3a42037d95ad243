/* The float GEMM's micro-tile, chosen once per process.
 *
 * The best tile shape depends on the machine in ways a build cannot know:
 * under WebAssembly, how many of SIMD128's vectors the browser's compiler
 * keeps in registers differs between engines and CPUs (5 x 8 was fastest
 * in V8 on AMD Zen 4; others may win elsewhere). So the module carries a
 * few instances of the same GEMM (gemm_tile.h) and picks one at run time,
 * by timing them on conv-shaped products or on a model's own (gemm_tune.c):
 * kernel auto-tuning on the user's machine.
 *
 * Weights packed for one tile (kn_sgemm_pack_a) are laid out for its
 * height; they remember the tile (gemm.c), so products on them stay right
 * when the process chooses another later. */
#ifndef KN_SIMD_GEMM_TILES_H
#define KN_SIMD_GEMM_TILES_H

#include <stddef.h>
#include <stdint.h>

#include "core/simd/gemm.h"

typedef void (*kn_sgemm_tile_fn)(kn_threadpool *pool, const kn_sgemm_args *g, void *ws,
                                 size_t ws_bytes);

typedef struct kn_sgemm_tile {
    const char *name; /* "5x8": rows x columns of the micro-tile */
    kn_sgemm_tile_fn sgemm;
    size_t (*workspace_size)(int64_t m, int64_t n, int64_t k, int32_t threads);
    size_t (*packed_a_size)(int64_t m, int64_t k);
    void (*pack_a)(int trans_a, int64_t m, int64_t k, const float *a, int64_t lda, float *dst);
} kn_sgemm_tile;

/* The candidates: [0] is the kernel table's own tile (kn_simd(), the
 * widest ISA), the others alternatives compiled for the base ISA (SIMD128
 * in the WebAssembly build, where they are the same width). */
int32_t kn_sgemm_tile_count(void);
const kn_sgemm_tile *kn_sgemm_tile_at(int32_t index);
const kn_sgemm_tile *kn_sgemm_tile_named(const char *name); /* NULL if none */
int32_t kn_sgemm_tile_index(const kn_sgemm_tile *tile);

/* kn_sgemm_pack_a records which tile packed the weights, and kn_sgemm runs
 * that tile on them, so the choice may change after weights were packed:
 * packed weights keep their own tile, everything packed later and every
 * product without packed weights follows the new choice. */

/* The tile new packings and products without packed weights use. Chosen
 * at first call: the one the environment variable KILN_GEMM_TILE names,
 * or with KILN_GEMM_TILE=auto the one timed best; else [0]. (The
 * WebAssembly page times them on each large model's own products,
 * kn_sgemm_tile_tune_shapes, wasm/js/kiln-tuning.mjs.) */
const kn_sgemm_tile *kn_sgemm_tile_active(void);

/* Changes the choice: a candidate's name, or "auto" to time them now.
 * Not while another thread packs weights. Returns 0, or -1 for an
 * unknown name. */
int kn_sgemm_tile_force(const char *name);

/* A simulation of another CPU, for showing that the timed choice adapts:
 * the named tile's products take `factor` (>= 1; 1 undoes it) times as
 * long from now on, results unchanged. Before any product runs. Returns 0,
 * or -1 for an unknown name or factor. */
int kn_sgemm_tile_simulate_slowdown(const char *name, double factor);

/* How long the timing took in ms (0 when the choice was not timed). */
double kn_sgemm_tune_ms(void);

/* The most products one timing runs. */
enum { KN_SGEMM_TUNE_MAX_SHAPES = 3 };

/* Times the candidates on a model's own products, (m, n, k) each (the
 * first KN_SGEMM_TUNE_MAX_SHAPES; each cut to a few million
 * multiply-adds, gemm_tune.c) and makes the timing's pick the choice, as
 * kn_sgemm_tile_force("auto") does on conv-shaped stand-ins (which a
 * count of 0 means). Returns 0, or -1 when the timing ran out of memory
 * (the choice is then [0]). */
int kn_sgemm_tile_tune_shapes(const int64_t (*mnk)[3], int32_t count);

/* A census of the products kernels plan while it is open: every float
 * product a kernel sizes its workspace for (kn_sgemm_workspace_size, as
 * convolutions and matrix products do when a session prepares them) is
 * counted with its multiply-adds. The page opens it around its first
 * session of a model to learn the model's dominant shapes without
 * running it. One census at a time, from the thread that prepares. */
void kn_sgemm_census_begin(void);
void kn_sgemm_census_note(int64_t m, int64_t n, int64_t k);
/* Closes the census and writes up to `max` distinct shapes, the most
 * multiply-adds (m * n * k summed over the products of that shape) first;
 * returns how many. */
int32_t kn_sgemm_census_end(int64_t (*top)[3], int32_t max);

/* What one timing found: each candidate's fastest counted round and how
 * far its second fastest lay above it, at least one step of the clock
 * (the spread: 0.02 is 2 %), indexed as kn_sgemm_tile_at; the fastest
 * candidate and the one chosen (they differ when the fastest did not beat
 * [0] by the spread, gemm_tune.c). */
enum { KN_SGEMM_TUNE_MAX_TILES = 8, KN_SGEMM_TUNE_MAX_ROUNDS = 7 };
typedef struct kn_sgemm_tune_report {
    double elapsed_ms; /* the whole timing, warm-up included */
    double tick_ms;    /* the clock's step */
    int32_t tiles, rounds;
    int32_t reps; /* runs of a candidate's products per counted round;
                   * fastest_ms is per run */
    double fastest_ms[KN_SGEMM_TUNE_MAX_TILES], spread[KN_SGEMM_TUNE_MAX_TILES];
    int32_t fastest, chosen;
} kn_sgemm_tune_report;

/* The last timing's report (all zero when none ran). */
void kn_sgemm_tune_last_report(kn_sgemm_tune_report *out);

/* The timing itself (gemm_tune.c): the candidates timed on a few
 * conv-shaped products (kn_sgemm_tune) or on the given ones
 * (kn_sgemm_tune_shapes, none: the conv-shaped), up to
 * KN_SGEMM_TUNE_MAX_ROUNDS interleaved counted rounds after a warm-up
 * that lasts until the browser has optimised the candidates (or until
 * only the counted rounds still fit in the 40 ms budget). Returns the
 * choice (NULL when out of memory) and fills *report when given. */
const kn_sgemm_tile *kn_sgemm_tune(kn_sgemm_tune_report *report);
const kn_sgemm_tile *kn_sgemm_tune_shapes(const int64_t (*mnk)[3], int32_t count,
                                          kn_sgemm_tune_report *report);

/* The decision on the counted rounds, times[tile][round] in ms for
 * `tiles` candidates and `rounds` rounds on a clock of step tick_ms: each
 * one's fastest round, and a challenger to [0] only where it is faster by
 * more than the spreads of the two added. Returns the chosen index; fills
 * *report (but its elapsed_ms) when given. */
int32_t kn_sgemm_tune_decide(const double (*times)[KN_SGEMM_TUNE_MAX_ROUNDS], int32_t tiles,
                             int32_t rounds, double tick_ms, kn_sgemm_tune_report *report);

/* One short run of one candidate, so that a browser optimises them all
 * before they are timed (gemm_tune.c says why); the choice does not
 * change. Steps 0, 1, ... until it returns 0. */
int kn_sgemm_tune_warm_step(int32_t step);

#endif
