/* Conv (opsets 1 and 11, same semantics): 1-D to 3-D, groups, strides,
 * dilations, pads / auto_pad, optional bias; float and double, and
 * float16 / bfloat16 through the float path (half_path.h). The op checks
 * its node and shapes here; the arithmetic is kn_conv_run (conv.h), which
 * fused convolutions share.
 *
 * Three paths, chosen once by kn_conv_init:
 *  - GEMM: per image and group, im2col into scratch, then
 *    Y_g[Mg x OS] = W_g[Mg x Cg*K] * col[Cg*K x OS] + bias;
 *  - POINTWISE: 1x1 kernel, stride 1, no padding: the input already is the
 *    column matrix, so the GEMM reads it directly;
 *  - DEPTHWISE: one input channel per group (group > 1), conv_depthwise.c;
 *  - WINOGRAD: float 3x3, stride 1, group 1, constant weights, enough
 *    channels: F(2x2, 3x3) or F(4x4, 3x3) in conv_winograd.c, 2.25x or 4x
 *    fewer multiplies.
 *
 * The GEMM paths work on blocks of output columns: the column matrix of a
 * block is sized to stay in L2 between im2col writing it and the GEMM
 * reading it (a whole-image column matrix is often several MiB and would
 * make the round trip through main memory). With enough blocks each thread
 * takes whole blocks (its own scratch slot, serial GEMM); with few, each
 * block is split across threads instead. Constant weights are packed for
 * the GEMM once, at init. The epilogue (residual, activation) runs on each
 * block's rows right after its GEMM, while they are still in cache. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/cpu/nn/conv.h"
#include "core/kernel/op.h"
#include "core/simd/kernels.h"
#include "core/simd/gemm.h"
#include "core/kernel/half_path.h"
#include "core/kernel/im2col.h"
#include "core/kernel/tensor_common.h"

typedef struct conv_state {
    kn_conv_params p;
} conv_state;

static void conv_release(kn_kctx *k)
{
    conv_state *st = k->state;
    if (st)
        kn_conv_release(&st->p);
    free(st);
    k->state = NULL;
}

static void pack_weights(const kn_conv_params *st, const void *w, void *dst)
{
    size_t esz = kn_dtype_size(st->dtype);
    for (int64_t g = 0; g < st->group; g++)
        kn_gemm_pack_a(st->dtype, 0, st->mg, st->kdim,
                       (const char *)w + (size_t)(g * st->mg * st->kdim) * esz, st->kdim,
                       (char *)dst + st->packed_group_bytes * (size_t)g);
}

int kn_conv_init(kn_conv_params *st, int32_t dtype, const kn_window *win, int64_t batch,
                 int64_t cin, int64_t cout, int64_t group, const void *const_w, int32_t threads,
                 kn_err *err)
{
    memset(st, 0, sizeof *st);
    st->win = *win;
    st->dtype = dtype;
    st->batch = batch;
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
    st->mode = group > 1 && st->cg == 1 ? KN_CONV_DEPTHWISE
               : pointwise              ? KN_CONV_POINTWISE
                                        : KN_CONV_GEMM;
    if (st->mode == KN_CONV_DEPTHWISE) {
        kn_conv_depthwise_plan(st, threads);
        return KN_OK;
    }
    if (kn_conv_winograd_applies(st, const_w))
        return kn_conv_winograd_plan(st, const_w, threads, err);

    size_t esz = kn_dtype_size(dtype);
    /* ~256 KiB of column matrix per block, whole GEMM panels (16) */
    int64_t block = (int64_t)(256 * 1024 / esz) / (st->kdim > 0 ? st->kdim : 1);
    block = block < 64 ? 64 : block & ~(int64_t)15;
    block = block < st->out_size ? block : st->out_size;
    st->block = block > 0 ? block : 1;
    st->items = st->batch * group * ((st->out_size + st->block - 1) / st->block);
    st->tasks = threads == 1 || st->items >= 2 * (int64_t)threads ? threads : 0;
    if (st->mode == KN_CONV_GEMM)
        st->col_bytes = kn_align_up((size_t)st->kdim * (size_t)st->block * esz, 64);
    st->ws_bytes = kn_gemm_workspace_size(dtype, st->mg, st->block, st->kdim,
                                          st->tasks ? 1 : threads);
    st->ws_bytes = kn_align_up(st->ws_bytes, 64);
    st->scratch_bytes = (st->col_bytes + st->ws_bytes) * (size_t)(st->tasks ? st->tasks : 1);

    /* Weights are packed for the GEMM once, not once per block: here when
     * they are constant, else at the start of each run. Packing per block
     * would cost as much as the arithmetic on small images (7x7 planes
     * with 512 channels). */
    if (st->mg < 2 || st->out_size < 2)
        return KN_OK;
    st->packed_group_bytes = kn_align_up(kn_gemm_packed_a_size(dtype, st->mg, st->kdim), 64);
    st->slots_bytes = st->scratch_bytes;
    if (!const_w) {
        st->pack_at_run = 1;
        st->scratch_bytes += st->packed_group_bytes * (size_t)group;
        return KN_OK;
    }
    st->packed_w = malloc(st->packed_group_bytes * (size_t)group);
    if (!st->packed_w)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "Conv: out of memory packing weights");
    pack_weights(st, const_w, st->packed_w);
    return KN_OK;
}

void kn_conv_release(kn_conv_params *p)
{
    if (!p)
        return;
    free(p->packed_w);
    p->packed_w = NULL;
    free(p->wg_u);
    p->wg_u = NULL;
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
    k->state = st;
    int32_t nsp = x->rank - 2;
    kn_window win;
    kn_window_opts opts = {.op = "Conv", .kernel = w->dims + 2, .dilations = 1};
    int rc = kn_window_init(&win, k->node, x->dims + 2, nsp, &opts, k->err);
    if (rc == KN_OK)
        rc = kn_conv_init(&st->p, x->dtype, &win, x->dims[0], cin, cout, group, w->data,
                          kn_threadpool_threads(k->threads), k->err);
    if (rc != KN_OK) {
        conv_release(k);
        return rc;
    }
    k->scratch_bytes = st->p.scratch_bytes;

    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = x->rank;
    y->dims[0] = x->dims[0];
    y->dims[1] = cout;
    for (int32_t i = 0; i < nsp; i++)
        y->dims[2 + i] = win.out[KN_WIN_DIMS - nsp + i];
    return KN_OK;
}

typedef struct gemm_job {
    const kn_conv_params *st;
    const char *x, *w, *b;
    char *y;
    const float *z;           /* epilogue (float only): residual, activation */
    const kn_activation *act;
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
    const kn_conv_params *st = j->st;
    size_t esz = kn_dtype_size(st->dtype);
    int64_t blocks = (st->out_size + st->block - 1) / st->block;
    int64_t n = item / (st->group * blocks), g = (item / blocks) % st->group;
    int64_t c0 = (item % blocks) * st->block;
    int64_t c1 = c0 + st->block < st->out_size ? c0 + st->block : st->out_size;
    const char *xg = j->x + (size_t)((n * st->cin + g * st->cg) * st->in_size) * esz;
    const void *bmat = xg + (size_t)c0 * esz;
    int64_t ldb = st->out_size;
    if (st->mode == KN_CONV_GEMM) {
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
    if (j->z || (j->act && j->act->kind != KN_ACT_NONE)) {
        const kn_simd_kernels *ks = kn_simd();
        for (int64_t m = 0; m < st->mg; m++) {
            int64_t off = (n * st->cout + g * st->mg + m) * st->out_size + c0;
            ks->bias_act((float *)j->y + off, c1 - c0, 0.0f, j->z ? j->z + off : NULL, j->act);
        }
    }
}

/* Parallel blocks: task `begin` owns scratch slot `begin` and takes blocks
 * from a shared counter until none are left. The job copy keeps the
 * per-block im2col fields private to the task. */
static void conv_task(void *ctx, int64_t begin, int64_t end)
{
    gemm_job *shared = ctx;
    gemm_job j = {.st = shared->st, .x = shared->x, .w = shared->w, .b = shared->b,
                  .y = shared->y, .z = shared->z, .act = shared->act, .packed = shared->packed};
    char *slot = shared->scratch + (size_t)begin * (shared->st->col_bytes + shared->st->ws_bytes);
    (void)end;
    for (;;) {
        int64_t item = atomic_fetch_add(&shared->next, 1);
        if (item >= shared->st->items)
            break;
        conv_block(&j, item, slot, NULL);
    }
}

void kn_conv_run(const kn_conv_params *st, const void *x, const void *w, const void *bias,
                 const void *z, const kn_activation *act, void *y, void *scratch,
                 kn_threadpool *pool)
{
    if (st->batch == 0 || st->out_size == 0 || st->cout == 0)
        return;
    if (st->dtype != KN_FLOAT) /* the epilogue is float only */
        z = NULL, act = NULL;
    if (st->mode == KN_CONV_DEPTHWISE) {
        kn_conv_depthwise_run(st, x, w, bias, z, act, y, scratch, pool);
        return;
    }
    if (st->mode == KN_CONV_WINOGRAD) {
        kn_conv_winograd_run(st, x, bias, z, act, y, scratch, pool);
        return;
    }
    const char *packed = st->packed_w;
    if (st->pack_at_run) {
        packed = (char *)scratch + st->slots_bytes;
        pack_weights(st, w, (void *)packed);
    }
    gemm_job j = {.st = st, .x = x, .w = w, .b = bias, .y = y, .z = z, .act = act,
                  .scratch = scratch, .packed = packed, .pool = pool};
    atomic_init(&j.next, 0);
    if (st->tasks > 1) {
        kn_parallel_for(pool, st->tasks, 1, conv_task, &j);
    } else {
        kn_threadpool *inner = st->tasks == 1 ? NULL : pool;
        for (int64_t item = 0; item < st->items; item++)
            conv_block(&j, item, scratch, inner);
    }
}

void kn_conv_f32(const kn_conv_params *p, const float *x, const float *w, const float *bias,
                 const float *z, const kn_activation *act, float *y, void *scratch,
                 kn_threadpool *pool)
{
    kn_conv_run(p, x, w, bias, z, act, y, scratch, pool);
}

static int conv_run(kn_kctx *k)
{
    const conv_state *st = k->state;
    const kn_tensor *b = k->n_in > 2 ? k->in[2] : NULL;
    kn_conv_run(&st->p, k->in[0]->data, k->in[1]->data, b ? b->data : NULL, NULL, NULL,
                k->out[0]->data, k->scratch, k->threads);
    return KN_OK;
}

/* float16 and bfloat16 run the float code above on widened copies
 * (half_path.h); constant W and B are widened once, in prepare (and W then
 * packed from the float copy). bfloat16 arrived with opset 22. */
static const kn_half_spec conv_half = {.prepare = conv_prepare, .run = conv_run,
                                       .release = conv_release, .widen = 0x7,
                                       .widen_once = 0x6, .bf16_since = 22};
KN_HALF_ENTRY_POINTS(conv, conv_half)

const kn_op_def kn_op_conv_1 = {
    .op_type = "Conv", .since_version = 1, .until_version = 10,
    .dtypes = KN_MASK_FLOATS | KN_BIT(KN_FLOAT16), .prepare = conv_any_prepare,
    .run = conv_any_run, .release = conv_any_release
};
const kn_op_def kn_op_conv_11 = {
    .op_type = "Conv", .since_version = 11, .dtypes = KN_MASK_FLOATS | KN_MASK_HALF,
    .prepare = conv_any_prepare, .run = conv_any_run, .release = conv_any_release
};
