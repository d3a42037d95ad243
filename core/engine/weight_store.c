#include "core/engine/weight_store.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/base/alloc.h"
#include "core/base/hash.h"
#include "core/kernel/backend.h"

/* Below this a weight's packed copy is still shared (a plan of every new
 * input shape would otherwise reorder it again: half of ResNet-18's
 * convolution weights are under 1 MiB), but its raw pages are not given
 * back: a few pages' saving is not worth restoring them for a CPU reader. */
#define KN_EVICT_MIN_BYTES ((int64_t)1 << 20)
/* Smaller weights are not worth a lock and a lookup per plan: reordering
 * a few hundred floats costs less. */
#define KN_SHARE_MIN_BYTES ((int64_t)4096)

typedef struct packed_copy {
    struct packed_copy *next;
    void *key;
    size_t key_len;
    void *data;
    size_t bytes;
    int32_t users;               /* plans whose kernels read it */
    kn_weight_convert_fn convert;
    int one_way;                 /* cannot give the raw bytes back (Winograd) */
} packed_copy;

typedef struct raw_weight {
    int32_t value;
    unsigned char *data;         /* the initializer's bytes in the model's pool */
    size_t nbytes;
    int evicted;
    int may_evict;               /* big enough to give its pages back */
    /* Where the same bytes sit in the model file (kn_weight_store_attach_file),
     * or -1: a weight whose only copy is one-way (Winograd) is read back
     * from there. file_state: 0 not compared with the file yet, 1 equal
     * (file_hash their hash), -1 different (an optimizer pass rewrote them). */
    int64_t file_offset;
    int file_state;
    uint64_t file_hash;
    int32_t raw_refs;            /* plans whose kernels read the raw bytes */
    packed_copy *packed;         /* newest first */
} raw_weight;

/* A constant uploaded to a device: one per (value, key, device), shared by
 * every session of the model on that device and freed with the store. */
typedef struct device_copy {
    struct device_copy *next;
    int32_t value;
    void *key;
    size_t key_len;
    const kn_backend_memory *memory;
    void *device;
    void *ptr;                   /* device memory */
    size_t bytes;
    int32_t users;               /* plans holding it */
} device_copy;

struct kn_weight_store {
    pthread_mutex_t lock;
    const kn_graph *graph;       /* the root graph: device uploads read any initializer */
    device_copy *devices;
    int64_t device_uploads;
    int32_t n_values;
    int32_t *slot;               /* per root value: index into weights, or -1 */
    raw_weight *weights;
    int32_t n_weights;
    int64_t restores;
    int fd;                      /* the model file, or -1 */
    char *path;                  /* its name, for errors */
};

/* ---- which initializers the store shares -------------------------------- */

static int is_default_domain(const char *d) { return !d || !d[0] || strcmp(d, "ai.onnx") == 0; }

/* Input 1 of a matrix product (MatMulIntegerToFloat's int8 B among them)
 * or a convolution, or input 3 (W) of an integer convolution, whose oneDNN kernel packs its B or W (any other
 * reader holds the raw bytes). */
static int is_packable_use(const kn_node *n, int32_t input)
{
    if (input == 3)
        return (is_default_domain(n->domain) && strcmp(n->op_type, "QLinearConv") == 0) ||
               (n->domain && strcmp(n->domain, "kiln") == 0 &&
                strcmp(n->op_type, "NhwcQLinearConv") == 0);
    if (input != 1)
        return 0;
    if (n->domain && strcmp(n->domain, "com.microsoft") == 0)
        return strcmp(n->op_type, "MatMulIntegerToFloat") == 0;
    if (is_default_domain(n->domain))
        return strcmp(n->op_type, "MatMul") == 0 || strcmp(n->op_type, "Gemm") == 0 ||
               strcmp(n->op_type, "Conv") == 0;
    return strcmp(n->domain, "kiln") == 0 &&
           (strcmp(n->op_type, "FusedMatMul") == 0 || strcmp(n->op_type, "FusedGemm") == 0 ||
            strcmp(n->op_type, "FusedConv") == 0 || strcmp(n->op_type, "NhwcConv") == 0);
}

static int only_packable_uses(const kn_graph *g, int32_t v)
{
    int uses = 0;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const kn_node *n = &g->nodes[i];
        for (int32_t j = 0; j < n->n_inputs; j++) {
            if (n->inputs[j] != v)
                continue;
            if (!is_packable_use(n, j))
                return 0;
            uses++;
        }
    }
    return uses > 0;
}

static const kn_graph *graph_at(const kn_model *root, int32_t i)
{
    return i < 0 ? root->graph : root->subs[i]->graph;
}

/* A subgraph reads outer values by name: any value of that name there. */
static int named_in_subgraph(const kn_model *root, const char *name)
{
    for (int32_t s = 0; s < root->n_subs; s++) {
        const kn_graph *g = root->subs[s]->graph;
        for (int32_t v = 0; v < g->n_values; v++)
            if (g->values[v].name && strcmp(g->values[v].name, name) == 0)
                return 1;
    }
    return 0;
}

static int ranges_overlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return na && nb && pa < pb + nb && pb < pa + na;
}

static int tensor_overlaps(const kn_tensor *t, const void *p, size_t n)
{
    int64_t nb = kn_tensor_nbytes(t);
    return t->data && nb > 0 && ranges_overlap(t->data, (size_t)nb, p, n);
}

static int attr_overlaps(const kn_attr *attr, const void *p, size_t n)
{
    if (attr->type == KN_ATTR_TENSOR && attr->t)
        return tensor_overlaps(attr->t, p, n);
    for (int32_t i = 0; attr->type == KN_ATTR_TENSORS && i < attr->count; i++)
        if (tensor_overlaps(&attr->tensors[i], p, n))
            return 1;
    return 0;
}

/* Evicting bytes another tensor also points at (an optimizer pass may
 * share data between constants) would zero that one too. */
static int shares_bytes(const kn_model *root, const kn_value *self)
{
    const void *p = self->init_data;
    size_t n = (size_t)self->init_nbytes;
    for (int32_t gi = -1; gi < root->n_subs; gi++) {
        const kn_graph *g = graph_at(root, gi);
        for (int32_t v = 0; v < g->n_values; v++) {
            const kn_value *o = &g->values[v];
            if (o != self && o->is_initializer && o->init_data && o->init_nbytes > 0 &&
                ranges_overlap(o->init_data, (size_t)o->init_nbytes, p, n))
                return 1;
        }
        for (int32_t i = 0; i < g->n_nodes; i++)
            for (int32_t a = 0; a < g->nodes[i].n_attrs; a++)
                if (attr_overlaps(&g->nodes[i].attrs[a], p, n))
                    return 1;
    }
    return 0;
}

static int is_shareable(const kn_model *root, int32_t v)
{
    const kn_value *val = &root->graph->values[v];
    return val->is_initializer && !val->is_graph_input && !val->is_graph_output &&
           (val->dtype == KN_FLOAT || val->dtype == KN_INT8) && val->init_data &&
           val->init_nbytes >= KN_SHARE_MIN_BYTES &&
           only_packable_uses(root->graph, v) && !named_in_subgraph(root, val->name) &&
           !shares_bytes(root, val);
}

int kn_weight_store_create(const kn_model *root, kn_weight_store **out, kn_err *err)
{
    *out = NULL;
    const kn_graph *g = root->graph;
    int32_t n = 0;
    for (int32_t v = 0; v < g->n_values; v++)
        n += is_shareable(root, v);
    /* Made even when nothing is shared: device copies of any constant live
     * here too (kn_weight_store_acquire_device). */
    kn_weight_store *ws = calloc(1, sizeof *ws);
    if (ws) {
        ws->slot = malloc(sizeof *ws->slot * (size_t)(g->n_values ? g->n_values : 1));
        ws->weights = calloc((size_t)(n ? n : 1), sizeof *ws->weights);
    }
    if (!ws || !ws->slot || !ws->weights) {
        if (ws) {
            free(ws->slot);
            free(ws->weights);
        }
        free(ws);
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory creating the model");
    }
    pthread_mutex_init(&ws->lock, NULL);
    ws->fd = -1;
    ws->graph = g;
    ws->n_values = g->n_values;
    for (int32_t v = 0; v < g->n_values; v++) {
        ws->slot[v] = -1;
        if (!is_shareable(root, v))
            continue;
        raw_weight *w = &ws->weights[ws->n_weights];
        w->value = v;
        w->data = (unsigned char *)g->values[v].init_data; /* the model's own, mutable pool */
        w->nbytes = (size_t)g->values[v].init_nbytes;
        w->may_evict = g->values[v].init_nbytes >= KN_EVICT_MIN_BYTES;
        w->file_offset = -1;
        ws->slot[v] = ws->n_weights++;
    }
    *out = ws;
    return KN_OK;
}

static void free_copy(packed_copy *c)
{
    kn_aligned_free(c->data);
    free(c->key);
    free(c);
}

void kn_weight_store_destroy(kn_weight_store *ws)
{
    if (!ws)
        return;
    for (device_copy *d = ws->devices, *next; d; d = next) {
        next = d->next;
        d->memory->free(d->device, d->ptr);
        free(d->key);
        free(d);
    }
    for (int32_t i = 0; i < ws->n_weights; i++)
        for (packed_copy *c = ws->weights[i].packed, *next; c; c = next) {
            next = c->next;
            free_copy(c);
        }
    if (ws->fd >= 0)
        close(ws->fd);
    free(ws->path);
    pthread_mutex_destroy(&ws->lock);
    free(ws->weights);
    free(ws->slot);
    free(ws);
}

int kn_weight_store_shares(const kn_weight_store *ws, int32_t value)
{
    return ws && value >= 0 && value < ws->n_values && ws->slot[value] >= 0;
}

int kn_weight_store_may_evict(const kn_weight_store *ws, int32_t value)
{
    return kn_weight_store_shares(ws, value) && ws->weights[ws->slot[value]].may_evict;
}

static raw_weight *weight_of(kn_weight_store *ws, int32_t value)
{
    return kn_weight_store_shares(ws, value) ? &ws->weights[ws->slot[value]] : NULL;
}

/* ---- evicting and restoring (lock held) --------------------------------- */

/* The whole pages strictly inside the tensor: the bytes around it on its
 * first and last page belong to other allocations. */
static int page_span(const raw_weight *w, uintptr_t *lo, size_t *len)
{
#if defined(__linux__)
    long ps = sysconf(_SC_PAGESIZE);
    uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;
    uintptr_t a = ((uintptr_t)w->data + page - 1) & ~(page - 1);
    uintptr_t b = ((uintptr_t)w->data + w->nbytes) & ~(page - 1);
    *lo = a;
    *len = b > a ? (size_t)(b - a) : 0;
    return *len > 0;
#else
    (void)w;
    *lo = 0;
    *len = 0;
    return 0; /* no way to give pages back: keep the bytes */
#endif
}

/* ---- the model file as a second source of raw bytes (lock held) ------- */


/* Reads n bytes at offset of the model file into dst; 0 on success. */
static int read_file_at(int fd, int64_t offset, unsigned char *dst, size_t n)
{
#if defined(__linux__)
    while (n > 0) {
        ssize_t got = pread(fd, dst, n, (off_t)offset);
        if (got <= 0)
            return -1;
        dst += got;
        n -= (size_t)got;
        offset += got;
    }
    return 0;
#else
    (void)fd, (void)offset, (void)dst, (void)n;
    return -1;
#endif
}

/* Whether the file holds w's bytes as they are now: compared once, in
 * chunks, on the first eviction that needs the file. Their hash is kept so
 * that a read back is checked too: a file changed on disk since is an
 * error, not silently different weights. */
static int file_matches(kn_weight_store *ws, raw_weight *w)
{
    if (ws->fd < 0 || w->file_offset < 0 || w->file_state < 0)
        return 0;
    if (w->file_state > 0)
        return 1;
    enum { CHUNK = 1 << 20 };
    unsigned char *buf = malloc(CHUNK);
    uint64_t h = KN_FNV_SEED;
    int same = buf != NULL;
    for (size_t at = 0; same && at < w->nbytes; at += CHUNK) {
        size_t n = w->nbytes - at < CHUNK ? w->nbytes - at : CHUNK;
        same = read_file_at(ws->fd, w->file_offset + (int64_t)at, buf, n) == 0 &&
               memcmp(buf, w->data + at, n) == 0;
        h = kn_fnv1a(h, w->data + at, n);
    }
    free(buf);
    w->file_state = same ? 1 : -1;
    w->file_hash = h;
    return same;
}

/* The copy the raw bytes can be restored from, or NULL. */
static const packed_copy *restorable(const raw_weight *w)
{
    for (const packed_copy *c = w->packed; c; c = c->next)
        if (!c->one_way)
            return c;
    return NULL;
}

static void maybe_evict(kn_weight_store *ws, raw_weight *w)
{
    uintptr_t lo;
    size_t len;
    if (!w->may_evict || w->evicted || w->raw_refs > 0 || !page_span(w, &lo, &len))
        return;
    /* a packed copy that converts back, else the model file */
    if (!restorable(w) && !(w->packed && file_matches(ws, w)))
        return;
#if defined(__linux__)
    /* Marked evicted even if madvise failed part way: a restore rewrites
     * every byte, so the content never matters once marked. */
    madvise((void *)lo, len, MADV_DONTNEED);
    w->evicted = 1;
#endif
}

static int ensure_resident(kn_weight_store *ws, raw_weight *w, int32_t threads, kn_err *err)
{
    if (!w->evicted)
        return KN_OK;
    const packed_copy *c = restorable(w); /* evicted implies one, or the file */
    if (c) {
        int rc = c->convert(c->key, c->key_len, 0, c->data, w->data, threads, err);
        if (rc != KN_OK)
            return rc;
    } else {
        errno = 0;
        int unread = read_file_at(ws->fd, w->file_offset, w->data, w->nbytes) != 0;
        int os_error = unread ? errno : 0;
        if (unread || kn_fnv1a(KN_FNV_SEED, w->data, w->nbytes) != w->file_hash)
            /* stays evicted: the next attempt reads again */
            return kn_fail(err, KN_ERR_IO, "cannot read a %zu-byte weight back from the model "
                           "file '%s' at offset %lld: %s", w->nbytes, ws->path,
                           (long long)w->file_offset,
                           os_error ? strerror(os_error)
                                    : "the file was changed or truncated since the model was "
                                      "loaded");
    }
    w->evicted = 0;
    ws->restores++;
    return KN_OK;
}

/* ---- the public calls ---------------------------------------------------- */

int kn_weight_store_acquire_raw(kn_weight_store *ws, int32_t value, int32_t threads, kn_err *err)
{
    raw_weight *w = weight_of(ws, value);
    if (!w)
        return KN_OK;
    pthread_mutex_lock(&ws->lock);
    int rc = ensure_resident(ws, w, threads, err);
    if (rc == KN_OK)
        w->raw_refs++;
    pthread_mutex_unlock(&ws->lock);
    return rc;
}

void kn_weight_store_release_raw(kn_weight_store *ws, int32_t value)
{
    raw_weight *w = weight_of(ws, value);
    if (!w)
        return;
    pthread_mutex_lock(&ws->lock);
    if (w->raw_refs > 0)
        w->raw_refs--; /* not evicted now: see kn_weight_store_evict_unused */
    pthread_mutex_unlock(&ws->lock);
}

void kn_weight_store_evict_value(kn_weight_store *ws, int32_t value)
{
    raw_weight *w = weight_of(ws, value);
    if (!w)
        return;
    pthread_mutex_lock(&ws->lock);
    maybe_evict(ws, w);
    pthread_mutex_unlock(&ws->lock);
}

void kn_weight_store_evict_unused(kn_weight_store *ws)
{
    if (!ws)
        return;
    pthread_mutex_lock(&ws->lock);
    for (int32_t i = 0; i < ws->n_weights; i++)
        maybe_evict(ws, &ws->weights[i]);
    pthread_mutex_unlock(&ws->lock);
}

static packed_copy *find_copy(raw_weight *w, const void *key, size_t key_len)
{
    for (packed_copy *c = w->packed; c; c = c->next)
        if (c->key_len == key_len && memcmp(c->key, key, key_len) == 0)
            return c;
    return NULL;
}

/* Drops the copies no plan uses (the raw bytes are resident). */
static void drop_unused(raw_weight *w)
{
    for (packed_copy **pp = &w->packed; *pp;) {
        packed_copy *c = *pp;
        if (c->users == 0) {
            *pp = c->next;
            free_copy(c);
        } else {
            pp = &c->next;
        }
    }
}

static int make_copy(raw_weight *w, const void *key, size_t key_len, size_t bytes,
                     kn_weight_convert_fn convert, int one_way, int32_t threads,
                     packed_copy **out, kn_err *err)
{
    packed_copy *c = calloc(1, sizeof *c);
    if (c) {
        c->key = malloc(key_len ? key_len : 1);
        c->data = kn_aligned_alloc(bytes ? bytes : 1);
    }
    if (!c || !c->key || !c->data) {
        if (c)
            free_copy(c);
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory packing weights");
    }
    memcpy(c->key, key, key_len);
    c->key_len = key_len;
    c->bytes = bytes;
    c->convert = convert;
    c->one_way = one_way;
    int rc = convert(key, key_len, 1, w->data, c->data, threads, err);
    if (rc != KN_OK) {
        free_copy(c);
        return rc;
    }
    *out = c;
    return KN_OK;
}

int kn_weight_store_acquire_packed(kn_weight_store *ws, int32_t value, const void *key,
                                   size_t key_len, size_t packed_bytes,
                                   kn_weight_convert_fn convert, int one_way, int32_t threads,
                                   const void **packed, kn_err *err)
{
    *packed = NULL;
    raw_weight *w = weight_of(ws, value);
    if (!w)
        return kn_fail(err, KN_ERR_INTERNAL, "value %d is not a shared weight", (int)value);
    pthread_mutex_lock(&ws->lock);
    int rc = KN_OK;
    packed_copy *c = find_copy(w, key, key_len);
    if (!c) {
        rc = ensure_resident(ws, w, threads, err);
        if (rc == KN_OK) {
            drop_unused(w);
            rc = make_copy(w, key, key_len, packed_bytes, convert, one_way, threads, &c, err);
        }
        if (rc == KN_OK) {
            c->next = w->packed;
            w->packed = c;
        }
    }
    if (rc == KN_OK) {
        c->users++;
        *packed = c->data;
    }
    /* evict now rather than when the session is complete: the peak then
     * holds one weight twice at most, not the whole model */
    maybe_evict(ws, w);
    pthread_mutex_unlock(&ws->lock);
    return rc;
}

void kn_weight_store_release_packed(kn_weight_store *ws, const void *packed)
{
    if (!ws || !packed)
        return;
    pthread_mutex_lock(&ws->lock);
    for (int32_t i = 0; i < ws->n_weights; i++)
        for (packed_copy *c = ws->weights[i].packed; c; c = c->next)
            if (c->data == packed && c->users > 0) {
                c->users--; /* kept: the next plan reuses it, and it backs an eviction */
                goto done;
            }
done:
    pthread_mutex_unlock(&ws->lock);
}

int kn_weight_store_attach_file(kn_weight_store *ws, int fd, const char *path,
                                const kn_file_span *spans)
{
    if (!ws || fd < 0)
        return 0;
    char *name = strdup(path ? path : "?");
    if (!name)
        return 0; /* then the one-way weights just stay */
    int32_t found = 0;
    pthread_mutex_lock(&ws->lock);
    for (int32_t i = 0; i < ws->n_weights; i++) {
        raw_weight *w = &ws->weights[i];
        for (const kn_file_span *s = spans; w->may_evict && s; s = s->next)
            if (s->data == w->data && s->nbytes == (int64_t)w->nbytes) {
                w->file_offset = s->offset;
                found++;
                break;
            }
    }
    if (found) {
        ws->fd = fd;
        ws->path = name;
    } else {
        free(name);
    }
    pthread_mutex_unlock(&ws->lock);
    return found > 0;
}

void kn_weight_store_get_stats(kn_weight_store *ws, kn_weight_store_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!ws)
        return;
    pthread_mutex_lock(&ws->lock);
    out->n_shared = ws->n_weights;
    out->restores = ws->restores;
    out->device_uploads = ws->device_uploads;
    for (const device_copy *d = ws->devices; d; d = d->next) {
        out->n_device++;
        out->device_bytes += (int64_t)d->bytes;
    }
    for (int32_t i = 0; i < ws->n_weights; i++) {
        raw_weight *w = &ws->weights[i];
        out->n_evictable += w->may_evict;
        uintptr_t lo;
        size_t len;
        if (w->evicted && page_span(w, &lo, &len)) {
            out->n_evicted++;
            out->evicted_bytes += (int64_t)len;
        }
        out->n_packed_values += w->packed != NULL;
        int one_way = 0;
        for (packed_copy *c = w->packed; c; c = c->next) {
            out->n_packed++;
            out->packed_bytes += (int64_t)c->bytes;
            one_way |= c->one_way;
        }
        out->n_one_way += one_way;
    }
    pthread_mutex_unlock(&ws->lock);
}

/* ---- device copies -------------------------------------------------------- */

static device_copy *find_device_copy(kn_weight_store *ws, int32_t value, const void *key,
                                     size_t key_len, const kn_backend_memory *memory,
                                     void *device)
{
    for (device_copy *d = ws->devices; d; d = d->next)
        if (d->value == value && d->memory == memory && d->device == device &&
            d->key_len == key_len && (key_len == 0 || memcmp(d->key, key, key_len) == 0))
            return d;
    return NULL;
}

/* Copies host bytes to new device memory, waiting for the copy: uploads
 * happen while a plan is built, never during a run, so a stream of their
 * own keeps them out of every session's ordering. */
static int upload(const kn_backend_memory *memory, void *device, const void *src, size_t bytes,
                  void **out, kn_err *err)
{
    *out = memory->alloc(device, bytes ? bytes : 1, err);
    if (!*out)
        return err->code != KN_OK ? err->code
                                  : kn_fail(err, KN_ERR_OUT_OF_MEMORY, "cannot allocate %zu "
                                            "bytes of device memory for a weight", bytes);
    void *stream = memory->stream_create(device, err);
    int rc = stream ? KN_OK : (err->code != KN_OK ? err->code : KN_ERR_INTERNAL);
    if (rc == KN_OK && bytes)
        rc = memory->copy(device, *out, src, bytes, KN_COPY_TO_DEVICE, stream, err);
    if (rc == KN_OK)
        rc = memory->stream_sync(device, stream, err);
    if (stream)
        memory->stream_destroy(device, stream);
    if (rc != KN_OK) {
        memory->free(device, *out);
        *out = NULL;
    }
    return rc;
}

/* The host bytes to upload: the initializer's (made resident first when the
 * store shares and may have evicted it), converted when convert is given
 * (*scratch then owns the converted copy). */
static int device_source(kn_weight_store *ws, int32_t value, const void *key, size_t key_len,
                         size_t packed_bytes, kn_weight_convert_fn convert, int32_t threads,
                         const void **src, void **scratch, kn_err *err)
{
    *scratch = NULL;
    if (value < 0 || value >= ws->n_values || !ws->graph->values[value].is_initializer)
        return kn_fail(err, KN_ERR_INTERNAL, "value %d is not an initializer of the model",
                       (int)value);
    const kn_value *v = &ws->graph->values[value];
    raw_weight *w = weight_of(ws, value);
    int rc = w ? ensure_resident(ws, w, threads, err) : KN_OK;
    if (rc != KN_OK || !convert) {
        *src = v->init_data;
        return rc;
    }
    *scratch = kn_aligned_alloc(packed_bytes ? packed_bytes : 1);
    if (!*scratch)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory packing a weight for a device");
    rc = convert(key, key_len, 1, v->init_data, *scratch, threads, err);
    *src = *scratch;
    return rc;
}

int kn_weight_store_acquire_device(kn_weight_store *ws, int32_t value, const void *key,
                                   size_t key_len, size_t packed_bytes,
                                   kn_weight_convert_fn convert,
                                   const struct kn_backend_memory *memory, void *device,
                                   int32_t threads, void **device_ptr, kn_err *err)
{
    *device_ptr = NULL;
    if (!ws)
        return kn_fail(err, KN_ERR_INTERNAL, "no weight store for a device weight");
    pthread_mutex_lock(&ws->lock);
    device_copy *d = find_device_copy(ws, value, key, key_len, memory, device);
    int rc = KN_OK;
    if (!d) {
        const void *src = NULL;
        void *scratch = NULL, *ptr = NULL;
        size_t bytes = convert ? packed_bytes
                       : (value >= 0 && value < ws->n_values)
                           ? (size_t)ws->graph->values[value].init_nbytes
                           : 0;
        rc = device_source(ws, value, key, key_len, packed_bytes, convert, threads, &src,
                           &scratch, err);
        if (rc == KN_OK)
            rc = upload(memory, device, src, bytes, &ptr, err);
        kn_aligned_free(scratch);
        d = rc == KN_OK ? calloc(1, sizeof *d) : NULL;
        if (d && key_len && !(d->key = malloc(key_len))) {
            free(d);
            d = NULL;
        }
        if (rc == KN_OK && !d) {
            memory->free(device, ptr);
            rc = kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory keeping a device weight");
        }
        if (d) {
            if (key_len)
                memcpy(d->key, key, key_len);
            *d = (device_copy){.next = ws->devices, .value = value, .key = d->key,
                               .key_len = key_len, .memory = memory, .device = device,
                               .ptr = ptr, .bytes = bytes};
            ws->devices = d;
            ws->device_uploads++;
        }
    }
    if (rc == KN_OK) {
        d->users++;
        *device_ptr = d->ptr;
    }
    pthread_mutex_unlock(&ws->lock);
    return rc;
}

/* The copy stays when its last plan goes (the next session or plan on the
 * device reuses it); the store frees it with the model. */
void kn_weight_store_release_device(kn_weight_store *ws, const void *device_ptr)
{
    if (!ws || !device_ptr)
        return;
    pthread_mutex_lock(&ws->lock);
    for (device_copy *d = ws->devices; d; d = d->next)
        if (d->ptr == device_ptr && d->users > 0) {
            d->users--;
            break;
        }
    pthread_mutex_unlock(&ws->lock);
}
