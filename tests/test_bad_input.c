/* Bad run-time input through the public API: wrong dtypes and shapes, NULL
 * and short buffers, NaN and Inf through a CNN, calls in the wrong order,
 * handles after failed calls, cancel and destroy racing a run on another
 * thread, threads sharing one runtime. Every misuse the header defines must
 * give its status code and a message, and leave the handles usable. */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_helpers.h"

#define CHAIN "tests/data/models/matmul_chain.onnx" /* tests/hostile/make_long_model.py */
enum { CHAIN_N = 384 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void message_names(const char *needle)
{
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, needle), "message '%s' lacks '%s'", msg, needle);
}

/* ---- binding ---- */

Test(bad_input, wrong_dtype_rank_and_dims)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, "examples/digits/digits.onnx");
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    float x[64] = {0};
    double xd[64] = {0};
    int64_t xi[64] = {0};
    const int64_t good[4] = {1, 1, 8, 8}, wide[4] = {1, 1, 8, 9}, chan[4] = {1, 3, 8, 8};
    const int64_t rank3[3] = {1, 8, 8}, rank5[5] = {1, 1, 1, 8, 8};
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_DOUBLE, good, 4, xd, sizeof xd, 0),
             KILN_ERR_DTYPE);
    message_names("image");
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_INT64, good, 4, xi, sizeof xi, 0),
             KILN_ERR_DTYPE);
    KT_FAILS(kiln_session_set_input(s, "image", 0, good, 4, x, sizeof x, 0), KILN_ERR_DTYPE);
    KT_FAILS(kiln_session_set_input(s, "image", 999, good, 4, x, sizeof x, 0), KILN_ERR_DTYPE);
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_STRING, good, 4, x, sizeof x, 0),
             KILN_ERR_DTYPE);
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, rank3, 3, x, sizeof x, 0),
             KILN_ERR_SHAPE);
    message_names("rank");
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, rank5, 5, x, sizeof x, 0),
             KILN_ERR_SHAPE);
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, wide, 4, x, 72 * 4, 0),
             KILN_ERR_SHAPE);
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, chan, 4, x, 192 * 4, 0),
             KILN_ERR_SHAPE);
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, good, -1, x, sizeof x, 0),
             KILN_ERR_SHAPE);
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, good, 100, x, sizeof x, 0),
             KILN_ERR_SHAPE);
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, NULL, 4, x, sizeof x, 0),
             KILN_ERR_SHAPE);
    /* The batch dim is dynamic: negative and overflowing values. */
    const int64_t neg[4] = {-1, 1, 8, 8}, huge[4] = {INT64_MAX, 1, 8, 8};
    const int64_t big[4] = {INT64_C(1) << 40, 1, 8, 8};
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, neg, 4, x, sizeof x, 0),
             KILN_ERR_SHAPE);
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, huge, 4, x, sizeof x, 0),
             KILN_ERR_SHAPE);
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, big, 4, x, sizeof x, 0),
             KILN_ERR_INVALID_ARGUMENT); /* a valid shape, but the buffer is far too small */
    KT_FAILS(kiln_session_set_input_at(s, 1, KILN_DTYPE_FLOAT, good, 4, x, sizeof x, 0),
             KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_set_input_at(s, -1, KILN_DTYPE_FLOAT, good, 4, x, sizeof x, 0),
             KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_set_input(s, NULL, KILN_DTYPE_FLOAT, good, 4, x, sizeof x, 0),
             KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_set_input(s, "", KILN_DTYPE_FLOAT, good, 4, x, sizeof x, 0),
             KILN_ERR_NOT_FOUND);
    KT_FAILS(kiln_session_set_input(NULL, "image", KILN_DTYPE_FLOAT, good, 4, x, sizeof x, 0),
             KILN_ERR_INVALID_ARGUMENT);
    /* None of that bound anything. */
    KT_FAILS(kiln_session_run(s), KILN_ERR_STATE);
    KT_OK(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, good, 4, x, sizeof x, 0));
    KT_OK(kiln_session_run(s));
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(bad_input, null_and_short_buffers)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, "examples/digits/digits.onnx");
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    float x[65] = {0};
    const int64_t dims[4] = {1, 1, 8, 8};
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, dims, 4, NULL, 256, 0),
             KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, dims, 4, NULL, 256,
                                    KILN_INPUT_COPY),
             KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, dims, 4, x, 255, 0),
             KILN_ERR_INVALID_ARGUMENT);
    message_names("255 bytes is not a whole number of float32 elements");
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, dims, 4, x, 252, 0),
             KILN_ERR_INVALID_ARGUMENT);
    message_names("63 float32 elements given, the shape 1x1x8x8 needs 64");
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, dims, 4, x, 0, 0),
             KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, dims, 4, x, 260, 0),
             KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, dims, 4, x, SIZE_MAX, 0),
             KILN_ERR_INVALID_ARGUMENT);
    KT_OK(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, dims, 4, x, 256, 0));
    KT_OK(kiln_session_run(s));

    /* Output buffers: short, NULL, out-of-range indices, small shape caps. */
    float y[10];
    size_t needed = 0;
    KT_FAILS(kiln_session_output_copy(s, 0, y, sizeof y - 1, &needed), KILN_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(needed, sizeof y);
    needed = 0;
    KT_FAILS(kiln_session_output_copy(s, 0, NULL, 0, &needed), KILN_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(needed, sizeof y, "the size query works with a NULL buffer");
    KT_FAILS(kiln_session_output_copy(s, 0, NULL, sizeof y, NULL), KILN_ERR_BUFFER_TOO_SMALL);
    KT_FAILS(kiln_session_output_copy(s, 1, y, sizeof y, NULL), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_output_copy(s, -1, y, sizeof y, NULL), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_output_copy(NULL, 0, y, sizeof y, NULL), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_session_output_view(s, 0, NULL, NULL), KILN_ERR_INVALID_ARGUMENT);
    const void *view = NULL;
    KT_FAILS(kiln_session_output_view(s, 7, &view, NULL), KILN_ERR_INVALID_ARGUMENT);
    cr_assert_null(view);
    int32_t dtype = 0, rank = 0;
    int64_t odims[1];
    KT_FAILS(kiln_session_output_info(s, 0, &dtype, odims, 1, &rank), KILN_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(rank, 2, "rank is reported even when the dims do not fit");
    KT_FAILS(kiln_session_output_info(s, 0, &dtype, NULL, 0, &rank), KILN_ERR_BUFFER_TOO_SMALL);
    /* Model introspection with short buffers. */
    char name[2];
    int32_t need = 0;
    KT_FAILS(kiln_model_input_name(m, 0, name, sizeof name, &need), KILN_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(need, 6, "'image' needs 6 bytes");
    KT_FAILS(kiln_model_input_name(m, 0, name, -5, &need), KILN_ERR_BUFFER_TOO_SMALL);
    KT_FAILS(kiln_model_input_shape(m, 0, odims, 1, &rank), KILN_ERR_BUFFER_TOO_SMALL);
    cr_assert_gt(kiln_last_error(NULL, 0), 0, "the message length query works");
    cr_assert_gt(kiln_last_error(name, -1), 0, "a negative cap writes nothing");
    /* The earlier binding is still in place and still correct. */
    float again[10];
    KT_OK(kiln_session_output_copy(s, 0, y, sizeof y, NULL));
    KT_OK(kiln_session_run(s));
    KT_OK(kiln_session_output_copy(s, 0, again, sizeof again, NULL));
    cr_assert_eq(memcmp(y, again, sizeof y), 0);
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

/* ---- NaN and Inf through a CNN (Conv, Relu, MaxPool, Conv, Relu, Gemm) ---- */

static void run_digits(kiln_session *s, const float *x, float *y)
{
    const int64_t dims[4] = {1, 1, 8, 8};
    KT_OK(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, dims, 4, x, 256, 0));
    KT_OK(kiln_session_run(s));
    KT_OK(kiln_session_output_copy(s, 0, y, 40, NULL));
}

Test(bad_input, nan_and_inf_flow_through_a_cnn)
{
    kiln_runtime *rt = kt_runtime(2);
    kiln_model *m = kt_model(rt, "examples/digits/digits.onnx");
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    float x[64], y[10];
    /* No crash and a result for every mix of special values. */
    const float specials[] = {NAN, INFINITY, -INFINITY, FLT_MAX, -FLT_MAX, 1e-45f};
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
        for (int i = 0; i < 64; i++)
            x[i] = i % 3 == 0 ? specials[k] : 0.5f;
        run_digits(s, x, y);
        for (int i = 0; i < 64; i++)
            x[i] = specials[(k + (size_t)i) % (sizeof specials / sizeof specials[0])];
        run_digits(s, x, y);
    }
    /* An all-NaN image must not be classified: NaN reaches every logit, as
     * in ONNX's reference (np.maximum / np.clip keep NaN) and ONNX Runtime. */
    for (int i = 0; i < 64; i++)
        x[i] = NAN;
    run_digits(s, x, y);
    int nan_logits = 0;
    for (int i = 0; i < 10; i++)
        nan_logits += isnan(y[i]) != 0;
    cr_expect_eq(nan_logits, 10, "all-NaN input gave %d NaN logits of 10 (logit 0 = %g): a "
                 "kernel turns NaN into a number (Relu's x > 0 ? x : 0 does)", nan_logits, y[0]);
    /* +Inf everywhere: Inf - Inf inside the convolution gives NaN or Inf. */
    for (int i = 0; i < 64; i++)
        x[i] = INFINITY;
    run_digits(s, x, y);
    for (int i = 0; i < 10; i++)
        cr_expect(!isfinite(y[i]), "logit %d is %g for an all-Inf image", i, y[i]);
    /* And the session still gives the normal answer afterwards. */
    float zero_a[10], zero_b[10];
    memset(x, 0, sizeof x);
    run_digits(s, x, zero_a);
    kiln_session *fresh = NULL;
    KT_OK(kiln_session_create(m, NULL, &fresh));
    run_digits(fresh, x, zero_b);
    cr_assert_eq(memcmp(zero_a, zero_b, sizeof zero_a), 0, "special values left no trace");
    kiln_session_destroy(fresh);
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

/* ---- order of calls, and handles after failures ---- */

Test(bad_input, calls_in_the_wrong_order)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, "tests/data/models/dynamic_mlp.onnx");
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    float y[3];
    int32_t rank = 0;
    int64_t arena = 0;
    const void *view = NULL;
    KT_FAILS(kiln_session_output_copy(s, 0, y, sizeof y, NULL), KILN_ERR_STATE);
    KT_FAILS(kiln_session_output_view(s, 0, &view, NULL), KILN_ERR_STATE);
    KT_FAILS(kiln_session_output_info(s, 0, NULL, NULL, 0, &rank), KILN_ERR_STATE);
    KT_FAILS(kiln_session_plan_bytes(s, &arena, NULL), KILN_ERR_STATE); /* dynamic batch */
    KT_FAILS(kiln_session_run(s), KILN_ERR_STATE);
    message_names("'X'");
    KT_OK(kiln_session_cancel(s)); /* nothing in flight: harmless */
    KT_FAILS(kiln_session_run(s), KILN_ERR_STATE);
    float x[4] = {1, 2, 3, 4};
    const int64_t dims[2] = {1, 4};
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 2, x, sizeof x, 0));
    KT_OK(kiln_session_run(s));
    KT_OK(kiln_session_output_copy(s, 0, y, sizeof y, NULL));
    KT_OK(kiln_session_plan_bytes(s, &arena, NULL));
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(bad_input, handles_after_failed_calls)
{
    kiln_runtime *rt = kt_runtime(1);
    /* A failed load leaves no handle, and the runtime keeps working. */
    kiln_model *m = (kiln_model *)&rt; /* garbage: must be reset to NULL */
    const unsigned char junk[] = {0x08, 0x07, 0x3a, 0x05, 0x0a, 0x03, 0x12, 0x01};
    int32_t rc = kiln_model_load_memory(rt, junk, sizeof junk, NULL, &m);
    cr_assert_neq(rc, KILN_OK);
    cr_assert_null(m, "a failed load left a handle");
    m = (kiln_model *)&rt;
    KT_FAILS(kiln_model_load_file(rt, kt_src_path("tests/data/models/unsupported_op.onnx"), NULL,
                                  &m),
             KILN_ERR_UNSUPPORTED);
    cr_assert_null(m);
    KT_FAILS(kiln_model_load_memory(rt, NULL, 10, NULL, &m), KILN_ERR_INVALID_ARGUMENT);
    KT_FAILS(kiln_model_load_memory(rt, junk, 0, NULL, &m), KILN_ERR_INVALID_MODEL);
    m = kt_model(rt, "tests/data/models/dynamic_mlp.onnx");

    /* A failed session create leaves no handle; the model stays usable. */
    kiln_options *o = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_int(o, KILN_OPT_MAX_ARENA_MB, 1));
    kiln_session *s = (kiln_session *)&rt;
    kiln_model *unsupported = NULL;
    kiln_options *inspect = NULL;
    KT_OK(kiln_options_create(&inspect));
    KT_OK(kiln_options_set_int(inspect, KILN_OPT_ALLOW_UNSUPPORTED, 1));
    KT_OK(kiln_model_load_file(rt, kt_src_path("tests/data/models/unsupported_op.onnx"), inspect,
                               &unsupported));
    KT_FAILS(kiln_session_create(unsupported, NULL, &s), KILN_ERR_UNSUPPORTED);
    cr_assert_null(s, "a failed session create left a handle");
    kiln_model_destroy(unsupported);

    /* A failed run (arena limit exceeded by a big batch) leaves the session
     * usable with a smaller batch, and the previous outputs unreadable. */
    KT_OK(kiln_session_create(m, o, &s));
    enum { BIG_BATCH = 1 << 17 }; /* 2 MiB of input: intermediates above 1 MiB */
    float *big = calloc((size_t)BIG_BATCH * 4, sizeof(float));
    cr_assert_not_null(big);
    float x[4] = {1, -2, 3, -4}, y1[3], y2[3];
    const int64_t one[2] = {1, 4}, many[2] = {BIG_BATCH, 4};
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, one, 2, x, sizeof x, 0));
    KT_OK(kiln_session_run(s));
    KT_OK(kiln_session_output_copy(s, 0, y1, sizeof y1, NULL));
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, many, 2, big,
                                 sizeof(float) * 4 * BIG_BATCH, 0));
    KT_FAILS(kiln_session_run(s), KILN_ERR_LIMIT);
    KT_FAILS(kiln_session_output_copy(s, 0, y2, sizeof y2, NULL), KILN_ERR_STATE);
    /* A failed bind keeps the previous binding (the big one here). */
    KT_FAILS(kiln_session_set_input(s, "X", KILN_DTYPE_INT32, one, 2, x, sizeof x, 0),
             KILN_ERR_DTYPE);
    KT_FAILS(kiln_session_run(s), KILN_ERR_LIMIT);
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, one, 2, x, sizeof x, 0));
    KT_OK(kiln_session_run(s));
    KT_OK(kiln_session_output_copy(s, 0, y2, sizeof y2, NULL));
    cr_assert_eq(memcmp(y1, y2, sizeof y1), 0);
    free(big);
    kiln_session_destroy(s);
    kiln_options_destroy(o);
    kiln_options_destroy(inspect);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

/* ---- threads: cancel and destroy racing a run, a shared runtime ---- */

typedef struct racer {
    kiln_session *s;
    atomic_int started, done;
    atomic_int rc;
    double returned_at;
} racer;

static void *run_once(void *arg)
{
    racer *r = arg;
    atomic_store(&r->started, 1);
    int32_t rc = kiln_session_run(r->s);
    r->returned_at = now_s();
    atomic_store(&r->rc, rc);
    atomic_store(&r->done, 1);
    return NULL;
}

static kiln_session *chain_session(kiln_model *m, float *x)
{
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    const int64_t dims[2] = {CHAIN_N, CHAIN_N};
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, dims, 2, x,
                                 sizeof(float) * CHAIN_N * CHAIN_N, 0));
    return s;
}

static float *chain_input(void)
{
    float *x = malloc(sizeof(float) * CHAIN_N * CHAIN_N);
    cr_assert_not_null(x);
    for (int i = 0; i < CHAIN_N * CHAIN_N; i++)
        x[i] = (float)(i % 7) - 3.0f + (float)(i / CHAIN_N);
    return x;
}

/* Every element of row r is the mean of row r of x. */
static void check_chain_output(kiln_session *s, const float *x)
{
    const float *y = NULL;
    KT_OK(kiln_session_output_view(s, 0, (const void **)&y, NULL));
    for (int r = 0; r < CHAIN_N; r += 37) {
        double mean = 0;
        for (int c = 0; c < CHAIN_N; c++)
            mean += x[r * CHAIN_N + c];
        mean /= CHAIN_N;
        cr_assert_float_eq(y[r * CHAIN_N + 5], mean, 1e-3 * (1 + fabs(mean)), "row %d", r);
    }
}

Test(bad_input, cancel_from_another_thread_stops_a_long_run, .timeout = 120)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *m = kt_model(rt, CHAIN);
    float *x = chain_input();
    kiln_session *s = chain_session(m, x);
    double t0 = now_s();
    KT_OK(kiln_session_run(s));
    double full = now_s() - t0;
    check_chain_output(s, x);
    int cancelled = 0;
    double worst_latency = 0;
    for (int attempt = 0; attempt < 5; attempt++) {
        racer r = {.s = s};
        pthread_t th;
        pthread_create(&th, NULL, run_once, &r);
        while (!atomic_load(&r.started))
            sleep_ms(1);
        sleep_ms(5 + attempt * 5); /* let the run get going */
        double asked = now_s();
        /* The run may not have begun its first node yet: keep asking. */
        while (!atomic_load(&r.done)) {
            KT_OK(kiln_session_cancel(s));
            sleep_ms(1);
        }
        pthread_join(th, NULL);
        int32_t rc = atomic_load(&r.rc);
        cr_assert(rc == KILN_OK || rc == KILN_ERR_CANCELLED, "run returned %d", (int)rc);
        if (rc == KILN_ERR_CANCELLED) {
            cancelled++;
            double latency = r.returned_at - asked;
            if (latency > worst_latency)
                worst_latency = latency;
        }
    }
    fprintf(stderr, "cancel: full run %.0f ms, %d of 5 runs cancelled, worst latency %.1f ms\n",
            full * 1e3, cancelled, worst_latency * 1e3);
    cr_assert_gt(cancelled, 0, "no run of %.0f ms was cancelled", full * 1e3);
    cr_assert_lt(worst_latency, full / 2 + 0.05, "cancel took %.0f ms in a %.0f ms run",
                 worst_latency * 1e3, full * 1e3);
    /* A cancel does not stick: the next run completes and is right. */
    KT_FAILS(kiln_session_output_copy(s, 0, x, 4, NULL), KILN_ERR_STATE);
    KT_OK(kiln_session_run(s));
    check_chain_output(s, x);
    kiln_session_destroy(s);
    free(x);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

/* kiln_session_destroy() while another thread is inside kiln_session_run()
 * on the same session: documented as "destroy waits for the run" (kiln.h).
 * The run must complete normally; ASan/valgrind builds check that nothing is
 * freed under it. */
Test(bad_input, destroy_waits_for_the_run, .timeout = 120)
{
    kiln_runtime *rt = kt_runtime(2);
    kiln_model *m = kt_model(rt, CHAIN);
    float *x = chain_input();
    for (int attempt = 0; attempt < 3; attempt++) {
        kiln_session *s = chain_session(m, x);
        racer r = {.s = s};
        pthread_t th;
        pthread_create(&th, NULL, run_once, &r);
        while (!atomic_load(&r.started))
            sleep_ms(1);
        sleep_ms(10);
        double t0 = now_s();
        kiln_session_destroy(s); /* blocks until the run returns */
        double waited = now_s() - t0;
        pthread_join(th, NULL);
        cr_assert_eq(atomic_load(&r.rc), KILN_OK, "the run under destroy returned %d",
                     (int)atomic_load(&r.rc));
        fprintf(stderr, "destroy waited %.1f ms for the run\n", waited * 1e3);
    }
    free(x);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

typedef struct worker {
    kiln_runtime *rt;
    const char *model;
    int runs, failures;
    int32_t last_rc;
} worker;

/* Loads its own model from the shared runtime, runs it, compares with the
 * first result. */
static void *work(void *arg)
{
    worker *w = arg;
    kiln_model *m = NULL;
    kiln_session *s = NULL;
    char path[4096]; /* not kt_src_path(): its static buffer is shared by the threads */
    snprintf(path, sizeof path, "%s/%s", KILN_SOURCE_DIR, w->model);
    if ((w->last_rc = kiln_model_load_file(w->rt, path, NULL, &m)) != KILN_OK ||
        (w->last_rc = kiln_session_create(m, NULL, &s)) != KILN_OK) {
        w->failures++;
        kiln_model_destroy(m);
        return NULL;
    }
    int chain = strcmp(w->model, CHAIN) == 0;
    int64_t n = chain ? CHAIN_N * CHAIN_N : 64;
    float *x = malloc(sizeof(float) * (size_t)n), *first = NULL;
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((i * 7) % 11) / 11.0f;
    const int64_t cd[2] = {CHAIN_N, CHAIN_N}, dd[4] = {1, 1, 8, 8};
    w->last_rc = kiln_session_set_input_at(s, 0, KILN_DTYPE_FLOAT, chain ? cd : dd, chain ? 2 : 4,
                                           x, sizeof(float) * (size_t)n, 0);
    size_t out_bytes = 0;
    for (int i = 0; w->last_rc == KILN_OK && i < w->runs; i++) {
        const void *y = NULL;
        if ((w->last_rc = kiln_session_run(s)) != KILN_OK ||
            (w->last_rc = kiln_session_output_view(s, 0, &y, &out_bytes)) != KILN_OK) {
            w->failures++;
            break;
        }
        if (!first) {
            first = malloc(out_bytes);
            memcpy(first, y, out_bytes);
        } else if (memcmp(first, y, out_bytes) != 0) {
            w->failures++;
        }
    }
    if (w->last_rc != KILN_OK)
        w->failures++;
    free(first);
    free(x);
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    return NULL;
}

Test(bad_input, threads_sharing_one_runtime, .timeout = 180)
{
    kiln_runtime *rt = kt_runtime(3); /* one pool for everyone */
    worker w[4] = {{rt, CHAIN, 3, 0, 0}, {rt, "examples/digits/digits.onnx", 300, 0, 0},
                   {rt, CHAIN, 3, 0, 0}, {rt, "examples/digits/digits.onnx", 300, 0, 0}};
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, work, &w[i]);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(w[i].failures, 0, "thread %d (%s): %d failures, last status %d", i,
                     w[i].model, w[i].failures, (int)w[i].last_rc);
    kiln_runtime_destroy(rt);
}
