/* Pad: opset 1 (attribute "paddings"), 2 (attributes pads / value), 11 and
 * 13 (pads and constant_value as inputs), 18 (axes input), 19+ (wrap mode).
 * Modes constant, reflect, edge and wrap; negative pads crop. Any
 * fixed-size dtype: the op only moves elements.
 *
 * Every output index along an axis reads one input index (or the
 * constant), so prepare() tabulates that map per axis, pre-multiplied by
 * the input stride. run() walks output rows: a row whose outer indices hit
 * the constant is filled; otherwise its interior is one memcpy and only
 * the padded ends go through the map. Pads decide the output shape, so a
 * pads (or axes) input whose value is not known at prepare time gets
 * KN_ERR_NEEDS_VALUE. The engine (img_pad_*, image_pad.h) also serves
 * CenterCropPad. */
#include <stdlib.h>
#include <string.h>

#include "core/cpu/image/image_common.h"
#include "core/cpu/image/image_pad.h"

/* Sum of the output's axis lengths Pad builds index tables for. */
#define PAD_MAX_AXIS_TOTAL ((int64_t)1 << 26)

typedef struct pad_state {
    int32_t rank;
    size_t esz;
    int64_t out_dims[KN_MAX_RANK];
    int64_t *map[KN_MAX_RANK]; /* per axis, per output index: input offset or -1 */
    int64_t lo, hi;            /* last axis: outputs [lo, hi) read input lo - pb .. */
    int64_t src0;              /* ... starting at this input index */
    unsigned char value[16];   /* the constant as an element */
    int32_t value_input;       /* >= 0: input holding the constant, read at run time */
    int64_t table[];
} pad_state;

/* Input index for output index o along an axis of n elements padded by pb
 * in front, or -1 for the constant. */
static int64_t pad_source(int mode, int64_t o, int64_t pb, int64_t n)
{
    int64_t i = o - pb;
    if (i >= 0 && i < n)
        return i;
    switch (mode) {
    case IMG_PAD_EDGE: return i < 0 ? 0 : n - 1;
    case IMG_PAD_WRAP: return ((i % n) + n) % n;
    case IMG_PAD_REFLECT: {
        /* numpy's reflect (edge not repeated), periodic for wide pads */
        if (n == 1)
            return 0;
        int64_t period = 2 * (n - 1), m = ((i % period) + period) % period;
        return m < n ? m : period - m;
    }
    default: return -1;
    }
}

void img_pad_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

int img_pad_plan(kn_kctx *k, const char *op, int mode, const int64_t *begin, const int64_t *end,
                 const void *value, int32_t value_input)
{
    const kn_tensor *x = k->in[0];
    const int32_t rank = x->rank;
    size_t esz = kn_dtype_size(x->dtype);
    if (esz == 0 || esz > 16)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: type %s is not supported", op,
                       kn_dtype_name(x->dtype));
    kn_tensor *y = k->out[0];
    int64_t total = 0;
    y->dtype = x->dtype;
    y->rank = rank;
    for (int32_t d = 0; d < rank; d++) {
        int64_t n = x->dims[d];
        if (begin[d] > INT64_MAX / 4 || end[d] > INT64_MAX / 4 || begin[d] < -INT64_MAX / 4 ||
            end[d] < -INT64_MAX / 4 || n + begin[d] + end[d] < 0)
            return kn_fail(k->err, KN_ERR_SHAPE,
                           "%s: pads %lld, %lld on axis %d of size %lld give a negative size", op,
                           (long long)begin[d], (long long)end[d], (int)d, (long long)n);
        y->dims[d] = n + begin[d] + end[d];
        if (n == 0 && y->dims[d] > 0 && mode != IMG_PAD_CONSTANT)
            return kn_fail(k->err, KN_ERR_SHAPE,
                           "%s: cannot pad the empty axis %d but with a "
                           "constant",
                           op, (int)d);
        total += y->dims[d];
    }
    if (kn_shape_numel(y->dims, rank) < 0)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: output is too large", op);
    /* One index entry per output position along each axis: pads that make
     * an axis of billions of elements are refused here rather than by a
     * multi-gigabyte table (no real model pads like that). */
    if (total > PAD_MAX_AXIS_TOTAL)
        return kn_fail(k->err, KN_ERR_LIMIT, "%s: the padded axes add up to %lld elements "
                       "(at most %lld)", op, (long long)total, (long long)PAD_MAX_AXIS_TOTAL);

    pad_state *st = calloc(1, sizeof *st + sizeof(int64_t) * (size_t)total);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    st->rank = rank;
    st->esz = esz;
    st->value_input = value_input;
    memcpy(st->value, value, 16);
    memcpy(st->out_dims, y->dims, sizeof(int64_t) * (size_t)rank);
    int64_t *t = st->table, stride = 1;
    for (int32_t d = rank - 1; d >= 0; d--) {
        st->map[d] = t;
        for (int64_t o = 0; o < y->dims[d]; o++) {
            int64_t i = pad_source(mode, o, begin[d], x->dims[d]);
            *t++ = i < 0 ? -1 : i * stride;
        }
        stride *= x->dims[d];
    }
    if (rank > 0) {
        int64_t pb = begin[rank - 1], n = x->dims[rank - 1], o = y->dims[rank - 1];
        st->lo = pb > 0 ? pb : 0;
        st->hi = pb + n < o ? pb + n : o;
        if (st->hi < st->lo)
            st->hi = st->lo;
        st->src0 = st->lo - pb;
    }
    k->state = st;
    return KN_OK;
}

static int pad_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    const int32_t rank = x->rank;
    const char *mode_s = kn_attr_string(k->node, "mode", "constant");
    int mode = strcmp(mode_s, "constant") == 0                 ? IMG_PAD_CONSTANT
               : strcmp(mode_s, "reflect") == 0                ? IMG_PAD_REFLECT
               : strcmp(mode_s, "edge") == 0                   ? IMG_PAD_EDGE
               : strcmp(mode_s, "wrap") == 0 && k->opset >= 19 ? IMG_PAD_WRAP
                                                               : -1;
    if (mode < 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Pad: unknown mode '%s' at opset %lld", mode_s,
                       (long long)k->opset);

    int64_t pads[2 * KN_MAX_RANK], begin[KN_MAX_RANK] = {0}, end[KN_MAX_RANK] = {0};
    int32_t npads, axes[KN_MAX_RANK], naxes = rank;
    for (int32_t d = 0; d < rank; d++)
        axes[d] = d;
    if (k->opset < 11) {
        const int64_t *p = kn_attr_ints(k->node, k->opset < 2 ? "paddings" : "pads", &npads);
        if (!p)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Pad: attribute %s is required",
                           k->opset < 2 ? "paddings" : "pads");
        if (npads > 2 * KN_MAX_RANK)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Pad: %d pads for rank %d", (int)npads,
                           (int)rank);
        memcpy(pads, p, sizeof(int64_t) * (size_t)npads);
    } else {
        if (kn_need_inputs(k, 2) != KN_OK)
            return k->err->code;
        int rc = img_const_ints(k, 1, "pads", pads, 2 * KN_MAX_RANK, &npads);
        if (rc != KN_OK)
            return rc;
        int64_t ax[KN_MAX_RANK];
        int32_t nax = -1;
        if (k->opset >= 18 && (rc = img_const_ints(k, 3, "axes", ax, KN_MAX_RANK, &nax)) != KN_OK)
            return rc;
        if (nax >= 0) {
            if (kn_norm_axes(k, ax, nax, rank, 1, axes) != KN_OK)
                return k->err->code;
            naxes = nax;
        }
    }
    if (npads != 2 * naxes)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Pad: %d pads for %d axes (need %d)",
                       (int)npads, (int)naxes, (int)(2 * naxes));
    for (int32_t i = 0; i < naxes; i++) {
        begin[axes[i]] = pads[i];
        end[axes[i]] = pads[naxes + i];
    }

    unsigned char value[16] = {0};
    int32_t value_input = -1;
    if (k->opset < 11) {
        if (kn_convert_supported(x->dtype))
            kn_scalar_from_double(x->dtype, kn_attr_float(k->node, "value", 0), value);
    } else if (mode == IMG_PAD_CONSTANT) {
        const kn_tensor *v = kn_input(k, 2);
        if (v && kn_tensor_numel(v) > 0) {
            if (v->dtype != x->dtype)
                return kn_fail(k->err, KN_ERR_DTYPE, "Pad: constant_value is %s but data is %s",
                               kn_dtype_name(v->dtype), kn_dtype_name(x->dtype));
            value_input = 2;
        }
    }
    return img_pad_plan(k, "Pad", mode, begin, end, value, value_input);
}

typedef struct pad_job {
    const pad_state *st;
    const char *x;
    char *y;
    const void *value;
    int64_t width;
} pad_job;

/* Copies one element of esz bytes; fixed sizes let the compiler inline. */
static inline void put(char *dst, const void *src, size_t esz)
{
    switch (esz) {
    case 1: memcpy(dst, src, 1); break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    default: memcpy(dst, src, esz); break;
    }
}

static void pad_rows(void *ctx, int64_t begin, int64_t end)
{
    const pad_job *j = ctx;
    const pad_state *st = j->st;
    const size_t esz = st->esz;
    const int32_t last = st->rank - 1;
    const int64_t *lmap = st->map[last];
    for (int64_t row = begin; row < end; row++) {
        int64_t r = row, off = 0;
        int constant = 0;
        for (int32_t d = last - 1; d >= 0; d--) {
            int64_t i = st->map[d][r % st->out_dims[d]];
            r /= st->out_dims[d];
            if (i < 0)
                constant = 1;
            off += i;
        }
        char *y = j->y + (size_t)(row * j->width) * esz;
        if (constant) {
            kn_fill_pattern(y, j->value, esz, j->width);
            continue;
        }
        const char *x = j->x + (size_t)off * esz;
        for (int64_t c = 0; c < st->lo; c++)
            put(y + (size_t)c * esz, lmap[c] < 0 ? j->value : x + (size_t)lmap[c] * esz, esz);
        if (st->hi > st->lo)
            memcpy(y + (size_t)st->lo * esz, x + (size_t)st->src0 * esz,
                   (size_t)(st->hi - st->lo) * esz);
        for (int64_t c = st->hi; c < j->width; c++)
            put(y + (size_t)c * esz, lmap[c] < 0 ? j->value : x + (size_t)lmap[c] * esz, esz);
    }
}

int img_pad_run(kn_kctx *k)
{
    const pad_state *st = k->state;
    int64_t total = kn_tensor_numel(k->out[0]);
    if (total <= 0)
        return KN_OK;
    if (st->rank == 0) {
        memcpy(k->out[0]->data, k->in[0]->data, st->esz);
        return KN_OK;
    }
    pad_job j = {st, k->in[0]->data, k->out[0]->data,
                 st->value_input >= 0 ? k->in[st->value_input]->data : st->value,
                 st->out_dims[st->rank - 1]};
    kn_parallel_for(k->threads, total / j.width, 1 + KN_GRAIN / j.width, pad_rows, &j);
    return KN_OK;
}

const kn_op_def kn_op_pad_1 = {
    .op_type = "Pad", .since_version = 1, .until_version = 10, .dtypes = KN_MASK_ANY_FIXED,
    .prepare = pad_prepare, .run = img_pad_run, .release = img_pad_release
};
const kn_op_def kn_op_pad_11 = {
    .op_type = "Pad", .since_version = 11, .until_version = 17, .dtypes = KN_MASK_ANY_FIXED,
    .prepare = pad_prepare, .run = img_pad_run, .release = img_pad_release
};
const kn_op_def kn_op_pad_18 = {
    .op_type = "Pad", .since_version = 18, .dtypes = KN_MASK_ANY_FIXED, .prepare = pad_prepare,
    .run = img_pad_run, .release = img_pad_release
};
