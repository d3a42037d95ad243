/* `kiln run MODEL -i [NAME=]FILE.pb ... [-o DIR]`: runs a model once on
 * TensorProto files and prints each output's values; with -o it also writes
 * each output as DIR/output_K.pb, the layout of the ONNX test data, so
 * results can be diffed or fed back in. */
#include "commands.h"

#include "api.h"
#include "image_input.h"
#include "input_files.h"
#include "util.h"
#include "value_print.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kiln run MODEL -i [NAME=]FILE.pb ... [-o DIR] [--threads N] [--device D]\n\n"
            "Runs MODEL once. Each -i (--input) names an ONNX TensorProto file; it binds\n"
            "to input NAME if given, else to the input named like the tensor itself, else\n"
            "to the input at the same position among the -i options. Every input must be\n"
            "given. Each output is printed: its name, dtype, shape and values (all of\n"
            "them up to 32, else the first and last 8), and for a 1-D or 2-D output the\n"
            "argmax of each row (the class of a classifier).\n\n"
            "  -i, --input [NAME=]FILE  an input tensor (repeatable)\n"
            "  -o, --output DIR         also write output K to DIR/output_K.pb (DIR is\n"
            "                           created if missing) and print one line per output\n"
            "  --threads N              worker threads (default 1)\n"
            "  --device D               run the nodes device D's kernels accept there:\n"
            "                           cpu (default), NAME or NAME:INDEX (docs/devices.md)\n");
    image_usage(out);
}

typedef struct run_args {
    const char *model;
    const char **inputs;
    int input_count;
    const char *out_dir;
    int threads;
    const char *device;   /* --device, or NULL: cpu */
    image_options images; /* --image and its settings: image_input.h */
} run_args;

static int parse_args(int argc, char **argv, run_args *a)
{
    a->threads = 1;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int m;
        if (is_help(argv[i])) {
            usage(stdout);
            return 1;
        }
        if ((m = arg_value(argc, argv, &i, "--input", "-i", &v)) != 0) {
            if (m < 0)
                return -1;
            a->inputs[a->input_count++] = v;
        } else if ((m = arg_value(argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (m < 0)
                return -1;
            a->out_dir = v;
        } else if ((m = arg_value(argc, argv, &i, "--device", NULL, &v)) != 0) {
            if (m < 0) {
                cli_error("--device needs a device: cpu, NAME or NAME:INDEX");
                return -1;
            }
            a->device = v;
        } else if ((m = image_parse_option(argc, argv, &i, &a->images)) != 0) {
            if (m < 0)
                return -1;
        } else if ((m = arg_value(argc, argv, &i, "--threads", NULL, &v)) != 0) {
            if (m < 0 || parse_positive_int(v, &a->threads) != 0) {
                cli_error("--threads needs a positive number");
                return -1;
            }
        } else if (is_option(argv[i]) || a->model) {
            cli_error("unexpected argument '%s'", argv[i]);
            return -1;
        } else {
            a->model = argv[i];
        }
    }
    if (!a->model) {
        cli_error("MODEL is required");
        return -1;
    }
    return 0;
}

/* Prints output `index` (name, dtype, shape, values) or, with a folder,
 * writes it to DIR/output_K.pb and prints a one-line summary. */
static int show_output(const kiln_model *model, const kiln_session *session, int32_t index,
                       const char *dir)
{
    int32_t status;
    char *name = model_output_name(model, index, &status);
    int32_t dtype = 0;
    shape s = {-1, NULL};
    const void *data = NULL;
    size_t nbytes = 0, size = 0;
    void *encoded = NULL;
    if (status == KILN_OK)
        status = session_output_shape(session, index, &dtype, &s);
    if (status == KILN_OK)
        status = kiln_session_output_view(session, index, &data, &nbytes);
    if (status == KILN_OK && dir)
        status = encode_tensor(name, dtype, &s, data, nbytes, &encoded, &size);
    int rc = 0;
    char dims[512];
    format_shape(s.dims, s.rank, dims, sizeof dims);
    if (status != KILN_OK) {
        char what[64];
        snprintf(what, sizeof what, "cannot get output %d", (int)index);
        report_error(what, name, status);
        rc = -1;
    } else if (!dir) {
        printf("%s: %s %s\n", name, dtype_name(dtype), dims);
        print_values(stdout, dtype, &s, data, nbytes);
    } else {
        char file[32];
        snprintf(file, sizeof file, "output_%d.pb", (int)index);
        char *path = path_join(dir, file);
        if (!path || write_file(path, encoded, size) != 0) {
            cli_error("cannot write %s: %s", path ? path : file, strerror(errno));
            rc = -1;
        } else {
            printf("%s: %s %s -> %s\n", name, dtype_name(dtype), dims, path);
        }
        free(path);
    }
    free(encoded);
    shape_free(&s);
    free(name);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    run_args a = {0};
    /* There cannot be more -i options than arguments. */
    a.inputs = calloc((size_t)argc, sizeof *a.inputs);
    kiln_tensor **tensors = calloc((size_t)argc, sizeof *tensors);
    if (!a.inputs || !tensors) {
        free(a.inputs);
        free(tensors);
        cli_error("out of memory");
        return EXIT_FAIL;
    }
    int parsed = parse_args(argc, argv, &a);
    if (parsed != 0) {
        if (parsed < 0)
            usage(stderr);
        free(a.inputs);
        free(tensors);
        image_options_free(&a.images);
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    }

    int rc = EXIT_FAIL;
    kiln_model *model = NULL;
    kiln_session *session = NULL;
    kiln_runtime *runtime = open_runtime(a.threads);
    int32_t status;
    int32_t inputs = 0, outputs = 0;
    char *bound = NULL; /* bound[i]: input i has been given */
    if (!runtime)
        goto done;
    if ((status = load_model(runtime, a.model, 0, &model)) != KILN_OK) {
        report_error("cannot load", a.model, status);
        goto done;
    }
    if ((status = create_session_on(model, a.device, 0, &session)) != KILN_OK) {
        report_error("cannot create a session for", a.model, status);
        goto done;
    }
    kiln_model_input_count(model, &inputs);
    if (!(bound = calloc((size_t)inputs + 1, 1))) {
        cli_error("out of memory");
        goto done;
    }
    if (bind_tensor_files(model, session, a.inputs, a.input_count, tensors, bound) != 0 ||
        image_bind_inputs(model, session, &a.images, bound) != 0 ||
        report_missing_inputs(model, bound) > 0)
        goto done;
    if ((status = kiln_session_run(session)) != KILN_OK) {
        report_error("run failed", NULL, status);
        goto done;
    }
    if (a.out_dir && make_dirs(a.out_dir) != 0) {
        cli_error("cannot create %s: %s", a.out_dir, strerror(errno));
        goto done;
    }
    kiln_model_output_count(model, &outputs);
    rc = EXIT_OK;
    for (int32_t k = 0; k < outputs; k++)
        if (show_output(model, session, k, a.out_dir) != 0)
            rc = EXIT_FAIL;
done:
    free(bound);
    kiln_session_destroy(session);
    for (int k = 0; k < a.input_count; k++)
        kiln_tensor_destroy(tensors[k]);
    kiln_model_destroy(model);
    kiln_runtime_destroy(runtime);
    free(tensors);
    free(a.inputs);
    image_options_free(&a.images);
    return rc;
}
