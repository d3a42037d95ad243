/* NonZero (opsets 9, 13): the int64 coordinates [rank x count] of the
 * nonzero elements of any numeric, bool or complex tensor, in row-major
 * order. A scalar gives shape [0, count], as the spec says (not numpy's
 * [1, count]).
 *
 * The output size is the number of nonzeros, so prepare() needs the
 * input's value: when it is not a constant it answers KN_ERR_NEEDS_VALUE
 * and the runtime runs the model eagerly. run() recounts and never writes
 * past the planned size. Floats compare numerically (-0 is zero, NaN is
 * not), so they go through double; everything else is nonzero when any of
 * its bytes is. */
#include "core/kernel/tensor_common.h"

static int is_floaty(int32_t dt)
{
    return dt == KN_FLOAT || dt == KN_DOUBLE || dt == KN_FLOAT16 || dt == KN_BFLOAT16 ||
           dt == KN_COMPLEX64 || dt == KN_COMPLEX128;
}

/* flags[i] = element i of src is nonzero, for n elements. */
static void nonzero_flags(int32_t dt, const void *src, int64_t n, uint8_t *flags)
{
    size_t es = kn_dtype_size(dt);
    if (!is_floaty(dt)) {
        const unsigned char *p = src;
        for (int64_t i = 0; i < n; i++) {
            unsigned char any = 0;
            for (size_t b = 0; b < es; b++)
                any |= p[(size_t)i * es + b];
            flags[i] = any != 0;
        }
        return;
    }
    /* complex: the real and imaginary parts are two floats of the pair */
    int parts = dt == KN_COMPLEX64 || dt == KN_COMPLEX128 ? 2 : 1;
    int32_t part = dt == KN_COMPLEX64 ? KN_FLOAT : dt == KN_COMPLEX128 ? KN_DOUBLE : dt;
    double buf[KN_CHUNK];
    for (int64_t i = 0; i < n; i += KN_CHUNK / 2) {
        int64_t m = n - i < KN_CHUNK / 2 ? n - i : KN_CHUNK / 2;
        kn_convert(part, (const char *)src + (size_t)i * es, KN_DOUBLE, buf, m * parts);
        for (int64_t t = 0; t < m; t++)
            flags[i + t] = buf[t * parts] != 0 || (parts == 2 && buf[t * parts + 1] != 0);
    }
}

/* Counts nonzeros chunk by chunk; if coords is given, also writes the
 * coordinates of the first `cap` of them (coords[d * cap + j]). */
static int64_t nonzero_scan(const kn_tensor *x, int64_t *coords, int64_t cap)
{
    int64_t n = kn_tensor_numel(x), count = 0;
    size_t es = kn_dtype_size(x->dtype);
    int64_t idx[KN_MAX_RANK] = {0};
    uint8_t flags[KN_CHUNK];
    for (int64_t i = 0; i < n; i += KN_CHUNK) {
        int64_t m = n - i < KN_CHUNK ? n - i : KN_CHUNK;
        nonzero_flags(x->dtype, (const char *)x->data + (size_t)i * es, m, flags);
        for (int64_t t = 0; t < m; t++) {
            if (flags[t] && coords && count < cap) {
                for (int32_t d = 0; d < x->rank; d++)
                    coords[d * cap + count] = idx[d];
            }
            count += flags[t];
            /* advance the row-major coordinate of element i + t */
            for (int32_t d = x->rank - 1; d >= 0; d--) {
                if (++idx[d] < x->dims[d])
                    break;
                idx[d] = 0;
            }
        }
    }
    return count;
}

static int nonzero_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    if (!kn_dtype_size(x->dtype))
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "NonZero: %s input is not supported",
                       kn_dtype_name(x->dtype));
    if (!x->data)
        return kn_fail(k->err, KN_ERR_NEEDS_VALUE,
                       "NonZero: output shape depends on the value of input 'X'");
    kn_tensor *y = k->out[0];
    y->dtype = KN_INT64;
    y->rank = 2;
    y->dims[0] = x->rank;
    y->dims[1] = nonzero_scan(x, NULL, 0);
    return KN_OK;
}

static int nonzero_run(kn_kctx *k)
{
    const kn_tensor *y = k->out[0];
    nonzero_scan(k->in[0], y->data, y->dims[1]);
    return KN_OK;
}

#define NONZERO_TYPES (KN_MASK_ALL | KN_BIT(KN_COMPLEX64) | KN_BIT(KN_COMPLEX128))
/* 9 and 13 differ only in bfloat16, which the shared code handles. */
const kn_op_def kn_op_NonZero = {
    .op_type = "NonZero", .since_version = 9, .dtypes = NONZERO_TYPES,
    .prepare = nonzero_prepare, .run = nonzero_run
};
