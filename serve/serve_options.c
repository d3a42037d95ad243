#include "serve_options.h"

#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln.h"

static const char help_text[] =
    "usage: kiln serve REPO [options]\n"
    "\n"
    "Serves the ONNX models in REPO over HTTP with the Open Inference Protocol\n"
    "(KServe v2; Triton's binary tensor extension too). REPO holds one folder per\n"
    "model and one numbered folder per version: REPO/<model>/<version>/model.onnx.\n"
    "An optional REPO/<model>/config.json overrides the model settings below, e.g.\n"
    "  {\"max_batch_size\": 8, \"max_queue_delay_us\": 2000, \"instances\": 2,\n"
    "   \"threads\": 1, \"precision\": \"fp32\", \"queue_capacity\": 64, \"timeout_ms\": 10000}\n"
    "\n"
    "options:\n"
    "  --host ADDR            address to listen on (default 127.0.0.1)\n"
    "  --port N               port (default 8000)\n"
    "  --threads N            threads per model, shared by its instances (default 1)\n"
    "  --instances N          sessions per model, each with a worker thread (default 1)\n"
    "  --max-batch N          merge queued requests of a model whose first input dim\n"
    "                         is dynamic into runs of up to N rows (default 1: off)\n"
    "  --batch-delay-us N     how long a run waits for more rows (default 500)\n"
    "  --queue N              queued requests per model before answering 503 (default 64)\n"
    "  --timeout-ms N         longest a request waits in the queue (default 30000)\n"
    "  --max-body-mb N        largest request body (default 64)\n"
    "  --max-connections N    open connections at once (default 256)\n"
    "  --connection-timeout-s N  close a connection idle or stalled this long (default 30)\n"
    "  --rate-limit N         requests per second per connection, 0 = none (default 0)\n"
    "  --log-requests         one JSON line per request on stderr\n"
    "  --model-control        enable POST /v2/repository/models/{m}/load and /unload\n"
    "  --drain-timeout-s N    on SIGTERM, longest wait for accepted requests (default 30)\n"
    "\n"
    "endpoints: GET /v2, /v2/health/live, /v2/health/ready, /v2/models/{m}[/versions/{v}],\n"
    "  .../ready, /metrics (Prometheus); POST .../infer, /v2/repository/index.\n"
    "SIGTERM or SIGINT: new requests get 503, accepted ones finish, then exit 0.\n";

static int parse_int(const char *flag, const char *text, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = text ? strtol(text, &end, 10) : 0;
    if (!text || errno || *end || end == text || v < lo || v > hi) {
        fprintf(stderr, "kiln serve: %s wants a whole number in [%ld, %ld], got '%s'\n", flag,
                lo, hi, text ? text : "(nothing)");
        return -1;
    }
    *out = (int)v;
    return 0;
}

int sv_options_parse(int argc, char **argv, sv_options *o)
{
    memset(o, 0, sizeof *o);
    o->host = "127.0.0.1";
    o->port = 8000;
    o->defaults = (sv_model_settings){.max_batch_size = 1,
                                      .max_queue_delay_us = 500,
                                      .instances = 1,
                                      .threads = 1,
                                      .precision = KILN_PRECISION_FP32,
                                      .queue_capacity = 64,
                                      .timeout_ms = 30000};
    int body_mb = 64;
    o->max_connections = 256;
    o->connection_timeout_s = 30;
    o->drain_timeout_s = 30;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int rc = 0, takes = 1;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(help_text, stdout);
            return 1;
        } else if (strcmp(a, "--host") == 0) {
            if (!v) rc = -1; else o->host = v;
        } else if (strcmp(a, "--port") == 0) {
            rc = parse_int(a, v, 0, 65535, &o->port);
        } else if (strcmp(a, "--threads") == 0) {
            rc = parse_int(a, v, 1, 1024, &o->defaults.threads);
        } else if (strcmp(a, "--instances") == 0) {
            rc = parse_int(a, v, 1, 256, &o->defaults.instances);
        } else if (strcmp(a, "--max-batch") == 0) {
            rc = parse_int(a, v, 1, 4096, &o->defaults.max_batch_size);
        } else if (strcmp(a, "--batch-delay-us") == 0) {
            rc = parse_int(a, v, 0, 10000000, &o->defaults.max_queue_delay_us);
        } else if (strcmp(a, "--queue") == 0) {
            rc = parse_int(a, v, 1, 1000000, &o->defaults.queue_capacity);
        } else if (strcmp(a, "--timeout-ms") == 0) {
            rc = parse_int(a, v, 1, INT_MAX, &o->defaults.timeout_ms);
        } else if (strcmp(a, "--max-body-mb") == 0) {
            rc = parse_int(a, v, 1, 4096, &body_mb);
        } else if (strcmp(a, "--max-connections") == 0) {
            rc = parse_int(a, v, 1, 100000, &o->max_connections);
        } else if (strcmp(a, "--connection-timeout-s") == 0) {
            rc = parse_int(a, v, 1, 86400, &o->connection_timeout_s);
        } else if (strcmp(a, "--rate-limit") == 0) {
            rc = parse_int(a, v, 0, 10000000, &o->rate_limit);
        } else if (strcmp(a, "--drain-timeout-s") == 0) {
            rc = parse_int(a, v, 0, 86400, &o->drain_timeout_s);
        } else if (strcmp(a, "--log-requests") == 0) {
            o->log_requests = 1;
            takes = 0;
        } else if (strcmp(a, "--model-control") == 0) {
            o->model_control = 1;
            takes = 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "kiln serve: unknown option '%s' (see kiln serve --help)\n", a);
            return -1;
        } else if (!o->repository) {
            o->repository = a;
            takes = 0;
        } else {
            fprintf(stderr, "kiln serve: one repository folder, got '%s' and '%s'\n",
                    o->repository, a);
            return -1;
        }
        if (rc != 0 || (takes && !v)) {
            if (!v)
                fprintf(stderr, "kiln serve: %s needs a value\n", a);
            return -1;
        }
        i += takes;
    }
    if (!o->repository) {
        fprintf(stderr, "kiln serve: no model repository given (see kiln serve --help)\n");
        return -1;
    }
    o->max_body_bytes = (size_t)body_mb << 20;
    return 0;
}

static char *read_small_file(const char *path, char *err, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = malloc(65537);
    size_t n = text ? fread(text, 1, 65536, f) : 0;
    int too_big = text && n == 65536 && fgetc(f) != EOF;
    fclose(f);
    if (!text || too_big) {
        snprintf(err, cap, "%s: %s", path, text ? "larger than 64 KiB" : "out of memory");
        free(text);
        return (char *)-1;
    }
    text[n] = '\0';
    return text;
}

int sv_settings_read(const char *model_dir, sv_model_settings *s, char *err, size_t cap)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", model_dir);
    char *text = read_small_file(path, err, cap);
    if (!text)
        return 0; /* no file: the command line's settings */
    if (text == (char *)-1)
        return -1;
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsObject(root)) {
        snprintf(err, cap, "%s: not a JSON object", path);
        cJSON_Delete(root);
        return -1;
    }
    static const struct {
        const char *key;
        size_t offset;
        int lo, hi;
    } keys[] = {
        {"max_batch_size", offsetof(sv_model_settings, max_batch_size), 1, 4096},
        {"max_queue_delay_us", offsetof(sv_model_settings, max_queue_delay_us), 0, 10000000},
        {"instances", offsetof(sv_model_settings, instances), 1, 256},
        {"threads", offsetof(sv_model_settings, threads), 1, 1024},
        {"queue_capacity", offsetof(sv_model_settings, queue_capacity), 1, 1000000},
        {"timeout_ms", offsetof(sv_model_settings, timeout_ms), 1, INT_MAX},
    };
    int rc = 0;
    for (cJSON *item = root->child; item && rc == 0; item = item->next) {
        size_t k = 0;
        while (k < sizeof keys / sizeof keys[0] && strcmp(keys[k].key, item->string) != 0)
            k++;
        if (k < sizeof keys / sizeof keys[0]) {
            double v = item->valuedouble;
            if (!cJSON_IsNumber(item) || v != (double)(long long)v || v < keys[k].lo ||
                v > keys[k].hi) {
                snprintf(err, cap, "%s: \"%s\" wants a whole number in [%d, %d]", path,
                         item->string, keys[k].lo, keys[k].hi);
                rc = -1;
            } else {
                *(int32_t *)((char *)s + keys[k].offset) = (int32_t)v;
            }
        } else if (strcmp(item->string, "precision") == 0) {
            const char *p = cJSON_GetStringValue(item);
            if (p && strcmp(p, "fp32") == 0) {
                s->precision = KILN_PRECISION_FP32;
            } else if (p && strcmp(p, "bf16") == 0) {
                s->precision = KILN_PRECISION_BF16;
            } else {
                snprintf(err, cap, "%s: \"precision\" is \"fp32\" or \"bf16\"", path);
                rc = -1;
            }
        } else {
            snprintf(err, cap,
                     "%s: unknown setting \"%s\" (known: max_batch_size, max_queue_delay_us, "
                     "instances, threads, precision, queue_capacity, timeout_ms)",
                     path, item->string);
            rc = -1;
        }
    }
    cJSON_Delete(root);
    return rc;
}
