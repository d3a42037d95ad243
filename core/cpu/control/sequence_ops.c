/* Sequence and optional ops over the blobs of core/ir/value_blob.h:
 * SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceErase,
 * SequenceAt, SequenceLength, SplitToSequence, ConcatFromSequence,
 * SequenceMap, Optional, OptionalHasElement, OptionalGetElement.
 *
 * A sequence's size and an element's shape are values, not shapes, so
 * prepare() fails with KN_ERR_NEEDS_VALUE while a sequence (or a position,
 * or a split) is not known; the runtime then runs the model eagerly, where
 * every input value is visible in prepare. Ops whose output size follows
 * from input shapes alone (SequenceConstruct, Optional, and the optional
 * ops on plain tensors) work in planned mode too. prepare() sizes each
 * output blob exactly; run() writes it. Every sequence input is validated
 * (kn_blob_check) before its entries are trusted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu/control/control_util.h"
#include "core/ir/value_blob.h"
#include "core/kernel/tensor_common.h"

static const char *op_name(const kn_kctx *k) { return k->node->op_type; }

/* "float tensor", "sequence", "optional" for messages. */
static const char *value_desc(const kn_tensor *t)
{
    return kn_is_blob_dtype(t->dtype) ? kn_dtype_name(t->dtype) : "tensor";
}

static int need_value(kn_kctx *k, int32_t i)
{
    const kn_tensor *t = kn_input(k, i);
    if (t && !t->data)
        return kn_fail(k->err, KN_ERR_NEEDS_VALUE, "%s: the result depends on the value of "
                       "input %d", op_name(k), (int)i);
    return KN_OK;
}

static int need_output(kn_kctx *k, int32_t j)
{
    if (!kn_output(k, j))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: output %d is required but missing",
                       op_name(k), (int)j);
    return KN_OK;
}

/* Input i as a validated sequence (or optional, when dtype says so) whose
 * value is known. */
static int blob_input(kn_kctx *k, int32_t i, int32_t dtype, const kn_tensor **out)
{
    const kn_tensor *t = kn_input(k, i);
    if (!t)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: input %d (a %s) is missing",
                       op_name(k), (int)i, kn_dtype_name(dtype));
    if (t->dtype != dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input %d must be a %s, not a %s", op_name(k),
                       (int)i, kn_dtype_name(dtype), value_desc(t));
    int rc = need_value(k, i);
    if (rc != KN_OK)
        return rc;
    char what[96];
    snprintf(what, sizeof what, "%s: input %d", op_name(k), (int)i);
    if ((rc = kn_blob_check(t, what, k->err)) != KN_OK)
        return rc;
    *out = t;
    return KN_OK;
}

static int tensor_input(kn_kctx *k, int32_t i, const kn_tensor **out)
{
    const kn_tensor *t = kn_input(k, i);
    if (!t)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: input %d is required but missing",
                       op_name(k), (int)i);
    if (kn_is_blob_dtype(t->dtype))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input %d must be a tensor, not a %s",
                       op_name(k), (int)i, value_desc(t));
    *out = t;
    return KN_OK;
}

/* The dtype of a sequence's tensors: entry 0's, else the header's (an
 * empty sequence from SequenceEmpty knows it); KN_UNDEFINED if unknown. */
static int32_t seq_elem_dtype(const kn_tensor *seq)
{
    kn_blob_header h;
    kn_blob_read_header(seq, &h);
    if (h.count > 0) {
        kn_blob_entry e;
        kn_blob_read_entry(seq, 0, &e);
        return e.dtype;
    }
    return h.elem_kind == KN_KIND_TENSOR ? h.elem_dtype : KN_UNDEFINED;
}

/* Sum of the padded payloads of entries [0, n) except `skip` (-1: none). */
static int64_t payload_sum(const kn_tensor *seq, int64_t n, int64_t skip)
{
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i == skip)
            continue;
        kn_tensor e;
        kn_blob_elem(seq, i, &e);
        sum = kn_blob_add_bytes(sum, kn_blob_payload_bytes(&e));
    }
    return sum;
}

static int set_blob_out(kn_kctx *k, int32_t j, int32_t dtype, int64_t count, int64_t payload)
{
    int64_t bytes = kn_blob_add_bytes(kn_blob_base_bytes(count), payload);
    if (bytes < 0)
        return kn_fail(k->err, KN_ERR_LIMIT, "%s: the result is too large", op_name(k));
    kn_blob_desc(k->out[j], dtype, bytes);
    return KN_OK;
}

/* A position input (int32/int64 scalar or one-element tensor), or dflt when
 * omitted, normalised against a sequence of n: valid values are -n..hi
 * (hi = n for insertion, n - 1 otherwise). */
static int read_position(kn_kctx *k, int32_t i, int64_t n, int64_t hi, int64_t dflt, int64_t *pos)
{
    const kn_tensor *t = kn_input(k, i);
    if (!t) {
        *pos = dflt;
        return KN_OK;
    }
    if (t->dtype != KN_INT64 && t->dtype != KN_INT32)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: position must be int32 or int64, not %s",
                       op_name(k), kn_dtype_name(t->dtype));
    int rc = need_value(k, i);
    if (rc != KN_OK)
        return rc;
    if (kn_tensor_numel(t) != 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: position must be a scalar, got %lld values",
                       op_name(k), (long long)kn_tensor_numel(t));
    int64_t p = kn_read_int(t, 0);
    if (p < -n || p > hi) {
        if (hi < -n)
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "%s: position %lld is out of range: "
                           "the sequence is empty", op_name(k), (long long)p);
        return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "%s: position %lld is out of range for "
                       "a sequence of %lld elements (allowed %lld..%lld)", op_name(k),
                       (long long)p, (long long)n, (long long)-n, (long long)hi);
    }
    *pos = p < 0 ? p + n : p;
    return KN_OK;
}

static void copy_bytes(kn_kctx *k, const kn_tensor *src)
{
    int64_t nb = kn_tensor_nbytes(k->out[0]);
    if (nb > 0 && k->out[0]->data != src->data)
        memcpy(k->out[0]->data, src->data, (size_t)nb);
}

/* ---- SequenceEmpty ---- */

static int empty_dtype(const kn_kctx *k) { return (int)kn_attr_int(k->node, "dtype", KN_FLOAT); }

static int seq_empty_prepare(kn_kctx *k)
{
    int rc = need_output(k, 0);
    if (rc != KN_OK)
        return rc;
    int dt = empty_dtype(k);
    if (dt <= KN_UNDEFINED || dt >= KN_DTYPE_COUNT || (kn_dtype_size(dt) == 0 && dt != KN_STRING))
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "SequenceEmpty: unsupported dtype %d", dt);
    return set_blob_out(k, 0, KN_SEQUENCE, 0, 0);
}

static int seq_empty_run(kn_kctx *k)
{
    kn_blob_writer w;
    int rc = kn_blob_begin(&w, k->out[0], 0, KN_KIND_TENSOR, empty_dtype(k), k->err);
    return rc == KN_OK ? kn_blob_end(&w, k->err) : rc;
}

/* ---- SequenceConstruct ---- */

static int seq_construct_prepare(kn_kctx *k)
{
    int rc = need_output(k, 0);
    if (rc != KN_OK)
        return rc;
    if (k->n_in < 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "SequenceConstruct: needs at least one input");
    int64_t payload = 0;
    for (int32_t i = 0; i < k->n_in; i++) {
        const kn_tensor *t = NULL;
        if ((rc = tensor_input(k, i, &t)) != KN_OK)
            return rc;
        if (t->dtype != k->in[0]->dtype)
            return kn_fail(k->err, KN_ERR_DTYPE, "SequenceConstruct: input %d is %s, input 0 is "
                           "%s; a sequence holds one element type", (int)i,
                           kn_dtype_name(t->dtype), kn_dtype_name(k->in[0]->dtype));
        payload = kn_blob_add_bytes(payload, kn_blob_payload_bytes(t));
    }
    return set_blob_out(k, 0, KN_SEQUENCE, k->n_in, payload);
}

static int seq_construct_run(kn_kctx *k)
{
    kn_blob_writer w;
    int rc = kn_blob_begin(&w, k->out[0], k->n_in, KN_KIND_TENSOR, k->in[0]->dtype, k->err);
    for (int32_t i = 0; rc == KN_OK && i < k->n_in; i++)
        rc = kn_blob_push(&w, k->in[i], k->err);
    return rc == KN_OK ? kn_blob_end(&w, k->err) : rc;
}

/* ---- SequenceInsert ---- */

static int seq_insert_check(kn_kctx *k, const kn_tensor **seq, const kn_tensor **t, int64_t *pos)
{
    int rc = need_output(k, 0);
    if (rc == KN_OK)
        rc = blob_input(k, 0, KN_SEQUENCE, seq);
    if (rc == KN_OK)
        rc = tensor_input(k, 1, t);
    if (rc != KN_OK)
        return rc;
    int64_t n = kn_blob_count(*seq);
    int32_t dt = seq_elem_dtype(*seq);
    if (dt != KN_UNDEFINED && dt != (*t)->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "SequenceInsert: cannot insert a %s tensor into a "
                       "sequence of %s tensors", kn_dtype_name((*t)->dtype), kn_dtype_name(dt));
    return read_position(k, 2, n, n, n, pos);
}

static int seq_insert_prepare(kn_kctx *k)
{
    const kn_tensor *seq = NULL, *t = NULL;
    int64_t pos = 0;
    int rc = seq_insert_check(k, &seq, &t, &pos);
    if (rc != KN_OK)
        return rc;
    int64_t n = kn_blob_count(seq);
    return set_blob_out(k, 0, KN_SEQUENCE, n + 1,
                        kn_blob_add_bytes(payload_sum(seq, n, -1), kn_blob_payload_bytes(t)));
}

static int seq_insert_run(kn_kctx *k)
{
    const kn_tensor *seq = NULL, *t = NULL;
    int64_t pos = 0;
    int rc = seq_insert_check(k, &seq, &t, &pos);
    if (rc != KN_OK)
        return rc;
    int64_t n = kn_blob_count(seq);
    kn_blob_writer w;
    rc = kn_blob_begin(&w, k->out[0], n + 1, KN_KIND_TENSOR, t->dtype, k->err);
    for (int64_t i = 0; rc == KN_OK && i <= n; i++) {
        kn_tensor e;
        if (i == pos)
            rc = kn_blob_push(&w, t, k->err);
        if (rc == KN_OK && i < n) {
            kn_blob_elem(seq, i, &e);
            rc = kn_blob_push(&w, &e, k->err);
        }
    }
    return rc == KN_OK ? kn_blob_end(&w, k->err) : rc;
}

/* ---- SequenceErase ---- */

static int seq_erase_check(kn_kctx *k, const kn_tensor **seq, int64_t *pos)
{
    int rc = need_output(k, 0);
    if (rc == KN_OK)
        rc = blob_input(k, 0, KN_SEQUENCE, seq);
    if (rc != KN_OK)
        return rc;
    int64_t n = kn_blob_count(*seq);
    if (n == 0)
        return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                       "SequenceErase: cannot erase from an empty sequence");
    return read_position(k, 1, n, n - 1, n - 1, pos);
}

static int seq_erase_prepare(kn_kctx *k)
{
    const kn_tensor *seq = NULL;
    int64_t pos = 0;
    int rc = seq_erase_check(k, &seq, &pos);
    if (rc != KN_OK)
        return rc;
    int64_t n = kn_blob_count(seq);
    return set_blob_out(k, 0, KN_SEQUENCE, n - 1, payload_sum(seq, n, pos));
}

static int seq_erase_run(kn_kctx *k)
{
    const kn_tensor *seq = NULL;
    int64_t pos = 0;
    int rc = seq_erase_check(k, &seq, &pos);
    if (rc != KN_OK)
        return rc;
    kn_blob_header h;
    kn_blob_read_header(seq, &h);
    kn_blob_writer w;
    rc = kn_blob_begin(&w, k->out[0], h.count - 1, h.elem_kind, seq_elem_dtype(seq), k->err);
    for (int64_t i = 0; rc == KN_OK && i < h.count; i++) {
        if (i == pos)
            continue;
        kn_tensor e;
        kn_blob_elem(seq, i, &e);
        rc = kn_blob_push(&w, &e, k->err);
    }
    return rc == KN_OK ? kn_blob_end(&w, k->err) : rc;
}

/* ---- SequenceAt ---- */

static int seq_at_check(kn_kctx *k, kn_tensor *elem)
{
    const kn_tensor *seq = NULL;
    int rc = need_output(k, 0);
    if (rc == KN_OK)
        rc = blob_input(k, 0, KN_SEQUENCE, &seq);
    if (rc != KN_OK)
        return rc;
    if (!kn_input(k, 1))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "SequenceAt: input 1 (position) is missing");
    int64_t n = kn_blob_count(seq), pos = 0;
    if ((rc = read_position(k, 1, n, n - 1, 0, &pos)) != KN_OK)
        return rc;
    kn_blob_elem(seq, pos, elem);
    return KN_OK;
}

static int seq_at_prepare(kn_kctx *k)
{
    kn_tensor e;
    int rc = seq_at_check(k, &e);
    if (rc == KN_OK)
        kn_copy_desc(k->out[0], &e);
    return rc;
}

static int seq_at_run(kn_kctx *k)
{
    kn_tensor e;
    int rc = seq_at_check(k, &e);
    if (rc == KN_OK)
        copy_bytes(k, &e);
    return rc;
}

/* ---- SequenceLength ---- */

static int seq_length_prepare(kn_kctx *k)
{
    const kn_tensor *seq = NULL;
    int rc = need_output(k, 0);
    if (rc == KN_OK)
        rc = blob_input(k, 0, KN_SEQUENCE, &seq);
    if (rc != KN_OK)
        return rc;
    k->out[0]->dtype = KN_INT64;
    k->out[0]->rank = 0;
    return KN_OK;
}

static int seq_length_run(kn_kctx *k)
{
    int64_t n = kn_blob_count(k->in[0]);
    memcpy(k->out[0]->data, &n, sizeof n);
    return KN_OK;
}

/* ---- SplitToSequence ---- */

typedef struct split_state {
    int32_t axis;
    int keep; /* keep the split axis in each element */
    int64_t count;
    int64_t lens[]; /* chunk lengths along the axis */
} split_state;

static void split_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* Chunk lengths: from the split input (scalar: equal chunks, the last may
 * be smaller; 1-D: the lengths), else chunks of 1. */
static int split_lengths(kn_kctx *k, int64_t dim, split_state **out)
{
    const kn_tensor *split = kn_input(k, 1);
    int64_t count = dim, chunk = 1;
    int rc;
    if (split) {
        if (split->dtype != KN_INT64 && split->dtype != KN_INT32)
            return kn_fail(k->err, KN_ERR_DTYPE, "SplitToSequence: split must be int32 or int64, "
                           "not %s", kn_dtype_name(split->dtype));
        if ((rc = need_value(k, 1)) != KN_OK)
            return rc;
        if (split->rank > 1)
            return kn_fail(k->err, KN_ERR_SHAPE, "SplitToSequence: split must be a scalar or "
                           "1-D, not rank %d", (int)split->rank);
        if (split->rank == 0) {
            chunk = kn_read_int(split, 0);
            if (chunk <= 0)
                return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "SplitToSequence: split %lld "
                               "must be positive", (long long)chunk);
            count = dim / chunk + (dim % chunk != 0);
        } else {
            count = kn_tensor_numel(split);
        }
    }
    split_state *s = calloc(1, sizeof *s + sizeof(int64_t) * (size_t)(count + 1));
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "SplitToSequence: out of memory");
    k->state = s;
    s->count = count;
    int64_t sum = 0;
    for (int64_t i = 0; i < count; i++) {
        int64_t len = split && split->rank == 1 ? kn_read_int(split, i)
                      : i + 1 < count          ? chunk
                                               : dim - chunk * (count - 1);
        if (len < 0 || len > dim - sum)
            return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "SplitToSequence: split lengths "
                           "do not add up to the axis length %lld", (long long)dim);
        s->lens[i] = len;
        sum += len;
    }
    if (sum != dim)
        return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "SplitToSequence: split lengths add up "
                       "to %lld, the axis has %lld", (long long)sum, (long long)dim);
    *out = s;
    return KN_OK;
}

/* The shape of chunk i. */
static void split_chunk_desc(const kn_tensor *x, const split_state *s, int64_t i, kn_tensor *e)
{
    memset(e, 0, sizeof *e);
    e->dtype = x->dtype;
    e->rank = 0;
    for (int32_t d = 0; d < x->rank; d++) {
        if (d == s->axis && !s->keep)
            continue;
        e->dims[e->rank++] = d == s->axis ? s->lens[i] : x->dims[d];
    }
}

static int split_prepare(kn_kctx *k)
{
    const kn_tensor *x = NULL;
    int rc = need_output(k, 0);
    if (rc == KN_OK)
        rc = tensor_input(k, 0, &x);
    if (rc != KN_OK)
        return rc;
    if (x->rank < 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "SplitToSequence: input must have rank >= 1");
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", 0), x->rank, k->err);
    if (axis < 0)
        return KN_ERR_INVALID_MODEL;
    split_state *s = NULL;
    if ((rc = split_lengths(k, x->dims[axis], &s)) != KN_OK)
        return rc;
    s->axis = axis;
    s->keep = kn_input(k, 1) || kn_attr_int(k->node, "keepdims", 1) != 0;
    int64_t payload = 0;
    for (int64_t i = 0; i < s->count; i++) {
        kn_tensor e;
        split_chunk_desc(x, s, i, &e);
        payload = kn_blob_add_bytes(payload, kn_blob_payload_bytes(&e));
    }
    return set_blob_out(k, 0, KN_SEQUENCE, s->count, payload);
}

static int split_run(kn_kctx *k)
{
    const kn_tensor *x = k->in[0];
    const split_state *s = k->state;
    size_t es = kn_dtype_size(x->dtype);
    int64_t outer = kn_shape_numel(x->dims, s->axis);
    int64_t inner = kn_shape_numel(x->dims + s->axis + 1, x->rank - s->axis - 1) * (int64_t)es;
    int64_t row = x->dims[s->axis] * inner, start = 0;
    kn_blob_writer w;
    int rc = kn_blob_begin(&w, k->out[0], s->count, KN_KIND_TENSOR, x->dtype, k->err);
    for (int64_t i = 0; rc == KN_OK && i < s->count; i++) {
        kn_tensor e;
        void *dst = NULL;
        split_chunk_desc(x, s, i, &e);
        if ((rc = kn_blob_reserve(&w, &e, &dst, k->err)) != KN_OK)
            break;
        int64_t bytes = s->lens[i] * inner;
        for (int64_t o = 0; bytes > 0 && o < outer; o++)
            memcpy((unsigned char *)dst + o * bytes,
                   (const unsigned char *)x->data + o * row + start * inner, (size_t)bytes);
        start += s->lens[i];
    }
    return rc == KN_OK ? kn_blob_end(&w, k->err) : rc;
}

/* ---- ConcatFromSequence ---- */

static int concat_check(kn_kctx *k, const kn_tensor **seq, int32_t *axis, int *new_axis)
{
    int rc = need_output(k, 0);
    if (rc == KN_OK)
        rc = blob_input(k, 0, KN_SEQUENCE, seq);
    if (rc != KN_OK)
        return rc;
    int64_t n = kn_blob_count(*seq);
    if (n == 0)
        return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                       "ConcatFromSequence: the sequence is empty");
    const kn_attr *a = kn_node_attr(k->node, "axis");
    if (!a)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "ConcatFromSequence: attribute 'axis' is "
                       "required");
    *new_axis = kn_attr_int(k->node, "new_axis", 0) != 0;
    kn_tensor first;
    kn_blob_elem(*seq, 0, &first);
    if (kn_is_blob_dtype(first.dtype))
        return kn_fail(k->err, KN_ERR_DTYPE, "ConcatFromSequence: elements must be tensors");
    int32_t out_rank = first.rank + *new_axis;
    if (out_rank < 1 || out_rank > KN_MAX_RANK)
        return kn_fail(k->err, KN_ERR_SHAPE, "ConcatFromSequence: elements of rank %d cannot "
                       "be concatenated%s", (int)first.rank, *new_axis ? " along a new axis" : "");
    *axis = kn_norm_axis(a->i, out_rank, k->err);
    if (*axis < 0)
        return KN_ERR_INVALID_MODEL;
    for (int64_t i = 1; i < n; i++) {
        kn_tensor e;
        kn_blob_elem(*seq, i, &e);
        int same = e.dtype == first.dtype && e.rank == first.rank;
        for (int32_t d = 0; same && d < e.rank; d++)
            same = e.dims[d] == first.dims[d] || (!*new_axis && d == *axis);
        if (!same) {
            char a_s[96], b_s[96];
            kn_shape_format(first.dims, first.rank, a_s, sizeof a_s);
            kn_shape_format(e.dims, e.rank, b_s, sizeof b_s);
            return kn_fail(k->err, KN_ERR_SHAPE, "ConcatFromSequence: element %lld (%s %s) does "
                           "not fit element 0 (%s %s)", (long long)i, kn_dtype_name(e.dtype), b_s,
                           kn_dtype_name(first.dtype), a_s);
        }
    }
    return KN_OK;
}

static int concat_prepare(kn_kctx *k)
{
    const kn_tensor *seq = NULL;
    int32_t axis = 0;
    int new_axis = 0;
    int rc = concat_check(k, &seq, &axis, &new_axis);
    if (rc != KN_OK)
        return rc;
    int64_t n = kn_blob_count(seq);
    kn_tensor first, *out = k->out[0];
    kn_blob_elem(seq, 0, &first);
    out->dtype = first.dtype;
    out->rank = first.rank + new_axis;
    for (int32_t d = 0, s = 0; d < out->rank; d++) {
        if (new_axis && d == axis) {
            out->dims[d] = n;
            continue;
        }
        out->dims[d] = first.dims[s++];
    }
    if (!new_axis) {
        int64_t total = 0;
        for (int64_t i = 0; i < n; i++) {
            kn_tensor e;
            kn_blob_elem(seq, i, &e);
            if (e.dims[axis] > INT64_MAX - total)
                return kn_fail(k->err, KN_ERR_LIMIT, "ConcatFromSequence: result too large");
            total += e.dims[axis];
        }
        out->dims[axis] = total;
    }
    if (kn_tensor_nbytes(out) < 0)
        return kn_fail(k->err, KN_ERR_LIMIT, "ConcatFromSequence: result too large");
    return KN_OK;
}

static int concat_run(kn_kctx *k)
{
    const kn_tensor *seq = k->in[0];
    kn_tensor *out = k->out[0];
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", 0), out->rank, k->err);
    size_t es = kn_dtype_size(out->dtype);
    int64_t n = kn_blob_count(seq);
    /* Rows of the output: everything before the axis. Each element owns a
     * contiguous byte range of every row. */
    int64_t outer = kn_shape_numel(out->dims, axis);
    int64_t row = kn_shape_numel(out->dims + axis, out->rank - axis) * (int64_t)es, off = 0;
    for (int64_t i = 0; i < n; i++) {
        kn_tensor e;
        kn_blob_elem(seq, i, &e);
        /* An element's dims from the axis on form its chunk of every row
         * (with new_axis, the output's axis is new and the element's
         * dims[axis..] follow it). */
        int64_t chunk = kn_shape_numel(e.dims + axis, e.rank - axis) * (int64_t)es;
        for (int64_t o = 0; chunk > 0 && o < outer; o++)
            memcpy((unsigned char *)out->data + o * row + off,
                   (const unsigned char *)e.data + o * chunk, (size_t)chunk);
        off += chunk;
    }
    return KN_OK;
}

/* ---- SequenceMap ---- */

typedef struct map_state {
    int32_t n_out;
    int64_t n;
    kn_owned *items; /* output j's element i at [j * n + i] */
} map_state;

static void map_release(kn_kctx *k)
{
    map_state *s = k->state;
    if (!s)
        return;
    for (int64_t i = 0; s->items && i < (int64_t)s->n_out * s->n; i++)
        kn_owned_free(&s->items[i]);
    free(s->items);
    free(s);
    k->state = NULL;
}

/* Runs the body on element i of every sequence input (tensors go in whole)
 * and keeps its outputs. */
static int map_one(kn_kctx *k, const kn_graph *body, map_state *s, int64_t i, kn_tensor *views,
                   const kn_tensor **args)
{
    for (int32_t j = 0; j < k->n_in; j++) {
        if (k->in[j]->dtype == KN_SEQUENCE) {
            kn_blob_elem(k->in[j], i, &views[j]);
            args[j] = &views[j];
        } else {
            args[j] = k->in[j];
        }
    }
    kn_subgraph_result *r = NULL;
    int rc = kn_run_body(k, body, args, k->n_in, &r);
    for (int32_t j = 0; rc == KN_OK && j < k->n_out; j++) {
        const kn_tensor *o = k->engine_api->result_output(r, j);
        rc = o ? kn_owned_set(&s->items[j * s->n + i], o, k->err)
               : kn_fail(k->err, KN_ERR_INTERNAL, "SequenceMap: body output %d missing", (int)j);
    }
    if (r)
        k->engine_api->free_result(r);
    return rc;
}

static int map_prepare(kn_kctx *k)
{
    const kn_tensor *seq = NULL;
    int rc = blob_input(k, 0, KN_SEQUENCE, &seq);
    for (int32_t j = 1; rc == KN_OK && j < k->n_in; j++) {
        if (!k->in[j])
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "SequenceMap: input %d is missing",
                           (int)j);
        rc = need_value(k, j);
        if (rc == KN_OK && k->in[j]->dtype == KN_SEQUENCE) {
            const kn_tensor *other = NULL;
            rc = blob_input(k, j, KN_SEQUENCE, &other);
            if (rc == KN_OK && kn_blob_count(other) != kn_blob_count(seq))
                return kn_fail(k->err, KN_ERR_SHAPE, "SequenceMap: input %d has %lld elements, "
                               "input 0 has %lld", (int)j, (long long)kn_blob_count(other),
                               (long long)kn_blob_count(seq));
        }
    }
    for (int32_t j = 0; rc == KN_OK && j < k->n_out; j++)
        rc = need_output(k, j);
    if (rc != KN_OK)
        return rc;
    const kn_graph *body = kn_graph_attr(k, "body");
    if (!body)
        return KN_ERR_INVALID_MODEL;
    if (body->n_inputs != k->n_in || body->n_outputs != k->n_out)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "SequenceMap: body has %d inputs and %d "
                       "outputs, the node %d and %d", (int)body->n_inputs, (int)body->n_outputs,
                       (int)k->n_in, (int)k->n_out);
    map_state *s = calloc(1, sizeof *s);
    int64_t n = kn_blob_count(seq);
    if (s) {
        k->state = s;
        s->n_out = k->n_out;
        s->n = n;
        s->items = calloc((size_t)(k->n_out * n) + 1, sizeof *s->items);
    }
    kn_tensor *views = calloc((size_t)k->n_in + 1, sizeof *views);
    const kn_tensor **args = calloc((size_t)k->n_in + 1, sizeof *args);
    if (!s || !s->items || !views || !args)
        rc = kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "SequenceMap: out of memory");
    for (int64_t i = 0; rc == KN_OK && i < n; i++)
        rc = map_one(k, body, s, i, views, args);
    free(views);
    free(args);
    for (int32_t j = 0; rc == KN_OK && j < k->n_out; j++) {
        int64_t payload = 0;
        for (int64_t i = 0; i < n; i++)
            payload = kn_blob_add_bytes(payload, kn_blob_payload_bytes(&s->items[j * n + i].t));
        rc = set_blob_out(k, j, KN_SEQUENCE, n, payload);
    }
    return rc;
}

static int map_run(kn_kctx *k)
{
    const map_state *s = k->state;
    const kn_graph *body = kn_graph_attr(k, "body");
    int rc = body ? KN_OK : KN_ERR_INVALID_MODEL;
    for (int32_t j = 0; rc == KN_OK && j < s->n_out; j++) {
        /* With no elements, the element type is what the body declares. */
        const kn_value *decl = &body->values[body->outputs[j]];
        int32_t kind = s->n ? kn_dtype_kind(s->items[j * s->n].t.dtype) : decl->kind;
        int32_t dt = s->n ? s->items[j * s->n].t.dtype
                     : decl->kind == KN_KIND_TENSOR ? decl->dtype : decl->elem_dtype;
        if (kind != KN_KIND_TENSOR && s->n) {
            kn_blob_header h;
            kn_blob_read_header(&s->items[j * s->n].t, &h);
            dt = h.elem_dtype;
        }
        kn_blob_writer w;
        rc = kn_blob_begin(&w, k->out[j], s->n, kind, dt, k->err);
        for (int64_t i = 0; rc == KN_OK && i < s->n; i++)
            rc = kn_blob_push(&w, &s->items[j * s->n + i].t, k->err);
        if (rc == KN_OK)
            rc = kn_blob_end(&w, k->err);
    }
    return rc;
}

/* ---- Optional ---- */

static int optional_prepare(kn_kctx *k)
{
    int rc = need_output(k, 0);
    if (rc != KN_OK)
        return rc;
    const kn_tensor *x = kn_input(k, 0);
    if (x && x->dtype == KN_OPTIONAL)
        return kn_fail(k->err, KN_ERR_DTYPE, "Optional: the input is already an optional");
    return set_blob_out(k, 0, KN_OPTIONAL, x ? 1 : 0, x ? kn_blob_payload_bytes(x) : 0);
}

static int optional_run(kn_kctx *k)
{
    const kn_tensor *x = kn_input(k, 0);
    kn_blob_writer w;
    int32_t kind = x ? kn_dtype_kind(x->dtype) : KN_BLOB_KIND_UNKNOWN;
    int32_t dt = x ? x->dtype : KN_UNDEFINED;
    if (x && x->dtype == KN_SEQUENCE) {
        const kn_tensor *seq = NULL;
        int rc = blob_input(k, 0, KN_SEQUENCE, &seq);
        if (rc != KN_OK)
            return rc;
        dt = seq_elem_dtype(seq);
    }
    int rc = kn_blob_begin(&w, k->out[0], x ? 1 : 0, kind, dt, k->err);
    if (rc == KN_OK && x)
        rc = kn_blob_push(&w, x, k->err);
    return rc == KN_OK ? kn_blob_end(&w, k->err) : rc;
}

/* ---- OptionalHasElement / OptionalGetElement ----
 * A plain tensor or sequence where an optional is expected counts as an
 * optional holding it (opset 18 allows it, and a Loop may carry an optional
 * in and a sequence out). */

static int has_element_prepare(kn_kctx *k)
{
    int rc = need_output(k, 0);
    const kn_tensor *x = kn_input(k, 0), *opt = NULL;
    if (rc == KN_OK && x && x->dtype == KN_OPTIONAL)
        rc = blob_input(k, 0, KN_OPTIONAL, &opt);
    if (rc != KN_OK)
        return rc;
    k->out[0]->dtype = KN_BOOL;
    k->out[0]->rank = 0;
    return KN_OK;
}

static int has_element_run(kn_kctx *k)
{
    const kn_tensor *x = kn_input(k, 0);
    uint8_t has = x ? (x->dtype == KN_OPTIONAL ? kn_blob_count(x) > 0 : 1) : 0;
    memcpy(k->out[0]->data, &has, 1);
    return KN_OK;
}

static int get_element_check(kn_kctx *k, kn_tensor *elem)
{
    const kn_tensor *x = kn_input(k, 0), *opt = NULL;
    int rc = need_output(k, 0);
    if (rc != KN_OK)
        return rc;
    if (!x)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "OptionalGetElement: input 0 is missing");
    if (x->dtype != KN_OPTIONAL) {
        *elem = *x;
        return KN_OK;
    }
    if ((rc = blob_input(k, 0, KN_OPTIONAL, &opt)) != KN_OK)
        return rc;
    if (kn_blob_count(opt) == 0)
        return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT, "OptionalGetElement: the optional is "
                       "empty");
    kn_blob_elem(opt, 0, elem);
    return KN_OK;
}

static int get_element_prepare(kn_kctx *k)
{
    kn_tensor e;
    int rc = get_element_check(k, &e);
    if (rc == KN_OK)
        kn_copy_desc(k->out[0], &e);
    return rc;
}

static int get_element_run(kn_kctx *k)
{
    kn_tensor e;
    int rc = get_element_check(k, &e);
    if (rc == KN_OK)
        copy_bytes(k, &e);
    return rc;
}

#define DEF(name, op, since, prepare_fn, run_fn, release_fn)                                   \
    const kn_op_def kn_op_##name = {                                                          \
        .op_type = op, .since_version = since, .prepare = prepare_fn, .run = run_fn,          \
        .release = release_fn};

DEF(SequenceEmpty, "SequenceEmpty", 11, seq_empty_prepare, seq_empty_run, NULL)
DEF(SequenceConstruct, "SequenceConstruct", 11, seq_construct_prepare, seq_construct_run, NULL)
DEF(SequenceInsert, "SequenceInsert", 11, seq_insert_prepare, seq_insert_run, NULL)
DEF(SequenceErase, "SequenceErase", 11, seq_erase_prepare, seq_erase_run, NULL)
DEF(SequenceAt, "SequenceAt", 11, seq_at_prepare, seq_at_run, NULL)
DEF(SequenceLength, "SequenceLength", 11, seq_length_prepare, seq_length_run, NULL)
DEF(SplitToSequence, "SplitToSequence", 11, split_prepare, split_run, split_release)
DEF(ConcatFromSequence, "ConcatFromSequence", 11, concat_prepare, concat_run, NULL)
DEF(SequenceMap, "SequenceMap", 17, map_prepare, map_run, map_release)
DEF(Optional, "Optional", 15, optional_prepare, optional_run, NULL)
DEF(OptionalHasElement, "OptionalHasElement", 15, has_element_prepare, has_element_run, NULL)
DEF(OptionalGetElement, "OptionalGetElement", 15, get_element_prepare, get_element_run, NULL)
