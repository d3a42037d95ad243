/* Winograd F(2x2, 3x3) convolution (conv.h): float, 2-D, 3x3 kernel,
 * stride 1, dilation 1, group 1, any padding, constant weights.
 *
 * Each 2x2 block of outputs is computed from a 4x4 input tile d as
 *     Y = A^T [ U .* V ] A,   U = G g G^T (4x4, per weight),  V = B^T d B,
 * and the element-wise products summed over input channels are 16
 * independent matrix products M_k = U_k V_k (k = 0..15: U_k is Cout x Cin,
 * V_k is Cin x tiles). That is 16 multiplies per 4 outputs instead of 36:
 * 2.25x fewer, spent in the same GEMM the im2col path uses. F(2x2, 3x3)
 * keeps the transforms' coefficients 0, +-1 and 1/2, so results stay within
 * a few ulp of direct convolution; F(4x4, 3x3) would cut the multiplies 4x
 * but its coefficients (up to 8, fractions like 1/6) cost about 1e-4
 * relative accuracy and 36 GEMMs on smaller blocks.
 *
 * The weights are transformed and packed for the GEMM once, at init. A run
 * works on blocks of tiles (in raster order, per image) sized so that the
 * block's V and M matrices stay in L2 between the input transform writing
 * V, the GEMMs, and the output transform reading M; the output transform
 * applies the epilogue (bias, residual, activation) to each output row it
 * writes. Threads take whole blocks (each its own scratch slot) when there
 * are enough, else each block's transforms and GEMMs are split across them,
 * as in conv.c. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/cpu/nn/conv.h"
#include "core/ir/tensor.h"
#include "core/simd/gemm.h"
#include "core/simd/kernels.h"

#define WG_MATS 16 /* 4x4 transformed tile: one product per element */
#define WG_SEG 64  /* tiles of one tile row transformed together (stack buffers) */
/* V and M of one block: half of a 2 MiB L2 ... */
#ifndef WG_BLOCK_BYTES
#define WG_BLOCK_BYTES (1024 * 1024)
#endif
/* ... but no fewer tiles than this per block, which the weights (16 Cin x
 * Cout matrices, several MiB for 256 channels, re-read for every block)
 * need to pay for their reading: resnet50's 256-channel 14x14 layers ran
 * 20 % faster in one block of 49 tiles (1.5 MiB) than in two. */
#ifndef WG_MIN_BLOCK
#define WG_MIN_BLOCK 64
#endif
/* Below these channel counts the GEMMs are too thin (and the transforms,
 * linear in the channels, too large a share) for Winograd to pay. */
#define WG_MIN_CIN 16
#define WG_MIN_COUT 16

/* ---- algorithm override ---- */

static atomic_int conv_algo_forced = -1; /* kn_conv_algo_force's, or -1 */
static atomic_int conv_algo_env = -1;    /* KILN_CONV_ALGO, parsed on first use */

static int parse_algo(const char *s)
{
    if (s && strcmp(s, "im2col") == 0)
        return KN_CONV_ALGO_IM2COL;
    if (s && strcmp(s, "winograd") == 0)
        return KN_CONV_ALGO_WINOGRAD;
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
               p->cout > 0;
    if (!fits)
        return 0;
    int algo = kn_conv_algo();
    if (algo != KN_CONV_ALGO_AUTO)
        return algo == KN_CONV_ALGO_WINOGRAD;
#ifdef KN_CONV_WINOGRAD_DEFAULT_OFF
    return 0;
#else
    return p->cin >= WG_MIN_CIN && p->cout >= WG_MIN_COUT;
#endif
}

/* U = G g G^T for one 3x3 kernel g, in double: the weights are transformed
 * once, so their rounding is the only error this step adds. */
static void transform_kernel(const float *g, double u[16])
{
    static const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
    double gg[4][3]; /* G g */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            gg[i][j] = G[i][0] * g[j] + G[i][1] * g[3 + j] + G[i][2] * g[6 + j];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            u[4 * i + j] = gg[i][0] * G[j][0] + gg[i][1] * G[j][1] + gg[i][2] * G[j][2];
}

/* The 16 matrices U_k[cout x cin], each packed for kn_sgemm into
 * p->wg_u + k * p->wg_u_bytes. */
static int transform_weights(kn_conv_params *p, const float *w, kn_err *err)
{
    size_t mat = (size_t)(p->cout * p->cin);
    float *u = malloc(sizeof(float) * mat * WG_MATS);
    p->wg_u_bytes = kn_align_up(kn_sgemm_packed_a_size(p->cout, p->cin), 64);
    p->wg_u = malloc(p->wg_u_bytes * WG_MATS);
    if (!u || !p->wg_u) {
        free(u);
        free(p->wg_u);
        p->wg_u = NULL;
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "Conv: out of memory transforming weights");
    }
    for (size_t oc = 0; oc < mat; oc++) { /* oc: output channel x input channel */
        double t[16];
        transform_kernel(w + oc * 9, t);
        for (int k = 0; k < WG_MATS; k++)
            u[(size_t)k * mat + oc] = (float)t[k];
    }
    for (int k = 0; k < WG_MATS; k++)
        kn_sgemm_pack_a(0, p->cout, p->cin, u + (size_t)k * mat, p->cin,
                        (float *)((char *)p->wg_u + p->wg_u_bytes * (size_t)k));
    free(u);
    return KN_OK;
}

int kn_conv_winograd_plan(kn_conv_params *p, const float *const_w, int32_t threads, kn_err *err)
{
    const kn_window *w = &p->win;
    p->mode = KN_CONV_WINOGRAD;
    p->wg_th = (w->out[1] + 1) / 2;
    p->wg_tw = (w->out[2] + 1) / 2;
    int64_t tiles = p->wg_th * p->wg_tw;
    int64_t per_tile = WG_MATS * (p->cin + p->cout) * (int64_t)sizeof(float);
    int64_t most = WG_BLOCK_BYTES / per_tile > WG_MIN_BLOCK ? WG_BLOCK_BYTES / per_tile : WG_MIN_BLOCK;
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
    size_t cols = (size_t)p->wg_block * sizeof(float) * WG_MATS;
    p->wg_v_bytes = kn_align_up(cols * (size_t)p->cin, 64);
    p->wg_m_bytes = kn_align_up(cols * (size_t)p->cout, 64);
    p->wg_ws_bytes = kn_align_up(
        kn_sgemm_workspace_size(p->cout, p->wg_block, p->cin, p->tasks ? 1 : threads), 64);
    p->scratch_bytes = (p->wg_v_bytes + p->wg_m_bytes + p->wg_ws_bytes) *
                       (size_t)(p->tasks ? p->tasks : 1);
    return transform_weights(p, const_w, err);
}

/* ---- input transform: V = B^T d B ---- */

/* Even and odd columns x0 + 2i, x0 + 2i + 1 (i < n) of one input row, 0
 * outside the row (padding) or when row is NULL (a padding row). Split so
 * that the transforms below read both with unit stride. A row segment that
 * reaches into the padding is first copied into a zeroed line, so the
 * split itself never tests bounds (with padding 1, every tile row's first
 * segment does). */
static void gather_row(const float *row, int64_t width, int64_t x0, int64_t n,
                       float *restrict even, float *restrict odd)
{
    int64_t lo = x0 < 0 ? -x0 : 0, hi = width - x0 < 2 * n ? width - x0 : 2 * n;
    if (!row || hi <= lo) {
        memset(even, 0, sizeof(float) * (size_t)n);
        memset(odd, 0, sizeof(float) * (size_t)n);
        return;
    }
    float line[2 * (WG_SEG + 1)];
    const float *src = row + x0;
    if (lo > 0 || hi < 2 * n) {
        memset(line, 0, sizeof(float) * (size_t)(2 * n));
        memcpy(line + lo, row + x0 + lo, sizeof(float) * (size_t)(hi - lo));
        src = line;
    }
    for (int64_t i = 0; i < n; i++) {
        even[i] = src[2 * i];
        odd[i] = src[2 * i + 1];
    }
}

/* B^T down 4 rows: (d0 - d2, d1 + d2, d2 - d1, d1 - d3) */
static void transform_rows(const float *restrict d0, const float *restrict d1,
                           const float *restrict d2, const float *restrict d3, float *restrict r0,
                           float *restrict r1, float *restrict r2, float *restrict r3, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        r0[i] = d0[i] - d2[i];
        r1[i] = d1[i] + d2[i];
        r2[i] = d2[i] - d1[i];
        r3[i] = d1[i] - d3[i];
    }
}

/* B^T across the columns of one row of tiles: tile i's columns 0..3 are
 * e[i], o[i], en[i], on[i] (en, on: e and o from their second element; as
 * separate pointers clang vectorises the loop, as e[i + 1] it keeps the
 * value from the previous iteration instead and does not). */
static void transform_cols(const float *restrict e, const float *restrict o,
                           const float *restrict en, const float *restrict on, float *restrict v0,
                           float *restrict v1, float *restrict v2, float *restrict v3, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        v0[i] = e[i] - en[i];
        v1[i] = o[i] + en[i];
        v2[i] = en[i] - o[i];
        v3[i] = o[i] - on[i];
    }
}

/* Tiles (ty, tx .. tx + len) of one channel plane into V: element k of
 * tile i goes to v[k * kstride + i]. Tile (ty, tx) starts at input row
 * 2 ty - pad_top, column 2 tx - pad_left. */
static void transform_input_segment(const kn_conv_params *p, const float *plane, int64_t ty,
                                    int64_t tx, int64_t len, float *v, int64_t kstride)
{
    const kn_window *w = &p->win;
    float in[2][4][WG_SEG + 1], tr[2][4][WG_SEG + 1]; /* [even, odd][row][column pair] */
    int64_t y0 = 2 * ty - w->pad_begin[1], x0 = 2 * tx - w->pad_begin[2];
    for (int r = 0; r < 4; r++) {
        int64_t iy = y0 + r;
        const float *row = iy >= 0 && iy < w->in[1] ? plane + iy * w->in[2] : NULL;
        gather_row(row, w->in[2], x0, len + 1, in[0][r], in[1][r]);
    }
    for (int h = 0; h < 2; h++)
        transform_rows(in[h][0], in[h][1], in[h][2], in[h][3], tr[h][0], tr[h][1], tr[h][2],
                       tr[h][3], len + 1);
    for (int r = 0; r < 4; r++) {
        float *v0 = v + (4 * r) * kstride;
        transform_cols(tr[0][r], tr[1][r], tr[0][r] + 1, tr[1][r] + 1, v0, v0 + kstride,
                       v0 + 2 * kstride, v0 + 3 * kstride, len);
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
            int64_t ty = t / p->wg_tw, tx = t % p->wg_tw;
            int64_t len = p->wg_tw - tx < t1 - t ? p->wg_tw - tx : t1 - t;
            len = len < WG_SEG ? len : WG_SEG;
            transform_input_segment(p, plane, ty, tx, len, v + c * ld + (t - t0), kstride);
            t += len;
        }
    }
}

/* ---- output transform: Y = A^T M A, then the epilogue ---- */

typedef struct wg_epilogue {
    const float *bias, *z; /* z: the residual of this image, or NULL */
    const kn_activation *act;
} wg_epilogue;

/* Writes a (even output columns) and b (odd ones) interleaved into width
 * outputs of row, then adds bias and residual and applies the activation. */
static void store_row(const float *restrict a, const float *restrict b, float *restrict y,
                      int64_t off, int64_t width, float bias, const wg_epilogue *ep)
{
    float *restrict row = y + off;
    for (int64_t i = 0; i < width / 2; i++) {
        row[2 * i] = a[i];
        row[2 * i + 1] = b[i];
    }
    if (width & 1)
        row[width - 1] = a[width / 2];
    int act = ep->act && ep->act->kind != KN_ACT_NONE;
    if (bias != 0.0f || ep->z || act)
        kn_simd()->bias_act(row, width, bias, ep->z ? ep->z + off : NULL, ep->act);
}

/* A^T down the 4 rows of one column of M: (m0 + m1 + m2, m1 - m2 - m3) */
static void reduce_rows(const float *restrict m0, const float *restrict m1,
                        const float *restrict m2, const float *restrict m3, float *restrict s0,
                        float *restrict s1, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        s0[i] = m0[i] + m1[i] + m2[i];
        s1[i] = m1[i] - m2[i] - m3[i];
    }
}

/* A^T across the 4 columns: (c0 + c1 + c2, c1 - c2 - c3) */
static void reduce_cols(const float *restrict c0, const float *restrict c1,
                        const float *restrict c2, const float *restrict c3, float *restrict y0,
                        float *restrict y1, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        y0[i] = c0[i] + c1[i] + c2[i];
        y1[i] = c1[i] - c2[i] - c3[i];
    }
}

/* Tiles (ty, tx .. tx + len) of one output channel from its M row m
 * (element k of tile i at m[k * kstride + i]) into the output plane y. */
static void transform_output_segment(const kn_conv_params *p, const float *m, int64_t kstride,
                                     int64_t ty, int64_t tx, int64_t len, float *y,
                                     int64_t plane_off, float bias, const wg_epilogue *ep)
{
    float s[2][4][WG_SEG], out[2][2][WG_SEG]; /* [output row][tile column][tile] */
    for (int j = 0; j < 4; j++)
        reduce_rows(m + j * kstride, m + (4 + j) * kstride, m + (8 + j) * kstride,
                    m + (12 + j) * kstride, s[0][j], s[1][j], len);
    for (int r = 0; r < 2; r++)
        reduce_cols(s[r][0], s[r][1], s[r][2], s[r][3], out[r][0], out[r][1], len);
    int64_t oh = p->win.out[1], ow = p->win.out[2];
    int64_t oy = 2 * ty, ox = 2 * tx;
    int64_t width = 2 * len < ow - ox ? 2 * len : ow - ox; /* the last tile may be cut */
    for (int r = 0; r < 2 && oy + r < oh; r++)
        store_row(out[r][0], out[r][1], y, plane_off + (oy + r) * ow + ox, width, bias, ep);
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
            int64_t ty = t / p->wg_tw, tx = t % p->wg_tw;
            int64_t len = p->wg_tw - tx < t1 - t ? p->wg_tw - tx : t1 - t;
            len = len < WG_SEG ? len : WG_SEG;
            transform_output_segment(p, mat + co * ld + (t - t0), kstride, ty, tx, len, y,
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
    j->v = (float *)slot;
    j->m = (float *)(slot + p->wg_v_bytes);
    j->ep = (wg_epilogue){.bias = j->bias,
                          .z = j->z ? j->z + n * p->cout * p->out_size : NULL,
                          .act = j->act};
    int64_t cols = j->t1 - j->t0, ld = p->wg_block;
    if (pool)
        kn_parallel_for(pool, p->cin, 1 + 4096 / (16 * cols), input_channels, j);
    else
        transform_input(p, j->xn, j->v, j->t0, j->t1, 0, p->cin);
    if (cols < 2) /* the GEMMs take 2 columns (plan); keep the spare one finite */
        for (int64_t r = 0; r < WG_MATS * p->cin; r++)
            j->v[r * ld + 1] = 0.0f;
    for (int k = 0; k < WG_MATS; k++) {
        kn_sgemm_args g = {
            .m = p->cout, .n = cols < 2 ? 2 : cols, .k = p->cin, .alpha = 1, .beta = 0,
            .b = j->v + k * p->cin * ld, .ldb = ld,
            .c = j->m + k * p->cout * ld, .ldc = ld,
            .packed_a = (const float *)((const char *)p->wg_u + p->wg_u_bytes * (size_t)k),
        };
        kn_sgemm(pool, &g, slot + p->wg_v_bytes + p->wg_m_bytes, p->wg_ws_bytes);
    }
    if (pool)
        kn_parallel_for(pool, p->cout, 1 + 4096 / (16 * cols), output_channels, j);
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
    char *slot = shared->scratch + (size_t)begin * (p->wg_v_bytes + p->wg_m_bytes + p->wg_ws_bytes);
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
