#include "served_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Per worker: its session and the buffers a merged run's inputs are
 * gathered in (grown to the largest batch seen, then reused). */
typedef struct {
    sv_model *model;
    kiln_session *session;
    void **gather;
    size_t *gather_cap;
} sv_worker;

static void last_error(char *buf, size_t cap)
{
    kiln_last_error(buf, (int32_t)cap);
}

/* The name, dtype and declared shape of each input (or output). */
static int read_io(sv_model *m, int inputs, char *err, size_t cap)
{
    int32_t n = 0;
    (inputs ? kiln_model_input_count : kiln_model_output_count)(m->model, &n);
    sv_io *io = calloc((size_t)n + 1, sizeof *io);
    if (!io)
        return -1;
    for (int32_t i = 0; i < n; i++) {
        int32_t needed = 0;
        char name[1024];
        int32_t st = inputs ? kiln_model_input_name(m->model, i, name, sizeof name, &needed)
                            : kiln_model_output_name(m->model, i, name, sizeof name, &needed);
        io[i].name = strdup(st == KILN_OK ? name : "?");
        (inputs ? kiln_model_input_dtype : kiln_model_output_dtype)(m->model, i, &io[i].dtype);
        st = (inputs ? kiln_model_input_shape : kiln_model_output_shape)(
            m->model, i, io[i].dims, SV_MAX_RANK, &io[i].rank);
        if (st == KILN_ERR_BUFFER_TOO_SMALL) {
            snprintf(err, cap, "%s '%s' has rank %d; the server takes at most %d",
                     inputs ? "input" : "output", io[i].name, (int)io[i].rank, SV_MAX_RANK);
            io[i].rank = -1;
        }
    }
    if (inputs) {
        m->inputs = io;
        m->input_count = n;
    } else {
        m->outputs = io;
        m->output_count = n;
    }
    return 0;
}

static void *worker_main(void *arg);

static kiln_options *options_with(int32_t key, int32_t value, int32_t key2, int32_t value2)
{
    kiln_options *o = NULL;
    if (kiln_options_create(&o) != KILN_OK)
        return NULL;
    kiln_options_set_int(o, key, value);
    if (key2)
        kiln_options_set_int(o, key2, value2);
    return o;
}

sv_model *sv_model_load(const char *path, const char *name, const char *version,
                        const sv_model_settings *settings, char *err, size_t cap)
{
    sv_model *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    m->name = strdup(name);
    m->version = strdup(version);
    m->version_number = strtoll(version, NULL, 10);
    m->settings = *settings;
    sv_model_metrics_init(&m->metrics);
    pthread_mutex_init(&m->lock, NULL);
    sv_cond_init(&m->work);
    err[0] = '\0';

    kiln_options *ro = options_with(KILN_OPT_THREADS, settings->threads, 0, 0);
    if (kiln_runtime_create(ro, &m->runtime) != KILN_OK) {
        last_error(err, cap);
        goto fail;
    }
    if (kiln_model_load_file(m->runtime, path, NULL, &m->model) != KILN_OK) {
        last_error(err, cap);
        goto fail;
    }
    if (read_io(m, 1, err, cap) != 0 || read_io(m, 0, err, cap) != 0 || err[0])
        goto fail;
    m->batchable = m->input_count > 0;
    for (int32_t i = 0; i < m->input_count; i++)
        if (m->inputs[i].rank < 1 || m->inputs[i].dims[0] != -1 ||
            m->inputs[i].dtype == KILN_DTYPE_STRING)
            m->batchable = 0;

    m->workers = calloc((size_t)settings->instances, sizeof *m->workers);
    if (!m->workers)
        goto fail;
    for (int32_t w = 0; w < settings->instances; w++) {
        sv_worker *wk = calloc(1, sizeof *wk);
        kiln_options *so = options_with(KILN_OPT_PRECISION, settings->precision, 0, 0);
        int32_t st = wk ? kiln_session_create(m->model, so, &wk->session) : KILN_ERR_OUT_OF_MEMORY;
        kiln_options_destroy(so);
        if (st != KILN_OK) {
            if (wk)
                last_error(err, cap);
            else
                snprintf(err, cap, "out of memory");
            free(wk);
            goto fail;
        }
        wk->model = m;
        wk->gather = calloc((size_t)m->input_count + 1, sizeof *wk->gather);
        wk->gather_cap = calloc((size_t)m->input_count + 1, sizeof *wk->gather_cap);
        if (!wk->gather || !wk->gather_cap ||
            pthread_create(&m->workers[w], NULL, worker_main, wk) != 0) {
            snprintf(err, cap, "could not start a worker thread");
            kiln_session_destroy(wk->session);
            free(wk->gather);
            free(wk->gather_cap);
            free(wk);
            goto fail;
        }
        m->worker_count++;
    }
    kiln_options_destroy(ro);
    return m;
fail:
    kiln_options_destroy(ro);
    if (!err[0])
        snprintf(err, cap, "out of memory");
    sv_model_destroy(m);
    return NULL;
}

int64_t sv_model_backlog(sv_model *m)
{
    pthread_mutex_lock(&m->lock);
    int64_t n = m->queued + m->running;
    pthread_mutex_unlock(&m->lock);
    return n;
}

int sv_model_submit(sv_model *m, sv_request *r)
{
    atomic_fetch_add_explicit(&m->metrics.requests, 1, memory_order_relaxed);
    pthread_mutex_lock(&m->lock);
    int refused = 0;
    if (m->stopping) {
        sv_request_fail(r, 503, "model '%s' version %s is being unloaded", m->name, m->version);
        refused = 503;
    } else if (m->queued >= m->settings.queue_capacity) {
        sv_request_fail(r, 503, "model '%s' has %lld requests queued, its limit; try again later",
                        m->name, (long long)m->queued);
        refused = 503;
    } else {
        r->state = SV_QUEUED;
        r->t_queued = sv_now();
        r->deadline = r->t_queued + m->settings.timeout_ms * 1e-3;
        r->next = NULL;
        if (m->tail)
            m->tail->next = r;
        else
            m->head = r;
        m->tail = r;
        m->queued++;
        pthread_cond_signal(&m->work);
    }
    pthread_mutex_unlock(&m->lock);
    if (refused)
        atomic_fetch_add_explicit(&m->metrics.failures, 1, memory_order_relaxed);
    return refused;
}

/* Takes r off the queue; the lock is held. */
static void unlink_request(sv_model *m, sv_request *r)
{
    sv_request **p = &m->head, *prev = NULL;
    while (*p && *p != r) {
        prev = *p;
        p = &(*p)->next;
    }
    if (!*p)
        return;
    *p = r->next;
    if (m->tail == r)
        m->tail = prev;
    m->queued--;
}

static struct timespec abs_time(double monotonic_seconds)
{
    struct timespec ts;
    ts.tv_sec = (time_t)monotonic_seconds;
    ts.tv_nsec = (long)((monotonic_seconds - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

void sv_model_wait(sv_model *m, sv_request *r)
{
    pthread_mutex_lock(&m->lock);
    while (r->state != SV_DONE) {
        if (r->state == SV_QUEUED && sv_now() >= r->deadline) {
            unlink_request(m, r);
            r->state = SV_DONE;
            sv_request_fail(r, 503, "timed out after %d ms in model '%s''s queue",
                            (int)m->settings.timeout_ms, m->name);
            atomic_fetch_add_explicit(&m->metrics.failures, 1, memory_order_relaxed);
            break;
        }
        if (r->state == SV_QUEUED) {
            struct timespec ts = abs_time(r->deadline);
            pthread_cond_timedwait(&r->done, &m->lock, &ts);
        } else {
            pthread_cond_wait(&r->done, &m->lock);
        }
    }
    pthread_mutex_unlock(&m->lock);
}

/* ---- running requests (worker side; the queue lock is not held) ---- */

static int status_to_http(int32_t st)
{
    switch (st) {
    case KILN_ERR_INVALID_ARGUMENT: case KILN_ERR_SHAPE: case KILN_ERR_DTYPE:
    case KILN_ERR_NOT_FOUND: case KILN_ERR_STATE: case KILN_ERR_UNSUPPORTED:
    case KILN_ERR_LIMIT:
        return 400;
    case KILN_ERR_CANCELLED: return 503;
    default: return 500;
    }
}

static void fail_from_kiln(sv_request *r, int32_t st, const char *what)
{
    char msg[400];
    kiln_last_error(msg, sizeof msg);
    sv_request_fail(r, status_to_http(st), "%s: %s", what, msg);
}

/* Copies the wanted outputs of the session's last run, rows [row, row +
 * rows) of `total` (all of them when total is 0), into r. */
static int32_t take_outputs(sv_model *m, kiln_session *s, sv_request *r, int64_t row,
                            int64_t rows, int64_t total)
{
    for (int32_t o = 0; o < m->output_count; o++) {
        if (!r->output_wanted[o])
            continue;
        sv_tensor *t = &r->outputs[o];
        int32_t st = kiln_session_output_info(s, o, &t->dtype, t->dims, SV_MAX_RANK, &t->rank);
        if (st == KILN_ERR_DTYPE || (st == KILN_OK && t->dtype == KILN_DTYPE_STRING)) {
            kiln_tensor *value = NULL;
            st = kiln_session_output_value(s, o, &value);
            if (st != KILN_OK)
                return st;
            int32_t kind = 0;
            kiln_tensor_kind(value, &kind);
            if (kind != KILN_KIND_TENSOR) {
                kiln_tensor_destroy(value);
                sv_request_fail(r, 400, "output '%s' is a sequence or optional, which the "
                                "protocol cannot carry", m->outputs[o].name);
                return KILN_ERR_UNSUPPORTED;
            }
            kiln_tensor_info(value, &t->dtype, t->dims, SV_MAX_RANK, &t->rank);
            t->strings = value;
            continue;
        }
        if (st != KILN_OK)
            return st;
        const void *view = NULL;
        size_t nbytes = 0;
        if ((st = kiln_session_output_view(s, o, &view, &nbytes)) != KILN_OK)
            return st;
        size_t offset = 0;
        if (total > 0) {
            size_t row_bytes = nbytes / (size_t)total;
            offset = row_bytes * (size_t)row;
            nbytes = row_bytes * (size_t)rows;
            t->dims[0] = rows;
        }
        t->data = malloc(nbytes ? nbytes : 1);
        if (!t->data)
            return KILN_ERR_OUT_OF_MEMORY;
        memcpy(t->data, (const char *)view + offset, nbytes);
        t->nbytes = nbytes;
    }
    return KILN_OK;
}

static void run_one(sv_worker *w, sv_request *r)
{
    sv_model *m = w->model;
    for (int32_t i = 0; i < m->input_count; i++) {
        const sv_tensor *t = &r->inputs[i];
        int32_t st = t->strings ? kiln_session_set_input_value(w->session, i, t->strings)
                                : kiln_session_set_input_at(w->session, i, t->dtype, t->dims,
                                                            t->rank, t->data, t->nbytes, 0);
        if (st != KILN_OK) {
            fail_from_kiln(r, st, m->inputs[i].name);
            return;
        }
    }
    r->t_started = sv_now();
    int32_t st = kiln_session_run(w->session);
    r->t_finished = sv_now();
    r->batch_size = (int32_t)(r->batch > 0 ? r->batch : 1);
    if (st != KILN_OK) {
        fail_from_kiln(r, st, "run");
        return;
    }
    st = take_outputs(m, w->session, r, 0, 0, 0);
    if (st != KILN_OK && r->http_status == 200)
        fail_from_kiln(r, st, "reading outputs");
}

/* A merged run: inputs gathered row-wise, outputs split back by rows.
 * Returns 0 when it served every request; -1 when the outputs could not be
 * split by rows (the requests then run one by one). */
static int run_merged(sv_worker *w, sv_request **batch, int n, int64_t total)
{
    sv_model *m = w->model;
    for (int32_t i = 0; i < m->input_count; i++) {
        size_t bytes = 0;
        for (int k = 0; k < n; k++)
            bytes += batch[k]->inputs[i].nbytes;
        if (bytes > w->gather_cap[i]) {
            void *grown = realloc(w->gather[i], bytes);
            if (!grown)
                return -1;
            w->gather[i] = grown;
            w->gather_cap[i] = bytes;
        }
        size_t at = 0;
        for (int k = 0; k < n; k++) {
            memcpy((char *)w->gather[i] + at, batch[k]->inputs[i].data,
                   batch[k]->inputs[i].nbytes);
            at += batch[k]->inputs[i].nbytes;
        }
        const sv_tensor *t = &batch[0]->inputs[i];
        int64_t dims[SV_MAX_RANK];
        memcpy(dims, t->dims, sizeof dims);
        dims[0] = total;
        if (kiln_session_set_input_at(w->session, i, t->dtype, dims, t->rank, w->gather[i],
                                      bytes, 0) != KILN_OK)
            return -1;
    }
    double start = sv_now();
    int32_t st = kiln_session_run(w->session);
    double end = sv_now();
    if (st != KILN_OK)
        return -1; /* one by one: each request then gets its own error */
    for (int32_t o = 0; o < m->output_count; o++) {
        int32_t dtype = 0, rank = 0;
        int64_t dims[SV_MAX_RANK];
        if (kiln_session_output_info(w->session, o, &dtype, dims, SV_MAX_RANK, &rank) != KILN_OK ||
            rank < 1 || dims[0] != total || dtype == KILN_DTYPE_STRING)
            return -1;
    }
    int64_t row = 0;
    for (int k = 0; k < n; k++) {
        sv_request *r = batch[k];
        r->t_started = start;
        r->t_finished = end;
        r->batch_size = (int32_t)total;
        st = take_outputs(m, w->session, r, row, r->batch, total);
        if (st != KILN_OK && r->http_status == 200)
            fail_from_kiln(r, st, "reading outputs");
        row += r->batch;
    }
    return 0;
}

/* Can `r` share a run with `first`: same dtypes and the same dims after the
 * first, and the rows fit? */
static int mergeable(const sv_model *m, const sv_request *first, const sv_request *r,
                     int64_t rows_so_far)
{
    if (r->batch < 1 || rows_so_far + r->batch > m->settings.max_batch_size)
        return 0;
    for (int32_t i = 0; i < m->input_count; i++) {
        const sv_tensor *a = &first->inputs[i], *b = &r->inputs[i];
        if (a->dtype != b->dtype || a->rank != b->rank || a->strings || b->strings)
            return 0;
        for (int32_t d = 1; d < a->rank; d++)
            if (a->dims[d] != b->dims[d])
                return 0;
    }
    return 1;
}

static void finish(sv_model *m, sv_request *r)
{
    if (r->http_status != 200) {
        atomic_fetch_add_explicit(&m->metrics.failures, 1, memory_order_relaxed);
    } else {
        sv_histogram_observe(&m->metrics.queue_seconds, r->t_started - r->t_queued);
        sv_histogram_observe(&m->metrics.compute_seconds, r->t_finished - r->t_started);
        sv_histogram_observe(&m->metrics.batch_size, r->batch_size);
    }
    r->state = SV_DONE;
    pthread_cond_signal(&r->done);
}

static void *worker_main(void *arg)
{
    sv_worker *w = arg;
    sv_model *m = w->model;
    int cap = m->settings.max_batch_size > 1 ? m->settings.max_batch_size : 1;
    sv_request *single[1];
    sv_request **batch = calloc((size_t)cap, sizeof *batch);
    if (!batch) { /* still serve, one request per run */
        batch = single;
        cap = 1;
    }
    pthread_mutex_lock(&m->lock);
    for (;;) {
        while (!m->head && !m->stopping)
            pthread_cond_wait(&m->work, &m->lock);
        if (!m->head)
            break; /* stopping, and the queue is empty */
        sv_request *first = m->head;
        unlink_request(m, first);
        first->state = SV_RUNNING; /* from here on, its handler waits for the result */
        m->running++;
        int n = 1;
        batch[0] = first;
        int64_t rows = first->batch;
        if (m->batchable && cap > 1 && first->batch >= 1) {
            /* Wait a little for requests to merge with, in arrival order;
             * an unmergeable one at the head ends the batch (FIFO). */
            double until = sv_now() + m->settings.max_queue_delay_us * 1e-6;
            while (n < cap && rows < m->settings.max_batch_size) {
                sv_request *next = m->head;
                if (next) {
                    if (!mergeable(m, first, next, rows))
                        break;
                    unlink_request(m, next);
                    next->state = SV_RUNNING;
                    m->running++;
                    batch[n++] = next;
                    rows += next->batch;
                    continue;
                }
                if (m->stopping || sv_now() >= until)
                    break;
                struct timespec ts = abs_time(until);
                pthread_cond_timedwait(&m->work, &m->lock, &ts);
            }
        }
        pthread_mutex_unlock(&m->lock);

        if (n == 1 || run_merged(w, batch, n, rows) != 0)
            for (int k = 0; k < n; k++)
                run_one(w, batch[k]);

        pthread_mutex_lock(&m->lock);
        m->running -= n;
        for (int k = 0; k < n; k++)
            finish(m, batch[k]);
        /* Another worker may be waiting for work that this one left queued
         * while it gathered; pass the signal on. */
        if (m->head)
            pthread_cond_signal(&m->work);
    }
    pthread_mutex_unlock(&m->lock);
    if (batch != single)
        free(batch);
    kiln_session_destroy(w->session);
    for (int32_t i = 0; i < m->input_count; i++)
        free(w->gather[i]);
    free(w->gather);
    free(w->gather_cap);
    free(w);
    return NULL;
}

void sv_model_destroy(sv_model *m)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->lock);
    m->stopping = 1;
    pthread_cond_broadcast(&m->work);
    pthread_mutex_unlock(&m->lock);
    for (int32_t w = 0; w < m->worker_count; w++)
        pthread_join(m->workers[w], NULL);
    free(m->workers);
    kiln_model_destroy(m->model);
    kiln_runtime_destroy(m->runtime);
    for (int32_t i = 0; i < m->input_count; i++)
        free(m->inputs[i].name);
    for (int32_t i = 0; i < m->output_count; i++)
        free(m->outputs[i].name);
    free(m->inputs);
    free(m->outputs);
    pthread_mutex_destroy(&m->lock);
    pthread_cond_destroy(&m->work);
    free(m->name);
    free(m->version);
    free(m);
}
