/* `kiln bench MODEL --shapes-file FILE`: the novel-shape workload of a
 * dynamic-shape model. Each line of FILE is one run's input shapes,
 * "NAME=DIMS[;NAME=DIMS...]" (e.g. "input_ids=1x37"); every run binds fresh
 * seeded random data of those shapes to one session and is timed whole,
 * planning included when its signature is new to the session. Reports the
 * median, p90 and mean, the resident set after 100 runs and at the end, and
 * the session's plans built and kept. */
#ifndef KILN_CLI_BENCH_NOVEL_H
#define KILN_CLI_BENCH_NOVEL_H

#include "api.h"

typedef struct bench_novel_args {
    const char *model;
    const char *shapes_file;
    int threads, json;
    double create_ms;
} bench_novel_args;

/* 0, or -1 after printing the problem. */
int bench_novel(const kiln_model *model, kiln_session *session, const bench_novel_args *a);

#endif
