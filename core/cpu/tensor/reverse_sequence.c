/* ReverseSequence (opset 10): for each batch entry b, reverses the first
 * sequence_lens[b] steps along the time axis and copies the rest. Time
 * and batch are axes 0 and 1 in either order; the dims after them move as
 * one block. Any fixed-size element type. Lengths are data: one outside
 * [0, time steps] fails at run time with KN_ERR_INVALID_ARGUMENT. */
#include <stdlib.h>
#include <string.h>

#include "core/cpu/image/image_common.h"

typedef struct rseq_state {
    int time_axis;
    int64_t d0, d1, block; /* dims 0, 1 and the elements after them */
    size_t esz;
} rseq_state;

static int rseq_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *lens = k->in[1];
    int64_t ta = kn_attr_int(k->node, "time_axis", 0), ba = kn_attr_int(k->node, "batch_axis", 1);
    if (!((ta == 0 && ba == 1) || (ta == 1 && ba == 0)))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "ReverseSequence: time_axis %lld and batch_axis %lld must be 0 and 1",
                       (long long)ta, (long long)ba);
    size_t esz = kn_dtype_size(x->dtype);
    if (esz == 0)
        return kn_fail(k->err, KN_ERR_DTYPE, "ReverseSequence: type %s is not supported",
                       kn_dtype_name(x->dtype));
    if (x->rank < 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "ReverseSequence: input must have rank >= 2");
    if (lens->dtype != KN_INT64 && lens->dtype != KN_INT32)
        return kn_fail(k->err, KN_ERR_DTYPE, "ReverseSequence: sequence_lens must be int64");
    if (lens->rank != 1 || lens->dims[0] != x->dims[ba])
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "ReverseSequence: sequence_lens must hold one length per batch entry (%lld)",
                       (long long)x->dims[ba]);
    rseq_state *st = malloc(sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "ReverseSequence: out of memory");
    st->time_axis = (int)ta;
    st->d0 = x->dims[0];
    st->d1 = x->dims[1];
    st->block = kn_shape_numel(x->dims + 2, x->rank - 2);
    st->esz = esz;
    k->state = st;
    kn_copy_desc(k->out[0], x);
    return KN_OK;
}

typedef struct rseq_job {
    const rseq_state *st;
    const kn_tensor *lens;
    const char *x;
    char *y;
} rseq_job;

/* One item per (dim 0, dim 1) pair: a block copied from its source step. */
static void rseq_range(void *ctx, int64_t begin, int64_t end)
{
    const rseq_job *j = ctx;
    const rseq_state *st = j->st;
    size_t bytes = (size_t)st->block * st->esz;
    for (int64_t item = begin; item < end; item++) {
        int64_t i0 = item / st->d1, i1 = item % st->d1;
        int64_t t = st->time_axis == 0 ? i0 : i1, b = st->time_axis == 0 ? i1 : i0;
        int64_t len = kn_read_int(j->lens, b), src_t = t < len ? len - 1 - t : t;
        int64_t src = st->time_axis == 0 ? src_t * st->d1 + i1 : i0 * st->d1 + src_t;
        memcpy(j->y + (size_t)item * bytes, j->x + (size_t)src * bytes, bytes);
    }
}

static int rseq_run(kn_kctx *k)
{
    const rseq_state *st = k->state;
    rseq_job j = {st, k->in[1], k->in[0]->data, k->out[0]->data};
    int64_t steps = st->time_axis == 0 ? st->d0 : st->d1,
            batch = st->time_axis == 0 ? st->d1 : st->d0;
    for (int64_t b = 0; b < batch; b++) {
        int64_t len = kn_read_int(j.lens, b);
        if (len < 0 || len > steps)
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                           "ReverseSequence: sequence_lens[%lld] = %lld is outside [0, %lld]",
                           (long long)b, (long long)len, (long long)steps);
    }
    kn_parallel_for(k->threads, st->d0 * st->d1, 1 + KN_GRAIN / (st->block + 1), rseq_range, &j);
    return KN_OK;
}

static void rseq_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_reversesequence_10 = {
    .op_type = "ReverseSequence", .since_version = 10, .dtypes = KN_MASK_ANY_FIXED,
    .prepare = rseq_prepare, .run = rseq_run, .release = rseq_release
};
