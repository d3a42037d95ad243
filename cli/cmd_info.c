/* `kiln info MODEL [--optimize L] [--plan [--shape ...]] [--dot FILE]`: what
 * a model takes and gives, which opsets and ops it uses (in the graph as
 * optimized at level L), which of those Kiln cannot run, (with --plan) how
 * much the memory planner saves, and (with --dot) a picture of the graph. */
#include "commands.h"

#include "api.h"
#include "bench_inputs.h"
#include "info_graph.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kiln info MODEL [--optimize L] [--plan [--shape NAME=1x3x224x224]...]\n"
            "                 [--dot FILE.dot] [--svg FILE.svg]\n\n"
            "Prints the model's inputs and outputs (name, dtype, shape; '?' marks a\n"
            "dynamic dim), its opset imports, how often each op type occurs, and the\n"
            "nodes whose op Kiln does not support.\n\n"
            "  --optimize L  show the graph at optimization level L: 0 = as in the file,\n"
            "                1 = basic, 2 = all, with fused nodes (default 2, what runs)\n"
            "  --plan        also create a session and print the arena size next to the\n"
            "                sum of all intermediate tensor sizes\n"
            "  --shape NAME=S  with --plan: the shape of input NAME for the plan (dynamic\n"
            "                dims not given become 1); the model runs once on random data\n"
            "  --dot FILE    write the graph as Graphviz DOT; nodes the optimizer made\n"
            "                (fused) are orange and list the ops they stand for. A name\n"
            "                ending in .svg writes an SVG instead\n"
            "  --svg FILE    render the graph to SVG with Graphviz's dot program (the\n"
            "                graphviz package), which must be on PATH\n");
}

/* ---- op histogram ---- */

typedef struct op_count {
    char *op; /* "Conv", or "domain:Op" outside ai.onnx */
    int count;
} op_count;

static int by_count(const void *a, const void *b)
{
    const op_count *x = a, *y = b;
    if (x->count != y->count)
        return y->count - x->count;
    return strcmp(x->op, y->op);
}

static int is_default_domain(const char *domain)
{
    return domain[0] == '\0' || strcmp(domain, "ai.onnx") == 0;
}

/* Opset version imported for a node's domain, 0 if not imported. */
static int32_t domain_opset(const kiln_model *model, const char *domain)
{
    int32_t count = 0;
    kiln_model_opset_count(model, &count);
    for (int32_t i = 0; i < count; i++) {
        char *d = NULL;
        int32_t version = 0;
        if (model_opset(model, i, &d, &version) != KILN_OK)
            continue;
        int match = strcmp(d, domain) == 0 ||
                    (is_default_domain(d) && is_default_domain(domain));
        free(d);
        if (match)
            return version;
    }
    return 0;
}

static int print_io(const kiln_model *model, int inputs)
{
    int32_t count = 0;
    int32_t status = inputs ? kiln_model_input_count(model, &count)
                            : kiln_model_output_count(model, &count);
    if (status != KILN_OK) {
        report_error("cannot read", inputs ? "inputs" : "outputs", status);
        return -1;
    }
    printf("%s (%d):\n", inputs ? "inputs" : "outputs", (int)count);
    for (int32_t i = 0; i < count; i++) {
        char *name = inputs ? model_input_name(model, i, &status)
                            : model_output_name(model, i, &status);
        int32_t dtype = 0;
        shape s = {-1, NULL};
        if (status == KILN_OK)
            status = inputs ? kiln_model_input_dtype(model, i, &dtype)
                            : kiln_model_output_dtype(model, i, &dtype);
        if (status == KILN_OK)
            status = inputs ? model_input_shape(model, i, &s) : model_output_shape(model, i, &s);
        if (status != KILN_OK) {
            report_error("cannot read", inputs ? "an input" : "an output", status);
            free(name);
            return -1;
        }
        char dims[512];
        format_shape(s.dims, s.rank, dims, sizeof dims);
        printf("  %s: %s %s\n", name, dtype ? dtype_name(dtype) : "(any dtype)", dims);
        free(name);
        shape_free(&s);
    }
    return 0;
}

static void print_opsets(const kiln_model *model)
{
    int32_t count = 0;
    kiln_model_opset_count(model, &count);
    printf("opset imports:");
    for (int32_t i = 0; i < count; i++) {
        char *domain = NULL;
        int32_t version = 0;
        if (model_opset(model, i, &domain, &version) != KILN_OK)
            continue;
        printf("%s %s %d", i ? "," : "", domain[0] ? domain : "ai.onnx", (int)version);
        free(domain);
    }
    printf("%s\n", count ? "" : " none");
}

static int add_op(op_count **ops, int *n, int *cap, const char *op, const char *domain)
{
    size_t len = strlen(op) + strlen(domain) + 2;
    char *key = malloc(len);
    if (!key)
        return -1;
    if (is_default_domain(domain))
        snprintf(key, len, "%s", op);
    else
        snprintf(key, len, "%s:%s", domain, op);
    for (int i = 0; i < *n; i++) {
        if (strcmp((*ops)[i].op, key) == 0) {
            (*ops)[i].count++;
            free(key);
            return 0;
        }
    }
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 32;
        op_count *bigger = realloc(*ops, sizeof **ops * (size_t)*cap);
        if (!bigger) {
            free(key);
            return -1;
        }
        *ops = bigger;
    }
    (*ops)[(*n)++] = (op_count){key, 1};
    return 0;
}

/* Prints the histogram and the unsupported nodes; returns how many nodes
 * are unsupported, or -1 on error. */
static int print_ops(const kiln_model *model)
{
    int32_t nodes = 0;
    int32_t status = kiln_model_node_count(model, &nodes);
    if (status != KILN_OK) {
        report_error("cannot read", "nodes", status);
        return -1;
    }
    op_count *ops = NULL;
    int n = 0, cap = 0, unsupported = 0, failed = 0;
    for (int32_t i = 0; i < nodes && !failed; i++) {
        char *op = NULL, *domain = NULL;
        status = model_node_op(model, i, &op, &domain);
        if (status != KILN_OK || add_op(&ops, &n, &cap, op, domain) != 0)
            failed = 1;
        free(op);
        free(domain);
    }
    if (failed) {
        report_error("cannot read", "node ops", status ? status : KILN_ERR_OUT_OF_MEMORY);
        for (int i = 0; i < n; i++)
            free(ops[i].op);
        free(ops);
        return -1;
    }
    qsort(ops, (size_t)n, sizeof *ops, by_count);
    printf("ops (%d node%s, %d type%s):\n", (int)nodes, nodes == 1 ? "" : "s", n,
           n == 1 ? "" : "s");
    for (int i = 0; i < n; i++) {
        printf("  %-24s %d\n", ops[i].op, ops[i].count);
        free(ops[i].op);
    }
    free(ops);

    for (int32_t i = 0; i < nodes; i++) {
        int32_t supported = 1;
        if (kiln_model_node_supported(model, i, &supported) != KILN_OK || supported)
            continue;
        if (unsupported++ == 0)
            printf("unsupported nodes:\n");
        char *op = NULL, *domain = NULL;
        char *name = model_node_name(model, i, NULL);
        if (model_node_op(model, i, &op, &domain) == KILN_OK)
            printf("  %s: %s (domain %s, opset %d)\n", name ? name : "?", op,
                   domain[0] ? domain : "ai.onnx", (int)domain_opset(model, domain));
        free(name);
        free(op);
        free(domain);
    }
    if (unsupported == 0)
        printf("unsupported nodes: none\n");
    return unsupported;
}

static void format_bytes(int64_t bytes, char *buf, size_t cap)
{
    if (bytes < 1024)
        snprintf(buf, cap, "%lld B", (long long)bytes);
    else if (bytes < 1024 * 1024)
        snprintf(buf, cap, "%.1f KiB", (double)bytes / 1024.0);
    else
        snprintf(buf, cap, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
}

static int has_dynamic_inputs(const kiln_model *model)
{
    int32_t count = 0;
    kiln_model_input_count(model, &count);
    for (int32_t i = 0; i < count; i++) {
        shape s = {-1, NULL};
        if (model_input_shape(model, i, &s) != KILN_OK)
            return 1;
        int dynamic = shape_elements(&s) < 0;
        shape_free(&s);
        if (dynamic)
            return 1;
    }
    return 0;
}

/* A plan for given shapes exists once the session has run on them, so it
 * runs once on seeded random data of those shapes. Returns a status, or
 * -1 after printing why the inputs could not be made. */
static int32_t plan_for_shapes(kiln_model *model, kiln_session *session, shape_override *shapes,
                               int shape_count)
{
    rng r;
    rng_seed(&r, 1);
    bench_input *inputs = NULL;
    int32_t count = 0;
    double elapsed = 0;
    int32_t status = -1;
    if (make_inputs(model, shapes, shape_count, &r, &inputs, &count) == 0)
        status = bench_run_once(session, inputs, count, &elapsed);
    free_inputs(inputs, count);
    return status;
}

/* Returns 0 when the plan was printed or cannot exist for dynamic shapes,
 * 1 when planning failed for another reason. */
static int print_plan(kiln_model *model, int unsupported, shape_override *shapes,
                      int shape_count)
{
    if (unsupported > 0) {
        printf("memory plan: not available (the model has unsupported ops)\n");
        return EXIT_FAIL;
    }
    kiln_session *session = NULL;
    int64_t arena = 0, intermediates = 0;
    int32_t status = kiln_session_create(model, NULL, &session);
    if (status == KILN_OK && shape_count > 0)
        status = plan_for_shapes(model, session, shapes, shape_count);
    if (status < 0) { /* the inputs could not be made; make_inputs said why */
        kiln_session_destroy(session);
        return EXIT_FAIL;
    }
    if (status == KILN_OK)
        status = kiln_session_plan_bytes(session, &arena, &intermediates);
    kiln_session_destroy(session);
    if (status != KILN_OK) {
        char why[1200];
        format_error(status, why, sizeof why);
        if (shape_count == 0 && has_dynamic_inputs(model)) {
            printf("memory plan: not available: the input shapes are dynamic; give them with "
                   "--shape NAME=DIMS (%s)\n", why);
            return EXIT_OK;
        }
        printf("memory plan: not available: %s\n", why);
        return EXIT_FAIL;
    }
    char a[32], b[32];
    format_bytes(arena, a, sizeof a);
    format_bytes(intermediates, b, sizeof b);
    if (intermediates > 0)
        printf("memory plan: arena %s, intermediates %s (%.0f %%)\n", a, b,
               100.0 * (double)arena / (double)intermediates);
    else
        printf("memory plan: arena %s, intermediates %s\n", a, b);
    return EXIT_OK;
}

typedef struct info_args {
    const char *path;
    int plan, optimize;
    shape_override *shapes;
    int shape_count;
    graph_files graph;
} info_args;

/* Returns 0, 1 after --help, or -1 on bad usage (printed). */
static int parse_args(int argc, char **argv, info_args *a)
{
    a->optimize = 2;
    /* There cannot be more --shape options than arguments. */
    if (!(a->shapes = calloc((size_t)argc, sizeof *a->shapes))) {
        cli_error("out of memory");
        return -1;
    }
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int m;
        if (is_help(argv[i])) {
            usage(stdout);
            return 1;
        } else if (strcmp(argv[i], "--plan") == 0) {
            a->plan = 1;
        } else if ((m = arg_value(argc, argv, &i, "--optimize", NULL, &v)) != 0) {
            if (m < 0 || parse_count(v, &a->optimize) != 0 || a->optimize > 2) {
                cli_error("--optimize needs 0, 1 or 2");
                return -1;
            }
        } else if ((m = arg_value(argc, argv, &i, "--shape", NULL, &v)) != 0) {
            if (parse_shape_option(m < 0 ? NULL : v, &a->shapes[a->shape_count++]) != 0)
                return -1;
        } else if ((m = arg_value(argc, argv, &i, "--dot", NULL, &v)) != 0) {
            if (m < 0)
                return -1;
            a->graph.dot = v;
        } else if ((m = arg_value(argc, argv, &i, "--svg", NULL, &v)) != 0) {
            if (m < 0)
                return -1;
            a->graph.svg = v;
        } else if (is_option(argv[i]) || a->path) {
            cli_error("unexpected argument '%s'", argv[i]);
            return -1;
        } else {
            a->path = argv[i];
        }
    }
    if (!a->path) {
        cli_error("MODEL is required");
        return -1;
    }
    if (a->shape_count > 0 && !a->plan) {
        /* the shapes only feed the plan; alone they would do nothing */
        cli_error("--shape needs --plan");
        return -1;
    }
    return 0;
}

int cmd_info(int argc, char **argv)
{
    info_args a = {0};
    int parsed = parse_args(argc, argv, &a);
    if (parsed != 0) {
        if (parsed < 0)
            usage(stderr);
        free_shape_options(a.shapes, a.shape_count);
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    }

    kiln_runtime *runtime = open_runtime(1);
    if (!runtime) {
        free_shape_options(a.shapes, a.shape_count);
        return EXIT_FAIL;
    }
    kiln_model *model = NULL;
    /* Load past unsupported ops so they can be listed instead of stopping at
     * the first one. */
    int32_t status = load_model_optimized(runtime, a.path, 1, a.optimize, &model);
    if (status != KILN_OK) {
        report_error("cannot load", a.path, status);
        kiln_runtime_destroy(runtime);
        free_shape_options(a.shapes, a.shape_count);
        return EXIT_FAIL;
    }
    int rc = EXIT_OK;
    printf("model: %s\n", a.path);
    printf("graph: %s\n", a.optimize == 0 ? "as in the file (--optimize 0)"
                          : a.optimize == 1 ? "basic optimizations (--optimize 1)"
                                            : "optimized, as it runs (--optimize 2)");
    print_opsets(model);
    int unsupported = -1;
    if (print_io(model, 1) != 0 || print_io(model, 0) != 0 ||
        (unsupported = print_ops(model)) < 0)
        rc = EXIT_FAIL;
    else if (a.plan)
        rc = print_plan(model, unsupported, a.shapes, a.shape_count);
    if (unsupported >= 0 && (a.graph.dot || a.graph.svg) &&
        write_graph_files(runtime, a.path, model, a.optimize, a.graph) != 0)
        rc = EXIT_FAIL;
    kiln_model_destroy(model);
    kiln_runtime_destroy(runtime);
    free_shape_options(a.shapes, a.shape_count);
    return rc;
}
