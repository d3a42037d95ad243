/* Sessions: binding inputs, running, reading outputs. */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "core/engine/kept_values.h"
#include "core/ir/value_blob.h"

/* The declared value of input `index`, or NULL when out of range. */
static const kn_value *input_value(const kiln_session *s, int32_t index)
{
    const kn_graph *g = s->model->core->graph;
    return index >= 0 && index < g->n_inputs ? &g->values[g->inputs[index]] : NULL;
}

/* KILN_PRECISION_* to the kernels' KN_PRECISION_* (same values today; the
 * switch keeps the public numbering free to differ). */
static int32_t precision_for_kernels(int32_t p)
{
    switch (p) {
    case KILN_PRECISION_BF16:
        return KN_PRECISION_BF16;
    case KILN_PRECISION_FP16:
        return KN_PRECISION_FP16;
    case KILN_PRECISION_TF32:
        return KN_PRECISION_TF32;
    default:
        return KN_PRECISION_FP32;
    }
}

int32_t kiln_session_create(kiln_model *model, const kiln_options *o, kiln_session **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    KILN_CHECK_ARG(model, "model is NULL");
    kiln_session *s = calloc(1, sizeof *s);
    if (!s)
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
    kn_err err = {0};
    kn_session_config cfg = {0};
    if (o) {
        cfg.max_arena = (int64_t)o->max_arena_mb << 20;
        cfg.tune = o->tune;
        cfg.tuning_cache = o->tuning_cache;
        cfg.device = o->device;
        cfg.device_graph = o->device_graph;
        cfg.profile = o->profile;
        cfg.plan_cache = o->plan_cache;
        cfg.precision = precision_for_kernels(o->precision);
    }
    if (o && o->keep_values) {
        if (kn_kept_values_create(model->core, &s->kept, &err) != KN_OK) {
            free(s);
            return kiln_fail_err(&err);
        }
        cfg.tap = kn_kept_values_tap(s->kept);
    }
    if (kn_session_create(model->core, model->runtime->thread_pool, &cfg, &s->core, &err) != KN_OK) {
        kn_kept_values_destroy(s->kept);
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
    kn_session_destroy(s->core); /* first: it waits for a run that may still tap */
    kn_kept_values_destroy(s->kept);
    free(s);
}

int32_t kiln_session_set_input_at(kiln_session *s, int32_t index, int32_t dtype,
                                  const int64_t *dims, int32_t rank, const void *data,
                                  size_t nbytes, int32_t flags)
{
    KILN_CHECK_ARG(s, "session is NULL");
    KILN_CHECK_ARG((flags & ~KILN_INPUT_COPY) == 0, "unknown flag bits");
    const kn_value *v = input_value(s, index);
    if (v && v->kind != KN_KIND_TENSOR)
        return kiln_fail(KILN_ERR_DTYPE, "input '%s' is %s %s: bind it with "
                         "kiln_session_set_input_value", v->name,
                         v->kind == KN_KIND_SEQUENCE ? "a" : "an", kn_dtype_name(v->dtype));
    if (kn_dtype_kind(dtype) != KN_KIND_TENSOR)
        return kiln_fail(KILN_ERR_DTYPE, "dtype %d is not an element type", (int)dtype);
    if (dtype == KN_STRING)
        return kiln_fail(KILN_ERR_DTYPE, "string tensors are bound with "
                         "kiln_session_set_input_value");
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
    /* s is not touched after the run: a concurrent kiln_session_destroy,
     * which waits for the run, may free it the moment the run ends (the
     * kept values are begun and ended by the session, under its lock) */
    int rc = kn_session_run(s->core, &err);
    return rc == KN_OK ? KILN_OK : kiln_fail_err(&err);
}

int32_t kiln_session_cancel(kiln_session *s)
{
    KILN_CHECK_ARG(s, "session is NULL");
    kn_session_cancel(s->core);
    return KILN_OK;
}

int32_t kiln_session_set_input_value(kiln_session *s, int32_t index, const kiln_tensor *value)
{
    KILN_CHECK_ARG(s && value, "NULL argument");
    const kn_value *v = input_value(s, index);
    if (!v)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "input index %d out of range: the model has %d input%s", (int)index,
                         (int)s->model->core->graph->n_inputs,
                         s->model->core->graph->n_inputs == 1 ? "" : "s");
    const kn_tensor *t = &value->t;
    kn_tensor wrapped = {0};
    void *buf = NULL;
    kn_err err = {0};
    if (v->kind == KN_KIND_OPTIONAL && t->dtype != KN_OPTIONAL) {
        /* A tensor or sequence for an optional input: an optional holding it. */
        int64_t bytes = kn_blob_add_bytes(kn_blob_base_bytes(1), kn_blob_payload_bytes(t));
        if (bytes < 0 || !(buf = malloc((size_t)bytes)))
            return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory binding input '%s'", v->name);
        kn_blob_desc(&wrapped, KN_OPTIONAL, bytes);
        wrapped.data = buf;
        kn_blob_writer w;
        int32_t dt = t->dtype;
        if (t->dtype == KN_SEQUENCE) {
            kn_blob_header h;
            kn_blob_read_header(t, &h);
            dt = h.elem_dtype;
        }
        if (kn_blob_begin(&w, &wrapped, 1, kn_dtype_kind(t->dtype), dt, &err) != KN_OK ||
            kn_blob_push(&w, t, &err) != KN_OK || kn_blob_end(&w, &err) != KN_OK) {
            free(buf);
            return kiln_fail_err(&err);
        }
        t = &wrapped;
    }
    int rc = kn_session_bind(s->core, index, t->dtype, t->dims, t->rank, t->data,
                             (size_t)kn_tensor_nbytes(t), 1, &err);
    free(buf);
    return rc == KN_OK ? KILN_OK : kiln_fail_err(&err);
}

static int32_t output_or_fail(const kiln_session *s, int32_t index, const kn_tensor **t)
{
    KILN_CHECK_ARG(s, "session is NULL");
    int32_t n = s->model->core->graph->n_outputs;
    if (index < 0 || index >= n)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "output index %d out of range: the model has %d output%s", (int)index,
                         (int)n, n == 1 ? "" : "s");
    *t = kn_session_output(s->core, index);
    if (!*t)
        return kiln_fail(KILN_ERR_STATE, "no outputs: the session has not run successfully");
    return KILN_OK;
}

/* output_or_fail for the tensor-only output functions. */
static int32_t tensor_output_or_fail(const kiln_session *s, int32_t index, const kn_tensor **t,
                                     const char *func)
{
    int32_t rc = output_or_fail(s, index, t);
    if (rc == KILN_OK && kn_is_blob_dtype((*t)->dtype)) {
        const kn_graph *g = s->model->core->graph;
        return kiln_fail(KILN_ERR_DTYPE, "%s: output '%s' is a %s, not a tensor: read it with "
                         "kiln_session_output_value", func, g->values[g->outputs[index]].name,
                         kn_dtype_name((*t)->dtype));
    }
    if (rc == KILN_OK && (*t)->dtype == KN_STRING && strcmp(func, "kiln_session_output_info")) {
        const kn_graph *g = s->model->core->graph;
        return kiln_fail(KILN_ERR_DTYPE, "%s: output '%s' is a string tensor: read it with "
                         "kiln_session_output_value and kiln_tensor_string", func,
                         g->values[g->outputs[index]].name);
    }
    return rc;
}

int32_t kiln_session_output_value(const kiln_session *s, int32_t index, kiln_tensor **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    const kn_tensor *t = NULL;
    int32_t rc = output_or_fail(s, index, &t);
    if (rc != KILN_OK)
        return rc;
    if (kn_is_blob_dtype(t->dtype)) {
        kn_err err = {0};
        if (kn_blob_check(t, "output", &err) != KN_OK)
            return kiln_fail(KILN_ERR_INTERNAL, "%s", err.msg);
    }
    const kn_graph *g = s->model->core->graph;
    return kiln_tensor_from_core(t, g->values[g->outputs[index]].name, out);
}

int32_t kiln_session_output_info(const kiln_session *s, int32_t index, int32_t *dtype,
                                 int64_t *dims, int32_t cap, int32_t *rank)
{
    const kn_tensor *t = NULL;
    int32_t rc = tensor_output_or_fail(s, index, &t, __func__);
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
    int32_t rc = tensor_output_or_fail(s, index, &t, __func__);
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
    int32_t rc = tensor_output_or_fail(s, index, &t, __func__);
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

int32_t kiln_session_cache_info(const kiln_session *s, int32_t *plans_kept, int64_t *plans_built,
                                int64_t *arena_bytes)
{
    KILN_CHECK_ARG(s, "session is NULL");
    if (plans_kept)
        *plans_kept = kn_session_plans_cached(s->core);
    if (plans_built)
        *plans_built = kn_session_plans_built(s->core);
    if (arena_bytes)
        *arena_bytes = kn_session_arena_bytes(s->core);
    return KILN_OK;
}

int32_t kiln_session_release_memory(kiln_session *s)
{
    KILN_CHECK_ARG(s, "session is NULL");
    kn_session_release_memory(s->core);
    kn_kept_values_release(s->kept);
    return KILN_OK;
}

int32_t kiln_session_set_input_device(kiln_session *s, const char *name, int32_t dtype,
                                      const int64_t *dims, int32_t rank, const void *device_data,
                                      size_t nbytes)
{
    KILN_CHECK_ARG(s && name, "NULL argument");
    int32_t index = 0;
    int32_t rc = kiln_model_input_index(s->model, name, &index);
    if (rc != KILN_OK)
        return rc;
    kn_err err = {0};
    if (kn_session_bind_device(s->core, index, dtype, dims, rank, device_data, nbytes, &err) !=
        KN_OK)
        return kiln_fail_err(&err);
    return KILN_OK;
}

int32_t kiln_session_bind_output_device(kiln_session *s, int32_t index, void *device_data,
                                        size_t cap)
{
    KILN_CHECK_ARG(s, "session is NULL");
    kn_err err = {0};
    if (kn_session_bind_output_device(s->core, index, device_data, cap, &err) != KN_OK)
        return kiln_fail_err(&err);
    return KILN_OK;
}

int32_t kiln_session_device_stream(const kiln_session *s, void **stream)
{
    KILN_CHECK_ARG(s && stream, "NULL argument");
    *stream = kn_session_device_stream(s->core);
    if (!*stream)
        return kiln_fail(KILN_ERR_UNSUPPORTED, "the session runs on cpu: it has no device "
                         "stream (set KILN_SOPT_DEVICE)");
    return KILN_OK;
}
