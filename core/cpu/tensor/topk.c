/* TopK (opsets 1, 10, 11+): the K largest (or smallest) elements along an
 * axis and their int64 indices, best first; equal values keep the lower
 * index first (as ONNX's reference does, both for largest and smallest).
 * K is an attribute before opset 10, a 1-element input after: the output
 * shape depends on it, so a K that is not known at prepare time asks the
 * runtime to plan eagerly. Results are always sorted, which `sorted = 0`
 * allows.
 *
 * Each slice along the axis is loaded as typed keys into the task's scratch
 * slot, then a heap of the K best seen so far (root = worst of them) is
 * kept in one pass, O(n log K), and heap-sorted best first. Keys compare in
 * their own type, so int64/uint64 stay exact; halves compare as float. A NaN
 * ranks above every number (largest) or below (smallest). */
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/cpu/tensor/compare_keys.h"
#include "core/kernel/tensor_common.h"

typedef struct topk_state {
    int32_t dtype;
    int largest;
    int64_t k, outer, n, inner;
    int32_t tasks;
    size_t slot_bytes; /* keys (n * 8) + heap (k * 8) per task */
} topk_state;

typedef struct topk_job {
    const topk_state *s;
    const char *x;
    char *values;
    int64_t *indices;
    char *scratch;
} topk_job;

#define TOPK_TYPES(X)                                                         \
    KN_TYPES_REAL(X, _)                                                       \
    X(_, H, KN_FLOAT16, uint16_t, uint16_t)                                   \
    X(_, B, KN_BFLOAT16, uint16_t, uint16_t)

/* BETTER(a, b): element a ranks before element b. With NaN above every
 * number, "largest" orders descending and "smallest" ascending; ties go to
 * the lower index. */
#define TOPK_SLICE(arg, C, DT, T, U)                                                          \
    static int topk_better_##DT(const KEY_##C(T) * key, int largest, int64_t a, int64_t b)    \
    {                                                                                         \
        KEY_##C(T) va = key[a], vb = key[b];                                                  \
        int na = ISNAN_##C(va), nb = ISNAN_##C(vb);                                           \
        if (na || nb) {                                                                       \
            if (na && nb)                                                                     \
                return a < b;                                                                 \
            return largest ? na : nb;                                                         \
        }                                                                                     \
        if (va != vb)                                                                         \
            return largest ? va > vb : va < vb;                                               \
        return a < b;                                                                         \
    }                                                                                         \
    /* Restores the heap below position i: the root is the worst kept element. */            \
    static void topk_sift_##DT(const KEY_##C(T) * key, int largest, int64_t *h, int64_t m,    \
                               int64_t i)                                                     \
    {                                                                                         \
        for (;;) {                                                                            \
            int64_t l = 2 * i + 1, r = l + 1, w = i;                                          \
            if (l < m && topk_better_##DT(key, largest, h[w], h[l]))                          \
                w = l;                                                                        \
            if (r < m && topk_better_##DT(key, largest, h[w], h[r]))                          \
                w = r;                                                                        \
            if (w == i)                                                                       \
                return;                                                                       \
            int64_t t = h[i];                                                                 \
            h[i] = h[w], h[w] = t, i = w;                                                     \
        }                                                                                     \
    }                                                                                         \
    static void topk_slice_##DT(const topk_job *j, int64_t slice, char *slot)                 \
    {                                                                                         \
        typedef KEY_##C(T) K;                                                                 \
        const topk_state *s = j->s;                                                           \
        int64_t o = slice / s->inner, in = slice % s->inner, kk = s->k;                       \
        const T *x = (const T *)j->x + o * s->n * s->inner + in;                              \
        K *key = (K *)slot;                                                                   \
        int64_t *h = (int64_t *)(slot + (size_t)s->n * 8);                                    \
        for (int64_t i = 0; i < s->n; i++)                                                    \
            key[i] = LOAD_##C(x[i * s->inner]);                                               \
        for (int64_t i = 0; i < kk; i++)                                                      \
            h[i] = i;                                                                         \
        for (int64_t i = kk / 2 - 1; i >= 0; i--)                                             \
            topk_sift_##DT(key, s->largest, h, kk, i);                                        \
        for (int64_t i = kk; i < s->n; i++)                                                   \
            if (kk > 0 && topk_better_##DT(key, s->largest, i, h[0])) {                       \
                h[0] = i;                                                                     \
                topk_sift_##DT(key, s->largest, h, kk, 0);                                    \
            }                                                                                 \
        /* Heap sort: the worst goes to the back each time, best ends first. */               \
        for (int64_t m = kk - 1; m > 0; m--) {                                                \
            int64_t t = h[0];                                                                 \
            h[0] = h[m], h[m] = t;                                                            \
            topk_sift_##DT(key, s->largest, h, m, 0);                                         \
        }                                                                                     \
        T *v = (T *)j->values + o * kk * s->inner + in;                                       \
        int64_t *ix = j->indices + o * kk * s->inner + in;                                    \
        for (int64_t i = 0; i < kk; i++) {                                                    \
            v[i * s->inner] = x[h[i] * s->inner];                                             \
            ix[i * s->inner] = h[i];                                                          \
        }                                                                                     \
    }
TOPK_TYPES(TOPK_SLICE)

#define TOPK_CASE(arg, C, DT, T, U)                                           \
    case DT: topk_slice_##DT(j, sl, slot); break;

static void topk_task(void *ctx, int64_t begin, int64_t end)
{
    const topk_job *j = ctx;
    const topk_state *s = j->s;
    int64_t slices = s->outer * s->inner;
    for (int64_t t = begin; t < end; t++) {
        char *slot = j->scratch + (size_t)t * s->slot_bytes;
        for (int64_t sl = slices * t / s->tasks; sl < slices * (t + 1) / s->tasks; sl++) {
            switch (s->dtype) {
            TOPK_TYPES(TOPK_CASE)
            default: break;
            }
        }
    }
}

static int topk_prepare(kn_kctx *k, int k_input)
{
    if (kn_need_inputs(k, k_input ? 2 : 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    int32_t dt = x->dtype;
    if (!kn_convert_supported(dt) || dt == KN_BOOL)
        return kn_fail(k->err, KN_ERR_DTYPE, "TopK: input type %s is not supported",
                       kn_dtype_name(dt));
    if (x->rank < 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "TopK: input is a scalar, expected rank >= 1");
    if (k->n_out < 2 || !k->out[1])
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "TopK: outputs Values and Indices are required");
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", -1), x->rank, k->err);
    if (axis < 0) {
        kn_err_prefix(k->err, "TopK");
        return k->err->code;
    }
    int64_t kk;
    if (k_input) {
        const kn_tensor *kt = k->in[1];
        if ((kt->dtype != KN_INT64 && kt->dtype != KN_INT32) || kn_tensor_numel(kt) != 1)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "TopK: input 'K' must be one int64 value");
        if (!kt->data)
            return kn_fail(k->err, KN_ERR_NEEDS_VALUE,
                           "TopK: output shape depends on the value of input 'K'");
        kk = kn_read_int(kt, 0);
    } else {
        kk = kn_attr_int(k->node, "k", -1);
    }
    /* K is part of the output shape: one that does not fit the axis is a
     * shape error, whether it is a constant or was computed. */
    if (kk < 0 || kk > x->dims[axis])
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "TopK: K = %lld is outside [0, %lld] (the size of axis %d)", (long long)kk,
                       (long long)x->dims[axis], (int)axis);
    topk_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "TopK: out of memory");
    k->state = s;
    s->dtype = dt;
    s->largest = kn_attr_int(k->node, "largest", 1) != 0;
    s->k = kk;
    s->outer = kn_shape_numel(x->dims, axis);
    s->n = x->dims[axis];
    s->inner = kn_shape_numel(x->dims + axis + 1, x->rank - axis - 1);
    int64_t slices = s->outer * s->inner;
    int32_t threads = kn_threadpool_threads(k->threads);
    /* Small problems run as one task: the pool costs more than it saves. */
    if (slices * s->n < KN_GRAIN)
        threads = 1;
    s->tasks = slices < threads ? (int32_t)(slices > 0 ? slices : 1) : threads;
    s->slot_bytes = kn_align_up((size_t)(s->n + kk) * 8, 16);
    k->scratch_bytes = (size_t)s->tasks * s->slot_bytes;
    for (int32_t i = 0; i < 2; i++) {
        kn_copy_desc(k->out[i], x);
        k->out[i]->dims[axis] = kk;
    }
    k->out[1]->dtype = KN_INT64;
    return KN_OK;
}

static int topk_prepare_attr(kn_kctx *k) { return topk_prepare(k, 0); }
static int topk_prepare_input(kn_kctx *k) { return topk_prepare(k, 1); }

static int topk_run(kn_kctx *k)
{
    const topk_state *s = k->state;
    if (s->k == 0 || s->outer * s->inner == 0)
        return KN_OK;
    topk_job j = {s, k->in[0]->data, k->out[0]->data, k->out[1]->data, k->scratch};
    kn_parallel_for(k->threads, s->tasks, 1, topk_task, &j);
    return KN_OK;
}

static void topk_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

#define TOPK_MASK (KN_MASK_NUMERIC | KN_MASK_HALF)
const kn_op_def kn_op_TopK_1 = {
    .op_type = "TopK", .since_version = 1, .until_version = 9, .dtypes = TOPK_MASK,
    .prepare = topk_prepare_attr, .run = topk_run, .release = topk_release
};
const kn_op_def kn_op_TopK_10 = {
    .op_type = "TopK", .since_version = 10, .dtypes = TOPK_MASK, .prepare = topk_prepare_input,
    .run = topk_run, .release = topk_release
};
