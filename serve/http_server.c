#include "http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "byte_buffer.h"
#include "metrics.h"
#include "request.h"
#include "v2_decode.h"
#include "v2_encode.h"

/* Per connection: a token bucket for --rate-limit, and what the watchdog
 * needs to close a connection whose request does not arrive in time. */
typedef struct connection_state {
    double tokens, refilled_at;
    int fd;
    double waiting_since; /* since the last answer (or the connection's start) */
    int busy;             /* a complete request is being answered */
    int shut;
    struct connection_state *prev, *next;
} connection_state;

struct sv_http {
    const sv_options *options;
    sv_repository *repo;
    struct MHD_Daemon *daemon;
    atomic_int draining;
    _Atomic int64_t active;
    int port;
    /* The library's connection timeout is an idle timeout that every byte
     * resets, so a client trickling its headers or body holds a connection
     * (and its thread) forever. The watchdog shuts down any connection that
     * has not delivered a whole request within --connection-timeout-s. */
    pthread_mutex_t connections_lock;
    pthread_cond_t watchdog_wake;
    connection_state *connections;
    int stopping;
    pthread_t watchdog;
    int watchdog_started;
};

/* Per HTTP request: the body as it arrives, or the refusal already decided. */
typedef struct {
    sv_buffer body;
    int refusal;         /* HTTP status decided before the body was read, or 0 */
    const char *refusal_text;
    double started;
    int counted;         /* in sv_http.active: complete and being answered */
} http_call;

static connection_state *state_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

/* A request is complete (or refused at once): from here until it is
 * answered it counts for the drain, and the watchdog leaves it alone. */
static void begin_answer(sv_http *h, struct MHD_Connection *c, http_call *call)
{
    if (call->counted)
        return;
    call->counted = 1;
    atomic_fetch_add(&h->active, 1);
    connection_state *s = state_of(c);
    if (s) {
        pthread_mutex_lock(&h->connections_lock);
        s->busy = 1;
        pthread_mutex_unlock(&h->connections_lock);
    }
}

/* What the request log line says beyond method, path and status. */
typedef struct {
    const char *model, *version, *id;
    double queue_s, compute_s;
    int batch;
    size_t bytes_in;
} log_fields;

static void log_request(const sv_http *h, const char *method, const char *url, int status,
                        const http_call *call, const log_fields *f, size_t bytes_out)
{
    if (!h->options->log_requests)
        return;
    sv_buffer line = {0};
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    sv_buffer_printf(&line, "{\"time\":%lld.%03ld,\"method\":", (long long)now.tv_sec,
                     now.tv_nsec / 1000000);
    sv_buffer_json_string(&line, method);
    sv_buffer_puts(&line, ",\"path\":");
    sv_buffer_json_string(&line, url);
    sv_buffer_printf(&line, ",\"status\":%d", status);
    if (f && f->model) {
        sv_buffer_puts(&line, ",\"model\":");
        sv_buffer_json_string(&line, f->model);
        sv_buffer_puts(&line, ",\"version\":");
        sv_buffer_json_string(&line, f->version ? f->version : "");
    }
    if (f && f->id) {
        sv_buffer_puts(&line, ",\"id\":");
        sv_buffer_json_string(&line, f->id);
    }
    if (f && f->batch)
        sv_buffer_printf(&line, ",\"queue_us\":%.0f,\"compute_us\":%.0f,\"batch\":%d",
                         f->queue_s * 1e6, f->compute_s * 1e6, f->batch);
    sv_buffer_printf(&line, ",\"bytes_in\":%zu,\"bytes_out\":%zu,\"total_us\":%.0f}\n",
                     call ? call->body.len : 0, bytes_out,
                     call ? (sv_now() - call->started) * 1e6 : 0.0);
    if (line.data)
        fputs(line.data, stderr); /* one write per line: lines from threads do not mix */
    sv_buffer_free(&line);
}

static enum MHD_Result respond(const sv_http *h, struct MHD_Connection *c, const char *method,
                               const char *url, const http_call *call, int status,
                               sv_buffer *body, long long json_length, const log_fields *f)
{
    size_t len = 0;
    char *bytes = sv_buffer_take(body, &len);
    if (!bytes) {
        status = 500;
        bytes = strdup("{\"error\":\"out of memory\"}");
        len = bytes ? strlen(bytes) : 0;
        json_length = -1;
    }
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, bytes ? bytes : (char *)"", bytes ? MHD_RESPMEM_MUST_FREE
                                                                          : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        free(bytes);
        return MHD_NO;
    }
    int is_text = strncmp(url, "/metrics", 8) == 0;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                            is_text ? "text/plain; version=0.0.4"
                            : json_length >= 0 ? "application/octet-stream"
                                               : "application/json");
    if (json_length >= 0) {
        char n[32];
        snprintf(n, sizeof n, "%lld", json_length);
        MHD_add_response_header(resp, "Inference-Header-Content-Length", n);
    }
    if (status == 503)
        MHD_add_response_header(resp, "Retry-After", "1");
    enum MHD_Result rc = MHD_queue_response(c, (unsigned int)status, resp);
    MHD_destroy_response(resp);
    sv_metrics_count_status(status);
    log_request(h, method, url, status, call, f, len);
    return rc;
}

static enum MHD_Result respond_error(const sv_http *h, struct MHD_Connection *c,
                                     const char *method, const char *url, const http_call *call,
                                     int status, const char *message, const log_fields *f)
{
    sv_buffer body = {0};
    sv_encode_error(&body, message);
    return respond(h, c, method, url, call, status, &body, -1, f);
}

static enum MHD_Result respond_json(const sv_http *h, struct MHD_Connection *c,
                                    const char *method, const char *url, const http_call *call,
                                    int status, const char *json)
{
    sv_buffer body = {0};
    sv_buffer_puts(&body, json);
    return respond(h, c, method, url, call, status, &body, -1, NULL);
}

/* Splits "/v2/models/NAME/versions/V/infer" into its segments. */
#define MAX_SEGMENTS 8
static int split_path(char *path, char **seg)
{
    int n = 0;
    char *save = NULL; /* strtok's position is one per process: each connection has a thread */
    for (char *p = strtok_r(path, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
        if (n == MAX_SEGMENTS)
            return -1;
        seg[n++] = p;
    }
    return n;
}

static enum MHD_Result serve_infer(sv_http *h, struct MHD_Connection *c, const char *method,
                                   const char *url, http_call *call, const char *name,
                                   const char *version)
{
    log_fields f = {.model = name, .version = version};
    if (atomic_load(&h->draining))
        return respond_error(h, c, method, url, call, 503,
                             "the server is shutting down; send the request to another replica",
                             &f);
    sv_model *m = sv_repository_acquire(h->repo, name, version);
    if (!m) {
        char msg[512];
        int unavailable = sv_repository_is_unavailable(h->repo, name, version);
        snprintf(msg, sizeof msg, unavailable ? "model '%s'%s%s is not ready (see "
                 "POST /v2/repository/index for why)" : "no model '%s'%s%s", name,
                 version ? " version " : "", version ? version : "");
        return respond_error(h, c, method, url, call, unavailable ? 400 : 404, msg, &f);
    }
    f.version = m->version;
    long long header_length = -1;
    const char *hl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                 "Inference-Header-Content-Length");
    if (hl) {
        char *end;
        errno = 0;
        header_length = strtoll(hl, &end, 10);
        if (errno || *end || end == hl || header_length < 0) {
            sv_repository_release(m);
            return respond_error(h, c, method, url, call, 400,
                                 "Inference-Header-Content-Length is not a byte count", &f);
        }
    }
    char err[600];
    sv_request *r = sv_decode_infer(m, call->body.data ? call->body.data : "", call->body.len,
                                    header_length, err, sizeof err);
    if (!r) {
        atomic_fetch_add_explicit(&m->metrics.requests, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&m->metrics.failures, 1, memory_order_relaxed);
        sv_repository_release(m);
        return respond_error(h, c, method, url, call, 400, err, &f);
    }
    f.id = r->id;
    if (sv_model_submit(m, r) == 0)
        sv_model_wait(m, r);
    sv_buffer body = {0};
    long long json_length = -1;
    int status = r->http_status;
    if (status == 200 && sv_encode_infer(m, r, &body, &json_length) != 0)
        status = r->http_status;
    if (status != 200) {
        sv_buffer_free(&body);
        sv_encode_error(&body, r->error);
        json_length = -1;
    }
    f.queue_s = r->t_started > 0 ? r->t_started - r->t_queued : 0;
    f.compute_s = r->t_finished - r->t_started;
    f.batch = r->batch_size;
    enum MHD_Result rc = respond(h, c, method, url, call, status, &body, json_length, &f);
    sv_request_free(r);
    sv_repository_release(m);
    return rc;
}

/* The model-ready endpoint's body: {"name": NAME, "ready": true|false}. */
static void put_readiness(sv_buffer *body, const char *name, int ready)
{
    sv_buffer_puts(body, "{\"name\":");
    sv_buffer_json_string(body, name);
    sv_buffer_puts(body, ready ? ",\"ready\":true}" : ",\"ready\":false}");
}

static enum MHD_Result serve_model_get(sv_http *h, struct MHD_Connection *c, const char *method,
                                       const char *url, http_call *call, const char *name,
                                       const char *version, int ready_only)
{
    log_fields f = {.model = name, .version = version};
    sv_model *m = sv_repository_acquire(h->repo, name, version);
    if (!m) {
        int unavailable = sv_repository_is_unavailable(h->repo, name, version);
        char msg[512];
        snprintf(msg, sizeof msg, unavailable ? "model '%s'%s%s is not ready" : "no model '%s'%s%s",
                 name, version ? " version " : "", version ? version : "");
        if (ready_only && unavailable) {
            sv_buffer body = {0};
            put_readiness(&body, name, 0);
            return respond(h, c, method, url, call, 400, &body, -1, &f);
        }
        return respond_error(h, c, method, url, call, unavailable ? 400 : 404, msg, &f);
    }
    sv_buffer body = {0};
    if (ready_only) {
        put_readiness(&body, m->name, 1);
    } else {
        sv_buffer versions = {0};
        if (version) {
            sv_buffer_puts(&versions, "[");
            sv_buffer_json_string(&versions, m->version);
            sv_buffer_puts(&versions, "]");
        } else {
            sv_repository_versions(h->repo, name, &versions);
        }
        sv_encode_model_metadata(m, versions.data ? versions.data : "[]", &body);
        sv_buffer_free(&versions);
    }
    sv_repository_release(m);
    return respond(h, c, method, url, call, 200, &body, -1, &f);
}

static enum MHD_Result route(sv_http *h, struct MHD_Connection *c, const char *method,
                             const char *url, http_call *call)
{
    char path[2048];
    if (strlen(url) >= sizeof path)
        return respond_error(h, c, method, url, call, 404, "path too long", NULL);
    strcpy(path, url);
    char *seg[MAX_SEGMENTS];
    int n = split_path(path, seg);
    int get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    int post = strcmp(method, "POST") == 0;
    const char *want = NULL; /* the method a known path takes, for 405 */

    if (n == 1 && strcmp(seg[0], "metrics") == 0) {
        if (!get)
            want = "GET";
        else {
            sv_buffer body = {0};
            sv_repository_metrics(h->repo, &body);
            sv_metrics_render_server(&body);
            return respond(h, c, method, url, call, 200, &body, -1, NULL);
        }
    } else if (n >= 1 && strcmp(seg[0], "v2") == 0) {
        if (n == 1) {
            if (!get)
                want = "GET";
            else {
                sv_buffer body = {0};
                sv_buffer_printf(&body, "{\"name\":\"kiln\",\"version\":\"%s\",\"extensions\":"
                                 "[\"binary_tensor_data\",\"model_repository\"]}", kiln_version());
                return respond(h, c, method, url, call, 200, &body, -1, NULL);
            }
        } else if (n == 3 && strcmp(seg[1], "health") == 0 &&
                   (strcmp(seg[2], "live") == 0 || strcmp(seg[2], "ready") == 0)) {
            if (!get)
                want = "GET";
            else if (strcmp(seg[2], "live") == 0)
                return respond_json(h, c, method, url, call, 200, "{\"live\":true}");
            else if (atomic_load(&h->draining))
                return respond_json(h, c, method, url, call, 400, "{\"ready\":false}");
            else
                return respond_json(h, c, method, url, call, 200, "{\"ready\":true}");
        } else if (n >= 3 && strcmp(seg[1], "models") == 0) {
            const char *name = seg[2], *version = NULL;
            int rest = 3;
            if (n >= 5 && strcmp(seg[3], "versions") == 0) {
                version = seg[4];
                rest = 5;
            }
            const char *action = n == rest + 1 ? seg[rest] : (n == rest ? "" : NULL);
            if (action && !*action) {
                if (!get)
                    want = "GET";
                else
                    return serve_model_get(h, c, method, url, call, name, version, 0);
            } else if (action && strcmp(action, "ready") == 0) {
                if (!get)
                    want = "GET";
                else
                    return serve_model_get(h, c, method, url, call, name, version, 1);
            } else if (action && strcmp(action, "infer") == 0) {
                if (!post)
                    want = "POST";
                else
                    return serve_infer(h, c, method, url, call, name, version);
            }
        } else if (n >= 3 && strcmp(seg[1], "repository") == 0) {
            if (n == 3 && strcmp(seg[2], "index") == 0) {
                if (!post)
                    want = "POST";
                else {
                    sv_buffer body = {0};
                    sv_repository_index(h->repo, &body);
                    return respond(h, c, method, url, call, 200, &body, -1, NULL);
                }
            } else if (n == 5 && strcmp(seg[2], "models") == 0 &&
                       (strcmp(seg[4], "load") == 0 || strcmp(seg[4], "unload") == 0)) {
                if (!post)
                    want = "POST";
                else if (!h->options->model_control)
                    return respond_error(h, c, method, url, call, 400,
                                         "model control is off (start kiln serve with "
                                         "--model-control)", NULL);
                else {
                    char err[800];
                    int load = strcmp(seg[4], "load") == 0;
                    int st = load ? sv_repository_load(h->repo, seg[3], err, sizeof err)
                                  : sv_repository_unload(h->repo, seg[3], err, sizeof err);
                    if (st != 0)
                        return respond_error(h, c, method, url, call, st, err, NULL);
                    return respond_json(h, c, method, url, call, 200, "{}");
                }
            }
        }
    }
    char msg[300];
    if (want) {
        snprintf(msg, sizeof msg, "%s %s: this endpoint takes %s", method, url, want);
        return respond_error(h, c, method, url, call, 405, msg, NULL);
    }
    snprintf(msg, sizeof msg, "no such endpoint: %s %.200s", method, url);
    return respond_error(h, c, method, url, call, 404, msg, NULL);
}

static int rate_limited(const sv_http *h, struct MHD_Connection *c)
{
    if (h->options->rate_limit <= 0)
        return 0;
    connection_state *s = state_of(c);
    if (!s)
        return 0;
    double now = sv_now(), rate = h->options->rate_limit;
    s->tokens += (now - s->refilled_at) * rate;
    if (s->tokens > rate)
        s->tokens = rate; /* a burst of one second's worth */
    s->refilled_at = now;
    if (s->tokens < 1)
        return 1;
    s->tokens -= 1;
    return 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **con_cls)
{
    (void)version;
    sv_http *h = cls;
    http_call *call = *con_cls;
    if (!call) {
        call = calloc(1, sizeof *call);
        if (!call)
            return MHD_NO;
        call->started = sv_now();
        *con_cls = call;
        const char *length = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                         MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (rate_limited(h, c)) {
            call->refusal = 429;
            call->refusal_text = "too many requests on this connection (--rate-limit)";
        } else if (length && strtoull(length, NULL, 10) > h->options->max_body_bytes) {
            call->refusal = 413;
            call->refusal_text = "the request body is larger than the server's limit "
                                 "(--max-body-mb)";
        }
        if (call->refusal) { /* answered at once: the body is never read */
            begin_answer(h, c, call);
            return respond_error(h, c, method, url, call, call->refusal, call->refusal_text,
                                 NULL);
        }
        return MHD_YES;
    }
    if (*upload_size) {
        if (!call->refusal && call->body.len + *upload_size > h->options->max_body_bytes) {
            call->refusal = 413;
            call->refusal_text = "the request body is larger than the server's limit "
                                 "(--max-body-mb)";
            sv_buffer_free(&call->body);
        }
        if (!call->refusal && sv_buffer_append(&call->body, upload_data, *upload_size) != 0) {
            call->refusal = 413;
            call->refusal_text = "the server could not hold the request body";
            sv_buffer_free(&call->body);
        }
        *upload_size = 0;
        return MHD_YES;
    }
    begin_answer(h, c, call);
    if (call->refusal)
        return respond_error(h, c, method, url, call, call->refusal, call->refusal_text, NULL);
    return route(h, c, method, url, call);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    sv_http *h = cls;
    http_call *call = *con_cls;
    connection_state *s = state_of(c);
    if (s) {
        pthread_mutex_lock(&h->connections_lock);
        s->busy = 0;
        s->waiting_since = sv_now(); /* the next request has the full time again */
        pthread_mutex_unlock(&h->connections_lock);
    }
    if (!call)
        return;
    if (call->counted)
        atomic_fetch_sub(&h->active, 1);
    sv_buffer_free(&call->body);
    free(call);
    *con_cls = NULL;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    sv_http *h = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        connection_state *s = calloc(1, sizeof *s);
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (s) {
            s->refilled_at = s->waiting_since = sv_now();
            s->tokens = 1; /* the first request always passes */
            s->fd = ci ? ci->connect_fd : -1;
            pthread_mutex_lock(&h->connections_lock);
            s->next = h->connections;
            if (s->next)
                s->next->prev = s;
            h->connections = s;
            pthread_mutex_unlock(&h->connections_lock);
        }
        *socket_context = s;
    } else {
        connection_state *s = *socket_context;
        if (s) {
            pthread_mutex_lock(&h->connections_lock);
            if (s->prev)
                s->prev->next = s->next;
            else
                h->connections = s->next;
            if (s->next)
                s->next->prev = s->prev;
            pthread_mutex_unlock(&h->connections_lock);
            free(s);
        }
        *socket_context = NULL;
    }
}

static void *watchdog_main(void *arg)
{
    sv_http *h = arg;
    double limit = h->options->connection_timeout_s;
    pthread_mutex_lock(&h->connections_lock);
    while (!h->stopping) {
        double now = sv_now();
        for (connection_state *s = h->connections; s; s = s->next)
            if (!s->busy && !s->shut && s->fd >= 0 && now - s->waiting_since > limit) {
                /* shutdown, not close: the library still owns the descriptor
                 * and closes it when it sees the connection end */
                shutdown(s->fd, SHUT_RDWR);
                s->shut = 1;
            }
        struct timespec wake;
        double at = sv_now() + 0.25;
        wake.tv_sec = (time_t)at;
        wake.tv_nsec = (long)((at - (double)wake.tv_sec) * 1e9);
        pthread_cond_timedwait(&h->watchdog_wake, &h->connections_lock, &wake);
    }
    pthread_mutex_unlock(&h->connections_lock);
    return NULL;
}

static void log_from_mhd(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    fputs("kiln serve: http: ", stderr);
    vfprintf(stderr, fmt, ap);
}

sv_http *sv_http_start(const sv_options *o, sv_repository *repo, char *err, size_t cap)
{
    sv_http *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    h->options = o;
    h->repo = repo;
    pthread_mutex_init(&h->connections_lock, NULL);
    sv_cond_init(&h->watchdog_wake);
    struct sockaddr_in v4 = {0};
    struct sockaddr_in6 v6 = {0};
    struct sockaddr *addr;
    unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                         MHD_USE_POLL | MHD_USE_ITC | MHD_USE_ERROR_LOG;
    if (inet_pton(AF_INET, o->host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons((uint16_t)o->port);
        addr = (struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, o->host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons((uint16_t)o->port);
        addr = (struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, cap, "--host '%s' is not an IPv4 or IPv6 address", o->host);
        sv_http_stop(h);
        return NULL;
    }
    errno = 0;
    h->daemon = MHD_start_daemon(
        flags, (uint16_t)o->port, NULL, NULL, on_request, h,
        MHD_OPTION_EXTERNAL_LOGGER, log_from_mhd, NULL, /* first, so it sees every message */
        MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)o->max_connections,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)o->connection_timeout_s,
        /* headers and each chunk of the body pass through this much memory
         * per connection; larger headers are answered 431 by the library */
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
        MHD_OPTION_END);
    if (!h->daemon) {
        snprintf(err, cap, "cannot listen on %s port %d: %s", o->host, o->port,
                 errno ? strerror(errno) : "the HTTP library refused to start");
        sv_http_stop(h);
        return NULL;
    }
    h->watchdog_started = pthread_create(&h->watchdog, NULL, watchdog_main, h) == 0;
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = di ? di->port : o->port;
    return h;
}

int sv_http_port(const sv_http *h)
{
    return h->port;
}

void sv_http_begin_drain(sv_http *h)
{
    atomic_store(&h->draining, 1);
}

int64_t sv_http_active(const sv_http *h)
{
    return atomic_load(&h->active);
}

void sv_http_stop(sv_http *h)
{
    if (!h)
        return;
    if (h->watchdog_started) {
        pthread_mutex_lock(&h->connections_lock);
        h->stopping = 1;
        pthread_cond_signal(&h->watchdog_wake);
        pthread_mutex_unlock(&h->connections_lock);
        pthread_join(h->watchdog, NULL);
    }
    if (h->daemon)
        MHD_stop_daemon(h->daemon);
    pthread_mutex_destroy(&h->connections_lock);
    pthread_cond_destroy(&h->watchdog_wake);
    free(h);
}
