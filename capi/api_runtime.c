/* Options and runtimes. */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"

int32_t kiln_options_create(kiln_options **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = calloc(1, sizeof **out);
    if (!*out)
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
    (*out)->threads = 1;
    (*out)->optimize = 2;
    (*out)->use_dnnl = 1;
    (*out)->calib_method = KILN_CALIB_MSE;
    (*out)->calib_percentile = 99.99;
    (*out)->calib_weight_bits = 8;
    return KILN_OK;
}

void kiln_options_destroy(kiln_options *options)
{
    if (!options)
        return;
    free(options->tuning_cache);
    free(options->device);
    free(options->calib_keep_float);
    free(options);
}

static int32_t set_flag(int32_t *field, int32_t value, const char *what)
{
    if (value != 0 && value != 1)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "%s must be 0 or 1, got %d", what, (int)value);
    *field = value;
    return KILN_OK;
}

int32_t kiln_options_set_int(kiln_options *o, int32_t key, int32_t value)
{
    KILN_CHECK_ARG(o, "options is NULL");
    switch (key) {
    case KILN_OPT_THREADS:
        if (value < 1 || value > 1024)
            return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "threads must be 1..1024, got %d", (int)value);
        o->threads = value;
        return KILN_OK;
    case KILN_OPT_ALLOW_UNSUPPORTED:
        return set_flag(&o->allow_unsupported, value, "allow_unsupported");
    case KILN_OPT_USE_DNNL:
        return set_flag(&o->use_dnnl, value, "use_dnnl");
    case KILN_OPT_TUNE:
        return set_flag(&o->tune, value, "tune");
    case KILN_OPT_PROFILE:
        return set_flag(&o->profile, value, "profile");
    case KILN_OPT_PLAN_CACHE:
        if (value < 1 || value > 1024)
            return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "plan_cache must be 1..1024, got %d",
                             (int)value);
        o->plan_cache = value;
        return KILN_OK;
    case KILN_OPT_OPTIMIZE:
        if (value < 0 || value > 2)
            return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "optimize must be 0, 1 or 2, got %d",
                             (int)value);
        o->optimize = value;
        return KILN_OK;
    case KILN_OPT_MAX_MODEL_MB:
    case KILN_OPT_MAX_ARENA_MB:
        if (value < 0)
            return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "a size limit cannot be negative");
        if (key == KILN_OPT_MAX_MODEL_MB)
            o->max_model_mb = value;
        else
            o->max_arena_mb = value;
        return KILN_OK;
    case KILN_OPT_CALIB_METHOD:
        if (value < KILN_CALIB_MINMAX || value > KILN_CALIB_MSE)
            return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                             "calib_method must be 1 (minmax), 2 (percentile), 3 (entropy) or "
                             "4 (mse), got %d", (int)value);
        o->calib_method = value;
        return KILN_OK;
    case KILN_OPT_CALIB_SYMMETRIC:
        return set_flag(&o->calib_symmetric, value, "calib_symmetric");
    case KILN_OPT_CALIB_WEIGHT_BITS:
        if (value != 7 && value != 8)
            return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                             "calib_weight_bits must be 8 or 7, got %d", (int)value);
        o->calib_weight_bits = value;
        return KILN_OK;
    case KILN_OPT_KEEP_VALUES:
        return set_flag(&o->keep_values, value, "keep_values");
    case KILN_OPT_PRECISION:
        if (value < KILN_PRECISION_FP32 || value > KILN_PRECISION_TF32)
            return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                             "precision must be 0 (fp32), 1 (bf16), 2 (fp16) or 3 (tf32), got %d",
                             (int)value);
        o->precision = value;
        return KILN_OK;
    case KILN_OPT_DEVICE_GRAPH:
        return set_flag(&o->device_graph, value, "device_graph");
    default:
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "unknown option key %d", (int)key);
    }
}

/* Replaces an owned string option with a copy of value (NULL clears it). */
static int32_t set_owned(char **field, const char *value)
{
    char *copy = NULL;
    if (value && !(copy = strdup(value)))
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
    free(*field);
    *field = copy;
    return KILN_OK;
}

static int32_t set_percentile(kiln_options *o, const char *value)
{
    char *end = NULL;
    double p = value ? strtod(value, &end) : 0;
    if (!value || end == value || *end || !(p > 0 && p <= 100))
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "calib_percentile must be a number in (0, 100], got '%s'",
                         value ? value : "(null)");
    o->calib_percentile = p;
    return KILN_OK;
}

int32_t kiln_options_set_string(kiln_options *o, int32_t key, const char *value)
{
    KILN_CHECK_ARG(o, "options is NULL");
    switch (key) {
    case KILN_SOPT_TUNING_CACHE:
        return set_owned(&o->tuning_cache, value);
    case KILN_SOPT_CALIB_PERCENTILE:
        return set_percentile(o, value);
    case KILN_SOPT_CALIB_KEEP_FLOAT:
        return set_owned(&o->calib_keep_float, value);
    case KILN_SOPT_DEVICE:
        return set_owned(&o->device, value);
    default:
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "unknown string option key %d", (int)key);
    }
}

int32_t kiln_runtime_create(const kiln_options *options, kiln_runtime **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    int32_t threads = options ? options->threads : 1;
    kiln_runtime *rt = calloc(1, sizeof *rt);
    if (!rt)
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
    rt->threads = threads;
    if (threads > 1 && !(rt->thread_pool = kn_threadpool_create(threads))) {
        free(rt);
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "cannot start %d threads", (int)threads);
    }
    *out = rt;
    return KILN_OK;
}

void kiln_runtime_destroy(kiln_runtime *rt)
{
    if (!rt)
        return;
    kn_threadpool_destroy(rt->thread_pool);
    free(rt);
}
