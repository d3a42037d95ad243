/* `kiln bench MODEL`: how long session creation and a run take, and how much
 * memory the process peaked at, on seeded random inputs. */
#include "commands.h"

#include "api.h"
#include "bench_inputs.h"
#include "bench_profile.h"
#include "bench_novel.h"
#include "bench_sets.h"
#include "progress.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Timed runs stop after this long (but never before MIN_RUNS), so a slow
 * model still finishes in reasonable time. */
#define TIME_BUDGET_MS 10000.0
#define MIN_RUNS 5
#define SEED 0x6B696C6Eu /* "kiln": fixed so runs are reproducible */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kiln bench MODEL [--threads N] [--warmup W] [--runs R]\n"
            "                  [--shape NAME=1x3x224x224]... [--input [NAME=]FILE]...\n"
            "                  [--optimize L] [--no-dnnl] [--bf16] [--tune] [--tuning-cache FILE]\n"
            "                  [--profile [--top N]] [--json] [--device D [--device-graph]]\n"
            "                  [--set [NAME=]FILE[,[NAME=]FILE...]]... [--shapes-file F]\n\n"
            "Times model load + session creation and R runs on seeded random inputs\n"
            "(floats uniform in [-1, 1], integers in [0, 10), random bools), then reports\n"
            "the median and p90 run latency and the peak resident memory.\n\n"
            "  --threads N      worker threads (default 1)\n"
            "  --warmup W       untimed runs first (default 5)\n"
            "  --runs R         timed runs (default 50; fewer if they pass ~10 s, at\n"
            "                   least 5)\n"
            "  --shape NAME=S   shape of input NAME; dynamic dims otherwise become 1\n"
            "  --input [NAME=]FILE  take input NAME (or the input named like the tensor,\n"
            "                   or the next one) from an ONNX TensorProto file\n"
            "  --optimize L     graph optimization level 0, 1 or 2 (default 2)\n"
            "  --no-dnnl        only Kiln's own kernels, even where oneDNN could serve\n"
            "  --bf16           let oneDNN's convolutions and matrix products compute in\n"
            "                   bfloat16 where the CPU has it (KILN_PRECISION_BF16)\n"
            "  --tune           time candidate kernels at session creation\n"
            "  --tuning-cache F read and write kernel choices in file F\n"
            "  --device D       run the nodes device D's kernels accept there: cpu\n"
            "                   (default), NAME or NAME:INDEX (docs/devices.md)\n"
            "  --device-graph   with --device: record a plan made only of device work\n"
            "                   as one device graph and replay it (KILN_OPT_DEVICE_GRAPH)\n"
            "  --profile        also print time per op type and the 20 slowest steps\n"
            "                   (to stderr with --json)\n"
            "  --top N          with --profile: the N slowest steps (0: every step)\n"
            "  --json           print one JSON object: create_ms, median_ms, p90_ms,\n"
            "                   peak_rss_mb, threads, runs, model\n"
            "  --set FILES      the revisit workload of a dynamic-shape model: each\n"
            "                   --set is one input signature (a file per input); one\n"
            "                   session runs the sets in turn and reports each set's\n"
            "                   first run and its median and p90 (--json: one object\n"
            "                   per set, then one with create_ms and peak_rss_mb)\n"
            "  --shapes-file F  the novel-shape workload: each line of F is one run's\n"
            "                   shapes, NAME=DIMS[;NAME=DIMS...], on fresh random data;\n"
            "                   reports median, p90, mean, peak RSS after 100 runs and\n"
            "                   at the end, and the plans built and kept\n");
}

typedef struct bench_args {
    const char *model;
    int threads, warmup, runs, json;
    int optimize, no_dnnl, bf16, tune, profile, top, top_given;
    const char *tuning_cache;
    const char *device;
    int device_graph;
    shape_override *shapes;
    int shape_count;
    const char **input_files;
    int input_file_count;
    const char **sets;
    int set_count;
    const char *shapes_file;
} bench_args;

static void free_args(bench_args *a)
{
    free_shape_options(a->shapes, a->shape_count);
    free(a->input_files);
    free(a->sets);
}

static int parse_args(int argc, char **argv, bench_args *a)
{
    a->threads = 1;
    a->warmup = 5;
    a->runs = 50;
    a->optimize = 2;
    a->top = 20;
    a->shapes = calloc((size_t)argc, sizeof *a->shapes);
    a->input_files = calloc((size_t)argc, sizeof *a->input_files);
    a->sets = calloc((size_t)argc, sizeof *a->sets);
    if (!a->shapes || !a->input_files || !a->sets)
        return -1;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int m;
        if (is_help(argv[i])) {
            usage(stdout);
            return 1;
        }
        if (strcmp(argv[i], "--json") == 0) {
            a->json = 1;
        } else if (strcmp(argv[i], "--profile") == 0) {
            a->profile = 1;
        } else if (strcmp(argv[i], "--no-dnnl") == 0) {
            a->no_dnnl = 1;
        } else if (strcmp(argv[i], "--bf16") == 0) {
            a->bf16 = 1;
        } else if (strcmp(argv[i], "--tune") == 0) {
            a->tune = 1;
        } else if (strcmp(argv[i], "--device-graph") == 0) {
            a->device_graph = 1;
        } else if ((m = arg_value(argc, argv, &i, "--tuning-cache", NULL, &v)) != 0) {
            if (m < 0) {
                cli_error("--tuning-cache needs a file name");
                return -1;
            }
            a->tuning_cache = v;
        } else if ((m = arg_value(argc, argv, &i, "--device", NULL, &v)) != 0) {
            if (m < 0) {
                cli_error("--device needs a device: cpu, NAME or NAME:INDEX");
                return -1;
            }
            a->device = v;
        } else if ((m = arg_value(argc, argv, &i, "--input", "-i", &v)) != 0) {
            if (m < 0) {
                cli_error("--input needs [NAME=]FILE");
                return -1;
            }
            a->input_files[a->input_file_count++] = v;
        } else if ((m = arg_value(argc, argv, &i, "--shapes-file", NULL, &v)) != 0) {
            if (m < 0) {
                cli_error("--shapes-file needs a file");
                return -1;
            }
            a->shapes_file = v;
        } else if ((m = arg_value(argc, argv, &i, "--set", NULL, &v)) != 0) {
            if (m < 0) {
                cli_error("--set needs [NAME=]FILE[,[NAME=]FILE...]");
                return -1;
            }
            a->sets[a->set_count++] = v;
        } else if ((m = arg_value(argc, argv, &i, "--optimize", NULL, &v)) != 0) {
            if (m < 0 || parse_count(v, &a->optimize) != 0 || a->optimize > 2) {
                cli_error("--optimize needs 0, 1 or 2");
                return -1;
            }
        } else if ((m = arg_value(argc, argv, &i, "--threads", NULL, &v)) != 0) {
            if (m < 0 || parse_positive_int(v, &a->threads) != 0) {
                cli_error("--threads needs a positive number");
                return -1;
            }
        } else if ((m = arg_value(argc, argv, &i, "--warmup", NULL, &v)) != 0) {
            if (m < 0 || parse_count(v, &a->warmup) != 0) {
                cli_error("--warmup needs a number");
                return -1;
            }
        } else if ((m = arg_value(argc, argv, &i, "--top", NULL, &v)) != 0) {
            if (m < 0 || parse_count(v, &a->top) != 0) {
                cli_error("--top needs a number (0: every step)");
                return -1;
            }
            a->top_given = 1;
        } else if ((m = arg_value(argc, argv, &i, "--runs", NULL, &v)) != 0) {
            if (m < 0 || parse_positive_int(v, &a->runs) != 0) {
                cli_error("--runs needs a positive number");
                return -1;
            }
        } else if ((m = arg_value(argc, argv, &i, "--shape", NULL, &v)) != 0) {
            /* counted before parsing: a half-parsed override still needs freeing */
            if (parse_shape_option(m < 0 ? NULL : v, &a->shapes[a->shape_count++]) != 0)
                return -1;
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
    if (a->top_given && !a->profile) {
        /* --top only shapes the profile; alone it would do nothing */
        cli_error("--top needs --profile");
        return -1;
    }
    return 0;
}

/* Tiny models run in microseconds; show those as such rather than 0.000 ms. */
static const char *format_ms(double ms, char *buf, size_t cap)
{
    if (ms < 1.0)
        snprintf(buf, cap, "%.2f us", ms * 1000.0);
    else
        snprintf(buf, cap, "%.3f ms", ms);
    return buf;
}

static void report(const bench_args *a, const bench_input *in, int32_t count, double create_ms,
                   double *times, int runs)
{
    double median, p90;
    latency_stats(times, runs, &median, &p90);
    double rss = peak_rss_mib();
    if (a->json) {
        json_writer w;
        json_begin(&w, stdout);
        json_string(&w, "model", a->model);
        json_int(&w, "threads", a->threads);
        json_int(&w, "runs", runs);
        json_number(&w, "create_ms", create_ms);
        json_number(&w, "median_ms", median);
        json_number(&w, "p90_ms", p90);
        json_number(&w, "peak_rss_mb", rss);
        json_end(&w);
        return;
    }
    printf("model: %s\n", a->model);
    printf("threads: %d\n", a->threads);
    for (int32_t i = 0; i < count; i++) {
        char dims[512];
        format_shape(in[i].shape.dims, in[i].shape.rank, dims, sizeof dims);
        printf("input %s: %s %s\n", in[i].name, dtype_name(in[i].dtype), dims);
    }
    char c[32], m[32], p[32], lo[32];
    printf("create: %s (model load + session create)\n", format_ms(create_ms, c, sizeof c));
    printf("runs: %d timed after %d warmup\n", runs, a->warmup);
    printf("latency: median %s, p90 %s, min %s\n", format_ms(median, m, sizeof m),
           format_ms(p90, p, sizeof p), format_ms(times[0], lo, sizeof lo));
    if (rss >= 0)
        printf("peak RSS: %.1f MiB\n", rss);
    else
        printf("peak RSS: unavailable\n");
}

/* Load and session options from the command line; NULL after printing why. */
static kiln_options *bench_options(const bench_args *a)
{
    kiln_options *o = NULL;
    int32_t status = kiln_options_create(&o);
    if (status == KILN_OK)
        status = kiln_options_set_int(o, KILN_OPT_OPTIMIZE, a->optimize);
    if (status == KILN_OK)
        status = kiln_options_set_int(o, KILN_OPT_USE_DNNL, !a->no_dnnl);
    if (status == KILN_OK)
        status = kiln_options_set_int(o, KILN_OPT_TUNE, a->tune);
    if (status == KILN_OK && a->bf16)
        status = kiln_options_set_int(o, KILN_OPT_PRECISION, KILN_PRECISION_BF16);
    if (status == KILN_OK)
        status = kiln_options_set_int(o, KILN_OPT_PROFILE, a->profile);
    if (status == KILN_OK && a->tuning_cache)
        status = kiln_options_set_string(o, KILN_SOPT_TUNING_CACHE, a->tuning_cache);
    if (status == KILN_OK && a->device)
        status = kiln_options_set_string(o, KILN_SOPT_DEVICE, a->device);
    if (status == KILN_OK)
        status = kiln_options_set_int(o, KILN_OPT_DEVICE_GRAPH, a->device_graph);
    if (status != KILN_OK) {
        report_error("cannot set options", NULL, status);
        kiln_options_destroy(o);
        return NULL;
    }
    return o;
}

int cmd_bench(int argc, char **argv)
{
    bench_args a = {0};
    int parsed = parse_args(argc, argv, &a);
    if (parsed != 0) {
        if (parsed < 0)
            usage(stderr);
        free_args(&a);
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    }

    int rc = EXIT_FAIL;
    kiln_model *model = NULL;
    kiln_session *session = NULL;
    bench_input *inputs = NULL;
    int32_t count = 0, status;
    int runs = 0;
    progress bar = {0};
    double start = 0, create_ms = 0, elapsed = 0, spent = 0;
    rng r;
    double *times = calloc((size_t)a.runs, sizeof *times);
    kiln_runtime *runtime = open_runtime(a.threads);
    kiln_options *options = bench_options(&a);
    if (!runtime || !times || !options)
        goto done;

    progress_begin(&bar, 0);
    progress_show(&bar, 0, a.tune ? "loading, tuning kernels" : "loading", 1);
    start = now_ms();
    if ((status = kiln_model_load_file(runtime, a.model, options, &model)) != KILN_OK) {
        report_error("cannot load", a.model, status);
        goto done;
    }
    if ((status = kiln_session_create(model, options, &session)) != KILN_OK) {
        report_error("cannot create a session for", a.model, status);
        goto done;
    }
    create_ms = now_ms() - start;
    progress_end(&bar);

    if (a.shapes_file) {
        bench_novel_args na = {.model = a.model, .shapes_file = a.shapes_file,
                               .threads = a.threads, .json = a.json, .create_ms = create_ms};
        rc = bench_novel(model, session, &na) == 0 ? EXIT_OK : EXIT_FAIL;
        goto done;
    }
    if (a.set_count > 0) {
        bench_sets_args sa = {.model = a.model, .sets = a.sets, .set_count = a.set_count,
                              .threads = a.threads, .warmup = a.warmup, .runs = a.runs,
                              .json = a.json, .create_ms = create_ms};
        rc = bench_sets(model, session, &sa) == 0 ? EXIT_OK : EXIT_FAIL;
        goto done;
    }
    rng_seed(&r, SEED);
    if (make_inputs(model, a.shapes, a.shape_count, &r, &inputs, &count) != 0 ||
        apply_input_files(model, a.input_files, a.input_file_count, inputs, count) != 0)
        goto done;

    progress_begin(&bar, a.warmup);
    for (int i = 0; i < a.warmup && (i == 0 || spent < TIME_BUDGET_MS); i++) {
        progress_show(&bar, i + 1, "warmup", 0);
        if (bench_run_once(session, inputs, count, &elapsed) != KILN_OK)
            goto done;
        spent += elapsed;
    }
    progress_clear(&bar);
    progress_begin(&bar, a.runs);
    spent = 0;
    if (a.profile) /* only the timed runs count */
        kiln_session_profile_reset(session);
    while (runs < a.runs && (runs < MIN_RUNS || spent < TIME_BUDGET_MS)) {
        progress_show(&bar, runs + 1, "timed runs", 0);
        if (bench_run_once(session, inputs, count, &times[runs]) != KILN_OK)
            goto done;
        spent += times[runs++];
    }
    progress_end(&bar);
    report(&a, inputs, count, create_ms, times, runs);
    rc = EXIT_OK;
    if (a.profile && (status = print_profile(session, a.top, a.json ? stderr : stdout)) != KILN_OK) {
        report_error("cannot read the profile", NULL, status);
        rc = EXIT_FAIL;
    }
done:
    progress_end(&bar);
    free_inputs(inputs, count);
    kiln_session_destroy(session);
    kiln_model_destroy(model);
    kiln_runtime_destroy(runtime);
    kiln_options_destroy(options);
    free(times);
    free_args(&a);
    return rc;
}
