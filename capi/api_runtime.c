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
    return KILN_OK;
}

void kiln_options_destroy(kiln_options *options)
{
    if (!options)
        return;
    free(options->tuning_cache);
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
    default:
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "unknown option key %d", (int)key);
    }
}

int32_t kiln_options_set_string(kiln_options *o, int32_t key, const char *value)
{
    KILN_CHECK_ARG(o, "options is NULL");
    if (key != KILN_SOPT_TUNING_CACHE)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "unknown string option key %d", (int)key);
    char *copy = NULL;
    if (value && !(copy = strdup(value)))
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
    free(o->tuning_cache);
    o->tuning_cache = copy;
    return KILN_OK;
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
