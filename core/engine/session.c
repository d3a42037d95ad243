#include "core/engine/session.h"

#include "core/base/alloc.h"
#include "core/engine/devices.h"
#include "core/ir/value_blob.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct bound_input {
    kn_tensor t;        /* shape and data pointer of the bound value */
    int bound;
    void *copy;         /* owned copy for KILN_INPUT_COPY, reused across binds */
    size_t copy_cap;
    int on_device;      /* t.data is the caller's memory on the session's device */
} bound_input;

/* An output the caller bound to a buffer on the session's device. */
typedef struct device_output {
    void *data; /* NULL: not bound */
    size_t cap;
} device_output;

struct kn_session {
    const kn_model *model;
    kn_threadpool *pool;
    int64_t max_arena;
    int tune, profile, precision, device_graph;
    const kn_tap *tap;
    char *tuning_cache;
    /* The plan of the last run (NULL if none), which the outputs belong to.
     * Without eager planning it is one of `cached`, the plans of the input
     * signatures seen most recently (at most cache_capacity, least recently
     * used first out); they share `arena`, sized to the largest of them, and
     * `attached` is the one whose pointers lead into it now. An eager plan
     * (built every run) is not cached and has its own arena. */
    kn_plan *plan;
    kn_plan **cached;
    uint64_t *last_used;        /* per cached plan: the run it last served */
    /* Per cached plan, with value inputs: the bytes of those inputs it was
     * built for (concatenated in input order), NULL otherwise. */
    unsigned char **keys;
    /* Per graph input, or NULL: 1 = its value is part of each plan (set
     * when planning without values failed for lack of one; see pick). */
    uint8_t *value_inputs;
    int32_t n_cached, cache_capacity;
    unsigned char *arena;
    int64_t arena_bytes;
    const kn_plan *attached;
    /* The device option: backend NULL when the session runs on the host.
     * Like the host arena, the device arena is shared by the cached plans
     * (sized to the largest) and `dattached` is the plan pointing into it. */
    kn_plan_device device;
    void *darena;
    int64_t darena_bytes;
    const kn_plan *dattached;
    int64_t plans_built;
    bound_input *inputs;
    uint8_t *device_inputs;  /* per input: on_device, as plans take it */
    device_output *device_outputs; /* per graph output */
    uint8_t *outputs_on_device;    /* per graph output: bound, as plans take it */
    uint8_t *output_fetched;       /* per graph output: its host bytes are there this run */
    kn_tensor *shapes;       /* scratch for building a plan */
    int has_outputs;
    int eager;               /* the model needs values to plan: plan every run */
    pthread_mutex_t run_lock; /* held for the whole run; destroy waits on it */
    /* Runs are numbered; an odd number means a run is in flight. Cancel
     * names the run it targets, so it can never stop a later run. */
    atomic_uint_fast64_t run_id;
    atomic_uint_fast64_t cancel_target;
};

static const char *input_name(const kn_session *s, int32_t i)
{
    const kn_graph *g = s->model->graph;
    return g->values[g->inputs[i]].name;
}

/* A plan can be built up front when every input's shape is fully static. */
static int declared_shapes_static(const kn_session *s)
{
    const kn_graph *g = s->model->graph;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const kn_value *v = &g->values[g->inputs[i]];
        if (v->rank < 0 || v->dtype == KN_UNDEFINED)
            return 0;
        for (int32_t d = 0; d < v->rank; d++)
            if (v->dims[d] < 0)
                return 0;
    }
    return 1;
}

/* Drops every cached plan and the shared arena (outputs go with them). */
static void drop_plans(kn_session *s)
{
    for (int32_t i = 0; i < s->n_cached; i++) {
        kn_plan_destroy(s->cached[i]);
        free(s->keys[i]);
        s->keys[i] = NULL;
    }
    s->n_cached = 0;
    if (s->plan && s->eager)
        kn_plan_destroy(s->plan); /* an eager plan is never in the cache */
    s->plan = NULL;
    s->attached = NULL;
    s->has_outputs = 0;
    kn_aligned_free(s->arena);
    s->arena = NULL;
    s->arena_bytes = 0;
    if (s->darena)
        s->device.backend->memory.free(s->device.device, s->darena);
    s->darena = NULL;
    s->darena_bytes = 0;
    s->dattached = NULL;
}

/* Makes room for one more cached plan: the least recently used goes. */
static void evict_one(kn_session *s)
{
    int32_t oldest = 0;
    for (int32_t i = 1; i < s->n_cached; i++)
        if (s->last_used[i] < s->last_used[oldest])
            oldest = i;
    if (s->cached[oldest] == s->plan) {
        s->plan = NULL;
        s->has_outputs = 0;
    }
    if (s->cached[oldest] == s->attached)
        s->attached = NULL;
    if (s->cached[oldest] == s->dattached)
        s->dattached = NULL;
    kn_plan_destroy(s->cached[oldest]);
    free(s->keys[oldest]);
    s->n_cached--;
    s->cached[oldest] = s->cached[s->n_cached];
    s->last_used[oldest] = s->last_used[s->n_cached];
    s->keys[oldest] = s->keys[s->n_cached];
    s->keys[s->n_cached] = NULL;
}

/* Inputs small enough that their values can key a plan: at most this many
 * elements (a K, a shape, sizes or scales), never the data a model runs on. */
#define KN_VALUE_INPUT_MAX 64

/* Chooses the value inputs after a plan without values failed for lack of
 * one: every small numeric tensor input. 0 when there is none (the model
 * then needs eager planning). */
static int pick_value_inputs(kn_session *s)
{
    const kn_graph *g = s->model->graph;
    uint8_t *pick = calloc((size_t)g->n_inputs + 1, 1);
    int n = 0;
    for (int32_t i = 0; pick && i < g->n_inputs; i++) {
        const kn_tensor *t = &s->inputs[i].t;
        /* a device-bound input's bytes cannot be read on the host */
        if (!s->inputs[i].on_device && kn_dtype_kind(t->dtype) == KN_KIND_TENSOR &&
            t->dtype != KN_STRING &&
            kn_dtype_size(t->dtype) > 0 && kn_tensor_numel(t) <= KN_VALUE_INPUT_MAX)
            n += pick[i] = 1;
    }
    if (n == 0) {
        free(pick);
        return 0;
    }
    s->value_inputs = pick;
    return n;
}

/* The bound bytes of the value inputs, concatenated: a new buffer (NULL
 * when out of memory), *bytes its length. */
static unsigned char *value_key(const kn_session *s, size_t *bytes)
{
    const kn_graph *g = s->model->graph;
    size_t n = 0;
    for (int32_t i = 0; i < g->n_inputs; i++)
        if (s->value_inputs[i])
            n += (size_t)kn_tensor_nbytes(&s->inputs[i].t);
    unsigned char *key = malloc(n ? n : 1);
    size_t at = 0;
    for (int32_t i = 0; key && i < g->n_inputs; i++) {
        if (!s->value_inputs[i])
            continue;
        size_t nb = (size_t)kn_tensor_nbytes(&s->inputs[i].t);
        if (nb)
            memcpy(key + at, s->inputs[i].t.data, nb);
        at += nb;
    }
    *bytes = n;
    return key;
}

/* Whether the bound value inputs hold the bytes of key. */
static int values_match(const kn_session *s, const unsigned char *key)
{
    const kn_graph *g = s->model->graph;
    size_t at = 0;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        if (!s->value_inputs[i])
            continue;
        size_t nb = (size_t)kn_tensor_nbytes(&s->inputs[i].t);
        if (nb && memcmp(key + at, s->inputs[i].t.data, nb) != 0)
            return 0;
        at += nb;
    }
    return 1;
}

/* The shared arena grows to the high-water mark of the cached plans; every
 * plan pointing into the old one is re-attached before it runs. */
static int fit_arena(kn_session *s, const kn_plan *p, kn_err *err)
{
    if (s->arena && s->arena_bytes >= p->arena_bytes)
        return KN_OK;
    unsigned char *arena = kn_aligned_alloc(p->arena_bytes > 0 ? (size_t)p->arena_bytes : 16);
    if (!arena)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "cannot allocate a %lld-byte arena",
                       (long long)p->arena_bytes);
    kn_aligned_free(s->arena);
    s->arena = arena;
    s->arena_bytes = p->arena_bytes > 0 ? p->arena_bytes : 16;
    s->attached = NULL;
    return KN_OK;
}

/* The same for the device arena (memory.alloc): it grows, never per run. */
static int fit_device_arena(kn_session *s, const kn_plan *p, kn_err *err)
{
    if (!s->device.backend || p->device_arena_bytes == 0 ||
        (s->darena && s->darena_bytes >= p->device_arena_bytes))
        return KN_OK;
    const kn_backend_memory *m = &s->device.backend->memory;
    void *arena = m->alloc(s->device.device, (size_t)p->device_arena_bytes, err);
    if (!arena)
        return err->code != KN_OK ? err->code
                                  : kn_fail(err, KN_ERR_OUT_OF_MEMORY, "cannot allocate a "
                                            "%lld-byte device arena on %s",
                                            (long long)p->device_arena_bytes,
                                            s->device.backend->name);
    if (s->darena)
        m->free(s->device.device, s->darena);
    s->darena = arena;
    s->darena_bytes = p->device_arena_bytes;
    s->dattached = NULL;
    return KN_OK;
}

/* Eager planning, and plans keyed on an input's value, read those inputs
 * on the host while planning: a device-bound one cannot take part. With
 * every_one, any device-bound input is refused (the session is about to
 * plan eagerly); else those the session plans with now. */
static int refuse_device_inputs(const kn_session *s, int every_one, kn_err *err)
{
    const kn_graph *g = s->model->graph;
    for (int32_t i = 0; i < g->n_inputs; i++)
        if (s->inputs[i].on_device &&
            (every_one || s->eager || (s->value_inputs && s->value_inputs[i])))
            return kn_fail(err, KN_ERR_UNSUPPORTED, "input '%s' is bound to device memory, but "
                           "this model's shapes depend on its input values, which are read on "
                           "the host: bind it with kiln_session_set_input", input_name(s, i));
    return KN_OK;
}

static int build_plan(kn_session *s, int from_bound, uint64_t run_id, kn_err *err)
{
    const kn_graph *g = s->model->graph;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        if (from_bound) {
            s->shapes[i] = s->inputs[i].t; /* data is used in eager mode */
        } else {
            const kn_value *v = &g->values[g->inputs[i]];
            memset(&s->shapes[i], 0, sizeof s->shapes[i]);
            s->shapes[i].dtype = v->dtype;
            s->shapes[i].rank = v->rank;
            memcpy(s->shapes[i].dims, v->dims, sizeof v->dims);
        }
        if (!s->eager && !(s->value_inputs && s->value_inputs[i]))
            s->shapes[i].data = NULL;
    }
    struct kn_bump *recycle = NULL;
    if (s->eager) {
        recycle = kn_plan_destroy_keep(s->plan); /* its pages serve this run */
        s->plan = NULL;
    } else if (s->n_cached == s->cache_capacity) {
        evict_one(s);
    }
    s->has_outputs = 0;
    kn_plan_options o = {.max_arena = s->max_arena, .eager = s->eager,
                         .cancel_target = &s->cancel_target, .run_id = run_id,
                         .tune = s->tune, .tuning_cache = s->tuning_cache,
                         .profile = s->profile, .precision = s->precision,
                         .shared_arena = !s->eager,
                         .value_inputs = s->eager ? NULL : s->value_inputs,
                         .recycle = recycle, .tap = s->tap,
                         .device = s->device.backend ? &s->device : NULL,
                         .device_inputs = from_bound ? s->device_inputs : NULL,
                         .device_outputs = s->outputs_on_device,
                         .device_graph = s->device_graph};
    kn_plan *p = NULL;
    int rc = kn_plan_build(s->model, s->shapes, s->pool, &o, &p, err);
    s->plans_built += rc == KN_OK;
    if (rc == KN_ERR_NEEDS_VALUE && !s->eager) {
        memset(err, 0, sizeof *err);
        if (!from_bound) /* at creation: the first run plans, with the values */
            return KN_OK;
        /* Shapes depend on values. First try planning with the small inputs'
         * values as part of the plan (a K, a shape, sizes: such a plan is
         * kept per distinct value, like a shape); where that is not enough,
         * this session plans each run with all its inputs' values. */
        if (!s->value_inputs && pick_value_inputs(s))
            return build_plan(s, from_bound, run_id, err);
        int rc2 = refuse_device_inputs(s, 1, err);
        if (rc2 != KN_OK)
            return rc2;
        drop_plans(s);
        free(s->value_inputs);
        s->value_inputs = NULL;
        s->eager = 1;
        return build_plan(s, from_bound, run_id, err);
    }
    if (rc != KN_OK)
        return rc;
    if (s->eager) {
        s->plan = p;
        return KN_OK;
    }
    if (s->value_inputs) {
        size_t bytes = 0;
        s->keys[s->n_cached] = value_key(s, &bytes);
        if (!s->keys[s->n_cached]) {
            kn_plan_destroy(p);
            return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory keeping a plan");
        }
    }
    s->cached[s->n_cached] = p;
    s->last_used[s->n_cached++] = run_id;
    s->plan = p;
    int rc2 = fit_arena(s, p, err);
    return rc2 == KN_OK ? fit_device_arena(s, p, err) : rc2;
}

/* The device option: resolved, the model's context on it opened (once per
 * model), and this session's stream made. */
static int open_device(kn_session *s, const kn_session_config *cfg, kn_err *err)
{
    const kn_backend *b = NULL;
    int32_t index = 0;
    int rc = kn_device_resolve(cfg->device, &b, &index, err);
    if (rc != KN_OK || !b)
        return rc;
    if (cfg->tap)
        return kn_fail(err, KN_ERR_UNSUPPORTED, "device '%s': kept values and calibration read "
                       "every tensor on the host; run them with the device \"cpu\"",
                       cfg->device);
    void *dev = NULL;
    rc = kn_model_device_open(s->model->root->devices, b, index, &dev, err);
    if (rc != KN_OK)
        return rc;
    void *stream = b->memory.stream_create(dev, err);
    if (!stream)
        return err->code != KN_OK ? err->code
                                  : kn_fail(err, KN_ERR_INTERNAL, "device '%s': no stream",
                                            cfg->device);
    s->device = (kn_plan_device){.backend = b, .device = dev, .stream = stream};
    return KN_OK;
}

int kn_session_create(const kn_model *model, kn_threadpool *pool, const kn_session_config *cfg,
                      kn_session **out, kn_err *err)
{
    *out = NULL;
    if (model->n_unsupported > 0)
        return kn_fail(err, KN_ERR_UNSUPPORTED,
                       "the model has %d node(s) with unsupported ops; it was loaded for "
                       "inspection only", (int)model->n_unsupported);
    kn_session *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory creating a session");
    int32_t n = model->graph->n_inputs;
    s->model = model;
    s->pool = pool;
    s->max_arena = cfg->max_arena;
    s->tune = cfg->tune;
    s->precision = cfg->precision;
    s->device_graph = cfg->device_graph;
    s->profile = cfg->profile;
    s->tap = cfg->tap;
    s->tuning_cache = cfg->tuning_cache ? strdup(cfg->tuning_cache) : NULL;
    s->cache_capacity = cfg->plan_cache > 0 ? cfg->plan_cache : KN_SESSION_PLAN_CACHE;
    s->cached = calloc((size_t)s->cache_capacity, sizeof *s->cached);
    s->last_used = calloc((size_t)s->cache_capacity, sizeof *s->last_used);
    s->keys = calloc((size_t)s->cache_capacity, sizeof *s->keys);
    s->inputs = calloc(n ? (size_t)n : 1, sizeof *s->inputs);
    s->shapes = calloc(n ? (size_t)n : 1, sizeof *s->shapes);
    s->device_inputs = calloc(n ? (size_t)n : 1, 1);
    int32_t n_out = model->graph->n_outputs;
    s->device_outputs = calloc(n_out ? (size_t)n_out : 1, sizeof *s->device_outputs);
    s->outputs_on_device = calloc(n_out ? (size_t)n_out : 1, 1);
    s->output_fetched = calloc(n_out ? (size_t)n_out : 1, 1);
    pthread_mutex_init(&s->run_lock, NULL);
    atomic_init(&s->run_id, 0);
    atomic_init(&s->cancel_target, 0);
    int rc = (!s->inputs || !s->shapes || !s->device_inputs || !s->device_outputs ||
              !s->outputs_on_device || !s->output_fetched || !s->cached ||
              !s->last_used || !s->keys ||
              (cfg->tuning_cache && !s->tuning_cache))
                 ? kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory creating a session")
                 : KN_OK;
    if (rc == KN_OK)
        rc = open_device(s, cfg, err);
    if (rc == KN_OK && declared_shapes_static(s))
        rc = build_plan(s, 0, 0, err);
    if (rc != KN_OK) {
        kn_session_destroy(s);
        return rc;
    }
    *out = s;
    return KN_OK;
}

void kn_session_destroy(kn_session *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->run_lock); /* a run in flight finishes first */
    pthread_mutex_unlock(&s->run_lock);
    if (s->cached && s->keys)
        drop_plans(s);
    if (s->device.backend)
        s->device.backend->memory.stream_destroy(s->device.device, s->device.stream);
    free(s->cached);
    free(s->last_used);
    free(s->keys);
    free(s->value_inputs);
    for (int32_t i = 0; s->inputs && i < s->model->graph->n_inputs; i++)
        free(s->inputs[i].copy);
    free(s->inputs);
    free(s->device_inputs);
    free(s->device_outputs);
    free(s->outputs_on_device);
    free(s->output_fetched);
    free(s->shapes);
    free(s->tuning_cache);
    pthread_mutex_destroy(&s->run_lock);
    free(s);
}

static const char *kind_name(int32_t kind)
{
    return kind == KN_KIND_SEQUENCE ? "a sequence" : kind == KN_KIND_OPTIONAL ? "an optional"
                                                                              : "a tensor";
}

/* The buffer's length disagrees with the shape: said in elements, as the
 * caller counted them ("10 float32 elements given, the shape 1x1x8x8
 * needs 64"); in bytes only where an element is not a whole byte or the
 * length is not a whole number of elements. */
static int length_mismatch(const char *name, int32_t dtype, const char *shape, size_t nbytes,
                           int64_t need, kn_err *err)
{
    const char *dt = kn_dtype_name(dtype);
    size_t size = kn_dtype_size(dtype);
    if (kn_dtype_is_packed(dtype) || size == 0)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "input '%s': %zu bytes of %s given, the "
                       "shape %s needs %lld", name, nbytes, dt, shape, (long long)need);
    if (nbytes % size != 0)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "input '%s': %zu bytes is not a whole number "
                       "of %s elements (%zu bytes each)", name, nbytes, dt, size);
    return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "input '%s': %zu %s element%s given, the shape "
                   "%s needs %lld", name, nbytes / size, dt, nbytes / size == 1 ? "" : "s", shape,
                   (long long)need / (long long)size);
}

/* The dtype of every tensor in a sequence blob must be the declared one. */
static int check_seq_dtypes(const kn_tensor *seq, int32_t want, const char *name, kn_err *err)
{
    int64_t n = kn_blob_count(seq);
    for (int64_t i = 0; want != KN_UNDEFINED && i < n; i++) {
        kn_blob_entry e;
        kn_blob_read_entry(seq, i, &e);
        if (e.kind == KN_KIND_TENSOR && e.dtype != want)
            return kn_fail(err, KN_ERR_DTYPE, "input '%s' holds %s tensors, the model expects %s",
                           name, kn_dtype_name(e.dtype), kn_dtype_name(want));
    }
    return KN_OK;
}

/* A sequence or optional input: the value's kind, then its blob and the
 * element types against the declaration. */
static int check_value_input(const kn_value *v, const char *name, int32_t dtype,
                             const int64_t *dims, int32_t rank, const void *data, kn_err *err)
{
    kn_tensor t = {.dtype = dtype, .rank = rank, .data = (void *)data};
    for (int32_t d = 0; d < rank && d < KN_MAX_RANK; d++)
        t.dims[d] = dims[d];
    int rc = kn_blob_check(&t, name, err);
    if (rc != KN_OK)
        return rc;
    if (v->kind == KN_KIND_SEQUENCE)
        return check_seq_dtypes(&t, v->elem_dtype, name, err);
    if (kn_blob_count(&t) == 0)
        return KN_OK;
    kn_tensor elem;
    kn_blob_elem(&t, 0, &elem);
    int32_t want_kind = v->optional_of_sequence ? KN_KIND_SEQUENCE : KN_KIND_TENSOR;
    if (kn_dtype_kind(elem.dtype) != want_kind)
        return kn_fail(err, KN_ERR_DTYPE, "input '%s' expects an optional holding %s, got one "
                       "holding %s", name, kind_name(want_kind), kind_name(kn_dtype_kind(elem.dtype)));
    if (want_kind == KN_KIND_SEQUENCE)
        return check_seq_dtypes(&elem, v->elem_dtype, name, err);
    if (v->elem_dtype != KN_UNDEFINED && elem.dtype != v->elem_dtype)
        return kn_fail(err, KN_ERR_DTYPE, "input '%s' expects an optional %s tensor, got %s", name,
                       kn_dtype_name(v->elem_dtype), kn_dtype_name(elem.dtype));
    return KN_OK;
}

static int check_input(const kn_session *s, int32_t index, int32_t dtype, const int64_t *dims,
                       int32_t rank, const void *data, size_t nbytes, kn_err *err)
{
    const kn_value *v = &s->model->graph->values[s->model->graph->inputs[index]];
    const char *name = input_name(s, index);
    if (v->kind != KN_KIND_TENSOR || kn_dtype_kind(dtype) != KN_KIND_TENSOR) {
        if (kn_dtype_kind(dtype) != v->kind)
            return kn_fail(err, KN_ERR_DTYPE, "input '%s' expects %s, got %s", name,
                           kind_name(v->kind), kind_name(kn_dtype_kind(dtype)));
        if (rank != 1 || !dims || dims[0] < 0 || (uint64_t)dims[0] != (uint64_t)nbytes || !data)
            return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "input '%s': malformed %s value", name,
                           kn_dtype_name(dtype));
        return check_value_input(v, name, dtype, dims, rank, data, err);
    }
    if (rank < 0 || rank > KN_MAX_RANK || (rank > 0 && !dims))
        return kn_fail(err, KN_ERR_SHAPE, "input '%s': rank %d is not supported", name, (int)rank);
    if (kn_dtype_bits(dtype) == 0)
        return kn_fail(err, KN_ERR_DTYPE, "input '%s': dtype %d is not a supported element type",
                       name, (int)dtype);
    if (v->dtype != KN_UNDEFINED && v->dtype != dtype)
        return kn_fail(err, KN_ERR_DTYPE, "input '%s' expects %s, got %s", name,
                       kn_dtype_name(v->dtype), kn_dtype_name(dtype));
    for (int32_t d = 0; d < rank; d++)
        if (dims[d] < 0)
            return kn_fail(err, KN_ERR_SHAPE, "input '%s': dim %d is negative (%lld)", name,
                           (int)d, (long long)dims[d]);
    /* Shapes are written out only for a message: binding runs every run. */
    char want[KN_SHAPE_TEXT], got[KN_SHAPE_TEXT];
    if (v->rank >= 0 && v->rank != rank) {
        kn_shape_format(v->dims, v->rank, want, sizeof want);
        kn_shape_format(dims, rank, got, sizeof got);
        return kn_fail(err, KN_ERR_SHAPE, "input '%s' expects shape %s (rank %d), got %s (rank %d)",
                       name, want, (int)v->rank, got, (int)rank);
    }
    for (int32_t d = 0; d < rank; d++)
        if (v->rank >= 0 && v->dims[d] >= 0 && v->dims[d] != dims[d]) {
            kn_shape_format(v->dims, v->rank, want, sizeof want);
            kn_shape_format(dims, rank, got, sizeof got);
            return kn_fail(err, KN_ERR_SHAPE, "input '%s' expects shape %s, got %s (dim %d must "
                           "be %lld)", name, want, got, (int)d, (long long)v->dims[d]);
        }
    int64_t need = kn_shape_nbytes(dtype, dims, rank);
    if (need < 0 || (uint64_t)need != (uint64_t)nbytes)
        kn_shape_format(dims, rank, got, sizeof got);
    if (need < 0)
        return kn_fail(err, KN_ERR_SHAPE, "input '%s': shape %s is too large", name, got);
    if ((uint64_t)need != (uint64_t)nbytes)
        return length_mismatch(name, dtype, got, nbytes, need, err);
    if (!data && need > 0)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "input '%s': data is NULL", name);
    return KN_OK;
}

/* Records input `index`'s binding: host memory (the session's copy or the
 * caller's) or, with on_device, the caller's device memory. */
static int record_binding(kn_session *s, int32_t index, int32_t dtype, const int64_t *dims,
                          int32_t rank, const void *data, int on_device)
{
    bound_input *b = &s->inputs[index];
    b->t.dtype = dtype;
    b->t.rank = rank;
    for (int32_t d = 0; d < rank; d++)
        b->t.dims[d] = dims[d];
    b->t.data = (void *)data;
    b->bound = 1;
    b->on_device = on_device;
    s->device_inputs[index] = (uint8_t)on_device;
    return KN_OK;
}

int kn_session_bind(kn_session *s, int32_t index, int32_t dtype, const int64_t *dims,
                    int32_t rank, const void *data, size_t nbytes, int copy, kn_err *err)
{
    if (index < 0 || index >= s->model->graph->n_inputs)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "input index %d out of range", (int)index);
    int rc = check_input(s, index, dtype, dims, rank, data, nbytes, err);
    if (rc != KN_OK)
        return rc;
    bound_input *b = &s->inputs[index];
    size_t refs_bytes = nbytes;
    int64_t numel = 0;
    if (dtype == KN_STRING) { /* always a deep copy: refs, then their bytes */
        const kn_string *str = data;
        numel = kn_shape_numel(dims, rank);
        for (int64_t i = 0; i < numel; i++)
            if (str[i].len < 0 || (str[i].len > 0 && !str[i].ptr))
                return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "input '%s': string %lld is "
                               "malformed", input_name(s, index), (long long)i);
        int64_t chars = kn_strings_bytes(str, numel);
        if (chars < 0 || (uint64_t)chars > SIZE_MAX / 2 - nbytes)
            return kn_fail(err, KN_ERR_LIMIT, "input '%s': strings are too large",
                           input_name(s, index));
        nbytes += (size_t)chars;
        copy = 1;
    }
    if (copy) {
        if (b->copy_cap < nbytes || !b->copy) {
            void *p = realloc(b->copy, nbytes ? nbytes : 1);
            if (!p)
                return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory copying input '%s'",
                               input_name(s, index));
            b->copy = p;
            b->copy_cap = nbytes ? nbytes : 1;
        }
        if (dtype == KN_STRING)
            kn_strings_copy(b->copy, (char *)b->copy + refs_bytes, data, numel);
        else if (nbytes)
            memcpy(b->copy, data, nbytes);
        data = b->copy;
    }
    return record_binding(s, index, dtype, dims, rank, data, 0);
}

/* The device-memory calls need a session on a device: said in the
 * caller's terms, with the option that puts it there. */
static int needs_device(const kn_session *s, const char *side, const char *name, kn_err *err)
{
    if (s->device.backend)
        return KN_OK;
    return kn_fail(err, KN_ERR_UNSUPPORTED, "%s '%s': the session runs on cpu; set "
                   "KILN_SOPT_DEVICE to a device (\"cuda\") to bind device memory", side, name);
}

int kn_session_bind_device(kn_session *s, int32_t index, int32_t dtype, const int64_t *dims,
                           int32_t rank, const void *data, size_t nbytes, kn_err *err)
{
    if (index < 0 || index >= s->model->graph->n_inputs)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "input index %d out of range", (int)index);
    const char *name = input_name(s, index);
    int rc = needs_device(s, "input", name, err);
    if (rc != KN_OK)
        return rc;
    const kn_value *v = &s->model->graph->values[s->model->graph->inputs[index]];
    if (v->kind != KN_KIND_TENSOR || kn_dtype_kind(dtype) != KN_KIND_TENSOR || dtype == KN_STRING)
        return kn_fail(err, KN_ERR_DTYPE, "input '%s': only numeric tensors are bound to device "
                       "memory (%s given, the model expects %s)", name, kn_dtype_name(dtype),
                       v->kind == KN_KIND_TENSOR ? kn_dtype_name(v->dtype) : kind_name(v->kind));
    if (!data && nbytes > 0)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "input '%s': device pointer is NULL", name);
    rc = check_input(s, index, dtype, dims, rank, data, nbytes, err);
    if (rc != KN_OK)
        return rc;
    return record_binding(s, index, dtype, dims, rank, data, 1);
}

int kn_session_bind_output_device(kn_session *s, int32_t index, void *data, size_t cap,
                                  kn_err *err)
{
    const kn_graph *g = s->model->graph;
    if (index < 0 || index >= g->n_outputs)
        return kn_fail(err, KN_ERR_INVALID_ARGUMENT, "output index %d out of range: the model "
                       "has %d output%s", (int)index, (int)g->n_outputs,
                       g->n_outputs == 1 ? "" : "s");
    const kn_value *v = &g->values[g->outputs[index]];
    int rc = needs_device(s, "output", v->name, err);
    if (rc != KN_OK)
        return rc;
    if (v->kind != KN_KIND_TENSOR || v->dtype == KN_STRING)
        return kn_fail(err, KN_ERR_DTYPE, "output '%s' is not a numeric tensor: only those are "
                       "written to device memory", v->name);
    /* a shape the model fixes is checked now; others after each run */
    int64_t need = -1;
    int fixed = v->rank >= 0 && v->dtype != KN_UNDEFINED;
    for (int32_t d = 0; fixed && d < v->rank; d++)
        fixed = v->dims[d] >= 0;
    if (fixed)
        need = kn_shape_nbytes(v->dtype, v->dims, v->rank);
    if (data && need >= 0 && (uint64_t)need > (uint64_t)cap)
        return kn_fail(err, KN_ERR_BUFFER_TOO_SMALL, "output '%s' needs %lld bytes, the device "
                       "buffer has %zu", v->name, (long long)need, cap);
    s->device_outputs[index] = (device_output){.data = data, .cap = data ? cap : 0};
    s->outputs_on_device[index] = data != NULL;
    return KN_OK;
}

void *kn_session_device_stream(const kn_session *s) { return s->device.stream; }

/* After a successful run: each output bound on the device is copied into
 * the caller's buffer on the device (from its device tensor when it has
 * one, else from the host), and the run waits for the copies, so the
 * buffers hold the results when it returns. */
static int copy_device_outputs(kn_session *s, kn_err *err)
{
    const kn_graph *g = s->model->graph;
    const kn_backend_memory *m = &s->device.backend->memory;
    const kn_plan *p = s->plan;
    int queued = 0;
    for (int32_t i = 0; i < g->n_outputs; i++) {
        const device_output *o = &s->device_outputs[i];
        if (!o->data)
            continue;
        int32_t v = g->outputs[i];
        int on_device = p->ondev && p->ondev[v];
        const kn_tensor *t = on_device ? &p->dvals[v] : &p->vals[v];
        int64_t nb = kn_tensor_nbytes(t);
        if (nb < 0 || (uint64_t)nb > (uint64_t)o->cap) {
            char shape[KN_SHAPE_TEXT];
            kn_shape_format(t->dims, t->rank, shape, sizeof shape);
            return kn_fail(err, KN_ERR_BUFFER_TOO_SMALL, "output '%s' (%s, shape %s) needs %lld "
                           "bytes, the device buffer bound to it has %zu", g->values[v].name,
                           kn_dtype_name(t->dtype), shape, (long long)nb, o->cap);
        }
        if (nb == 0)
            continue;
        int rc = m->copy(s->device.device, o->data, t->data, (size_t)nb,
                         on_device ? KN_COPY_ON_DEVICE : KN_COPY_TO_DEVICE, s->device.stream, err);
        if (rc != KN_OK)
            return rc;
        queued = 1;
    }
    return queued ? m->stream_sync(s->device.device, s->device.stream, err) : KN_OK;
}

/* Whether p was built for the shapes and dtypes now bound. */
static int plan_fits(const kn_session *s, const kn_plan *p)
{
    const kn_graph *g = s->model->graph;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const kn_tensor *planned = &p->vals[g->inputs[i]], *b = &s->inputs[i].t;
        if (planned->dtype != b->dtype || !kn_shape_equal(planned->dims, planned->rank, b->dims, b->rank))
            return 0;
        if (kn_plan_input_on_device(p, i) != s->inputs[i].on_device)
            return 0;
    }
    for (int32_t i = 0; i < g->n_outputs; i++)
        if (kn_plan_output_on_device(p, i) != s->outputs_on_device[i])
            return 0;
    return 1;
}

/* The cached plan for the bound inputs' signature (with value inputs,
 * their values too), or -1. */
static int32_t find_cached(const kn_session *s)
{
    for (int32_t i = 0; i < s->n_cached; i++)
        if (plan_fits(s, s->cached[i]) && (!s->value_inputs || values_match(s, s->keys[i])))
            return i;
    return -1;
}

/* Run before input i was given a value: name it with what it wants. */
static int not_set(const kn_session *s, int32_t i, kn_err *err)
{
    const kn_value *v = &s->model->graph->values[s->model->graph->inputs[i]];
    if (v->kind != KN_KIND_TENSOR)
        return kn_fail(err, KN_ERR_STATE, "input '%s' (%s) has no value: set it before running",
                       v->name, kind_name(v->kind));
    char shape[KN_SHAPE_TEXT];
    kn_shape_format(v->dims, v->rank, shape, sizeof shape);
    return kn_fail(err, KN_ERR_STATE, "input '%s' (%s, shape %s) has no value: set it before "
                   "running", v->name, kn_dtype_name(v->dtype), v->rank < 0 ? "unknown" : shape);
}

int kn_session_run(kn_session *s, kn_err *err)
{
    const kn_graph *g = s->model->graph;
    for (int32_t i = 0; i < g->n_inputs; i++)
        if (!s->inputs[i].bound)
            return not_set(s, i, err);
    pthread_mutex_lock(&s->run_lock);
    uint64_t id = atomic_fetch_add(&s->run_id, 1) + 1; /* odd: running */
    if (s->tap && s->tap->run_begin)
        s->tap->run_begin(s->tap->ctx);
    int rc = refuse_device_inputs(s, 0, err);
    int32_t hit = rc != KN_OK || s->eager ? -1 : find_cached(s);
    if (rc != KN_OK) {
        s->has_outputs = 0;
    } else if (hit >= 0) {
        s->plan = s->cached[hit];
        s->last_used[hit] = id;
    } else {
        rc = build_plan(s, 1, id, err); /* eagerly, this also runs the model */
    }
    if (rc == KN_OK && !s->eager && s->attached != s->plan) {
        kn_plan_attach_arena(s->plan, s->arena);
        s->attached = s->plan;
    }
    if (rc == KN_OK && !s->eager && s->darena && s->dattached != s->plan) {
        kn_plan_attach_device_arena(s->plan, s->darena);
        s->dattached = s->plan;
    }
    if (rc == KN_OK && !s->eager) {
        for (int32_t i = 0; i < g->n_inputs; i++) {
            if (s->inputs[i].on_device)
                kn_plan_bind_device_input(s->plan, i, s->inputs[i].t.data);
            else
                kn_plan_bind_input(s->plan, i, s->inputs[i].t.data);
        }
        /* the threads apart first: a team stacked on one CPU runs a
         * model slower than one thread (core/base/thread_pool.h) */
        kn_threadpool_spread(s->pool);
        rc = kn_plan_execute_graph(s->plan, &s->cancel_target, id, err);
    }
    if (rc == KN_OK && s->device.backend)
        rc = copy_device_outputs(s, err);
    /* A run stopped part way (cancelled, or a step failed) skipped its last
     * sync: the device may still be reading the caller's inputs, which are
     * borrowed only until the run returns. */
    if (rc != KN_OK && s->device.backend) {
        kn_err ignored = {0};
        s->device.backend->memory.stream_sync(s->device.device, s->device.stream, &ignored);
    }
    s->has_outputs = rc == KN_OK;
    memset(s->output_fetched, 0, (size_t)g->n_outputs);
    if (s->tap && s->tap->run_end)
        s->tap->run_end(s->tap->ctx, rc == KN_OK);
    atomic_fetch_add(&s->run_id, 1); /* even: idle */
    pthread_mutex_unlock(&s->run_lock);
    return rc;
}

void kn_session_cancel(kn_session *s)
{
    uint64_t id = atomic_load(&s->run_id);
    if (id & 1)
        atomic_store(&s->cancel_target, id);
}

const kn_tensor *kn_session_output(const kn_session *s, int32_t index)
{
    if (!s->has_outputs || !s->plan || index < 0 || index >= s->model->graph->n_outputs)
        return NULL;
    /* An output bound on the device was not copied to the host by the run;
     * the first read brings it over. That changes no state the caller sees,
     * so this stays a const accessor; the run lock keeps two readers (or a
     * run) from racing on it. */
    kn_session *w = (kn_session *)s;
    pthread_mutex_lock(&w->run_lock);
    int rc = KN_OK;
    if (!w->output_fetched[index]) {
        kn_err err = {0};
        rc = kn_plan_fetch_output(w->plan, index, &err);
        w->output_fetched[index] = rc == KN_OK;
    }
    pthread_mutex_unlock(&w->run_lock);
    return rc == KN_OK ? &s->plan->vals[s->model->graph->outputs[index]] : NULL;
}

const kn_plan *kn_session_plan(const kn_session *s) { return s->plan; }

void kn_session_profile_reset(kn_session *s)
{
    kn_plan *p = s->plan;
    if (!p || !p->step_ns)
        return;
    int32_t n = 0;
    kn_plan_profiled_steps(p, &n);
    memset(p->step_ns, 0, sizeof *p->step_ns * (size_t)n);
    p->profile_runs = 0;
}

int64_t kn_session_plans_built(const kn_session *s) { return s->plans_built; }

int32_t kn_session_plans_cached(const kn_session *s) { return s->n_cached; }

int64_t kn_session_device_arena_bytes(const kn_session *s) { return s->darena_bytes; }

int64_t kn_session_arena_bytes(const kn_session *s)
{
    return s->eager ? (s->plan ? s->plan->arena_bytes : 0) : s->arena_bytes;
}

void kn_session_release_memory(kn_session *s)
{
    pthread_mutex_lock(&s->run_lock);
    drop_plans(s);
    pthread_mutex_unlock(&s->run_lock);
}
