/* The calibrator through the public C API, on the digits CNN and its 20 real
 * samples: batches in, a QDQ model out that Kiln loads and runs with the
 * float model's answers, a report per tensor, every method, and the bad
 * requests (unknown input, no batch, an old opset, NaN in a batch). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln.h"
#include "test_support.h"

#define SAMPLES 20

typedef struct sample {
    float pixels[64];
    int label;
} sample;

static sample samples[SAMPLES];
static kiln_runtime *rt;

static void load_samples(void)
{
    char path[512];
    for (int i = 0; i < SAMPLES; i++) {
        int found = 0;
        for (int label = 0; label < 10 && !found; label++) {
            snprintf(path, sizeof path, "%s/examples/digits/samples/digit_%02d_label_%d.pb",
                     KILN_SOURCE_DIR, i, label);
            size_t size = 0;
            void *bytes = kt_read_file(path, &size);
            if (!bytes)
                continue;
            kiln_tensor *t = NULL;
            cr_assert_eq(kiln_tensor_decode(bytes, size, &t), KILN_OK);
            const void *data = NULL;
            size_t n = 0;
            kiln_tensor_data(t, &data, &n);
            cr_assert_eq(n, sizeof samples[i].pixels);
            memcpy(samples[i].pixels, data, n);
            samples[i].label = label;
            kiln_tensor_destroy(t);
            free(bytes);
            found = 1;
        }
        cr_assert(found, "sample %d is missing", i);
    }
}

static void setup(void)
{
    load_samples();
    cr_assert_eq(kiln_runtime_create(NULL, &rt), KILN_OK);
}

static void teardown(void) { kiln_runtime_destroy(rt); }

static const int64_t dims[4] = {1, 1, 8, 8};

static kiln_calibrator *calibrated(const kiln_options *opts)
{
    kiln_calibrator *c = NULL;
    cr_assert_eq(kiln_calibrator_create(rt, kt_src_path("examples/digits/digits.onnx"), opts, &c),
                 KILN_OK);
    for (int i = 0; i < SAMPLES; i++) {
        cr_assert_eq(kiln_calibrator_set_input(c, "image", KILN_DTYPE_FLOAT, dims, 4,
                                               samples[i].pixels, sizeof samples[i].pixels),
                     KILN_OK);
        cr_assert_eq(kiln_calibrator_add_batch(c), KILN_OK);
    }
    int32_t batches = 0;
    kiln_calibrator_batch_count(c, &batches);
    cr_assert_eq(batches, SAMPLES);
    return c;
}

/* Logits of every sample under the model in bytes. */
static void run_all(const void *bytes, size_t size, float logits[SAMPLES][10])
{
    kiln_model *m = NULL;
    kiln_session *s = NULL;
    cr_assert_eq(kiln_model_load_memory(rt, bytes, size, NULL, &m), KILN_OK);
    cr_assert_eq(kiln_session_create(m, NULL, &s), KILN_OK);
    for (int i = 0; i < SAMPLES; i++) {
        cr_assert_eq(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, dims, 4,
                                            samples[i].pixels, sizeof samples[i].pixels, 0),
                     KILN_OK);
        cr_assert_eq(kiln_session_run(s), KILN_OK);
        cr_assert_eq(kiln_session_output_copy(s, 0, logits[i], sizeof logits[i], NULL), KILN_OK);
    }
    kiln_session_destroy(s);
    kiln_model_destroy(m);
}

static int argmax(const float *v)
{
    int best = 0;
    for (int k = 1; k < 10; k++)
        best = v[k] > v[best] ? k : best;
    return best;
}

static uint8_t *written(kiln_calibrator *c, size_t *size)
{
    cr_assert_eq(kiln_calibrator_write_memory(c, NULL, 0, size), KILN_ERR_BUFFER_TOO_SMALL);
    uint8_t *bytes = malloc(*size);
    cr_assert_eq(kiln_calibrator_write_memory(c, bytes, *size, size), KILN_OK);
    return bytes;
}

TestSuite(calibrator, .init = setup, .fini = teardown);

Test(calibrator, qdq_model_answers_like_the_float_model)
{
    size_t float_size = 0;
    void *float_bytes = kt_read_file(kt_src_path("examples/digits/digits.onnx"), &float_size);
    float ref[SAMPLES][10], got[SAMPLES][10];
    run_all(float_bytes, float_size, ref);

    kiln_calibrator *c = calibrated(NULL);
    size_t size = 0;
    uint8_t *bytes = written(c, &size);
    cr_assert_gt(size, float_size / 8, "the int8 model holds the weights too");
    run_all(bytes, size, got);
    int agree = 0, right = 0;
    double worst = 0, scale = 0;
    for (int i = 0; i < SAMPLES; i++) {
        agree += argmax(got[i]) == argmax(ref[i]);
        right += argmax(got[i]) == samples[i].label;
        for (int k = 0; k < 10; k++) {
            worst = fmax(worst, fabs(got[i][k] - ref[i][k]));
            scale = fmax(scale, fabs(ref[i][k]));
        }
    }
    cr_assert_eq(agree, SAMPLES, "top-1 agreement with float32: %d of %d", agree, SAMPLES);
    cr_assert_geq(right, 19, "%d of %d labels right", right, SAMPLES);
    cr_assert(worst > 0, "the quantized model must differ from float somewhere");
    cr_assert(worst < 0.1 * scale, "max |int8 - float| %g against max |float| %g", worst, scale);

    /* The report: the image, both convolutions' inputs and outputs, the
     * Gemm's, their weights and biases. */
    int32_t lines = 0, weights = 0, biases = 0, acts = 0;
    cr_assert_eq(kiln_calibrator_report_count(c, &lines), KILN_OK);
    for (int32_t i = 0; i < lines; i++) {
        int32_t kind = -1, zp = -1;
        int64_t bad = -1;
        float stats[5];
        char name[128];
        cr_assert_eq(kiln_calibrator_report_name(c, i, name, sizeof name, NULL), KILN_OK);
        cr_assert_eq(kiln_calibrator_report_stats(c, i, &kind, &zp, &bad, stats, sizeof stats),
                     KILN_OK);
        cr_assert_eq(bad, 0);
        cr_assert(stats[0] <= stats[1], "%s: min %g max %g", name, stats[0], stats[1]);
        cr_assert(stats[3] > 0, "%s: scale %g", name, stats[3]);
        cr_assert(stats[4] > 20, "%s: SQNR %g dB", name, stats[4]);
        weights += kind == KILN_CALIB_TENSOR_WEIGHT;
        biases += kind == KILN_CALIB_TENSOR_BIAS;
        acts += kind == KILN_CALIB_TENSOR_ACTIVATION;
        if (!strcmp(name, "image"))
            cr_assert_eq(zp, 0, "pixels are never negative: uint8 from zero");
    }
    cr_assert_eq(weights, 3, "two Conv weights and the Gemm's");
    cr_assert_eq(biases, 3);
    cr_assert_geq(acts, 5);

    /* The QDQ model is a model Kiln reads back, with the pairs in it. */
    kiln_model *m = NULL;
    cr_assert_eq(kiln_model_load_memory(rt, bytes, size, NULL, &m), KILN_OK);
    kiln_model_destroy(m);
    kiln_options *raw = NULL;
    kiln_options_create(&raw);
    kiln_options_set_int(raw, KILN_OPT_OPTIMIZE, 0);
    cr_assert_eq(kiln_model_load_memory(rt, bytes, size, raw, &m), KILN_OK);
    int32_t nodes = 0, q = 0, dq = 0;
    kiln_model_node_count(m, &nodes);
    for (int32_t i = 0; i < nodes; i++) {
        char op[64];
        cr_assert_eq(kiln_model_node_op(m, i, op, sizeof op, NULL, 0, NULL), KILN_OK);
        q += !strcmp(op, "QuantizeLinear");
        dq += !strcmp(op, "DequantizeLinear");
    }
    cr_assert_eq(q, acts, "one QuantizeLinear per quantized activation");
    cr_assert_eq(dq, acts + weights + biases);
    kiln_model_destroy(m);
    kiln_options_destroy(raw);
    free(bytes);
    free(float_bytes);
    kiln_calibrator_destroy(c);
}

Test(calibrator, every_method_and_symmetric_activations_write_working_models)
{
    kiln_calibrator *c = calibrated(NULL);
    float ref[SAMPLES][10], got[SAMPLES][10];
    size_t float_size = 0;
    void *float_bytes = kt_read_file(kt_src_path("examples/digits/digits.onnx"), &float_size);
    run_all(float_bytes, float_size, ref);
    for (int method = KILN_CALIB_MINMAX; method <= KILN_CALIB_MSE; method++)
        for (int symmetric = 0; symmetric < 2; symmetric++) {
            kiln_options *o = NULL;
            kiln_options_create(&o);
            cr_assert_eq(kiln_options_set_int(o, KILN_OPT_CALIB_METHOD, method), KILN_OK);
            cr_assert_eq(kiln_options_set_int(o, KILN_OPT_CALIB_SYMMETRIC, symmetric), KILN_OK);
            cr_assert_eq(kiln_options_set_string(o, KILN_SOPT_CALIB_PERCENTILE, "99.9"), KILN_OK);
            cr_assert_eq(kiln_calibrator_configure(c, o), KILN_OK);
            kiln_options_destroy(o);
            size_t size = 0;
            uint8_t *bytes = written(c, &size);
            run_all(bytes, size, got);
            int agree = 0;
            double worst = 0;
            for (int i = 0; i < SAMPLES; i++) {
                agree += argmax(got[i]) == argmax(ref[i]);
                for (int k = 0; k < 10; k++)
                    worst = fmax(worst, fabs(got[i][k] - ref[i][k]));
            }
            cr_log_info("method %d symmetric %d: %d of %d agree, max |int8 - float| %.3f", method,
                        symmetric, agree, SAMPLES, worst);
            cr_assert_geq(agree, SAMPLES - 1, "method %d symmetric %d: %d of %d agree", method,
                          symmetric, agree, SAMPLES);
            free(bytes);
        }
    free(float_bytes);
    kiln_calibrator_destroy(c);
}

Test(calibrator, keep_float_leaves_a_node_alone)
{
    kiln_options *o = NULL;
    kiln_options_create(&o);
    cr_assert_eq(kiln_options_set_string(o, KILN_SOPT_CALIB_KEEP_FLOAT, "Gemm, MaxPool"), KILN_OK);
    kiln_calibrator *c = calibrated(o);
    kiln_options_destroy(o);
    size_t size = 0;
    uint8_t *bytes = written(c, &size);
    int32_t lines = 0, weights = 0;
    kiln_calibrator_report_count(c, &lines);
    for (int32_t i = 0; i < lines; i++) {
        int32_t kind;
        kiln_calibrator_report_stats(c, i, &kind, NULL, NULL, NULL, 0);
        weights += kind == KILN_CALIB_TENSOR_WEIGHT;
    }
    cr_assert_eq(weights, 2, "the Gemm's weight stays float");
    free(bytes);
    kiln_calibrator_destroy(c);
}

/* The weights' SQNR (dB) on each weight line of c's last report, in order;
 * returns how many. */
static int weight_sqnr(const kiln_calibrator *c, float *out, int cap)
{
    int32_t lines = 0;
    int n = 0;
    kiln_calibrator_report_count(c, &lines);
    for (int32_t i = 0; i < lines && n < cap; i++) {
        int32_t kind;
        float stats[5];
        kiln_calibrator_report_stats(c, i, &kind, NULL, NULL, stats, sizeof stats);
        if (kind == KILN_CALIB_TENSOR_WEIGHT)
            out[n++] = stats[4];
    }
    return n;
}

/* 7-bit weights ([-63, 63], for ONNX Runtime on x86 without VNNI): one bit
 * less, so about 6 dB less SQNR on every weight, and the model still
 * answers like the float one. */
Test(calibrator, seven_bit_weights_cost_one_bit_and_still_answer)
{
    size_t float_size = 0;
    void *float_bytes = kt_read_file(kt_src_path("examples/digits/digits.onnx"), &float_size);
    float ref[SAMPLES][10], got[SAMPLES][10];
    run_all(float_bytes, float_size, ref);
    kiln_calibrator *c = calibrated(NULL);
    size_t size = 0;
    free(written(c, &size));
    float eight[16], seven[16];
    int n8 = weight_sqnr(c, eight, 16);

    kiln_options *o = NULL;
    kiln_options_create(&o);
    cr_assert_eq(kiln_options_set_int(o, KILN_OPT_CALIB_WEIGHT_BITS, 7), KILN_OK);
    cr_assert_eq(kiln_calibrator_configure(c, o), KILN_OK);
    kiln_options_destroy(o);
    uint8_t *bytes = written(c, &size);
    int n7 = weight_sqnr(c, seven, 16);
    cr_assert_eq(n7, n8);
    cr_assert_gt(n8, 0);
    for (int i = 0; i < n8; i++) {
        cr_log_info("weight %d: SQNR %.2f dB with 8 bits, %.2f with 7", i, eight[i], seven[i]);
        cr_assert(seven[i] < eight[i] - 4 && seven[i] > eight[i] - 8,
                  "weight %d: %.2f dB with 7 bits against %.2f with 8", i, seven[i], eight[i]);
    }
    run_all(bytes, size, got);
    int agree = 0;
    for (int i = 0; i < SAMPLES; i++)
        agree += argmax(got[i]) == argmax(ref[i]);
    cr_assert_geq(agree, SAMPLES - 1, "%d of %d agree", agree, SAMPLES);
    free(bytes);
    free(float_bytes);
    kiln_calibrator_destroy(c);
}

static void assert_error(int32_t status, int32_t want, const char *text)
{
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    cr_assert_eq(status, want, "status %d, message: %s", status, msg);
    cr_assert(strstr(msg, text), "message '%s' lacks '%s'", msg, text);
}

Test(calibrator, bad_requests_are_clear_errors)
{
    kiln_calibrator *c = NULL;
    assert_error(kiln_calibrator_create(rt, "/nonexistent/model.onnx", NULL, &c), KILN_ERR_IO,
                 "No such file or directory");
    cr_assert_eq(kiln_calibrator_create(rt, kt_src_path("examples/digits/digits.onnx"), NULL, &c),
                 KILN_OK);
    assert_error(kiln_calibrator_write_file(c, "/tmp/never.onnx"), KILN_ERR_STATE,
                 "no calibration batch");
    kiln_options *bits = NULL;
    kiln_options_create(&bits);
    assert_error(kiln_options_set_int(bits, KILN_OPT_CALIB_WEIGHT_BITS, 4),
                 KILN_ERR_INVALID_ARGUMENT, "calib_weight_bits must be 8 or 7, got 4");
    kiln_options_destroy(bits);
    assert_error(kiln_calibrator_set_input(c, "imgae", KILN_DTYPE_FLOAT, dims, 4, samples[0].pixels,
                                           sizeof samples[0].pixels),
                 KILN_ERR_NOT_FOUND, "its inputs are: 'image'");
    int64_t bad_dims[4] = {1, 1, 8, 7};
    cr_assert_neq(kiln_calibrator_set_input(c, "image", KILN_DTYPE_FLOAT, bad_dims, 4,
                                            samples[0].pixels, 56 * sizeof(float)),
                  KILN_OK);
    assert_error(kiln_calibrator_report_count(c, &(int32_t){0}), KILN_ERR_STATE,
                 "write the quantized model first");

    /* NaN in a batch: counted and left out, the batch still counts. */
    float with_nan[64];
    memcpy(with_nan, samples[0].pixels, sizeof with_nan);
    with_nan[10] = NAN;
    cr_assert_eq(
        kiln_calibrator_set_input(c, "image", KILN_DTYPE_FLOAT, dims, 4, with_nan, sizeof with_nan),
        KILN_OK);
    cr_assert_eq(kiln_calibrator_add_batch(c), KILN_OK);
    size_t size = 0;
    free(written(c, &size));
    int32_t lines = 0;
    int64_t image_bad = -1;
    kiln_calibrator_report_count(c, &lines);
    for (int32_t i = 0; i < lines; i++) {
        char name[128];
        kiln_calibrator_report_name(c, i, name, sizeof name, NULL);
        if (!strcmp(name, "image"))
            kiln_calibrator_report_stats(c, i, NULL, NULL, &image_bad, NULL, 0);
    }
    cr_assert_eq(image_bad, 1, "the one NaN pixel is reported");
    assert_error(kiln_calibrator_write_file(c, "/nonexistent/dir/out.onnx"), KILN_ERR_IO,
                 "No such file or directory");
    kiln_calibrator_destroy(c);

    kiln_options *o = NULL;
    kiln_options_create(&o);
    assert_error(kiln_options_set_int(o, KILN_OPT_CALIB_METHOD, 9), KILN_ERR_INVALID_ARGUMENT,
                 "calib_method must be");
    assert_error(kiln_options_set_string(o, KILN_SOPT_CALIB_PERCENTILE, "101"),
                 KILN_ERR_INVALID_ARGUMENT, "in (0, 100]");
    assert_error(kiln_options_set_string(o, KILN_SOPT_CALIB_PERCENTILE, "high"),
                 KILN_ERR_INVALID_ARGUMENT, "got 'high'");
    kiln_options_destroy(o);

    assert_error(kiln_calibrator_create_memory(rt, "not a model", 11, NULL, &c),
                 KILN_ERR_INVALID_MODEL, "");
    cr_assert_null(c);
    /* a sample passed as the model: the message names the file */
    assert_error(kiln_calibrator_create(
                     rt, kt_src_path("examples/digits/samples/digit_00_label_5.pb"), NULL, &c),
                 KILN_ERR_INVALID_MODEL, "digit_00_label_5.pb");
    cr_assert_null(c);
}
