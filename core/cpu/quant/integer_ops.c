/* Integer matrix products with exact int32 results: the engines of
 * quant_common.h (batched matmul, convolution) and the two ops that expose
 * them directly, MatMulInteger and ConvInteger (opset 10).
 *
 * The matmul: operands minus their zero points are small integers, held
 * as float; the shared float GEMM multiplies them QUANT_KC deep at a time,
 * where every float sum is exact (see quant_common.h), and each partial
 * product is added into the int32 result. Sums are added as uint32 so an
 * (allowed) int32 overflow wraps instead of being undefined.
 *
 * The convolution holds the image minus its zero point as int16 and
 * multiplies on the packed integer GEMM of core/simd/qgemm.h (im2col.h's
 * int16 im2col where the kernel is not 1x1: padding becomes 0, i.e. the
 * zero point, as the spec wants), weights packed once; depthwise ones go
 * channel by channel (quant_depthwise.c). Column blocks are sized to stay
 * in L2, and a caller's epilogue gets each panel of rows while in L1. */
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/cpu/quant/quant_common.h"
#include "core/kernel/tensor_common.h"
#include "core/simd/gemm.h"
#include "core/simd/qgemm.h"
#include "core/simd/qgemm_dot.h"

/* ---- scale / zero-point checks ---- */

int quant_check_pair(kn_kctx *k, const char *what, const kn_tensor *scale, const kn_tensor *zp,
                     int32_t zp_dtype, int64_t per)
{
    const char *op = k->node->op_type;
    const kn_tensor *ref = scale ? scale : zp;
    if (scale && !quant_is_scale_type(scale->dtype))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: %s_scale has type %s, expected float", op, what,
                       kn_dtype_name(scale->dtype));
    if (zp && zp->dtype != zp_dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: %s_zero_point has type %s but %s has %s", op,
                       what, kn_dtype_name(zp->dtype), what, kn_dtype_name(zp_dtype));
    if (!ref)
        return KN_OK;
    int64_t n = kn_tensor_numel(ref);
    if (!(n == 1 && ref->rank <= 1) && !(per > 0 && ref->rank == 1 && n == per))
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "%s: %s_%s must be a scalar%s, got %lld elements (rank %d)", op, what,
                       scale ? "scale" : "zero_point", per > 0 ? " or a vector of its rows/channels" : "",
                       (long long)n, (int)ref->rank);
    if (scale && zp && !kn_shape_equal(scale->dims, scale->rank, zp->dims, zp->rank))
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: %s_scale and %s_zero_point differ in shape", op,
                       what, what);
    return KN_OK;
}

/* ---- exact integer GEMM through float ---- */

/* acc[m x n] (ldc) = A[m x k] (lda) * B[k x n] (ldb) for float operands
 * holding integers in [-255, 255]; tmp holds m x n floats, ws is a GEMM
 * workspace of ws_bytes for these sizes (depth at most QUANT_KC). */
static void exact_gemm(kn_threadpool *pool, int64_t m, int64_t n, int64_t k, const float *a,
                       int64_t lda, const float *b, int64_t ldb, int32_t *acc, int64_t ldc,
                       float *tmp, void *ws, size_t ws_bytes)
{
    if (m <= 0 || n <= 0)
        return;
    if (k <= 0) {
        for (int64_t i = 0; i < m; i++)
            memset(acc + i * ldc, 0, (size_t)n * sizeof *acc);
        return;
    }
    for (int64_t p0 = 0; p0 < k; p0 += QUANT_KC) {
        int64_t kc = k - p0 < QUANT_KC ? k - p0 : QUANT_KC;
        kn_sgemm_args g = {.m = m, .n = n, .k = kc, .alpha = 1, .beta = 0, .a = a + p0,
                           .lda = lda, .b = b + p0 * ldb, .ldb = ldb, .c = tmp, .ldc = n};
        kn_sgemm(pool, &g, ws, ws_bytes);
        /* exact integers below 2^24: the conversions are exact too */
        for (int64_t i = 0; i < m; i++) {
            int32_t *c = acc + i * ldc;
            const float *t = tmp + i * n;
            if (p0 == 0)
                for (int64_t j = 0; j < n; j++)
                    c[j] = (int32_t)t[j];
            else
                for (int64_t j = 0; j < n; j++)
                    c[j] = (int32_t)((uint32_t)c[j] + (uint32_t)(int32_t)t[j]);
        }
    }
}

static size_t exact_gemm_ws(int64_t m, int64_t n, int64_t k, int32_t threads)
{
    return kn_align_up(kn_sgemm_workspace_size(m, n, k < QUANT_KC ? k : QUANT_KC, threads), 64);
}

/* n elements of an 8-bit tensor as float. */
static void widen(int32_t dtype, const void *src, float *dst, int64_t n)
{
    kn_convert(dtype, src, KN_FLOAT, dst, n);
}

/* ---- batched matmul ---- */

/* B - b_zp as float (zero point per tensor, per column, or per column of
 * each batch of B). */
static void widen_b(const quant_mm *mm, const void *b, const kn_tensor *b_zp, float *bf)
{
    widen(mm->b_dtype, b, bf, mm->b_numel);
    if (!b_zp)
        return;
    if (mm->b_zp_n == 1) {
        float z = (float)quant_zp_at(b_zp, 0);
        for (int64_t i = 0; i < mm->b_numel; i++)
            bf[i] -= z;
        return;
    }
    for (int64_t i = 0; i < mm->b_numel; i++) {
        int64_t col = i % mm->n, bat = i / (mm->k * mm->n);
        bf[i] -= (float)quant_zp_at(b_zp, mm->b_zp_n == mm->n ? col : bat * mm->n + col);
    }
}

static int zp_count_ok(int64_t got, int64_t per_tensor_rows, int64_t all_rows)
{
    return got == 1 || got == per_tensor_rows || got == all_rows;
}

/* ---- batched matmul on the int16 GEMM ---- */

/* A's zero point for row r of all batches' rows (per tensor, per row of
 * M, or one per row of every batch). */
static int32_t a_zp_of_row(const quant_mm *mm, const kn_tensor *a_zp, int64_t r)
{
    if (!a_zp)
        return 0;
    return quant_zp_at(a_zp, mm->a_zp_n == 1 ? 0 : mm->a_zp_n == mm->m ? r % mm->m : r);
}

/* The constant 2-D B less its zero points, packed once for qgemm.h; A's
 * rows (every batch of A multiplies the same B) are widened and packed per
 * run into the scratch this sizes. */
static int pack_b_int16(kn_kctx *k, quant_mm *mm, const void *b, const kn_tensor *b_zp)
{
    int64_t rows = mm->a_numel / mm->k;
    int16_t *wide = malloc((size_t)(mm->k * mm->n) * sizeof(int16_t));
    mm->b_packed = malloc(kn_qgemm_packed_b_len(mm->k, mm->n) * sizeof(int16_t));
    if (!wide || !mm->b_packed) {
        free(wide);
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    }
    for (int64_t i = 0; i < mm->k * mm->n; i++) {
        int32_t v = mm->b_dtype == KN_INT8 ? ((const int8_t *)b)[i] : ((const uint8_t *)b)[i];
        int32_t z = b_zp ? quant_zp_at(b_zp, mm->b_zp_n == 1 ? 0 : i % mm->n) : 0;
        wide[i] = (int16_t)(v - z);
    }
    kn_qgemm_pack_b(mm->k, mm->n, wide, mm->n, mm->b_packed);
    free(wide);
    mm->a_bytes = kn_align_up((size_t)(rows * mm->k) * sizeof(int16_t), 64) +
                  kn_align_up(kn_qgemm_packed_a_len(rows, mm->k) * sizeof(int16_t), 64);
    mm->b_bytes = mm->tmp_bytes = mm->ws_bytes = 0;
    return KN_OK;
}

typedef struct mm16_job {
    const quant_mm *mm;
    const int16_t *pa;
    int64_t rows, cols; /* columns per task, a multiple of KN_QGEMM_NR */
    int32_t *acc;
} mm16_job;

static void mm16_task(void *ctx, int64_t begin, int64_t end)
{
    const mm16_job *j = ctx;
    const quant_mm *mm = j->mm;
    size_t panel = (size_t)(kn_qgemm_pairs(mm->k) * KN_QGEMM_NR * 2);
    for (int64_t t = begin; t < end; t++) {
        int64_t n0 = t * j->cols, n = mm->n - n0 < j->cols ? mm->n - n0 : j->cols;
        kn_qgemm_packed(j->rows, n, mm->k, j->pa, mm->b_packed + (size_t)(n0 / KN_QGEMM_NR) * panel,
                        j->acc + n0, mm->n);
    }
}

/* B's columns go in blocks of about 384 KiB of packed B, which stay in L2
 * while every panel of A's rows passes them (a BERT-base FFN weight is
 * 4.5 MiB as int16: streamed once per 4 rows it would come from memory),
 * and at least one block per thread. */
static void run_int16(const quant_mm *mm, const void *a, const kn_tensor *a_zp, int32_t *acc,
                      void *scratch, kn_threadpool *pool)
{
    int64_t rows = mm->a_numel / mm->k;
    int16_t *a16 = scratch;
    int16_t *pa =
        (int16_t *)((char *)scratch + kn_align_up((size_t)(rows * mm->k) * sizeof(int16_t), 64));
    for (int64_t r = 0; r < rows; r++) {
        int32_t z = a_zp_of_row(mm, a_zp, r);
        const int64_t at = r * mm->k;
        if (mm->a_dtype == KN_INT8)
            for (int64_t p = 0; p < mm->k; p++)
                a16[at + p] = (int16_t)(((const int8_t *)a)[at + p] - z);
        else
            for (int64_t p = 0; p < mm->k; p++)
                a16[at + p] = (int16_t)(((const uint8_t *)a)[at + p] - z);
    }
    kn_qgemm_pack_a(rows, mm->k, a16, mm->k, pa);
    const int64_t nr = KN_QGEMM_NR, threads = kn_threadpool_threads(pool);
    int64_t cols = (384 * 1024) / (2 * mm->k) / nr * nr;
    int64_t share = (mm->n + threads - 1) / threads;
    share = (share + nr - 1) / nr * nr;
    cols = cols < nr ? nr : cols;
    cols = cols < share ? cols : share;
    mm16_job j = {mm, pa, rows, cols, acc};
    kn_parallel_for(pool, (mm->n + cols - 1) / cols, 1, mm16_task, &j);
}

int quant_mm_prepare(kn_kctx *k, quant_mm *mm, const kn_tensor *a, const kn_tensor *b,
                     const kn_tensor *a_zp, const kn_tensor *b_zp, kn_tensor *y)
{
    const char *op = k->node->op_type;
    memset(mm, 0, sizeof *mm);
    if ((a->dtype != KN_INT8 && a->dtype != KN_UINT8) || (b->dtype != KN_INT8 && b->dtype != KN_UINT8))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: A and B must be int8 or uint8, got %s and %s", op,
                       kn_dtype_name(a->dtype), kn_dtype_name(b->dtype));
    if (a->rank < 1 || b->rank < 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: operands must have rank >= 1, got %d and %d", op,
                       (int)a->rank, (int)b->rank);
    mm->a_dtype = a->dtype;
    mm->b_dtype = b->dtype;
    mm->m = a->rank == 1 ? 1 : a->dims[a->rank - 2];
    mm->k = a->dims[a->rank - 1];
    int64_t kb = b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2];
    mm->n = b->rank == 1 ? 1 : b->dims[b->rank - 1];
    char sa[128], sb[128];
    kn_shape_format(a->dims, a->rank, sa, sizeof sa);
    kn_shape_format(b->dims, b->rank, sb, sizeof sb);
    if (kb != mm->k)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: inner dims differ: A %s has K=%lld, B %s has K=%lld",
                       op, sa, (long long)mm->k, sb, (long long)kb);
    int32_t ab = a->rank > 2 ? a->rank - 2 : 0, bb = b->rank > 2 ? b->rank - 2 : 0;
    mm->brank = ab > bb ? ab : bb;
    int64_t a_vol = 1, b_vol = 1;
    for (int32_t i = mm->brank - 1; i >= 0; i--) {
        int32_t ia = i - (mm->brank - ab), ib = i - (mm->brank - bb);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: batch dims of %s and %s do not broadcast", op,
                           sa, sb);
        mm->bdims[i] = da == 1 ? db : da;
        mm->a_step[i] = da == 1 ? 0 : a_vol * mm->m * mm->k;
        mm->b_step[i] = db == 1 ? 0 : b_vol * mm->k * mm->n;
        a_vol *= da;
        b_vol *= db;
    }
    mm->batches = kn_shape_numel(mm->bdims, mm->brank);
    mm->a_numel = kn_tensor_numel(a);
    mm->b_numel = kn_tensor_numel(b);

    /* Zero points: per tensor, per row of A (M, or [.., M, 1] for every
     * batch) and per column of B (N, or [.., 1, N]). */
    if (a_zp && a_zp->dtype != a->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: a_zero_point is %s but A is %s", op,
                       kn_dtype_name(a_zp->dtype), kn_dtype_name(a->dtype));
    if (b_zp && b_zp->dtype != b->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: b_zero_point is %s but B is %s", op,
                       kn_dtype_name(b_zp->dtype), kn_dtype_name(b->dtype));
    mm->a_zp_n = a_zp ? kn_tensor_numel(a_zp) : 1;
    mm->b_zp_n = b_zp ? kn_tensor_numel(b_zp) : 1;
    if (!zp_count_ok(mm->a_zp_n, mm->m, a_vol * mm->m))
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "%s: a_zero_point has %lld elements; expected 1 or one per row of A %s", op,
                       (long long)mm->a_zp_n, sa);
    if (!zp_count_ok(mm->b_zp_n, mm->n, b_vol * mm->n))
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "%s: b_zero_point has %lld elements; expected 1 or one per column of B %s",
                       op, (long long)mm->b_zp_n, sb);

    y->rank = 0;
    for (int32_t i = 0; i < mm->brank; i++)
        y->dims[y->rank++] = mm->bdims[i];
    if (a->rank > 1)
        y->dims[y->rank++] = mm->m;
    if (b->rank > 1)
        y->dims[y->rank++] = mm->n;
    mm->a_bytes = kn_align_up((size_t)mm->a_numel * sizeof(float), 64);
    mm->b_bytes = kn_align_up((size_t)mm->b_numel * sizeof(float), 64);
    if (b->data && (!b_zp || b_zp->data) && b->rank <= 2 && mm->k > 0 && mm->n > 0 &&
        kn_qgemm_beats_float())
        return pack_b_int16(k, mm, b->data, b_zp);
    if (b->data && (!b_zp || b_zp->data)) { /* weights: convert once */
        mm->b_const = malloc(mm->b_bytes ? mm->b_bytes : 1);
        if (!mm->b_const)
            return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
        widen_b(mm, b->data, b_zp, mm->b_const);
        mm->b_bytes = 0;
    }
    mm->tmp_bytes = kn_align_up((size_t)(mm->m * mm->n) * sizeof(float), 64);
    mm->ws_bytes = exact_gemm_ws(mm->m, mm->n, mm->k, kn_threadpool_threads(k->threads));
    return KN_OK;
}

size_t quant_mm_scratch(const quant_mm *mm)
{
    return mm->a_bytes + mm->b_bytes + mm->tmp_bytes + mm->ws_bytes;
}

/* Element offsets of A and B for output batch bi. */
static void mm_offsets(const quant_mm *mm, int64_t bi, int64_t *ao, int64_t *bo)
{
    *ao = *bo = 0;
    for (int32_t i = mm->brank - 1; i >= 0; i--) {
        int64_t idx = bi % mm->bdims[i];
        bi /= mm->bdims[i];
        *ao += idx * mm->a_step[i];
        *bo += idx * mm->b_step[i];
    }
}

void quant_mm_run(const quant_mm *mm, const void *a, const void *b, const kn_tensor *a_zp,
                  const kn_tensor *b_zp, int32_t *acc, void *scratch, kn_threadpool *pool)
{
    if (mm->b_packed) {
        run_int16(mm, a, a_zp, acc, scratch, pool);
        return;
    }
    char *sp = scratch;
    float *af = (float *)sp, *bf = (float *)(sp + mm->a_bytes);
    float *tmp = (float *)(sp + mm->a_bytes + mm->b_bytes);
    void *ws = sp + mm->a_bytes + mm->b_bytes + mm->tmp_bytes;
    widen(mm->a_dtype, a, af, mm->a_numel);
    if (mm->b_const)
        bf = mm->b_const;
    else
        widen_b(mm, b, b_zp, bf);
    if (a_zp && mm->k > 0) {
        /* row r of A (over all batches) is af[r * k ..] */
        for (int64_t r = 0; r < mm->a_numel / mm->k; r++) {
            float z = (float)a_zp_of_row(mm, a_zp, r);
            for (int64_t p = 0; p < mm->k; p++)
                af[r * mm->k + p] -= z;
        }
    }
    for (int64_t bi = 0; bi < mm->batches; bi++) {
        int64_t ao, bo;
        mm_offsets(mm, bi, &ao, &bo);
        exact_gemm(pool, mm->m, mm->n, mm->k, af + ao, mm->k, bf + bo, mm->n,
                   acc + bi * mm->m * mm->n, mm->n, tmp, ws, mm->ws_bytes);
    }
}

void quant_mm_release(quant_mm *mm)
{
    free(mm->b_const);
    mm->b_const = NULL;
    free(mm->b_packed);
    mm->b_packed = NULL;
}

/* ---- convolution ---- */

int quant_conv_prepare(kn_kctx *k, quant_conv *c, const kn_tensor *x, const kn_tensor *w,
                       kn_tensor *y)
{
    const char *op = k->node->op_type;
    memset(c, 0, sizeof *c);
    if ((x->dtype != KN_INT8 && x->dtype != KN_UINT8) || (w->dtype != KN_INT8 && w->dtype != KN_UINT8))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: x and w must be int8 or uint8, got %s and %s", op,
                       kn_dtype_name(x->dtype), kn_dtype_name(w->dtype));
    if (x->rank < 3)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: x has rank %d, expected N x C x spatial", op,
                       (int)x->rank);
    if (w->rank != x->rank)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: w has rank %d but x has rank %d", op,
                       (int)w->rank, (int)x->rank);
    int64_t group = kn_attr_int(k->node, "group", 1);
    int64_t cin = x->dims[1], cout = w->dims[0];
    if (group < 1 || cin % group != 0 || cout % group != 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "%s: group %lld must be >= 1 and divide input channels %lld and output "
                       "channels %lld",
                       op, (long long)group, (long long)cin, (long long)cout);
    if (w->dims[1] * group != cin)
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "%s: input channels %lld do not match weight channels %lld x group %lld", op,
                       (long long)cin, (long long)w->dims[1], (long long)group);
    int32_t nsp = x->rank - 2;
    kn_window_opts opts = {.op = op, .kernel = w->dims + 2, .dilations = 1};
    int rc = kn_window_init(&c->win, k->node, x->dims + 2, nsp, &opts, k->err);
    if (rc != KN_OK)
        return rc;
    y->rank = x->rank;
    y->dims[0] = x->dims[0];
    y->dims[1] = cout;
    for (int32_t i = 0; i < nsp; i++)
        y->dims[2 + i] = c->win.out[KN_WIN_DIMS - nsp + i];

    c->x_dtype = x->dtype;
    c->w_dtype = w->dtype;
    c->batch = x->dims[0];
    c->cin = cin;
    c->cout = cout;
    c->group = group;
    c->cg = cin / group;
    c->mg = cout / group;
    c->kdim = c->cg * kn_window_kvol(&c->win);
    c->in_size = kn_window_in_size(&c->win);
    c->out_size = kn_window_out_size(&c->win);

    int pointwise = kn_window_kvol(&c->win) == 1;
    for (int32_t d = 0; d < KN_WIN_DIMS; d++)
        pointwise &= c->win.stride[d] == 1 && c->win.pad_begin[d] == 0 && c->win.pad_end[d] == 0;
    c->pointwise = pointwise;
    c->depthwise = quant_dw_fits(c);
    c->direct_pack = !pointwise && quant_pack_fits(c);

    int32_t threads = kn_threadpool_threads(k->threads);
    c->x_bytes = kn_align_up((size_t)(cin * c->in_size) * sizeof(int16_t), 64);
    if (c->depthwise) {
        /* channels in parallel, one padded plane each; no image copy */
        c->x_bytes = 0;
        c->tasks = cout >= 2 * (int64_t)threads ? threads : 1;
        c->w_bytes = kn_align_up((size_t)(cout * c->kdim) * sizeof(int16_t), 64);
        c->slot_bytes = quant_dw_plane_bytes(c);
        return KN_OK;
    }
    /* ~256 KiB of packed column block (whole panels), so that it stays in
     * L2 while each weight panel passes over it */
    int64_t depth = 2 * kn_qgemm_pairs(c->kdim);
    int64_t block = (int64_t)(128 * 1024) / (depth > 0 ? depth : 1);
    block = block < 64 ? 64 : block & ~(int64_t)(KN_QGEMM_NR - 1);
    /* and small enough that every thread gets blocks to work on */
    int64_t share = (c->out_size + 2 * threads - 1) / (2 * threads);
    share = (share + KN_QGEMM_NR - 1) & ~(int64_t)(KN_QGEMM_NR - 1);
    if (threads > 1 && group == 1 && share < block)
        block = share < 64 ? 64 : share;
    block = block < c->out_size ? block : c->out_size;
    c->block = block > 0 ? block : 1;
    int64_t items = group * ((c->out_size + c->block - 1) / c->block);
    c->tasks = items >= 2 * (int64_t)threads ? threads : 1;
    c->w_bytes =
        kn_align_up(kn_qgemm_packed_a_len(c->mg, c->kdim) * (size_t)group * sizeof(int16_t), 64) +
        kn_align_up((size_t)(cout * c->kdim) * sizeof(int16_t), 64);
    c->col_bytes = pointwise || c->direct_pack
                       ? 0
                       : kn_align_up((size_t)(c->kdim * c->block) * sizeof(int16_t), 64);
    c->pack_bytes = kn_align_up(kn_qgemm_packed_b_len(c->kdim, c->block) * sizeof(int16_t), 64);
    c->tile_bytes = kn_align_up((size_t)(KN_QGEMM_MR * c->block) * sizeof(int32_t), 64);
    /* room for the dot GEMM's block, used if the weights pack for it */
    c->dot_b_bytes = kn_qgemm_dot_mode() != KN_QDOT_OFF
                         ? kn_align_up(kn_qgemm_dot_packed_b_bytes(c->kdim, c->block), 64)
                         : 0;
    c->slot_bytes = c->col_bytes + c->pack_bytes + c->tile_bytes + c->dot_b_bytes;
    return KN_OK;
}

size_t quant_conv_scratch(const quant_conv *c)
{
    return c->w_bytes + c->x_bytes + c->slot_bytes * (size_t)c->tasks;
}

/* W - w_zp (per tensor or per output channel) as int16, then (GEMM) each
 * group's rows packed. dst: the packed weights, then the int16 rows when
 * packed (the depthwise kernel reads the rows themselves). */
#define KN_WIDEN_W(T, SFX)                                                                         \
    static void widen_w_##SFX(const quant_conv *c, const T *w, const kn_tensor *w_zp,              \
                              int16_t *dst)                                                        \
    {                                                                                              \
        int per_channel = w_zp && kn_tensor_numel(w_zp) > 1;                                       \
        for (int64_t m = 0; m < c->cout; m++) {                                                    \
            int32_t z = quant_zp_at(w_zp, per_channel ? m : 0);                                    \
            for (int64_t i = 0; i < c->kdim; i++)                                                  \
                dst[m * c->kdim + i] = (int16_t)(w[m * c->kdim + i] - z);                          \
        }                                                                                          \
    }
KN_WIDEN_W(uint8_t, u8)
KN_WIDEN_W(int8_t, s8)

static void prepare_w(const quant_conv *c, const void *w, const kn_tensor *w_zp, int16_t *dst)
{
    int16_t *rows = dst;
    size_t packed = 0;
    if (!c->depthwise) {
        packed = kn_qgemm_packed_a_len(c->mg, c->kdim);
        rows = dst + kn_align_up(packed * (size_t)c->group * sizeof(int16_t), 64) / sizeof(int16_t);
    }
    if (c->w_dtype == KN_UINT8)
        widen_w_u8(c, w, w_zp, rows);
    else
        widen_w_s8(c, w, w_zp, rows);
    for (int64_t g = 0; g < c->group && !c->depthwise; g++)
        kn_qgemm_pack_a(c->mg, c->kdim, rows + g * c->mg * c->kdim, c->kdim,
                        dst + (size_t)g * packed);
}

/* The constant weights packed for the dot GEMM too, where it runs and
 * every row fits in bytes (8-bit weights less a zero point always do). */
static int pack_dot_weights(quant_conv *c, const int16_t *rows)
{
    int mode = kn_qgemm_dot_mode();
    if (mode == KN_QDOT_OFF || !c->dot_b_bytes)
        return KN_OK;
    size_t bytes = kn_qgemm_dot_packed_a_bytes(c->mg, c->kdim);
    c->dot_w = malloc(bytes * (size_t)c->group);
    if (!c->dot_w)
        return KN_ERR_OUT_OF_MEMORY;
    int shifted = 0;
    for (int64_t g = 0; g < c->group; g++) {
        int packed = kn_qgemm_dot_pack_a(c->mg, c->kdim, rows + g * c->mg * c->kdim, c->kdim,
                                         c->dot_w + (size_t)g * bytes);
        if (!packed) {
            free(c->dot_w);
            c->dot_w = NULL;
            return KN_OK;
        }
        shifted |= packed == KN_QDOT_ROWS_SHIFTED;
    }
    c->dot = mode;
    c->dot_shifted = shifted;
    c->dot_bytes = quant_pack_fits(c);
    return KN_OK;
}

int quant_conv_const_weights(kn_kctx *k, quant_conv *c, const kn_tensor *w, const kn_tensor *w_zp)
{
    if (!w->data || (w_zp && !w_zp->data))
        return KN_OK;
    c->w_const = malloc(c->w_bytes ? c->w_bytes : 1);
    if (!c->w_const)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    prepare_w(c, w->data, w_zp, c->w_const);
    c->w_bytes = 0; /* no scratch for weights */
    if (!c->depthwise) {
        /* the int16 rows follow the packed weights */
        size_t packed = kn_qgemm_packed_a_len(c->mg, c->kdim) * (size_t)c->group;
        const int16_t *rows =
            c->w_const + kn_align_up(packed * sizeof(int16_t), 64) / sizeof(int16_t);
        int rc = pack_dot_weights(c, rows);
        if (rc != KN_OK)
            return kn_fail(k->err, rc, "%s: out of memory", k->node->op_type);
        /* One dot per depth quad does 16 products an instruction, 4 times
         * the int16 pairs' rate, Winograd 2.25 times fewer products on the
         * int16 GEMM plus its transforms. In Chromium 156 (ResNet-50's int8
         * model, --profile) the direct dot product won on 7x7 planes (5.3-
         * 6.8 ms a layer against 7.2-11), tied on 14x14, and lost on 28x28
         * and 56x56 (1.2-1.6x slower: with 64-128 output channels the
         * columns' packing weighs). At two dots (halves) Winograd pays. */
        int wg_pays = c->dot != KN_QDOT_UNSIGNED || c->out_size >= 16 * 16;
        if (wg_pays && quant_wg_prepare(c, rows, kn_threadpool_threads(k->threads))) {
            free(c->dot_w);
            c->dot_w = NULL;
            c->dot = KN_QDOT_OFF;
            free(c->w_const); /* the transformed weights replace them */
            c->w_const = NULL;
        }
    }
    return KN_OK;
}

void quant_conv_weights(const quant_conv *c, const void *w, const kn_tensor *w_zp, void *scratch)
{
    if (!c->w_const && !c->winograd)
        prepare_w(c, w, w_zp, scratch);
}

void quant_conv_release(quant_conv *c)
{
    free(c->w_const);
    c->w_const = NULL;
    free(c->wg_w);
    c->wg_w = NULL;
    free(c->dot_w);
    c->dot_w = NULL;
}

typedef struct conv_job {
    const quant_conv *c;
    const int16_t *w; /* prepared weights */
    const int16_t *x; /* the image minus its zero point (GEMM) */
    const char *x8;   /* the image itself (depthwise) */
    int32_t zx;
    int32_t *acc;
    const quant_epilogue *ep;
    char *slots;
} conv_job;

/* conv_item's product on the dot GEMM: the image's 8-bit values as
 * unsigned bytes (z their zero point so), packed straight from the image
 * (pb NULL), else the int16 block pb repacked */
static void dot_product(const conv_job *j, int64_t g, int64_t c0, int64_t n, const int16_t *pb,
                        char *slot)
{
    const quant_conv *c = j->c;
    int32_t z = c->x_dtype == KN_UINT8 ? j->zx : j->zx + 128;
    void *db = slot + c->col_bytes + c->pack_bytes + c->tile_bytes;
    if (pb) {
        kn_qgemm_dot_pack_b(c->kdim, n, pb, z, c->dot, c->dot_shifted, db);
    } else {
        /* the int16 block's room holds one panel's rows of bytes */
        const uint8_t *x8g = (const uint8_t *)j->x8 + g * c->cg * c->in_size;
        quant_pack_cols_dot(c, x8g, c->x_dtype == KN_UINT8 ? 0 : 0x80, z, c0, c0 + n,
                            (uint8_t *)(slot + c->col_bytes), db);
    }
    const unsigned char *pa = c->dot_w + (size_t)g * kn_qgemm_dot_packed_a_bytes(c->mg, c->kdim);
    if (!j->ep) {
        kn_qgemm_dot_packed(c->mg, n, c->kdim, pa, db, z, c->dot,
                            j->acc + g * c->mg * c->out_size + c0, c->out_size);
        return;
    }
    int32_t *tile = (int32_t *)(slot + c->col_bytes + c->pack_bytes);
    size_t panel = kn_qgemm_dot_packed_a_bytes(KN_QGEMM_MR, c->kdim);
    for (int64_t m0 = 0; m0 < c->mg; m0 += KN_QGEMM_MR) {
        int64_t rows = c->mg - m0 < KN_QGEMM_MR ? c->mg - m0 : KN_QGEMM_MR;
        kn_qgemm_dot_packed(rows, n, c->kdim, pa + (size_t)(m0 / KN_QGEMM_MR) * panel, db, z,
                            c->dot, tile, n);
        for (int64_t r = 0; r < rows; r++)
            j->ep->row(j->ep->ctx, g * c->mg + m0 + r, c0, tile + r * n, n);
    }
}

/* Item = (group, column block): pack the block (from the image, or im2col
 * then pack), multiply. */
static void conv_item(const conv_job *j, int64_t item, char *slot)
{
    const quant_conv *c = j->c;
    int64_t blocks = (c->out_size + c->block - 1) / c->block;
    int64_t g = item / blocks, c0 = (item % blocks) * c->block;
    int64_t c1 = c0 + c->block < c->out_size ? c0 + c->block : c->out_size;
    if (c->dot && c->dot_bytes) {
        dot_product(j, g, c0, c1 - c0, NULL, slot);
        return;
    }
    const int16_t *xg = j->x + g * c->cg * c->in_size, *bmat = xg + c0;
    int64_t ldb = c->in_size;
    int16_t *pb = (int16_t *)(slot + c->col_bytes);
    int64_t n = c1 - c0;
    if (c->direct_pack) {
        quant_pack_cols(c, xg, c0, c1, pb);
    } else {
        if (!c->pointwise) {
            int16_t *col = (int16_t *)slot;
            kn_im2col_i16(&c->win, xg, col, 0, c->kdim, c0, c1);
            bmat = col;
            ldb = c1 - c0;
        }
        kn_qgemm_pack_b(c->kdim, n, bmat, ldb, pb);
    }
    if (c->dot) {
        dot_product(j, g, c0, n, pb, slot);
        return;
    }
    const int16_t *pa = j->w + (size_t)g * kn_qgemm_packed_a_len(c->mg, c->kdim);
    if (!j->ep) {
        kn_qgemm_packed(c->mg, n, c->kdim, pa, pb, j->acc + g * c->mg * c->out_size + c0,
                        c->out_size);
        return;
    }
    /* one panel of rows at a time, handed on while it is in L1 */
    int32_t *tile = (int32_t *)(slot + c->col_bytes + c->pack_bytes);
    size_t panel = kn_qgemm_packed_a_len(KN_QGEMM_MR, c->kdim);
    for (int64_t m0 = 0; m0 < c->mg; m0 += KN_QGEMM_MR) {
        int64_t rows = c->mg - m0 < KN_QGEMM_MR ? c->mg - m0 : KN_QGEMM_MR;
        kn_qgemm_packed(rows, n, c->kdim, pa + (size_t)(m0 / KN_QGEMM_MR) * panel, pb, tile, n);
        for (int64_t r = 0; r < rows; r++)
            j->ep->row(j->ep->ctx, g * c->mg + m0 + r, c0, tile + r * n, n);
    }
}

static void dw_item(const conv_job *j, int64_t ch, char *slot)
{
    const quant_conv *c = j->c;
    quant_dw_channel(c, ch, j->x8 + (size_t)(ch * c->in_size), /* 8-bit */ j->zx,
                     j->w + ch * c->kdim, j->acc ? j->acc + ch * c->out_size : NULL, j->ep,
                     (int16_t *)slot);
}

static int64_t conv_items(const quant_conv *c)
{
    if (c->winograd)
        return quant_wg_items(c);
    return c->depthwise ? c->cout : c->group * ((c->out_size + c->block - 1) / c->block);
}

static void conv_task(void *ctx, int64_t begin, int64_t end)
{
    const conv_job *j = ctx;
    int64_t items = conv_items(j->c);
    for (int64_t t = begin; t < end; t++)
        for (int64_t item = t; item < items; item += j->c->tasks) {
            char *slot = j->slots + (size_t)t * j->c->slot_bytes;
            if (j->c->winograd)
                quant_wg_item(j->c, j->x, j->w, item, j->acc, j->ep, slot);
            else if (j->c->depthwise)
                dw_item(j, item, slot);
            else
                conv_item(j, item, slot);
        }
}

/* n 8-bit values of type T less their zero point, as int16. */
#define KN_WIDEN_X(T, SFX)                                                                         \
    static void widen_x_##SFX(const T *x, int32_t z, int16_t *dst, int64_t n)                      \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            dst[i] = (int16_t)(x[i] - z);                                                          \
    }
KN_WIDEN_X(uint8_t, u8)
KN_WIDEN_X(int8_t, s8)

void quant_conv_image(const quant_conv *c, int64_t n, const void *x, const kn_tensor *x_zp,
                      int32_t *acc, const quant_epilogue *ep, void *scratch, kn_threadpool *pool)
{
    int64_t plane = c->cin * c->in_size;
    const char *xn = (const char *)x + (size_t)(n * plane); /* 8-bit */
    int32_t z = quant_zp_at(x_zp, 0);
    int16_t *xs = (int16_t *)((char *)scratch + c->w_bytes);
    if (!c->depthwise && !(c->dot && c->dot_bytes)) { /* those read the bytes themselves */
        if (c->x_dtype == KN_UINT8)
            widen_x_u8((const uint8_t *)xn, z, xs, plane);
        else
            widen_x_s8((const int8_t *)xn, z, xs, plane);
    }
    conv_job j = {c,
                  c->winograd ? c->wg_w : c->w_const ? c->w_const : scratch,
                  xs,
                  xn,
                  z,
                  acc,
                  acc ? NULL : ep,
                  (char *)scratch + c->w_bytes + c->x_bytes};
    /* one task per slot; with a single slot the items run on this thread */
    kn_parallel_for(pool, c->tasks, 1, conv_task, &j);
}

/* ---- MatMulInteger ---- */

static int matmulinteger_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    quant_mm *mm = malloc(sizeof *mm);
    if (!mm)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "MatMulInteger: out of memory");
    k->state = mm;
    int rc = quant_mm_prepare(k, mm, k->in[0], k->in[1], kn_input(k, 2), kn_input(k, 3), k->out[0]);
    if (rc != KN_OK)
        return rc;
    k->out[0]->dtype = KN_INT32;
    k->scratch_bytes = quant_mm_scratch(mm);
    return KN_OK;
}

static int matmulinteger_run(kn_kctx *k)
{
    quant_mm_run(k->state, k->in[0]->data, k->in[1]->data, kn_input(k, 2), kn_input(k, 3),
                 k->out[0]->data, k->scratch, k->threads);
    return KN_OK;
}

static void matmulinteger_release(kn_kctx *k)
{
    if (k->state)
        quant_mm_release(k->state);
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_MatMulInteger = {
    .op_type = "MatMulInteger", .since_version = 10, .dtypes = QUANT_MASK_Q8,
    .prepare = matmulinteger_prepare, .run = matmulinteger_run,
    .release = matmulinteger_release
};

/* ---- ConvInteger ---- */

static void convinteger_release(kn_kctx *k)
{
    if (k->state)
        quant_conv_release(k->state);
    free(k->state);
    k->state = NULL;
}

static int convinteger_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *w = k->in[1];
    const kn_tensor *x_zp = kn_input(k, 2), *w_zp = kn_input(k, 3);
    quant_conv *c = malloc(sizeof *c);
    if (!c)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "ConvInteger: out of memory");
    k->state = c;
    int rc = quant_conv_prepare(k, c, x, w, k->out[0]);
    if (rc == KN_OK)
        rc = quant_check_pair(k, "x", NULL, x_zp, x->dtype, -1);
    if (rc == KN_OK)
        rc = quant_check_pair(k, "w", NULL, w_zp, w->dtype, c->cout);
    if (rc == KN_OK)
        rc = quant_conv_const_weights(k, c, w, w_zp);
    if (rc != KN_OK)
        return rc;
    k->out[0]->dtype = KN_INT32;
    k->scratch_bytes = quant_conv_scratch(c);
    return KN_OK;
}

static int convinteger_run(kn_kctx *k)
{
    const quant_conv *c = k->state;
    int32_t *y = k->out[0]->data;
    quant_conv_weights(c, k->in[1]->data, kn_input(k, 3), k->scratch);
    for (int64_t n = 0; n < c->batch; n++)
        quant_conv_image(c, n, k->in[0]->data, kn_input(k, 2), y + n * c->cout * c->out_size, NULL,
                         k->scratch, k->threads);
    return KN_OK;
}

const kn_op_def kn_op_ConvInteger = {
    .op_type = "ConvInteger", .since_version = 10, .dtypes = QUANT_MASK_Q8,
    .prepare = convinteger_prepare, .run = convinteger_run, .release = convinteger_release
};
