/* Inputs for `kiln bench` (and for `kiln info --plan --shape`): seeded random data of each input's declared
 * shape (or a shape given on the command line), optionally replaced by
 * tensors read from files so that another engine can be fed the very same
 * bytes. */
#ifndef KILN_CLI_BENCH_INPUTS_H
#define KILN_CLI_BENCH_INPUTS_H

#include "api.h"
#include "util.h"

typedef struct shape_override {
    char *name;
    shape shape;
    int used;
} shape_override;

/* One input, kept alive for every run since the session borrows it. */
typedef struct bench_input {
    char *name;
    int32_t dtype;
    shape shape;
    void *data;
    size_t nbytes;
} bench_input;

/* Parses a --shape value "NAME=1x3x224x224" into o (o->name malloc'd);
 * prints the problem and returns -1 when malformed. */
int parse_shape_option(const char *value, shape_override *o);
/* Frees the names and shapes of count overrides and the array itself. */
void free_shape_options(shape_override *shapes, int count);

/* Decides the shape and dtype of every input and generates its data;
 * prints the problem and returns -1 on failure (*out still needs freeing). */
int make_inputs(const kiln_model *model, shape_override *shapes, int shape_count, rng *r,
                bench_input **out, int32_t *count);
/* Replaces inputs by the tensors in files ("[NAME=]FILE"): bound to NAME,
 * else to the input named like the tensor, else to the file's position. */
int apply_input_files(const kiln_model *model, const char **files, int file_count,
                      bench_input *inputs, int32_t count);
void free_inputs(bench_input *in, int32_t count);

/* Binds the inputs (borrowed, outside the timing) and times one run;
 * prints the problem on failure. */
int32_t bench_run_once(kiln_session *session, const bench_input *in, int32_t count,
                       double *elapsed_ms);
/* Sorts times and gives their median and nearest-rank 90th percentile. */
void latency_stats(double *times, int n, double *median, double *p90);

#endif
