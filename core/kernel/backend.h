/* The backend seam. A backend is one descriptor: what it is called, whether
 * it can run on this machine, the kernels it offers, the optimizer passes
 * it contributes, where its tensors live and whether its kernels take part
 * in tuning. The engine (core/engine/registry.c) walks the list of
 * descriptors in core/backends.c, in order: for each node the first usable
 * backend with a kernel for it is asked first, and a kernel may decline the
 * node (KN_ERR_DECLINE), which hands it to the next one. Nothing here is
 * registered at start-up, so static linking cannot drop a backend.
 *
 * A new backend is one folder with one descriptor, plus one line in
 * core/backends.c; docs/contributing.md walks through it. */
#ifndef KN_BACKEND_H
#define KN_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "core/kernel/op.h"

struct kn_opt; /* core/opt/rewrite.h: the graph a pass edits */

/* Where in the optimizer's order a contributed pass runs
 * (core/opt/optimize.c has the whole order). */
enum {
    /* after the formula fusions (Gelu, LayerNorm, attention), before the
     * bias and activation fusions of matrix products and convolutions */
    KN_PASS_SLOT_BEFORE_EPILOGUES = 0,
    /* after every fusion, before single elementwise ops are chained: the
     * place for layout passes, which want the fused graph */
    KN_PASS_SLOT_LAYOUT = 1,
};

typedef struct kn_backend_pass {
    const char *name; /* in error messages: "optimizer pass NAME" */
    int32_t slot;     /* KN_PASS_SLOT_* */
    int32_t level;    /* lowest optimization level it runs at (KN_OPT_*) */
    int (*run)(struct kn_opt *o);
} kn_backend_pass;

/* Where a backend's tensors live. */
enum { KN_MEMORY_HOST = 0, KN_MEMORY_DEVICE = 1 };

/* How kn_backend_memory.copy moves bytes. */
enum { KN_COPY_TO_HOST = 0, KN_COPY_TO_DEVICE = 1, KN_COPY_ON_DEVICE = 2 };

/* Host memory needs no hooks: the engine plans it into one arena of
 * ordinary aligned memory. A device backend supplies them. The engine opens
 * one device context per (backend, device index) a model runs on, plans
 * each session's device tensors into one device arena allocated through it,
 * gives each session one stream (an ordered queue of the device's work) per
 * device, uploads constants once per model (shared by its sessions), and
 * inserts the copies at partition boundaries itself (they show in the
 * profile). Every hook reports failure through err (KN_ERR_* with a message
 * naming the device and what failed) and never aborts. */
typedef struct kn_backend_memory {
    int32_t kind; /* KN_MEMORY_* */
    /* Device `index` of this backend, or NULL with err set (no driver, no
     * such device: say which and how many there are). */
    void *(*open)(int32_t index, kn_err *err);
    void (*close)(void *dev); /* NULL-safe; everything made through dev is freed first */
    void *(*alloc)(void *dev, size_t bytes, kn_err *err); /* 256-byte aligned; NULL on failure */
    void (*free)(void *dev, void *ptr);                   /* NULL-safe */
    /* KN_COPY_*: dst and src are on the sides the direction says. Queued on
     * stream: a host buffer must stay valid until stream_sync returns. */
    int (*copy)(void *dev, void *dst, const void *src, size_t bytes, int32_t direction,
                void *stream, kn_err *err);
    void *(*stream_create)(void *dev, kn_err *err);
    void (*stream_destroy)(void *dev, void *stream);  /* NULL-safe; waits for its work */
    int (*stream_sync)(void *dev, void *stream, kn_err *err); /* waits for everything queued */
    /* The device's name and driver/library versions, for profiles, `kiln
     * info` and the tuning cache's key; may be NULL. */
    const char *(*describe)(void *dev);
    /* Captured graphs (all four, or all NULL: not supported). graph_begin
     * starts recording what is then queued on stream instead of running
     * it; graph_end stops and turns the recording into *graph, an
     * executable graph; graph_launch queues one replay of it on stream
     * (stream_sync waits for it); graph_destroy frees it (NULL-safe). A
     * replay repeats the recorded work with the very pointers it was
     * recorded with, so captured work may read host memory only through
     * buffers that stay put between replays (the session's fixed input
     * staging buffers), and it must not allocate or pick kernels by
     * values while recording. After a failed begin or end the stream is
     * back to running work as it is queued. */
    int (*graph_begin)(void *dev, void *stream, kn_err *err);
    int (*graph_end)(void *dev, void *stream, void **graph, kn_err *err);
    int (*graph_launch)(void *dev, void *graph, void *stream, kn_err *err);
    void (*graph_destroy)(void *dev, void *graph);
} kn_backend_memory;

/* kn_backend.flags */
enum {
    /* Its kernels may offer variants (kn_kctx.n_variants) and are timed
     * against them and against the next backend's kernel for the node when
     * a session asks for tuning (core/engine/tuning.h). A device backend's
     * kernels time their own candidates instead and keep their choices
     * through kn_engine_api.tuned_choice. */
    KN_BACKEND_TUNED = 1u << 0,
    /* Not offered nodes of eager plans, which are rebuilt on every run:
     * building its kernels costs more than they save there. */
    KN_BACKEND_NOT_EAGER = 1u << 1,
    /* Offered nodes only when a session asks for it by name (the device
     * option: "cuda", "cuda:1"). Its available() and memory.open are never
     * called otherwise: loading a GPU stack costs about a second that CPU
     * users must not pay. */
    KN_BACKEND_OPT_IN = 1u << 2,
};

typedef struct kn_backend {
    const char *name; /* "cpu", ...: profiles, messages, the tuning cache */
    /* 1 when it can run here (its library loaded, its device present).
     * Called when a model is loaded; must be cheap after the first call and
     * thread-safe. NULL: always available. */
    int (*available)(void);
    /* NULL-terminated list of NULL-terminated kernel tables */
    const kn_op_def *const *const *kernel_tables;
    /* its optimizer passes, ended by an entry with run == NULL; may be NULL.
     * They run only when the backend is usable for the model. */
    const kn_backend_pass *passes;
    kn_backend_memory memory;
    uint32_t flags; /* KN_BACKEND_* */
} kn_backend;

/* The portable backend (core/cpu/): last in the list, it serves every op
 * Kiln knows. Other backends' kernels may run its kernels inside theirs (a
 * fallback for shapes they decline inside a fused op). */
extern const kn_backend kn_backend_cpu;

#endif
