/* kiln.NhwcGlobalAveragePool on Kiln's own loop: Y[n, 0, 0, c] is the mean
 * over H x W of channel c of NHWC X.
 *
 * In NHWC the channels of one pixel are a contiguous row, so the pool is
 * the column sums of an (H W) x C block. The work is a grid of pixel
 * ranges x channel ranges: many pixels split by pixels (each range sums
 * into its own row of scratch, added up after in range order), few pixels
 * with many channels (the 7x7 maps before a classifier) by channels. Sums
 * run a block of rows at a time (kn_simd sum_rows), so no partial sum runs
 * over more than KN_GAP_BLOCK values.
 *
 * The pixel ranges follow from the shape alone, never from the thread
 * count: they decide the order of the additions, and a model's outputs
 * should not change in their last bits when it runs on more threads
 * (SqueezeNet's and EfficientNet-B0's did, from these pools). Channel
 * ranges change no sum and follow the threads.
 *
 * oneDNN 2.6's NHWC global pooling ran on one thread whatever the thread
 * count: EfficientNet-B0's 17 pools took 0.14 ms on 1 thread and 0.15 on
 * 2; here 0.12 and 0.10. */
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/kernel/tensor_common.h"
#include "core/simd/kernels.h"

/* pixels summed into a zeroed row before it joins the range's total */
#define KN_GAP_BLOCK 256
/* pixels per range: a few blocks, so that a large map splits into enough
 * ranges for the threads while each range's overhead (its scratch rows and
 * their final addition) stays small */
#define KN_GAP_RANGE_PIXELS (4 * KN_GAP_BLOCK)
/* channel ranges are whole cache lines of floats */
#define KN_GAP_CHANNEL_STEP 16

typedef struct gap_state {
    int64_t batch, pixels, channels;
    int64_t pixel_parts, channel_parts;
    size_t row_bytes; /* one scratch row of all channels, 64-byte aligned */
} gap_state;

typedef struct gap_job {
    const gap_state *st;
    const float *x; /* one image */
    char *scratch;  /* per pixel range: its total row, then its block row */
} gap_job;

static float *scratch_row(const gap_job *j, int64_t pixel_part, int which)
{
    return (float *)(j->scratch + (size_t)(2 * pixel_part + which) * j->st->row_bytes);
}

/* [lo, hi) of `total` split in `parts`, part `i`, on multiples of `step` */
static void split(int64_t total, int64_t parts, int64_t i, int64_t step, int64_t *lo, int64_t *hi)
{
    int64_t units = (total + step - 1) / step;
    *lo = units * i / parts * step;
    *hi = units * (i + 1) / parts * step;
    if (*hi > total)
        *hi = total;
}

static void gap_cells(void *ctx, int64_t begin, int64_t end)
{
    const gap_job *j = ctx;
    const gap_state *st = j->st;
    const kn_simd_kernels *ks = kn_simd();
    for (int64_t cell = begin; cell < end; cell++) {
        int64_t pp = cell / st->channel_parts, cp = cell % st->channel_parts;
        int64_t p0, p1, c0, c1;
        split(st->pixels, st->pixel_parts, pp, 1, &p0, &p1);
        split(st->channels, st->channel_parts, cp, KN_GAP_CHANNEL_STEP, &c0, &c1);
        int64_t width = c1 - c0;
        float *total = scratch_row(j, pp, 0) + c0, *block = scratch_row(j, pp, 1) + c0;
        memset(total, 0, (size_t)width * sizeof(float));
        for (int64_t p = p0; p < p1; p += KN_GAP_BLOCK) {
            int64_t rows = p1 - p < KN_GAP_BLOCK ? p1 - p : KN_GAP_BLOCK;
            memset(block, 0, (size_t)width * sizeof(float));
            ks->sum_rows(block, j->x + p * st->channels + c0, rows, width, st->channels);
            ks->binary(KN_BIN_ADD, total, total, 1, block, 1, width);
        }
    }
}

static int gap_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    if (x->dtype != KN_FLOAT || x->rank != 4)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED,
                       "NhwcGlobalAveragePool: float32 X of rank 4 only (got %s, rank %d)",
                       kn_dtype_name(x->dtype), (int)x->rank);
    gap_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "NhwcGlobalAveragePool: out of memory");
    st->batch = x->dims[0];
    st->pixels = x->dims[1] * x->dims[2];
    st->channels = x->dims[3];
    int64_t threads = kn_threadpool_threads(k->threads);
    int64_t by_pixels = (st->pixels + KN_GAP_RANGE_PIXELS - 1) / KN_GAP_RANGE_PIXELS;
    st->pixel_parts = by_pixels < 1 ? 1 : by_pixels;
    int64_t by_channels = (st->channels + KN_GAP_CHANNEL_STEP - 1) / KN_GAP_CHANNEL_STEP;
    int64_t left = (threads + st->pixel_parts - 1) / st->pixel_parts;
    st->channel_parts = by_channels < 1 ? 1 : by_channels > left ? left : by_channels;
    st->row_bytes = kn_align_up((size_t)st->channels * sizeof(float), 64);
    k->state = st;
    kn_tensor *y = k->out[0];
    y->dtype = KN_FLOAT;
    y->rank = 4;
    y->dims[0] = st->batch;
    y->dims[1] = 1;
    y->dims[2] = 1;
    y->dims[3] = st->channels;
    k->scratch_bytes = st->row_bytes * 2 * (size_t)st->pixel_parts + 64;
    return KN_OK;
}

static int gap_run(kn_kctx *k)
{
    const gap_state *st = k->state;
    const kn_simd_kernels *ks = kn_simd();
    /* scratch is 16-byte aligned; rows start on a cache line */
    char *scratch = (char *)kn_align_up((uintptr_t)k->scratch, 64);
    float *y = k->out[0]->data;
    const float *x = k->in[0]->data;
    const float inv = st->pixels > 0 ? 1.0f / (float)st->pixels : 0.0f;
    for (int64_t n = 0; n < st->batch; n++) {
        gap_job j = {st, x + n * st->pixels * st->channels, scratch};
        float *yn = y + n * st->channels;
        kn_parallel_for(k->threads, st->pixel_parts * st->channel_parts, 1, gap_cells, &j);
        memcpy(yn, scratch_row(&j, 0, 0), (size_t)st->channels * sizeof(float));
        for (int64_t pp = 1; pp < st->pixel_parts; pp++)
            ks->binary(KN_BIN_ADD, yn, yn, 1, scratch_row(&j, pp, 0), 1, st->channels);
        ks->binary(KN_BIN_MUL, yn, yn, 1, &inv, 0, st->channels);
    }
    return KN_OK;
}

static void gap_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_cpu_nhwc_global_average_pool = {
    .domain = "kiln", .op_type = "NhwcGlobalAveragePool", .since_version = 1,
    .until_version = 1, .dtypes = KN_BIT(KN_FLOAT), .prepare = gap_prepare, .run = gap_run,
    .release = gap_release
};
