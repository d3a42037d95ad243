/* `kiln diff A.onnx [B.onnx] -i INPUTS...`: runs two models, or one model
 * under two settings, on the same inputs and compares every intermediate
 * tensor the two runs share (same name, same element count), worst first,
 * then names the first one in A's topological order whose error passes the
 * tolerance: where a quantized model, a new kernel or another backend
 * starts to go wrong. Intermediate tensors come from the public API's kept
 * values (KILN_OPT_KEEP_VALUES). */
#include "commands.h"

#include "api.h"
#include "diff_stats.h"
#include "image_input.h"
#include "input_files.h"
#include "util.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TOL_DB 20.0
#define DEFAULT_TOP 25

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: kiln diff A.onnx [B.onnx] -i [NAME=]FILE.pb ... [options]\n\n"
        "Runs A and B (B defaults to A: one model under two settings) on the same\n"
        "inputs, keeps every tensor each run computes and compares those present in\n"
        "both (same name, same element count; A is the reference). Prints one line per\n"
        "tensor, worst first: SQNR = 10 log10(sum a^2 / sum (b - a)^2) in dB, relative L2\n"
        "error ||b - a|| / ||a||, max abs error, elements, name and the node of A that\n"
        "computes it; then the first tensor in A's topological order whose SQNR is below\n"
        "--tol: the first layer that went wrong, where to look when quantization or a\n"
        "new kernel breaks a model.\n\n"
        "Tensors are compared under their names in the graph as loaded, so both models\n"
        "load without graph optimization by default (--optimize 0): fusion would remove\n"
        "the tensors inside each fused group. With it on, the tensors that survive\n"
        "(fused nodes' outputs) are still compared. Exits 0 when the comparison ran,\n"
        "whatever it found; 1 when it could not run (2: a wrong command line).\n\n"
        "  -i, --input [NAME=]FILE  an input tensor for both (repeatable; see kiln run)\n"
        "  --image [NAME=]FILE      an image input for both, with kiln run's image\n"
        "                           options (--size, --layout, --bgr, --mean, --std,\n"
        "                           --scale)\n"
        "  --tol DB                 SQNR below which a tensor is over tolerance (default\n"
        "                           %.0f dB: a relative L2 error of 0.1)\n"
        "  --top N                  print the N worst tensors (default %d; 0: all)\n"
        "  --optimize N             graph optimization level 0, 1 or 2 for both (default 0)\n"
        "  --a-optimize N, --b-optimize N    the level for A or B only\n"
        "  --no-dnnl                Kiln's own kernels only (no oneDNN) for both\n"
        "  --a-no-dnnl, --b-no-dnnl          the same for A or B only\n"
        "  --bf16                   bfloat16 arithmetic in oneDNN's convolutions and matrix\n"
        "                           products (KILN_PRECISION_BF16) for both\n"
        "  --a-bf16, --b-bf16                the same for A or B only\n"
        "  --threads N              worker threads for both (default 1)\n"
        "  --a-threads N, --b-threads N      threads for A or B only\n\n"
        "examples:\n"
        "  kiln diff model.onnx model_int8.onnx -i input_0.pb   where int8 drifts\n"
        "  kiln diff model.onnx --b-no-dnnl -i input_0.pb       oneDNN against Kiln's kernels\n"
        "  kiln diff model.onnx --optimize 2 --b-bf16 -i in.pb  what bfloat16 costs\n",
        DEFAULT_TOL_DB, DEFAULT_TOP);
}

/* How one side is loaded and run. */
typedef struct side_settings {
    const char *path;
    int optimize; /* KILN_OPT_OPTIMIZE */
    int no_dnnl;
    int bf16;     /* KILN_OPT_PRECISION = KILN_PRECISION_BF16 */
    int threads;
} side_settings;

typedef struct diff_args {
    side_settings a, b;
    const char **inputs;
    int input_count;
    image_options images;
    double tol_db;
    int top;
} diff_args;

/* A side's option: "--a-NAME" for A, "--b-NAME" for B, "--NAME" for both.
 * Returns the side mask matched (1 A, 2 B, 3 both) or 0. */
static int side_flag(const char *arg, const char *name)
{
    if (strncmp(arg, "--", 2) != 0)
        return 0;
    arg += 2;
    int mask = 3;
    if ((arg[0] == 'a' || arg[0] == 'b') && arg[1] == '-') {
        mask = arg[0] == 'a' ? 1 : 2;
        arg += 2;
    }
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == 0 || arg[n] == '=') ? mask : 0;
}

/* Parses a side option's integer value (separate or after '='). Returns 1
 * when argv[*i] was the option, 0 when not, -1 on a bad value (printed). */
static int side_int(int argc, char **argv, int *i, const char *name, int lo, int hi,
                    side_settings *a, side_settings *b, size_t field)
{
    const char *option = argv[*i];
    int mask = side_flag(option, name);
    if (!mask)
        return 0;
    const char *eq = strchr(option, '=');
    const char *text = eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    char *end = NULL;
    long v = text ? strtol(text, &end, 10) : 0;
    if (!text || end == text || *end || v < lo || v > hi) {
        cli_error("%.*s needs a number from %d to %d",
                  (int)(eq ? eq - option : (long)strlen(option)), option, lo, hi);
        return -1;
    }
    if (mask & 1)
        *(int *)((char *)a + field) = (int)v;
    if (mask & 2)
        *(int *)((char *)b + field) = (int)v;
    return 1;
}

static int parse_args(int argc, char **argv, diff_args *d)
{
    d->a = d->b = (side_settings){.threads = 1};
    d->tol_db = DEFAULT_TOL_DB;
    d->top = DEFAULT_TOP;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int m, mask;
        if (is_help(argv[i])) {
            usage(stdout);
            return 1;
        }
        if ((m = arg_value(argc, argv, &i, "--input", "-i", &v)) != 0) {
            if (m < 0)
                return -1;
            d->inputs[d->input_count++] = v;
        } else if ((m = image_parse_option(argc, argv, &i, &d->images)) != 0) {
            if (m < 0)
                return -1;
        } else if ((m = arg_value(argc, argv, &i, "--tol", NULL, &v)) != 0) {
            char *end = NULL;
            d->tol_db = m > 0 ? strtod(v, &end) : 0;
            if (m < 0 || end == v || *end || !isfinite(d->tol_db)) {
                cli_error("--tol needs a number of dB, e.g. 20");
                return -1;
            }
        } else if ((m = arg_value(argc, argv, &i, "--top", NULL, &v)) != 0) {
            if (m < 0 || parse_count(v, &d->top) != 0) {
                cli_error("--top needs a count (0: all)");
                return -1;
            }
        } else if ((m = side_int(argc, argv, &i, "optimize", 0, 2, &d->a, &d->b,
                                 offsetof(side_settings, optimize))) != 0 ||
                   (m = side_int(argc, argv, &i, "threads", 1, 1024, &d->a, &d->b,
                                 offsetof(side_settings, threads))) != 0) {
            if (m < 0)
                return -1;
        } else if ((mask = side_flag(argv[i], "no-dnnl")) != 0 && !strchr(argv[i], '=')) {
            d->a.no_dnnl |= mask & 1;
            d->b.no_dnnl |= (mask & 2) != 0;
        } else if ((mask = side_flag(argv[i], "bf16")) != 0 && !strchr(argv[i], '=')) {
            d->a.bf16 |= mask & 1;
            d->b.bf16 |= (mask & 2) != 0;
        } else if (is_option(argv[i])) {
            cli_error("unknown option '%s' (see kiln diff --help)", argv[i]);
            return -1;
        } else if (!d->a.path) {
            d->a.path = argv[i];
        } else if (!d->b.path) {
            d->b.path = argv[i];
        } else {
            cli_error("unexpected argument '%s': give at most two models", argv[i]);
            return -1;
        }
    }
    if (!d->a.path) {
        cli_error("a model is required");
        return -1;
    }
    if (!d->b.path)
        d->b.path = d->a.path;
    if (d->input_count == 0 && d->images.count == 0) {
        cli_error("give the inputs with -i FILE.pb or --image FILE");
        return -1;
    }
    return 0;
}

/* One side: its model and a session that ran on the inputs. */
typedef struct side {
    const side_settings *set;
    char label;
    kiln_runtime *runtime;
    kiln_model *model;
    kiln_session *session;
    kiln_tensor **tensors; /* the -i tensors its session borrows */
} side;

static int32_t load(side *s)
{
    kiln_options *o = NULL;
    int32_t st = kiln_options_create(&o);
    if (st == KILN_OK)
        st = kiln_options_set_int(o, KILN_OPT_OPTIMIZE, s->set->optimize);
    if (st == KILN_OK && s->set->no_dnnl)
        st = kiln_options_set_int(o, KILN_OPT_USE_DNNL, 0);
    if (st == KILN_OK)
        st = kiln_model_load_file(s->runtime, s->set->path, o, &s->model);
    if (st != KILN_OK) {
        report_error("cannot load", s->set->path, st);
    } else if ((st = kiln_options_set_int(o, KILN_OPT_KEEP_VALUES, 1)) != KILN_OK ||
               (s->set->bf16 && (st = kiln_options_set_int(o, KILN_OPT_PRECISION,
                                                           KILN_PRECISION_BF16)) != KILN_OK) ||
               (st = kiln_session_create(s->model, o, &s->session)) != KILN_OK) {
        report_error("cannot create a session for", s->set->path, st);
    }
    kiln_options_destroy(o);
    return st;
}

/* Loads side s, binds the inputs and runs it. Returns 0 or -1 (printed). */
static int run_side(side *s, diff_args *d)
{
    if (!(s->runtime = open_runtime(s->set->threads)) || load(s) != KILN_OK)
        return -1;
    int32_t inputs = 0, st;
    kiln_model_input_count(s->model, &inputs);
    char *bound = calloc((size_t)inputs + 1, 1);
    s->tensors = calloc((size_t)d->input_count + 1, sizeof *s->tensors);
    int rc = -1;
    if (!bound || !s->tensors)
        cli_error("out of memory");
    else if (bind_tensor_files(s->model, s->session, d->inputs, d->input_count, s->tensors,
                               bound) != 0 ||
             image_bind_inputs(s->model, s->session, &d->images, bound) != 0 ||
             report_missing_inputs(s->model, bound) > 0) {
        /* said why */
    } else if ((st = kiln_session_run(s->session)) != KILN_OK)
        report_error("run failed:", s->set->path, st);
    else
        rc = 0;
    free(bound);
    return rc;
}

static void side_free(side *s, int input_count)
{
    kiln_session_destroy(s->session);
    for (int k = 0; s->tensors && k < input_count; k++)
        kiln_tensor_destroy(s->tensors[k]);
    free(s->tensors);
    kiln_model_destroy(s->model);
    kiln_runtime_destroy(s->runtime);
}

/* ---- the values of a side ---- */

static char *value_name(const kiln_session *s, int32_t index)
{
    int32_t needed = 0;
    if (kiln_session_value_name(s, index, NULL, 0, &needed) != KILN_OK)
        return NULL;
    char *name = malloc((size_t)needed);
    if (name && kiln_session_value_name(s, index, name, needed, NULL) != KILN_OK) {
        free(name);
        name = NULL;
    }
    return name;
}

/* Element count of kept value name, or -1 when the run kept none. */
static int64_t value_elements(const kiln_session *s, const char *name)
{
    int64_t dims[16];
    int32_t rank = 0;
    if (kiln_session_value_info(s, name, NULL, dims, 16, &rank) != KILN_OK)
        return -1;
    int64_t n = 1;
    for (int32_t k = 0; k < rank; k++)
        n *= dims[k];
    return n;
}

/* The float copy of value name (malloc'd), or NULL after printing why. */
static float *value_floats(const kiln_session *s, const char *name, int64_t n)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *data = malloc(bytes ? bytes : 1);
    int32_t st = data ? kiln_session_value_copy(s, name, data, bytes, NULL) : KILN_OK;
    if (!data)
        cli_error("out of memory for tensor '%s' (%lld elements)", name, (long long)n);
    else if (st != KILN_OK)
        report_error("cannot read tensor", name, st);
    if (!data || st != KILN_OK) {
        free(data);
        return NULL;
    }
    return data;
}

/* ---- the comparison ---- */

typedef struct row {
    char *name;
    int32_t order; /* position in A's run: topological */
    int64_t elements;
    diff_stats stats;
} row;

/* Node of model that writes value name, its name and op type (malloc'd),
 * or -1. */
static int32_t producer(const kiln_model *model, const char *name, char **node, char **op)
{
    int32_t count = 0;
    kiln_model_node_count(model, &count);
    for (int32_t i = 0; i < count; i++) {
        int32_t n_in = 0, n_out = 0;
        kiln_model_node_io_count(model, i, &n_in, &n_out);
        for (int32_t slot = 0; slot < n_out; slot++) {
            char *value = model_node_value(model, i, 1, slot, NULL);
            int match = value && strcmp(value, name) == 0;
            free(value);
            if (match) {
                char *domain = NULL;
                *node = model_node_name(model, i, NULL);
                if (model_node_op(model, i, op, &domain) != KILN_OK)
                    *op = NULL;
                free(domain);
                return i;
            }
        }
    }
    return -1;
}

static void format_db(double db, char *buf, size_t cap)
{
    if (isinf(db))
        snprintf(buf, cap, "%s", db > 0 ? "inf" : "-inf");
    else
        snprintf(buf, cap, "%.1f", db);
}

static void print_row(const kiln_model *model, const row *r)
{
    char db[32], *node = NULL, *op = NULL;
    format_db(r->stats.sqnr_db, db, sizeof db);
    producer(model, r->name, &node, &op);
    printf("%9s %11.3g %11.4g %10lld  %s  <- %s (%s)%s\n", db, r->stats.rel_l2, r->stats.max_abs,
           (long long)r->elements, r->name, node ? node : "?", op ? op : "?",
           r->stats.mismatched ? "  NaN/Inf differ" : "");
    free(node);
    free(op);
}

static int compare_rows(const void *x, const void *y)
{
    const row *a = x, *b = y;
    if (diff_worse(&a->stats, &b->stats))
        return -1;
    if (diff_worse(&b->stats, &a->stats))
        return 1;
    return a->order - b->order;
}

static void describe(const side *s)
{
    printf("%c: %s (optimize %d%s%s, %d thread%s)\n", s->label, s->set->path, s->set->optimize,
           s->set->no_dnnl ? ", no oneDNN" : "", s->set->bf16 ? ", bf16" : "", s->set->threads,
           s->set->threads == 1 ? "" : "s");
}

/* Compares and prints. Returns 0, or -1 after printing why. */
static int compare(const side *a, const side *b, const diff_args *d)
{
    int32_t na = 0, nb = 0, st;
    if ((st = kiln_session_value_count(a->session, &na)) != KILN_OK ||
        (st = kiln_session_value_count(b->session, &nb)) != KILN_OK) {
        report_error("cannot read the kept tensors", NULL, st);
        return -1;
    }
    row *rows = calloc((size_t)na + 1, sizeof *rows);
    if (!rows) {
        cli_error("out of memory");
        return -1;
    }
    int n = 0, only_a = 0, only_b = 0, sizes_differ = 0, rc = 0;
    for (int32_t i = 0; i < na && rc == 0; i++) {
        char *name = value_name(a->session, i);
        int64_t ea = name ? value_elements(a->session, name) : -1;
        int64_t eb = name ? value_elements(b->session, name) : -1;
        float *va = NULL, *vb = NULL;
        if (!name) {
            cli_error("cannot read the name of kept tensor %d", (int)i);
            rc = -1;
        } else if (eb < 0) {
            only_a++;
        } else if (ea != eb) {
            sizes_differ++;
        } else if (!(va = value_floats(a->session, name, ea)) ||
                   !(vb = value_floats(b->session, name, eb))) {
            rc = -1;
        } else {
            rows[n] = (row){.name = name, .order = i, .elements = ea};
            diff_measure(va, vb, (size_t)ea, &rows[n].stats);
            n++;
            name = NULL;
        }
        free(va);
        free(vb);
        free(name);
    }
    for (int32_t i = 0; i < nb && rc == 0; i++) {
        char *name = value_name(b->session, i);
        if (name && value_elements(a->session, name) < 0)
            only_b++;
        free(name);
    }
    if (rc == 0) {
        describe(a);
        describe(b);
        printf("compared %d tensors present in both (same name and element count); %d only in "
               "A, %d only in B, %d with different element counts\n\n",
               n, only_a, only_b, sizes_differ);
        /* The first over tolerance, in A's order (rows are in it until sorted). */
        const row *first = NULL;
        for (int k = 0; k < n && !first; k++)
            if (rows[k].stats.sqnr_db < d->tol_db)
                first = &rows[k];
        row first_copy = first ? *first : (row){0};
        qsort(rows, (size_t)n, sizeof *rows, compare_rows);
        int shown = d->top > 0 && d->top < n ? d->top : n;
        printf("%9s %11s %11s %10s  %s\n", "SQNR dB", "rel L2", "max abs", "elements",
               "tensor  <- node (op), worst first");
        for (int k = 0; k < shown; k++)
            print_row(a->model, &rows[k]);
        if (shown < n)
            printf("... %d more (--top 0 shows all)\n", n - shown);
        char tol[32];
        format_db(d->tol_db, tol, sizeof tol);
        if (first) {
            char db[32], *node = NULL, *op = NULL;
            format_db(first_copy.stats.sqnr_db, db, sizeof db);
            producer(a->model, first_copy.name, &node, &op);
            printf("\nfirst tensor over tolerance (SQNR < %s dB), in A's topological order: %s "
                   "(produced by node %s, op %s): SQNR %s dB, relative L2 error %.3g\n",
                   tol, first_copy.name, node ? node : "?", op ? op : "?", db,
                   first_copy.stats.rel_l2);
            free(node);
            free(op);
        } else {
            printf("\nno tensor over tolerance (SQNR < %s dB)\n", tol);
        }
    }
    for (int k = 0; k < n; k++)
        free(rows[k].name);
    free(rows);
    return rc;
}

int cmd_diff(int argc, char **argv)
{
    diff_args d = {0};
    /* There cannot be more -i options than arguments. */
    d.inputs = calloc((size_t)argc, sizeof *d.inputs);
    if (!d.inputs) {
        cli_error("out of memory");
        return EXIT_FAIL;
    }
    int parsed = parse_args(argc, argv, &d);
    if (parsed != 0) {
        if (parsed < 0)
            fprintf(stderr, "(kiln diff --help describes the options)\n");
        free(d.inputs);
        image_options_free(&d.images);
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    }
    side a = {.set = &d.a, .label = 'A'}, b = {.set = &d.b, .label = 'B'};
    /* A runs before B is bound: the image tensors are reused for B. */
    int rc = run_side(&a, &d) == 0 && run_side(&b, &d) == 0 && compare(&a, &b, &d) == 0 ? EXIT_OK
                                                                                        : EXIT_FAIL;
    side_free(&a, d.input_count);
    side_free(&b, d.input_count);
    free(d.inputs);
    image_options_free(&d.images);
    return rc;
}
