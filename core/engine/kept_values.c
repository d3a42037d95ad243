#include "core/engine/kept_values.h"

#include <stdlib.h>
#include <string.h>

#include "core/ir/tensor.h"

/* One graph value's copy from the last run. */
typedef struct kept_slot {
    float *data;
    size_t cap;     /* floats data holds */
    kn_tensor desc; /* original dtype and shape; data unused */
    uint8_t present;
} kept_slot;

struct kn_kept_values {
    const kn_model *model;
    kn_tap tap;
    kept_slot *slots; /* per value of the root graph */
    int32_t *order;   /* values kept this run, in the order they were computed */
    int32_t n_kept;
    int ready;
};

int kn_kept_values_dtype_ok(int32_t dtype)
{
    const uint32_t ok = KN_MASK_ALL | KN_MASK_FLOAT8;
    return dtype >= 0 && dtype < 32 && (ok & KN_BIT(dtype)) != 0;
}

/* Element i of a numeric tensor as a float (int64 beyond 2^24 rounds: the
 * copy is for measuring differences, not for exact integers). */
static float element_as_float(int32_t dtype, const void *data, size_t i)
{
    switch (dtype) {
    case KN_FLOAT: return ((const float *)data)[i];
    case KN_DOUBLE: return (float)((const double *)data)[i];
    case KN_FLOAT16: return kn_f16_to_f32(((const uint16_t *)data)[i]);
    case KN_BFLOAT16: return kn_bf16_to_f32(((const uint16_t *)data)[i]);
    case KN_INT8: return ((const int8_t *)data)[i];
    case KN_UINT8: return ((const uint8_t *)data)[i];
    case KN_BOOL: return ((const uint8_t *)data)[i] != 0;
    case KN_INT16: return ((const int16_t *)data)[i];
    case KN_UINT16: return ((const uint16_t *)data)[i];
    case KN_INT32: return (float)((const int32_t *)data)[i];
    case KN_UINT32: return (float)((const uint32_t *)data)[i];
    case KN_INT64: return (float)((const int64_t *)data)[i];
    case KN_UINT64: return (float)((const uint64_t *)data)[i];
    default: return kn_f8_to_f32(dtype, ((const uint8_t *)data)[i]);
    }
}

static int keep(kn_kept_values *kv, int32_t v, const kn_tensor *t, kn_err *err)
{
    kept_slot *s = &kv->slots[v];
    int64_t n = kn_tensor_numel(t);
    if (n < 0)
        return KN_OK;
    if ((size_t)n > s->cap) {
        float *grown = realloc(s->data, (size_t)n * sizeof *grown);
        if (!grown)
            return kn_fail(err, KN_ERR_OUT_OF_MEMORY,
                           "out of memory keeping a copy of value '%s' (%lld elements)",
                           kv->model->graph->values[v].name, (long long)n);
        s->data = grown;
        s->cap = (size_t)n;
    }
    if (t->dtype == KN_FLOAT && n > 0)
        memcpy(s->data, t->data, (size_t)n * sizeof *s->data);
    else
        for (size_t i = 0; i < (size_t)n; i++)
            s->data[i] = element_as_float(t->dtype, t->data, i);
    s->desc = *t;
    s->desc.data = NULL;
    if (!s->present)
        kv->order[kv->n_kept++] = v;
    s->present = 1;
    return KN_OK;
}

static void tap_begin(void *ctx) { kn_kept_values_begin(ctx); }
static void tap_end(void *ctx, int ok) { kn_kept_values_end(ctx, ok); }

/* The tap: called after every node with its outputs still in place. */
static int keep_outputs(void *ctx, const kn_plan *plan, const kn_kctx *k, kn_err *err)
{
    kn_kept_values *kv = ctx;
    if (plan->options.parent) /* a subgraph's values are named in their own graph */
        return KN_OK;
    for (int32_t j = 0; j < k->n_out; j++) {
        const kn_tensor *t = k->out[j];
        int32_t v = k->node->outputs[j];
        if (v < 0 || v >= kv->model->graph->n_values || !t || !kn_kept_values_dtype_ok(t->dtype) ||
            (!t->data && kn_tensor_numel(t) != 0))
            continue;
        int rc = keep(kv, v, t, err);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}

int kn_kept_values_create(const kn_model *model, kn_kept_values **out, kn_err *err)
{
    *out = NULL;
    kn_kept_values *kv = calloc(1, sizeof *kv);
    size_t n = (size_t)model->graph->n_values + 1;
    if (kv) {
        kv->slots = calloc(n, sizeof *kv->slots);
        kv->order = calloc(n, sizeof *kv->order);
    }
    if (!kv || !kv->slots || !kv->order) {
        kn_kept_values_destroy(kv);
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory");
    }
    kv->model = model;
    kv->tap = (kn_tap){.fn = keep_outputs, .ctx = kv, .run_begin = tap_begin, .run_end = tap_end};
    *out = kv;
    return KN_OK;
}

void kn_kept_values_release(kn_kept_values *kv)
{
    if (!kv)
        return;
    for (int32_t v = 0; v < kv->model->graph->n_values; v++) {
        free(kv->slots[v].data);
        kv->slots[v] = (kept_slot){0};
    }
    kv->n_kept = 0;
    kv->ready = 0;
}

void kn_kept_values_destroy(kn_kept_values *kv)
{
    if (!kv)
        return;
    if (kv->slots)
        kn_kept_values_release(kv);
    free(kv->slots);
    free(kv->order);
    free(kv);
}

const kn_tap *kn_kept_values_tap(kn_kept_values *kv) { return &kv->tap; }

void kn_kept_values_begin(kn_kept_values *kv)
{
    for (int32_t i = 0; i < kv->n_kept; i++)
        kv->slots[kv->order[i]].present = 0;
    kv->n_kept = 0;
    kv->ready = 0;
}

void kn_kept_values_end(kn_kept_values *kv, int ok) { kv->ready = ok != 0; }

int kn_kept_values_ready(const kn_kept_values *kv) { return kv->ready; }

int32_t kn_kept_values_count(const kn_kept_values *kv) { return kv->ready ? kv->n_kept : 0; }

int32_t kn_kept_values_value(const kn_kept_values *kv, int32_t i) { return kv->order[i]; }

int kn_kept_values_get(const kn_kept_values *kv, int32_t v, kn_tensor *t, const float **data)
{
    if (!kv->ready || v < 0 || v >= kv->model->graph->n_values || !kv->slots[v].present)
        return 0;
    *t = kv->slots[v].desc;
    *data = kv->slots[v].data;
    return 1;
}
