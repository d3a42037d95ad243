/* `kiln bench --set FILES --set FILES ...`: the revisit workload of a
 * dynamic-shape model. Each set is a comma-separated list of [NAME=]FILE
 * inputs (one input signature); one session runs the sets in turn, and
 * each set's first run (which plans that signature) is reported apart from
 * its steady-state median and p90. */
#ifndef KILN_CLI_BENCH_SETS_H
#define KILN_CLI_BENCH_SETS_H

#include "api.h"

typedef struct bench_sets_args {
    const char *model;
    const char **sets;
    int set_count;
    int threads, warmup, runs, json;
    double create_ms;
} bench_sets_args;

/* Runs the workload on session and prints per set (one JSON object per
 * line with json); 0, or -1 after printing the problem. */
int bench_sets(const kiln_model *model, kiln_session *session, const bench_sets_args *a);

#endif
