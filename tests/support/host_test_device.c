/* The "testdev" test double (host_test_device.h says what it is). Counters
 * are plain globals: the tests drive it from one thread. */
#include "host_test_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

static kt_testdev_counts counts;
static int available = 1;
static int kernels_to_fail;

void kt_testdev_reset(void)
{
    memset(&counts, 0, sizeof counts);
    available = 1;
    kernels_to_fail = 0;
}

void kt_testdev_fail_kernels(int n) { kernels_to_fail = n; }

kt_testdev_counts kt_testdev_counts_now(void) { return counts; }

void kt_testdev_set_available(int a) { available = a; }

static int probe(void)
{
    counts.probes++;
    return available;
}

/* ---- address spaces ---- */

static int is_device(const void *p) { return (uintptr_t)p >= KT_TESTDEV_OFFSET; }
static void *to_device(void *host) { return (void *)((uintptr_t)host + KT_TESTDEV_OFFSET); }
static void *to_host(const void *dev) { return (void *)((uintptr_t)dev - KT_TESTDEV_OFFSET); }

typedef struct testdev {
    int32_t index;
} testdev;

static void *dev_open(int32_t index, kn_err *err)
{
    if (index < 0 || index > 1) {
        kn_fail(err, KN_ERR_NOT_FOUND, "testdev: no device %d (there are 2: 0 and 1)", (int)index);
        return NULL;
    }
    testdev *d = calloc(1, sizeof *d);
    if (!d) {
        kn_fail(err, KN_ERR_OUT_OF_MEMORY, "testdev: out of memory");
        return NULL;
    }
    d->index = index;
    counts.opens++;
    return d;
}

static void dev_close(void *dev)
{
    if (!dev)
        return;
    counts.closes++;
    free(dev);
}

static void *dev_alloc(void *dev, size_t bytes, kn_err *err)
{
    (void)dev;
    size_t rounded = (bytes + 255) & ~(size_t)255;
    void *p = aligned_alloc(256, rounded ? rounded : 256);
    if (!p) {
        kn_fail(err, KN_ERR_OUT_OF_MEMORY, "testdev: cannot allocate %zu bytes", bytes);
        return NULL;
    }
    counts.allocs++;
    counts.live_allocs++;
    counts.live_bytes += (int64_t)rounded;
    /* garbage, as fresh device memory is: a read before a write shows */
    memset(p, 0xA5, rounded ? rounded : 256);
    return to_device(p);
}

static void dev_free(void *dev, void *ptr)
{
    (void)dev;
    if (!ptr)
        return;
    counts.frees++;
    counts.live_allocs--;
    free(to_host(ptr));
}

/* ---- streams: a queue of deferred work ---- */

typedef struct work work;
typedef void (*work_fn)(const work *w);
struct work {
    work_fn fn;
    void *p[4]; /* device pointers (a copy's host side is a host pointer) */
    int64_t n[4];
    float f[2];
};

/* Fixed: a stream never allocates while a session runs. */
enum { QUEUE_CAP = 4096 };

typedef struct stream {
    work q[QUEUE_CAP];
    int32_t n;
    /* Between graph_begin and graph_end work goes here instead of q: it
     * is recorded, not run. */
    int capturing;
    work cap[QUEUE_CAP];
    int32_t n_cap;
} stream;

/* An "executable graph": the recorded work, replayed by queueing it again. */
typedef struct graph {
    int32_t n;
    work q[];
} graph;

static void *stream_create(void *dev, kn_err *err)
{
    (void)dev;
    stream *s = calloc(1, sizeof *s);
    if (!s)
        kn_fail(err, KN_ERR_OUT_OF_MEMORY, "testdev: out of memory");
    else
        counts.streams_live++;
    return s;
}

static int stream_sync(void *dev, void *st, kn_err *err)
{
    (void)dev;
    stream *s = st;
    /* As on a real device: waiting for a stream that is recording is an
     * error, not a silent no-op that would hide a sync inside a capture. */
    if (s->capturing)
        return kn_fail(err, KN_ERR_INTERNAL, "testdev: stream_sync while capturing a graph");
    for (int32_t i = 0; i < s->n; i++)
        s->q[i].fn(&s->q[i]);
    counts.queued -= s->n;
    s->n = 0;
    counts.syncs++;
    return KN_OK;
}

static void stream_destroy(void *dev, void *st)
{
    if (!st)
        return;
    ((stream *)st)->capturing = 0;
    stream_sync(dev, st, NULL);
    counts.streams_live--;
    free(st);
}

static int enqueue(void *st, work w, kn_err *err)
{
    stream *s = st;
    if (!s)
        return kn_fail(err, KN_ERR_INTERNAL, "testdev: work queued without a stream");
    if (s->capturing) {
        if (s->n_cap == QUEUE_CAP)
            return kn_fail(err, KN_ERR_LIMIT, "testdev: more than %d operations captured",
                           QUEUE_CAP);
        s->cap[s->n_cap++] = w;
        return KN_OK;
    }
    if (s->n == QUEUE_CAP)
        return kn_fail(err, KN_ERR_LIMIT,
                       "testdev: more than %d operations queued without "
                       "a sync",
                       QUEUE_CAP);
    s->q[s->n++] = w;
    counts.queued++;
    return KN_OK;
}

/* Every pointer must be on the side the operation says: the engine handing
 * a host pointer to the device (or back) is the bug this double exists
 * to catch. */
static int check_side(const void *p, int want_device, const char *what, kn_err *err)
{
    if (p && is_device(p) != want_device)
        return kn_fail(err, KN_ERR_INTERNAL, "testdev: %s is %s memory, expected %s memory", what,
                       is_device(p) ? "device" : "host", want_device ? "device" : "host");
    return KN_OK;
}

static void run_copy(const work *w)
{
    void *dst = w->n[1] == KN_COPY_TO_HOST ? w->p[0] : to_host(w->p[0]);
    const void *src = w->n[1] == KN_COPY_TO_DEVICE ? w->p[1] : to_host(w->p[1]);
    memmove(dst, src, (size_t)w->n[0]);
}

static int dev_copy(void *dev, void *dst, const void *src, size_t bytes, int32_t direction,
                    void *st, kn_err *err)
{
    (void)dev;
    int rc = check_side(dst, direction != KN_COPY_TO_HOST, "copy destination", err);
    if (rc == KN_OK)
        rc = check_side(src, direction != KN_COPY_TO_DEVICE, "copy source", err);
    if (rc != KN_OK)
        return rc;
    counts.copies_to_device += direction == KN_COPY_TO_DEVICE;
    counts.copies_to_host += direction == KN_COPY_TO_HOST;
    counts.copies_on_device += direction == KN_COPY_ON_DEVICE;
    return enqueue(
        st, (work){.fn = run_copy, .p = {dst, (void *)src}, .n = {(int64_t)bytes, direction}}, err);
}

/* ---- captured graphs ---- */

static int graph_begin(void *dev, void *st, kn_err *err)
{
    (void)dev;
    stream *s = st;
    if (s->capturing)
        return kn_fail(err, KN_ERR_INTERNAL, "testdev: graph_begin while already capturing");
    s->capturing = 1;
    s->n_cap = 0;
    return KN_OK;
}

static int graph_end(void *dev, void *st, void **out, kn_err *err)
{
    (void)dev;
    stream *s = st;
    *out = NULL;
    if (!s->capturing)
        return kn_fail(err, KN_ERR_INTERNAL, "testdev: graph_end without graph_begin");
    s->capturing = 0;
    graph *g = malloc(sizeof *g + (size_t)s->n_cap * sizeof(work));
    if (!g)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "testdev: out of memory");
    g->n = s->n_cap;
    memcpy(g->q, s->cap, (size_t)s->n_cap * sizeof(work));
    counts.graphs_captured++;
    counts.graphs_live++;
    *out = g;
    return KN_OK;
}

static int graph_launch(void *dev, void *gr, void *st, kn_err *err)
{
    (void)dev;
    const graph *g = gr;
    for (int32_t i = 0; i < g->n; i++) {
        int rc = enqueue(st, g->q[i], err);
        if (rc != KN_OK)
            return rc;
    }
    counts.graph_launches++;
    return KN_OK;
}

static void graph_destroy(void *dev, void *gr)
{
    (void)dev;
    if (!gr)
        return;
    counts.graphs_live--;
    free(gr);
}

static const char *describe(void *dev)
{
    return ((testdev *)dev)->index == 0 ? "testdev 0 (host memory, test double)"
                                        : "testdev 1 (host memory, test double)";
}

/* ---- kernels ---- */

/* The contract: a device kernel declines when it was not given a device. */
static int need_device(kn_kctx *k)
{
    if (!k->device || !k->stream)
        return kn_fail(k->err, KN_ERR_DECLINE, "testdev: no device");
    return KN_OK;
}

/* Queues fn over the kernel's device pointers, checked to be device memory. */
static int queue_kernel(kn_kctx *k, work w)
{
    for (int i = 0; i < 4; i++) {
        int rc = check_side(w.p[i], 1, "a kernel's tensor", k->err);
        if (rc != KN_OK)
            return rc;
    }
    if (kernels_to_fail > 0) {
        kernels_to_fail--;
        return kn_fail(k->err, KN_ERR_INTERNAL, "testdev: kernel failed as the test asked");
    }
    counts.kernels_run++;
    return enqueue(k->stream, w, k->err);
}

static void relu_work(const work *w)
{
    const float *x = to_host(w->p[0]);
    float *y = to_host(w->p[1]);
    for (int64_t i = 0; i < w->n[0]; i++)
        y[i] = x[i] > 0 ? x[i] : 0.0f;
}

static int relu_prepare(kn_kctx *k)
{
    int rc = need_device(k);
    if (rc == KN_OK)
        kn_copy_desc(k->out[0], k->in[0]);
    return rc;
}

static int relu_run(kn_kctx *k)
{
    return queue_kernel(k, (work){.fn = relu_work,
                                  .p = {k->in[0]->data, k->out[0]->data},
                                  .n = {kn_tensor_numel(k->in[0])}});
}

/* y = a + b, b repeated every n[1] elements of a (n[1] = numel: same shape). */
static void add_work(const work *w)
{
    const float *a = to_host(w->p[0]), *b = to_host(w->p[1]);
    float *y = to_host(w->p[2]);
    for (int64_t i = 0; i < w->n[0]; i++)
        y[i] = a[i] + b[i % w->n[1]];
}

static int add_prepare(kn_kctx *k)
{
    int rc = need_device(k);
    if (rc != KN_OK)
        return rc;
    const kn_tensor *a = k->in[0], *b = k->in[1];
    int64_t na = kn_tensor_numel(a), nb = kn_tensor_numel(b);
    int same = kn_shape_equal(a->dims, a->rank, b->dims, b->rank);
    int row = a->rank >= 1 && b->rank == 1 && b->dims[0] == a->dims[a->rank - 1];
    if (b->dtype != KN_FLOAT || nb == 0 || !(same || row) || na % nb != 0)
        return kn_fail(k->err, KN_ERR_DECLINE, "testdev: Add of these shapes");
    kn_copy_desc(k->out[0], a);
    return KN_OK;
}

static int add_run(kn_kctx *k)
{
    return queue_kernel(k, (work){.fn = add_work,
                                  .p = {k->in[0]->data, k->in[1]->data, k->out[0]->data},
                                  .n = {kn_tensor_numel(k->in[0]), kn_tensor_numel(k->in[1])}});
}

/* Y[M,N] = alpha * A[M,K] B + beta * C, B [K,N] or (transB) [N,K], C none,
 * [N] or [M,N] (n[4]... in f and n: M, K, N, transB | C kind << 1). */
static void gemm_work(const work *w)
{
    const float *a = to_host(w->p[0]), *b = to_host(w->p[1]);
    const float *c = w->p[2] ? to_host(w->p[2]) : NULL;
    float *y = to_host(w->p[3]);
    int64_t m = w->n[0], kk = w->n[1], n = w->n[2], trans_b = w->n[3] & 1, c_kind = w->n[3] >> 1;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0;
            for (int64_t t = 0; t < kk; t++)
                acc += (double)a[i * kk + t] * b[trans_b ? j * kk + t : t * n + j];
            float bias = c_kind == 1 ? c[j] : c_kind == 2 ? c[i * n + j] : 0.0f;
            y[i * n + j] = w->f[0] * (float)acc + w->f[1] * bias;
        }
}

static int matmul_shapes(kn_kctx *k, int trans_b, int64_t *m, int64_t *kk, int64_t *n)
{
    const kn_tensor *a = k->in[0], *b = k->in[1];
    if (a->rank != 2 || b->rank != 2 || b->dtype != KN_FLOAT)
        return kn_fail(k->err, KN_ERR_DECLINE, "testdev: only 2-D float products");
    *m = a->dims[0];
    *kk = a->dims[1];
    *n = trans_b ? b->dims[0] : b->dims[1];
    if ((trans_b ? b->dims[1] : b->dims[0]) != *kk)
        return kn_fail(k->err, KN_ERR_SHAPE, "testdev: inner dimensions differ");
    k->out[0]->dtype = KN_FLOAT;
    k->out[0]->rank = 2;
    k->out[0]->dims[0] = *m;
    k->out[0]->dims[1] = *n;
    return KN_OK;
}

static int matmul_prepare(kn_kctx *k)
{
    int64_t m = 0, kk = 0, n = 0;
    int rc = need_device(k);
    return rc != KN_OK ? rc : matmul_shapes(k, 0, &m, &kk, &n);
}

static int matmul_run(kn_kctx *k)
{
    const kn_tensor *a = k->in[0], *b = k->in[1];
    return queue_kernel(k, (work){.fn = gemm_work,
                                  .p = {a->data, b->data, NULL, k->out[0]->data},
                                  .n = {a->dims[0], a->dims[1], b->dims[1], 0},
                                  .f = {1.0f, 0.0f}});
}

static int gemm_c_kind(const kn_kctx *k, int64_t m, int64_t n)
{
    const kn_tensor *c = k->n_in > 2 ? k->in[2] : NULL;
    if (!c)
        return 0;
    if (c->dtype == KN_FLOAT && kn_tensor_numel(c) == n && c->dims[c->rank - 1] == n)
        return 1;
    if (c->dtype == KN_FLOAT && c->rank == 2 && c->dims[0] == m && c->dims[1] == n)
        return 2;
    return -1;
}

static int gemm_prepare(kn_kctx *k)
{
    int64_t m = 0, kk = 0, n = 0;
    int rc = need_device(k);
    if (rc != KN_OK)
        return rc;
    if (kn_attr_int(k->node, "transA", 0) != 0)
        return kn_fail(k->err, KN_ERR_DECLINE, "testdev: Gemm with transA");
    rc = matmul_shapes(k, kn_attr_int(k->node, "transB", 0) != 0, &m, &kk, &n);
    if (rc == KN_OK && gemm_c_kind(k, m, n) < 0)
        return kn_fail(k->err, KN_ERR_DECLINE, "testdev: Gemm's C of this shape");
    return rc;
}

static int gemm_run(kn_kctx *k)
{
    const kn_tensor *a = k->in[0], *b = k->in[1];
    int trans_b = kn_attr_int(k->node, "transB", 0) != 0;
    int64_t m = a->dims[0], n = trans_b ? b->dims[0] : b->dims[1];
    int c_kind = gemm_c_kind(k, m, n);
    return queue_kernel(
        k,
        (work){.fn = gemm_work,
               .p = {a->data, b->data, c_kind ? k->in[2]->data : NULL, k->out[0]->data},
               .n = {m, a->dims[1], n, trans_b | (c_kind << 1)},
               .f = {kn_attr_float(k->node, "alpha", 1.0f), kn_attr_float(k->node, "beta", 1.0f)}});
}

static const kn_op_def relu = {.op_type = "Relu",
                               .since_version = 6,
                               .dtypes = KN_BIT(KN_FLOAT),
                               .prepare = relu_prepare,
                               .run = relu_run};
static const kn_op_def add = {.op_type = "Add",
                              .since_version = 7,
                              .dtypes = KN_BIT(KN_FLOAT),
                              .prepare = add_prepare,
                              .run = add_run};
static const kn_op_def matmul = {.op_type = "MatMul",
                                 .since_version = 9,
                                 .dtypes = KN_BIT(KN_FLOAT),
                                 .prepare = matmul_prepare,
                                 .run = matmul_run};
static const kn_op_def gemm = {.op_type = "Gemm",
                               .since_version = 11,
                               .dtypes = KN_BIT(KN_FLOAT),
                               .prepare = gemm_prepare,
                               .run = gemm_run};
static const kn_op_def *const kernels[] = {&relu, &add, &matmul, &gemm, NULL};
static const kn_op_def *const *const tables[] = {kernels, NULL};

const kn_backend kt_host_test_device = {
    .name = "testdev",
    .available = probe,
    .kernel_tables = tables,
    .memory = {.kind = KN_MEMORY_DEVICE,
               .open = dev_open,
               .close = dev_close,
               .alloc = dev_alloc,
               .free = dev_free,
               .copy = dev_copy,
               .stream_create = stream_create,
               .stream_destroy = stream_destroy,
               .stream_sync = stream_sync,
               .describe = describe,
               .graph_begin = graph_begin,
               .graph_end = graph_end,
               .graph_launch = graph_launch,
               .graph_destroy = graph_destroy},
    .flags = KN_BACKEND_OPT_IN,
};
