/* The Winograd convolution path (core/cpu/nn/conv_winograd.c), with
 * F(2x2, 3x3) and F(4x4, 3x3) tiles, against the im2col + GEMM path, all
 * forced through kn_conv_algo_force,
 * on random data: odd and tiny output sizes (partial tiles), padding 0, 1
 * and asymmetric, batch 2, rows wider than one transform segment, bias,
 * residual and activations, 1 and 2 threads, every SIMD instance. Also
 * which convolutions the path takes and the KILN_CONV_ALGO override. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu/nn/conv.h"
#include "core/ir/tensor.h"
#include "core/simd/kernels.h"
#include "test_support.h"

static const char *const isa_names[] = {"avx512", "avx2", "neon", "generic", "wasm128"};
#define N_ISAS 5

static uint32_t rng = 777;
static float *rand_buf(int64_t n) { return kt_rand_floats(&rng, n); }

typedef struct wg_case {
    int64_t batch, cin, cout, h, w;
    int64_t pt, pl, pb, pr;
} wg_case;

static kn_window make_window(const wg_case *c, int64_t stride)
{
    kn_window w;
    memset(&w, 0, sizeof w);
    w.nsp = 2;
    int64_t in[3] = {1, c->h, c->w}, k[3] = {1, 3, 3}, s[3] = {1, stride, stride};
    int64_t pb[3] = {0, c->pt, c->pl}, pe[3] = {0, c->pb, c->pr};
    for (int i = 0; i < 3; i++) {
        w.in[i] = in[i], w.kernel[i] = k[i], w.stride[i] = s[i], w.dilation[i] = 1;
        w.pad_begin[i] = pb[i], w.pad_end[i] = pe[i];
        w.out[i] = (in[i] + pb[i] + pe[i] - k[i]) / s[i] + 1;
    }
    return w;
}

static void *scratch_alloc(size_t bytes)
{
    return aligned_alloc(64, (bytes + 64) & ~(size_t)63);
}

/* y from a fresh init with `algo` forced; returns the mode init chose. */
static int run_conv(int algo, const wg_case *c, const float *x, const float *w, const float *b,
                    const float *z, const kn_activation *act, float *y, kn_threadpool *pool)
{
    kn_window win = make_window(c, 1);
    kn_conv_params p;
    kn_err err = {0, {0}};
    kn_conv_algo_force(algo);
    int rc = kn_conv_init(&p, KN_FLOAT, &win, c->batch, c->cin, c->cout, 1, w,
                          kn_threadpool_threads(pool), &err);
    kn_conv_algo_force(-1);
    cr_assert_eq(rc, KN_OK, "%s", err.msg);
    void *scratch = scratch_alloc(p.scratch_bytes);
    kn_conv_f32(&p, x, w, b, z, act, y, scratch, pool);
    /* a second run on the same scratch gives the same answer */
    kn_conv_f32(&p, x, w, b, z, act, y, scratch, pool);
    free(scratch);
    kn_conv_release(&p);
    return p.mode;
}

/* Max error relative to max |ref|: F(2x2, 3x3) stays within a few ulp of
 * the direct sum; F(4x4, 3x3)'s transforms (coefficients up to 8 and 1/24)
 * cost it about 3 bits. */
static void check_tile(int algo, const wg_case *c, const kn_activation *act, int with_bias,
                       int with_z, kn_threadpool *pool, const char *isa)
{
    kn_window win = make_window(c, 1);
    int64_t yn = c->batch * c->cout * win.out[1] * win.out[2];
    float *x = rand_buf(c->batch * c->cin * c->h * c->w), *w = rand_buf(c->cout * c->cin * 9);
    float *b = with_bias ? rand_buf(c->cout) : NULL, *z = with_z ? rand_buf(yn) : NULL;
    float *ref = malloc((size_t)yn * sizeof *ref), *y = malloc((size_t)(yn + 1) * sizeof *y);
    y[yn] = 99.0f;
    cr_assert_eq(run_conv(KN_CONV_ALGO_IM2COL, c, x, w, b, z, act, ref, pool), KN_CONV_GEMM);
    cr_assert_eq(run_conv(algo, c, x, w, b, z, act, y, pool), KN_CONV_WINOGRAD);
    double tolerance = algo == KN_CONV_ALGO_WINOGRAD4 ? 1e-4 : 1e-5;
    cr_assert_eq(y[yn], 99.0f, "winograd wrote past its output");
    double max_ref = 0, max_err = 0;
    int64_t worst = 0;
    for (int64_t i = 0; i < yn; i++) {
        double e = fabs((double)y[i] - ref[i]);
        max_ref = fmax(max_ref, fabs(ref[i]));
        if (!(e <= max_err)) /* NaN counts as worst */
            max_err = e, worst = i;
    }
    cr_assert(max_err <= tolerance * max_ref,
              "%s winograd F(%d) n%lld channels %lld -> %lld, %lldx%lld pads %lld,%lld,%lld,%lld act %d "
              "bias %d z %d threads %d: max error %g at %lld (%g vs %g), max |ref| %g",
              isa, algo == KN_CONV_ALGO_WINOGRAD4 ? 4 : 2, (long long)c->batch, (long long)c->cin, (long long)c->cout, (long long)c->h,
              (long long)c->w, (long long)c->pt, (long long)c->pl, (long long)c->pb,
              (long long)c->pr, act ? act->kind : 0, with_bias, with_z,
              kn_threadpool_threads(pool), max_err, (long long)worst, y[worst], ref[worst],
              max_ref);
    free(x), free(w), free(b), free(z), free(ref), free(y);
}

static void check_case(const wg_case *c, const kn_activation *act, int with_bias, int with_z,
                       kn_threadpool *pool, const char *isa)
{
    check_tile(KN_CONV_ALGO_WINOGRAD2, c, act, with_bias, with_z, pool, isa);
    check_tile(KN_CONV_ALGO_WINOGRAD4, c, act, with_bias, with_z, pool, isa);
}

static const wg_case cases[] = {
    {1, 16, 16, 1, 1, 1, 1, 1, 1},     /* 1x1 input, pad 1: one tile, one output */
    {2, 16, 24, 5, 7, 1, 1, 1, 1},     /* batch 2, odd sizes */
    {1, 32, 16, 5, 7, 0, 0, 0, 0},     /* 3x5 outputs: cut tiles both ways */
    {1, 24, 32, 13, 13, 1, 1, 1, 1},
    {2, 48, 40, 13, 13, 0, 0, 0, 0},
    {1, 64, 64, 14, 14, 1, 1, 1, 1},
    {2, 96, 96, 14, 14, 1, 1, 1, 1},
    {1, 16, 64, 55, 55, 1, 1, 1, 1},   /* squeezenet's first expand3x3 */
    {1, 32, 48, 56, 56, 1, 1, 1, 1},   /* several blocks per image */
    {2, 20, 17, 57, 58, 0, 0, 0, 0},
    {1, 16, 16, 9, 10, 0, 1, 2, 0},    /* asymmetric pads */
    {1, 16, 18, 6, 141, 1, 1, 1, 1},   /* tile rows longer than a segment */
    {1, 16, 16, 2, 3, 1, 1, 1, 1},     /* smaller than one 4x4 tile */
    {1, 16, 24, 11, 266, 0, 2, 0, 1},  /* F(4x4) rows longer than a segment */
};
#define N_CASES (sizeof cases / sizeof cases[0])

Test(conv_winograd, matches_im2col_on_every_instance)
{
    const kn_activation relu = {KN_ACT_RELU, 0, 0};
    kn_threadpool *two = kn_threadpool_create(kt_pool_threads(2));
    cr_assert_not_null(two);
    int tested = 0;
    for (int i = 0; i < N_ISAS; i++) {
        if (kn_simd_force(isa_names[i]) != 0)
            continue;
        tested++;
        for (size_t c = 0; c < N_CASES; c++) {
            check_case(&cases[c], NULL, 0, 0, NULL, isa_names[i]);
            check_case(&cases[c], &relu, 1, (int)(c & 1), two, isa_names[i]);
            check_case(&cases[c], c & 1 ? NULL : &relu, 1, 1, NULL, isa_names[i]);
        }
    }
    kn_simd_force(NULL);
    kn_threadpool_destroy(two);
    cr_assert_geq(tested, 1);
}

Test(conv_winograd, fuses_other_activations)
{
    const kn_activation acts[] = {{KN_ACT_CLIP, 0.0f, 6.0f},
                                  {KN_ACT_SIGMOID, 0, 0},
                                  {KN_ACT_LEAKY_RELU, 0.1f, 0},
                                  {KN_ACT_SILU, 0, 0}};
    for (size_t a = 0; a < sizeof acts / sizeof acts[0]; a++)
        check_case(&cases[3], &acts[a], 1, 1, NULL, "default");
}

static int mode_for(int algo, const kn_window *win, int32_t dtype, int64_t cin, int64_t cout,
                    int64_t group, const void *w)
{
    kn_conv_params p;
    kn_err err = {0, {0}};
    kn_conv_algo_force(algo);
    int rc = kn_conv_init(&p, dtype, win, 1, cin, cout, group, w, 1, &err);
    kn_conv_algo_force(-1);
    cr_assert_eq(rc, KN_OK, "%s", err.msg);
    int mode = p.mode;
    kn_conv_release(&p);
    return mode;
}

Test(conv_winograd, only_convolutions_it_can_run_take_it)
{
    static double wd[64 * 64 * 9];
    static float wf[64 * 64 * 9];
    const wg_case c = {1, 64, 64, 14, 14, 1, 1, 1, 1};
    kn_window s1 = make_window(&c, 1), s2 = make_window(&c, 2);
    cr_assert_eq(mode_for(KN_CONV_ALGO_AUTO, &s1, KN_FLOAT, 64, 64, 1, wf), KN_CONV_WINOGRAD);
    cr_assert_eq(mode_for(KN_CONV_ALGO_IM2COL, &s1, KN_FLOAT, 64, 64, 1, wf), KN_CONV_GEMM);
    /* forced, but Winograd cannot: stride 2, double, groups, weights
     * computed at run time, one output channel */
    cr_assert_eq(mode_for(KN_CONV_ALGO_WINOGRAD, &s2, KN_FLOAT, 64, 64, 1, wf), KN_CONV_GEMM);
    cr_assert_eq(mode_for(KN_CONV_ALGO_WINOGRAD, &s1, KN_DOUBLE, 64, 64, 1, wd), KN_CONV_GEMM);
    cr_assert_eq(mode_for(KN_CONV_ALGO_WINOGRAD, &s1, KN_FLOAT, 64, 64, 2, wf), KN_CONV_GEMM);
    cr_assert_eq(mode_for(KN_CONV_ALGO_WINOGRAD, &s1, KN_FLOAT, 64, 64, 1, NULL), KN_CONV_GEMM);
    cr_assert_eq(mode_for(KN_CONV_ALGO_WINOGRAD, &s1, KN_FLOAT, 64, 1, 1, wf), KN_CONV_GEMM);
    /* tiny convolutions stay on im2col unless forced */
    cr_assert_eq(mode_for(KN_CONV_ALGO_AUTO, &s1, KN_FLOAT, 4, 8, 1, wf), KN_CONV_GEMM);
    cr_assert_eq(mode_for(KN_CONV_ALGO_WINOGRAD, &s1, KN_FLOAT, 4, 8, 1, wf), KN_CONV_WINOGRAD);
}

static int tile_for(int algo, int64_t side)
{
    static float wf[64 * 64 * 9];
    const wg_case c = {1, 64, 64, side, side, 1, 1, 1, 1};
    kn_window win = make_window(&c, 1);
    kn_conv_params p;
    kn_err err = {0, {0}};
    kn_conv_algo_force(algo);
    int rc = kn_conv_init(&p, KN_FLOAT, &win, 1, 64, 64, 1, wf, 1, &err);
    kn_conv_algo_force(-1);
    cr_assert_eq(rc, KN_OK, "%s", err.msg);
    cr_assert_eq(p.mode, KN_CONV_WINOGRAD);
    int m = p.wg_m;
    kn_conv_release(&p);
    return m;
}

Test(conv_winograd, tile_size_follows_the_image)
{
    /* F(4x4) from 32 of its tiles per image (a side of about 23) */
    cr_assert_eq(tile_for(KN_CONV_ALGO_AUTO, 56), 4);
    cr_assert_eq(tile_for(KN_CONV_ALGO_AUTO, 28), 4);
    cr_assert_eq(tile_for(KN_CONV_ALGO_AUTO, 14), 2);
    cr_assert_eq(tile_for(KN_CONV_ALGO_AUTO, 7), 2);
    cr_assert_eq(tile_for(KN_CONV_ALGO_WINOGRAD, 56), 4);
    cr_assert_eq(tile_for(KN_CONV_ALGO_WINOGRAD2, 56), 2);
    cr_assert_eq(tile_for(KN_CONV_ALGO_WINOGRAD4, 7), 4);
}

/* Criterion runs each test in its own process, so the environment read
 * here is this process's first. */
Test(conv_winograd, environment_override)
{
    static float wf[64 * 64 * 9];
    const wg_case c = {1, 64, 64, 14, 14, 1, 1, 1, 1};
    kn_window s1 = make_window(&c, 1);
    setenv("KILN_CONV_ALGO", "im2col", 1);
    cr_assert_eq(kn_conv_algo(), KN_CONV_ALGO_IM2COL);
    cr_assert_eq(mode_for(-1, &s1, KN_FLOAT, 64, 64, 1, wf), KN_CONV_GEMM);
    /* read once: a later change does not apply */
    setenv("KILN_CONV_ALGO", "winograd", 1);
    cr_assert_eq(kn_conv_algo(), KN_CONV_ALGO_IM2COL);
    cr_assert_eq(mode_for(KN_CONV_ALGO_WINOGRAD, &s1, KN_FLOAT, 64, 64, 1, wf),
                 KN_CONV_WINOGRAD);
}

Test(conv_winograd, environment_names_the_tile_size)
{
    setenv("KILN_CONV_ALGO", "winograd4", 1);
    cr_assert_eq(kn_conv_algo(), KN_CONV_ALGO_WINOGRAD4);
    cr_assert_eq(tile_for(-1, 7), 4);
}
