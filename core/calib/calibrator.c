#include "core/calib/calibrator.h"

#include <stdlib.h>
#include <string.h>

#include "core/engine/load.h"
#include "core/engine/session.h"
#include "core/onnx/onnx.h"
#include "core/opt/optimize.h"

/* Per-channel QuantizeLinear/DequantizeLinear (the axis attribute). */
#define QDQ_MIN_OPSET 13

/* A batch's input, copied: the session borrows the copy until the next
 * batch, and the input's own histogram is filled from it after the run. */
typedef struct bound_input {
    void *data;
    size_t nbytes, cap;
    int32_t dtype;
} bound_input;

struct kn_calibrator {
    uint8_t *bytes; /* the model as given: the QDQ model is these rewritten */
    size_t size;
    char *base_dir;
    kn_model *model;
    kn_session *session;
    kn_tap tap;
    kn_calib_hist **hists; /* per value of the root graph, allocated when first seen */
    bound_input *inputs;   /* per graph input */
    int64_t batches;
    kn_model_ir *write_ir; /* the file read again for the last write, when needed (the
                            * report's names may point into it) */
    kn_qdq_plan plan;
};

static kn_calib_hist *hist_for(kn_calibrator *c, int32_t v, kn_err *err)
{
    if (!c->hists[v]) {
        c->hists[v] = malloc(sizeof *c->hists[v]);
        if (!c->hists[v]) {
            kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory for the histogram of '%s'",
                    c->model->graph->values[v].name);
            return NULL;
        }
        kn_calib_hist_init(c->hists[v]);
    }
    return c->hists[v];
}

/* The session's tap: every float output of a root-graph node goes into its
 * tensor's histogram while its bytes are still there. */
static int tap_outputs(void *ctx, const kn_plan *plan, const kn_kctx *k, kn_err *err)
{
    kn_calibrator *c = ctx;
    if (plan->options.parent) /* a subgraph's values have names of their own graph */
        return KN_OK;
    for (int32_t j = 0; j < k->n_out; j++) {
        const kn_tensor *t = k->out[j];
        int32_t v = k->node->outputs[j];
        if (v < 0 || !t || t->dtype != KN_FLOAT || !t->data)
            continue;
        kn_calib_hist *h = hist_for(c, v, err);
        if (!h)
            return KN_ERR_OUT_OF_MEMORY;
        kn_calib_hist_add(h, t->data, (size_t)kn_tensor_numel(t));
    }
    return KN_OK;
}

int kn_calibrator_create(const void *bytes, size_t size, const kn_calibrator_config *cfg,
                         kn_threadpool *pool, kn_calibrator **out, kn_err *err)
{
    *out = NULL;
    kn_calibrator *c = calloc(1, sizeof *c);
    if (!c)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory");
    c->bytes = malloc(size ? size : 1);
    c->size = size;
    c->base_dir = cfg->base_dir ? strdup(cfg->base_dir) : NULL;
    if (!c->bytes || (cfg->base_dir && !c->base_dir)) {
        kn_calibrator_destroy(c);
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory");
    }
    memcpy(c->bytes, bytes, size);
    kn_load_options lo = {.max_bytes = cfg->max_bytes,
                          .optimize = KN_OPT_NONE,
                          .backends_off = cfg->backends_off,
                          .source = cfg->source};
    int rc = kn_model_load(c->bytes, size, c->base_dir, 0, &lo, &c->model, err);
    if (rc == KN_OK) {
        int64_t opset = kn_model_opset_for(c->model->ir, "");
        if (opset < QDQ_MIN_OPSET)
            rc = kn_fail(err, KN_ERR_UNSUPPORTED,
                         "quantizing to QDQ needs opset %d or later of the default domain "
                         "(per-channel QuantizeLinear); %s imports opset %lld: convert it first "
                         "(onnx.version_converter)",
                         QDQ_MIN_OPSET, cfg->source ? cfg->source : "the model", (long long)opset);
    }
    if (rc == KN_OK) {
        const kn_graph *g = c->model->graph;
        c->hists = calloc((size_t)g->n_values + 1, sizeof *c->hists);
        c->inputs = calloc((size_t)g->n_inputs + 1, sizeof *c->inputs);
        if (!c->hists || !c->inputs)
            rc = kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (rc == KN_OK) {
        c->tap = (kn_tap){.fn = tap_outputs, .ctx = c};
        kn_session_config sc = {.tap = &c->tap};
        rc = kn_session_create(c->model, pool, &sc, &c->session, err);
    }
    if (rc != KN_OK) {
        kn_calibrator_destroy(c);
        return rc;
    }
    *out = c;
    return KN_OK;
}

void kn_calibrator_destroy(kn_calibrator *c)
{
    if (!c)
        return;
    kn_session_destroy(c->session);
    if (c->hists)
        for (int32_t v = 0; v < c->model->graph->n_values; v++)
            free(c->hists[v]);
    free(c->hists);
    if (c->inputs)
        for (int32_t i = 0; i < c->model->graph->n_inputs; i++)
            free(c->inputs[i].data);
    free(c->inputs);
    kn_model_destroy(c->model);
    kn_qdq_plan_free(&c->plan);
    kn_model_ir_free(c->write_ir);
    free(c->base_dir);
    free(c->bytes);
    free(c);
}

int kn_calibrator_bind(kn_calibrator *c, int32_t index, int32_t dtype, const int64_t *dims,
                       int32_t rank, const void *data, size_t nbytes, kn_err *err)
{
    if (index < 0 || index >= c->model->graph->n_inputs)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "input index %d out of range", (int)index);
    bound_input *in = &c->inputs[index];
    if (nbytes > in->cap) {
        void *grown = realloc(in->data, nbytes);
        if (!grown)
            return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory copying input '%s'",
                           c->model->graph->values[c->model->graph->inputs[index]].name);
        in->data = grown;
        in->cap = nbytes;
    }
    if (nbytes)
        memcpy(in->data, data, nbytes);
    in->nbytes = 0; /* counts only once the session accepts it */
    int rc = kn_session_bind(c->session, index, dtype, dims, rank, in->data, nbytes, 0, err);
    if (rc == KN_OK) {
        in->nbytes = nbytes;
        in->dtype = dtype;
    }
    return rc;
}

int kn_calibrator_add_batch(kn_calibrator *c, kn_err *err)
{
    int rc = kn_session_run(c->session, err);
    if (rc != KN_OK)
        return rc;
    const kn_graph *g = c->model->graph;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const bound_input *in = &c->inputs[i];
        if (in->dtype != KN_FLOAT || !in->nbytes)
            continue;
        kn_calib_hist *h = hist_for(c, g->inputs[i], err);
        if (!h)
            return KN_ERR_OUT_OF_MEMORY;
        kn_calib_hist_add(h, in->data, in->nbytes / sizeof(float));
    }
    c->batches++;
    return KN_OK;
}

int64_t kn_calibrator_batches(const kn_calibrator *c) { return c->batches; }
const kn_model *kn_calibrator_model(const kn_calibrator *c) { return c->model; }

/* Histograms by name, for the plan, which walks a fresh reading of the file
 * (the calibration model's weights may have given their bytes back to the
 * weight store). */
static const kn_calib_hist *hist_by_name(void *ctx, const char *name)
{
    const kn_calibrator *c = ctx;
    const kn_graph *g = c->model->graph;
    for (int32_t v = 0; v < g->n_values; v++)
        if (c->hists[v] && !strcmp(g->values[v].name, name))
            return c->hists[v];
    return NULL;
}

static int weights_all_present(const kn_graph *g)
{
    for (int32_t v = 0; v < g->n_values; v++)
        if (g->values[v].is_initializer && g->values[v].init_nbytes > 0 && !g->values[v].init_data)
            return 0;
    return 1;
}

int kn_calibrator_write(kn_calibrator *c, const kn_qdq_settings *settings, uint8_t **out,
                        size_t *size, kn_err *err)
{
    *out = NULL;
    *size = 0;
    if (c->batches == 0)
        return kn_fail(err, KN_ERR_STATE, "no calibration batch has been added yet");
    if (!kn_calib_method_name(settings->method))
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT,
                       "unknown calibration method %d (minmax 1, percentile 2, entropy 3, mse 4)",
                       settings->method);
    if (settings->method == KN_CALIB_PERCENTILE &&
        !(settings->percentile > 0 && settings->percentile <= 100))
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "the percentile must be in (0, 100], got %g",
                       settings->percentile);
    kn_qdq_plan_free(&c->plan);
    kn_model_ir_free(c->write_ir);
    c->write_ir = NULL;
    /* The calibration model is the file's graph as written; its weights
     * serve the plan unless the weight store gave some bytes back, and then
     * the file is read again (the plan needs every float weight). */
    const kn_graph *g = c->model->graph;
    int rc = KN_OK;
    if (!weights_all_present(g)) {
        rc = kn_onnx_read_model(c->bytes, c->size, c->base_dir, 0, &c->write_ir, err);
        g = rc == KN_OK ? c->write_ir->graph : NULL;
    }
    if (rc == KN_OK)
        rc = kn_qdq_plan_build(g, hist_by_name, c, settings, &c->plan, err);
    if (rc == KN_OK)
        rc = kn_onnx_write_qdq(c->bytes, c->size, &c->plan.spec, out, size, err);
    return rc;
}

const kn_qdq_plan *kn_calibrator_report(const kn_calibrator *c)
{
    return c->plan.bump ? &c->plan : NULL;
}
