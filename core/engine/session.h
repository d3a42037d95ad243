/* A session: per-run state over a shared model. It binds the caller's
 * inputs, keeps the plans of the input signatures (dtypes and shapes) it
 * has seen most recently, sharing one arena, so that going back to a shape
 * costs no planning, and exposes outputs until the next run. One run at a time per session;
 * cancel may come from any thread. */
#ifndef KN_SESSION_H
#define KN_SESSION_H

#include <stdint.h>

#include "core/engine/model.h"
#include "core/engine/plan.h"

typedef struct kn_session kn_session;

typedef struct kn_session_config {
    int64_t max_arena;          /* bytes; 0 = no limit */
    int tune;                   /* time candidate kernels when planning */
    const char *tuning_cache;   /* copied; NULL = none */
    int profile;                /* time each step of every run */
    int precision;              /* KN_PRECISION_*: float arithmetic the kernels may use */
    int32_t plan_cache;         /* plans kept, by input signature; 0 = the default */
    const kn_tap *tap;          /* sees every node's outputs (calibration); NULL: none */
    /* "cpu" (or NULL), "NAME" or "NAME:INDEX": the device whose kernels
     * take the nodes they accept (core/engine/devices.h, plan_device.c) */
    const char *device;
    /* 1 = capture each plan's device work as one graph on its first run
     * and replay it on later runs with the same shapes (plan_graph.c) */
    int device_graph;
} kn_session_config;

/* How many plans a session keeps unless told otherwise. */
#define KN_SESSION_PLAN_CACHE 8

int kn_session_create(const kn_model *model, kn_threadpool *pool, const kn_session_config *cfg,
                      kn_session **out, kn_err *err);
void kn_session_destroy(kn_session *s); /* NULL-safe; waits for a run in flight */

/* Binds graph input `index`. copy = 1 copies the bytes now (into a buffer
 * the session keeps and reuses); else the pointer is borrowed. */
int kn_session_bind(kn_session *s, int32_t index, int32_t dtype, const int64_t *dims,
                    int32_t rank, const void *data, size_t nbytes, int copy, kn_err *err);
/* Binds graph input `index` to memory already on the session's device
 * (borrowed until the next run returns). The plan then reads it there: no
 * copy host→device (plan_device.c). KN_ERR_UNSUPPORTED on a host session. */
int kn_session_bind_device(kn_session *s, int32_t index, int32_t dtype, const int64_t *dims,
                           int32_t rank, const void *data, size_t nbytes, kn_err *err);
/* Each later successful run also copies graph output `index` into data, a
 * buffer of cap bytes on the session's device, and waits for that copy;
 * data NULL unbinds. KN_ERR_BUFFER_TOO_SMALL names the sizes (at the bind
 * when the model fixes the output's shape, else at the run). */
int kn_session_bind_output_device(kn_session *s, int32_t index, void *data, size_t cap,
                                  kn_err *err);
/* The session's stream on its device (the backend's handle; a CUDA
 * stream for "cuda"), NULL on the host. */
void *kn_session_device_stream(const kn_session *s);
int kn_session_run(kn_session *s, kn_err *err);
void kn_session_cancel(kn_session *s);

/* Output tensor after a successful run, NULL before. An output bound on
 * the device has no host copy after the run; the first call for it after
 * each run copies it over (and waits), and NULL means that copy failed. */
const kn_tensor *kn_session_output(const kn_session *s, int32_t index);
/* The current plan (NULL if none could be built yet). */
const kn_plan *kn_session_plan(const kn_session *s);
/* Zeroes the current plan's step times (no-op without profiling). */
void kn_session_profile_reset(kn_session *s);

/* Plans built so far (cache misses, and every run of an eager session),
 * plans cached now, and the bytes of the arena they share. */
int64_t kn_session_plans_built(const kn_session *s);
int32_t kn_session_plans_cached(const kn_session *s);
int64_t kn_session_arena_bytes(const kn_session *s);
/* Bytes of the device arena the cached plans share (0 without a device). */
int64_t kn_session_device_arena_bytes(const kn_session *s);
/* Gives back every cached plan and the arena (waits for a run in flight);
 * the next run plans again. Outputs of the last run are gone. */
void kn_session_release_memory(kn_session *s);

#endif
