/* ScatterElements (and its deprecated name Scatter) and ScatterND: the
 * output is a copy of data with elements (or slices) at indexed places
 * replaced by -- or, with `reduction`, combined with -- the updates. The
 * copy is parallel; the scatter itself runs in index order on one thread,
 * so duplicate indices resolve the same way every run (last one wins, or
 * all of them combine). Every index is checked before anything is
 * written. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

enum { RED_NONE, RED_ADD, RED_MUL, RED_MAX, RED_MIN };

typedef struct scatter_state {
    int reduction;
    int32_t dtype;
    size_t es;
    /* ScatterElements */
    int32_t rank, axis;
    int64_t upd_dims[KN_MAX_RANK], data_strides[KN_MAX_RANK], axis_dim;
    /* ScatterND */
    int32_t m;                    /* tuple length */
    int64_t n_tuples, slice_elems;
    int64_t data_dims[KN_MAX_RANK];
} scatter_state;

static int read_reduction(kn_kctx *k, int *red)
{
    static const char *const names[] = {"none", "add", "mul", "max", "min"};
    const char *r = kn_attr_string(k->node, "reduction", "none");
    for (int i = 0; i < 5; i++)
        if (strcmp(r, names[i]) == 0) {
            *red = i;
            return KN_OK;
        }
    return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: reduction '%s' is not supported",
                   k->node->op_type, r);
}

/* dst (op)= src for n elements of dtype. Integers combine through int64,
 * everything else through double (exact for all float types). */
static void combine(int red, int32_t dt, char *dst, const char *src, int64_t n, size_t es)
{
    if (red == RED_NONE) {
        memcpy(dst, src, (size_t)n * es);
        return;
    }
    int integral = (KN_BIT(dt) & KN_MASK_INTS) || dt == KN_BOOL;
    for (int64_t i = 0; i < n; i++, dst += es, src += es) {
        if (integral) {
            int64_t a, b;
            kn_convert(dt, dst, KN_INT64, &a, 1);
            kn_convert(dt, src, KN_INT64, &b, 1);
            int64_t r = red == RED_ADD   ? (int64_t)((uint64_t)a + (uint64_t)b)
                        : red == RED_MUL ? (int64_t)((uint64_t)a * (uint64_t)b)
                        : red == RED_MAX ? (a > b ? a : b)
                                         : (a < b ? a : b);
            kn_convert(KN_INT64, &r, dt, dst, 1);
        } else {
            double a, b;
            kn_convert(dt, dst, KN_DOUBLE, &a, 1);
            kn_convert(dt, src, KN_DOUBLE, &b, 1);
            double r = red == RED_ADD ? a + b : red == RED_MUL ? a * b
                       : red == RED_MAX ? (a > b || a != a ? a : b)
                                        : (a < b || a != a ? a : b);
            kn_convert(KN_DOUBLE, &r, dt, dst, 1);
        }
    }
}

static void copy_data(kn_kctx *k)
{
    const kn_tensor *data = k->in[0];
    kn_tensor *out = k->out[0];
    int64_t nb = kn_tensor_nbytes(out);
    if (out->data != data->data && nb > 0)
        memcpy(out->data, data->data, (size_t)nb);
}

static int common_prepare(kn_kctx *k, scatter_state *s)
{
    if (kn_need_inputs(k, 3) != KN_OK)
        return k->err->code;
    const kn_tensor *data = k->in[0], *idx = kn_input(k, 1), *upd = kn_input(k, 2);
    const char *op = k->node->op_type;
    if (!idx || !upd)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: needs data, indices and updates", op);
    if (idx->dtype != KN_INT64 && idx->dtype != KN_INT32)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: indices must be int32 or int64", op);
    if (upd->dtype != data->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: updates are %s, data is %s", op,
                       kn_dtype_name(upd->dtype), kn_dtype_name(data->dtype));
    s->dtype = data->dtype;
    s->es = kn_dtype_size(data->dtype);
    if (s->es == 0)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: type %s is not supported", op,
                       kn_dtype_name(data->dtype));
    if (read_reduction(k, &s->reduction) != KN_OK)
        return k->err->code;
    if (s->reduction != RED_NONE && !kn_convert_supported(data->dtype))
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: reduction on %s", op,
                       kn_dtype_name(data->dtype));
    kn_copy_desc(k->out[0], data);
    return KN_OK;
}

static int save_state(kn_kctx *k, const scatter_state *st)
{
    scatter_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    *s = *st;
    k->state = s;
    return KN_OK;
}

/* ---- ScatterElements ---- */

static int scatter_el_prepare(kn_kctx *k)
{
    scatter_state st = {0};
    if (common_prepare(k, &st) != KN_OK)
        return k->err->code;
    const kn_tensor *data = k->in[0], *idx = k->in[1], *upd = k->in[2];
    if (!kn_shape_equal(idx->dims, idx->rank, upd->dims, upd->rank) || idx->rank != data->rank)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: indices and updates must match and have data's rank",
                       k->node->op_type);
    st.axis = kn_norm_axis(kn_attr_int(k->node, "axis", 0), data->rank, k->err);
    if (st.axis < 0) {
        kn_err_prefix(k->err, "%s", k->node->op_type);
        return k->err->code;
    }
    for (int32_t d = 0; d < data->rank; d++)
        if (d != st.axis && upd->dims[d] > data->dims[d])
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: updates dim %d exceeds data's",
                           k->node->op_type, (int)d);
    st.rank = data->rank;
    st.axis_dim = data->dims[st.axis];
    memcpy(st.upd_dims, upd->dims, sizeof st.upd_dims);
    kn_dense_strides(data->dims, data->rank, st.data_strides);
    return save_state(k, &st);
}

/* Element i of an int64 or int32 index tensor. */
static inline int64_t index_at(const kn_tensor *idx, int64_t i)
{
    return idx->dtype == KN_INT64 ? ((const int64_t *)idx->data)[i]
                                  : ((const int32_t *)idx->data)[i];
}

/* Stores one element of es bytes (a fixed-size copy the compiler inlines). */
static inline void put(char *dst, const char *src, size_t es)
{
    switch (es) {
    case 1: *dst = *src; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    default: memcpy(dst, src, es);
    }
}

/* ScatterElements without reduction, indices checked: the offset of every
 * dim but the axis is kept up to date as the position steps through the
 * updates (Faster R-CNN scatters 2 M pooled values per run; recomputing it
 * per element over the rank, with a call per read and per store, took
 * 25 ms). */
static void scatter_el_plain(const scatter_state *s, const kn_tensor *idx, const char *upd,
                             char *out, int64_t n)
{
    int64_t pos[KN_MAX_RANK] = {0}, base = 0;
    const int64_t axis_stride = s->data_strides[s->axis], axis_dim = s->axis_dim;
    const int32_t last = s->rank - 1;
    const size_t es = s->es;
    for (int64_t i = 0; i < n;) {
        /* one run along the last dim */
        int64_t len = s->upd_dims[last];
        int64_t step = last == s->axis ? 0 : s->data_strides[last];
        for (int64_t j = 0; j < len; j++, i++) {
            int64_t v = index_at(idx, i);
            v = v < 0 ? v + axis_dim : v;
            put(out + (size_t)(base + j * step + v * axis_stride) * es, upd + (size_t)i * es, es);
        }
        for (int32_t d = last - 1; d >= 0; d--) {
            int64_t stride = d == s->axis ? 0 : s->data_strides[d];
            if (++pos[d] < s->upd_dims[d]) {
                base += stride;
                break;
            }
            base -= stride * (pos[d] - 1);
            pos[d] = 0;
        }
    }
}

static int scatter_el_run(kn_kctx *k)
{
    const scatter_state *s = k->state;
    const kn_tensor *idx = k->in[1];
    const char *upd = k->in[2]->data;
    char *out = k->out[0]->data;
    int64_t n = kn_tensor_numel(idx);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = kn_read_int(idx, i);
        if (v < -s->axis_dim || v >= s->axis_dim)
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                           "%s: index %lld out of range for axis %d of size %lld", k->node->op_type,
                           (long long)v, (int)s->axis, (long long)s->axis_dim);
    }
    copy_data(k);
    if (s->reduction == RED_NONE && (idx->dtype == KN_INT64 || idx->dtype == KN_INT32)) {
        scatter_el_plain(s, idx, upd, out, n);
        return KN_OK;
    }
    int64_t pos[KN_MAX_RANK] = {0};
    for (int64_t i = 0; i < n; i++) {
        int64_t off = 0, v = kn_read_int(idx, i);
        for (int32_t d = 0; d < s->rank; d++)
            off += (d == s->axis ? (v < 0 ? v + s->axis_dim : v) : pos[d]) * s->data_strides[d];
        combine(s->reduction, s->dtype, out + (size_t)off * s->es, upd + (size_t)i * s->es, 1, s->es);
        for (int32_t d = s->rank - 1; d >= 0 && ++pos[d] == s->upd_dims[d]; d--)
            pos[d] = 0;
    }
    return KN_OK;
}

/* ---- ScatterND ---- */

static int scatter_nd_prepare(kn_kctx *k)
{
    scatter_state st = {0};
    if (common_prepare(k, &st) != KN_OK)
        return k->err->code;
    const kn_tensor *data = k->in[0], *idx = k->in[1], *upd = k->in[2];
    if (idx->dtype != KN_INT64 || idx->rank < 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "ScatterND: indices must be int64 of rank >= 1");
    st.m = (int32_t)idx->dims[idx->rank - 1];
    if (st.m < 1 || st.m > data->rank)
        return kn_fail(k->err, KN_ERR_SHAPE, "ScatterND: index tuples of %d for data of rank %d",
                       (int)st.m, (int)data->rank);
    /* updates = indices.shape[:-1] + data.shape[m:] */
    int ok = upd->rank == idx->rank - 1 + data->rank - st.m;
    for (int32_t d = 0; ok && d < idx->rank - 1; d++)
        ok = upd->dims[d] == idx->dims[d];
    for (int32_t d = st.m; ok && d < data->rank; d++)
        ok = upd->dims[idx->rank - 1 + d - st.m] == data->dims[d];
    if (!ok)
        return kn_fail(k->err, KN_ERR_SHAPE, "ScatterND: updates shape does not match indices and data");
    st.n_tuples = kn_shape_numel(idx->dims, idx->rank - 1);
    st.slice_elems = kn_shape_numel(data->dims + st.m, data->rank - st.m);
    memcpy(st.data_dims, data->dims, sizeof st.data_dims);
    kn_dense_strides(data->dims, data->rank, st.data_strides);
    return save_state(k, &st);
}

static int64_t nd_offset(const scatter_state *s, const int64_t *idx, int64_t t)
{
    int64_t off = 0;
    for (int32_t d = 0; d < s->m; d++) {
        int64_t v = idx[t * s->m + d];
        v = v < 0 ? v + s->data_dims[d] : v;
        if (v < 0 || v >= s->data_dims[d])
            return -1;
        off += v * s->data_strides[d];
    }
    return off;
}

static int scatter_nd_run(kn_kctx *k)
{
    const scatter_state *s = k->state;
    const int64_t *idx = k->in[1]->data;
    const char *upd = k->in[2]->data;
    char *out = k->out[0]->data;
    for (int64_t t = 0; t < s->n_tuples; t++)
        if (nd_offset(s, idx, t) < 0)
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "ScatterND: index tuple %lld is out of range",
                           (long long)t);
    copy_data(k);
    size_t slice = (size_t)s->slice_elems * s->es;
    for (int64_t t = 0; t < s->n_tuples; t++)
        combine(s->reduction, s->dtype, out + (size_t)nd_offset(s, idx, t) * s->es,
                upd + (size_t)t * slice, s->slice_elems, s->es);
    return KN_OK;
}

static void scatter_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* The output is data's shape and the copy happens first: in place is fine. */
const kn_op_def kn_op_ScatterElements = {
    .op_type = "ScatterElements", .since_version = 11, .flags = KN_OP_INPLACE,
    .prepare = scatter_el_prepare, .run = scatter_el_run, .release = scatter_release
};
const kn_op_def kn_op_Scatter = {
    .op_type = "Scatter", .since_version = 9, .until_version = 10, .flags = KN_OP_INPLACE,
    .prepare = scatter_el_prepare, .run = scatter_el_run, .release = scatter_release
};
const kn_op_def kn_op_ScatterND = {
    .op_type = "ScatterND", .since_version = 11, .flags = KN_OP_INPLACE,
    .prepare = scatter_nd_prepare, .run = scatter_nd_run, .release = scatter_release
};
