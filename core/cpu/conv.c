/* Conv (opsets 1 and 11, same semantics): 1-D to 3-D, groups, strides,
 * dilations, pads / auto_pad, optional bias; float and double, and
 * float16 / bfloat16 through the float path (half_path.h).
 *
 * Three paths, chosen once in prepare():
 *  - GEMM: per image and group, im2col into scratch, then
 *    Y_g[Mg x OS] = W_g[Mg x Cg*K] * col[Cg*K x OS] + bias;
 *  - POINTWISE: 1x1 kernel, stride 1, no padding: the input already is the
 *    column matrix, so the GEMM reads it directly;
 *  - DEPTHWISE: one input channel per group (group > 1): each output plane
 *    accumulates the kernel taps as shifted, scaled input rows, skipping
 *    im2col and a GEMM that would have one row.
 *
 * The GEMM paths work on blocks of output columns: the column matrix of a
 * block is sized to stay in L2 between im2col writing it and the GEMM
 * reading it (a whole-image column matrix is often several MiB and would
 * make the round trip through main memory). With enough blocks each thread
 * takes whole blocks (its own scratch slot, serial GEMM); with few, each
 * block is split across threads instead. Constant weights are packed for
 * the GEMM once, in prepare(). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/op.h"
#include "gemm.h"
#include "half_path.h"
#include "im2col.h"
#include "tensor_common.h"

enum { CONV_GEMM, CONV_POINTWISE, CONV_DEPTHWISE };

typedef struct conv_state {
    kn_window win;
    int32_t dtype, mode;
    int64_t batch, cin, cout, group, cg, mg;
    int64_t kdim;             /* GEMM depth: cg * kernel volume */
    int64_t in_size, out_size; /* spatial element counts */
    int64_t block;             /* output columns per block */
    int64_t items;             /* batch x group x blocks */
    int32_t tasks;             /* > 0: blocks in parallel with this many slots */
    size_t col_bytes, ws_bytes; /* per slot: column block, GEMM workspace */
    void *packed_w;            /* constant weights packed for the GEMM, per group; or NULL */
    size_t packed_group_bytes;
    int pack_at_run;           /* weights not constant: pack them into scratch per run */
    size_t slots_bytes;        /* scratch before the run-time packed weights */
} conv_state;

static void conv_release(kn_kctx *k)
{
    conv_state *st = k->state;
    if (st)
        free(st->packed_w);
    free(st);
    k->state = NULL;
}

static void pack_weights(const conv_state *st, const void *w, void *dst)
{
    size_t esz = kn_dtype_size(st->dtype);
    for (int64_t g = 0; g < st->group; g++)
        kn_gemm_pack_a(st->dtype, 0, st->mg, st->kdim,
                       (const char *)w + (size_t)(g * st->mg * st->kdim) * esz, st->kdim,
                       (char *)dst + st->packed_group_bytes * (size_t)g);
}

static int conv_prepare(kn_kctx *k)
{
    const kn_tensor *x = k->in[0], *w = k->n_in > 1 ? k->in[1] : NULL;
    const kn_tensor *b = k->n_in > 2 ? k->in[2] : NULL;
    if (!x || !w)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Conv: inputs X and W are required");
    if (w->dtype != x->dtype || (b && b->dtype != x->dtype))
        return kn_fail(k->err, KN_ERR_DTYPE, "Conv: X is %s but %s is %s", kn_dtype_name(x->dtype),
                       w->dtype != x->dtype ? "W" : "B",
                       kn_dtype_name(w->dtype != x->dtype ? w->dtype : b->dtype));
    if (x->rank < 3)
        return kn_fail(k->err, KN_ERR_SHAPE, "Conv: X has rank %d, expected N x C x spatial",
                       (int)x->rank);
    if (w->rank != x->rank)
        return kn_fail(k->err, KN_ERR_SHAPE, "Conv: W has rank %d but X has rank %d", (int)w->rank,
                       (int)x->rank);
    int64_t group = kn_attr_int(k->node, "group", 1);
    if (group < 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Conv: group %lld must be >= 1",
                       (long long)group);
    int64_t cin = x->dims[1], cout = w->dims[0];
    if (cin % group != 0 || cout % group != 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "Conv: group %lld does not divide input channels %lld and output "
                       "channels %lld",
                       (long long)group, (long long)cin, (long long)cout);
    if (w->dims[1] * group != cin)
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "Conv: input channels %lld do not match weight channels %lld x group %lld",
                       (long long)cin, (long long)w->dims[1], (long long)group);
    if (b && (b->rank != 1 || b->dims[0] != cout))
        return kn_fail(k->err, KN_ERR_SHAPE, "Conv: bias must be 1-D of %lld (output channels)",
                       (long long)cout);

    conv_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Conv: out of memory");
    int32_t nsp = x->rank - 2;
    kn_window_opts opts = {.op = "Conv", .kernel = w->dims + 2, .dilations = 1};
    int rc = kn_window_init(&st->win, k->node, x->dims + 2, nsp, &opts, k->err);
    if (rc != KN_OK) {
        free(st);
        return rc;
    }
    k->state = st;

    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = x->rank;
    y->dims[0] = x->dims[0];
    y->dims[1] = cout;
    for (int32_t i = 0; i < nsp; i++)
        y->dims[2 + i] = st->win.out[KN_WIN_DIMS - nsp + i];

    st->dtype = x->dtype;
    st->batch = x->dims[0];
    st->cin = cin;
    st->cout = cout;
    st->group = group;
    st->cg = cin / group;
    st->mg = cout / group;
    st->kdim = st->cg * kn_window_kvol(&st->win);
    st->in_size = kn_window_in_size(&st->win);
    st->out_size = kn_window_out_size(&st->win);

    int pointwise = kn_window_kvol(&st->win) == 1;
    for (int32_t d = 0; d < KN_WIN_DIMS; d++)
        pointwise &= st->win.stride[d] == 1 && st->win.pad_begin[d] == 0 && st->win.pad_end[d] == 0;
    st->mode = group > 1 && st->cg == 1 ? CONV_DEPTHWISE : pointwise ? CONV_POINTWISE : CONV_GEMM;

    size_t esz = kn_dtype_size(x->dtype);
    if (st->mode != CONV_DEPTHWISE) {
        /* ~256 KiB of column matrix per block, whole GEMM panels (16) */
        int64_t block = (int64_t)(256 * 1024 / esz) / (st->kdim > 0 ? st->kdim : 1);
        block = block < 64 ? 64 : block & ~(int64_t)15;
        block = block < st->out_size ? block : st->out_size;
        st->block = block > 0 ? block : 1;
        st->items = st->batch * group * ((st->out_size + st->block - 1) / st->block);
        int32_t threads = kn_threadpool_threads(k->pool);
        st->tasks = threads == 1 || st->items >= 2 * (int64_t)threads ? threads : 0;
        if (st->mode == CONV_GEMM)
            st->col_bytes = ((size_t)st->kdim * (size_t)st->block * esz + 63) & ~(size_t)63;
        st->ws_bytes = kn_gemm_workspace_size(x->dtype, st->mg, st->block, st->kdim,
                                              st->tasks ? 1 : threads);
        st->ws_bytes = (st->ws_bytes + 63) & ~(size_t)63;
        k->scratch_bytes = (st->col_bytes + st->ws_bytes) * (size_t)(st->tasks ? st->tasks : 1);
    }

    /* Weights are packed for the GEMM once, not once per block: here when
     * they are constant, else at the start of each run. Packing per block
     * would cost as much as the arithmetic on small images (7x7 planes
     * with 512 channels). */
    if (st->mode == CONV_DEPTHWISE || st->mg < 2 || st->out_size < 2)
        return KN_OK;
    st->packed_group_bytes =
        (kn_gemm_packed_a_size(st->dtype, st->mg, st->kdim) + 63) & ~(size_t)63;
    st->slots_bytes = k->scratch_bytes;
    if (!w->data) {
        st->pack_at_run = 1;
        k->scratch_bytes += st->packed_group_bytes * (size_t)group;
    } else {
        st->packed_w = malloc(st->packed_group_bytes * (size_t)group);
        if (!st->packed_w) {
            conv_release(k);
            return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Conv: out of memory packing weights");
        }
        pack_weights(st, w->data, st->packed_w);
    }
    return KN_OK;
}

typedef struct gemm_job {
    const conv_state *st;
    const char *x, *w, *b;
    char *y;
    char *scratch;
    const char *packed;    /* weights packed for the GEMM, or NULL */
    kn_threadpool *pool;   /* for split blocks; NULL inside parallel tasks */
    atomic_int_fast64_t next; /* next block for parallel tasks */
    /* split blocks: the block being im2col'ed */
    const char *xg;
    char *col;
    int64_t c0, c1;
} gemm_job;

static void im2col_rows(void *ctx, int64_t begin, int64_t end)
{
    const gemm_job *j = ctx;
    kn_im2col(j->st->dtype, &j->st->win, j->xg, j->col, begin, end, j->c0, j->c1);
}

/* One block: output columns [c0, c1) of group g of image n, using the
 * column buffer and GEMM workspace of one slot. */
static void conv_block(gemm_job *j, int64_t item, char *slot, kn_threadpool *pool)
{
    const conv_state *st = j->st;
    size_t esz = kn_dtype_size(st->dtype);
    int64_t blocks = (st->out_size + st->block - 1) / st->block;
    int64_t n = item / (st->group * blocks), g = (item / blocks) % st->group;
    int64_t c0 = (item % blocks) * st->block;
    int64_t c1 = c0 + st->block < st->out_size ? c0 + st->block : st->out_size;
    const char *xg = j->x + (size_t)((n * st->cin + g * st->cg) * st->in_size) * esz;
    const void *bmat = xg + (size_t)c0 * esz;
    int64_t ldb = st->out_size;
    if (st->mode == CONV_GEMM) {
        j->xg = xg;
        j->col = slot;
        j->c0 = c0;
        j->c1 = c1;
        if (pool)
            kn_parallel_for(pool, st->kdim, 1 + 16384 / (c1 - c0), im2col_rows, j);
        else
            im2col_rows(j, 0, st->kdim);
        bmat = slot;
        ldb = c1 - c0;
    }
    kn_gemm_args ga = {
        .m = st->mg, .n = c1 - c0, .k = st->kdim, .alpha = 1, .beta = 0,
        .a = j->w + (size_t)(g * st->mg * st->kdim) * esz, .lda = st->kdim,
        .b = bmat, .ldb = ldb,
        .c = j->y + (size_t)((n * st->cout + g * st->mg) * st->out_size + c0) * esz,
        .ldc = st->out_size,
        .bias = j->b ? j->b + (size_t)(g * st->mg) * esz : NULL,
        .packed_a = j->packed ? j->packed + st->packed_group_bytes * (size_t)g : NULL,
    };
    kn_gemm(st->dtype, pool, &ga, slot + st->col_bytes, st->ws_bytes);
}

/* Parallel blocks: task `begin` owns scratch slot `begin` and takes blocks
 * from a shared counter until none are left. The job copy keeps the
 * per-block im2col fields private to the task. */
static void conv_task(void *ctx, int64_t begin, int64_t end)
{
    gemm_job *shared = ctx;
    gemm_job j = {shared->st, shared->x, shared->w, shared->b, shared->y, NULL, shared->packed,
                  NULL, 0, NULL, NULL, 0, 0};
    char *slot = shared->scratch + (size_t)begin * (shared->st->col_bytes + shared->st->ws_bytes);
    (void)end;
    for (;;) {
        int64_t item = atomic_fetch_add(&shared->next, 1);
        if (item >= shared->st->items)
            break;
        conv_block(&j, item, slot, NULL);
    }
}

/* Depthwise: for each output plane, y = bias + sum over taps of w[tap] *
 * (input shifted by the tap). Taps see contiguous output runs along the
 * last dim, so the stride-1 case is a plain scaled add. */
typedef struct dw_job {
    const conv_state *st;
    const void *x, *w, *b;
    void *y;
} dw_job;

#define KN_DEFINE_DEPTHWISE(T, SFX)                                                                \
    /* y[i] += a * x[i * sx]; restrict and fixed-width chunks let gcc -O2 */                       \
    /* vectorise the stride-1 case. */                                                             \
    static void axpy_##SFX(T *restrict y, const T *restrict x, int64_t sx, T a, int64_t len)       \
    {                                                                                              \
        int64_t i = 0;                                                                             \
        if (sx == 1)                                                                               \
            for (; i + 16 <= len; i += 16)                                                         \
                for (int l = 0; l < 16; l++)                                                       \
                    y[i + l] += a * x[i + l];                                                      \
        for (; i < len; i++)                                                                       \
            y[i] += a * x[i * sx];                                                                 \
    }                                                                                              \
    static void dw_plane_##SFX(const dw_job *j, int64_t plane)                                     \
    {                                                                                              \
        const conv_state *st = j->st;                                                              \
        const kn_window *w = &st->win;                                                             \
        int64_t n = plane / st->cout, m = plane % st->cout, g = m / st->mg;                        \
        const T *x = (const T *)j->x + (n * st->cin + g) * st->in_size;                            \
        const T *wt = (const T *)j->w + m * kn_window_kvol(w);                                     \
        T *y = (T *)j->y + plane * st->out_size;                                                   \
        T bias = j->b ? ((const T *)j->b)[m] : 0;                                                  \
        for (int64_t i = 0; i < st->out_size; i++)                                                 \
            y[i] = bias;                                                                           \
        const int64_t sw = w->stride[2];                                                           \
        for (int64_t t0 = 0; t0 < w->kernel[0]; t0++) {                                            \
            int64_t lo0, hi0;                                                                      \
            kn_window_outs(w, 0, t0, &lo0, &hi0);                                                  \
            for (int64_t t1 = 0; t1 < w->kernel[1]; t1++) {                                        \
                int64_t lo1, hi1;                                                                  \
                kn_window_outs(w, 1, t1, &lo1, &hi1);                                              \
                for (int64_t t2 = 0; t2 < w->kernel[2]; t2++) {                                    \
                    int64_t lo2, hi2;                                                              \
                    kn_window_outs(w, 2, t2, &lo2, &hi2);                                          \
                    T wv = *wt++;                                                                  \
                    int64_t len = hi2 - lo2;                                                       \
                    if (len <= 0)                                                                  \
                        continue;                                                                  \
                    int64_t iw = lo2 * sw - w->pad_begin[2] + t2 * w->dilation[2];                 \
                    for (int64_t o0 = lo0; o0 < hi0; o0++) {                                       \
                        int64_t i0 = o0 * w->stride[0] - w->pad_begin[0] + t0 * w->dilation[0];    \
                        for (int64_t o1 = lo1; o1 < hi1; o1++) {                                   \
                            int64_t i1 =                                                           \
                                o1 * w->stride[1] - w->pad_begin[1] + t1 * w->dilation[1];         \
                            axpy_##SFX(y + (o0 * w->out[1] + o1) * w->out[2] + lo2,                \
                                       x + (i0 * w->in[1] + i1) * w->in[2] + iw, sw, wv, len);     \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

KN_DEFINE_DEPTHWISE(float, f32)
KN_DEFINE_DEPTHWISE(double, f64)

static void dw_range(void *ctx, int64_t begin, int64_t end)
{
    const dw_job *j = ctx;
    for (int64_t p = begin; p < end; p++) {
        if (j->st->dtype == KN_DOUBLE)
            dw_plane_f64(j, p);
        else
            dw_plane_f32(j, p);
    }
}

static int conv_run(kn_kctx *k)
{
    const conv_state *st = k->state;
    const kn_tensor *b = k->n_in > 2 ? k->in[2] : NULL;
    const char *x = k->in[0]->data, *w = k->in[1]->data;
    char *y = k->out[0]->data;
    if (st->batch == 0 || st->out_size == 0 || st->cout == 0)
        return KN_OK;

    if (st->mode == CONV_DEPTHWISE) {
        dw_job j = {st, x, w, b ? b->data : NULL, y};
        int64_t grain = 1 + 16384 / (st->out_size * kn_window_kvol(&st->win) + 1);
        kn_parallel_for(k->pool, st->batch * st->cout, grain, dw_range, &j);
        return KN_OK;
    }

    const char *packed = st->packed_w;
    if (st->pack_at_run) {
        packed = (char *)k->scratch + st->slots_bytes;
        pack_weights(st, w, (void *)packed);
    }
    gemm_job j = {st, x, w, b ? b->data : NULL, y, k->scratch, packed, k->pool, 0, NULL, NULL,
                  0, 0};
    atomic_init(&j.next, 0);
    if (st->tasks > 1) {
        kn_parallel_for(k->pool, st->tasks, 1, conv_task, &j);
    } else {
        kn_threadpool *pool = st->tasks == 1 ? NULL : k->pool;
        for (int64_t item = 0; item < st->items; item++)
            conv_block(&j, item, k->scratch, pool);
    }
    return KN_OK;
}

/* float16 and bfloat16 run the float code above on widened copies
 * (half_path.h); constant W and B are widened once, in prepare (and W then
 * packed from the float copy). bfloat16 arrived with opset 22. */
static const kn_half_spec conv_half = {.prepare = conv_prepare, .run = conv_run,
                                       .release = conv_release, .widen = 0x7,
                                       .widen_once = 0x6, .bf16_since = 22};
KN_HALF_ENTRY_POINTS(conv, conv_half)

const kn_op_def kn_op_conv_1 = {"", "Conv", 1, 10, KN_MASK_FLOATS | KN_BIT(KN_FLOAT16),
                                KN_BACKEND_CPU, 0, conv_any_prepare, conv_any_run,
                                conv_any_release};
const kn_op_def kn_op_conv_11 = {"", "Conv", 11, 1000, KN_MASK_FLOATS | KN_MASK_HALF,
                                 KN_BACKEND_CPU, 0, conv_any_prepare, conv_any_run,
                                 conv_any_release};
