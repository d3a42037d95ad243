/* One version of one model being served: the loaded model, its sessions
 * (instances), each driven by a worker thread, and the request queue they
 * share. Workers merge queued requests into one run when the model's first
 * input dim is dynamic (dynamic batching) and split the outputs back. */
#ifndef KILN_SERVE_SERVED_MODEL_H
#define KILN_SERVE_SERVED_MODEL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "kiln.h"
#include "metrics.h"
#include "request.h"
#include "serve_options.h"

typedef struct {
    char *name;
    int32_t dtype;    /* KILN_DTYPE_*, 0 if the model leaves it open */
    int32_t rank;     /* -1 if unknown */
    int64_t dims[SV_MAX_RANK]; /* -1 for a dynamic dim */
} sv_io;

typedef struct sv_model {
    char *name, *version;
    int64_t version_number;
    sv_model_settings settings;
    kiln_runtime *runtime;
    kiln_model *model;
    int32_t input_count, output_count;
    sv_io *inputs, *outputs;
    int batchable;            /* every input has rank >= 1 and a dynamic first dim */
    sv_model_metrics metrics;

    pthread_mutex_t lock;     /* guards the queue and the fields below */
    pthread_cond_t work;      /* a request was queued, or stopping */
    sv_request *head, *tail;
    int64_t queued, running;
    int stopping;             /* workers finish the queue, then exit */
    int32_t worker_count;
    pthread_t *workers;
    atomic_int users;         /* HTTP handlers holding the model */
} sv_model;

/* Loads REPO/<name>/<version>/model.onnx and starts its workers. Returns
 * NULL with the reason in err. */
sv_model *sv_model_load(const char *path, const char *name, const char *version,
                        const sv_model_settings *settings, char *err, size_t err_cap);
/* Queues a request. Returns 0, or the HTTP status of the refusal (503 when
 * the queue is full or the model is stopping) with r's error set. */
int sv_model_submit(sv_model *m, sv_request *r);
/* Waits until r is done, or until its deadline while it is still queued
 * (it is then taken off the queue and fails with 503). */
void sv_model_wait(sv_model *m, sv_request *r);
/* Stops the workers after the queue empties, frees everything. Callers
 * make sure no handler still holds the model (users == 0). */
void sv_model_destroy(sv_model *m);
int64_t sv_model_backlog(sv_model *m); /* queued + running */

#endif
