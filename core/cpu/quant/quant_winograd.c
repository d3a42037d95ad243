/* The integer convolution's Winograd path: 3x3 kernels, stride 1, no
 * dilation, one group, as F(2x2, 3x3) in integers, with the direct path's
 * results exactly.
 *
 * Each 2x2 block of outputs (a tile) comes from the 4x4 input patch d
 * around it (x - zp_x, zero outside the image: the padding):
 *
 *     4 y = A^T [ sum over channels c of U'[m][c] .* V[c] ] A
 *     V   = B^T d B                 |V|  <= 4 max|d| <= 1020
 *     U'  = (2G) g (2G)^T           |U'| <= 9 max|g| <= 2295
 *
 *     B^T = 1  0 -1  0     2G = 2  0  0     A^T = 1  1  1  0
 *           0  1  1  0          1  1  1           0  1 -1 -1
 *           0 -1  1  0          1 -1  1
 *           0  1  0 -1          0  0  2
 *
 * with g = w - zp_w. 2G is twice the usual G, so U' is 4 times the usual
 * transformed weights and integral, and so is 4 y; 4 y / 4 is exact. V and
 * U' fit int16, so the 16 products over the channels (one per position of
 * the 4x4 tile) are the pairwise int16 GEMM of core/simd/qgemm.h: 16 MACs
 * per 4 outputs and channel where the direct path has 36.
 *
 * Overflow: every step after the int16 operands (the pairwise products,
 * the sums over channels, the output transform) is int32 addition and
 * multiplication, i.e. arithmetic modulo 2^32 (done as wrapping uint32 in
 * C, as the vector instructions do). Whatever wraps on the way, the result
 * is 4 y modulo 2^32, which is 4 y itself when |4 y| < 2^31. So the path
 * is taken only where that holds for every input:
 *
 *     4 max|d| max over m of (sum over c and taps of |g[m][c]|) < 2^31
 *
 * checked on the weights at load (for 8-bit operands it holds up to 917
 * input channels whatever the weights; ResNet-50's deepest 3x3 has 512).
 * The single pairwise product itself stays below 2 * 2295 * 1020 < 2^23. */
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/cpu/nn/conv.h"
#include "core/cpu/quant/quant_common.h"
#include "core/simd/qgemm.h"

enum { WG_T = 16 }; /* positions of a 4x4 tile */

/* Below these channel counts the transforms cost more than they save. */
#define WG_MIN_CIN 8
#define WG_MIN_COUT 8
/* Transformed input kept per block: about 256 KiB, so that it stays in L2
 * while each panel of weights passes over it. */
#define WG_BLOCK_ELEMS (128 * 1024)

static int64_t tiles_h(const quant_conv *c) { return (c->win.out[1] + 1) / 2; }
static int64_t tiles_w(const quant_conv *c) { return (c->win.out[2] + 1) / 2; }

/* Whether c's shape is one this path computes. */
static int wg_shape_fits(const quant_conv *c)
{
    const kn_window *w = &c->win;
    int fits = c->group == 1 && w->kernel[0] == 1 && w->in[0] == 1 && w->kernel[1] == 3 &&
               w->kernel[2] == 3 && w->stride[1] == 1 && w->stride[2] == 1 && w->dilation[1] == 1 &&
               w->dilation[2] == 1 && c->out_size > 0 && c->cin > 0;
    if (!fits)
        return 0;
    int algo = kn_conv_algo();
    if (algo == KN_CONV_ALGO_IM2COL)
        return 0;
    return algo != KN_CONV_ALGO_AUTO || (c->cin >= WG_MIN_CIN && c->cout >= WG_MIN_COUT);
}

/* max |x - zp| over x's type: the zero point is not known at load, so the
 * worst one, 255. */
#define WG_MAX_D 255

/* The weights' bound above, from W - w_zp as int16 rows (cout x cin x 9). */
static int wg_bound_ok(const quant_conv *c, const int16_t *g)
{
    int64_t worst = 0;
    for (int64_t m = 0; m < c->cout; m++) {
        int64_t sum = 0;
        for (int64_t i = 0; i < c->kdim; i++)
            sum += g[m * c->kdim + i] < 0 ? -g[m * c->kdim + i] : g[m * c->kdim + i];
        worst = sum > worst ? sum : worst;
    }
    return 4 * WG_MAX_D * worst < ((int64_t)1 << 31);
}

/* U' of one 3x3 kernel g into u[16] (row-major 4x4). */
static void wg_weight_tile(const int16_t *g, int32_t *u)
{
    int32_t t[4][3];
    for (int j = 0; j < 3; j++) {
        t[0][j] = 2 * g[j];
        t[1][j] = g[j] + g[3 + j] + g[6 + j];
        t[2][j] = g[j] - g[3 + j] + g[6 + j];
        t[3][j] = 2 * g[6 + j];
    }
    for (int i = 0; i < 4; i++) {
        u[4 * i + 0] = 2 * t[i][0];
        u[4 * i + 1] = t[i][0] + t[i][1] + t[i][2];
        u[4 * i + 2] = t[i][0] - t[i][1] + t[i][2];
        u[4 * i + 3] = 2 * t[i][2];
    }
}

/* A slot's buffers for a block of c->wg_rows rows of tiles: */
typedef struct wg_slot {
    int16_t *pb;   /* V packed for the GEMM, 16 matrices */
    int16_t *v;    /* V before packing: v[p][channel][tile] */
    int16_t *cols; /* the block's input rows times B, one channel at a time */
    int16_t *wide; /* one input row with its padding */
    int32_t *msum; /* the 16 GEMM results for a panel of output channels */
    int32_t *yt;   /* one channel's tiles after the output transform */
    int32_t *out;  /* ... and as rows of the output */
} wg_slot;

/* Lays the buffers out from base (NULL: only the size); returns the bytes. */
static size_t wg_layout(const quant_conv *c, char *base, wg_slot *s)
{
    int64_t tw = tiles_w(c), rows = c->wg_rows, tiles = rows * tw;
    size_t at = 0, sizes[7] = {
                       WG_T * kn_qgemm_packed_b_len(c->cin, tiles) * sizeof(int16_t),
                       (size_t)(WG_T * c->cin * tiles) * sizeof(int16_t),
                       (size_t)((2 * rows + 2) * 4 * tw) * sizeof(int16_t),
                       (size_t)(2 * tw + 2) * sizeof(int16_t),
                       (size_t)(WG_T * KN_QGEMM_MR * tiles) * sizeof(int32_t),
                       (size_t)(4 * tiles) * sizeof(int32_t),
                       (size_t)(2 * rows * c->win.out[2]) * sizeof(int32_t),
                   };
    void *ptr[7];
    for (int i = 0; i < 7; i++) {
        ptr[i] = base ? base + at : NULL;
        at += kn_align_up(sizes[i], 64);
    }
    if (s)
        *s = (wg_slot){ptr[0], ptr[1], ptr[2], ptr[3], ptr[4], ptr[5], ptr[6]};
    return at;
}

int quant_wg_prepare(quant_conv *c, const int16_t *g, int32_t threads)
{
    if (!wg_shape_fits(c) || !wg_bound_ok(c, g))
        return 0;
    size_t packed = kn_qgemm_packed_a_len(c->cout, c->cin);
    int16_t *u = malloc((size_t)(WG_T * c->cout * c->cin) * sizeof(int16_t));
    int16_t *dst = malloc(WG_T * packed * sizeof(int16_t));
    if (!u || !dst) {
        free(u);
        free(dst);
        return 0; /* the direct path needs no more memory */
    }
    for (int64_t m = 0; m < c->cout; m++)
        for (int64_t ch = 0; ch < c->cin; ch++) {
            int32_t t[WG_T];
            wg_weight_tile(g + (m * c->cin + ch) * 9, t);
            for (int p = 0; p < WG_T; p++)
                u[(p * c->cout + m) * c->cin + ch] = (int16_t)t[p];
        }
    for (int p = 0; p < WG_T; p++)
        kn_qgemm_pack_a(c->cout, c->cin, u + p * c->cout * c->cin, c->cin, dst + p * packed);
    free(u);
    c->wg_w = dst;
    c->winograd = 1;

    /* whole rows of tiles per block, about WG_BLOCK_ELEMS transformed
     * values, and blocks enough for the threads */
    int64_t tw = tiles_w(c), th = tiles_h(c);
    int64_t rows = WG_BLOCK_ELEMS / (WG_T * c->cin * tw);
    rows = rows < 1 ? 1 : rows > th ? th : rows;
    int64_t share = (th + 2 * (int64_t)threads - 1) / (2 * (int64_t)threads);
    if (threads > 1 && share < rows)
        rows = share < 1 ? 1 : share;
    c->wg_rows = rows;
    c->tasks = quant_wg_items(c) >= 2 * (int64_t)threads ? threads : 1;
    c->w_bytes = c->col_bytes = c->pack_bytes = c->tile_bytes = 0;
    c->slot_bytes = wg_layout(c, NULL, NULL);
    return 1;
}

int64_t quant_wg_items(const quant_conv *c) { return (tiles_h(c) + c->wg_rows - 1) / c->wg_rows; }

/* One input row's part of V = B^T d B, the product with B: for each tile
 * column tx, the row's 4 values from column 2 tx - pad on (zero outside
 * the image) combined as B^T's rows, into col[k * tw + tx], k = 0 .. 3.
 * row is NULL outside the image. */
static void wg_input_row(const int16_t *row, int64_t iw, int64_t pad, int64_t tw, int16_t *wide,
                         int16_t *restrict col)
{
    /* the row with its padding, so that the loop below needs no tests */
    int64_t n = 2 * tw + 2;
    for (int64_t i = 0; i < n; i++) {
        int64_t xx = i - pad;
        wide[i] = row && xx >= 0 && xx < iw ? row[xx] : 0;
    }
    const int16_t *restrict d = wide;
    for (int64_t tx = 0; tx < tw; tx++) {
        int16_t d0 = d[2 * tx], d1 = d[2 * tx + 1], d2 = d[2 * tx + 2], d3 = d[2 * tx + 3];
        col[tx] = (int16_t)(d0 - d2);
        col[tw + tx] = (int16_t)(d1 + d2);
        col[2 * tw + tx] = (int16_t)(d2 - d1);
        col[3 * tw + tx] = (int16_t)(d1 - d3);
    }
}

/* V for one row of tiles: the row products c0 .. c3 (wg_input_row's, 4
 * tw values each) of the tile's 4 input rows combined as B^T's rows, into
 * v[p * vstride + tx] for position p = 4 i + k. */
static void wg_input_tiles(const int16_t *restrict c0, const int16_t *restrict c1,
                           const int16_t *restrict c2, const int16_t *restrict c3, int64_t tw,
                           int16_t *restrict v, int64_t vstride)
{
    for (int64_t k = 0; k < 4; k++)
        for (int64_t tx = 0; tx < tw; tx++) {
            int64_t i = k * tw + tx;
            v[k * vstride + tx] = (int16_t)(c0[i] - c2[i]);
            v[(4 + k) * vstride + tx] = (int16_t)(c1[i] + c2[i]);
            v[(8 + k) * vstride + tx] = (int16_t)(c2[i] - c1[i]);
            v[(12 + k) * vstride + tx] = (int16_t)(c1[i] - c3[i]);
        }
}

/* 4 y = A^T M A for n tiles of one output channel: m holds the 16 sums
 * of tile t at m[p * stride + t]; the 2x2 results, divided by 4 (exact, see
 * above), go to y[i][t] for i = 0 .. 3 (row-major in the tile). Plain
 * loops over t, so that they vectorize. */
static void wg_output_tiles(const int32_t *restrict m, int64_t stride, int64_t n,
                            int32_t *restrict y)
{
    const uint32_t *u = (const uint32_t *)m;
    for (int64_t t = 0; t < n; t++) {
        uint32_t s0[4], s1[4];
        for (int j = 0; j < 4; j++) {
            uint32_t m0 = u[j * stride + t], m1 = u[(4 + j) * stride + t];
            uint32_t m2 = u[(8 + j) * stride + t], m3 = u[(12 + j) * stride + t];
            s0[j] = m0 + m1 + m2;
            s1[j] = m1 - m2 - m3;
        }
        y[t] = (int32_t)(s0[0] + s0[1] + s0[2]) / 4;
        y[n + t] = (int32_t)(s0[1] - s0[2] - s0[3]) / 4;
        y[2 * n + t] = (int32_t)(s1[0] + s1[1] + s1[2]) / 4;
        y[3 * n + t] = (int32_t)(s1[1] - s1[2] - s1[3]) / 4;
    }
}

void quant_wg_item(const quant_conv *c, const int16_t *x, const int16_t *w, int64_t item,
                   int32_t *acc, const quant_epilogue *ep, char *slot)
{
    int64_t tw = tiles_w(c), th = tiles_h(c);
    int64_t ih = c->win.in[1], iw = c->win.in[2], oh = c->win.out[1], ow = c->win.out[2];
    int64_t r0 = item * c->wg_rows, r1 = r0 + c->wg_rows < th ? r0 + c->wg_rows : th;
    int64_t tiles = (r1 - r0) * tw;
    size_t packed = kn_qgemm_packed_b_len(c->cin, tiles);
    wg_slot b;
    wg_layout(c, slot, &b);
    int16_t *pb = b.pb, *v = b.v, *cols = b.cols;
    int64_t in_rows = 2 * (r1 - r0) + 2;
    for (int64_t ch = 0; ch < c->cin; ch++) {
        const int16_t *plane = x + ch * c->in_size;
        for (int64_t i = 0; i < in_rows; i++) {
            int64_t yy = 2 * r0 + i - c->win.pad_begin[1];
            wg_input_row(yy >= 0 && yy < ih ? plane + yy * iw : NULL, iw, c->win.pad_begin[2], tw,
                         b.wide, cols + i * 4 * tw);
        }
        for (int64_t ty = 0; ty < r1 - r0; ty++) {
            const int16_t *c0 = cols + 2 * ty * 4 * tw;
            wg_input_tiles(c0, c0 + 4 * tw, c0 + 8 * tw, c0 + 12 * tw, tw, v + ch * tiles + ty * tw,
                           c->cin * tiles);
        }
    }
    for (int p = 0; p < WG_T; p++)
        kn_qgemm_pack_b(c->cin, tiles, v + p * c->cin * tiles, tiles, pb + (size_t)p * packed);

    int32_t *msum = b.msum, *yt = b.yt, *o = b.out;
    int64_t y0 = 2 * r0, y1 = 2 * r1 < oh ? 2 * r1 : oh, len = (y1 - y0) * ow;
    size_t panel = kn_qgemm_packed_a_len(KN_QGEMM_MR, c->cin);
    size_t wpacked = kn_qgemm_packed_a_len(c->cout, c->cin);
    for (int64_t m0 = 0; m0 < c->cout; m0 += KN_QGEMM_MR) {
        int64_t rows = c->cout - m0 < KN_QGEMM_MR ? c->cout - m0 : KN_QGEMM_MR;
        /* msum[p][r][t]: position p of tile t for output channel m0 + r */
        for (int p = 0; p < WG_T; p++)
            kn_qgemm_packed(rows, tiles, c->cin,
                            w + (size_t)p * wpacked + (size_t)(m0 / KN_QGEMM_MR) * panel,
                            pb + (size_t)p * packed, msum + p * KN_QGEMM_MR * tiles, tiles);
        for (int64_t r = 0; r < rows; r++) {
            wg_output_tiles(msum + r * tiles, KN_QGEMM_MR * tiles, tiles, yt);
            /* into the rows of the output, the last column and row of an
             * odd size left out */
            for (int64_t oy = 0; oy < y1 - y0; oy++) {
                const int32_t *src = yt + (oy & 1) * 2 * tiles + (oy / 2) * tw;
                int32_t *dst = o + oy * ow;
                for (int64_t ox = 0; ox < ow; ox++)
                    dst[ox] = src[(ox & 1) * tiles + ox / 2];
            }
            if (ep)
                ep->row(ep->ctx, m0 + r, y0 * ow, o, len);
            else
                memcpy(acc + (m0 + r) * c->out_size + y0 * ow, o, (size_t)len * sizeof(int32_t));
        }
    }
}
