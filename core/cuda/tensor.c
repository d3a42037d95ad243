/* Shape and data-movement ops on the GPU, for any dtype of 1, 2, 4 or 8
 * bytes (strings and packed types are declined): the alias ops (Reshape,
 * Flatten, Squeeze, Unsqueeze, Identity: a device copy only when the
 * planner did not alias them), Transpose, Slice, Expand (strided copies,
 * tensor.cu), Gather (tensor.cu), Concat (one 2-D copy per input) and
 * Split (one per output).
 * Output shapes come from the CPU kernel's prepare (kn_cuda_shapes_from_cpu),
 * so both backends read these ops' many attribute and input forms alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda/cuda_kernels.h"

typedef struct move_state {
    kn_cudaKernel fn;
    kn_cuda_walk walk;          /* Transpose, Slice, Expand */
    int64_t outer, axis, inner; /* Gather, Concat */
} move_state;

static void move_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* 1, 2, 4 or 8: the element sizes the kernels move; 0 for anything else. */
static size_t movable_size(const kn_tensor *t)
{
    if (!t || t->dtype <= KN_UNDEFINED || t->dtype >= KN_DTYPE_COUNT || t->dtype == KN_STRING)
        return 0;
    size_t es = kn_dtype_size(t->dtype);
    return es == 1 || es == 2 || es == 4 || es == 8 ? es : 0;
}

/* Device check, dtype check and the CPU kernel's output shapes. */
static int move_prepare_common(kn_kctx *k)
{
    KN_CUDA_REQUIRE_DEVICE(k);
    if (!movable_size(k->in[0]))
        return KN_ERR_DECLINE;
    return kn_cuda_shapes_from_cpu(k);
}

static int new_state(kn_kctx *k, const char *kernel_prefix, const char *suffix)
{
    move_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    k->state = st;
    if (kernel_prefix) {
        char name[64];
        snprintf(name, sizeof name, "%s_%zu%s", kernel_prefix, movable_size(k->in[0]), suffix);
        st->fn = kn_cuda_kernel(kn_cuda_dev(k), "tensor", name, k->err);
        if (!st->fn) {
            move_release(k);
            return k->err->code;
        }
    }
    return KN_OK;
}

/* --- alias ops: output 0 is input 0's bytes */

static int alias_run(kn_kctx *k)
{
    return kn_cuda_copy_on_device(k, k->out[0]->data, k->in[0]->data,
                                  (size_t)kn_tensor_nbytes(k->out[0]));
}

/* --- strided copies */

/* Row-major element strides of t. */
static void contiguous_strides(const kn_tensor *t, int64_t *stride)
{
    int64_t step = 1;
    for (int32_t d = t->rank - 1; d >= 0; d--) {
        stride[d] = step;
        step *= t->dims[d];
    }
}

static int walk_start(kn_kctx *k)
{
    int rc = new_state(k, "kn_strided_copy", "");
    if (rc != KN_OK)
        return rc;
    move_state *st = k->state;
    const kn_tensor *y = k->out[0];
    st->walk.n = kn_tensor_numel(y);
    st->walk.rank = y->rank;
    memcpy(st->walk.dims, y->dims, sizeof(int64_t) * (size_t)y->rank);
    return KN_OK;
}

static int transpose_prepare(kn_kctx *k)
{
    int rc = move_prepare_common(k);
    if (rc != KN_OK || (rc = walk_start(k)) != KN_OK)
        return rc;
    move_state *st = k->state;
    const kn_tensor *x = k->in[0];
    int64_t xs[KN_MAX_RANK];
    contiguous_strides(x, xs);
    int32_t n_perm = 0;
    const int64_t *perm = kn_attr_ints(k->node, "perm", &n_perm);
    for (int32_t d = 0; d < x->rank; d++)
        st->walk.stride[0][d] = xs[n_perm ? perm[d] : x->rank - 1 - d];
    return KN_OK;
}

/* Slice's starts and steps per axis (opset 10+: constant inputs 1, 3, 4;
 * before: attributes); values computed at run time are declined. */
static int slice_prepare(kn_kctx *k)
{
    int rc = move_prepare_common(k);
    if (rc != KN_OK)
        return rc;
    const kn_tensor *x = k->in[0];
    int64_t starts[KN_MAX_RANK], axes[KN_MAX_RANK], steps[KN_MAX_RANK];
    int32_t n = 0;
    if (k->opset < 10) {
        int32_t n_axes = 0;
        const int64_t *s = kn_attr_ints(k->node, "starts", &n);
        const int64_t *a = kn_attr_ints(k->node, "axes", &n_axes);
        if (n > KN_MAX_RANK)
            return KN_ERR_DECLINE;
        for (int32_t i = 0; i < n; i++) {
            starts[i] = s[i];
            axes[i] = n_axes ? a[i] : i;
            steps[i] = 1;
        }
    } else {
        const kn_tensor *ts = k->in[1], *ta = k->n_in > 3 ? k->in[3] : NULL,
                        *tp = k->n_in > 4 ? k->in[4] : NULL;
        if (!ts || !ts->data || (ta && !ta->data) || (tp && !tp->data))
            return KN_ERR_DECLINE;
        n = (int32_t)kn_tensor_numel(ts);
        if (n > KN_MAX_RANK)
            return KN_ERR_DECLINE;
        for (int32_t i = 0; i < n; i++) {
            starts[i] = kn_read_int(ts, i);
            axes[i] = ta ? kn_read_int(ta, i) : i;
            steps[i] = tp ? kn_read_int(tp, i) : 1;
        }
    }
    if ((rc = walk_start(k)) != KN_OK)
        return rc;
    move_state *st = k->state;
    int64_t xs[KN_MAX_RANK];
    contiguous_strides(x, xs);
    memcpy(st->walk.stride[0], xs, sizeof(int64_t) * (size_t)x->rank);
    for (int32_t i = 0; i < n; i++) {
        int32_t axis = kn_norm_axis(axes[i], x->rank, k->err);
        if (axis < 0)
            return k->err->code;
        int64_t dim = x->dims[axis], s = starts[i];
        if (s < 0)
            s += dim;
        /* the clamping of ONNX Slice: [0, dim] forwards, [0, dim - 1] backwards */
        int64_t hi = steps[i] > 0 ? dim : dim - 1;
        s = s < 0 ? 0 : s > hi ? hi : s;
        st->walk.offset += s * xs[axis];
        st->walk.stride[0][axis] = steps[i] * xs[axis];
    }
    return KN_OK;
}

static int expand_prepare(kn_kctx *k)
{
    int rc = move_prepare_common(k);
    if (rc != KN_OK || (rc = walk_start(k)) != KN_OK)
        return rc;
    move_state *st = k->state;
    kn_cuda_walk w;
    kn_cuda_walk_binary(&w, k->out[0], k->in[0], NULL);
    memcpy(st->walk.stride[0], w.stride[0], sizeof w.stride[0]);
    return KN_OK;
}

static int strided_run(kn_kctx *k)
{
    move_state *st = k->state;
    const void *x = k->in[0]->data;
    void *y = k->out[0]->data;
    void *args[] = {&x, &y, &st->walk};
    return kn_cuda_launch_1d(k, st->fn, st->walk.n, args);
}

/* --- the 2-D view (outer x axis x inner) that Gather, Concat and Split
 * copy through: outer is the product of t's dims before axis, inner of
 * those after it. */

static void set_rows(move_state *st, const kn_tensor *t, int32_t axis)
{
    st->outer = 1;
    st->inner = 1;
    for (int32_t d = 0; d < axis; d++)
        st->outer *= t->dims[d];
    for (int32_t d = axis + 1; d < t->rank; d++)
        st->inner *= t->dims[d];
}

/* --- Gather */

static int gather_prepare(kn_kctx *k)
{
    int rc = move_prepare_common(k);
    if (rc != KN_OK)
        return rc;
    const kn_tensor *x = k->in[0], *idx = k->in[1];
    if (!idx || (idx->dtype != KN_INT64 && idx->dtype != KN_INT32))
        return KN_ERR_DECLINE;
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", 0), x->rank, k->err);
    if (axis < 0)
        return k->err->code;
    rc = new_state(k, "kn_gather", idx->dtype == KN_INT64 ? "_i64" : "_i32");
    if (rc != KN_OK)
        return rc;
    move_state *st = k->state;
    set_rows(st, x, axis);
    st->axis = x->dims[axis];
    return KN_OK;
}

static int gather_run(kn_kctx *k)
{
    move_state *st = k->state;
    const void *x = k->in[0]->data, *idx = k->in[1]->data;
    void *y = k->out[0]->data;
    int64_t n_idx = kn_tensor_numel(k->in[1]);
    void *args[] = {&x, &idx, &y, &st->outer, &st->axis, &n_idx, &st->inner};
    return kn_cuda_launch_1d(k, st->fn, st->outer * n_idx * st->inner, args);
}

/* --- Concat and Split: the whole tensor (Concat's output, Split's input)
 * is `outer` rows of (axis length x inner) elements; each piece (an input of
 * Concat, an output of Split) is `outer` rows of its own axis length x inner,
 * at its column offset in the whole's rows: one 2-D copy per piece. */

static int pieces_prepare(kn_kctx *k, const kn_tensor *whole)
{
    int32_t axis = kn_norm_axis(kn_attr_int(k->node, "axis", 0), whole->rank, k->err);
    if (axis < 0)
        return k->err->code;
    int rc = new_state(k, NULL, NULL);
    if (rc != KN_OK)
        return rc;
    move_state *st = k->state;
    set_rows(st, whole, axis);
    st->axis = axis;
    return KN_OK;
}

/* Copies each piece into the whole's rows (Concat) or out of them (Split). */
static int pieces_run(kn_kctx *k, const kn_tensor *whole, kn_tensor *const *pieces,
                      int32_t n_pieces, int into_whole)
{
    move_state *st = k->state;
    const kn_cuda_device *dev = kn_cuda_dev(k);
    size_t es = kn_dtype_size(whole->dtype);
    size_t row_bytes = (size_t)(whole->dims[st->axis] * st->inner) * es, at = 0;
    int rc = kn_cuda_use(dev, k->err);
    for (int32_t i = 0; i < n_pieces && rc == KN_OK; i++) {
        const kn_tensor *p = pieces[i];
        if (!p || kn_tensor_numel(p) == 0)
            continue;
        size_t width = (size_t)(p->dims[st->axis] * st->inner) * es;
        char *in_whole = (char *)whole->data + at;
        void *dst = into_whole ? in_whole : p->data;
        const void *src = into_whole ? p->data : in_whole;
        rc = kn_cuda_check(dev,
                           dev->api->cudaMemcpy2DAsync(dst, into_whole ? row_bytes : width, src,
                                                       into_whole ? width : row_bytes, width,
                                                       (size_t)st->outer,
                                                       KN_cudaMemcpyDeviceToDevice, k->stream),
                           k->node->op_type, k->err);
        at += width;
    }
    return rc;
}

static int concat_prepare(kn_kctx *k)
{
    int rc = move_prepare_common(k);
    if (rc != KN_OK)
        return rc;
    for (int32_t i = 0; i < k->n_in; i++)
        if (k->in[i] && k->in[i]->dtype != k->in[0]->dtype)
            return KN_ERR_DECLINE;
    return pieces_prepare(k, k->out[0]);
}

static int concat_run(kn_kctx *k) { return pieces_run(k, k->out[0], k->in, k->n_in, 1); }

static int split_prepare(kn_kctx *k)
{
    int rc = move_prepare_common(k);
    return rc != KN_OK ? rc : pieces_prepare(k, k->in[0]);
}

static int split_run(kn_kctx *k) { return pieces_run(k, k->in[0], k->out, k->n_out, 0); }

#define ALIAS(name, since)                                                                         \
    const kn_op_def kn_cuda_##name = {.op_type = #name,                                            \
                                      .since_version = since,                                      \
                                      .flags = KN_OP_ALIAS,                                        \
                                      .prepare = move_prepare_common,                              \
                                      .run = alias_run}
ALIAS(Reshape, 5);
ALIAS(Flatten, 1);
ALIAS(Squeeze, 1);
ALIAS(Unsqueeze, 1);
ALIAS(Identity, 1);

const kn_op_def kn_cuda_Transpose = {.op_type = "Transpose",
                                     .since_version = 1,
                                     .prepare = transpose_prepare,
                                     .run = strided_run,
                                     .release = move_release};
const kn_op_def kn_cuda_Slice = {.op_type = "Slice",
                                 .since_version = 1,
                                 .prepare = slice_prepare,
                                 .run = strided_run,
                                 .release = move_release};
const kn_op_def kn_cuda_Expand = {.op_type = "Expand",
                                  .since_version = 8,
                                  .prepare = expand_prepare,
                                  .run = strided_run,
                                  .release = move_release};
const kn_op_def kn_cuda_Gather = {.op_type = "Gather",
                                  .since_version = 1,
                                  .prepare = gather_prepare,
                                  .run = gather_run,
                                  .release = move_release};
const kn_op_def kn_cuda_Concat = {.op_type = "Concat",
                                  .since_version = 1,
                                  .prepare = concat_prepare,
                                  .run = concat_run,
                                  .release = move_release};
const kn_op_def kn_cuda_Split = {.op_type = "Split",
                                 .since_version = 2,
                                 .prepare = split_prepare,
                                 .run = split_run,
                                 .release = move_release};
