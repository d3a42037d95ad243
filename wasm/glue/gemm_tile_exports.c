/* The WebAssembly module's own exports for kiln.mjs (not part of the C
 * API in capi/kiln.h, which every binding shares): the GEMM micro-tile
 * choice (core/simd/gemm_tiles.h), so the page can reuse a choice it
 * stored, force one for a benchmark, and report what was picked and what
 * the timing cost. Called by init() before any model is loaded. */
#include <emscripten.h>
#include <stdio.h>
#include <string.h>

#include "core/simd/gemm_tiles.h"

/* "5x8,4x8,6x8,2x16": the candidates, the table's own first. */
EMSCRIPTEN_KEEPALIVE const char *kiln_wasm_gemm_tiles(void)
{
    static char list[128];
    list[0] = '\0';
    for (int32_t i = 0; i < kn_sgemm_tile_count(); i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? "," : "", kn_sgemm_tile_at(i)->name);
    }
    return list;
}

/* name: a candidate, or "auto" to time them now; NULL or "" keeps the
 * default (timed at first use). Returns 0, or -1 for an unknown name. */
EMSCRIPTEN_KEEPALIVE int kiln_wasm_gemm_tile_choose(const char *name)
{
    if (name && name[0])
        return kn_sgemm_tile_force(name);
    kn_sgemm_tile_active();
    return 0;
}

EMSCRIPTEN_KEEPALIVE const char *kiln_wasm_gemm_tile_name(void) { return kn_sgemm_tile_active()->name; }

EMSCRIPTEN_KEEPALIVE double kiln_wasm_gemm_tune_ms(void) { return kn_sgemm_tune_ms(); }

/* What the last timing saw, for env.gemmTuneDetail: writes the counted
 * rounds, the fastest candidate's index and the chosen one's, the clock's
 * step (ms), then each candidate's fastest round (ms, per run of its
 * products) and spread, then the runs per counted round: 5 + 2 * tiles
 * doubles (out holds 5 + 2 * max_tiles); returns the number of candidates
 * timed. */
EMSCRIPTEN_KEEPALIVE int kiln_wasm_gemm_tune_report(double *out, int32_t max_tiles)
{
    kn_sgemm_tune_report r;
    kn_sgemm_tune_last_report(&r);
    int32_t n = r.tiles < max_tiles ? r.tiles : max_tiles;
    out[0] = r.rounds;
    out[1] = r.fastest;
    out[2] = r.chosen;
    out[3] = r.tick_ms;
    for (int32_t i = 0; i < n; i++) {
        out[4 + 2 * i] = r.fastest_ms[i];
        out[5 + 2 * i] = r.spread[i];
    }
    out[4 + 2 * n] = r.reps;
    return n;
}

/* Before the first large model: lets the browser optimise the candidates
 * (kn_sgemm_tune_warm_step). */
EMSCRIPTEN_KEEPALIVE int kiln_wasm_gemm_tile_warm(int32_t step) { return kn_sgemm_tune_warm_step(step); }

/* kiln.init's simulateSlowTile (a benchmark's simulated second CPU). */
EMSCRIPTEN_KEEPALIVE int kiln_wasm_gemm_tile_simulate_slowdown(const char *name, double factor)
{
    return kn_sgemm_tile_simulate_slowdown(name, factor);
}

/* The choice for one model, on its own products: the page opens a census
 * before its first session of the model prepares (every product a kernel
 * plans is counted), closes it after, and times the candidates on the
 * shapes carrying most multiply-adds. Shapes travel as doubles (m, n, k
 * each), which JavaScript reads without BigInt. */
EMSCRIPTEN_KEEPALIVE void kiln_wasm_gemm_census_begin(void) { kn_sgemm_census_begin(); }

/* Writes up to `max` shapes (3 doubles each) to out; returns how many. */
EMSCRIPTEN_KEEPALIVE int kiln_wasm_gemm_census_end(double *out, int32_t max)
{
    int64_t top[KN_SGEMM_TUNE_MAX_SHAPES][3];
    int32_t n =
        kn_sgemm_census_end(top, max < KN_SGEMM_TUNE_MAX_SHAPES ? max : KN_SGEMM_TUNE_MAX_SHAPES);
    for (int32_t i = 0; i < n; i++)
        for (int j = 0; j < 3; j++)
            out[i * 3 + j] = (double)top[i][j];
    return n;
}

/* Times the candidates on `count` shapes (3 doubles each) and makes the
 * fastest the choice; 0, or -1 when out of memory. */
EMSCRIPTEN_KEEPALIVE int kiln_wasm_gemm_tile_tune_shapes(const double *mnk, int32_t count)
{
    int64_t shapes[KN_SGEMM_TUNE_MAX_SHAPES][3];
    int32_t n = count < KN_SGEMM_TUNE_MAX_SHAPES ? count : KN_SGEMM_TUNE_MAX_SHAPES;
    for (int32_t i = 0; i < n; i++)
        for (int j = 0; j < 3; j++)
            shapes[i][j] = (int64_t)mnk[i * 3 + j];
    return kn_sgemm_tile_tune_shapes(shapes, n > 0 ? n : 0);
}
