#include "bench_inputs.h"

#include "halfprec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int parse_shape_option(const char *value, shape_override *o)
{
    const char *dims = NULL;
    if (!value || parse_name_value(value, &o->name, &dims) != 0) {
        cli_error("--shape needs NAME=DIMS, e.g. x=1x3x224x224");
        return -1;
    }
    if (parse_shape(dims, &o->shape.dims, &o->shape.rank) != 0) {
        cli_error("bad shape '%s' (want e.g. 1x3x224x224)", dims);
        return -1;
    }
    return 0;
}

void free_shape_options(shape_override *shapes, int count)
{
    for (int i = 0; shapes && i < count; i++) {
        free(shapes[i].name);
        shape_free(&shapes[i].shape);
    }
    free(shapes);
}

/* Fills count elements of dtype with random values; -1 if the dtype cannot
 * be generated. */
static int fill_random(rng *r, int32_t dtype, void *buf, int64_t count)
{
    for (int64_t i = 0; i < count; i++) {
        double f = rng_uniform(r, -1.0, 1.0);
        int64_t n = (int64_t)(rng_next(r) % 10);
        switch (dtype) {
        case KILN_DTYPE_FLOAT: ((float *)buf)[i] = (float)f; break;
        case KILN_DTYPE_DOUBLE: ((double *)buf)[i] = f; break;
        case KILN_DTYPE_FLOAT16: ((uint16_t *)buf)[i] = float_to_half((float)f); break;
        case KILN_DTYPE_BFLOAT16: ((uint16_t *)buf)[i] = float_to_bfloat16((float)f); break;
        case KILN_DTYPE_BOOL: ((uint8_t *)buf)[i] = (uint8_t)(rng_next(r) & 1); break;
        case KILN_DTYPE_UINT8: ((uint8_t *)buf)[i] = (uint8_t)n; break;
        case KILN_DTYPE_INT8: ((int8_t *)buf)[i] = (int8_t)n; break;
        case KILN_DTYPE_UINT16: ((uint16_t *)buf)[i] = (uint16_t)n; break;
        case KILN_DTYPE_INT16: ((int16_t *)buf)[i] = (int16_t)n; break;
        case KILN_DTYPE_UINT32: ((uint32_t *)buf)[i] = (uint32_t)n; break;
        case KILN_DTYPE_INT32: ((int32_t *)buf)[i] = (int32_t)n; break;
        case KILN_DTYPE_UINT64: ((uint64_t *)buf)[i] = (uint64_t)n; break;
        case KILN_DTYPE_INT64: ((int64_t *)buf)[i] = n; break;
        default: return -1;
        }
    }
    return 0;
}

void free_inputs(bench_input *in, int32_t count)
{
    for (int32_t i = 0; in && i < count; i++) {
        free(in[i].name);
        shape_free(&in[i].shape);
        free(in[i].data);
    }
    free(in);
}

/* Decides the shape and dtype of every input and generates its data. */
int make_inputs(const kiln_model *model, shape_override *shapes, int shape_count, rng *r,
                bench_input **out, int32_t *count)
{
    kiln_model_input_count(model, count);
    bench_input *in = calloc((size_t)*count + 1, sizeof *in);
    *out = in;
    if (!in)
        return -1;
    for (int32_t i = 0; i < *count; i++) {
        int32_t status;
        bench_input *b = &in[i];
        b->shape.rank = -1;
        if (!(b->name = model_input_name(model, i, &status)) ||
            (status = kiln_model_input_dtype(model, i, &b->dtype)) != KILN_OK ||
            (status = model_input_shape(model, i, &b->shape)) != KILN_OK) {
            report_error("cannot read input", NULL, status);
            return -1;
        }
        if (b->dtype == 0) /* the model leaves it open: float is the common case */
            b->dtype = KILN_DTYPE_FLOAT;
        for (int k = 0; k < shape_count; k++) {
            if (strcmp(shapes[k].name, b->name) != 0)
                continue;
            shape *given = &shapes[k].shape;
            shapes[k].used = 1;
            shape_free(&b->shape);
            b->shape.rank = given->rank;
            b->shape.dims = malloc(sizeof(int64_t) * (size_t)(given->rank + 1));
            if (!b->shape.dims)
                return -1;
            if (given->rank > 0)
                memcpy(b->shape.dims, given->dims, sizeof(int64_t) * (size_t)given->rank);
        }
        if (b->shape.rank < 0) {
            cli_error("input '%s' has no declared rank; give --shape %s=...",
                      b->name, b->name);
            return -1;
        }
        for (int32_t d = 0; d < b->shape.rank; d++)
            if (b->shape.dims[d] < 0)
                b->shape.dims[d] = 1;
        int64_t elements = shape_elements(&b->shape);
        size_t size = dtype_size(b->dtype);
        if (size == 0) {
            cli_error("cannot generate %s data for input '%s'",
                      dtype_name(b->dtype), b->name);
            return -1;
        }
        b->nbytes = (size_t)elements * size;
        b->data = malloc(b->nbytes ? b->nbytes : 1);
        if (!b->data || fill_random(r, b->dtype, b->data, elements) != 0) {
            cli_error("cannot generate data for input '%s'", b->name);
            return -1;
        }
    }
    for (int k = 0; k < shape_count; k++) {
        if (!shapes[k].used) {
            report_unknown_input(model, shapes[k].name);
            return -1;
        }
    }
    return 0;
}


static int replace_input(bench_input *b, const kiln_tensor *t, const char *path)
{
    const void *data = NULL;
    size_t nbytes = 0;
    shape s = {-1, NULL};
    int32_t dtype = 0;
    int32_t status = tensor_shape(t, &dtype, &s);
    if (status == KILN_OK)
        status = kiln_tensor_data(t, &data, &nbytes);
    void *copy = status == KILN_OK ? malloc(nbytes ? nbytes : 1) : NULL;
    if (!copy) {
        if (status != KILN_OK)
            report_error("cannot use input file", path, status);
        shape_free(&s);
        return -1;
    }
    memcpy(copy, data, nbytes);
    free(b->data);
    shape_free(&b->shape);
    b->data = copy;
    b->nbytes = nbytes;
    b->dtype = dtype;
    b->shape = s;
    return 0;
}

int apply_input_files(const kiln_model *model, const char **files, int file_count,
                      bench_input *inputs, int32_t count)
{
    for (int k = 0; k < file_count; k++) {
        char *name = NULL;
        const char *path = NULL;
        parse_name_file(files[k], &name, &path);
        size_t size = 0;
        void *bytes = read_file(path, &size);
        kiln_tensor *t = NULL;
        int32_t status = bytes ? kiln_tensor_decode(bytes, size, &t) : KILN_ERR_IO;
        free(bytes);
        int rc = -1;
        if (status != KILN_OK) {
            report_error("cannot read input file", path, status);
        } else {
            int32_t index = resolve_input(model, name, t, k, count);
            rc = index < 0 ? -1 : replace_input(&inputs[index], t, path);
        }
        kiln_tensor_destroy(t);
        free(name);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int32_t bench_run_once(kiln_session *session, const bench_input *in, int32_t count,
                            double *elapsed_ms)
{
    /* Binding is outside the timed part: it is the caller's cost, not the
     * runtime's, and borrowing makes it cheap anyway. */
    for (int32_t i = 0; i < count; i++) {
        int32_t status = kiln_session_set_input_at(session, i, in[i].dtype, in[i].shape.dims,
                                                    in[i].shape.rank, in[i].data,
                                                    in[i].nbytes, 0);
        if (status != KILN_OK) {
            report_error("cannot bind input", in[i].name, status);
            return status;
        }
    }
    double start = now_ms();
    int32_t status = kiln_session_run(session);
    *elapsed_ms = now_ms() - start;
    if (status != KILN_OK)
        report_error("run failed", NULL, status);
    return status;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values. */
static double percentile(const double *sorted, int n, double p)
{
    int rank = (int)ceil(p / 100.0 * n);
    if (rank < 1)
        rank = 1;
    return sorted[rank - 1];
}

void latency_stats(double *times, int n, double *median, double *p90)
{
    qsort(times, (size_t)n, sizeof *times, by_value);
    *median = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
    *p90 = percentile(times, n, 90);
}
