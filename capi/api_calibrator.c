/* INT8 calibration through the C API: argument checks and the handle over
 * core/calib/calibrator.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "core/calib/calibrator.h"
#include "core/engine/registry.h"

struct kiln_calibrator {
    kiln_runtime *runtime;
    kn_calibrator *core;
    kn_qdq_settings settings;
    char *keep_float_text;   /* the option's copy, cut at the commas */
    const char **keep_float; /* pointers into it */
    /* The last write's bytes, kept for write_memory's second call; dropped
     * when a batch is added or the settings change. */
    uint8_t *written;
    size_t written_size;
};

/* Settings from options (NULL: the defaults of kiln_options_create). */
static int32_t apply_options(kiln_calibrator *c, const kiln_options *o)
{
    char *text = NULL;
    const char **list = NULL;
    int32_t n = 0;
    if (o && o->calib_keep_float && o->calib_keep_float[0]) {
        text = strdup(o->calib_keep_float);
        size_t commas = 1;
        for (const char *p = o->calib_keep_float; *p; p++)
            commas += *p == ',';
        list = calloc(commas, sizeof *list);
        if (!text || !list) {
            free(text);
            free(list);
            return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
        }
        for (char *save = NULL, *tok = strtok_r(text, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save)) {
            while (*tok == ' ')
                tok++;
            for (char *end = tok + strlen(tok); end > tok && end[-1] == ' ';)
                *--end = '\0';
            if (*tok)
                list[n++] = tok;
        }
    }
    free(c->keep_float_text);
    free(c->keep_float);
    c->keep_float_text = text;
    c->keep_float = list;
    c->settings = (kn_qdq_settings){
        .method = o ? o->calib_method : KILN_CALIB_MSE,
        .percentile = o ? o->calib_percentile : 99.99,
        .symmetric = o ? o->calib_symmetric : 0,
        .weight_qmax = o && o->calib_weight_bits == 7 ? 63 : 127,
        .keep_float = list,
        .n_keep_float = n,
    };
    free(c->written);
    c->written = NULL;
    return KILN_OK;
}

static int32_t create(kiln_runtime *rt, const void *data, size_t size, const char *path,
                      const kiln_options *o, kiln_calibrator **out)
{
    kiln_calibrator *c = calloc(1, sizeof *c);
    if (!c)
        return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
    c->runtime = rt;
    int32_t rc = apply_options(c, o);
    if (rc != KILN_OK) {
        kiln_calibrator_destroy(c);
        return rc;
    }
    /* External data sits beside the model file. */
    char *dir = NULL;
    if (path) {
        const char *slash = strrchr(path, '/');
        dir = slash ? strndup(path, (size_t)(slash - path + 1)) : strdup("./");
    }
    kn_calibrator_config cfg = {.source = path,
                                .base_dir = dir,
                                .max_bytes =
                                    o && o->max_model_mb ? (size_t)o->max_model_mb << 20 : 0};
    int32_t dnnl = kn_backend_index("dnnl");
    if (o && !o->use_dnnl && dnnl >= 0)
        cfg.backends_off |= 1u << dnnl;
    kn_err err = {0};
    if ((path && !dir) ||
        kn_calibrator_create(data, size, &cfg, rt->thread_pool, &c->core, &err) != KN_OK) {
        free(dir);
        kiln_calibrator_destroy(c);
        return err.code ? kiln_fail_err(&err) : kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory");
    }
    free(dir);
    *out = c;
    return KILN_OK;
}

int32_t kiln_calibrator_create(kiln_runtime *rt, const char *path, const kiln_options *o,
                               kiln_calibrator **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    KILN_CHECK_ARG(rt && path, "NULL argument");
    FILE *f = fopen(path, "rb");
    if (!f)
        return kiln_fail(KILN_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    uint8_t *bytes = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size == cap) {
            size_t grown = cap ? cap * 2 : 1 << 20;
            uint8_t *p = realloc(bytes, grown);
            if (!p) {
                free(bytes);
                fclose(f);
                return kiln_fail(KILN_ERR_OUT_OF_MEMORY, "out of memory reading '%s'", path);
            }
            bytes = p;
            cap = grown;
        }
        size_t got = fread(bytes + size, 1, cap - size, f);
        size += got;
        if (got == 0)
            break;
    }
    int failed = ferror(f);
    int saved = errno;
    fclose(f);
    if (failed) {
        free(bytes);
        return kiln_fail(KILN_ERR_IO, "cannot read '%s': %s", path, strerror(saved));
    }
    int32_t rc = create(rt, bytes, size, path, o, out);
    free(bytes); /* the calibrator keeps its own copy */
    return rc;
}

int32_t kiln_calibrator_create_memory(kiln_runtime *rt, const void *data, size_t size,
                                      const kiln_options *o, kiln_calibrator **out)
{
    KILN_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    KILN_CHECK_ARG(rt && (data || size == 0), "NULL argument");
    return create(rt, data, size, NULL, o, out);
}

void kiln_calibrator_destroy(kiln_calibrator *c)
{
    if (!c)
        return;
    kn_calibrator_destroy(c->core);
    free(c->keep_float_text);
    free(c->keep_float);
    free(c->written);
    free(c);
}

int32_t kiln_calibrator_configure(kiln_calibrator *c, const kiln_options *o)
{
    KILN_CHECK_ARG(c && o, "NULL argument");
    return apply_options(c, o);
}

int32_t kiln_calibrator_set_input(kiln_calibrator *c, const char *name, int32_t dtype,
                                  const int64_t *dims, int32_t rank, const void *data,
                                  size_t nbytes)
{
    KILN_CHECK_ARG(c && name, "NULL argument");
    KILN_CHECK_ARG(data || nbytes == 0, "data is NULL");
    const kn_graph *g = kn_calibrator_model(c->core)->graph;
    int32_t index = -1;
    for (int32_t i = 0; i < g->n_inputs && index < 0; i++)
        if (!strcmp(g->values[g->inputs[i]].name, name))
            index = i;
    if (index < 0) {
        char names[256] = "";
        size_t used = 0;
        for (int32_t i = 0; i < g->n_inputs && used < sizeof names; i++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s'%s'", i ? ", " : "",
                                     g->values[g->inputs[i]].name);
        return kiln_fail(KILN_ERR_NOT_FOUND, "the model has no input '%s'; its inputs are: %s",
                         name, names);
    }
    if (kn_dtype_kind(dtype) != KN_KIND_TENSOR || dtype == KN_STRING)
        return kiln_fail(KILN_ERR_DTYPE, "input '%s': dtype %d cannot be a calibration input", name,
                         (int)dtype);
    kn_err err = {0};
    if (kn_calibrator_bind(c->core, index, dtype, dims, rank, data, nbytes, &err) != KN_OK)
        return kiln_fail_err(&err);
    return KILN_OK;
}

int32_t kiln_calibrator_add_batch(kiln_calibrator *c)
{
    KILN_CHECK_ARG(c, "calibrator is NULL");
    free(c->written);
    c->written = NULL;
    kn_err err = {0};
    if (kn_calibrator_add_batch(c->core, &err) != KN_OK)
        return kiln_fail_err(&err);
    return KILN_OK;
}

int32_t kiln_calibrator_batch_count(const kiln_calibrator *c, int32_t *count)
{
    KILN_CHECK_ARG(c && count, "NULL argument");
    int64_t n = kn_calibrator_batches(c->core);
    *count = n > INT32_MAX ? INT32_MAX : (int32_t)n;
    return KILN_OK;
}

/* Builds the QDQ model unless the current one is still valid. */
static int32_t ensure_written(kiln_calibrator *c)
{
    if (c->written)
        return KILN_OK;
    kn_err err = {0};
    if (kn_calibrator_write(c->core, &c->settings, &c->written, &c->written_size, &err) != KN_OK)
        return kiln_fail_err(&err);
    return KILN_OK;
}

int32_t kiln_calibrator_write_file(kiln_calibrator *c, const char *path)
{
    KILN_CHECK_ARG(c && path, "NULL argument");
    int32_t rc = ensure_written(c);
    if (rc != KILN_OK)
        return rc;
    FILE *f = fopen(path, "wb");
    if (!f)
        return kiln_fail(KILN_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    size_t put = fwrite(c->written, 1, c->written_size, f);
    int saved = errno;
    int closed = fclose(f);
    if (put != c->written_size || closed != 0)
        return kiln_fail(KILN_ERR_IO, "cannot write '%s': %s", path,
                         strerror(put != c->written_size ? saved : errno));
    return KILN_OK;
}

int32_t kiln_calibrator_write_memory(kiln_calibrator *c, void *buf, size_t cap, size_t *needed)
{
    KILN_CHECK_ARG(c, "calibrator is NULL");
    KILN_CHECK_ARG(buf || cap == 0, "buf is NULL");
    int32_t rc = ensure_written(c);
    if (rc != KILN_OK)
        return rc;
    if (needed)
        *needed = c->written_size;
    if (cap < c->written_size)
        return kiln_fail(KILN_ERR_BUFFER_TOO_SMALL, "the model needs %zu bytes, the buffer has %zu",
                         c->written_size, cap);
    memcpy(buf, c->written, c->written_size);
    return KILN_OK;
}

static const kn_qdq_report *report_line(const kiln_calibrator *c, int32_t index, int32_t *rc)
{
    const kn_qdq_plan *plan = kn_calibrator_report(c->core);
    *rc = KILN_OK;
    if (!plan) {
        *rc = kiln_fail(KILN_ERR_STATE, "no report yet: write the quantized model first");
        return NULL;
    }
    if (index < 0 || index >= plan->n_report) {
        *rc = kiln_fail(KILN_ERR_INVALID_ARGUMENT, "report line %d out of range (%d lines)",
                        (int)index, (int)plan->n_report);
        return NULL;
    }
    return &plan->report[index];
}

int32_t kiln_calibrator_report_count(const kiln_calibrator *c, int32_t *count)
{
    KILN_CHECK_ARG(c && count, "NULL argument");
    const kn_qdq_plan *plan = kn_calibrator_report(c->core);
    if (!plan)
        return kiln_fail(KILN_ERR_STATE, "no report yet: write the quantized model first");
    *count = plan->n_report;
    return KILN_OK;
}

int32_t kiln_calibrator_report_name(const kiln_calibrator *c, int32_t index, char *buf, int32_t cap,
                                    int32_t *needed)
{
    KILN_CHECK_ARG(c, "calibrator is NULL");
    int32_t rc;
    const kn_qdq_report *r = report_line(c, index, &rc);
    return r ? kiln_copy_string(r->name, buf, cap, needed) : rc;
}

int32_t kiln_calibrator_report_stats(const kiln_calibrator *c, int32_t index, int32_t *kind,
                                     int32_t *zero_point, int64_t *nonfinite, float *stats,
                                     size_t stats_bytes)
{
    KILN_CHECK_ARG(c, "calibrator is NULL");
    KILN_CHECK_ARG(stats || stats_bytes == 0, "stats is NULL");
    int32_t rc;
    const kn_qdq_report *r = report_line(c, index, &rc);
    if (!r)
        return rc;
    if (kind)
        *kind = r->kind;
    if (zero_point)
        *zero_point = r->zero_point;
    if (nonfinite)
        *nonfinite = (int64_t)r->nonfinite;
    const float values[5] = {(float)r->min, (float)r->max, (float)r->threshold, r->scale,
                             (float)r->sqnr_db};
    size_t n = stats_bytes / sizeof(float);
    if (n)
        memcpy(stats, values, (n < 5 ? n : 5) * sizeof(float));
    return KILN_OK;
}
