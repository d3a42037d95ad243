/* Kept values (KILN_OPT_KEEP_VALUES): the float32 copies of the tensors a
 * run computed, by name (core/engine/kept_values.h keeps them). */
#include <string.h>

#include "api_internal.h"
#include "core/engine/kept_values.h"

/* The session's kept values after a successful run, or a failure. */
static int32_t kept_or_fail(const kiln_session *s, const kn_kept_values **kv, const char *func)
{
    KILN_CHECK_ARG(s, "session is NULL");
    if (!s->kept)
        return kiln_fail(KILN_ERR_STATE,
                         "%s: the session does not keep values: create it "
                         "with KILN_OPT_KEEP_VALUES = 1",
                         func);
    if (!kn_kept_values_ready(s->kept))
        return kiln_fail(KILN_ERR_STATE,
                         "%s: no values kept: the session has no successful "
                         "run since it was created, its last run failed or its memory was "
                         "released",
                         func);
    *kv = s->kept;
    return KILN_OK;
}

/* Why the last run kept no value called name (for NOT_FOUND). */
static int32_t not_kept(const kiln_session *s, const char *name)
{
    const kn_graph *g = s->model->core->graph;
    for (int32_t v = 0; v < g->n_values; v++) {
        const kn_value *val = &g->values[v];
        if (!val->name || strcmp(val->name, name) != 0)
            continue;
        if (val->is_graph_input)
            return kiln_fail(KILN_ERR_NOT_FOUND,
                             "value '%s' is a graph input: only values "
                             "the graph's nodes compute are kept",
                             name);
        if (val->is_initializer)
            return kiln_fail(KILN_ERR_NOT_FOUND,
                             "value '%s' is an initializer (a constant): "
                             "only values the graph's nodes compute are kept",
                             name);
        if (val->kind != KN_KIND_TENSOR ||
            (val->dtype != KN_UNDEFINED && !kn_kept_values_dtype_ok(val->dtype)))
            return kiln_fail(KILN_ERR_NOT_FOUND,
                             "value '%s' is %s %s: only numeric tensors "
                             "are kept",
                             name, val->kind == KN_KIND_OPTIONAL ? "an" : "a",
                             kn_dtype_name(val->dtype));
        if (val->producer < 0)
            return kiln_fail(KILN_ERR_NOT_FOUND,
                             "no node of the graph as loaded computes value "
                             "'%s': graph optimization fused it away; load with "
                             "KILN_OPT_OPTIMIZE 0 to keep the file's tensors",
                             name);
        return kiln_fail(KILN_ERR_NOT_FOUND,
                         "value '%s' was not computed by the last run: "
                         "folded into a constant when the session planned, or not needed for "
                         "the outputs",
                         name);
    }
    return kiln_fail(KILN_ERR_NOT_FOUND,
                     "no value '%s' in the model's graph (as loaded: "
                     "with optimization on, fused nodes' inner tensors are gone; load with "
                     "KILN_OPT_OPTIMIZE 0 to keep the file's names)",
                     name);
}

/* The kept copy of name, or a failure. */
static int32_t find(const kiln_session *s, const char *name, kn_tensor *t, const float **data,
                    const char *func)
{
    const kn_kept_values *kv = NULL;
    int32_t rc = kept_or_fail(s, &kv, func);
    if (rc != KILN_OK)
        return rc;
    KILN_CHECK_ARG(name, "name is NULL");
    const kn_graph *g = s->model->core->graph;
    int32_t n = kn_kept_values_count(kv);
    for (int32_t i = 0; i < n; i++) {
        int32_t v = kn_kept_values_value(kv, i);
        if (g->values[v].name && strcmp(g->values[v].name, name) == 0 &&
            kn_kept_values_get(kv, v, t, data))
            return KILN_OK;
    }
    return not_kept(s, name);
}

int32_t kiln_session_value_count(const kiln_session *s, int32_t *count)
{
    KILN_CHECK_ARG(count, "count is NULL");
    const kn_kept_values *kv = NULL;
    int32_t rc = kept_or_fail(s, &kv, __func__);
    if (rc == KILN_OK)
        *count = kn_kept_values_count(kv);
    return rc;
}

int32_t kiln_session_value_name(const kiln_session *s, int32_t index, char *buf, int32_t cap,
                                int32_t *needed)
{
    const kn_kept_values *kv = NULL;
    int32_t rc = kept_or_fail(s, &kv, __func__);
    if (rc != KILN_OK)
        return rc;
    int32_t n = kn_kept_values_count(kv);
    if (index < 0 || index >= n)
        return kiln_fail(KILN_ERR_INVALID_ARGUMENT,
                         "value index %d out of range: the last run kept %d value%s", (int)index,
                         (int)n, n == 1 ? "" : "s");
    const char *name = s->model->core->graph->values[kn_kept_values_value(kv, index)].name;
    return kiln_copy_string(name ? name : "", buf, cap, needed);
}

int32_t kiln_session_value_info(const kiln_session *s, const char *name, int32_t *dtype,
                                int64_t *dims, int32_t cap, int32_t *rank)
{
    kn_tensor t;
    const float *data = NULL;
    int32_t rc = find(s, name, &t, &data, __func__);
    if (rc != KILN_OK)
        return rc;
    if (dtype)
        *dtype = t.dtype;
    return kiln_copy_shape(t.dims, t.rank, dims, cap, rank);
}

int32_t kiln_session_value_copy(const kiln_session *s, const char *name, void *buf, size_t cap,
                                size_t *needed)
{
    kn_tensor t;
    const float *data = NULL;
    int32_t rc = find(s, name, &t, &data, __func__);
    if (rc != KILN_OK)
        return rc;
    size_t nbytes = (size_t)kn_tensor_numel(&t) * sizeof(float);
    if (needed)
        *needed = nbytes;
    if (cap < nbytes || (!buf && nbytes))
        return kiln_fail(KILN_ERR_BUFFER_TOO_SMALL, "value '%s' needs %zu bytes, buffer has %zu",
                         name, nbytes, cap);
    if (nbytes)
        memcpy(buf, data, nbytes);
    return KILN_OK;
}
