/* Timing a CUDA kernel's candidate algorithms, and its choice in the
 * tuning cache (cuda_tuning.h). */
#include "core/cuda/cuda_tuning.h"

#include <string.h>

#include "core/cuda/cuda_device.h"

int kn_cuda_tuned_choice(const kn_kctx *k, char *buf, size_t cap)
{
    if (!k->engine_api || !k->engine_api->tuned_choice)
        return -1;
    return k->engine_api->tuned_choice(k->engine, k, buf, cap);
}

int kn_cuda_keep_choice(kn_kctx *k, const char *choice)
{
    if (!k->engine_api || !k->engine_api->keep_tuned_choice)
        return KN_OK;
    return k->engine_api->keep_tuned_choice(k->engine, k, choice, k->err);
}

enum { MAX_IO = 16 };

/* The device buffers the candidates run on, and what k held before. */
typedef struct timing_room {
    void *in[MAX_IO], *out[MAX_IO], *workspace;
    void *kept_in[MAX_IO], *kept_out[MAX_IO], *kept_scratch;
    int32_t n_in, n_out; /* how many of k's inputs and outputs were swapped */
    kn_cudaEvent start, stop;
} timing_room;

static void *zeros(kn_kctx *k, size_t bytes, int *rc)
{
    const kn_cuda_device *dev = kn_cuda_dev(k);
    void *p = NULL;
    if (*rc != KN_OK)
        return NULL;
    *rc = kn_cuda_check(dev, dev->api->cudaMalloc(&p, bytes ? bytes : 1), "tuning buffers", k->err);
    if (*rc == KN_OK)
        *rc = kn_cuda_check(dev, dev->api->cudaMemsetAsync(p, 0, bytes, k->stream),
                            "clearing tuning buffers", k->err);
    return p;
}

static int open_room(kn_kctx *k, timing_room *r, size_t workspace)
{
    const kn_cuda_device *dev = kn_cuda_dev(k);
    r->kept_scratch = k->scratch;
    int rc = k->n_in > MAX_IO || k->n_out > MAX_IO ? KN_ERR_DECLINE : KN_OK;
    for (int32_t j = 0; rc == KN_OK && j < k->n_in; j++)
        if (k->in[j]) {
            r->kept_in[j] = k->in[j]->data;
            k->in[j]->data = r->in[j] = zeros(k, (size_t)kn_tensor_nbytes(k->in[j]), &rc);
            r->n_in = j + 1;
        }
    for (int32_t j = 0; rc == KN_OK && j < k->n_out; j++)
        if (k->out[j]) {
            r->kept_out[j] = k->out[j]->data;
            k->out[j]->data = r->out[j] = zeros(k, (size_t)kn_tensor_nbytes(k->out[j]), &rc);
            r->n_out = j + 1;
        }
    k->scratch = r->workspace = workspace ? zeros(k, workspace, &rc) : NULL;
    if (rc == KN_OK)
        rc = kn_cuda_check(dev, dev->api->cudaEventCreate(&r->start), "creating an event", k->err);
    if (rc == KN_OK)
        rc = kn_cuda_check(dev, dev->api->cudaEventCreate(&r->stop), "creating an event", k->err);
    return rc;
}

static void close_room(kn_kctx *k, timing_room *r)
{
    const kn_cuda_api *api = kn_cuda_dev(k)->api;
    api->cudaStreamSynchronize(k->stream); /* nothing queued may use the buffers still */
    if (r->start)
        api->cudaEventDestroy(r->start);
    if (r->stop)
        api->cudaEventDestroy(r->stop);
    /* backwards: a tensor that is two inputs (MatMul(X, X)) was swapped
     * twice, and gets its own pointer back last */
    for (int32_t j = r->n_in - 1; j >= 0; j--)
        if (k->in[j]) {
            if (r->in[j])
                api->cudaFree(r->in[j]);
            k->in[j]->data = r->kept_in[j];
        }
    for (int32_t j = r->n_out - 1; j >= 0; j--)
        if (k->out[j]) {
            if (r->out[j])
                api->cudaFree(r->out[j]);
            k->out[j]->data = r->kept_out[j];
        }
    if (r->workspace)
        api->cudaFree(r->workspace);
    k->scratch = r->kept_scratch;
}

/* Milliseconds of KN_CUDA_TUNE_RUNS runs after a warm-up, or -1. */
static float time_runs(kn_kctx *k, timing_room *r, int (*run)(kn_kctx *k))
{
    const kn_cuda_api *api = kn_cuda_dev(k)->api;
    float ms = -1.0f;
    int ok = run(k) == KN_OK && api->cudaEventRecord(r->start, k->stream) == KN_cudaSuccess;
    for (int i = 0; ok && i < KN_CUDA_TUNE_RUNS; i++)
        ok = run(k) == KN_OK;
    ok = ok && api->cudaEventRecord(r->stop, k->stream) == KN_cudaSuccess &&
         api->cudaEventSynchronize(r->stop) == KN_cudaSuccess &&
         api->cudaEventElapsedTime(&ms, r->start, r->stop) == KN_cudaSuccess;
    return ok ? ms : -1.0f;
}

int kn_cuda_time_candidates(kn_kctx *k, int n, kn_cuda_pick_fn pick, void *ctx,
                            int (*run)(kn_kctx *k), size_t workspace, int *best)
{
    *best = -1;
    timing_room r;
    memset(&r, 0, sizeof r);
    int rc = kn_cuda_use(kn_cuda_dev(k), k->err);
    if (rc == KN_OK)
        rc = open_room(k, &r, workspace);
    float best_ms = 0.0f;
    kn_err *kept_err = k->err, candidate_err = {0};
    for (int i = 0; rc == KN_OK && i < n; i++) {
        /* a candidate that fails is left out, its message with it */
        k->err = &candidate_err;
        float ms = pick(k, ctx, i) == KN_OK ? time_runs(k, &r, run) : -1.0f;
        k->err = kept_err;
        candidate_err = (kn_err){0};
        if (ms >= 0.0f && (*best < 0 || ms < best_ms)) {
            best_ms = ms;
            *best = i;
        }
    }
    close_room(k, &r);
    return rc;
}
