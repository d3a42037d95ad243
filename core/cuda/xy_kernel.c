#include "core/cuda/xy_kernel.h"

#include <stdlib.h>
#include <string.h>

#include "core/cuda/cuda_device.h"

typedef struct xy_state {
    kn_cudaKernel fn;
    int64_t n;
    max_align_t params[]; /* the block, aligned for any member it holds */
} xy_state;

void kn_cuda_xy_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

int kn_cuda_xy_prepare(kn_kctx *k, const char *module, const char *name, const void *params,
                       size_t params_bytes, int64_t n)
{
    xy_state *st = calloc(1, sizeof *st + params_bytes);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    memcpy(st->params, params, params_bytes);
    st->n = n;
    k->state = st;
    if (n == 0)
        return KN_OK;
    st->fn = kn_cuda_kernel(kn_cuda_dev(k), module, name, k->err);
    if (!st->fn) {
        kn_cuda_xy_release(k);
        return k->err->code;
    }
    return KN_OK;
}

int kn_cuda_xy_run(kn_kctx *k)
{
    xy_state *st = k->state;
    if (st->n == 0)
        return KN_OK;
    const void *x = k->in[0]->data;
    void *y = k->out[0]->data;
    void *args[] = {&x, &y, st->params};
    return kn_cuda_launch_1d(k, st->fn, st->n, args);
}
