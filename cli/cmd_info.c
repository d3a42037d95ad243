/* `kiln info MODEL [--plan]`: what a model takes and gives, which opsets
 * and ops it uses, which of those Kiln cannot run, and (with --plan) how
 * much the memory planner saves. */
#include "commands.h"

#include "api.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kiln info MODEL [--plan]\n\n"
            "Prints the model's inputs and outputs (name, dtype, shape; '?' marks a\n"
            "dynamic dim), its opset imports, how often each op type occurs, and the\n"
            "nodes whose op Kiln does not support.\n\n"
            "  --plan   also create a session and print the arena size next to the sum\n"
            "           of all intermediate tensor sizes (needs static input shapes)\n");
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

/* Returns 0 when the plan was printed or cannot exist for dynamic shapes,
 * 1 when planning failed for another reason. */
static int print_plan(kiln_model *model, int unsupported)
{
    if (unsupported > 0) {
        printf("memory plan: not available (the model has unsupported ops)\n");
        return EXIT_FAIL;
    }
    kiln_session *session = NULL;
    int64_t arena = 0, intermediates = 0;
    int32_t status = kiln_session_create(model, NULL, &session);
    if (status == KILN_OK)
        status = kiln_session_plan_bytes(session, &arena, &intermediates);
    kiln_session_destroy(session);
    if (status != KILN_OK) {
        char why[1200];
        format_error(status, why, sizeof why);
        if (has_dynamic_inputs(model)) {
            printf("memory plan: not available: the input shapes are dynamic (%s)\n", why);
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

int cmd_info(int argc, char **argv)
{
    const char *path = NULL;
    int plan = 0;
    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            usage(stdout);
            return EXIT_OK;
        } else if (strcmp(argv[i], "--plan") == 0) {
            plan = 1;
        } else if (is_option(argv[i]) || path) {
            fprintf(stderr, "kiln info: unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return EXIT_USAGE;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        usage(stderr);
        return EXIT_USAGE;
    }

    kiln_runtime *runtime = open_runtime(1);
    if (!runtime)
        return EXIT_FAIL;
    kiln_model *model = NULL;
    /* Load past unsupported ops so they can be listed instead of stopping at
     * the first one. */
    int32_t status = load_model(runtime, path, 1, &model);
    if (status != KILN_OK) {
        report_error("cannot load", path, status);
        kiln_runtime_destroy(runtime);
        return EXIT_FAIL;
    }
    int rc = EXIT_OK;
    printf("model: %s\n", path);
    print_opsets(model);
    int unsupported = -1;
    if (print_io(model, 1) != 0 || print_io(model, 0) != 0 ||
        (unsupported = print_ops(model)) < 0)
        rc = EXIT_FAIL;
    else if (plan)
        rc = print_plan(model, unsupported);
    kiln_model_destroy(model);
    kiln_runtime_destroy(runtime);
    return rc;
}
