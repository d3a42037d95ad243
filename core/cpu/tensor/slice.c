/* Slice: per axis a start, an end and a step (possibly negative), clamped
 * the way ONNX (and numpy) clamp them. The result is the input seen with
 * an offset and stepped strides, copied by the strided engine. Starts,
 * ends, axes and steps are attributes up to opset 9 and constant inputs
 * since 10, because they decide the output shape. */
#include <stdlib.h>

#include "core/kernel/tensor_common.h"

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Reads one list: attribute (opset < 10) or constant input `idx`. Returns 0
 * when absent. */
static int read_list(kn_kctx *k, const char *name, int32_t idx, int64_t *vals, int32_t *n,
                     int *present)
{
    *present = 0;
    *n = 0;
    if (k->opset < 10) {
        const int64_t *v = kn_attr_ints(k->node, name, n);
        if (!v)
            return KN_OK;
        if (*n > KN_MAX_RANK)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Slice: '%s' has %d values for at most %d axes",
                           name, (int)*n, KN_MAX_RANK);
        for (int32_t i = 0; i < *n; i++)
            vals[i] = v[i];
        *present = 1;
        return KN_OK;
    }
    if (!kn_input(k, idx))
        return KN_OK;
    *present = 1;
    return kn_const_ints(k, idx, name, vals, KN_MAX_RANK, n);
}

static int slice_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *in = k->in[0];
    kn_tensor *out = k->out[0];
    int64_t starts[KN_MAX_RANK], ends[KN_MAX_RANK], axes[KN_MAX_RANK], steps[KN_MAX_RANK];
    int32_t ns, ne, na, nst, norm[KN_MAX_RANK];
    int has_s, has_e, has_a, has_st;
    if (read_list(k, "starts", 1, starts, &ns, &has_s) != KN_OK ||
        read_list(k, "ends", 2, ends, &ne, &has_e) != KN_OK ||
        read_list(k, "axes", 3, axes, &na, &has_a) != KN_OK ||
        read_list(k, "steps", 4, steps, &nst, &has_st) != KN_OK)
        return k->err->code;
    if (!has_s || !has_e)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Slice: 'starts' and 'ends' are required");
    if (ne != ns || (has_a && na != ns) || (has_st && nst != ns))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "Slice: starts, ends, axes and steps have different lengths (%d, %d, %d, %d)",
                       (int)ns, (int)ne, (int)(has_a ? na : ns), (int)(has_st ? nst : ns));
    if (!has_a)
        for (int32_t i = 0; i < ns; i++)
            axes[i] = i;
    if (kn_norm_axes(k, axes, ns, in->rank, 1, norm) != KN_OK)
        return k->err->code;
    size_t es = kn_dtype_size(in->dtype);
    if (es == 0)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Slice: type %s is not supported",
                       kn_dtype_name(in->dtype));

    int64_t in_strides[KN_MAX_RANK], strides[KN_MAX_RANK], offset = 0;
    kn_dense_strides(in->dims, in->rank, in_strides);
    kn_copy_desc(out, in);
    for (int32_t d = 0; d < in->rank; d++)
        strides[d] = in_strides[d];
    for (int32_t i = 0; i < ns; i++) {
        int32_t a = norm[i];
        int64_t dim = in->dims[a], st = has_st ? steps[i] : 1;
        int64_t s = starts[i], e = ends[i], count;
        if (st == 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Slice: step for axis %d is 0", (int)a);
        s = s < 0 ? s + dim : s;
        e = e < 0 ? e + dim : e;
        if (st > 0) {
            s = clamp64(s, 0, dim);
            e = clamp64(e, 0, dim);
            count = e > s ? (e - s - 1) / st + 1 : 0;
        } else {
            int64_t back = st == INT64_MIN ? INT64_MAX : -st;
            s = clamp64(s, 0, dim - 1);
            e = clamp64(e, -1, dim - 1);
            count = s > e ? (s - e - 1) / back + 1 : 0;
        }
        out->dims[a] = count;
        if (count > 0)
            offset += s * in_strides[a];
        /* a single element never steps, and a huge step would overflow */
        strides[a] = count > 1 ? st * in_strides[a] : 0;
    }
    kn_strided_plan *plan = malloc(sizeof *plan);
    if (!plan)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Slice: out of memory");
    kn_strided_init(plan, es, out->rank, out->dims, strides, offset);
    k->state = plan;
    return KN_OK;
}

static int slice_run(kn_kctx *k)
{
    kn_strided_run(k->state, k->in[0]->data, k->out[0]->data, k->threads);
    return KN_OK;
}

static void slice_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_Slice = {
    .op_type = "Slice", .since_version = 1, .prepare = slice_prepare, .run = slice_run,
    .release = slice_release
};
