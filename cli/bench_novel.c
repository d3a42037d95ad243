#include "bench_novel.h"

#include "bench_inputs.h"
#include "progress.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEED 0x6E6F76u /* "nov" */
#define RSS_PROBE_RUN 100

/* One line's shape overrides; -1 after printing why. */
static int parse_line(char *line, shape_override *o, int cap, int *n)
{
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(line, ";", &save); tok;
         tok = strtok_r(NULL, ";", &save)) {
        const char *dims = NULL;
        if (*n == cap || parse_name_value(tok, &o[*n].name, &dims) != 0) {
            cli_error("bad shapes line part '%s' (want NAME=DIMS)", tok);
            return -1;
        }
        (*n)++;
        if (parse_shape(dims, &o[*n - 1].shape.dims, &o[*n - 1].shape.rank) != 0) {
            cli_error("bad shape '%s'", dims);
            return -1;
        }
    }
    return 0;
}

static void free_overrides(shape_override *o, int n)
{
    for (int i = 0; i < n; i++) {
        free(o[i].name);
        shape_free(&o[i].shape);
        memset(&o[i], 0, sizeof o[i]);
    }
}

int bench_novel(const kiln_model *model, kiln_session *session, const bench_novel_args *a)
{
    FILE *f = fopen(a->shapes_file, "r");
    if (!f) {
        perror(a->shapes_file);
        return -1;
    }
    int cap = 1024, runs = 0, rc = 0;
    double *times = malloc(sizeof *times * (size_t)cap), rss_probe = -1, sum = 0;
    shape_override o[16];
    memset(o, 0, sizeof o);
    char line[4096];
    rng r;
    rng_seed(&r, SEED);
    progress bar;
    progress_begin(&bar, 0); /* the line count is not known ahead */
    while (rc == 0 && times && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0])
            continue;
        int n = 0;
        bench_input *in = NULL;
        int32_t count = 0;
        rc = parse_line(line, o, 16, &n);
        if (rc == 0)
            rc = make_inputs(model, o, n, &r, &in, &count);
        if (rc == 0 && runs == cap) {
            double *grown = realloc(times, sizeof *times * (size_t)(cap *= 2));
            if (!grown)
                rc = -1;
            else
                times = grown;
        }
        char label[48];
        snprintf(label, sizeof label, "%d runs of new shapes", runs + 1);
        if (rc == 0)
            progress_show(&bar, runs + 1, label, 0);
        if (rc == 0 && bench_run_once(session, in, count, &times[runs]) != KILN_OK)
            rc = -1;
        if (rc == 0) {
            sum += times[runs++];
            if (runs == RSS_PROBE_RUN)
                rss_probe = peak_rss_mib();
        }
        free_inputs(in, count);
        free_overrides(o, n);
    }
    progress_end(&bar);
    fclose(f);
    if (!times || runs == 0) {
        if (rc == 0)
            cli_error("no shapes in '%s'", a->shapes_file);
        free(times);
        return -1;
    }
    if (rc != 0) {
        free(times);
        return -1;
    }
    int32_t kept = 0;
    int64_t built = 0;
    kiln_session_cache_info(session, &kept, &built, NULL);
    double mean = sum / runs, median, p90, rss_end = peak_rss_mib();
    latency_stats(times, runs, &median, &p90);
    free(times);
    if (a->json) {
        json_writer w;
        json_begin(&w, stdout);
        json_string(&w, "model", a->model);
        json_int(&w, "threads", a->threads);
        json_int(&w, "runs", runs);
        json_number(&w, "create_ms", a->create_ms);
        json_number(&w, "median_ms", median);
        json_number(&w, "p90_ms", p90);
        json_number(&w, "mean_ms", mean);
        json_number(&w, "peak_rss_at_100_mb", rss_probe);
        json_number(&w, "peak_rss_mb", rss_end);
        json_int(&w, "plans_built", built);
        json_int(&w, "plans_kept", kept);
        json_end(&w);
    } else {
        printf("%d runs of new shapes: median %.3f ms, p90 %.3f ms, mean %.3f ms\n", runs,
               median, p90, mean);
        printf("peak RSS %.1f MiB after %d runs, %.1f MiB at the end; %lld plans built, %d kept\n",
               rss_probe, RSS_PROBE_RUN, rss_end, (long long)built, (int)kept);
    }
    return 0;
}
