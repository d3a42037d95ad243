#include "bench_sets.h"

#include "bench_inputs.h"
#include "progress.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Timed rounds stop after this long per set (never before MIN_ROUNDS). */
#define TIME_BUDGET_MS 10000.0
#define MIN_ROUNDS 5

typedef struct set_state {
    bench_input *inputs;
    int32_t count;
    double first_ms;
    double *times;
    int runs;
} set_state;

/* The inputs of one set: the model's inputs, every one replaced from its
 * file. */
static int load_set(const kiln_model *model, const char *text, set_state *st)
{
    char *copy = strdup(text);
    const char **files = calloc(strlen(text) + 1, sizeof *files);
    int n = 0, rc = -1;
    rng r;
    rng_seed(&r, 1);
    if (copy && files) {
        for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ","))
            files[n++] = tok;
        rc = make_inputs(model, NULL, 0, &r, &st->inputs, &st->count);
        if (rc == 0 && n != st->count) {
            cli_error("--set '%s' names %d files, the model has %d inputs",
                      text, n, (int)st->count);
            rc = -1;
        }
        if (rc == 0)
            rc = apply_input_files(model, files, n, st->inputs, st->count);
    }
    free(files);
    free(copy);
    return rc;
}

static void report_set(const bench_sets_args *a, int s, set_state *st)
{
    double median, p90;
    latency_stats(st->times, st->runs, &median, &p90);
    if (a->json) {
        json_writer w;
        json_begin(&w, stdout);
        json_string(&w, "model", a->model);
        json_int(&w, "set", s);
        json_string(&w, "files", a->sets[s]);
        json_int(&w, "threads", a->threads);
        json_int(&w, "runs", st->runs);
        json_number(&w, "first_ms", st->first_ms);
        json_number(&w, "median_ms", median);
        json_number(&w, "p90_ms", p90);
        json_end(&w);
        return;
    }
    char dims[256];
    printf("set %d:", s);
    for (int32_t i = 0; i < st->count; i++) {
        format_shape(st->inputs[i].shape.dims, st->inputs[i].shape.rank, dims, sizeof dims);
        printf(" %s %s", st->inputs[i].name, dims);
    }
    printf("\n  first run %.3f ms, then median %.3f ms, p90 %.3f ms over %d runs\n",
           st->first_ms, median, p90, st->runs);
}

int bench_sets(const kiln_model *model, kiln_session *session, const bench_sets_args *a)
{
    set_state *st = calloc((size_t)a->set_count, sizeof *st);
    int rc = st ? 0 : -1;
    for (int s = 0; rc == 0 && s < a->set_count; s++) {
        rc = load_set(model, a->sets[s], &st[s]);
        if (rc == 0 && !(st[s].times = calloc((size_t)a->runs, sizeof *st[s].times)))
            rc = -1;
    }
    /* First runs in order: each plans its signature. */
    for (int s = 0; rc == 0 && s < a->set_count; s++)
        if (bench_run_once(session, st[s].inputs, st[s].count, &st[s].first_ms) != KILN_OK)
            rc = -1;
    double elapsed = 0, spent = 0;
    for (int w = 0; rc == 0 && w < a->warmup; w++)
        for (int s = 0; rc == 0 && s < a->set_count; s++)
            if (bench_run_once(session, st[s].inputs, st[s].count, &elapsed) != KILN_OK)
                rc = -1;
    /* Rounds of one run per set, in turn: every run follows another shape. */
    progress bar;
    progress_begin(&bar, a->runs);
    for (int round = 0; rc == 0 && round < a->runs &&
                        (round < MIN_ROUNDS || spent < TIME_BUDGET_MS * a->set_count);
         round++) {
        progress_show(&bar, round + 1, "rounds over the sets", 0);
        for (int s = 0; rc == 0 && s < a->set_count; s++) {
            double *t = &st[s].times[st[s].runs];
            if (bench_run_once(session, st[s].inputs, st[s].count, t) != KILN_OK)
                rc = -1;
            else
                spent += *t, st[s].runs++;
        }
    }
    progress_end(&bar);
    for (int s = 0; rc == 0 && s < a->set_count; s++)
        report_set(a, s, &st[s]);
    if (rc == 0 && a->json) {
        json_writer w;
        json_begin(&w, stdout);
        json_string(&w, "model", a->model);
        json_int(&w, "sets", a->set_count);
        json_number(&w, "create_ms", a->create_ms);
        json_number(&w, "peak_rss_mb", peak_rss_mib());
        json_end(&w);
    } else if (rc == 0) {
        printf("create: %.3f ms; peak RSS %.1f MiB\n", a->create_ms, peak_rss_mib());
    }
    for (int s = 0; st && s < a->set_count; s++) {
        free_inputs(st[s].inputs, st[s].count);
        free(st[s].times);
    }
    free(st);
    return rc;
}
