/* Sessions: binding inputs, running, reading outputs. */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"

int32_t kiln_session_create(kiln_model *model, const kiln_options *o, kiln_session **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    KILN_CHECK_ARG(model, "model is NULL");
    kiln_session *s = calloc(1, sizeof *s);
    if (!s)
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
    kn_err err = {0};
    int64_t max_arena = o ? (int64_t)o->max_arena_mb << 20 : 0;
    if (kn_session_create(model->core, model->runtime->pool, max_arena, &s->core, &err) != KN_OK) {
        free(s);
        return kiln_fail_err(&err);
    }
    s->model = model;
    *out = s;
    return KILN_OK;
}

void kiln_session_destroy(kiln_session *s)
{
    if (!s)
        return;
    kn_session_destroy(s->core);
    free(s);
}

int32_t kiln_session_set_input_at(kiln_session *s, int32_t index, int32_t dtype,
                                  const int64_t *dims, int32_t rank, const void *data,
                                  size_t nbytes, int32_t flags)
{
    KILN_CHECK_ARG(s, "session is NULL");
    KILN_CHECK_ARG((flags & ~KILN_INPUT_COPY) == 0, "unknown flag bits");
    kn_err err = {0};
    if (kn_session_bind(s->core, index, dtype, dims, rank, data, nbytes,
                        (flags & KILN_INPUT_COPY) != 0, &err) != KN_OK)
        return kiln_fail_err(&err);
    return KILN_OK;
}

int32_t kiln_session_set_input(kiln_session *s, const char *name, int32_t dtype,
                               const int64_t *dims, int32_t rank, const void *data,
                               size_t nbytes, int32_t flags)
{
    KILN_CHECK_ARG(s && name, "NULL argument");
    int32_t index = 0;
    int32_t rc = kiln_model_input_index(s->model, name, &index);
    if (rc != KILN_OK)
        return rc;
    return kiln_session_set_input_at(s, index, dtype, dims, rank, data, nbytes, flags);
}

int32_t kiln_session_run(kiln_session *s)
{
    KILN_CHECK_ARG(s, "session is NULL");
    kn_err err = {0};
    if (kn_session_run(s->core, &err) != KN_OK)
        return kiln_fail_err(&err);
    return KILN_OK;
}

int32_t kiln_session_cancel(kiln_session *s)
{
    KILN_CHECK_ARG(s, "session is NULL");
    kn_session_cancel(s->core);
    return KILN_OK;
}

static int32_t output_or_fail(const kiln_session *s, int32_t index, const kn_tensor **t)
{
    KILN_CHECK_ARG(s, "session is NULL");
    int32_t n = s->model->core->graph->n_outputs;
    if (index < 0 || index >= n)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT, "output index %d out of range (%d outputs)",
                         (int)index, (int)n);
    *t = kn_session_output(s->core, index);
    if (!*t)
        return kiln_fail(KILN_ERR_STATE, "no outputs: the session has not run successfully");
    return KILN_OK;
}

int32_t kiln_session_output_info(const kiln_session *s, int32_t index, int32_t *dtype,
                                 int64_t *dims, int32_t cap, int32_t *rank)
{
    const kn_tensor *t = NULL;
    int32_t rc = output_or_fail(s, index, &t);
    if (rc != KILN_OK)
        return rc;
    if (dtype)
        *dtype = t->dtype;
    return kiln_copy_shape(t->dims, t->rank, dims, cap, rank);
}

int32_t kiln_session_output_copy(const kiln_session *s, int32_t index, void *buf, size_t cap,
                                 size_t *needed)
{
    const kn_tensor *t = NULL;
    int32_t rc = output_or_fail(s, index, &t);
    if (rc != KILN_OK)
        return rc;
    size_t nbytes = (size_t)kn_tensor_nbytes(t);
    if (needed)
        *needed = nbytes;
    if (cap < nbytes || (!buf && nbytes))
        return kiln_fail(KILN_ERR_BUFFER_TOO_SMALL, "output %d needs %zu bytes, buffer has %zu",
                         (int)index, nbytes, cap);
    if (nbytes)
        memcpy(buf, t->data, nbytes);
    return KILN_OK;
}

int32_t kiln_session_output_view(const kiln_session *s, int32_t index, const void **data,
                                 size_t *nbytes)
{
    KILN_CHECK_ARG(data, "data is NULL");
    const kn_tensor *t = NULL;
    int32_t rc = output_or_fail(s, index, &t);
    if (rc != KILN_OK)
        return rc;
    *data = t->data;
    if (nbytes)
        *nbytes = (size_t)kn_tensor_nbytes(t);
    return KILN_OK;
}

int32_t kiln_session_plan_bytes(const kiln_session *s, int64_t *arena_bytes,
                                int64_t *intermediate_bytes)
{
    KILN_CHECK_ARG(s, "session is NULL");
    const kn_plan *p = kn_session_plan(s->core);
    if (!p)
        return kiln_fail(KILN_ERR_STATE, "no memory plan yet: the model has dynamic input "
                                         "shapes and has not run");
    if (arena_bytes)
        *arena_bytes = p->arena_bytes;
    if (intermediate_bytes)
        *intermediate_bytes = p->intermediate_bytes;
    return KILN_OK;
}
