/* What `kiln serve` is told on its command line, and the per-model settings
 * (defaults from the command line, overridden by REPO/<model>/config.json). */
#ifndef KILN_SERVE_OPTIONS_H
#define KILN_SERVE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int32_t max_batch_size;     /* rows merged into one run; 1 = no batching */
    int32_t max_queue_delay_us; /* how long a run waits for more rows */
    int32_t instances;          /* sessions (and worker threads) per model */
    int32_t threads;            /* the model's runtime threads, shared by its sessions */
    int32_t precision;          /* KILN_PRECISION_* */
    int32_t queue_capacity;     /* queued requests before 503 */
    int32_t timeout_ms;         /* longest a request may wait in the queue */
} sv_model_settings;

typedef struct {
    const char *repository;
    const char *host;
    int port;
    sv_model_settings defaults;
    size_t max_body_bytes;
    int max_connections;
    int connection_timeout_s;   /* idle or slow connections are closed */
    int rate_limit;             /* requests per second per connection; 0 = none */
    int log_requests;
    int model_control;          /* repository load/unload endpoints */
    int drain_timeout_s;        /* SIGTERM: longest wait for in-flight requests */
} sv_options;

/* Parses argv (argv[0] = "serve"). Returns 0, 1 after --help was printed,
 * or -1 after printing a usage error. */
int sv_options_parse(int argc, char **argv, sv_options *out);
/* Reads REPO/<model>/config.json over `settings` when the file exists.
 * Returns 0, or -1 with the reason (file, key, value) in err. */
int sv_settings_read(const char *model_dir, sv_model_settings *settings, char *err,
                     size_t err_cap);

#endif
