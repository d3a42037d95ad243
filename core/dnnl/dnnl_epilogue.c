/* See dnnl_epilogue.h for why these activations run outside oneDNN. */
#include "dnnl_epilogue.h"

#include "core/simd/kernels.h"

void kn_dnnl_split_activation(const kn_activation *act, kn_activation *post,
                              kn_activation *after)
{
    *post = *act;
    *after = (kn_activation){.kind = KN_ACT_NONE};
    if ((act->kind == KN_ACT_SILU || act->kind == KN_ACT_SIGMOID)) {
        *after = *act;
        *post = (kn_activation){.kind = KN_ACT_NONE};
    }
}

/* Items of 4 Ki floats, at least 8 per task: waking a worker costs more
 * than the ~8 us of SiLU in 32 Ki floats, so smaller maps (the 7x7 and
 * 14x14 layers) stay on the calling thread. */
enum { AFTER_GRAIN = 4096, AFTER_MIN_ITEMS = 8 };

typedef struct after_job {
    const kn_activation *act;
    float *y;
    int64_t n;
} after_job;

static void after_range(void *ctx, int64_t begin, int64_t end)
{
    const after_job *j = ctx;
    int64_t lo = begin * AFTER_GRAIN, hi = end * AFTER_GRAIN < j->n ? end * AFTER_GRAIN : j->n;
    kn_simd()->act(j->y + lo, j->y + lo, hi - lo, j->act);
}

void kn_dnnl_apply_after(kn_kctx *k, const kn_activation *after, kn_tensor *y)
{
    if (after->kind == KN_ACT_NONE)
        return;
    after_job j = {after, y->data, kn_tensor_numel(y)};
    kn_parallel_for(k->pool, (j.n + AFTER_GRAIN - 1) / AFTER_GRAIN, AFTER_MIN_ITEMS, after_range,
                    &j);
}
