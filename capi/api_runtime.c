/* Options and runtimes. */
#include <stdlib.h>

#include "api_internal.h"

int32_t kiln_options_create(kiln_options **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = calloc(1, sizeof **out);
    if (!*out)
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
    (*out)->threads = 1;
    return KILN_OK;
}

void kiln_options_destroy(kiln_options *options) { free(options); }

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
        if (value != 0 && value != 1)
            return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "allow_unsupported must be 0 or 1");
        o->allow_unsupported = value;
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

int32_t kiln_runtime_create(const kiln_options *options, kiln_runtime **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    int32_t threads = options ? options->threads : 1;
    kiln_runtime *rt = calloc(1, sizeof *rt);
    if (!rt)
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
    rt->threads = threads;
    if (threads > 1 && !(rt->pool = kn_threadpool_create(threads))) {
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
    kn_threadpool_destroy(rt->pool);
    free(rt);
}
