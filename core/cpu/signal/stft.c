/* STFT (opset 17): frames of frame_length samples taken every frame_step
 * samples along a [batch, length, 1 or 2] signal, each multiplied by the
 * window (when given) and Fourier transformed with the FFT of
 * signal_fft.h. Output [batch, frames, bins, 2] with
 * frames = (length - frame_length) / frame_step + 1 and bins =
 * frame_length / 2 + 1 when onesided (the default), else frame_length.
 * frame_length is the frame_length input, else the window's length; when
 * both are given they must agree. frame_step and frame_length decide the
 * output shape, so they are needed at prepare time. */
#include <stdlib.h>

#include "core/base/alloc.h"
#include "core/cpu/signal/signal_fft.h"
#include "core/kernel/tensor_common.h"

enum { IN_SIGNAL, IN_STEP, IN_WINDOW, IN_LENGTH };

typedef struct stft_state {
    signal_fft fft;
    int32_t dtype;
    int64_t batch, length, channels, step, frames, bins;
    int32_t tasks;
    size_t slot_bytes;
} stft_state;

static void stft_release(kn_kctx *k)
{
    stft_state *st = k->state;
    if (st)
        signal_fft_free(&st->fft);
    free(st);
    k->state = NULL;
}

static int stft_setup(kn_kctx *k, stft_state *st)
{
    const kn_tensor *x = k->in[IN_SIGNAL], *win = kn_input(k, IN_WINDOW);
    if (x->rank != 3 || (x->dims[2] != 1 && x->dims[2] != 2))
        return kn_fail(k->err, KN_ERR_SHAPE,
                       "STFT: signal must be [batch, length, 1 or 2], got rank %d", (int)x->rank);
    if (win && win->dtype != x->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "STFT: window is %s but the signal is %s",
                       kn_dtype_name(win->dtype), kn_dtype_name(x->dtype));
    if (win && win->rank != 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "STFT: window must be 1-D, not rank %d",
                       (int)win->rank);
    double step, len = -1;
    int rc = signal_const_scalar(k, IN_STEP, "frame_step", &step);
    if (rc == KN_OK && kn_input(k, IN_LENGTH))
        rc = signal_const_scalar(k, IN_LENGTH, "frame_length", &len);
    if (rc != KN_OK)
        return rc;
    if (win && len >= 0 && (double)win->dims[0] != len)
        return kn_fail(k->err, KN_ERR_SHAPE, "STFT: window length %lld differs from frame_length %.0f",
                       (long long)win->dims[0], len);
    if (win)
        len = (double)win->dims[0];
    if (len < 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "STFT: needs a window or a frame_length");
    st->dtype = x->dtype;
    st->batch = x->dims[0];
    st->length = x->dims[1];
    st->channels = x->dims[2];
    if (!(step >= 1) || len < 1 || len > (double)st->length)
        return kn_fail(k->err, KN_ERR_INVALID_ARGUMENT,
                       "STFT: frame_step %.0f must be >= 1 and frame_length %.0f in [1, %lld]",
                       step, len, (long long)st->length);
    st->step = step > 1e15 ? (int64_t)1e15 : (int64_t)step;
    rc = signal_fft_init(&st->fft, (int64_t)len, "STFT", k->err);
    if (rc != KN_OK)
        return rc;
    int64_t n = st->fft.n;
    st->frames = (st->length - n) / st->step + 1;
    st->bins = kn_attr_int(k->node, "onesided", 1) ? n / 2 + 1 : n;

    kn_tensor *y = k->out[0];
    y->dtype = x->dtype;
    y->rank = 4;
    y->dims[0] = st->batch;
    y->dims[1] = st->frames;
    y->dims[2] = st->bins;
    y->dims[3] = 2;
    if (kn_tensor_numel(y) < 0)
        return kn_fail(k->err, KN_ERR_SHAPE, "STFT: output is too large");
    int32_t threads = kn_threadpool_threads(k->threads);
    int64_t transforms = st->batch * st->frames;
    st->tasks = transforms < threads ? (int32_t)(transforms > 0 ? transforms : 1) : threads;
    st->slot_bytes =
        kn_align_up(sizeof(double) * 2 * (size_t)n + signal_fft_work_bytes(&st->fft), 64);
    k->scratch_bytes = st->slot_bytes * (size_t)st->tasks;
    return KN_OK;
}

static int stft_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    stft_state *st = calloc(1, sizeof *st);
    if (!st)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "STFT: out of memory");
    k->state = st;
    int rc = stft_setup(k, st);
    if (rc != KN_OK)
        stft_release(k);
    return rc;
}

typedef struct stft_job {
    const stft_state *st;
    const void *x, *win;
    void *y;
    char *scratch;
    int64_t per_task;
} stft_job;

/* Task t (owning scratch slot t) does frames [t*per, (t+1)*per) of all
 * batches, counted batch-major. */
static void stft_task(void *ctx, int64_t begin, int64_t end)
{
    const stft_job *j = ctx;
    const stft_state *st = j->st;
    int64_t n = st->fft.n, total = st->batch * st->frames, c = st->channels;
    double *buf = (double *)(void *)(j->scratch + (size_t)begin * st->slot_bytes);
    void *work = buf + 2 * n;
    for (int64_t q = begin * j->per_task; q < end * j->per_task && q < total; q++) {
        int64_t b = q / st->frames, f = q % st->frames;
        int64_t start = (b * st->length + f * st->step) * c;
        for (int64_t i = 0; i < n; i++) {
            double w = j->win ? signal_ld(st->dtype, j->win, i) : 1.0;
            buf[2 * i] = signal_ld(st->dtype, j->x, start + i * c) * w;
            buf[2 * i + 1] = c == 2 ? signal_ld(st->dtype, j->x, start + i * c + 1) * w : 0;
        }
        signal_fft_run(&st->fft, buf, 0, work);
        for (int64_t kk = 0; kk < st->bins; kk++) {
            signal_st(st->dtype, j->y, 2 * (q * st->bins + kk), buf[2 * kk]);
            signal_st(st->dtype, j->y, 2 * (q * st->bins + kk) + 1, buf[2 * kk + 1]);
        }
    }
}

static int stft_run(kn_kctx *k)
{
    const stft_state *st = k->state;
    int64_t total = st->batch * st->frames;
    if (total == 0)
        return KN_OK;
    const kn_tensor *win = kn_input(k, IN_WINDOW);
    stft_job j = {st, k->in[IN_SIGNAL]->data, win ? win->data : NULL, k->out[0]->data,
                  k->scratch, (total + st->tasks - 1) / st->tasks};
    kn_parallel_for(k->threads, st->tasks, 1, stft_task, &j);
    return KN_OK;
}

const kn_op_def kn_op_stft = {
    .op_type = "STFT", .since_version = 17, .dtypes = SIGNAL_FLOAT_TYPES,
    .prepare = stft_prepare, .run = stft_run, .release = stft_release
};
