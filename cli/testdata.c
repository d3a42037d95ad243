/* Reading ONNX backend test-case folders (see testdata.h). */
#include "testdata.h"

#include "api.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_case(const char *dir)
{
    char *model = path_join(dir, "model.onnx");
    int yes = model && file_exists(model);
    free(model);
    return yes;
}

int find_cases(const char *dir, char ***case_dirs)
{
    *case_dirs = NULL;
    if (!dir_exists(dir))
        return -1;
    if (is_case(dir)) {
        char **one = malloc(sizeof *one);
        if (!one || !(one[0] = strdup(dir))) {
            free(one);
            return -1;
        }
        *case_dirs = one;
        return 1;
    }
    char **subs = NULL;
    int n = list_subdirs(dir, &subs);
    if (n < 0)
        return -1;
    int found = 0;
    for (int i = 0; i < n; i++) {
        char *name = subs[i];
        char *path = path_join(dir, name);
        free(name);
        if (path && is_case(path))
            subs[found++] = path; /* reuse the (sorted) slots for full paths */
        else
            free(path);
    }
    *case_dirs = subs;
    return found;
}

/* Kind of model input (outputs = 0) or output K: what its .pb file holds. */
static int32_t value_kind(const kiln_model *model, int outputs, int k)
{
    int32_t kind = KILN_KIND_TENSOR, n = 0;
    if (!model)
        return kind;
    if (outputs ? kiln_model_output_count(model, &n) : kiln_model_input_count(model, &n))
        return kind;
    if (k < n && (outputs ? kiln_model_output_kind(model, k, &kind)
                          : kiln_model_input_kind(model, k, &kind)) != KILN_OK)
        kind = KILN_KIND_TENSOR;
    return kind;
}

static const char *kind_message(int32_t kind)
{
    return kind == KILN_KIND_SEQUENCE ? "SequenceProto"
           : kind == KILN_KIND_OPTIONAL ? "OptionalProto"
                                        : "TensorProto";
}

/* Decodes DIR/PREFIX_0.pb, PREFIX_1.pb, ... until one is missing. */
static data_status load_tensors(const char *dir, const char *set_name, const char *prefix,
                                const kiln_model *model, kiln_tensor ***out, int *count,
                                char *reason, size_t cap)
{
    *out = NULL;
    *count = 0;
    for (int k = 0;; k++) {
        char file[64];
        snprintf(file, sizeof file, "%s_%d.pb", prefix, k);
        char *path = path_join(dir, file);
        if (!path) {
            snprintf(reason, cap, "out of memory");
            return DATA_FAIL;
        }
        if (!file_exists(path)) {
            free(path);
            return DATA_OK;
        }
        size_t size = 0;
        void *bytes = read_file(path, &size);
        free(path);
        if (!bytes) {
            snprintf(reason, cap, "cannot read %s/%s: %s", set_name, file, strerror(errno));
            return DATA_FAIL;
        }
        kiln_tensor **bigger = realloc(*out, sizeof **out * (size_t)(k + 1));
        if (!bigger) {
            free(bytes);
            snprintf(reason, cap, "out of memory");
            return DATA_FAIL;
        }
        *out = bigger;
        bigger[k] = NULL;
        *count = k + 1; /* destroy accepts NULL, so a failed decode frees fine */
        int32_t kind = value_kind(model, prefix[0] == 'o', k);
        int32_t status = kiln_tensor_decode_value(bytes, size, kind, &bigger[k]);
        free(bytes);
        if (status != KILN_OK) {
            /* Map test data, sequences of strings, or (when the model did not
             * load, so its kinds are unknown) sequences and optionals: out
             * of the API's reach rather than wrong. */
            char why[1200];
            format_error(status, why, sizeof why);
            snprintf(reason, cap, "%s/%s is not a %s the API can decode (%s)", set_name, file,
                     kind_message(kind), why);
            return DATA_SKIP;
        }
    }
}

data_status load_data_sets(const char *case_dir, const kiln_model *model, data_set **sets,
                           int *count, char *reason, size_t cap)
{
    *sets = NULL;
    *count = 0;
    char **subs = NULL;
    int n = list_subdirs(case_dir, &subs);
    if (n < 0) {
        snprintf(reason, cap, "cannot read %s: %s", case_dir, strerror(errno));
        return DATA_FAIL;
    }
    data_set *list = calloc((size_t)n + 1, sizeof *list);
    if (!list) {
        free_names(subs, n);
        snprintf(reason, cap, "out of memory");
        return DATA_FAIL;
    }
    *sets = list;
    data_status result = DATA_OK;
    for (int i = 0; i < n && result == DATA_OK; i++) {
        if (strncmp(subs[i], "test_data_set_", 14) != 0)
            continue;
        data_set *set = &list[(*count)++];
        set->name = strdup(subs[i]);
        char *dir = path_join(case_dir, subs[i]);
        if (!set->name || !dir) {
            snprintf(reason, cap, "out of memory");
            result = DATA_FAIL;
        } else {
            result = load_tensors(dir, subs[i], "input", model, &set->inputs,
                                  &set->input_count, reason, cap);
            if (result == DATA_OK)
                result = load_tensors(dir, subs[i], "output", model, &set->outputs,
                                      &set->output_count, reason, cap);
        }
        free(dir);
    }
    free_names(subs, n);
    if (result == DATA_OK && *count == 0) {
        snprintf(reason, cap, "no test_data_set_* folders");
        result = DATA_FAIL;
    }
    return result;
}

static void free_tensors(kiln_tensor **tensors, int count)
{
    for (int i = 0; i < count; i++)
        kiln_tensor_destroy(tensors[i]);
    free(tensors);
}

void free_data_sets(data_set *sets, int count)
{
    for (int i = 0; sets && i < count; i++) {
        free(sets[i].name);
        free_tensors(sets[i].inputs, sets[i].input_count);
        free_tensors(sets[i].outputs, sets[i].output_count);
    }
    free(sets);
}
