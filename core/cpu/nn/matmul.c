/* MatMul (opsets 1, 9, 13) with numpy semantics: 1-D operands are
 * promoted (A to a row, B to a column) and the promoted dim is dropped
 * from the result; leading (batch) dims broadcast. float and double run
 * through the packed GEMM (float16 and bfloat16 too, widened to float:
 * half_path.h); int32/int64/uint32/uint64 through a plain loop that wraps
 * on overflow like numpy (computed unsigned, so no UB).
 *
 * Batches are laid out once in prepare(). Three ways to run them:
 *  - B without batch and A batched: A's batches are just more rows, so one
 *    GEMM of (batch * M) x K by K x N does it all;
 *  - fewer batches than threads: one parallel GEMM per batch;
 *  - otherwise batches run in parallel, each GEMM serial in its own
 *    workspace slot (attention-style many-small-products). */
#include <stdlib.h>

#include "core/base/alloc.h"
#include "core/kernel/op.h"
#include "core/simd/gemm.h"
#include "core/kernel/half_path.h"

#define KN_MM_BATCH (KN_MAX_RANK - 2)

typedef struct matmul_state {
    int32_t dtype;
    int64_t m, n, k;
    int32_t brank;                  /* output batch rank */
    int64_t bdims[KN_MAX_RANK];     /* output batch dims */
    int64_t a_step[KN_MAX_RANK];    /* element step of A / B per batch index; 0 = broadcast */
    int64_t b_step[KN_MAX_RANK];
    int64_t batches;
    int fold_rows;                  /* B has no batch: treat A's batches as rows */
    int32_t tasks;                  /* > 1: batches in parallel, one workspace slot each */
    size_t ws_bytes;                /* per slot when tasks > 1, else the whole workspace */
} matmul_state;

static int matmul_prepare(kn_kctx *k)
{
    const kn_tensor *a = k->in[0], *b = k->n_in > 1 ? k->in[1] : NULL;
    if (!a || !b)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "MatMul: inputs A and B are required");
    if (a->dtype != b->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "MatMul: A is %s but B is %s", kn_dtype_name(a->dtype),
                       kn_dtype_name(b->dtype));
    if (a->rank < 1 || b->rank < 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "MatMul: operands must have rank >= 1, got %d and %d",
                       (int)a->rank, (int)b->rank);
    matmul_state st = {.dtype = a->dtype};
    st.m = a->rank == 1 ? 1 : a->dims[a->rank - 2];
    st.k = a->dims[a->rank - 1];
    int64_t kb = b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2];
    st.n = b->rank == 1 ? 1 : b->dims[b->rank - 1];
    if (kb != st.k) {
        char sa[128], sb[128];
        kn_shape_format(a->dims, a->rank, sa, sizeof sa);
        kn_shape_format(b->dims, b->rank, sb, sizeof sb);
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "MatMul: inner dims differ: A %s has K=%lld, B %s has K=%lld", sa,
                       (long long)st.k, sb, (long long)kb);
    }
    /* Batch dims, right-aligned and broadcast. */
    int32_t ab = a->rank > 2 ? a->rank - 2 : 0, bb = b->rank > 2 ? b->rank - 2 : 0;
    st.brank = ab > bb ? ab : bb;
    int64_t a_vol = 1, b_vol = 1;
    for (int32_t i = st.brank - 1; i >= 0; i--) {
        int32_t ia = i - (st.brank - ab), ib = i - (st.brank - bb);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            char sa[128], sb[128];
            kn_shape_format(a->dims, a->rank, sa, sizeof sa);
            kn_shape_format(b->dims, b->rank, sb, sizeof sb);
            return kn_fail(k->err, KN_ERR_SHAPE, "MatMul: batch dims of %s and %s do not broadcast",
                           sa, sb);
        }
        st.bdims[i] = da == 1 ? db : da;
        st.a_step[i] = da == 1 ? 0 : a_vol * st.m * st.k;
        st.b_step[i] = db == 1 ? 0 : b_vol * st.k * st.n;
        a_vol *= da;
        b_vol *= db;
    }
    st.batches = 1;
    for (int32_t i = 0; i < st.brank; i++)
        st.batches *= st.bdims[i];
    st.fold_rows = b_vol == 1 && a->rank >= 2;

    kn_tensor *y = k->out[0];
    y->dtype = a->dtype;
    y->rank = 0;
    for (int32_t i = 0; i < st.brank; i++)
        y->dims[y->rank++] = st.bdims[i];
    if (a->rank > 1)
        y->dims[y->rank++] = st.m;
    if (b->rank > 1)
        y->dims[y->rank++] = st.n;

    int32_t threads = kn_threadpool_threads(k->threads);
    int is_float = st.dtype == KN_FLOAT || st.dtype == KN_DOUBLE;
    if (is_float && st.fold_rows) {
        st.ws_bytes = kn_gemm_workspace_size(st.dtype, st.m * st.batches, st.n, st.k, threads);
        k->scratch_bytes = st.ws_bytes;
    } else if (is_float && st.batches >= threads && threads > 1) {
        st.tasks = threads;
        st.ws_bytes = kn_align_up(kn_gemm_workspace_size(st.dtype, st.m, st.n, st.k, 1), 64);
        k->scratch_bytes = st.ws_bytes * (size_t)threads;
    } else if (is_float) {
        st.ws_bytes = kn_gemm_workspace_size(st.dtype, st.m, st.n, st.k, threads);
        k->scratch_bytes = st.ws_bytes;
    }
    matmul_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "MatMul: out of memory");
    *s = st;
    k->state = s;
    return KN_OK;
}

/* Element offsets of A and B for output batch index bi. */
static void batch_offsets(const matmul_state *st, int64_t bi, int64_t *ao, int64_t *bo)
{
    *ao = *bo = 0;
    for (int32_t i = st->brank - 1; i >= 0; i--) {
        int64_t idx = bi % st->bdims[i];
        bi /= st->bdims[i];
        *ao += idx * st->a_step[i];
        *bo += idx * st->b_step[i];
    }
}

typedef struct mm_job {
    const matmul_state *st;
    const char *a, *b;
    char *y;
    char *ws;
    kn_threadpool *pool;
} mm_job;

static void gemm_batch(const mm_job *j, int64_t bi, kn_threadpool *pool, void *ws, size_t ws_bytes)
{
    const matmul_state *st = j->st;
    size_t esz = st->dtype == KN_DOUBLE ? sizeof(double) : sizeof(float);
    int64_t ao, bo;
    batch_offsets(st, bi, &ao, &bo);
    kn_gemm_args g = {.m = st->m, .n = st->n, .k = st->k, .alpha = 1, .beta = 0,
                      .a = j->a + (size_t)ao * esz, .lda = st->k,
                      .b = j->b + (size_t)bo * esz, .ldb = st->n,
                      .c = j->y + (size_t)(bi * st->m * st->n) * esz, .ldc = st->n};
    kn_gemm(st->dtype, pool, &g, ws, ws_bytes);
}

/* Parallel batches: tasks are [0, tasks); each owns workspace slot `begin`
 * (concurrent ranges never share one) and a contiguous share of batches. */
static void batch_task(void *ctx, int64_t begin, int64_t end)
{
    const mm_job *j = ctx;
    const matmul_state *st = j->st;
    void *ws = j->ws + (size_t)begin * st->ws_bytes;
    int64_t per = (st->batches + st->tasks - 1) / st->tasks;
    for (int64_t bi = begin * per; bi < end * per && bi < st->batches; bi++)
        gemm_batch(j, bi, NULL, ws, st->ws_bytes);
}

/* Integer products, one output row per index: y[i, :] = sum_p a[i, p] * b[p, :]. */
#define KN_DEFINE_INT_MM(T, U, SFX)                                                                \
    static void int_rows_##SFX(const mm_job *j, int64_t begin, int64_t end)                        \
    {                                                                                              \
        const matmul_state *st = j->st;                                                            \
        for (int64_t r = begin; r < end; r++) {                                                    \
            int64_t bi = r / st->m, i = r % st->m, ao, bo;                                         \
            batch_offsets(st, bi, &ao, &bo);                                                       \
            const T *a = (const T *)j->a + ao + i * st->k;                                         \
            const T *b = (const T *)j->b + bo;                                                     \
            U *y = (U *)((T *)j->y + r * st->n);                                                   \
            for (int64_t c = 0; c < st->n; c++)                                                    \
                y[c] = 0;                                                                          \
            for (int64_t p = 0; p < st->k; p++) {                                                  \
                U av = (U)a[p];                                                                    \
                const T *br = b + p * st->n;                                                       \
                for (int64_t c = 0; c < st->n; c++)                                                \
                    y[c] += av * (U)br[c];                                                         \
            }                                                                                      \
        }                                                                                          \
    }

KN_DEFINE_INT_MM(int32_t, uint32_t, i32)
KN_DEFINE_INT_MM(int64_t, uint64_t, i64)
KN_DEFINE_INT_MM(uint32_t, uint32_t, u32)
KN_DEFINE_INT_MM(uint64_t, uint64_t, u64)

static void int_task(void *ctx, int64_t begin, int64_t end)
{
    const mm_job *j = ctx;
    switch (j->st->dtype) {
    case KN_INT32: int_rows_i32(j, begin, end); break;
    case KN_INT64: int_rows_i64(j, begin, end); break;
    case KN_UINT32: int_rows_u32(j, begin, end); break;
    case KN_UINT64: int_rows_u64(j, begin, end); break;
    }
}

static int matmul_run(kn_kctx *k)
{
    const matmul_state *st = k->state;
    mm_job j = {st, k->in[0]->data, k->in[1]->data, k->out[0]->data, k->scratch, k->threads};
    if (st->batches == 0 || st->m == 0 || st->n == 0)
        return KN_OK;
    if (st->dtype != KN_FLOAT && st->dtype != KN_DOUBLE) {
        int64_t grain = 1 + 16384 / (st->n * st->k + 1);
        kn_parallel_for(k->threads, st->batches * st->m, grain, int_task, &j);
    } else if (st->fold_rows) {
        kn_gemm_args g = {.m = st->m * st->batches, .n = st->n, .k = st->k, .alpha = 1,
                          .a = j.a, .lda = st->k, .b = j.b, .ldb = st->n, .c = j.y, .ldc = st->n};
        kn_gemm(st->dtype, k->threads, &g, k->scratch, st->ws_bytes);
    } else if (st->tasks > 1) {
        kn_parallel_for(k->threads, st->tasks, 1, batch_task, &j);
    } else {
        for (int64_t bi = 0; bi < st->batches; bi++)
            gemm_batch(&j, bi, k->threads, k->scratch, st->ws_bytes);
    }
    return KN_OK;
}

static void matmul_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* float16 and bfloat16 run the float code above on widened copies
 * (half_path.h); a constant B (weights) is widened once, in prepare. */
static const kn_half_spec matmul_half = {.prepare = matmul_prepare, .run = matmul_run,
                                         .release = matmul_release, .widen = 0x3,
                                         .widen_once = 0x2, .bf16_since = 13};
KN_HALF_ENTRY_POINTS(matmul, matmul_half)

#define KN_MM_FLOATS (KN_MASK_FLOATS | KN_BIT(KN_FLOAT16))
#define KN_MM_ALL                                                                                  \
    (KN_MM_FLOATS | KN_BIT(KN_INT32) | KN_BIT(KN_INT64) | KN_BIT(KN_UINT32) | KN_BIT(KN_UINT64))

/* Opset 1 types were float16, float and double; 9 added the integers; 13
 * bfloat16. */
const kn_op_def kn_op_matmul_1 = {
    .op_type = "MatMul", .since_version = 1, .until_version = 8, .dtypes = KN_MM_FLOATS,
    .prepare = matmul_any_prepare, .run = matmul_any_run, .release = matmul_any_release
};
const kn_op_def kn_op_matmul_9 = {
    .op_type = "MatMul", .since_version = 9, .until_version = 12, .dtypes = KN_MM_ALL,
    .prepare = matmul_any_prepare, .run = matmul_any_run, .release = matmul_any_release
};
const kn_op_def kn_op_matmul_13 = {
    .op_type = "MatMul", .since_version = 13, .dtypes = KN_MM_ALL | KN_BIT(KN_BFLOAT16),
    .prepare = matmul_any_prepare, .run = matmul_any_run, .release = matmul_any_release
};
