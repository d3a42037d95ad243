/* What the C API implementation files share: handle layouts and the
 * thread-local error plumbing. Not installed; bindings never see it. */
#ifndef KILN_API_INTERNAL_H
#define KILN_API_INTERNAL_H

#include "core/engine/model.h"
#include "core/base/bump_alloc.h"
#include "core/engine/session.h"
#include "core/base/status.h"
#include "core/base/thread_pool.h"
#include "kiln.h"

struct kiln_options {
    int32_t threads;
    int32_t allow_unsupported;
    int32_t max_model_mb;
    int32_t max_arena_mb;
    int32_t optimize;        /* KILN_OPT_OPTIMIZE level */
    int32_t use_dnnl;
    int32_t tune;
    int32_t profile;
    int32_t plan_cache;      /* KILN_OPT_PLAN_CACHE; 0 = the engine's default */
    int32_t keep_values;     /* KILN_OPT_KEEP_VALUES */
    int32_t precision;       /* KILN_OPT_PRECISION: KILN_PRECISION_* */
    int32_t device_graph;    /* KILN_OPT_DEVICE_GRAPH: 0 or 1 */
    char *tuning_cache;      /* owned copy, or NULL */
    char *device;            /* KILN_SOPT_DEVICE: owned copy, or NULL (cpu) */
    /* Calibrators (kiln_calibrator_*): method, activations int8 symmetric,
     * the percentile, and the nodes or op types kept in float (owned,
     * comma-separated, or NULL). */
    int32_t calib_method;
    int32_t calib_symmetric;
    int32_t calib_weight_bits;
    double calib_percentile;
    char *calib_keep_float;
};

struct kiln_runtime {
    kn_threadpool *thread_pool;
    int32_t threads;
};

struct kiln_model {
    kiln_runtime *runtime;
    kn_model *core;
};

struct kiln_session {
    kiln_model *model;
    kn_session *core;
    struct kn_kept_values *kept; /* KILN_OPT_KEEP_VALUES; NULL when off */
};

struct kiln_tensor {
    kn_bump *bump;
    kn_tensor t;
    const char *name;
};

/* A new handle holding a copy of src (tensor or sequence/optional blob)
 * named name (may be NULL). Records the failure on error. */
int32_t kiln_tensor_from_core(const kn_tensor *src, const char *name, kiln_tensor **out);

/* Records a failure for kiln_last_error() and returns its code. */
int32_t kiln_fail(int32_t code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Records a core error record (code + message) and returns its code. */
int32_t kiln_fail_err(const kn_err *err);

/* Two-call string copy: *needed = strlen + 1; BUFFER_TOO_SMALL if cap is short. */
int32_t kiln_copy_string(const char *s, char *buf, int32_t cap, int32_t *needed);
/* Copies a shape out; BUFFER_TOO_SMALL if cap < rank (rank still written). */
int32_t kiln_copy_shape(const int64_t *src, int32_t rank, int64_t *dims, int32_t cap,
                        int32_t *rank_out);

#define KILN_CHECK_ARG(cond, what)                                                    \
    do {                                                                             \
        if (!(cond))                                                                 \
            return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "%s: %s", __func__, what);   \
    } while (0)

#endif
