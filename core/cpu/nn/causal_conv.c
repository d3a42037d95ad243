/* CausalConvWithState (opset 27): the depthwise causal 1-D convolution of
 * Mamba-style blocks, with its rolling state. For input (batch, C, L),
 * weight (C, 1, K), optional bias (C) and past_state (batch, C, K - 1)
 * (zeros when omitted), each channel sees
 *
 *     padded = concat(past_state, input)               (length K - 1 + L)
 *     output[t] = bias + sum_i weight[i] * padded[t + i]
 *     present_state = the last K - 1 values of padded
 *
 * and activation "silu" (alias "swish") applies x * sigmoid(x) to the
 * convolution, rounded to the input type first as ONNX's function body
 * does. Each channel row is computed in double. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/tensor_common.h"

typedef struct ccs_state {
    int64_t b, c, l, kw;
    int silu;
} ccs_state;

static int ccs_shape_err(kn_kctx *k, const char *what, const kn_tensor *t, const char *want)
{
    char s[128];
    kn_shape_format(t->dims, t->rank, s, sizeof s);
    return kn_fail(k->err, KN_ERR_SHAPE, "CausalConvWithState: %s has shape %s, expected %s", what,
                   s, want);
}

static int ccs_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *w = k->in[1], *bias = kn_input(k, 2), *past = kn_input(k, 3);
    const char *act = kn_attr_string(k->node, "activation", "none");
    ccs_state st = {0};
    if (!strcmp(act, "silu") || !strcmp(act, "swish"))
        st.silu = 1;
    else if (strcmp(act, "none"))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "CausalConvWithState: activation '%s' is not "
                       "none, silu or swish", act);
    for (int32_t i = 1; i < 4; i++) {
        const kn_tensor *t = kn_input(k, i);
        if (t && t->dtype != x->dtype)
            return kn_fail(k->err, KN_ERR_DTYPE, "CausalConvWithState: input %d is %s, expected %s",
                           (int)i, kn_dtype_name(t->dtype), kn_dtype_name(x->dtype));
    }
    if (x->rank != 3)
        return ccs_shape_err(k, "input", x, "(batch, channels, length)");
    st.b = x->dims[0], st.c = x->dims[1], st.l = x->dims[2];
    if (w->rank != 3 || w->dims[0] != st.c || w->dims[1] != 1 || w->dims[2] < 1)
        return ccs_shape_err(k, "weight", w, "(channels, 1, kernel_size)");
    st.kw = w->dims[2];
    if (bias && (bias->rank != 1 || bias->dims[0] != st.c))
        return ccs_shape_err(k, "bias", bias, "(channels)");
    const int64_t sdims[3] = {st.b, st.c, st.kw - 1};
    if (past && !kn_shape_equal(past->dims, past->rank, sdims, 3))
        return ccs_shape_err(k, "past_state", past, "(batch, channels, kernel_size - 1)");
    kn_copy_desc(k->out[0], x);
    kn_tensor *present = kn_output(k, 1);
    if (present) {
        present->dtype = x->dtype;
        present->rank = 3;
        memcpy(present->dims, sdims, sizeof sdims);
    }
    /* Per task: the padded row and the weights, in double. */
    int32_t threads = kn_threadpool_threads(k->threads);
    k->scratch_bytes = (size_t)(st.l + 2 * st.kw) * sizeof(double) * (size_t)threads;
    ccs_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "CausalConvWithState: out of memory");
    *s = st;
    k->state = s;
    return KN_OK;
}

typedef struct ccs_job {
    const ccs_state *st;
    const kn_tensor *x, *w, *bias, *past;
    kn_tensor *y, *present;
    double *scratch;
    int64_t tasks;
} ccs_job;

static void *at(const kn_tensor *t, int64_t elem)
{
    return (char *)t->data + (size_t)elem * kn_dtype_size(t->dtype);
}

static void ccs_row(const ccs_job *j, int64_t row, double *buf)
{
    const ccs_state *st = j->st;
    int64_t c = row % st->c, km1 = st->kw - 1;
    int32_t dt = j->x->dtype;
    double *pad = buf, *w = buf + km1 + st->l, bias = 0;
    if (j->past)
        kn_convert(dt, at(j->past, row * km1), KN_DOUBLE, pad, km1);
    else
        memset(pad, 0, (size_t)km1 * sizeof *pad);
    kn_convert(dt, at(j->x, row * st->l), KN_DOUBLE, pad + km1, st->l);
    kn_convert(dt, at(j->w, c * st->kw), KN_DOUBLE, w, st->kw);
    if (j->bias)
        kn_convert(dt, at(j->bias, c), KN_DOUBLE, &bias, 1);
    /* Outputs overwrite the front of the padded row once it is no longer
     * read (output t reads padded[t .. t + K - 1]); the state comes first. */
    if (j->present)
        kn_convert(KN_DOUBLE, pad + st->l, dt, at(j->present, row * km1), km1);
    for (int64_t t = 0; t < st->l; t++) {
        double acc = bias;
        for (int64_t i = 0; i < st->kw; i++)
            acc += w[i] * pad[t + i];
        if (st->silu) {
            union { double d; float f; uint16_t h; } typed; /* acc in the input type */
            kn_convert(KN_DOUBLE, &acc, dt, &typed, 1);
            kn_convert(dt, &typed, KN_DOUBLE, &acc, 1);
            acc = acc / (1.0 + exp(-acc));
        }
        pad[t] = acc;
    }
    kn_convert(KN_DOUBLE, pad, dt, at(j->y, row * st->l), st->l);
}

static void ccs_task(void *ctx, int64_t begin, int64_t end)
{
    const ccs_job *j = ctx;
    int64_t rows = j->st->b * j->st->c, per = (rows + j->tasks - 1) / j->tasks;
    for (int64_t t = begin; t < end; t++)
        for (int64_t r = t * per; r < (t + 1) * per && r < rows; r++)
            ccs_row(j, r, j->scratch + t * (j->st->l + 2 * j->st->kw));
}

static int ccs_run(kn_kctx *k)
{
    const ccs_state *st = k->state;
    int64_t rows = st->b * st->c;
    int32_t threads = kn_threadpool_threads(k->threads);
    ccs_job j = {st, k->in[0], k->in[1], kn_input(k, 2), kn_input(k, 3), k->out[0],
                 kn_output(k, 1), k->scratch, 1};
    /* Few, cheap rows: one task; otherwise one per thread. */
    j.tasks = rows * (st->l + 1) * st->kw < KN_GRAIN ? 1 : (rows < threads ? rows : threads);
    if (rows > 0)
        kn_parallel_for(k->threads, j.tasks, 1, ccs_task, &j);
    return KN_OK;
}

static void ccs_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_CausalConvWithState = {
    .op_type = "CausalConvWithState", .since_version = 27,
    .dtypes = KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16), .prepare = ccs_prepare,
    .run = ccs_run, .release = ccs_release
};
