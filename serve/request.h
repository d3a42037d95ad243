/* One inference request as it moves through the server: decoded inputs,
 * the outputs asked for, the result and the times it passed each stage.
 * The HTTP thread owns it; a model's worker only fills the result. */
#ifndef KILN_SERVE_REQUEST_H
#define KILN_SERVE_REQUEST_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "kiln.h"

#define SV_MAX_RANK 8

typedef struct {
    int32_t dtype;           /* KILN_DTYPE_* */
    int32_t rank;
    int64_t dims[SV_MAX_RANK];
    void *data;              /* owned; NULL for a BYTES tensor */
    size_t nbytes;
    kiln_tensor *strings;    /* a BYTES tensor, owned */
} sv_tensor;

enum sv_request_state { SV_QUEUED, SV_RUNNING, SV_DONE };

typedef struct sv_request {
    char *id;                /* the client's "id", echoed back; may be NULL */
    int32_t input_count;     /* the model's inputs, in the model's order */
    sv_tensor *inputs;
    int32_t output_count;    /* the model's outputs */
    uint8_t *output_wanted;  /* per model output: 1 if the response carries it */
    uint8_t *output_binary;  /* per model output: 1 = binary extension */
    int32_t *output_order;   /* the order the client listed them (or the model's) */
    int32_t wanted_count;
    int64_t batch;           /* first dim of the inputs when the model batches */
    double deadline;         /* monotonic seconds; a queued request past it fails */

    /* result, written by the worker */
    sv_tensor *outputs;      /* per model output, filled when wanted */
    int http_status;         /* 200, or the error's status */
    char *error;
    int32_t batch_size;      /* rows of the run that served it */
    double t_queued, t_started, t_finished;

    /* queue */
    enum sv_request_state state;
    struct sv_request *next;
    pthread_cond_t done;     /* signalled with the model's queue lock held */
} sv_request;

sv_request *sv_request_new(int32_t input_count, int32_t output_count);
void sv_request_free(sv_request *r);
void sv_tensor_clear(sv_tensor *t);
/* Elements of a shape; -1 on overflow or a negative dim. */
int64_t sv_element_count(const int64_t *dims, int32_t rank);
/* Sets r->error (printf-style) and r->http_status. */
void sv_request_fail(sv_request *r, int http_status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
double sv_now(void);
/* A condition variable whose timed waits take sv_now()'s clock (monotonic):
 * the default clock is the wall clock, and a deadline on the wrong clock
 * either never comes or has always passed. */
int sv_cond_init(pthread_cond_t *cond);

#endif
