/* `kiln quantize`: INT8 calibration of a model on sample inputs, writing a
 * standard QDQ model (kiln_calibrator_* of the public API). */
#include "api.h"
#include "commands.h"
#include "image_input.h"
#include "progress.h"
#include "util.h"

#include "kiln.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out, "usage: kiln quantize MODEL -o OUT.onnx --calib DIR [options]\n"
                 "       kiln quantize MODEL -o OUT.onnx --calib-images DIR [image options]\n"
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
                 "  --calib-images DIR      every image file in DIR (by name: .png .jpg .jpeg\n"
                 "                          .webp .jp2 .j2k .bmp .ppm .pgm .pnm .tif .tiff) is\n"
                 "                          one sample of the model's one input, a float32\n"
                 "                          tensor of rank 4, made as 'kiln run --image' makes\n"
                 "                          it (the image options below); files in name order\n"
                 "  --method M              minmax, percentile, entropy or mse (default mse)\n"
                 "  --percentile P          for --method percentile (default 99.99)\n"
                 "  --symmetric             int8 activations with zero point 0\n"
                 "  --weight-bits B         8 (weights over [-127, 127], default) or 7 (over\n"
                 "                          [-63, 63]: ONNX Runtime on x86 without VNNI then\n"
                 "                          computes the model exactly; its uint8 x int8\n"
                 "                          products saturate with 8-bit weights)\n"
                 "  --exclude LIST          comma-separated op types or node names left in float\n"
                 "  --max-samples N         use at most N samples\n"
                 "  --report                print each quantized tensor: range, threshold, scale,\n"
                 "                          SQNR (dB) against float32 on the calibration data\n"
                 "  --threads N             worker threads (default 1)\n"
                 "\n"
                 "image options (with --calib-images; as in kiln run):\n");
    image_prep_usage(out);
}

typedef struct quantize_args {
    const char *model, *output, *calib, *calib_images, *method, *percentile, *exclude;
    int symmetric, report, threads, max_samples, weight_bits;
    image_options images; /* preprocessing for --calib-images (image_input.h) */
} quantize_args;

static int parse_args(int argc, char **argv, quantize_args *a)
{
    *a = (quantize_args){.threads = 1, .weight_bits = 8};
    int image_options_set = 0;
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
        } else if ((m = arg_value(argc, argv, &i, "--calib-images", NULL, &v)) != 0) {
            if (m < 0)
                return EXIT_USAGE;
            a->calib_images = v;
        } else if ((m = image_parse_prep_option(argc, argv, &i, &a->images)) != 0) {
            if (m < 0)
                return EXIT_USAGE;
            image_options_set = 1;
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
        } else if ((m = arg_value(argc, argv, &i, "--weight-bits", NULL, &v)) != 0) {
            if (m < 0 || (strcmp(v, "7") != 0 && strcmp(v, "8") != 0)) {
                cli_error("--weight-bits needs 8 or 7");
                return EXIT_USAGE;
            }
            a->weight_bits = v[0] - '0';
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
    if (!a->model || !a->output || (!a->calib && !a->calib_images)) {
        cli_error("%s is required (usage: kiln quantize MODEL -o OUT.onnx --calib DIR, or "
                  "--calib-images DIR)",
                  !a->model    ? "a MODEL"
                  : !a->output ? "-o OUT.onnx"
                               : "--calib DIR or --calib-images DIR");
        return EXIT_USAGE;
    }
    if (a->calib && a->calib_images) {
        cli_error("give --calib or --calib-images, not both");
        return EXIT_USAGE;
    }
    if (image_options_set && !a->calib_images) {
        cli_error("the image options (--size, --layout, --bgr, --mean, --std, --scale) go with "
                  "--calib-images");
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
    if (st == KILN_OK)
        st = kiln_options_set_int(o, KILN_OPT_CALIB_WEIGHT_BITS, a->weight_bits);
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

/* 1 when a file name ends like an image file kiln_image_decode reads (the
 * decoder itself goes by the first bytes; the name only keeps a folder's
 * labels.txt or README out of the samples). */
static int is_image_name(const char *name)
{
    static const char *const extensions[] = {"png", "jpg", "jpeg", "webp", "jp2", "j2k",
                                             "bmp", "ppm", "pgm",  "pnm",  "tif", "tiff"};
    const char *dot = strrchr(name, '.');
    if (!dot || dot == name)
        return 0;
    for (size_t e = 0; e < sizeof extensions / sizeof extensions[0]; e++) {
        const char *x = extensions[e];
        size_t n = strlen(x);
        if (strlen(dot + 1) != n)
            continue;
        size_t k = 0;
        while (k < n && tolower((unsigned char)dot[1 + k]) == x[k])
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

/* The calibration samples in name order: sub-folders of --calib, or the
 * image files of --calib-images. */
typedef struct sample_list {
    const char *dir;
    char **names;
    int count;
    int images;  /* names are image files */
    int skipped; /* files in an image folder not named as images */
} sample_list;

/* Returns 0, or -1 after printing why there are none. */
static int list_samples(const quantize_args *a, sample_list *out)
{
    *out = (sample_list){.dir = a->calib_images ? a->calib_images : a->calib,
                         .images = a->calib_images != NULL};
    int n = out->images ? list_files(out->dir, &out->names) : list_subdirs(out->dir, &out->names);
    if (n < 0) {
        cli_error("cannot read %s folder '%s': %s", out->images ? "--calib-images" : "--calib",
                  out->dir, strerror(errno));
        return -1;
    }
    if (out->images) { /* keep the image names, in order */
        int kept = 0;
        const char *other = NULL;
        for (int i = 0; i < n; i++) {
            if (is_image_name(out->names[i])) {
                out->names[kept++] = out->names[i];
                continue;
            }
            out->skipped++;
            if (!other)
                other = out->names[i];
            else
                free(out->names[i]);
        }
        if (kept == 0) {
            cli_error("--calib-images folder '%s' has no image files (.png, .jpg, .jpeg, "
                      ".webp, .jp2, .bmp, .ppm, .pgm, .tif, ...)%s%s%s",
                      out->dir, other ? "; it has other files, e.g. '" : "", other ? other : "",
                      other ? "'" : "");
        }
        free((char *)other);
        n = kept;
    } else if (n == 0) {
        cli_error("--calib folder '%s' has no sample sub-folders", out->dir);
    }
    if (n == 0) {
        free(out->names);
        out->names = NULL;
        return -1;
    }
    out->count = n;
    for (; a->max_samples && out->count > a->max_samples; out->count--)
        free(out->names[out->count - 1]);
    return 0;
}

/* The one input --calib-images feeds. Returns its index, or -1 after
 * saying why the model cannot be calibrated on images alone. */
static int32_t image_input_index(const kiln_model *model, const char *model_path)
{
    int32_t count = 0;
    kiln_model_input_count(model, &count);
    if (count == 1 && image_input_fits(model, 0))
        return 0;
    /* Each input with its dtype and shape, for the message. */
    char list[1024] = "";
    size_t used = 0;
    for (int32_t i = 0; i < count && used < sizeof list; i++) {
        char *name = model_input_name(model, i, NULL);
        int32_t dtype = 0;
        shape s = {-1, NULL};
        kiln_model_input_dtype(model, i, &dtype);
        model_input_shape(model, i, &s);
        char dims[256];
        format_dims(s.dims, s.rank, dims, sizeof dims);
        int w = snprintf(list + used, sizeof list - used, "%s'%s' (%s, %s)", i ? ", " : "",
                         name ? name : "?", dtype ? dtype_name(dtype) : "any dtype", dims);
        used += w > 0 ? (size_t)w : 0;
        shape_free(&s);
        free(name);
    }
    if (count == 1)
        cli_error("--calib-images: %s's input %s is not an image: images feed a float32 input "
                  "of rank 4; calibrate it with --calib folders of input_0.pb files",
                  model_path, list);
    else
        cli_error("--calib-images gives each sample one image, but %s has %d inputs: %s; each "
                  "of them needs a value per sample: calibrate it with --calib folders holding "
                  "input_K.pb for every input",
                  model_path, (int)count, list);
    return -1;
}

/* One image file as the sample for input `index` (named name). Returns 0,
 * or -1 after printing what is wrong, naming the file. */
static int feed_image(kiln_calibrator *c, const kiln_model *model, int32_t index, const char *name,
                      const image_options *o, const char *path)
{
    int64_t dims[4];
    size_t nbytes = 0;
    float *tensor = image_load_input(model, index, o, path, dims, &nbytes);
    if (!tensor)
        return -1;
    int32_t st = kiln_calibrator_set_input(c, name, KILN_DTYPE_FLOAT, dims, 4, tensor, nbytes);
    free(tensor);
    if (st != KILN_OK) {
        report_error("cannot feed", path, st);
        return -1;
    }
    return 0;
}

int cmd_quantize(int argc, char **argv)
{
    quantize_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != EXIT_OK) {
        image_options_free(&a.images);
        return rc == EXIT_OK + 100 ? EXIT_OK : rc;
    }
    sample_list samples;
    if (list_samples(&a, &samples) != 0)
        return EXIT_FAIL;
    int n = samples.count;
    kiln_options *options = calibration_options(&a);
    kiln_runtime *rt = options ? open_runtime(a.threads) : NULL;
    kiln_model *model = NULL;
    kiln_calibrator *c = NULL;
    int32_t st = rt ? load_model_optimized(rt, a.model, 0, 0, &model) : KILN_OK;
    int32_t image_index = -1;
    char *image_name = NULL;
    if (rt && st != KILN_OK)
        report_error("cannot load", a.model, st);
    else if (rt && samples.images && (image_index = image_input_index(model, a.model)) < 0)
        st = KILN_ERR_INVALID_ARGUMENT; /* image_input_index said why */
    else if (rt && samples.images && !(image_name = model_input_name(model, image_index, &st)))
        report_error("cannot read the input name of", a.model, st);
    else if (rt && (st = kiln_calibrator_create(rt, a.model, options, &c)) != KILN_OK)
        report_error("cannot calibrate", a.model, st);
    rc = rt && st == KILN_OK ? EXIT_OK : EXIT_FAIL;

    progress bar;
    progress_begin(&bar, n);
    double start = now_ms();
    for (int i = 0; i < n && rc == EXIT_OK; i++) {
        progress_show(&bar, i, samples.names[i], 0);
        char *path = path_join(samples.dir, samples.names[i]);
        if (!path)
            rc = EXIT_FAIL;
        else if (samples.images ? feed_image(c, model, image_index, image_name, &a.images, path)
                                : feed_sample(c, model, path))
            rc = EXIT_FAIL;
        else if ((st = kiln_calibrator_add_batch(c)) != KILN_OK) {
            progress_clear(&bar);
            report_error("calibration run failed on", path, st);
            rc = EXIT_FAIL;
        }
        free(path);
    }
    progress_end(&bar);
    double calib_ms = now_ms() - start;
    if (rc == EXIT_OK && (st = kiln_calibrator_write_file(c, a.output)) != KILN_OK) {
        report_error("cannot write", a.output, st);
        rc = EXIT_FAIL;
    }
    if (rc == EXIT_OK) {
        printf("calibrated %s on %d %s in %.1f s (%.1f ms per sample), method %s, "
               "peak RSS %.1f MiB\n",
               a.model, n, samples.images ? "images" : "samples", calib_ms / 1000, calib_ms / n,
               a.method ? a.method : "mse", peak_rss_mib());
        if (samples.skipped)
            printf("left out %d file%s of %s not named as images\n", samples.skipped,
                   samples.skipped == 1 ? "" : "s", samples.dir);
        print_report(c, a.report);
        printf("wrote %s\n", a.output);
    }
    kiln_calibrator_destroy(c);
    kiln_model_destroy(model);
    kiln_runtime_destroy(rt);
    kiln_options_destroy(options);
    free(image_name);
    free_names(samples.names, n);
    image_options_free(&a.images);
    return rc;
}
