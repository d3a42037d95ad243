/* Trilu: keeps the upper (j - i >= k) or lower (j - i <= k) triangle of
 * each matrix in the last two dims and zeroes the rest. Each output row is
 * one zeroed run and one copied run, so it works on bytes for any dtype.
 * k does not change the shape, so it is read at run time and need not be a
 * constant. */
#include <string.h>

#include "core/kernel/tensor_common.h"

typedef struct trilu_job {
    int64_t rows, cols, k; /* rows/cols of one matrix */
    size_t es;
    int upper;
    const char *in;
    char *out;
} trilu_job;

static void trilu_range(void *ctx, int64_t begin, int64_t end)
{
    const trilu_job *j = ctx;
    const size_t row_bytes = (size_t)j->cols * j->es;
    for (int64_t r = begin; r < end; r++) {
        int64_t i = r % j->rows;
        /* kept columns [lo, hi) */
        int64_t lo = j->upper ? i + j->k : 0, hi = j->upper ? j->cols : i + j->k + 1;
        lo = lo < 0 ? 0 : lo > j->cols ? j->cols : lo;
        hi = hi < lo ? lo : hi > j->cols ? j->cols : hi;
        const char *src = j->in + (size_t)r * row_bytes;
        char *dst = j->out + (size_t)r * row_bytes;
        memset(dst, 0, (size_t)lo * j->es);
        if (dst != src)
            memcpy(dst + (size_t)lo * j->es, src + (size_t)lo * j->es, (size_t)(hi - lo) * j->es);
        memset(dst + (size_t)hi * j->es, 0, (size_t)(j->cols - hi) * j->es);
    }
}

static int trilu_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *in = k->in[0], *kt = kn_input(k, 1);
    if (in->rank < 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "Trilu: input must have rank >= 2, not %d", (int)in->rank);
    if (kn_dtype_size(in->dtype) == 0)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Trilu: type %s is not supported",
                       kn_dtype_name(in->dtype));
    if (kt && (kt->dtype != KN_INT64 || kn_tensor_numel(kt) != 1))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Trilu: k must be an int64 scalar");
    kn_copy_desc(k->out[0], in);
    return KN_OK;
}

static int trilu_run(kn_kctx *k)
{
    const kn_tensor *in = k->in[0], *kt = kn_input(k, 1);
    trilu_job job = {in->dims[in->rank - 2], in->dims[in->rank - 1], kt ? kn_read_int(kt, 0) : 0,
                     kn_dtype_size(in->dtype), kn_attr_int(k->node, "upper", 1) != 0, in->data,
                     k->out[0]->data};
    int64_t n_rows = kn_tensor_numel(in) / (job.cols ? job.cols : 1);
    if (job.cols == 0 || job.rows == 0)
        return KN_OK;
    kn_parallel_for(k->threads, n_rows, 65536 / ((int64_t)job.es * job.cols) + 1, trilu_range, &job);
    return KN_OK;
}

/* Rows are rewritten one at a time from their own bytes: in place is safe. */
const kn_op_def kn_op_Trilu = {
    .op_type = "Trilu", .since_version = 14, .flags = KN_OP_INPLACE, .prepare = trilu_prepare,
    .run = trilu_run
};
