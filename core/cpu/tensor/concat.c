/* Concat and Split: block copies on element byte size. Seen as
 * [outer, axis * inner] rows, each input (Concat) or output (Split) owns a
 * fixed byte range of every output (input) row, so the work is outer x
 * n_parts memcpys whatever the dtype. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

typedef struct block_state {
    int64_t outer;     /* product of dims before the axis */
    int64_t row_bytes; /* bytes of one row of the joined tensor */
    int32_t n_parts;
    int64_t *part_off;   /* where each part's bytes start in a joined row */
    int64_t part_bytes[]; /* bytes of one row of each part */
} block_state;

/* State with room for n_parts sizes and offsets; run() needs scratch for
 * the array of part pointers (the count is the model's, not bounded). */
static block_state *block_state_new(kn_kctx *k, int32_t n_parts)
{
    block_state *s = calloc(1, sizeof *s + 2 * sizeof(int64_t) * (size_t)n_parts);
    if (!s) {
        kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
        return NULL;
    }
    s->n_parts = n_parts;
    s->part_off = s->part_bytes + n_parts;
    k->state = s;
    k->scratch_bytes = sizeof(char *) * (size_t)n_parts;
    return s;
}

/* Fills part_off from part_bytes. */
static void block_state_finish(block_state *s)
{
    int64_t off = 0;
    for (int32_t i = 0; i < s->n_parts; i++) {
        s->part_off[i] = off;
        off += s->part_bytes[i];
    }
}

/* Job o * n_parts + p copies part p's bytes of row o (of `outer` rows)
 * between the joined tensor and the part. */
typedef struct block_job {
    const block_state *s;
    char *joined;
    char *const *parts; /* one pointer per part */
    int split;          /* 1: joined -> parts (Split); 0: parts -> joined */
} block_job;

static void block_range(void *ctx, int64_t begin, int64_t end)
{
    const block_job *j = ctx;
    const block_state *s = j->s;
    for (int64_t job = begin; job < end; job++) {
        int64_t o = job / s->n_parts;
        int32_t p = (int32_t)(job % s->n_parts);
        size_t nb = (size_t)s->part_bytes[p];
        if (nb == 0 || !j->parts[p]) /* empty part, or an omitted Split output */
            continue;
        char *row = j->joined + o * s->row_bytes + s->part_off[p];
        char *part = j->parts[p] + o * (int64_t)nb;
        if (j->split)
            memcpy(part, row, nb);
        else
            memcpy(row, part, nb);
    }
}

static void block_run(const block_state *s, char *joined, char *const *parts, int split,
                      kn_threadpool *pool)
{
    block_job job = {s, joined, parts, split};
    int64_t n = s->outer * s->n_parts;
    int64_t avg = s->row_bytes / s->n_parts + 1;
    int64_t grain = 65536 / avg + 1;
    kn_parallel_for(pool, n, grain, block_range, &job);
}

/* ---- Concat ---- */

static int concat_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *first = k->in[0];
    kn_tensor *out = k->out[0];
    int64_t axis_attr = kn_attr_int(k->node, "axis", k->opset < 4 ? 1 : INT64_MIN);
    if (axis_attr == INT64_MIN)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Concat: attribute 'axis' is required");
    int32_t axis = kn_norm_axis(axis_attr, first->rank, k->err);
    if (axis < 0) {
        kn_err_prefix(k->err, "Concat");
        return k->err->code;
    }
    size_t es = kn_dtype_size(first->dtype);
    if (es == 0)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Concat: type %s is not supported",
                       kn_dtype_name(first->dtype));
    kn_copy_desc(out, first);
    out->dims[axis] = 0;
    for (int32_t i = 0; i < k->n_in; i++) {
        const kn_tensor *t = k->in[i];
        if (!t)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Concat: input %d is missing", (int)i);
        if (t->dtype != first->dtype)
            return kn_fail(k->err, KN_ERR_DTYPE, "Concat: input %d is %s, input 0 is %s", (int)i,
                           kn_dtype_name(t->dtype), kn_dtype_name(first->dtype));
        int ok = t->rank == first->rank;
        for (int32_t d = 0; d < first->rank && ok; d++)
            ok = d == axis || t->dims[d] == first->dims[d];
        if (!ok) {
            char a[128], b[128];
            kn_shape_format(first->dims, first->rank, a, sizeof a);
            kn_shape_format(t->dims, t->rank, b, sizeof b);
            return kn_fail(k->err, KN_ERR_SHAPE,
                           "Concat: input %d has shape %s, incompatible with %s on axis %d", (int)i,
                           b, a, (int)axis);
        }
        out->dims[axis] += t->dims[axis];
    }
    block_state *s = block_state_new(k, k->n_in);
    if (!s)
        return k->err->code;
    int64_t inner = kn_shape_numel(first->dims + axis + 1, first->rank - axis - 1) * (int64_t)es;
    s->outer = kn_shape_numel(first->dims, axis);
    s->row_bytes = out->dims[axis] * inner;
    for (int32_t i = 0; i < k->n_in; i++)
        s->part_bytes[i] = k->in[i]->dims[axis] * inner;
    block_state_finish(s);
    return KN_OK;
}

static int concat_run(kn_kctx *k)
{
    const block_state *s = k->state;
    char **parts = k->scratch;
    for (int32_t i = 0; i < s->n_parts; i++)
        parts[i] = k->in[i]->data;
    block_run(s, k->out[0]->data, parts, 0, k->threads);
    return KN_OK;
}

/* ---- Split ---- */

static int split_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *in = k->in[0];
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", 0), in->rank, k->err);
    if (axis < 0) {
        kn_err_prefix(k->err, "Split");
        return k->err->code;
    }
    int32_t n = k->n_out;
    int64_t sizes_buf[64];
    if (n < 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Split: needs at least one output");
    int64_t *sizes = NULL;
    int32_t n_sizes = 0;
    if (n > 64)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Split: %d outputs, at most 64 supported", (int)n);
    if (k->opset < 13) {
        const int64_t *v = kn_attr_ints(k->node, "split", &n_sizes);
        if (v && n_sizes <= 64) {
            memcpy(sizes_buf, v, sizeof(int64_t) * (size_t)n_sizes);
            sizes = sizes_buf;
        }
        if (!v && k->opset < 2 && kn_input(k, 1)) {
            if (kn_const_ints(k, 1, "split", sizes_buf, 64, &n_sizes) != KN_OK)
                return k->err->code;
            sizes = sizes_buf;
        }
    } else if (kn_input(k, 1)) {
        if (kn_const_ints(k, 1, "split", sizes_buf, 64, &n_sizes) != KN_OK)
            return k->err->code;
        sizes = sizes_buf;
    }
    int64_t dim = in->dims[axis];
    if (sizes) {
        int64_t total = 0;
        for (int32_t i = 0; i < n_sizes; i++) {
            if (sizes[i] < 0)
                return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Split: size %d is negative", (int)i);
            total += sizes[i];
        }
        if (n_sizes != n || total != dim)
            return kn_fail(k->err, KN_ERR_SHAPE,
                           "Split: %d sizes summing to %lld for %d outputs of a dim of %lld",
                           (int)n_sizes, (long long)total, (int)n, (long long)dim);
    } else {
        /* Equal parts; since opset 18 the last may be smaller. */
        int64_t part = (dim + n - 1) / n;
        if (dim % n != 0 && k->opset < 18)
            return kn_fail(k->err, KN_ERR_SHAPE, "Split: dim of %lld does not split into %d parts",
                           (long long)dim, (int)n);
        for (int32_t i = 0; i < n; i++) {
            int64_t left = dim - part * i;
            sizes_buf[i] = left < part ? (left > 0 ? left : 0) : part;
        }
        sizes = sizes_buf;
    }
    block_state *s = block_state_new(k, n);
    if (!s)
        return k->err->code;
    size_t es = kn_dtype_size(in->dtype);
    int64_t inner = kn_shape_numel(in->dims + axis + 1, in->rank - axis - 1) * (int64_t)es;
    s->outer = kn_shape_numel(in->dims, axis);
    s->row_bytes = dim * inner;
    for (int32_t i = 0; i < n; i++) {
        kn_tensor *o = k->out[i];
        s->part_bytes[i] = sizes[i] * inner;
        if (!o)
            continue;
        kn_copy_desc(o, in);
        o->dims[axis] = sizes[i];
    }
    block_state_finish(s);
    return KN_OK;
}

static int split_run(kn_kctx *k)
{
    const block_state *s = k->state;
    char **parts = k->scratch;
    for (int32_t i = 0; i < s->n_parts; i++)
        parts[i] = k->out[i] ? k->out[i]->data : NULL;
    block_run(s, k->in[0]->data, parts, 1, k->threads);
    return KN_OK;
}

static void block_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_Concat = {
    .op_type = "Concat", .since_version = 1, .prepare = concat_prepare, .run = concat_run,
    .release = block_release
};
const kn_op_def kn_op_Split = {
    .op_type = "Split", .since_version = 1, .prepare = split_prepare, .run = split_run,
    .release = block_release
};
