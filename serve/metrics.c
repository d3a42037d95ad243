#include "metrics.h"

#include <string.h>

/* Seconds: 100 us to 10 s, roughly x2.5 apart; batch sizes: powers of two. */
static const double time_bounds[SV_HIST_BUCKETS] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
    0.025,  0.05,    0.1,    0.25,  0.5,    1.0,   10.0};
static const double batch_bounds[SV_HIST_BUCKETS] = {1,   2,   4,    8,    16,   32,   64,
                                                     128, 256, 512, 1024, 2048, 4096, 8192};

void sv_model_metrics_init(sv_model_metrics *m)
{
    memset(m, 0, sizeof *m);
    m->queue_seconds.bounds = time_bounds;
    m->compute_seconds.bounds = time_bounds;
    m->batch_size.bounds = batch_bounds;
}

void sv_histogram_observe(sv_histogram *h, double v)
{
    int b = 0;
    while (b < SV_HIST_BUCKETS && v > h->bounds[b])
        b++;
    atomic_fetch_add_explicit(&h->counts[b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->sum_micro, (uint64_t)(v * 1e6 + 0.5), memory_order_relaxed);
}

/* Status codes the server answers with; anything else is counted as "other". */
static const int known_codes[] = {200, 400, 404, 405, 408, 413, 429, 431, 500, 503, 504};
#define KNOWN_CODES (sizeof known_codes / sizeof known_codes[0])
static _Atomic uint64_t status_counts[KNOWN_CODES + 1];

void sv_metrics_count_status(int status)
{
    size_t i = 0;
    while (i < KNOWN_CODES && known_codes[i] != status)
        i++;
    atomic_fetch_add_explicit(&status_counts[i], 1, memory_order_relaxed);
}

static const char *const family_help[SV_METRIC_FAMILIES] = {
    "# HELP kiln_inference_requests_total Inference requests received, per model.\n"
    "# TYPE kiln_inference_requests_total counter\n",
    "# HELP kiln_inference_failures_total Inference requests that did not succeed.\n"
    "# TYPE kiln_inference_failures_total counter\n",
    "# HELP kiln_queue_depth Requests waiting in the model's queue now.\n"
    "# TYPE kiln_queue_depth gauge\n",
    "# HELP kiln_queue_seconds Time from a request's arrival to the start of its run.\n"
    "# TYPE kiln_queue_seconds histogram\n",
    "# HELP kiln_compute_seconds Time of the run that served a request.\n"
    "# TYPE kiln_compute_seconds histogram\n",
    "# HELP kiln_batch_size Rows of the run that served a request.\n"
    "# TYPE kiln_batch_size histogram\n",
};

void sv_metrics_render_help(sv_buffer *o, int family)
{
    sv_buffer_puts(o, family_help[family]);
}

static void render_histogram(sv_buffer *o, const char *name, const char *labels,
                             const sv_histogram *h, int as_seconds)
{
    uint64_t cumulative = 0;
    for (int b = 0; b <= SV_HIST_BUCKETS; b++) {
        cumulative += atomic_load_explicit(&h->counts[b], memory_order_relaxed);
        if (b < SV_HIST_BUCKETS)
            sv_buffer_printf(o, "%s_bucket{%s,le=\"%g\"} %llu\n", name, labels, h->bounds[b],
                             (unsigned long long)cumulative);
        else
            sv_buffer_printf(o, "%s_bucket{%s,le=\"+Inf\"} %llu\n", name, labels,
                             (unsigned long long)cumulative);
    }
    double sum = (double)atomic_load_explicit(&h->sum_micro, memory_order_relaxed) / 1e6;
    sv_buffer_printf(o, as_seconds ? "%s_sum{%s} %.6f\n" : "%s_sum{%s} %.0f\n", name, labels,
                     sum);
    sv_buffer_printf(o, "%s_count{%s} %llu\n", name, labels, (unsigned long long)cumulative);
}

void sv_metrics_render_model(sv_buffer *o, int family, const char *model, const char *version,
                             const sv_model_metrics *m, int64_t depth)
{
    /* Model names come from folder names: quotes and backslashes would break
     * the label syntax, so they are escaped as the format asks. */
    sv_buffer labels = {0};
    sv_buffer_puts(&labels, "model=");
    sv_buffer_json_string(&labels, model);
    sv_buffer_puts(&labels, ",version=");
    sv_buffer_json_string(&labels, version);
    const char *l = labels.data ? labels.data : "";
    switch (family) {
    case 0:
        sv_buffer_printf(o, "kiln_inference_requests_total{%s} %llu\n", l,
                         (unsigned long long)atomic_load(&m->requests));
        break;
    case 1:
        sv_buffer_printf(o, "kiln_inference_failures_total{%s} %llu\n", l,
                         (unsigned long long)atomic_load(&m->failures));
        break;
    case 2: sv_buffer_printf(o, "kiln_queue_depth{%s} %lld\n", l, (long long)depth); break;
    case 3: render_histogram(o, "kiln_queue_seconds", l, &m->queue_seconds, 1); break;
    case 4: render_histogram(o, "kiln_compute_seconds", l, &m->compute_seconds, 1); break;
    default: render_histogram(o, "kiln_batch_size", l, &m->batch_size, 0); break;
    }
    sv_buffer_free(&labels);
}

void sv_metrics_render_server(sv_buffer *o)
{
    sv_buffer_puts(o, "# HELP kiln_http_requests_total HTTP responses sent, by status code.\n"
                      "# TYPE kiln_http_requests_total counter\n");
    for (size_t i = 0; i <= KNOWN_CODES; i++) {
        uint64_t n = atomic_load_explicit(&status_counts[i], memory_order_relaxed);
        if (i < KNOWN_CODES)
            sv_buffer_printf(o, "kiln_http_requests_total{code=\"%d\"} %llu\n", known_codes[i],
                             (unsigned long long)n);
        else
            sv_buffer_printf(o, "kiln_http_requests_total{code=\"other\"} %llu\n",
                             (unsigned long long)n);
    }
}
