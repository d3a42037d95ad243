/* Unique (opset 11): the distinct elements of a flattened tensor, or the
 * distinct slices along `axis`, sorted ascending or in order of first
 * occurrence, with the optional outputs indices (first occurrence of each),
 * inverse_indices (for each input slice, its output position) and counts.
 *
 * Slices compare lexicographically, element by element in row-major order
 * of the remaining dims (numpy.unique's order). A stable merge sort of the
 * slice indices groups equal slices with the first occurrence leading
 * each group; unsorted output then orders groups by that first index.
 * Floats compare by value (-0 == 0), NaNs equal each other and sort last.
 *
 * The number of distinct slices is the output size, so prepare() needs the
 * value (KN_ERR_NEEDS_VALUE otherwise) and runs the same grouping with
 * heap buffers to learn it; run() repeats it in scratch memory. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

typedef int (*elem_cmp)(const void *a, const void *b);

#define CMP_ORDER(a, b) (((a) > (b)) - ((a) < (b)))
#define CMP_S(a, b) CMP_ORDER(a, b)
#define CMP_U(a, b) CMP_ORDER(a, b)
#define CMP_F(a, b) ((a) != (a) ? ((b) != (b) ? 0 : 1) : (b) != (b) ? -1 : CMP_ORDER(a, b))

#define DEFINE_CMP(arg, C, DT, T, U)                                          \
    static int cmp_##DT(const void *pa, const void *pb)                       \
    {                                                                         \
        T a, b;                                                               \
        memcpy(&a, pa, sizeof a);                                             \
        memcpy(&b, pb, sizeof b);                                             \
        return CMP_##C(a, b);                                                 \
    }
KN_TYPES_REAL(DEFINE_CMP, _)

/* float16 / bfloat16 / bool through their value */
static int cmp_half(const void *pa, const void *pb, float (*to_f32)(uint16_t))
{
    uint16_t ha, hb;
    memcpy(&ha, pa, 2);
    memcpy(&hb, pb, 2);
    float a = to_f32(ha), b = to_f32(hb);
    return CMP_F(a, b);
}
static int cmp_f16(const void *a, const void *b) { return cmp_half(a, b, kn_f16_to_f32); }
static int cmp_bf16(const void *a, const void *b) { return cmp_half(a, b, kn_bf16_to_f32); }
static int cmp_bool(const void *a, const void *b)
{
    return CMP_ORDER(*(const uint8_t *)a != 0, *(const uint8_t *)b != 0);
}

#define CMP_ENTRY(arg, C, DT, T, U) [DT] = cmp_##DT,
static const elem_cmp comparators[KN_DTYPE_COUNT] = {
    KN_TYPES_REAL(CMP_ENTRY, _)[KN_FLOAT16] = cmp_f16, [KN_BFLOAT16] = cmp_bf16,
    [KN_BOOL] = cmp_bool,
};

typedef struct unique_state {
    elem_cmp cmp;
    size_t es;
    int64_t outer, d, inner; /* x as [outer, d, inner]; slices along d */
    int sorted;
    int64_t groups;
} unique_state;

static int slice_cmp(const unique_state *s, const char *x, int64_t a, int64_t b)
{
    for (int64_t o = 0; o < s->outer; o++) {
        const char *pa = x + (size_t)((o * s->d + a) * s->inner) * s->es;
        const char *pb = x + (size_t)((o * s->d + b) * s->inner) * s->es;
        for (int64_t j = 0; j < s->inner; j++) {
            int r = s->cmp(pa + (size_t)j * s->es, pb + (size_t)j * s->es);
            if (r)
                return r;
        }
    }
    return 0;
}

/* Stable bottom-up merge sort of v[0..n) by slice order; tmp holds n. */
static void sort_slices(const unique_state *s, const char *x, int64_t *v, int64_t *tmp, int64_t n)
{
    int64_t *src = v, *dst = tmp;
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n;
            int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                dst[o++] = slice_cmp(s, x, src[i], src[j]) <= 0 ? src[i++] : src[j++];
            while (i < mid)
                dst[o++] = src[i++];
            while (j < hi)
                dst[o++] = src[j++];
        }
        int64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, (size_t)n * sizeof *v);
}

/* The six index arrays of the grouping, each d long, carved from one
 * buffer. Group g is the g-th distinct slice in sorted order; pos[g] is
 * where it goes in the output. */
typedef struct groups {
    int64_t *perm, *tmp, *of, *first, *count, *pos;
} groups;

static groups groups_at(int64_t *buf, int64_t d)
{
    groups g = {buf, buf + d, buf + 2 * d, buf + 3 * d, buf + 4 * d, buf + 5 * d};
    return g;
}

/* Returns the number of groups. */
static int64_t group_slices(const unique_state *s, const char *x, const groups *g)
{
    for (int64_t i = 0; i < s->d; i++)
        g->perm[i] = i;
    sort_slices(s, x, g->perm, g->tmp, s->d);
    int64_t n = 0;
    for (int64_t i = 0; i < s->d; i++) {
        if (i == 0 || slice_cmp(s, x, g->perm[i - 1], g->perm[i]) != 0) {
            g->first[n] = g->perm[i]; /* stable sort: first occurrence leads */
            g->count[n++] = 0;
        }
        g->count[n - 1]++;
        g->of[g->perm[i]] = n - 1;
    }
    if (s->sorted) {
        for (int64_t i = 0; i < n; i++)
            g->pos[i] = i;
    } else { /* number groups as their first occurrences come */
        int64_t next = 0;
        for (int64_t i = 0; i < s->d; i++)
            if (g->first[g->of[i]] == i)
                g->pos[g->of[i]] = next++;
    }
    return n;
}

static void unique_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

static int unique_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    elem_cmp cmp = x->dtype > 0 && x->dtype < KN_DTYPE_COUNT ? comparators[x->dtype] : NULL;
    if (!cmp)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Unique: %s input is not supported",
                       kn_dtype_name(x->dtype));
    int sorted = (int)kn_attr_int(k->node, "sorted", 1);
    if (sorted != 0 && sorted != 1)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Unique: sorted must be 0 or 1, not %d", sorted);
    int32_t axis = -1;
    if (kn_node_attr(k->node, "axis")) {
        axis = kn_norm_axis(kn_attr_int(k->node, "axis", 0), x->rank, NULL);
        if (axis < 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Unique: axis out of range for rank %d",
                           (int)x->rank);
    }
    if (!x->data)
        return kn_fail(k->err, KN_ERR_NEEDS_VALUE,
                       "Unique: output shape depends on the value of input 'X'");
    unique_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Unique: out of memory");
    k->state = s;
    s->cmp = cmp;
    s->es = kn_dtype_size(x->dtype);
    s->sorted = sorted;
    s->outer = axis < 0 ? 1 : kn_shape_numel(x->dims, axis);
    s->d = axis < 0 ? kn_tensor_numel(x) : x->dims[axis];
    s->inner = axis < 0 ? 1 : kn_shape_numel(x->dims + axis + 1, x->rank - axis - 1);

    size_t bytes = (size_t)(6 * s->d) * sizeof(int64_t);
    int64_t *buf = malloc(bytes ? bytes : 1);
    if (!buf)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Unique: out of memory");
    groups g = groups_at(buf, s->d);
    s->groups = group_slices(s, x->data, &g);
    free(buf);
    k->scratch_bytes = bytes;

    kn_tensor *y = k->out[0];
    kn_copy_desc(y, x);
    if (axis < 0) {
        y->rank = 1;
        y->dims[0] = s->groups;
    } else {
        y->dims[axis] = s->groups;
    }
    for (int32_t i = 1; i <= 3; i++) {
        kn_tensor *o = kn_output(k, i);
        if (o) {
            o->dtype = KN_INT64;
            o->rank = 1;
            o->dims[0] = i == 2 ? s->d : s->groups;
        }
    }
    return KN_OK;
}

static int unique_run(kn_kctx *k)
{
    const unique_state *s = k->state;
    if (s->d == 0) /* every output is empty, and there is no scratch to carve */
        return KN_OK;
    const char *x = k->in[0]->data;
    groups g = groups_at(k->scratch, s->d);
    int64_t n = group_slices(s, x, &g);
    if (n != s->groups) /* the value changed since prepare(); cannot happen */
        return kn_fail(k->err, KN_ERR_INTERNAL, "Unique: input changed after planning");
    char *y = k->out[0]->data;
    kn_tensor *indices = kn_output(k, 1), *inverse = kn_output(k, 2), *counts = kn_output(k, 3);
    size_t row = (size_t)s->inner * s->es;
    for (int64_t gi = 0; gi < n; gi++) {
        int64_t p = g.pos[gi];
        for (int64_t o = 0; o < s->outer; o++)
            memcpy(y + (size_t)(o * n + p) * row, x + (size_t)(o * s->d + g.first[gi]) * row, row);
        if (indices)
            ((int64_t *)indices->data)[p] = g.first[gi];
        if (counts)
            ((int64_t *)counts->data)[p] = g.count[gi];
    }
    if (inverse)
        for (int64_t i = 0; i < s->d; i++)
            ((int64_t *)inverse->data)[i] = g.pos[g.of[i]];
    return KN_OK;
}

const kn_op_def kn_op_Unique = {
    .op_type = "Unique", .since_version = 11, .dtypes = KN_MASK_ALL, .prepare = unique_prepare,
    .run = unique_run, .release = unique_release
};
