/* `kiln check DIR...`: runs ONNX backend test-case folders through the
 * public API and compares every output with the expected one. One line per
 * case, then "N passed, M failed, K skipped". Each case frees everything it
 * made, so one bad case never affects the next (the runner is also run
 * under valgrind and ASan). */
#include "commands.h"

#include "api.h"
#include "compare.h"
#include "progress.h"
#include "testdata.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The ONNX backend tests' own default tolerances. */
#define RTOL 1e-3
#define ATOL 1e-7

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kiln check DIR... [--threads N] [--quiet] [--verbose] [--filter SUBSTR]\n"
            "                  [--allow-failures] [--skip-list FILE] [--device D]\n\n"
            "Runs ONNX backend test cases. A DIR holding model.onnx is one case; otherwise\n"
            "each sub-folder (by name) holding model.onnx is. For every test_data_set_*,\n"
            "input_K.pb binds to model input K and output_K.pb must match output K: same\n"
            "dtype and shape, values within |got - expected| <= %g + %g * |expected|\n"
            "(integers and bools exactly). Sequence and optional values (SequenceProto,\n"
            "OptionalProto files) match when they hold as many elements and each matches.\n"
            "Prints PASS, FAIL or SKIP per case (SKIP: the data holds something the API\n"
            "cannot express, e.g. strings or maps), then a summary.\n"
            "Exits 1 if any case failed.\n\n"
            "  --threads N        worker threads (default 1)\n"
            "  --quiet            print only failures and the summary\n"
            "  -v, --verbose      also print each case's max abs error\n"
            "  --filter SUBSTR    only cases whose name contains SUBSTR\n"
            "  --allow-failures   exit 0 even if cases failed (for reports)\n"
            "  --skip-list FILE   cases not to run, one per line: NAME REASON (for\n"
            "                     random-valued cases no runtime can reproduce); each is\n"
            "                     reported as SKIP with its reason\n"
            "  --device D         run each case on device D (NAME or NAME:INDEX,\n"
            "                     docs/devices.md): nodes D's kernels decline run on the\n"
            "                     CPU; a passing case that had some says which ops, and\n"
            "                     the summary counts the cases run wholly on D\n",
            ATOL, RTOL);
}

typedef struct check_args {
    const char **dirs;
    int dir_count;
    int threads, quiet, verbose, allow_failures;
    const char *filter;
    const char *device; /* --device, or NULL: the CPU */
    char *skip_list;    /* contents of --skip-list FILE, NUL-terminated */
} check_args;

/* The reason a case is listed in the skip list, copied into buf; NULL if
 * it is not listed. Lines: "NAME REASON...", '#' starts a comment. */
static const char *skip_reason(const check_args *a, const char *name, char *buf, size_t cap)
{
    size_t len = strlen(name);
    for (const char *line = a->skip_list; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (line[0] != '#' && n > len && strncmp(line, name, len) == 0 &&
            (line[len] == ' ' || line[len] == '\t')) {
            const char *why = line + len;
            while (*why == ' ' || *why == '\t')
                why++;
            snprintf(buf, cap, "listed as not reproducible: %.*s", (int)(n - (size_t)(why - line)), why);
            return buf;
        }
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

static int parse_args(int argc, char **argv, check_args *a)
{
    a->threads = 1;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int m;
        if (is_help(argv[i])) {
            usage(stdout);
            return 1;
        }
        if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            a->quiet = 1;
        } else if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0) {
            a->verbose = 1;
        } else if (strcmp(argv[i], "--allow-failures") == 0) {
            a->allow_failures = 1;
        } else if ((m = arg_value(argc, argv, &i, "--threads", NULL, &v)) != 0) {
            if (m < 0 || parse_positive_int(v, &a->threads) != 0) {
                cli_error("--threads needs a positive number");
                return -1;
            }
        } else if ((m = arg_value(argc, argv, &i, "--device", NULL, &v)) != 0) {
            if (m < 0 || !*v) {
                cli_error("--device needs a device: NAME or NAME:INDEX");
                return -1;
            }
            a->device = v;
        } else if ((m = arg_value(argc, argv, &i, "--filter", NULL, &v)) != 0) {
            if (m < 0)
                return -1;
            a->filter = v;
        } else if ((m = arg_value(argc, argv, &i, "--skip-list", NULL, &v)) != 0) {
            size_t size = 0;
            char *text = m < 0 ? NULL : read_file(v, &size);
            char *copy = text ? realloc(text, size + 1) : NULL;
            if (!copy) {
                free(text);
                cli_error("cannot read the skip list '%s'", m < 0 ? "" : v);
                return -1;
            }
            copy[size] = '\0';
            free(a->skip_list);
            a->skip_list = copy;
        } else if (is_option(argv[i])) {
            cli_error("unexpected argument '%s'", argv[i]);
            return -1;
        } else {
            a->dirs[a->dir_count++] = argv[i];
        }
    }
    if (a->dir_count == 0) {
        cli_error("give at least one DIR");
        return -1;
    }
    return 0;
}

typedef enum verdict { PASS, FAIL, SKIP } verdict;

typedef struct case_result {
    verdict verdict;
    double max_abs_diff;
    char reason[1600];
    /* --device: ops of the steps that ran on the CPU instead ("" if none) */
    char fallback[256];
} case_result;

/* Prefix for messages about one data set; empty when the case has only one,
 * to keep the common line short. */
static const char *set_prefix(const data_set *set, int set_count, char *buf, size_t cap)
{
    if (set_count == 1)
        buf[0] = '\0';
    else
        snprintf(buf, cap, "%s: ", set->name);
    return buf;
}

static int fail(case_result *r, const char *prefix, const char *what, int32_t status)
{
    char why[1200];
    format_error(status, why, sizeof why);
    snprintf(r->reason, sizeof r->reason, "%s%s: %s", prefix, what, why);
    r->verdict = FAIL;
    return -1;
}

/* numpy has no bfloat16, so the ONNX test generator stored bfloat16 test
 * tensors as uint16 with the same bits. Read them as what the model says. */
static int32_t data_dtype(int32_t model_dtype, int32_t file_dtype)
{
    if (model_dtype == KILN_DTYPE_BFLOAT16 && file_dtype == KILN_DTYPE_UINT16)
        return KILN_DTYPE_BFLOAT16;
    return file_dtype;
}

static int32_t handle_kind(const kiln_tensor *t)
{
    int32_t kind = KILN_KIND_TENSOR;
    kiln_tensor_kind(t, &kind);
    return kind;
}

/* String tensors go through the value API (bind, read, compare). */
static int is_string(const kiln_tensor *t)
{
    int32_t dtype = 0;
    return handle_kind(t) == KILN_KIND_TENSOR &&
           kiln_tensor_info(t, &dtype, NULL, 0, NULL) != KILN_ERR_INVALID_ARGUMENT &&
           dtype == KILN_DTYPE_STRING;
}

/* Compares two tensor handles (dtype of `want` read as got's, see
 * data_dtype). */
static int32_t compare_handles(const kiln_tensor *got_t, const kiln_tensor *want_t,
                               compare_result *cmp)
{
    if (is_string(got_t) || is_string(want_t))
        return compare_string_tensors(got_t, want_t, cmp);
    tensor_view got = {0}, want = {0};
    shape got_shape = {-1, NULL}, want_shape = {-1, NULL};
    got.shape = &got_shape;
    want.shape = &want_shape;
    int32_t status = tensor_shape(got_t, &got.dtype, &got_shape);
    if (status == KILN_OK)
        status = kiln_tensor_data(got_t, &got.data, &got.nbytes);
    if (status == KILN_OK && (status = tensor_shape(want_t, &want.dtype, &want_shape)) == KILN_OK)
        status = kiln_tensor_data(want_t, &want.data, &want.nbytes);
    want.dtype = data_dtype(got.dtype, want.dtype);
    if (status == KILN_OK)
        compare_tensors(&got, &want, RTOL, ATOL, cmp);
    shape_free(&got_shape);
    shape_free(&want_shape);
    return status;
}

static const char *kind_label(int32_t kind)
{
    return kind == KILN_KIND_SEQUENCE ? "a sequence"
           : kind == KILN_KIND_OPTIONAL ? "an optional"
                                        : "a tensor";
}

/* Compares two values of any kind: the same kind, the same number of
 * elements (an empty optional equals an empty optional), and element by
 * element with the tensor comparison. max_abs_diff is the largest over all
 * elements; reason names the element path of the first mismatch. */
static int32_t compare_values(const kiln_tensor *got, const kiln_tensor *want, int depth,
                              compare_result *cmp)
{
    int32_t gk = handle_kind(got), wk = handle_kind(want);
    cmp->ok = 0;
    cmp->reason[0] = '\0';
    if (gk != wk) {
        snprintf(cmp->reason, sizeof cmp->reason, "got %s, expected %s", kind_label(gk),
                 kind_label(wk));
        return KILN_OK;
    }
    if (gk == KILN_KIND_TENSOR)
        return compare_handles(got, want, cmp);
    int32_t gn = 0, wn = 0, status = kiln_tensor_element_count(got, &gn);
    if (status == KILN_OK)
        status = kiln_tensor_element_count(want, &wn);
    if (status != KILN_OK)
        return status;
    if (gn != wn) {
        snprintf(cmp->reason, sizeof cmp->reason, "got %s of %d element%s, expected %d",
                 kind_label(gk), (int)gn, gn == 1 ? "" : "s", (int)wn);
        return KILN_OK;
    }
    double worst = 0;
    for (int32_t i = 0; i < gn; i++) {
        kiln_tensor *ge = NULL, *we = NULL;
        compare_result sub = {0};
        if ((status = kiln_tensor_element(got, i, &ge)) == KILN_OK &&
            (status = kiln_tensor_element(want, i, &we)) == KILN_OK)
            status = depth < 16 ? compare_values(ge, we, depth + 1, &sub) : KILN_ERR_LIMIT;
        kiln_tensor_destroy(ge);
        kiln_tensor_destroy(we);
        if (status != KILN_OK)
            return status;
        if (sub.max_abs_diff > worst)
            worst = sub.max_abs_diff;
        if (!sub.ok) {
            cmp->max_abs_diff = worst;
            snprintf(cmp->reason, sizeof cmp->reason, "element %d: %.480s", (int)i, sub.reason);
            return KILN_OK;
        }
    }
    cmp->ok = 1;
    cmp->max_abs_diff = worst;
    return KILN_OK;
}

/* Output k of a set holding a sequence or optional (or produced as one):
 * compared as values. */
static int32_t compare_output_value(const kiln_session *session, int k, const kiln_tensor *want,
                                    compare_result *cmp)
{
    kiln_tensor *got = NULL;
    int32_t status = kiln_session_output_value(session, k, &got);
    if (status == KILN_OK)
        status = compare_values(got, want, 0, cmp);
    kiln_tensor_destroy(got);
    return status;
}

/* Binds a data set's inputs, runs, and compares its outputs. */
static int run_set(const kiln_model *model, kiln_session *session, const data_set *set,
                   int set_count, case_result *r)
{
    char prefix[96], what[160];
    set_prefix(set, set_count, prefix, sizeof prefix);
    int32_t model_inputs = 0, model_outputs = 0;
    kiln_model_input_count(model, &model_inputs);
    kiln_model_output_count(model, &model_outputs);
    if (set->input_count > model_inputs || set->output_count > model_outputs) {
        snprintf(r->reason, sizeof r->reason,
                 "%s%d inputs and %d outputs in the data, the model has %d and %d", prefix,
                 set->input_count, set->output_count, (int)model_inputs, (int)model_outputs);
        r->verdict = FAIL;
        return -1;
    }
    for (int k = 0; k < set->input_count; k++) {
        int32_t dtype = 0, status;
        shape s = {-1, NULL};
        const void *data = NULL;
        size_t nbytes = 0;
        int32_t declared = 0, kind = KILN_KIND_TENSOR;
        kiln_model_input_dtype(model, k, &declared);
        kiln_model_input_kind(model, k, &kind);
        if (kind != KILN_KIND_TENSOR || handle_kind(set->inputs[k]) != KILN_KIND_TENSOR ||
            is_string(set->inputs[k]))
            status = kiln_session_set_input_value(session, k, set->inputs[k]);
        else if ((status = tensor_shape(set->inputs[k], &dtype, &s)) == KILN_OK &&
            (status = kiln_tensor_data(set->inputs[k], &data, &nbytes)) == KILN_OK)
            status = kiln_session_set_input_at(session, k, data_dtype(declared, dtype), s.dims,
                                               s.rank, data, nbytes, 0);
        shape_free(&s);
        if (status != KILN_OK) {
            snprintf(what, sizeof what, "input %d", k);
            return fail(r, prefix, what, status);
        }
    }
    int32_t status = kiln_session_run(session);
    if (status != KILN_OK)
        return fail(r, prefix, "run", status);

    for (int k = 0; k < set->output_count; k++) {
        char *name = model_output_name(model, k, NULL);
        snprintf(what, sizeof what, "output %d (%s)", k, name ? name : "?");
        free(name);
        compare_result cmp = {0};
        int32_t kind = KILN_KIND_TENSOR;
        kiln_model_output_kind(model, k, &kind);
        if (kind != KILN_KIND_TENSOR || handle_kind(set->outputs[k]) != KILN_KIND_TENSOR ||
            is_string(set->outputs[k])) {
            status = compare_output_value(session, k, set->outputs[k], &cmp);
        } else {
            tensor_view got = {0}, want = {0};
            shape got_shape = {-1, NULL}, want_shape = {-1, NULL};
            got.shape = &got_shape;
            want.shape = &want_shape;
            if ((status = session_output_shape(session, k, &got.dtype, &got_shape)) == KILN_OK)
                status = kiln_session_output_view(session, k, &got.data, &got.nbytes);
            if (status == KILN_OK &&
                (status = tensor_shape(set->outputs[k], &want.dtype, &want_shape)) == KILN_OK)
                status = kiln_tensor_data(set->outputs[k], &want.data, &want.nbytes);
            want.dtype = data_dtype(got.dtype, want.dtype);
            if (status == KILN_OK)
                compare_tensors(&got, &want, RTOL, ATOL, &cmp);
            shape_free(&got_shape);
            shape_free(&want_shape);
        }
        if (status != KILN_OK)
            return fail(r, prefix, what, status);
        if (cmp.max_abs_diff > r->max_abs_diff)
            r->max_abs_diff = cmp.max_abs_diff;
        if (!cmp.ok) {
            snprintf(r->reason, sizeof r->reason, "%s%s: %s", prefix, what, cmp.reason);
            r->verdict = FAIL;
            return -1;
        }
    }
    return 0;
}

/* The op types of the steps of the session's plan that ran on a host
 * backend rather than on `device` (copies and syncs aside), each once,
 * comma-separated into buf. */
static void host_steps(const kiln_session *session, const char *device, char *buf, size_t cap)
{
    size_t name_len = strcspn(device, ":"), used = 0;
    int32_t n = 0;
    buf[0] = '\0';
    if (kiln_session_profile_count(session, &n) != KILN_OK) {
        snprintf(buf, cap, "(no profile)");
        return;
    }
    for (int32_t i = 0; i < n; i++) {
        char kernel[64] = "", op[64] = "";
        kiln_session_profile_kernel(session, i, kernel, sizeof kernel, NULL);
        kiln_session_profile_op(session, i, op, sizeof op, NULL);
        if ((strlen(kernel) == name_len && strncmp(kernel, device, name_len) == 0) ||
            strcmp(op, "Copy") == 0 || strcmp(op, "Sync") == 0)
            continue;
        /* each op once: search the list so far as ", op," */
        char key[80];
        snprintf(key, sizeof key, ", %s,", op);
        char list[300];
        snprintf(list, sizeof list, ", %s,", buf);
        if (strstr(list, key) || used + strlen(op) + 3 >= cap)
            continue;
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", op);
    }
}

static void run_case(kiln_runtime *runtime, const char *dir, const char *device, case_result *r)
{
    r->verdict = PASS;
    r->max_abs_diff = 0;
    r->reason[0] = '\0';
    r->fallback[0] = '\0';

    /* The model first, for the kinds its .pb files hold (tensor, sequence,
     * optional); but a case whose data the API cannot express is a SKIP
     * even if its model also fails to load, so a load failure is reported
     * only after the data was read. */
    char *model_path = path_join(dir, "model.onnx");
    kiln_model *model = NULL;
    kiln_session *session = NULL;
    int32_t status = model_path ? load_model(runtime, model_path, 0, &model)
                                : KILN_ERR_OUT_OF_MEMORY;
    char load_error[1200] = "";
    if (status != KILN_OK)
        format_error(status, load_error, sizeof load_error);

    data_set *sets = NULL;
    int set_count = 0;
    data_status ds = load_data_sets(dir, model, &sets, &set_count, r->reason, sizeof r->reason);
    if (ds != DATA_OK) {
        r->verdict = ds == DATA_SKIP ? SKIP : FAIL;
        free_data_sets(sets, set_count);
        kiln_model_destroy(model);
        free(model_path);
        return;
    }

    if (status != KILN_OK) {
        snprintf(r->reason, sizeof r->reason, "load: %s", load_error);
        r->verdict = FAIL;
    } else if ((status = create_session_on(model, device, 1, &session)) != KILN_OK)
        fail(r, "", "session", status);
    for (int i = 0; r->verdict == PASS && i < set_count; i++)
        run_set(model, session, &sets[i], set_count, r);
    if (device && r->verdict == PASS)
        host_steps(session, device, r->fallback, sizeof r->fallback);

    kiln_session_destroy(session);
    kiln_model_destroy(model);
    free(model_path);
    free_data_sets(sets, set_count);
}

static void print_result(const char *name, const case_result *r, const check_args *a)
{
    static const char *const labels[] = {"PASS", "FAIL", "SKIP"};
    if (a->quiet && r->verdict != FAIL)
        return;
    printf("%s %s", labels[r->verdict], name);
    if (r->verdict != PASS)
        printf(": %s", r->reason);
    if (r->verdict == PASS && r->fallback[0])
        printf(" [on the CPU: %s]", r->fallback);
    if (a->verbose && r->verdict != SKIP)
        printf(" [max abs err %.3g]", r->max_abs_diff);
    printf("\n");
    /* Line by line, so a crash or a timeout still shows how far it got. */
    fflush(stdout);
}

int cmd_check(int argc, char **argv)
{
    check_args a = {0};
    a.dirs = calloc((size_t)argc, sizeof *a.dirs);
    if (!a.dirs) {
        cli_error("out of memory");
        return EXIT_FAIL;
    }
    int parsed = parse_args(argc, argv, &a);
    if (parsed != 0) {
        if (parsed < 0)
            usage(stderr);
        free(a.dirs);
        free(a.skip_list);
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;
    }
    kiln_runtime *runtime = open_runtime(a.threads);
    if (!runtime) {
        free(a.dirs);
        free(a.skip_list);
        return EXIT_FAIL;
    }

    int counts[3] = {0, 0, 0}, bad_dir = 0, fell_back = 0;
    case_result result;
    /* Every folder's cases are listed first, so the progress line can show
     * the total. */
    char ***cases = calloc((size_t)a.dir_count, sizeof *cases);
    int *case_count = calloc((size_t)a.dir_count, sizeof *case_count);
    int total = 0, done = 0;
    if (!cases || !case_count) {
        cli_error("out of memory");
        bad_dir = 1;
        a.dir_count = 0;
    }
    for (int d = 0; d < a.dir_count; d++) {
        case_count[d] = find_cases(a.dirs[d], &cases[d]);
        if (case_count[d] <= 0) {
            cli_error("%s: %s", a.dirs[d],
                      case_count[d] < 0 ? "not a readable directory"
                                        : "no test cases (no model.onnx)");
            bad_dir = 1;
            case_count[d] = 0;
        }
        total += case_count[d];
    }
    progress bar;
    progress_begin(&bar, total);
    for (int d = 0; d < a.dir_count; d++) {
        for (int i = 0; i < case_count[d]; i++) {
            char *name = path_basename(cases[d][i]);
            progress_show(&bar, ++done, name, 1);
            if (name && (!a.filter || strstr(name, a.filter))) {
                char why[sizeof result.reason];
                if (skip_reason(&a, name, why, sizeof why)) {
                    result.verdict = SKIP;
                    snprintf(result.reason, sizeof result.reason, "%s", why);
                } else {
                    run_case(runtime, cases[d][i], a.device, &result);
                }
                counts[result.verdict]++;
                fell_back += result.verdict == PASS && result.fallback[0];
                progress_clear(&bar);
                print_result(name, &result, &a);
            }
            free(name);
        }
        free_names(cases[d], case_count[d]);
    }
    progress_end(&bar);
    free(cases);
    free(case_count);
    printf("%d passed, %d failed, %d skipped\n", counts[PASS], counts[FAIL], counts[SKIP]);
    if (a.device)
        printf("device %s: %d passed wholly on it, %d passed with a fallback to the CPU\n",
               a.device, counts[PASS] - fell_back, fell_back);
    kiln_runtime_destroy(runtime);
    free(a.dirs);
    free(a.skip_list);
    if (bad_dir)
        return EXIT_FAIL;
    return counts[FAIL] == 0 || a.allow_failures ? EXIT_OK : EXIT_FAIL;
}
