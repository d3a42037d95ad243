/* Convolution as a reusable internal routine: Conv (conv.c) and fused
 * convolutions (conv + bias + residual + activation) share it.
 *
 *   y = act(conv(x, w) + bias + z)
 *
 * x is N x Cin x spatial (1-D to 3-D, NCHW), w is Cout x Cin/group x
 * kernel, bias is Cout or NULL, z (the residual) has y's shape or is NULL.
 *
 * Use: kn_conv_init once (shapes known; packs constant weights), reserve
 * p->scratch_bytes of 64-byte aligned scratch, then run as often as
 * wanted; kn_conv_release frees what init allocated. Paths, chosen by
 * init: im2col + GEMM; pointwise (1x1, stride 1, no padding) GEMM on the
 * input itself; depthwise (one input channel per group) as a direct SIMD
 * kernel for float 2-D windows without dilation, else a portable loop;
 * Winograd F(2x2, 3x3) or F(4x4, 3x3) for float 3x3 stride-1 convolutions
 * with constant weights and enough channels (conv_winograd.c). */
#ifndef KN_CPU_CONV_H
#define KN_CPU_CONV_H

#include <stddef.h>
#include <stdint.h>

#include "core/simd/activation.h"
#include "core/base/status.h"
#include "core/base/thread_pool.h"
#include "core/kernel/im2col.h"

enum { KN_CONV_GEMM, KN_CONV_POINTWISE, KN_CONV_DEPTHWISE, KN_CONV_WINOGRAD };

/* Which algorithm 3x3 stride-1 convolutions take: the environment variable
 * KILN_CONV_ALGO (im2col | winograd | winograd2 | winograd4 | auto, read
 * once, default auto), unless a test forced one. WINOGRAD lets init pick
 * the tile size, WINOGRAD2 / WINOGRAD4 force F(2x2, 3x3) / F(4x4, 3x3).
 * Under any of them a convolution Winograd cannot run (strides, groups,
 * double, weights computed at run time) stays on im2col. */
enum {
    KN_CONV_ALGO_AUTO,
    KN_CONV_ALGO_IM2COL,
    KN_CONV_ALGO_WINOGRAD,
    KN_CONV_ALGO_WINOGRAD2,
    KN_CONV_ALGO_WINOGRAD4
};
int kn_conv_algo(void);
/* For tests and benchmarks: force an algorithm for the convolutions
 * initialised from now on; a negative value returns to the environment's. */
void kn_conv_algo_force(int algo);

typedef struct kn_conv_params {
    kn_window win;
    int32_t dtype, mode;
    int64_t batch, cin, cout, group, cg, mg;
    int64_t kdim;              /* GEMM depth: cg * kernel volume */
    int64_t in_size, out_size; /* spatial element counts */
    size_t scratch_bytes;      /* what one run needs */

    /* GEMM paths */
    int64_t block;              /* output columns per block */
    int64_t items;              /* batch x group x blocks */
    int32_t tasks;              /* > 0: blocks in parallel with this many slots */
    size_t col_bytes, ws_bytes; /* per slot: column block, GEMM workspace */
    void *packed_w;             /* constant weights packed for the GEMM, per group; or NULL */
    size_t packed_group_bytes;
    int pack_at_run;            /* weights not constant: pack them into scratch per run */
    size_t slots_bytes;         /* scratch before the run-time packed weights */

    /* depthwise */
    int dw_direct;              /* the SIMD kernel applies (float, 2-D, no dilation) */
    int64_t dw_ph, dw_pw;       /* padded input plane */
    size_t dw_slot_bytes;       /* one padded plane per task */
    int32_t dw_tasks;

    /* Winograd F(m x m, 3x3): (m + 2)^2 input tiles at stride m, each giving
     * m x m outputs */
    int32_t wg_m;               /* 2 or 4 */
    int32_t wg_mats;            /* (m + 2)^2: products per tile */
    int64_t wg_th, wg_tw;       /* tile rows and columns of one image */
    int64_t wg_block;           /* tiles per block (the GEMMs' n) */
    int64_t wg_blocks;          /* blocks per image */
    size_t wg_v_bytes, wg_m_bytes, wg_ws_bytes; /* per slot: transformed input, products,
                                                   GEMM workspace (each of wg_gemm_tasks) */
    size_t wg_slot_bytes;
    int32_t wg_gemm_tasks;      /* products run side by side in a split block */
    void *wg_u;                 /* wg_mats transformed weight matrices, each packed for the GEMM */
    size_t wg_u_bytes;          /* one packed matrix */
} kn_conv_params;

/* dtype: KN_FLOAT or KN_DOUBLE. const_w: the weights when they are
 * constant (packed now), else NULL (packed per run). threads: the pool's
 * thread count. Fails only when out of memory. */
int kn_conv_init(kn_conv_params *p, int32_t dtype, const kn_window *win, int64_t batch,
                 int64_t cin, int64_t cout, int64_t group, const void *const_w, int32_t threads,
                 kn_err *err);
void kn_conv_release(kn_conv_params *p); /* NULL-safe; leaves p reusable by init */

/* Float convolution with fused epilogue; bias, z and act may be NULL.
 * scratch: p->scratch_bytes, 64-byte aligned. */
void kn_conv_f32(const kn_conv_params *p, const float *x, const float *w, const float *bias,
                 const float *z, const kn_activation *act, float *y, void *scratch,
                 kn_threadpool *pool);

/* Same for p->dtype (float or double); the epilogue (z, act) is float
 * only: pass NULL for double. */
void kn_conv_run(const kn_conv_params *p, const void *x, const void *w, const void *bias,
                 const void *z, const kn_activation *act, void *y, void *scratch,
                 kn_threadpool *pool);

/* Depthwise paths (conv_depthwise.c), called by kn_conv_run. */
void kn_conv_depthwise_plan(kn_conv_params *p, int32_t threads);
void kn_conv_depthwise_run(const kn_conv_params *p, const void *x, const void *w,
                           const void *bias, const void *z, const kn_activation *act, void *y,
                           void *scratch, kn_threadpool *pool);

/* Winograd path (conv_winograd.c), called by kn_conv_init and
 * kn_conv_run. applies: the shape, dtype, weights and kn_conv_algo() allow
 * it (p has its shapes filled in). plan: sets mode, tasks and scratch and
 * transforms the constant weights; fails only when out of memory. */
int kn_conv_winograd_applies(const kn_conv_params *p, const void *const_w);
int kn_conv_winograd_plan(kn_conv_params *p, const float *const_w, int32_t threads, kn_err *err);
void kn_conv_winograd_run(const kn_conv_params *p, const float *x, const float *bias,
                          const float *z, const kn_activation *act, float *y, void *scratch,
                          kn_threadpool *pool);

#endif
