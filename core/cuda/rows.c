/* Ops that work on rows of contiguous floats (rows.cu): Softmax and
 * LogSoftmax over the last axis (every axis before opset 13, which
 * flattens), LayerNormalization (ai.onnx 17 and kiln's, for older
 * opsets), the reductions ReduceMean / ReduceSum / ReduceMax / ReduceMin
 * (trailing axes by rows, other axes by a strided walk) and the global
 * pools. Softmax over a middle axis, LayerNormalization's optional Mean
 * and InvStdDev outputs and scales that broadcast are declined. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda/cuda_kernels.h"

enum { ROW_THREADS = 256 };
enum { R_SUM = 0, R_MEAN = 1, R_MAX = 2, R_MIN = 3 }; /* rows.cu's KN_R_* */

typedef struct rows_state {
    kn_cudaKernel fn;
    int64_t rows, cols;
    int32_t op; /* log-softmax flag, or R_* */
    float eps;
    int strided; /* a reduction over non-trailing axes */
    kn_cuda_walk out, red;
} rows_state;

static void rows_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

static int new_state(kn_kctx *k, const char *kernel, rows_state **out)
{
    rows_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    k->state = st;
    st->fn = kn_cuda_kernel(kn_cuda_dev(k), "rows", kernel, k->err);
    if (!st->fn) {
        rows_release(k);
        return k->err->code;
    }
    *out = st;
    return KN_OK;
}

static void same_shape_out(kn_kctx *k)
{
    kn_tensor *y = k->out[0];
    y->dtype = KN_FLOAT;
    y->rank = k->in[0]->rank;
    memcpy(y->dims, k->in[0]->dims, sizeof(int64_t) * (size_t)y->rank);
}

/* rows x cols with the split before dim `axis`. */
static void split_at(const kn_tensor *x, int32_t axis, int64_t *rows, int64_t *cols)
{
    *rows = *cols = 1;
    for (int32_t d = 0; d < x->rank; d++)
        *(d < axis ? rows : cols) *= x->dims[d];
}

/* One block per row; a grid dimension holds 2^31 - 1 blocks. */
static int launch_rows(kn_kctx *k, const rows_state *st, void **args)
{
    if (st->rows == 0 || st->cols == 0)
        return KN_OK;
    if (st->rows > 0x7fffffff)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: %lld rows is more than one launch holds",
                       k->node->op_type, (long long)st->rows);
    kn_dim3 grid = {(unsigned)st->rows, 1, 1}, block = {ROW_THREADS, 1, 1};
    return kn_cuda_launch(k, st->fn, grid, block, 0, args);
}

static int float_input(const kn_kctx *k) { return k->in[0] && k->in[0]->dtype == KN_FLOAT; }

/* --- Softmax, LogSoftmax */

static int softmax_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    if (!float_input(k))
        return KN_ERR_DECLINE;
    const kn_tensor *x = k->in[0];
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", k->opset < 13 ? 1 : -1),
                                x->rank ? x->rank : 1, k->err);
    if (axis < 0)
        return k->err->code;
    if (k->opset >= 13)
        for (int32_t d = axis + 1; d < x->rank; d++)
            if (x->dims[d] != 1)
                return KN_ERR_DECLINE; /* a middle axis: not rows */
    rows_state *st = NULL;
    int rc = new_state(k, "kn_softmax_rows_f32", &st);
    if (rc != KN_OK)
        return rc;
    split_at(x, axis, &st->rows, &st->cols);
    st->op = strcmp(k->node->op_type, "LogSoftmax") == 0;
    same_shape_out(k);
    return KN_OK;
}

static int softmax_run(kn_kctx *k)
{
    rows_state *st = k->state;
    const void *x = k->in[0]->data;
    void *y = k->out[0]->data;
    int log = st->op;
    void *args[] = {&x, &y, &st->cols, &log};
    return launch_rows(k, st, args);
}

/* --- LayerNormalization(X, Scale, B?) */

static int layernorm_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    if (!float_input(k) || k->n_in < 2 || !k->in[1] || k->in[1]->dtype != KN_FLOAT ||
        (k->n_in > 2 && k->in[2] && k->in[2]->dtype != KN_FLOAT))
        return KN_ERR_DECLINE;
    for (int32_t i = 1; i < k->n_out; i++)
        if (k->out[i])
            return KN_ERR_DECLINE; /* Mean / InvStdDev wanted */
    const kn_tensor *x = k->in[0];
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", -1), x->rank, k->err);
    if (axis < 0)
        return k->err->code;
    rows_state *st = NULL;
    int64_t rows, cols;
    split_at(x, axis, &rows, &cols);
    if (kn_tensor_numel(k->in[1]) != cols ||
        (k->n_in > 2 && k->in[2] && kn_tensor_numel(k->in[2]) != cols))
        return KN_ERR_DECLINE; /* a scale or bias that broadcasts */
    int rc = new_state(k, "kn_layernorm_rows_f32", &st);
    if (rc != KN_OK)
        return rc;
    st->rows = rows;
    st->cols = cols;
    st->eps = kn_attr_float(k->node, "epsilon", 1e-5f);
    same_shape_out(k);
    return KN_OK;
}

static int layernorm_run(kn_kctx *k)
{
    rows_state *st = k->state;
    const void *x = k->in[0]->data, *scale = k->in[1]->data;
    const void *bias = k->n_in > 2 && k->in[2] ? k->in[2]->data : NULL;
    void *y = k->out[0]->data;
    void *args[] = {&x, &scale, &bias, &y, &st->cols, &st->eps};
    return launch_rows(k, st, args);
}

/* --- reductions */

static int reduce_op(const char *op_type)
{
    return strcmp(op_type, "ReduceMean") == 0  ? R_MEAN
           : strcmp(op_type, "ReduceSum") == 0 ? R_SUM
           : strcmp(op_type, "ReduceMax") == 0 ? R_MAX
           : strcmp(op_type, "ReduceMin") == 0 ? R_MIN
                                               : -1;
}

/* Which axes a reduction reduces (mask over x's dims); KN_ERR_DECLINE for
 * axes computed at run time or noop_with_empty_axes. */
static int reduce_axes(kn_kctx *k, uint32_t *mask)
{
    const kn_tensor *x = k->in[0];
    /* axes became an input in opset 13 for ReduceSum, 18 for the others */
    int from_input = k->opset >= (strcmp(k->node->op_type, "ReduceSum") == 0 ? 13 : 18);
    int64_t axes[KN_MAX_RANK];
    int32_t n = 0;
    if (from_input) {
        const kn_tensor *t = k->n_in > 1 ? k->in[1] : NULL;
        if (t && !t->data)
            return KN_ERR_DECLINE;
        n = t ? (int32_t)kn_tensor_numel(t) : 0;
        if (n > KN_MAX_RANK)
            return KN_ERR_DECLINE;
        for (int32_t i = 0; i < n; i++)
            axes[i] = kn_read_int(t, i);
    } else {
        const int64_t *a = kn_attr_ints(k->node, "axes", &n);
        if (n > KN_MAX_RANK)
            return KN_ERR_DECLINE;
        if (n > 0) /* a node without axes has no list to copy */
            memcpy(axes, a, sizeof(int64_t) * (size_t)n);
    }
    if (n == 0 && kn_attr_int(k->node, "noop_with_empty_axes", 0))
        return KN_ERR_DECLINE;
    *mask = n ? 0 : (x->rank ? (1u << x->rank) - 1 : 0);
    for (int32_t i = 0; i < n; i++) {
        int32_t a = kn_norm_axis(axes[i], x->rank, k->err);
        if (a < 0)
            return k->err->code;
        *mask |= 1u << a;
    }
    return KN_OK;
}

static int reduce_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    int op = reduce_op(k->node->op_type);
    if (op < 0 || !float_input(k) || k->in[0]->rank == 0)
        return KN_ERR_DECLINE;
    uint32_t mask = 0;
    int rc = reduce_axes(k, &mask);
    if (rc != KN_OK || (rc = kn_cuda_shapes_from_cpu(k)) != KN_OK)
        return rc;
    const kn_tensor *x = k->in[0];
    /* trailing axes only: rows */
    int32_t first = x->rank;
    while (first > 0 && (mask >> (first - 1) & 1u))
        first--;
    int trailing = mask == ((1u << x->rank) - 1) - ((1u << first) - 1);
    rows_state *st = NULL;
    rc = new_state(k, trailing ? "kn_reduce_rows_f32" : "kn_reduce_strided_f32", &st);
    if (rc != KN_OK)
        return rc;
    st->op = op;
    split_at(x, first, &st->rows, &st->cols);
    st->strided = !trailing;
    if (st->strided) {
        int64_t step = 1, xs[KN_MAX_RANK];
        for (int32_t d = x->rank - 1; d >= 0; d--) {
            xs[d] = step;
            step *= x->dims[d];
        }
        st->out.n = st->red.n = 1;
        for (int32_t d = 0; d < x->rank; d++) {
            kn_cuda_walk *w = mask >> d & 1u ? &st->red : &st->out;
            w->dims[w->rank] = x->dims[d];
            w->stride[0][w->rank++] = xs[d];
            w->n *= x->dims[d];
        }
    }
    return KN_OK;
}

static int reduce_run(kn_kctx *k)
{
    rows_state *st = k->state;
    const void *x = k->in[0]->data;
    void *y = k->out[0]->data;
    int op = st->op;
    if (st->strided) {
        void *args[] = {&x, &y, &st->out, &st->red, &op};
        return kn_cuda_launch_1d(k, st->fn, st->out.n, args);
    }
    void *args[] = {&x, &y, &st->cols, &op};
    return launch_rows(k, st, args);
}

/* --- GlobalAveragePool, GlobalMaxPool: N x C rows of the spatial size */

static int global_pool_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    if (!float_input(k) || k->in[0]->rank < 3)
        return KN_ERR_DECLINE;
    rows_state *st = NULL;
    int rc = new_state(k, "kn_reduce_rows_f32", &st);
    if (rc != KN_OK)
        return rc;
    const kn_tensor *x = k->in[0];
    split_at(x, 2, &st->rows, &st->cols);
    st->op = strcmp(k->node->op_type, "GlobalMaxPool") == 0 ? R_MAX : R_MEAN;
    kn_tensor *y = k->out[0];
    same_shape_out(k);
    for (int32_t d = 2; d < y->rank; d++)
        y->dims[d] = 1;
    return KN_OK;
}

/* kiln.NhwcGlobalAveragePool: X [N, H, W, C] -> Y [N, 1, 1, C], a mean
 * over H x W elements C apart: the strided reduction. */
static int nhwc_global_pool_prepare(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    const kn_tensor *x = k->in[0];
    if (!float_input(k) || x->rank != 4)
        return KN_ERR_DECLINE;
    rows_state *st = NULL;
    int rc = new_state(k, "kn_reduce_strided_f32", &st);
    if (rc != KN_OK)
        return rc;
    st->op = R_MEAN;
    st->strided = 1;
    int64_t n = x->dims[0], h = x->dims[1], w = x->dims[2], c = x->dims[3];
    st->out = (kn_cuda_walk){.n = n * c, .rank = 2, .dims = {n, c}, .stride = {{h * w * c, 1}}};
    st->red = (kn_cuda_walk){.n = h * w, .rank = 1, .dims = {h * w}, .stride = {{c}}};
    kn_tensor *y = k->out[0];
    same_shape_out(k);
    y->dims[1] = y->dims[2] = 1;
    return KN_OK;
}

#define F32 KN_BIT(KN_FLOAT)
#define ROW_OP(name, op_name, since, until, prep, run_fn)                                          \
    const kn_op_def kn_cuda_##name = {.op_type = op_name,                                          \
                                      .since_version = since,                                      \
                                      .until_version = until,                                      \
                                      .dtypes = F32,                                               \
                                      .prepare = prep,                                             \
                                      .run = run_fn,                                               \
                                      .release = rows_release}
ROW_OP(Softmax, "Softmax", 1, 0, softmax_prepare, softmax_run);
ROW_OP(LogSoftmax, "LogSoftmax", 1, 0, softmax_prepare, softmax_run);
ROW_OP(LayerNormalization, "LayerNormalization", 17, 0, layernorm_prepare, layernorm_run);
ROW_OP(ReduceMean, "ReduceMean", 1, 0, reduce_prepare, reduce_run);
ROW_OP(ReduceSum, "ReduceSum", 1, 0, reduce_prepare, reduce_run);
ROW_OP(ReduceMax, "ReduceMax", 1, 0, reduce_prepare, reduce_run);
ROW_OP(ReduceMin, "ReduceMin", 1, 0, reduce_prepare, reduce_run);
ROW_OP(GlobalAveragePool, "GlobalAveragePool", 1, 0, global_pool_prepare, reduce_run);
ROW_OP(GlobalMaxPool, "GlobalMaxPool", 1, 0, global_pool_prepare, reduce_run);
const kn_op_def kn_cuda_kiln_LayerNormalization = {.domain = "kiln",
                                                   .op_type = "LayerNormalization",
                                                   .since_version = 1,
                                                   .dtypes = F32,
                                                   .prepare = layernorm_prepare,
                                                   .run = layernorm_run,
                                                   .release = rows_release};
const kn_op_def kn_cuda_kiln_NhwcGlobalAveragePool = {.domain = "kiln",
                                                      .op_type = "NhwcGlobalAveragePool",
                                                      .since_version = 1,
                                                      .dtypes = F32,
                                                      .prepare = nhwc_global_pool_prepare,
                                                      .run = reduce_run,
                                                      .release = rows_release};
