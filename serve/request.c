#include "request.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

sv_request *sv_request_new(int32_t input_count, int32_t output_count)
{
    sv_request *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->input_count = input_count;
    r->output_count = output_count;
    r->inputs = calloc((size_t)input_count + 1, sizeof *r->inputs);
    r->outputs = calloc((size_t)output_count + 1, sizeof *r->outputs);
    r->output_wanted = calloc((size_t)output_count + 1, 1);
    r->output_binary = calloc((size_t)output_count + 1, 1);
    r->output_order = calloc((size_t)output_count + 1, sizeof *r->output_order);
    r->http_status = 200;
    if (!r->inputs || !r->outputs || !r->output_wanted || !r->output_binary ||
        !r->output_order || sv_cond_init(&r->done) != 0) {
        free(r->inputs);
        free(r->outputs);
        free(r->output_wanted);
        free(r->output_binary);
        free(r->output_order);
        free(r);
        return NULL;
    }
    return r;
}

void sv_tensor_clear(sv_tensor *t)
{
    free(t->data);
    kiln_tensor_destroy(t->strings);
    t->data = NULL;
    t->strings = NULL;
    t->nbytes = 0;
}

void sv_request_free(sv_request *r)
{
    if (!r)
        return;
    for (int32_t i = 0; i < r->input_count; i++)
        sv_tensor_clear(&r->inputs[i]);
    for (int32_t i = 0; i < r->output_count; i++)
        sv_tensor_clear(&r->outputs[i]);
    free(r->inputs);
    free(r->outputs);
    free(r->output_wanted);
    free(r->output_binary);
    free(r->output_order);
    free(r->id);
    free(r->error);
    pthread_cond_destroy(&r->done);
    free(r);
}

int64_t sv_element_count(const int64_t *dims, int32_t rank)
{
    int64_t n = 1;
    for (int32_t i = 0; i < rank; i++) {
        if (dims[i] < 0 || (dims[i] > 0 && n > INT64_MAX / dims[i]))
            return -1;
        n *= dims[i];
    }
    return n;
}

void sv_request_fail(sv_request *r, int http_status, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    free(r->error);
    r->error = NULL;
    size_t n = strlen(text) + 1;
    r->error = malloc(n);
    if (r->error)
        memcpy(r->error, text, n);
    r->http_status = http_status;
}

double sv_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int sv_cond_init(pthread_cond_t *cond)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return -1;
    int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(cond, &attr);
    pthread_condattr_destroy(&attr);
    return rc;
}
