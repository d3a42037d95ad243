/* `kiln quantize`: INT8 calibration of a model on sample inputs, writing a
 * standard QDQ model (kiln_calibrator_* of the public API). */
#include "api.h"
#include "commands.h"
#include "progress.h"
#include "util.h"

#include "kiln.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out, "usage: kiln quantize MODEL -o OUT.onnx --calib DIR [options]\n"
                 "\n"
                 "Runs MODEL on calibration samples, keeps a histogram of every float tensor and\n"
                 "writes OUT.onnx with QuantizeLinear/DequantizeLinear pairs: activations uint8\n"
                 "(int8 with --symmetric), weights int8 per output channel, biases int32. Any\n"
                 "runtime that reads ONNX QDQ models runs it; Kiln and ONNX Runtime do.\n"
                 "\n"
                 "  -o, --output OUT.onnx   the quantized model\n"
                 "  --calib DIR             one sub-folder per sample holding input_K.pb\n"
                 "                          TensorProto files (the ONNX test-data layout); a\n"
                 "                          file's tensor name, or else its K, picks the input\n"
                 "  --method M              minmax, percentile, entropy or mse (default mse)\n"
                 "  --percentile P          for --method percentile (default 99.99)\n"
                 "  --symmetric             int8 activations with zero point 0\n"
                 "  --exclude LIST          comma-separated op types or node names left in float\n"
                 "  --max-samples N         use at most N samples\n"
                 "  --report                print each quantized tensor: range, threshold, scale,\n"
                 "                          SQNR (dB) against float32 on the calibration data\n"
                 "  --threads N             worker threads (default 1)\n");
}

typedef struct quantize_args {
    const char *model, *output, *calib, *method, *percentile, *exclude;
    int symmetric, report, threads, max_samples;
} quantize_args;

static int parse_args(int argc, char **argv, quantize_args *a)
{
    *a = (quantize_args){.threads = 1};
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int m;
        if (is_help(argv[i])) {
            usage(stdout);
            return EXIT_OK + 100;
        }
        if ((m = arg_value(argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (m < 0)
                return EXIT_USAGE;
            a->output = v;
        } else if ((m = arg_value(argc, argv, &i, "--calib", NULL, &v)) != 0) {
            if (m < 0)
                return EXIT_USAGE;
            a->calib = v;
        } else if ((m = arg_value(argc, argv, &i, "--method", NULL, &v)) != 0) {
            if (m < 0)
                return EXIT_USAGE;
            a->method = v;
        } else if ((m = arg_value(argc, argv, &i, "--percentile", NULL, &v)) != 0) {
            if (m < 0)
                return EXIT_USAGE;
            a->percentile = v;
        } else if ((m = arg_value(argc, argv, &i, "--exclude", NULL, &v)) != 0) {
            if (m < 0)
                return EXIT_USAGE;
            a->exclude = v;
        } else if ((m = arg_value(argc, argv, &i, "--threads", NULL, &v)) != 0) {
            if (m < 0 || parse_positive_int(v, &a->threads) != 0) {
                cli_error("--threads needs a positive number");
                return EXIT_USAGE;
            }
        } else if ((m = arg_value(argc, argv, &i, "--max-samples", NULL, &v)) != 0) {
            if (m < 0 || parse_positive_int(v, &a->max_samples) != 0) {
                cli_error("--max-samples needs a positive number");
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--symmetric") == 0) {
            a->symmetric = 1;
        } else if (strcmp(argv[i], "--report") == 0) {
            a->report = 1;
        } else if (is_option(argv[i])) {
            cli_error("unknown option '%s' (see kiln quantize --help)", argv[i]);
            return EXIT_USAGE;
        } else if (!a->model) {
            a->model = argv[i];
        } else {
            cli_error("unexpected argument '%s'", argv[i]);
            return EXIT_USAGE;
        }
    }
    if (!a->model || !a->output || !a->calib) {
        cli_error("%s is required (usage: kiln quantize MODEL -o OUT.onnx --calib DIR)",
                  !a->model    ? "a MODEL"
                  : !a->output ? "-o OUT.onnx"
                               : "--calib DIR");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static int method_code(const char *name)
{
    static const char *const names[] = {"minmax", "percentile", "entropy", "mse"};
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            return KILN_CALIB_MINMAX + i;
    return 0;
}

static kiln_options *calibration_options(const quantize_args *a)
{
    kiln_options *o = NULL;
    int32_t st = kiln_options_create(&o);
    int method = a->method ? method_code(a->method) : KILN_CALIB_MSE;
    if (st == KILN_OK && !method) {
        cli_error("unknown --method '%s': minmax, percentile, entropy or mse", a->method);
        kiln_options_destroy(o);
        return NULL;
    }
    if (st == KILN_OK)
        st = kiln_options_set_int(o, KILN_OPT_CALIB_METHOD, method);
    if (st == KILN_OK)
        st = kiln_options_set_int(o, KILN_OPT_CALIB_SYMMETRIC, a->symmetric);
    if (st == KILN_OK && a->percentile)
        st = kiln_options_set_string(o, KILN_SOPT_CALIB_PERCENTILE, a->percentile);
    if (st == KILN_OK && a->exclude)
        st = kiln_options_set_string(o, KILN_SOPT_CALIB_KEEP_FLOAT, a->exclude);
    if (st != KILN_OK) {
        report_error("bad calibration option", NULL, st);
        kiln_options_destroy(o);
        return NULL;
    }
    return o;
}

/* Feeds one sample folder's input_K.pb files. Returns 0, or -1 after
 * printing what is wrong (naming the file). */
static int feed_sample(kiln_calibrator *c, const kiln_model *model, const char *dir)
{
    int32_t inputs = 0;
    kiln_model_input_count(model, &inputs);
    for (int32_t k = 0;; k++) {
        char file[32];
        snprintf(file, sizeof file, "input_%d.pb", (int)k);
        char *path = path_join(dir, file);
        size_t size = 0;
        void *bytes = path && file_exists(path) ? read_file(path, &size) : NULL;
        if (!bytes) {
            int missing = k == 0;
            if (missing)
                cli_error("%s: no input_0.pb (each sample folder holds input_K.pb files)", dir);
            free(path);
            return missing ? -1 : 0;
        }
        kiln_tensor *t = NULL;
        int32_t st = kiln_tensor_decode(bytes, size, &t);
        free(bytes);
        int32_t index = st == KILN_OK ? resolve_input(model, NULL, t, (int)k, inputs) : -1;
        int32_t dtype = 0;
        shape s = {0};
        const void *data = NULL;
        size_t nbytes = 0;
        char *name = index >= 0 ? model_input_name(model, index, &st) : NULL;
        if (name && (st = tensor_shape(t, &dtype, &s)) == KILN_OK &&
            (st = kiln_tensor_data(t, &data, &nbytes)) == KILN_OK)
            st = kiln_calibrator_set_input(c, name, dtype, s.dims, s.rank, data, nbytes);
        if (st != KILN_OK)
            report_error("cannot feed", path, st);
        int failed = st != KILN_OK || index < 0 || !name;
        shape_free(&s);
        free(name);
        free(path);
        kiln_tensor_destroy(t);
        if (failed)
            return -1;
    }
}

static const char *kind_name(int32_t kind)
{
    return kind == KILN_CALIB_TENSOR_WEIGHT ? "weight"
           : kind == KILN_CALIB_TENSOR_BIAS ? "bias"
                                            : "activation";
}

static void print_report(kiln_calibrator *c, int show_lines)
{
    int32_t lines = 0, counts[3] = {0};
    kiln_calibrator_report_count(c, &lines);
    if (show_lines)
        printf("%-10s %12s %12s %12s %12s %4s %8s  %s\n", "kind", "min", "max", "threshold",
               "scale", "zp", "SQNR dB", "tensor");
    for (int32_t i = 0; i < lines; i++) {
        int32_t kind = 0, zp = 0, need = 0;
        int64_t bad = 0;
        float st[5] = {0};
        kiln_calibrator_report_stats(c, i, &kind, &zp, &bad, st, sizeof st);
        counts[kind >= 0 && kind < 3 ? kind : 0]++;
        if (!show_lines)
            continue;
        kiln_calibrator_report_name(c, i, NULL, 0, &need);
        char *name = malloc((size_t)need);
        if (name && kiln_calibrator_report_name(c, i, name, need, NULL) == KILN_OK)
            printf("%-10s %12.5g %12.5g %12.5g %12.5g %4d %8.1f  %s%s\n", kind_name(kind), st[0],
                   st[1], st[2], st[3], (int)zp, st[4], name,
                   bad ? " (NaN/Inf values left out)" : "");
        free(name);
    }
    printf("quantized %d activations, %d weights, %d biases\n", (int)counts[0], (int)counts[1],
           (int)counts[2]);
}

int cmd_quantize(int argc, char **argv)
{
    quantize_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != EXIT_OK)
        return rc == EXIT_OK + 100 ? EXIT_OK : rc;
    char **samples = NULL;
    int n = list_subdirs(a.calib, &samples);
    if (n <= 0) {
        cli_error(n < 0 ? "cannot read --calib folder '%s'"
                        : "--calib folder '%s' has no sample sub-folders",
                  a.calib);
        free_names(samples, n > 0 ? n : 0);
        return EXIT_FAIL;
    }
    for (; a.max_samples && n > a.max_samples; n--)
        free(samples[n - 1]);
    kiln_options *options = calibration_options(&a);
    kiln_runtime *rt = options ? open_runtime(a.threads) : NULL;
    kiln_model *model = NULL;
    kiln_calibrator *c = NULL;
    int32_t st = rt ? load_model_optimized(rt, a.model, 0, 0, &model) : KILN_OK;
    if (rt && st != KILN_OK)
        report_error("cannot load", a.model, st);
    else if (rt && (st = kiln_calibrator_create(rt, a.model, options, &c)) != KILN_OK)
        report_error("cannot calibrate", a.model, st);
    rc = rt && st == KILN_OK ? EXIT_OK : EXIT_FAIL;

    progress bar;
    progress_begin(&bar, n);
    double start = now_ms();
    for (int i = 0; i < n && rc == EXIT_OK; i++) {
        progress_show(&bar, i, samples[i], 0);
        char *dir = path_join(a.calib, samples[i]);
        if (!dir || feed_sample(c, model, dir) != 0)
            rc = EXIT_FAIL;
        else if ((st = kiln_calibrator_add_batch(c)) != KILN_OK) {
            progress_clear(&bar);
            report_error("calibration run failed on", dir, st);
            rc = EXIT_FAIL;
        }
        free(dir);
    }
    progress_end(&bar);
    double calib_ms = now_ms() - start;
    if (rc == EXIT_OK && (st = kiln_calibrator_write_file(c, a.output)) != KILN_OK) {
        report_error("cannot write", a.output, st);
        rc = EXIT_FAIL;
    }
    if (rc == EXIT_OK) {
        printf("calibrated %s on %d samples in %.1f s (%.1f ms per sample), method %s, "
               "peak RSS %.1f MiB\n",
               a.model, n, calib_ms / 1000, calib_ms / n, a.method ? a.method : "mse",
               peak_rss_mib());
        print_report(c, a.report);
        printf("wrote %s\n", a.output);
    }
    kiln_calibrator_destroy(c);
    kiln_model_destroy(model);
    kiln_runtime_destroy(rt);
    kiln_options_destroy(options);
    free_names(samples, n);
    return rc;
}
