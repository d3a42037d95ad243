/* Broadcast plans: computed once in prepare, walked by run. Dropping
 * size-1 dims and merging dims that every input reads the same way turns
 * the common cases into very few, long rows: same shape is one row of
 * stride 1; NCHW + C11 bias is N*C rows of H*W with the bias at stride 0;
 * a scalar is stride 0 throughout. */
#include <string.h>

#include "core/kernel/tensor_common.h"

void kn_bcast_init(kn_bcast_plan *p, const kn_tensor *out, int32_t n_in, const kn_tensor *const *in)
{
    const int32_t rank = out->rank;
    int64_t full[KN_BCAST_MAX_IN][KN_MAX_RANK];
    memset(p, 0, sizeof *p);
    p->n_in = n_in;
    /* Per input, its own row-major strides aligned to the output's trailing
     * dims, 0 where it has extent 1 (or no dim) and so repeats. */
    for (int32_t i = 0; i < n_in; i++) {
        int32_t lead = rank - in[i]->rank;
        int64_t s = 1;
        for (int32_t d = rank - 1; d >= 0; d--) {
            int64_t dim = d >= lead ? in[i]->dims[d - lead] : 1;
            full[i][d] = dim == 1 ? 0 : s;
            s *= dim;
        }
    }
    int32_t r = 0;
    for (int32_t d = 0; d < rank; d++) {
        if (out->dims[d] == 1)
            continue;
        int merge = r > 0;
        for (int32_t i = 0; i < n_in && merge; i++)
            merge = p->strides[i][r - 1] == full[i][d] * out->dims[d];
        if (merge) {
            p->dims[r - 1] *= out->dims[d];
            for (int32_t i = 0; i < n_in; i++)
                p->strides[i][r - 1] = full[i][d];
            continue;
        }
        p->dims[r] = out->dims[d];
        for (int32_t i = 0; i < n_in; i++)
            p->strides[i][r] = full[i][d];
        r++;
    }
    if (r == 0) { /* every dim is 1: a single element */
        p->dims[0] = 1;
        r = 1;
    }
    p->rank = r;
    p->numel = kn_shape_numel(out->dims, out->rank);
}

void kn_bcast_walk(const kn_bcast_plan *p, int64_t begin, int64_t end, kn_bcast_row_fn row,
                   void *ctx)
{
    const int32_t last = p->rank - 1, n_in = p->n_in;
    int64_t idx[KN_MAX_RANK], off[KN_BCAST_MAX_IN] = {0};
    int64_t rem = begin;
    for (int32_t d = last; d >= 0; d--) {
        idx[d] = rem % p->dims[d];
        rem /= p->dims[d];
        for (int32_t i = 0; i < n_in; i++)
            off[i] += idx[d] * p->strides[i][d];
    }
    for (int64_t pos = begin; pos < end;) {
        int64_t n = p->dims[last] - idx[last];
        if (n > end - pos)
            n = end - pos;
        row(ctx, off, pos, n);
        pos += n;
        idx[last] += n;
        for (int32_t i = 0; i < n_in; i++)
            off[i] += n * p->strides[i][last];
        for (int32_t d = last; d > 0 && idx[d] == p->dims[d]; d--) {
            for (int32_t i = 0; i < n_in; i++)
                off[i] += p->strides[i][d - 1] - idx[d] * p->strides[i][d];
            idx[d] = 0;
            idx[d - 1]++;
        }
    }
}
