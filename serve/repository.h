/* The model repository: REPO/<model>/<version>/model.onnx, every version of
 * every model loaded at start, looked up by name and version for each
 * request. Load and unload (model control) swap entries under a write lock;
 * a model is freed only once no handler holds it. */
#ifndef KILN_SERVE_REPOSITORY_H
#define KILN_SERVE_REPOSITORY_H

#include <pthread.h>

#include "byte_buffer.h"
#include "served_model.h"
#include "serve_options.h"

typedef struct {
    char *name, *version;
    char *reason; /* why it is not loaded (load failure or unloaded) */
} sv_unavailable;

typedef struct {
    const sv_options *options;
    pthread_rwlock_t lock;
    sv_model **models;
    int count, cap;
    sv_unavailable *missing; /* found on disk, not serving */
    int missing_count, missing_cap;
} sv_repository;

/* Scans the folder and loads everything. Fails (-1, reason in err) only when
 * the folder cannot be read; models that fail to load are listed as
 * unavailable with their reason, and printed on stderr. */
int sv_repository_open(sv_repository *repo, const sv_options *options, char *err, size_t cap);
void sv_repository_close(sv_repository *repo);

/* The model (version NULL or "" = the highest version) with its user count
 * raised, or NULL: *status 404 (no such model or version). */
sv_model *sv_repository_acquire(sv_repository *repo, const char *name, const char *version);
void sv_repository_release(sv_model *m);
/* 1 if the model (and version) exists but is not loaded. */
int sv_repository_is_unavailable(sv_repository *repo, const char *name, const char *version);

/* Every version of `name` on disk, (re)loaded. 0, or an HTTP status with
 * the reason in err. */
int sv_repository_load(sv_repository *repo, const char *name, char *err, size_t cap);
/* Stops serving `name` once its queued requests are done. */
int sv_repository_unload(sv_repository *repo, const char *name, char *err, size_t cap);

/* JSON: [{"name","version","state","reason"}...] (the repository index). */
void sv_repository_index(sv_repository *repo, sv_buffer *out);
/* JSON array of the loaded versions of `name`, e.g. ["1","2"]. */
void sv_repository_versions(sv_repository *repo, const char *name, sv_buffer *out);
/* Appends every loaded model's metrics. */
void sv_repository_metrics(sv_repository *repo, sv_buffer *out);
/* Requests queued or running, over all models. */
int64_t sv_repository_backlog(sv_repository *repo);

#endif
