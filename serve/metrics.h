/* Counters and histograms for GET /metrics (Prometheus text format).
 * Updated with relaxed atomics from any thread; read without a lock, so a
 * scrape may see a request counted in one series and not yet in another. */
#ifndef KILN_SERVE_METRICS_H
#define KILN_SERVE_METRICS_H

#include <stdatomic.h>
#include <stdint.h>

#include "byte_buffer.h"

#define SV_HIST_BUCKETS 14

typedef struct {
    const double *bounds;               /* SV_HIST_BUCKETS upper bounds */
    _Atomic uint64_t counts[SV_HIST_BUCKETS + 1]; /* the last one is +Inf */
    _Atomic uint64_t sum_micro;         /* sum of observations x 1e6 */
} sv_histogram;

typedef struct {
    _Atomic uint64_t requests, failures;
    sv_histogram queue_seconds, compute_seconds, batch_size;
} sv_model_metrics;

void sv_model_metrics_init(sv_model_metrics *m);
void sv_histogram_observe(sv_histogram *h, double value);

/* HTTP responses by status code, for the whole server. */
void sv_metrics_count_status(int status);
/* The text format wants each metric's lines in one group, so a scrape
 * writes family by family: the HELP/TYPE lines of family f, then each
 * model's series of it (labels model and version). */
#define SV_METRIC_FAMILIES 6
void sv_metrics_render_help(sv_buffer *out, int family);
void sv_metrics_render_model(sv_buffer *out, int family, const char *model, const char *version,
                             const sv_model_metrics *m, int64_t queue_depth);
/* Appends the server-wide series (HTTP status counts). */
void sv_metrics_render_server(sv_buffer *out);

#endif
