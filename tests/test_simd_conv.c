/* The float GEMM of every instruction-set instance and the convolution
 * routine of core/cpu/nn/conv.h (all paths: im2col + GEMM, pointwise,
 * grouped, direct depthwise, portable depthwise; bias, residual and each
 * activation), against naive double-precision references, with each
 * instance forced in turn and with 1 and 2 threads. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu/nn/conv.h"
#include "core/simd/gemm_tiles.h"
#include "core/simd/kernels.h"
#include "core/ir/tensor.h"
#include "test_support.h"

static const char *const isa_names[] = {"avx512", "avx2", "neon", "generic", "wasm128"};
#define N_ISAS 5

static uint32_t rng = 4242;
static float *rand_buf(int64_t n) { return kt_rand_floats(&rng, n); }

static void *scratch_alloc(size_t bytes)
{
    return aligned_alloc(64, (bytes + 64) & ~(size_t)63);
}

/* ---- GEMM ---- */

typedef void (*sgemm_fn)(kn_threadpool *pool, const kn_sgemm_args *g, void *ws, size_t ws_bytes);

/* A GEMM with the packing that goes with it: an ISA table's own entry
 * point reads the base instance's packing; the public kn_sgemm reads
 * kn_sgemm_pack_a's (which records the tile). */
typedef struct gemm_under_test {
    const char *name;
    sgemm_fn sgemm;
    size_t (*packed_a_size)(int64_t m, int64_t k);
    void (*pack_a)(int trans_a, int64_t m, int64_t k, const float *a, int64_t lda, float *dst);
} gemm_under_test;

static void check_gemm(gemm_under_test ks, kn_threadpool *pool, int ta, int tb, int64_t m,
                       int64_t n, int64_t k, float alpha, float beta, int with_bias, int packed)
{
    int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 1, ldc = n + 2;
    float *a = rand_buf((ta ? k : m) * lda), *b = rand_buf((tb ? n : k) * ldb);
    float *c = rand_buf(m * ldc), *bias = rand_buf(m), *c0 = malloc((size_t)(m * ldc) * 4);
    memcpy(c0, c, (size_t)(m * ldc) * 4);
    float *pa = NULL;
    if (packed) {
        pa = scratch_alloc(ks.packed_a_size(m, k));
        ks.pack_a(ta, m, k, a, lda, pa);
    }
    int32_t threads = kn_threadpool_threads(pool);
    size_t ws = kn_sgemm_workspace_size(m, n, k, threads);
    void *w = scratch_alloc(ws);
    kn_sgemm_args g = {ta, tb, m, n, k, alpha, beta, a, lda, b, ldb, c, ldc,
                       with_bias ? bias : NULL, pa};
    ks.sgemm(pool, &g, w, ws);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0, mag = 0;
            for (int64_t p = 0; p < k; p++) {
                double av = ta ? a[p * lda + i] : a[i * lda + p];
                double bv = tb ? b[j * ldb + p] : b[p * ldb + j];
                s += av * bv;
                mag += fabs(av * bv);
            }
            double want = alpha * s + (beta != 0 ? beta * c0[i * ldc + j] : 0) +
                          (with_bias ? bias[i] : 0);
            double got = c[i * ldc + j];
            cr_assert(fabs(got - want) <= 1e-5 * (mag + 1),
                      "%s gemm ta%d tb%d %lldx%lldx%lld a%g b%g bias%d packed%d: C[%lld][%lld] = "
                      "%g, want %g",
                      ks.name, ta, tb, (long long)m, (long long)n, (long long)k, alpha, beta,
                      with_bias, packed, (long long)i, (long long)j, got, want);
        }
    /* padding columns between rows untouched */
    for (int64_t i = 0; i < m; i++)
        cr_assert_eq(c[i * ldc + n], c0[i * ldc + n]);
    free(a), free(b), free(c), free(c0), free(bias), free(pa), free(w);
}

static const int64_t gemm_dims[][3] = {{1, 37, 19},   {29, 1, 70},    {5, 7, 3},
                                      {6, 32, 1},    {13, 33, 17},   {67, 45, 300},
                                      {130, 70, 257}, {7, 200, 9}};
#define N_GEMM_DIMS (sizeof gemm_dims / sizeof gemm_dims[0])

static void check_gemm_shapes(gemm_under_test ks, kn_threadpool *two)
{
    for (size_t d = 0; d < N_GEMM_DIMS; d++)
        for (int t = 0; t < 4; t++) {
            int64_t m = gemm_dims[d][0], n = gemm_dims[d][1], k = gemm_dims[d][2];
            check_gemm(ks, NULL, t & 1, t >> 1, m, n, k, 1.0f, 0.0f, 0, 0);
            check_gemm(ks, two, t & 1, t >> 1, m, n, k, 0.5f, 1.0f, 1, d & 1);
            check_gemm(ks, NULL, t & 1, t >> 1, m, n, k, -1.0f, 0.25f, 1, 1);
        }
}

Test(simd_gemm, every_instance_matches_reference_on_odd_shapes)
{
    kn_threadpool *two = kn_threadpool_create(kt_pool_threads(2));
    cr_assert_not_null(two);
    int tested = 0;
    for (int i = 0; i < N_ISAS; i++) {
        const kn_simd_kernels *ks = kn_simd_named(isa_names[i]);
        if (!ks)
            continue;
        tested++;
        check_gemm_shapes((gemm_under_test){ks->name, ks->sgemm, kn_sgemm_packed_a_size_base,
                                             kn_sgemm_pack_a_base},
                          two);
    }
    cr_assert_geq(tested, 1);
    kn_threadpool_destroy(two);
}

/* Every micro-tile a process can choose (gemm_tiles.h), each forced in
 * turn so that packing and products both follow it, through the public
 * entry points; then the timed choice lands on one of them. */
Test(simd_gemm, every_tile_matches_reference_and_tuning_picks_one)
{
    kn_threadpool *two = kn_threadpool_create(kt_pool_threads(2));
    cr_assert_not_null(two);
    int32_t n = kn_sgemm_tile_count();
    cr_assert_geq(n, 4, "the table's own tile and three alternatives");
    for (int32_t i = 0; i < n; i++) {
        const kn_sgemm_tile *tile = kn_sgemm_tile_at(i);
        cr_assert_eq(kn_sgemm_tile_force(tile->name), 0, "%s", tile->name);
        cr_assert_str_eq(kn_sgemm_tile_active()->name, tile->name);
        check_gemm_shapes(
            (gemm_under_test){tile->name, kn_sgemm, kn_sgemm_packed_a_size, kn_sgemm_pack_a}, two);
    }
    cr_assert_eq(kn_sgemm_tile_force("3x3"), -1, "unknown tiles are refused");
    cr_assert_eq(kn_sgemm_tile_force("auto"), 0);
    const kn_sgemm_tile *chosen = kn_sgemm_tile_active();
    cr_assert_not_null(kn_sgemm_tile_named(chosen->name));
    double ms = kn_sgemm_tune_ms();
    fprintf(stderr, "tuning chose %s in %.1f ms\n", chosen->name, ms);
    cr_assert_gt(ms, 0.0, "the choice was timed");
    check_gemm_shapes(
        (gemm_under_test){chosen->name, kn_sgemm, kn_sgemm_packed_a_size, kn_sgemm_pack_a}, two);
    kn_threadpool_destroy(two);
}

/* The per-model choice: a census open while kernels size their products
 * ranks the planned shapes by multiply-adds; timing on those shapes lands
 * on a candidate, and moves off it when it is made 20x slower (a
 * simulated other CPU; natively the table's own tile is several times
 * wider than the SSE2 alternatives, so a small factor would not do). */
Test(simd_gemm, census_ranks_planned_products_and_timing_follows_them)
{
    kn_sgemm_workspace_size(8, 8, 8, 1); /* before the census: not counted */
    kn_sgemm_census_begin();
    kn_sgemm_workspace_size(64, 784, 576, 1);  /* 28.9 M multiply-adds, twice */
    kn_sgemm_workspace_size(64, 784, 576, 1);
    kn_sgemm_workspace_size(512, 49, 4608, 1); /* 115.6 M */
    kn_sgemm_workspace_size(16, 16, 16, 1);
    kn_sgemm_workspace_size(0, 16, 16, 1); /* empty: ignored */
    int64_t top[KN_SGEMM_TUNE_MAX_SHAPES][3];
    int32_t n = kn_sgemm_census_end(top, KN_SGEMM_TUNE_MAX_SHAPES);
    kn_sgemm_workspace_size(128, 128, 128, 1); /* after: not counted */
    cr_assert_eq(n, 3);
    cr_assert(top[0][0] == 512 && top[0][1] == 49 && top[0][2] == 4608);
    cr_assert(top[1][0] == 64 && top[1][1] == 784 && top[1][2] == 576);
    cr_assert(top[2][0] == 16 && top[2][1] == 16 && top[2][2] == 16);

    cr_assert_eq(kn_sgemm_tile_tune_shapes((const int64_t(*)[3])top, 2), 0);
    const kn_sgemm_tile *chosen = kn_sgemm_tile_active();
    cr_assert_not_null(kn_sgemm_tile_named(chosen->name));
    double ms = kn_sgemm_tune_ms();
    fprintf(stderr, "timing on the census's shapes chose %s in %.1f ms\n", chosen->name, ms);
    cr_assert_gt(ms, 0.0);

    cr_assert_eq(kn_sgemm_tile_simulate_slowdown(chosen->name, 20.0), 0);
    cr_assert_eq(kn_sgemm_tile_tune_shapes((const int64_t(*)[3])top, 2), 0);
    const kn_sgemm_tile *moved = kn_sgemm_tile_active();
    cr_assert_eq(kn_sgemm_tile_simulate_slowdown(chosen->name, 1.0), 0);
    cr_assert_neq(moved, chosen, "%s made 20x slower was still chosen", chosen->name);

    cr_assert_eq(kn_sgemm_tile_tune_shapes(NULL, 0), 0, "no shapes: the stand-ins");
    kn_sgemm_tile_force(kn_sgemm_tile_at(0)->name);
}

/* The decision on the timing's rounds (times made up, ms): a challenger
 * replaces [0] only where its fastest round beats [0]'s by more than the
 * spreads of the two added (each second fastest over fastest, at least
 * one step of the clock), so a near-tie keeps the default. */
Test(simd_gemm, timing_keeps_the_default_tile_unless_beaten_by_more_than_its_spread)
{
    double t[KN_SGEMM_TUNE_MAX_TILES][KN_SGEMM_TUNE_MAX_ROUNDS] = {
        {1.10, 1.00, 1.02, 1.30}, /* [0]: fastest 1.00, spread 2 % */
        {0.99, 1.05, 1.00, 1.20}, /* 1 % faster: inside the 2 % */
        {1.08, 1.07, 1.10, 1.09},
    };
    kn_sgemm_tune_report r;
    cr_assert_eq(kn_sgemm_tune_decide(t, 3, 4, 0.0, &r), 0);
    cr_assert_eq(r.fastest, 1);
    cr_assert_eq(r.chosen, 0);
    cr_assert_float_eq(r.fastest_ms[1], 0.99, 1e-12);
    cr_assert_float_eq(r.spread[0], 0.02, 1e-9);
    cr_assert_float_eq(r.spread[2], 1.08 / 1.07 - 1.0, 1e-9);

    /* 5 % faster with a 1 % spread clears 2 % + 1 % */
    memcpy(t[2], (double[]){0.95, 0.97, 0.96, 1.00}, 4 * sizeof(double));
    cr_assert_eq(kn_sgemm_tune_decide(t, 3, 4, 0.0, &r), 2);

    /* 10 % faster with a 5.6 % spread of its own: clears 7.6 %, and being
     * the fastest that clears, wins */
    memcpy(t[1], (double[]){0.90, 0.95, 1.20, 1.10}, 4 * sizeof(double));
    cr_assert_eq(kn_sgemm_tune_decide(t, 3, 4, 0.0, &r), 1);
    cr_assert_float_eq(r.spread[1], 0.95 / 0.90 - 1.0, 1e-9);
    t[1][1] = 1.01; /* spread 12 % + 2 %: 0.90 x 1.14 is past 1.00 */
    cr_assert_eq(kn_sgemm_tune_decide(t, 3, 4, 0.0, &r), 2);

    /* The clock's step is the least spread: a browser's 0.1 ms on rounds
     * of about 1 ms hides a 5 % lead */
    double u[KN_SGEMM_TUNE_MAX_TILES][KN_SGEMM_TUNE_MAX_ROUNDS] = {{1.00, 1.01}, {0.95, 0.96}};
    cr_assert_eq(kn_sgemm_tune_decide(u, 2, 2, 0.0, &r), 1);
    cr_assert_eq(kn_sgemm_tune_decide(u, 2, 2, 0.02, &r), 1);
    cr_assert_eq(kn_sgemm_tune_decide(u, 2, 2, 0.1, &r), 0);
    cr_assert_float_eq(r.spread[0], 0.1, 1e-9);
    cr_assert_float_eq(r.tick_ms, 0.1, 0.0);

    /* One round measures only the clock's step: 1.10 / 0.90 / 0.95 */
    cr_assert_eq(kn_sgemm_tune_decide(t, 3, 1, 0.0, &r), 1);
    cr_assert_eq(kn_sgemm_tune_decide(t, 3, 1, 0.1, &r), 1, "0.90 x (1 + 0.1 / 1.10 + 0.1 / 0.90) < 1.10");
    cr_assert_eq(kn_sgemm_tune_decide(t, 3, 1, 0.15, &r), 0, "0.90 x (1 + 0.15 / 1.10 + 0.15 / 0.90) > 1.10");
}

/* Weights packed under one tile stay right after the process chooses
 * another: they remember the tile that packed them. */
Test(simd_gemm, packed_weights_keep_their_tile_across_a_change)
{
    const int64_t m = 37, n = 29, k = 300;
    float *a = rand_buf(m * k), *b = rand_buf(k * n), *c = malloc(sizeof(float) * (size_t)(m * n));
    float *want = malloc(sizeof(float) * (size_t)(m * n));
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t p = 0; p < k; p++)
                s += (double)a[i * k + p] * b[p * n + j];
            want[i * n + j] = (float)s;
        }
    size_t ws = kn_sgemm_workspace_size(m, n, k, 1);
    void *w = scratch_alloc(ws);
    for (int32_t first = 0; first < kn_sgemm_tile_count(); first++) {
        cr_assert_eq(kn_sgemm_tile_force(kn_sgemm_tile_at(first)->name), 0);
        float *pa = scratch_alloc(kn_sgemm_packed_a_size(m, k));
        kn_sgemm_pack_a(0, m, k, a, k, pa);
        for (int32_t later = 0; later < kn_sgemm_tile_count(); later++) {
            cr_assert_eq(kn_sgemm_tile_force(kn_sgemm_tile_at(later)->name), 0);
            kn_sgemm_args g = {0, 0, m, n, k, 1.0f, 0.0f, a, k, b, n, c, n, NULL, pa};
            kn_sgemm(NULL, &g, w, ws);
            for (int64_t i = 0; i < m * n; i++)
                cr_assert(fabsf(c[i] - want[i]) <= 1e-4f * (1 + fabsf(want[i])),
                          "packed under %s, run under %s: C[%lld] = %g, want %g",
                          kn_sgemm_tile_at(first)->name, kn_sgemm_tile_at(later)->name,
                          (long long)i, c[i], want[i]);
        }
        free(pa);
    }
    free(a), free(b), free(c), free(want), free(w);
}

/* ---- convolution ---- */

typedef struct conv_case {
    int64_t batch, cin, cout, group, h, w, kh, kw, sh, sw, dh, dw;
    int64_t pt, pl, pb, pr;
} conv_case;

static kn_window make_window(const conv_case *c)
{
    kn_window w;
    memset(&w, 0, sizeof w);
    w.nsp = 2;
    int64_t in[3] = {1, c->h, c->w}, k[3] = {1, c->kh, c->kw}, s[3] = {1, c->sh, c->sw};
    int64_t d[3] = {1, c->dh, c->dw}, pb[3] = {0, c->pt, c->pl}, pe[3] = {0, c->pb, c->pr};
    for (int i = 0; i < 3; i++) {
        w.in[i] = in[i], w.kernel[i] = k[i], w.stride[i] = s[i], w.dilation[i] = d[i];
        w.pad_begin[i] = pb[i], w.pad_end[i] = pe[i];
        w.out[i] = (in[i] + pb[i] + pe[i] - d[i] * (k[i] - 1) - 1) / s[i] + 1;
    }
    return w;
}

static void check_conv(const conv_case *c, const kn_activation *act, int with_z,
                       kn_threadpool *pool, const char *isa)
{
    kn_window win = make_window(c);
    int64_t oh = win.out[1], ow = win.out[2], cg = c->cin / c->group, mg = c->cout / c->group;
    int64_t xn = c->batch * c->cin * c->h * c->w, yn = c->batch * c->cout * oh * ow;
    float *x = rand_buf(xn), *w = rand_buf(c->cout * cg * c->kh * c->kw), *b = rand_buf(c->cout);
    float *z = with_z ? rand_buf(yn) : NULL, *y = malloc((size_t)(yn + 1) * sizeof *y);
    y[yn] = 99.0f;
    kn_conv_params p;
    kn_err err = {0, {0}};
    for (int const_w = 0; const_w < 2; const_w++) {
        int rc = kn_conv_init(&p, KN_FLOAT, &win, c->batch, c->cin, c->cout, c->group,
                              const_w ? w : NULL, kn_threadpool_threads(pool), &err);
        cr_assert_eq(rc, KN_OK, "%s", err.msg);
        void *scratch = scratch_alloc(p.scratch_bytes);
        kn_conv_f32(&p, x, w, b, z, act, y, scratch, pool);
        cr_assert_eq(y[yn], 99.0f, "conv wrote past its output");
        for (int64_t n = 0; n < c->batch; n++)
            for (int64_t m = 0; m < c->cout; m++)
                for (int64_t oy = 0; oy < oh; oy++)
                    for (int64_t ox = 0; ox < ow; ox++) {
                        double s = b[m];
                        int64_t g = m / mg;
                        for (int64_t ci = 0; ci < cg; ci++)
                            for (int64_t i = 0; i < c->kh; i++)
                                for (int64_t j = 0; j < c->kw; j++) {
                                    int64_t iy = oy * c->sh - c->pt + i * c->dh;
                                    int64_t ix = ox * c->sw - c->pl + j * c->dw;
                                    if (iy < 0 || iy >= c->h || ix < 0 || ix >= c->w)
                                        continue;
                                    s += (double)x[((n * c->cin + g * cg + ci) * c->h + iy) *
                                                       c->w + ix] *
                                         w[((m * cg + ci) * c->kh + i) * c->kw + j];
                                }
                        int64_t at = ((n * c->cout + m) * oh + oy) * ow + ox;
                        if (z)
                            s += z[at];
                        double want = kn_act_ref(act, (float)s);
                        cr_assert(fabs(y[at] - want) <= 2e-5 * (1 + fabs(want)),
                                  "%s conv %lldx%lld k%lldx%lld s%lld,%lld g%lld act %d z%d mode "
                                  "%d: y[%lld] = %g, want %g",
                                  isa, (long long)c->h, (long long)c->w, (long long)c->kh,
                                  (long long)c->kw, (long long)c->sh, (long long)c->sw,
                                  (long long)c->group, act ? act->kind : 0, with_z, p.mode,
                                  (long long)at, y[at], want);
                    }
        free(scratch);
        kn_conv_release(&p);
    }
    free(x), free(w), free(b), free(z), free(y);
}

static const conv_case conv_cases[] = {
    /* depthwise, direct kernel: 3x3 and 5x5, strides 1 and 2, odd sizes */
    {1, 8, 8, 8, 13, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {2, 5, 5, 5, 14, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
    {1, 4, 4, 4, 11, 37, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},
    {1, 3, 3, 3, 20, 33, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2},
    {1, 6, 6, 6, 7, 7, 3, 3, 1, 1, 1, 1, 0, 1, 2, 0},      /* asymmetric pads */
    {1, 2, 6, 2, 9, 10, 3, 2, 1, 2, 1, 1, 1, 0, 1, 1},     /* channel multiplier 3, 3x2 */
    {1, 4, 4, 4, 5, 40, 1, 7, 1, 1, 1, 1, 0, 3, 0, 3},     /* 1x7 */
    {1, 4, 4, 4, 10, 12, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1},    /* strides 2 (rows), 1 (columns) */
    /* depthwise, portable path: dilation, stride 3 */
    {1, 3, 3, 3, 12, 12, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},
    {1, 3, 3, 3, 12, 13, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1},
    /* GEMM, grouped, pointwise */
    {2, 6, 10, 1, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 8, 12, 2, 10, 7, 3, 3, 2, 1, 1, 1, 1, 0, 1, 1},
    {1, 16, 24, 1, 6, 9, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
    /* several column blocks: 5 (3x3 stride 2: whole blocks per thread on
     * two threads) and 3 (pointwise: each block split across threads) */
    {1, 64, 8, 1, 40, 56, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0},
    {1, 32, 8, 1, 64, 80, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
};

Test(simd_conv, all_paths_match_reference_on_every_instance)
{
    const kn_activation acts[] = {{KN_ACT_NONE, 0, 0},       {KN_ACT_RELU, 0, 0},
                                  {KN_ACT_CLIP, 0.0f, 6.0f}, {KN_ACT_LEAKY_RELU, 0.01f, 0},
                                  {KN_ACT_SIGMOID, 0, 0},    {KN_ACT_HARD_SIGMOID, 0.2f, 0.5f},
                                  {KN_ACT_TANH, 0, 0},       {KN_ACT_HARD_SWISH, 0, 0},
                                  {KN_ACT_SILU, 0, 0},       {KN_ACT_GELU, 0, 0}};
    kn_threadpool *two = kn_threadpool_create(kt_pool_threads(2));
    for (int i = 0; i < N_ISAS; i++) {
        if (kn_simd_force(isa_names[i]) != 0)
            continue;
        for (size_t c = 0; c < sizeof conv_cases / sizeof conv_cases[0]; c++) {
            check_conv(&conv_cases[c], NULL, 0, NULL, isa_names[i]);
            check_conv(&conv_cases[c], &acts[1 + c % 9], (int)(c & 1), two, isa_names[i]);
        }
        /* every activation through the depthwise and the GEMM epilogue */
        for (size_t a = 0; a < sizeof acts / sizeof acts[0]; a++) {
            check_conv(&conv_cases[1], &acts[a], 1, NULL, isa_names[i]);
            check_conv(&conv_cases[10], &acts[a], 1, NULL, isa_names[i]);
        }
    }
    kn_simd_force(NULL);
    kn_threadpool_destroy(two);
}

Test(simd_conv, depthwise_float_2d_uses_the_direct_kernel)
{
    kn_window win = make_window(&conv_cases[0]);
    kn_conv_params p;
    kn_err err = {0, {0}};
    cr_assert_eq(kn_conv_init(&p, KN_FLOAT, &win, 1, 8, 8, 8, NULL, 1, &err), KN_OK);
    cr_assert_eq(p.mode, KN_CONV_DEPTHWISE);
    cr_assert(p.dw_direct);
    kn_conv_release(&p);
    cr_assert_eq(kn_conv_init(&p, KN_DOUBLE, &win, 1, 8, 8, 8, NULL, 1, &err), KN_OK);
    cr_assert(!p.dw_direct, "double takes the portable path");
    kn_conv_release(&p);
}
