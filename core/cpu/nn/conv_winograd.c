/* Winograd convolution (conv.h): float, 2-D, 3x3 kernel, stride 1,
 * dilation 1, group 1, any padding, constant weights.
 *
 * F(m x m, 3x3) computes each m x m block of outputs from an a x a input
 * tile d (a = m + 2) as
 *     Y = A^T [ U .* V ] A,   U = G g G^T (a x a, per weight),  V = B^T d B,
 * and the element-wise products summed over input channels are a^2
 * independent matrix products M_k = U_k V_k (U_k: Cout x Cin, V_k: Cin x
 * tiles), run by the same GEMM as the im2col path. Two tile sizes:
 *  - F(2x2, 3x3): 16 products per 4 outputs instead of 36 (2.25x fewer);
 *    coefficients 0, +-1, 1/2, so results stay within a few ulp;
 *  - F(4x4, 3x3): 36 products per 16 outputs (4x fewer), but coefficients
 *    up to 8 and 1/24 lose about 3 more bits, and a 4-output tile wastes
 *    more of an image whose side is not a multiple of 4.
 * kn_conv_winograd_plan takes F(4x4) for images of at least 32 of its
 * tiles, F(2x2) for smaller ones (pick_tile says why).
 *
 * The weights are transformed and packed for the GEMM once, at init. A run
 * works on blocks of tiles (in raster order, per image) sized so that the
 * block's V and M matrices stay in L2 between the input transform writing
 * V, the GEMMs, and the output transform reading M; the output transform
 * applies the epilogue (bias, residual, activation) to each output row it
 * writes. Threads take whole blocks (each its own scratch slot) when there
 * are enough, as in conv.c; else each block is split across them: the
 * transforms by channels, the products whole, side by side.
 *
 * The transforms are the same 1-D transform down rows and then across
 * columns, over arrays holding one value per tile, so that every loop runs
 * over tiles with unit stride and the compiler vectorises it. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/cpu/nn/conv.h"
#include "core/ir/tensor.h"
#include "core/simd/gemm.h"
#include "core/simd/kernels.h"

#define WG_MAX_M 4 /* outputs per tile side */
#define WG_MAX_A 6 /* inputs per tile side */
#define WG_SEG 64  /* tiles transformed together, across tile rows (stack buffers) */
/* V and M of one block: half of a 2 MiB L2 ... */
#ifndef WG_BLOCK_BYTES
#define WG_BLOCK_BYTES (1024 * 1024)
#endif
/* ... but no fewer tiles than this per block, which the weights (a^2 Cin x
 * Cout matrices, several MiB for 256 channels, re-read for every block)
 * need to pay for their reading: resnet50's 256-channel 14x14 layers ran
 * 20 % faster in one block of 49 tiles (1.5 MiB) than in two. */
#ifndef WG_MIN_BLOCK
#define WG_MIN_BLOCK 64
#endif
/* Below these channel counts the GEMMs are thin and the transforms (linear
 * in the channels) a large share. Measured per convolution, best of 30: in
 * WebAssembly (Node 20) Winograd still wins from 4-8 channels (8->8 56x56
 * 0.24 -> 0.12 ms) and loses at 2-3 (3->64 112x112 1.31 -> 1.50 ms); in
 * the native build (AVX-512 GEMM) 8-channel ones lose (8->32 28x28 0.048 ->
 * 0.056 ms, 8->16 14x14 0.013 -> 0.016); from 16 both gain. */
#define WG_MIN_CIN 16
#define WG_MIN_COUT 16

/* ---- algorithm override ---- */

static atomic_int conv_algo_forced = -1; /* kn_conv_algo_force's, or -1 */
static atomic_int conv_algo_env = -1;    /* KILN_CONV_ALGO, parsed on first use */

static int parse_algo(const char *s)
{
    static const struct {
        const char *name;
        int algo;
    } names[] = {{"im2col", KN_CONV_ALGO_IM2COL},
                 {"winograd", KN_CONV_ALGO_WINOGRAD},
                 {"winograd2", KN_CONV_ALGO_WINOGRAD2},
                 {"winograd4", KN_CONV_ALGO_WINOGRAD4}};
    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0)
            return names[i].algo;
    return KN_CONV_ALGO_AUTO;
}

int kn_conv_algo(void)
{
    int forced = atomic_load(&conv_algo_forced);
    if (forced >= 0)
        return forced;
    int env = atomic_load(&conv_algo_env);
    if (env < 0) {
        /* racing first readers parse the same string to the same value */
        env = parse_algo(getenv("KILN_CONV_ALGO"));
        atomic_store(&conv_algo_env, env);
    }
    return env;
}

void kn_conv_algo_force(int algo)
{
    atomic_store(&conv_algo_forced, algo < 0 ? -1 : algo);
}

/* ---- plan ---- */

int kn_conv_winograd_applies(const kn_conv_params *p, const void *const_w)
{
    const kn_window *w = &p->win;
    int fits = p->dtype == KN_FLOAT && const_w && p->group == 1 && p->batch > 0 &&
               w->kernel[0] == 1 && w->in[0] == 1 && w->out[0] == 1 && w->kernel[1] == 3 &&
               w->kernel[2] == 3 && w->stride[1] == 1 && w->stride[2] == 1 &&
               w->dilation[1] == 1 && w->dilation[2] == 1 && p->out_size > 0 && p->cin > 0 &&
               p->cout >= 2; /* one output row would take the GEMM's matrix-vector path,
                                which reads the unpacked weights we do not keep */
    if (!fits)
        return 0;
    int algo = kn_conv_algo();
    if (algo != KN_CONV_ALGO_AUTO)
        return algo != KN_CONV_ALGO_IM2COL;
#ifdef KN_CONV_WINOGRAD_DEFAULT_OFF
    return 0;
#else
    return p->cin >= WG_MIN_CIN && p->cout >= WG_MIN_COUT;
#endif
}

/* F(4x4, 3x3) when the image gives it at least this many tiles. Measured
 * in Chromium (wasm, 1 thread, Intel Xeon), F(4x4) against F(2x2): with 49
 * tiles or more 20-38 % faster (resnet50's 56x56x64 3.6 -> 3.0 ms and
 * 28x28x128 3.7 -> 2.7 ms, squeezenet1_1's 55x55 and 27x27 expand3x3 1.3
 * -> 1.05 and 1.15 -> 0.9 ms); with 16 (13x13, 14x14, 7x7 outputs) 10-30 %
 * slower: the GEMMs get too narrow, the 2.25x larger transformed weights
 * are read for few tiles, and a side of 13 or 14 pads to 16. */
#define WG_F4_MIN_TILES 32

/* Output tile side for this convolution. */
static int32_t pick_tile(const kn_conv_params *p)
{
    int algo = kn_conv_algo();
    if (algo == KN_CONV_ALGO_WINOGRAD2 || algo == KN_CONV_ALGO_WINOGRAD4)
        return algo == KN_CONV_ALGO_WINOGRAD4 ? 4 : 2;
#ifdef WG_TILE /* for experiments */
    (void)p;
    return WG_TILE;
#else
    int64_t tiles4 = ((p->win.out[1] + 3) / 4) * ((p->win.out[2] + 3) / 4);
    return tiles4 >= WG_F4_MIN_TILES ? 4 : 2;
#endif
}

#define WG_KERNELS 64 /* 3x3 kernels transformed together */

/* U = G g G^T for n <= WG_KERNELS consecutive 3x3 kernels g (w: n x 9),
 * into u[k][i] (element k of kernel i). In double, so the weights' own
 * rounding is the only error this step adds; across kernels, so that the
 * loops vectorise (a resnet50 session transforms 1.3 million kernels). */
static void transform_kernels(int32_t m, const float *w, int64_t n,
                              double u[WG_MAX_A * WG_MAX_A][WG_KERNELS])
{
    static const double G2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
    static const double G4[6][3] = {{1.0 / 4, 0, 0},
                                    {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                    {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                    {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                    {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                    {0, 0, 1}};
    const double(*G)[3] = m == 4 ? G4 : G2;
    const int a = m + 2;
    double g[9][WG_KERNELS], gg[WG_MAX_A][3][WG_KERNELS]; /* taps, then G g */
    for (int64_t i = 0; i < n; i++)
        for (int t = 0; t < 9; t++)
            g[t][i] = w[i * 9 + t];
    for (int r = 0; r < a; r++)
        for (int j = 0; j < 3; j++)
            for (int64_t i = 0; i < n; i++)
                gg[r][j][i] = G[r][0] * g[j][i] + G[r][1] * g[3 + j][i] + G[r][2] * g[6 + j][i];
    for (int r = 0; r < a; r++)
        for (int c = 0; c < a; c++)
            for (int64_t i = 0; i < n; i++)
                u[r * a + c][i] =
                    gg[r][0][i] * G[c][0] + gg[r][1][i] * G[c][1] + gg[r][2][i] * G[c][2];
}

/* The matrices U_k[cout x cin], each packed for kn_sgemm into
 * p->wg_u + k * p->wg_u_bytes. */
static int transform_weights(kn_conv_params *p, const float *w, kn_err *err)
{
    size_t mat = (size_t)(p->cout * p->cin), mats = (size_t)p->wg_mats;
    float *u = malloc(sizeof(float) * mat * mats);
    p->wg_u_bytes = kn_align_up(kn_sgemm_packed_a_size(p->cout, p->cin), 64);
    p->wg_u = malloc(p->wg_u_bytes * mats);
    if (!u || !p->wg_u) {
        free(u);
        free(p->wg_u);
        p->wg_u = NULL;
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "Conv: out of memory transforming weights");
    }
    for (size_t oc = 0; oc < mat; oc += WG_KERNELS) { /* oc: output x input channel */
        int64_t n = mat - oc < WG_KERNELS ? (int64_t)(mat - oc) : WG_KERNELS;
        double t[WG_MAX_A * WG_MAX_A][WG_KERNELS];
        transform_kernels(p->wg_m, w + oc * 9, n, t);
        for (size_t k = 0; k < mats; k++)
            for (int64_t i = 0; i < n; i++)
                u[k * mat + oc + (size_t)i] = (float)t[k][i];
    }
    for (size_t k = 0; k < mats; k++)
        kn_sgemm_pack_a(0, p->cout, p->cin, u + k * mat, p->cin,
                        (float *)((char *)p->wg_u + p->wg_u_bytes * k));
    free(u);
    return KN_OK;
}

int kn_conv_winograd_plan(kn_conv_params *p, const float *const_w, int32_t threads, kn_err *err)
{
    const kn_window *w = &p->win;
    p->mode = KN_CONV_WINOGRAD;
    p->wg_m = pick_tile(p);
    p->wg_mats = (p->wg_m + 2) * (p->wg_m + 2);
    p->wg_th = (w->out[1] + p->wg_m - 1) / p->wg_m;
    p->wg_tw = (w->out[2] + p->wg_m - 1) / p->wg_m;
    int64_t tiles = p->wg_th * p->wg_tw;
    int64_t per_tile = p->wg_mats * (p->cin + p->cout) * (int64_t)sizeof(float);
    int64_t most = WG_BLOCK_BYTES / per_tile > WG_MIN_BLOCK ? WG_BLOCK_BYTES / per_tile
                                                            : WG_MIN_BLOCK;
    /* blocks of equal size, not full ones and a thin rest (784 tiles as 4 x
     * 196, not 3 x 256 + 16): the GEMMs run best on wide blocks */
    int64_t blocks = (tiles + most - 1) / most;
    int64_t block = (tiles + blocks - 1) / blocks;
    /* at least 2 columns: a 1-column product would take the GEMM's
     * matrix-vector path, which reads the unpacked weights we do not keep */
    p->wg_block = block < 2 ? 2 : block;
    p->wg_blocks = (tiles + p->wg_block - 1) / p->wg_block;
    p->items = p->batch * p->wg_blocks;
    p->tasks = threads == 1 || p->items >= 2 * (int64_t)threads ? threads : 0;
    size_t cols = (size_t)p->wg_block * sizeof(float) * (size_t)p->wg_mats;
    p->wg_v_bytes = kn_align_up(cols * (size_t)p->cin, 64);
    p->wg_m_bytes = kn_align_up(cols * (size_t)p->cout, 64);
    /* split blocks run their products side by side, each on one thread */
    p->wg_gemm_tasks = p->tasks ? 1 : (threads < p->wg_mats ? threads : p->wg_mats);
    p->wg_ws_bytes = kn_align_up(kn_sgemm_workspace_size(p->cout, p->wg_block, p->cin, 1), 64);
    p->wg_slot_bytes =
        p->wg_v_bytes + p->wg_m_bytes + p->wg_ws_bytes * (size_t)p->wg_gemm_tasks;
    p->scratch_bytes = p->wg_slot_bytes * (size_t)(p->tasks ? p->tasks : 1);
    return transform_weights(p, const_w, err);
}

/* ---- the 1-D transforms, each over n tiles ---- */

/* F(2, 3) B^T: (d0 - d2, d1 + d2, d2 - d1, d1 - d3) */
static void input_2(const float *restrict d0, const float *restrict d1, const float *restrict d2,
                    const float *restrict d3, float *restrict r0, float *restrict r1,
                    float *restrict r2, float *restrict r3, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        r0[i] = d0[i] - d2[i];
        r1[i] = d1[i] + d2[i];
        r2[i] = d2[i] - d1[i];
        r3[i] = d1[i] - d3[i];
    }
}

/* F(4, 3) B^T (points 0, -1, 1, -2, 2, infinity):
 * (4 d0 - 5 d2 + d4, -4 d1 - 4 d2 + d3 + d4, 4 d1 - 4 d2 - d3 + d4,
 *  -2 d1 - d2 + 2 d3 + d4, 2 d1 - d2 - 2 d3 + d4, 4 d1 - 5 d3 + d5) */
static void input_4(const float *restrict d0, const float *restrict d1, const float *restrict d2,
                    const float *restrict d3, const float *restrict d4, const float *restrict d5,
                    float *restrict r0, float *restrict r1, float *restrict r2,
                    float *restrict r3, float *restrict r4, float *restrict r5, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        float a = d4[i] - 4.0f * d2[i], b = d3[i] - 4.0f * d1[i];
        float c = d4[i] - d2[i], e = 2.0f * (d3[i] - d1[i]);
        r0[i] = 4.0f * d0[i] - 5.0f * d2[i] + d4[i];
        r1[i] = a + b;
        r2[i] = a - b;
        r3[i] = c + e;
        r4[i] = c - e;
        r5[i] = 4.0f * d1[i] - 5.0f * d3[i] + d5[i];
    }
}

static void input_1d(int32_t m, const float *const d[], float *const r[], int64_t n)
{
    if (m == 2)
        input_2(d[0], d[1], d[2], d[3], r[0], r[1], r[2], r[3], n);
    else
        input_4(d[0], d[1], d[2], d[3], d[4], d[5], r[0], r[1], r[2], r[3], r[4], r[5], n);
}

/* F(2, 3) A^T: (d0 + d1 + d2, d1 - d2 - d3) */
static void output_2(const float *restrict d0, const float *restrict d1,
                     const float *restrict d2, const float *restrict d3, float *restrict y0,
                     float *restrict y1, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        y0[i] = d0[i] + d1[i] + d2[i];
        y1[i] = d1[i] - d2[i] - d3[i];
    }
}

/* F(4, 3) A^T: (d0 + d1 + d2 + d3 + d4, d1 - d2 + 2 (d3 - d4),
 *               d1 + d2 + 4 (d3 + d4), d1 - d2 + 8 (d3 - d4) + d5) */
static void output_4(const float *restrict d0, const float *restrict d1,
                     const float *restrict d2, const float *restrict d3,
                     const float *restrict d4, const float *restrict d5, float *restrict y0,
                     float *restrict y1, float *restrict y2, float *restrict y3, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        float sum12 = d1[i] + d2[i], dif12 = d1[i] - d2[i];
        float sum34 = d3[i] + d4[i], dif34 = d3[i] - d4[i];
        y0[i] = d0[i] + sum12 + sum34;
        y1[i] = dif12 + 2.0f * dif34;
        y2[i] = sum12 + 4.0f * sum34;
        y3[i] = dif12 + 8.0f * dif34 + d5[i];
    }
}

static void output_1d(int32_t m, const float *const d[], float *const y[], int64_t n)
{
    if (m == 2)
        output_2(d[0], d[1], d[2], d[3], y[0], y[1], n);
    else
        output_4(d[0], d[1], d[2], d[3], d[4], d[5], y[0], y[1], y[2], y[3], n);
}

/* ---- input transform: V = B^T d B ---- */

/* Tiles of the next segment when `left` remain: at most WG_SEG, in equal
 * parts (66 tiles as 33 + 33, not 64 + a 2-tile rest that runs scalar). */
static int64_t segment_length(int64_t left)
{
    int64_t parts = (left + WG_SEG - 1) / WG_SEG;
    return (left + parts - 1) / parts;
}

/* col[c][i] = src[m i + c] for c < m + 2, i < n: column c of each of n
 * tiles along a row (neighbouring tiles share 2 columns, stored twice so
 * that the transforms need no neighbour). */
static void split_columns(int32_t m, const float *restrict src, int64_t n, float *const col[])
{
    if (m == 2) {
        float *restrict c0 = col[0], *restrict c1 = col[1], *restrict c2 = col[2],
                        *restrict c3 = col[3];
        for (int64_t i = 0; i < n; i++) {
            c0[i] = src[2 * i];
            c1[i] = src[2 * i + 1];
            c2[i] = src[2 * i + 2];
            c3[i] = src[2 * i + 3];
        }
        return;
    }
    float *restrict c0 = col[0], *restrict c1 = col[1], *restrict c2 = col[2],
                    *restrict c3 = col[3], *restrict c4 = col[4], *restrict c5 = col[5];
    for (int64_t i = 0; i < n; i++) {
        c0[i] = src[4 * i];
        c1[i] = src[4 * i + 1];
        c2[i] = src[4 * i + 2];
        c3[i] = src[4 * i + 3];
        c4[i] = src[4 * i + 4];
        c5[i] = src[4 * i + 5];
    }
}

/* The columns of n tiles along one input row, from column x0; 0 outside
 * the row (padding) or when row is NULL (a padding row). A row part that
 * reaches into the padding is first copied into a zeroed line, so the
 * split never tests bounds (with padding 1, every tile row's first tile
 * does). */
static void gather_row(int32_t m, const float *row, int64_t width, int64_t x0, int64_t n,
                       float *const col[])
{
    int64_t len = m * n + 2;
    int64_t lo = x0 < 0 ? -x0 : 0, hi = width - x0 < len ? width - x0 : len;
    float line[WG_MAX_M * WG_SEG + 2];
    const float *src = row ? row + x0 : NULL;
    if (!row || hi <= lo) {
        memset(line, 0, sizeof(float) * (size_t)len);
        src = line;
    } else if (lo > 0 || hi < len) {
        memset(line, 0, sizeof(float) * (size_t)len);
        memcpy(line + lo, row + x0 + lo, sizeof(float) * (size_t)(hi - lo));
        src = line;
    }
    split_columns(m, src, n, col);
}

/* Tiles t .. t + len of the block (t counted from the image's first tile,
 * across tile rows) of one channel plane into V: element k of tile i goes
 * to v[k * kstride + i]. Tile (ty, tx) starts at input row m ty - pad_top,
 * column m tx - pad_left. The transforms run over all len tiles at once
 * (tile rows alone are too short for vector loops). */
static void transform_input_segment(const kn_conv_params *p, const float *plane, int64_t t,
                                    int64_t len, float *v, int64_t kstride)
{
    const kn_window *w = &p->win;
    const int32_t m = p->wg_m, a = m + 2;
    /* [tile column][tile row][tile]: the tiles, then their rows transformed */
    float in[WG_MAX_A][WG_MAX_A][WG_SEG], tr[WG_MAX_A][WG_MAX_A][WG_SEG];
    for (int64_t done = 0; done < len;) { /* each tile row's part */
        int64_t ty = (t + done) / p->wg_tw, tx = (t + done) % p->wg_tw;
        int64_t piece = p->wg_tw - tx < len - done ? p->wg_tw - tx : len - done;
        int64_t y0 = m * ty - w->pad_begin[1], x0 = m * tx - w->pad_begin[2];
        for (int r = 0; r < a; r++) {
            int64_t iy = y0 + r;
            const float *row = iy >= 0 && iy < w->in[1] ? plane + iy * w->in[2] : NULL;
            float *col[WG_MAX_A] = {0};
            for (int c = 0; c < a; c++)
                col[c] = in[c][r] + done;
            gather_row(m, row, w->in[2], x0, piece, col);
        }
        done += piece;
    }
    for (int c = 0; c < a; c++) { /* down the rows */
        const float *d[WG_MAX_A];
        float *r[WG_MAX_A];
        for (int i = 0; i < a; i++)
            d[i] = in[c][i], r[i] = tr[c][i];
        input_1d(m, d, r, len);
    }
    for (int r = 0; r < a; r++) { /* across the columns, into V */
        const float *d[WG_MAX_A];
        float *out[WG_MAX_A];
        for (int c = 0; c < a; c++) {
            d[c] = tr[c][r];
            out[c] = v + (r * a + c) * kstride;
        }
        input_1d(m, d, out, len);
    }
}

/* Tiles [t0, t1) of image x, channels [c0, c1), into the block's V
 * matrices (V_k: cin rows of p->wg_block). */
static void transform_input(const kn_conv_params *p, const float *x, float *v, int64_t t0,
                            int64_t t1, int64_t c0, int64_t c1)
{
    int64_t ld = p->wg_block, kstride = p->cin * ld;
    for (int64_t c = c0; c < c1; c++) {
        const float *plane = x + c * p->in_size;
        for (int64_t t = t0; t < t1;) {
            int64_t len = segment_length(t1 - t);
            transform_input_segment(p, plane, t, len, v + c * ld + (t - t0), kstride);
            t += len;
        }
    }
}

/* ---- output transform: Y = A^T M A, then the epilogue ---- */

typedef struct wg_epilogue {
    const float *bias, *z; /* z: the residual of this image, or NULL */
    const kn_activation *act;
} wg_epilogue;

/* Interleaves the m phases ph[q][i] (output column m i + q) into width
 * outputs of a row, then adds bias and residual and applies the activation. */
static void store_row(int32_t m, float *const ph[], float *restrict y, int64_t off,
                      int64_t width, float bias, const wg_epilogue *ep)
{
    float *restrict row = y + off;
    int64_t whole = width / m;
    if (m == 2) {
        const float *restrict p0 = ph[0], *restrict p1 = ph[1];
        for (int64_t i = 0; i < whole; i++) {
            row[2 * i] = p0[i];
            row[2 * i + 1] = p1[i];
        }
    } else {
        const float *restrict p0 = ph[0], *restrict p1 = ph[1], *restrict p2 = ph[2],
                              *restrict p3 = ph[3];
        for (int64_t i = 0; i < whole; i++) {
            row[4 * i] = p0[i];
            row[4 * i + 1] = p1[i];
            row[4 * i + 2] = p2[i];
            row[4 * i + 3] = p3[i];
        }
    }
    for (int64_t x = whole * m; x < width; x++) /* a cut last tile */
        row[x] = ph[x % m][x / m];
    int act = ep->act && ep->act->kind != KN_ACT_NONE;
    if (bias != 0.0f || ep->z || act)
        kn_simd()->bias_act(row, width, bias, ep->z ? ep->z + off : NULL, ep->act);
}

/* Tiles t .. t + len of the block (t counted from the image's first tile,
 * across tile rows) of one output channel from its M row mat (element k of
 * tile i at mat[k * kstride + i]) into the output plane. The transforms run
 * over all len tiles at once: tile rows are short (7 tiles for a 14x14 or a
 * 28x28 image), too short for vector loops on their own. */
static void transform_output_segment(const kn_conv_params *p, const float *mat, int64_t kstride,
                                     int64_t t, int64_t len, float *y, int64_t plane_off,
                                     float bias, const wg_epilogue *ep)
{
    const int32_t m = p->wg_m, a = m + 2;
    /* [tile column][output row][tile], then [output row][output column][tile] */
    float s[WG_MAX_A][WG_MAX_M][WG_SEG], out[WG_MAX_M][WG_MAX_M][WG_SEG];
    for (int c = 0; c < a; c++) { /* down the rows */
        const float *d[WG_MAX_A];
        float *r[WG_MAX_M];
        for (int i = 0; i < a; i++)
            d[i] = mat + (i * a + c) * kstride;
        for (int j = 0; j < m; j++)
            r[j] = s[c][j];
        output_1d(m, d, r, len);
    }
    for (int j = 0; j < m; j++) { /* across the columns */
        const float *d[WG_MAX_A];
        float *r[WG_MAX_M];
        for (int c = 0; c < a; c++)
            d[c] = s[c][j];
        for (int q = 0; q < m; q++)
            r[q] = out[j][q];
        output_1d(m, d, r, len);
    }
    int64_t oh = p->win.out[1], ow = p->win.out[2];
    for (int64_t done = 0; done < len;) { /* each tile row's part */
        int64_t ty = (t + done) / p->wg_tw, tx = (t + done) % p->wg_tw;
        int64_t piece = p->wg_tw - tx < len - done ? p->wg_tw - tx : len - done;
        int64_t oy = m * ty, ox = m * tx;
        int64_t width = m * piece < ow - ox ? m * piece : ow - ox; /* the last tile may be cut */
        for (int j = 0; j < m && oy + j < oh; j++) {
            float *ph[WG_MAX_M] = {0};
            for (int q = 0; q < m; q++)
                ph[q] = out[j][q] + done;
            store_row(m, ph, y, plane_off + (oy + j) * ow + ox, width, bias, ep);
        }
        done += piece;
    }
}

/* Output channels [m0, m1) of tiles [t0, t1) from the block's M matrices
 * (M_k: cout rows of p->wg_block) into image y (and its residual). */
static void transform_output(const kn_conv_params *p, const float *mat, float *y,
                             const wg_epilogue *ep, int64_t t0, int64_t t1, int64_t m0,
                             int64_t m1)
{
    int64_t ld = p->wg_block, kstride = p->cout * ld;
    for (int64_t co = m0; co < m1; co++) {
        float bias = ep->bias ? ep->bias[co] : 0.0f;
        for (int64_t t = t0; t < t1;) {
            int64_t len = segment_length(t1 - t);
            transform_output_segment(p, mat + co * ld + (t - t0), kstride, t, len, y,
                                     co * p->out_size, bias, ep);
            t += len;
        }
    }
}

/* ---- run ---- */

typedef struct wg_job {
    const kn_conv_params *p;
    const float *x, *bias, *z;
    const kn_activation *act;
    float *y;
    char *scratch;
    atomic_int_fast64_t next; /* next block for parallel tasks */
    /* the block being split across threads */
    const float *xn;
    float *yn, *v, *m;
    char *slot;
    wg_epilogue ep;
    int64_t t0, t1;
} wg_job;

static void input_channels(void *ctx, int64_t begin, int64_t end)
{
    const wg_job *j = ctx;
    transform_input(j->p, j->xn, j->v, j->t0, j->t1, begin, end);
}

static void output_channels(void *ctx, int64_t begin, int64_t end)
{
    const wg_job *j = ctx;
    transform_output(j->p, j->m, j->yn, &j->ep, j->t0, j->t1, begin, end);
}

/* M_k = U_k V_k for the current block, on one thread with workspace ws. */
static void run_product(const wg_job *j, int32_t k, char *ws)
{
    const kn_conv_params *p = j->p;
    int64_t cols = j->t1 - j->t0, ld = p->wg_block;
    kn_sgemm_args g = {
        .m = p->cout, .n = cols < 2 ? 2 : cols, .k = p->cin, .alpha = 1, .beta = 0,
        .b = j->v + k * p->cin * ld, .ldb = ld,
        .c = j->m + k * p->cout * ld, .ldc = ld,
        .packed_a = (const float *)((const char *)p->wg_u + p->wg_u_bytes * (size_t)k),
    };
    kn_sgemm(NULL, &g, ws, p->wg_ws_bytes);
}

/* A split block's products: task t (with workspace t) takes k = t, t +
 * tasks, ...; whole products side by side instead of each product split
 * across the threads, which synchronised them 16 or 36 times per block. */
static void products(void *ctx, int64_t begin, int64_t end)
{
    const wg_job *j = ctx;
    const kn_conv_params *p = j->p;
    char *ws = j->slot + p->wg_v_bytes + p->wg_m_bytes + p->wg_ws_bytes * (size_t)begin;
    for (int64_t t = begin; t < end; t++)
        for (int64_t k = t; k < p->wg_mats; k += p->wg_gemm_tasks)
            run_product(j, (int32_t)k, ws);
}

/* Block `item` (image item / blocks, its tiles from (item % blocks) *
 * block) in one scratch slot; pool splits the work when not NULL. */
static void run_block(wg_job *j, int64_t item, char *slot, kn_threadpool *pool)
{
    const kn_conv_params *p = j->p;
    int64_t n = item / p->wg_blocks, tiles = p->wg_th * p->wg_tw;
    j->t0 = (item % p->wg_blocks) * p->wg_block;
    j->t1 = j->t0 + p->wg_block < tiles ? j->t0 + p->wg_block : tiles;
    j->xn = j->x + n * p->cin * p->in_size;
    j->yn = j->y + n * p->cout * p->out_size;
    j->slot = slot;
    j->v = (float *)slot;
    j->m = (float *)(slot + p->wg_v_bytes);
    j->ep = (wg_epilogue){.bias = j->bias,
                          .z = j->z ? j->z + n * p->cout * p->out_size : NULL,
                          .act = j->act};
    int64_t cols = j->t1 - j->t0, ld = p->wg_block;
    int64_t grain = 1 + 4096 / (p->wg_mats * cols);
    if (pool)
        kn_parallel_for(pool, p->cin, grain, input_channels, j);
    else
        transform_input(p, j->xn, j->v, j->t0, j->t1, 0, p->cin);
    if (cols < 2) /* the GEMMs take 2 columns (plan); keep the spare one finite */
        for (int64_t r = 0; r < p->wg_mats * p->cin; r++)
            j->v[r * ld + 1] = 0.0f;
    if (pool)
        kn_parallel_for(pool, p->wg_gemm_tasks, 1, products, j);
    else
        for (int32_t k = 0; k < p->wg_mats; k++)
            run_product(j, k, slot + p->wg_v_bytes + p->wg_m_bytes);
    if (pool)
        kn_parallel_for(pool, p->cout, grain, output_channels, j);
    else
        transform_output(p, j->m, j->yn, &j->ep, j->t0, j->t1, 0, p->cout);
}

/* Parallel blocks: task `begin` owns scratch slot `begin` and takes blocks
 * from the shared counter until none are left. */
static void block_task(void *ctx, int64_t begin, int64_t end)
{
    wg_job *shared = ctx;
    const kn_conv_params *p = shared->p;
    wg_job j = {.p = p, .x = shared->x, .bias = shared->bias, .z = shared->z,
                .act = shared->act, .y = shared->y};
    char *slot = shared->scratch + (size_t)begin * p->wg_slot_bytes;
    (void)end;
    for (;;) {
        int64_t item = atomic_fetch_add(&shared->next, 1);
        if (item >= p->items)
            break;
        run_block(&j, item, slot, NULL);
    }
}

void kn_conv_winograd_run(const kn_conv_params *p, const float *x, const float *bias,
                          const float *z, const kn_activation *act, float *y, void *scratch,
                          kn_threadpool *pool)
{
    wg_job j = {.p = p, .x = x, .bias = bias, .z = z, .act = act, .y = y, .scratch = scratch};
    atomic_init(&j.next, 0);
    if (p->tasks > 1) {
        kn_parallel_for(pool, p->tasks, 1, block_task, &j);
        return;
    }
    kn_threadpool *inner = p->tasks == 1 ? NULL : pool;
    for (int64_t item = 0; item < p->items; item++)
        run_block(&j, item, scratch, inner);
}
