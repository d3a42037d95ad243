/* Softmax, LogSoftmax and Hardmax (opsets 1, 11, 13).
 *
 * Before opset 13 the input is read as a 2-D matrix split at `axis`
 * (default 1) and each row of the flattened trailing dims is normalised;
 * from 13 on, the op works along the single dim `axis` (default -1). Both
 * are the same loop over an (outer, n, inner) view: n values to normalise,
 * inner apart. Softmax subtracts the maximum before exponentiating so that
 * large inputs do not overflow. */
#include <math.h>
#include <stdlib.h>

#include "core/kernel/op.h"
#include "core/simd/kernels.h"
#include "core/kernel/half_path.h"

enum { KIND_SOFTMAX, KIND_LOGSOFTMAX, KIND_HARDMAX };

typedef struct smax_state {
    int kind;
    int32_t dtype;
    int64_t outer, n, inner;
} smax_state;

static int smax_prepare(kn_kctx *k, int kind)
{
    const kn_tensor *x = k->in[0];
    const char *op = k->node->op_type;
    if (!x)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: input is required", op);
    int64_t axis_attr = kn_attr_int(k->node, "axis", k->opset >= 13 ? -1 : 1);
    if (x->rank == 0)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: input is a scalar, expected rank >= 1", op);
    int32_t axis = kn_norm_axis(axis_attr, x->rank, k->err);
    if (axis < 0)
        return k->err->code;
    smax_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    st->kind = kind;
    st->dtype = x->dtype;
    st->outer = st->n = st->inner = 1;
    for (int32_t i = 0; i < x->rank; i++) {
        if (i < axis)
            st->outer *= x->dims[i];
        else if (i == axis || k->opset < 13)
            st->n *= x->dims[i];
        else
            st->inner *= x->dims[i];
    }
    k->state = st;
    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = x->rank;
    for (int32_t i = 0; i < x->rank; i++)
        y->dims[i] = x->dims[i];
    return KN_OK;
}

static int softmax_prepare(kn_kctx *k) { return smax_prepare(k, KIND_SOFTMAX); }
static int logsoftmax_prepare(kn_kctx *k) { return smax_prepare(k, KIND_LOGSOFTMAX); }
static int hardmax_prepare(kn_kctx *k) { return smax_prepare(k, KIND_HARDMAX); }

typedef struct smax_job {
    const smax_state *st;
    const void *x;
    void *y;
    int64_t blocks; /* column blocks per outer index */
} smax_job;

/* Columns are handled KN_COLS at a time: each step down the n values then
 * touches KN_COLS adjacent elements, which keeps strided (inner > 1)
 * layouts cache-friendly and lets the per-column loops vectorise. */
#define KN_COLS 16
#define KN_DEFINE_SMAX(T, SFX, EXP, LOG)                                                           \
    static void smax_block_##SFX(const smax_job *j, int64_t blk)                                   \
    {                                                                                              \
        const smax_state *st = j->st;                                                              \
        int64_t o = blk / j->blocks, c0 = (blk % j->blocks) * KN_COLS;                             \
        int64_t w = st->inner - c0 < KN_COLS ? st->inner - c0 : KN_COLS, inner = st->inner;        \
        const T *x = (const T *)j->x + o * st->n * inner + c0;                                     \
        T *y = (T *)j->y + o * st->n * inner + c0;                                                 \
        T m[KN_COLS], s[KN_COLS];                                                                  \
        int64_t at[KN_COLS];                                                                       \
        for (int64_t l = 0; l < w; l++) {                                                          \
            m[l] = x[l];                                                                           \
            at[l] = 0;                                                                             \
        }                                                                                          \
        for (int64_t r = 1; r < st->n; r++)                                                        \
            for (int64_t l = 0; l < w; l++)                                                        \
                if (x[r * inner + l] > m[l]) {                                                     \
                    m[l] = x[r * inner + l];                                                       \
                    at[l] = r;                                                                     \
                }                                                                                  \
        if (st->kind == KIND_HARDMAX) {                                                            \
            for (int64_t r = 0; r < st->n; r++)                                                    \
                for (int64_t l = 0; l < w; l++)                                                    \
                    y[r * inner + l] = r == at[l] ? 1 : 0;                                         \
            return;                                                                                \
        }                                                                                          \
        for (int64_t l = 0; l < w; l++)                                                            \
            s[l] = 0;                                                                              \
        for (int64_t r = 0; r < st->n; r++)                                                        \
            for (int64_t l = 0; l < w; l++) {                                                      \
                T e = EXP(x[r * inner + l] - m[l]);                                                \
                s[l] += e;                                                                         \
                if (st->kind == KIND_SOFTMAX)                                                      \
                    y[r * inner + l] = e;                                                          \
            }                                                                                      \
        if (st->kind == KIND_SOFTMAX) {                                                            \
            for (int64_t r = 0; r < st->n; r++)                                                    \
                for (int64_t l = 0; l < w; l++)                                                    \
                    y[r * inner + l] /= s[l];                                                      \
        } else {                                                                                   \
            /* (x - max) first: exact for nearby values, so large inputs */                        \
            /* keep their precision. */                                                            \
            for (int64_t l = 0; l < w; l++)                                                        \
                s[l] = LOG(s[l]);                                                                  \
            for (int64_t r = 0; r < st->n; r++)                                                    \
                for (int64_t l = 0; l < w; l++)                                                    \
                    y[r * inner + l] = (x[r * inner + l] - m[l]) - s[l];                           \
        }                                                                                          \
    }

KN_DEFINE_SMAX(float, f32, expf, logf)
KN_DEFINE_SMAX(double, f64, exp, log)

static void smax_range(void *ctx, int64_t begin, int64_t end)
{
    const smax_job *j = ctx;
    const smax_state *st = j->st;
    if (st->dtype == KN_FLOAT && st->inner == 1 && st->kind != KIND_HARDMAX) {
        /* contiguous rows (the last axis): one block per row, vector kernel */
        const kn_simd_kernels *ks = kn_simd();
        for (int64_t b = begin; b < end; b++)
            ks->softmax_row((float *)j->y + b * st->n, (const float *)j->x + b * st->n, st->n,
                            st->kind == KIND_LOGSOFTMAX);
        return;
    }
    for (int64_t b = begin; b < end; b++) {
        if (j->st->dtype == KN_DOUBLE)
            smax_block_f64(j, b);
        else
            smax_block_f32(j, b);
    }
}

static int smax_run(kn_kctx *k)
{
    const smax_state *st = k->state;
    if (st->n == 0 || st->inner == 0 || st->outer == 0)
        return KN_OK;
    smax_job j = {st, k->in[0]->data, k->out[0]->data, (st->inner + KN_COLS - 1) / KN_COLS};
    int64_t per_block = st->n * (st->inner < KN_COLS ? st->inner : KN_COLS);
    kn_parallel_for(k->threads, st->outer * j.blocks, 1 + 8192 / per_block, smax_range, &j);
    return KN_OK;
}

static void smax_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* float16 and bfloat16 run the float code above on widened copies
 * (half_path.h), in place in one float slot. */
#define KN_SMAX_HALF(NAME, PREPARE)                                                                \
    static const kn_half_spec NAME##_half = {.prepare = PREPARE, .run = smax_run,                  \
                                             .release = smax_release, .widen = 0x1,                \
                                             .inplace = 1, .bf16_since = 13};                      \
    KN_HALF_ENTRY_POINTS(NAME, NAME##_half)

KN_SMAX_HALF(softmax, softmax_prepare)
KN_SMAX_HALF(logsoftmax, logsoftmax_prepare)
KN_SMAX_HALF(hardmax, hardmax_prepare)

/* Two entries per op: opsets 1-12 flatten at axis, 13+ work along it;
 * float16 from 1, bfloat16 from 13. In place is safe: every pass reads an
 * element before writing it, and blocks own disjoint columns (a half node
 * widens its input before the output is written). */
#define KN_SMAX_OP(NAME, OP, FROM, TO, TYPES, KIND)                                                \
    const kn_op_def NAME = { \
    .op_type = OP, .since_version = FROM, .until_version = TO, .dtypes = TYPES, \
    .flags = KN_OP_INPLACE, .prepare = KIND##_any_prepare, .run = KIND##_any_run, \
    .release = KIND##_any_release \
};

#define KN_SMAX_1 (KN_MASK_FLOATS | KN_BIT(KN_FLOAT16))
#define KN_SMAX_13 (KN_SMAX_1 | KN_BIT(KN_BFLOAT16))
KN_SMAX_OP(kn_op_softmax_1, "Softmax", 1, 12, KN_SMAX_1, softmax)
KN_SMAX_OP(kn_op_softmax_13, "Softmax", 13, 0, KN_SMAX_13, softmax)
KN_SMAX_OP(kn_op_logsoftmax_1, "LogSoftmax", 1, 12, KN_SMAX_1, logsoftmax)
KN_SMAX_OP(kn_op_logsoftmax_13, "LogSoftmax", 13, 0, KN_SMAX_13, logsoftmax)
KN_SMAX_OP(kn_op_hardmax_1, "Hardmax", 1, 12, KN_SMAX_1, hardmax)
KN_SMAX_OP(kn_op_hardmax_13, "Hardmax", 13, 0, KN_SMAX_13, hardmax)
