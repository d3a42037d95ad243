/* Gather: out[o, j, i] = data[o, indices[j], i] with o over the dims before
 * `axis`, j over the indices' shape and i over the dims after it. Each
 * (o, j) is one block copy of the inner bytes, so any dtype works. Indices
 * (int32 or int64, negative counting from the end) are all checked before
 * anything is copied: an index out of range is an error, never a read
 * outside data. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

typedef struct gather_state {
    int64_t outer;       /* product of data dims before axis */
    int64_t axis_dim;    /* data dims[axis] */
    int64_t n_idx;       /* number of indices */
    size_t inner_bytes;  /* bytes of one block: product of dims after axis */
    int32_t axis;
} gather_state;

/* Checks every index; fails naming the first bad one. */
static int check_indices(kn_kctx *k, const kn_tensor *idx, const gather_state *s)
{
    for (int64_t j = 0; j < s->n_idx; j++) {
        int64_t v = kn_read_int(idx, j);
        if (v < -s->axis_dim || v >= s->axis_dim)
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                           "%s: index %lld (position %lld) out of range for axis %d of size %lld",
                           k->node->op_type, (long long)v, (long long)j, (int)s->axis,
                           (long long)s->axis_dim);
    }
    return KN_OK;
}

static int gather_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *data = k->in[0], *idx = kn_input(k, 1);
    kn_tensor *out = k->out[0];
    if (!idx)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Gather: input 'indices' is missing");
    if (idx->dtype != KN_INT32 && idx->dtype != KN_INT64)
        return kn_fail(k->err, KN_ERR_DTYPE, "Gather: indices must be int32 or int64, not %s",
                       kn_dtype_name(idx->dtype));
    size_t es = kn_dtype_size(data->dtype);
    if (es == 0)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Gather: type %s is not supported",
                       kn_dtype_name(data->dtype));
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", 0), data->rank, k->err);
    if (axis < 0) {
        kn_err_prefix(k->err, "Gather");
        return k->err->code;
    }
    int32_t rank = data->rank - 1 + idx->rank;
    if (rank > KN_MAX_RANK)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Gather: output rank %d exceeds the supported %d",
                       (int)rank, KN_MAX_RANK);
    out->dtype = data->dtype;
    out->rank = rank;
    int32_t r = 0;
    for (int32_t d = 0; d < axis; d++)
        out->dims[r++] = data->dims[d];
    for (int32_t d = 0; d < idx->rank; d++)
        out->dims[r++] = idx->dims[d];
    for (int32_t d = axis + 1; d < data->rank; d++)
        out->dims[r++] = data->dims[d];

    gather_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Gather: out of memory");
    k->state = s;
    s->axis = axis;
    s->outer = kn_shape_numel(data->dims, axis);
    s->axis_dim = data->dims[axis];
    s->n_idx = kn_tensor_numel(idx);
    s->inner_bytes = (size_t)kn_shape_numel(data->dims + axis + 1, data->rank - axis - 1) * es;
    /* Constant indices (embedding lookups of fixed ids, shape slicing) are
     * checked now so a bad model fails at load time. */
    if (idx->data)
        return check_indices(k, idx, s);
    return KN_OK;
}

typedef struct gather_job {
    const gather_state *s;
    const char *data;
    const kn_tensor *idx;
    char *out;
} gather_job;

#define GATHER_COPY(T)                                                        \
    for (int64_t b = begin; b < end; b++) {                                   \
        int64_t o = b / s->n_idx, v = index_at(j->idx, b % s->n_idx);         \
        if (v < 0)                                                            \
            v += s->axis_dim;                                                 \
        ((T *)j->out)[b] = ((const T *)j->data)[o * s->axis_dim + v];         \
    }

static inline int64_t index_at(const kn_tensor *idx, int64_t i)
{
    return idx->dtype == KN_INT64 ? ((const int64_t *)idx->data)[i]
                                  : ((const int32_t *)idx->data)[i];
}

/* Blocks [begin, end) of outer x n_idx. Single-element blocks (gathering
 * scalars) copy typed; larger ones use memcpy. */
static void gather_range(void *ctx, int64_t begin, int64_t end)
{
    const gather_job *j = ctx;
    const gather_state *s = j->s;
    switch (s->inner_bytes) {
    case 4: GATHER_COPY(uint32_t); return;
    case 8: GATHER_COPY(uint64_t); return;
    default: break;
    }
    const size_t nb = s->inner_bytes;
    for (int64_t b = begin; b < end; b++) {
        int64_t o = b / s->n_idx, v = index_at(j->idx, b % s->n_idx);
        if (v < 0)
            v += s->axis_dim;
        memcpy(j->out + (size_t)b * nb, j->data + (size_t)(o * s->axis_dim + v) * nb, nb);
    }
}

static int gather_run(kn_kctx *k)
{
    const gather_state *s = k->state;
    const kn_tensor *idx = k->in[1];
    if (check_indices(k, idx, s) != KN_OK)
        return k->err->code;
    if (s->inner_bytes == 0)
        return KN_OK;
    gather_job job = {s, k->in[0]->data, idx, k->out[0]->data};
    int64_t grain = (int64_t)(65536 / s->inner_bytes) + 1;
    kn_parallel_for(k->threads, s->outer * s->n_idx, grain, gather_range, &job);
    return KN_OK;
}

static void gather_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_Gather = {
    .op_type = "Gather", .since_version = 1, .prepare = gather_prepare, .run = gather_run,
    .release = gather_release
};

/* ---- GatherElements: out[i] = data[i with i[axis] = indices[i]] ---- */

typedef struct gather_el_state {
    int32_t rank, axis;
    int64_t dims[KN_MAX_RANK];    /* indices' (= output's) dims */
    int64_t strides[KN_MAX_RANK]; /* data's strides, element units */
    int64_t axis_dim;
    size_t es;
} gather_el_state;

typedef struct gather_el_job {
    const gather_el_state *s;
    const char *data;
    const kn_tensor *idx;
    char *out;
} gather_el_job;

/* Walks output elements [begin, end) with an odometer over the indices'
 * dims; the data offset is the odometer's with the axis coordinate
 * replaced by the index value. */
static void gather_el_range(void *ctx, int64_t begin, int64_t end)
{
    const gather_el_job *j = ctx;
    const gather_el_state *s = j->s;
    const int32_t last = s->rank - 1;
    int64_t pos[KN_MAX_RANK], base = 0, rem = begin;
    for (int32_t d = last; d >= 0; d--) {
        pos[d] = rem % s->dims[d];
        rem /= s->dims[d];
        if (d != s->axis)
            base += pos[d] * s->strides[d];
    }
    for (int64_t i = begin; i < end; i++) {
        int64_t v = index_at(j->idx, i);
        if (v < 0)
            v += s->axis_dim;
        memcpy(j->out + (size_t)i * s->es, j->data + (size_t)(base + v * s->strides[s->axis]) * s->es,
               s->es);
        for (int32_t d = last; d >= 0; d--) {
            if (d != s->axis)
                base += s->strides[d];
            if (++pos[d] < s->dims[d])
                break;
            if (d != s->axis)
                base -= pos[d] * s->strides[d];
            pos[d] = 0;
        }
    }
}

static int gather_el_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *data = k->in[0], *idx = kn_input(k, 1);
    if (!idx || (idx->dtype != KN_INT32 && idx->dtype != KN_INT64))
        return kn_fail(k->err, KN_ERR_DTYPE, "GatherElements: indices must be int32 or int64");
    if (idx->rank != data->rank || data->rank < 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "GatherElements: indices have rank %d, data %d",
                       (int)idx->rank, (int)data->rank);
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", 0), data->rank, k->err);
    if (axis < 0) {
        kn_err_prefix(k->err, "GatherElements");
        return k->err->code;
    }
    for (int32_t d = 0; d < data->rank; d++)
        if (d != axis && idx->dims[d] > data->dims[d])
            return kn_fail(k->err, KN_ERR_SHAPE,
                           "GatherElements: indices dim %d is %lld, data has only %lld", (int)d,
                           (long long)idx->dims[d], (long long)data->dims[d]);
    size_t es = kn_dtype_size(data->dtype);
    if (es == 0)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "GatherElements: type %s is not supported",
                       kn_dtype_name(data->dtype));
    gather_el_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "GatherElements: out of memory");
    k->state = s;
    s->rank = data->rank;
    s->axis = axis;
    s->axis_dim = data->dims[axis];
    s->es = es;
    memcpy(s->dims, idx->dims, sizeof s->dims);
    kn_dense_strides(data->dims, data->rank, s->strides);
    kn_copy_desc(k->out[0], idx);
    k->out[0]->dtype = data->dtype;
    gather_state check = {.axis = axis, .axis_dim = s->axis_dim, .n_idx = kn_tensor_numel(idx)};
    return idx->data ? check_indices(k, idx, &check) : KN_OK;
}

static int gather_el_run(kn_kctx *k)
{
    const gather_el_state *s = k->state;
    const kn_tensor *idx = k->in[1];
    gather_state check = {.axis = s->axis, .axis_dim = s->axis_dim, .n_idx = kn_tensor_numel(idx)};
    if (check_indices(k, idx, &check) != KN_OK)
        return k->err->code;
    gather_el_job job = {s, k->in[0]->data, idx, k->out[0]->data};
    kn_parallel_for(k->threads, check.n_idx, KN_GRAIN, gather_el_range, &job);
    return KN_OK;
}

/* ---- GatherND: slices of data addressed by index tuples ---- */

typedef struct gather_nd_state {
    int32_t m;            /* tuple length: indices' last dim */
    int64_t n_tuples;     /* product of indices' other dims */
    int64_t per_batch;    /* tuples per batch entry */
    int64_t batch_elems;  /* data elements per batch entry */
    int64_t dims[KN_MAX_RANK], strides[KN_MAX_RANK]; /* data dims/strides after the batch dims */
    size_t block_bytes;   /* bytes of one addressed slice */
} gather_nd_state;

static int gather_nd_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *data = k->in[0], *idx = kn_input(k, 1);
    kn_tensor *out = k->out[0];
    if (!idx || idx->dtype != KN_INT64)
        return kn_fail(k->err, KN_ERR_DTYPE, "GatherND: indices must be int64");
    int64_t b = kn_attr_int(k->node, "batch_dims", 0);
    size_t es = kn_dtype_size(data->dtype);
    if (idx->rank < 1 || b < 0 || b >= idx->rank || b >= data->rank)
        return kn_fail(k->err, KN_ERR_SHAPE, "GatherND: batch_dims %lld does not fit ranks %d and %d",
                       (long long)b, (int)data->rank, (int)idx->rank);
    int32_t m = (int32_t)idx->dims[idx->rank - 1];
    if (m < 1 || m > data->rank - b)
        return kn_fail(k->err, KN_ERR_SHAPE, "GatherND: index tuples of %d for data of rank %d",
                       (int)m, (int)data->rank);
    for (int32_t d = 0; d < b; d++)
        if (idx->dims[d] != data->dims[d])
            return kn_fail(k->err, KN_ERR_SHAPE, "GatherND: batch dim %d differs (%lld vs %lld)",
                           (int)d, (long long)idx->dims[d], (long long)data->dims[d]);
    int32_t rank = idx->rank - 1 + data->rank - (int32_t)b - m;
    if (es == 0 || rank > KN_MAX_RANK)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "GatherND: type %s / output rank %d not supported",
                       kn_dtype_name(data->dtype), (int)rank);
    gather_nd_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "GatherND: out of memory");
    k->state = s;
    s->m = m;
    s->n_tuples = kn_shape_numel(idx->dims, idx->rank - 1);
    int64_t batches = kn_shape_numel(idx->dims, (int32_t)b);
    s->per_batch = batches ? s->n_tuples / batches : 0;
    s->batch_elems = kn_shape_numel(data->dims + b, data->rank - (int32_t)b);
    kn_dense_strides(data->dims + b, data->rank - (int32_t)b, s->strides);
    memcpy(s->dims, data->dims + b, sizeof(int64_t) * (size_t)(data->rank - b));
    s->block_bytes = (size_t)kn_shape_numel(data->dims + b + m, data->rank - (int32_t)b - m) * es;
    out->dtype = data->dtype;
    out->rank = 0;
    for (int32_t d = 0; d < idx->rank - 1; d++)
        out->dims[out->rank++] = idx->dims[d];
    for (int32_t d = (int32_t)b + m; d < data->rank; d++)
        out->dims[out->rank++] = data->dims[d];
    return KN_OK;
}

/* Element offset in data of tuple t, or -1 when a coordinate is out of
 * range (negative coordinates count from the end). */
static int64_t nd_offset(const gather_nd_state *s, const int64_t *idx, int64_t t)
{
    int64_t off = (s->per_batch ? t / s->per_batch : 0) * s->batch_elems;
    for (int32_t d = 0; d < s->m; d++) {
        int64_t v = idx[t * s->m + d];
        v = v < 0 ? v + s->dims[d] : v;
        if (v < 0 || v >= s->dims[d])
            return -1;
        off += v * s->strides[d];
    }
    return off;
}

typedef struct gather_nd_job {
    const gather_nd_state *s;
    const char *data;
    const int64_t *idx;
    char *out;
    size_t es;
} gather_nd_job;

static void gather_nd_range(void *ctx, int64_t begin, int64_t end)
{
    const gather_nd_job *j = ctx;
    for (int64_t t = begin; t < end; t++)
        memcpy(j->out + (size_t)t * j->s->block_bytes,
               j->data + (size_t)nd_offset(j->s, j->idx, t) * j->es, j->s->block_bytes);
}

static int gather_nd_run(kn_kctx *k)
{
    const gather_nd_state *s = k->state;
    const int64_t *idx = k->in[1]->data;
    for (int64_t t = 0; t < s->n_tuples; t++)
        if (nd_offset(s, idx, t) < 0)
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "GatherND: index tuple %lld is out of range",
                           (long long)t);
    gather_nd_job job = {s, k->in[0]->data, idx, k->out[0]->data, kn_dtype_size(k->in[0]->dtype)};
    if (s->block_bytes)
        kn_parallel_for(k->threads, s->n_tuples, 65536 / (int64_t)s->block_bytes + 1, gather_nd_range,
                        &job);
    return KN_OK;
}

const kn_op_def kn_op_GatherElements = {
    .op_type = "GatherElements", .since_version = 11, .prepare = gather_el_prepare,
    .run = gather_el_run, .release = gather_release
};
const kn_op_def kn_op_GatherND = {
    .op_type = "GatherND", .since_version = 11, .prepare = gather_nd_prepare,
    .run = gather_nd_run, .release = gather_release
};
