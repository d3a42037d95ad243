/* classify_digits MODEL SAMPLES_DIR
 *
 * Classifies every *.pb image (an ONNX TensorProto) in SAMPLES_DIR with the
 * digits model from examples/digits and checks the answer against the label
 * in the file name ("digit_03_label_7.pb"). Uses only the public kiln.h API.
 * Exit status: 0 when at least 80 % are right, 1 on lower accuracy or any
 * error.
 */
#define _POSIX_C_SOURCE 200809L /* opendir/readdir, strdup */

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln.h"

#define MAX_RANK 8

/* Prints what failed plus the library's own message for this thread. */
static int report(const char *what, int32_t status) {
    char msg[512];
    kiln_last_error(msg, (int32_t)sizeof msg);
    fprintf(stderr, "classify_digits: %s failed: %s: %s\n", what, kiln_status_name(status), msg);
    return 1;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Sorted names of the *.pb files in dir, sorted so the output is stable.
 * Returns 0 on success; the caller frees *names[i] and *names. */
static int list_samples(const char *dir, char ***names_out, size_t *count) {
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!ends_with(e->d_name, ".pb")) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) {
                rc = -1;
                break;
            }
            names = grown;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = -1;
            break;
        }
        n++;
    }
    closedir(d);
    if (rc) fprintf(stderr, "classify_digits: out of memory listing %s\n", dir);
    if (n) qsort(names, n, sizeof *names, compare_names);
    *names_out = names;
    *count = n;
    return rc;
}

static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return NULL;
    }
    void *buf = NULL;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
    if (len >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc(len ? (size_t)len : 1))) {
        if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    if (!buf) fprintf(stderr, "classify_digits: cannot read %s\n", path);
    *size = (size_t)len;
    return buf;
}

/* The true label encoded in the file name, or -1 if there is none. */
static int label_from_name(const char *name) {
    const char *p = strstr(name, "_label_");
    if (!p || p[7] < '0' || p[7] > '9') return -1;
    return p[7] - '0';
}

/* Softmax is computed here, not in the model: the model outputs logits. */
static int argmax_softmax(const float *logits, int n, float *prob) {
    int best = 0;
    for (int i = 1; i < n; i++)
        if (logits[i] > logits[best]) best = i;
    double sum = 0.0; /* subtract the max so exp() cannot overflow */
    for (int i = 0; i < n; i++) sum += exp((double)logits[i] - logits[best]);
    *prob = (float)(1.0 / sum);
    return best;
}

/* Runs one sample file; returns the predicted class, or -1 on error. */
static int classify(kiln_session *session, const char *input_name, const char *path,
                    float *prob) {
    size_t size = 0;
    void *bytes = read_file(path, &size);
    if (!bytes) return -1;
    kiln_tensor *tensor = NULL;
    int predicted = -1;
    int32_t dtype = 0, rank = 0, st;
    int64_t dims[MAX_RANK];
    const void *data = NULL, *out = NULL;
    size_t nbytes = 0, out_bytes = 0;

    if ((st = kiln_tensor_decode(bytes, size, &tensor))) {
        char what[4200];
        snprintf(what, sizeof what, "decoding %s", path);
        report(what, st);
    } else if ((st = kiln_tensor_info(tensor, &dtype, dims, MAX_RANK, &rank)) ||
               (st = kiln_tensor_data(tensor, &data, &nbytes))) {
        report("reading the tensor", st);
    } else if ((st = kiln_session_set_input(session, input_name, dtype, dims, rank, data,
                                            nbytes, 0))) {
        report("binding the input", st);
    } else if ((st = kiln_session_run(session))) {
        report("running the model", st);
    } else if ((st = kiln_session_output_info(session, 0, &dtype, dims, MAX_RANK, &rank)) ||
               (st = kiln_session_output_view(session, 0, &out, &out_bytes))) {
        report("reading the output", st);
    } else if (dtype != KILN_DTYPE_FLOAT || rank != 2 || dims[0] != 1 || dims[1] < 1 ||
               out_bytes != (size_t)dims[1] * sizeof(float)) {
        fprintf(stderr, "classify_digits: expected float logits of shape [1, classes]\n");
    } else {
        predicted = argmax_softmax(out, (int)dims[1], prob);
    }
    kiln_tensor_destroy(tensor); /* after the run: the input was borrowed */
    free(bytes);
    return predicted;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s MODEL SAMPLES_DIR\n", argv[0]);
        return 2;
    }
    const char *model_path = argv[1], *dir = argv[2];
    kiln_runtime *runtime = NULL;
    kiln_model *model = NULL;
    kiln_session *session = NULL;
    char input_name[256];
    int32_t needed = 0, st;
    int rc = 1, right = 0, labelled = 0;
    size_t count = 0;
    char **names = NULL;

    if ((st = kiln_runtime_create(NULL, &runtime))) {
        report("creating the runtime", st);
        goto done;
    }
    if ((st = kiln_model_load_file(runtime, model_path, NULL, &model))) {
        report("loading the model", st);
        goto done;
    }
    if ((st = kiln_model_input_name(model, 0, input_name, (int32_t)sizeof input_name,
                                    &needed))) {
        report("reading the input name", st);
        goto done;
    }
    if ((st = kiln_session_create(model, NULL, &session))) {
        report("creating a session", st);
        goto done;
    }
    if (list_samples(dir, &names, &count)) goto done;
    if (count == 0) {
        fprintf(stderr, "classify_digits: no *.pb files in %s\n", dir);
        goto done;
    }

    for (size_t i = 0; i < count; i++) {
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= (int)sizeof path) {
            fprintf(stderr, "classify_digits: path too long: %s\n", names[i]);
            goto done;
        }
        float prob = 0.0f;
        int predicted = classify(session, input_name, path, &prob);
        if (predicted < 0) goto done;
        int label = label_from_name(names[i]);
        printf("%s: predicted %d (p=%.2f)", names[i], predicted, prob);
        if (label >= 0) {
            labelled++;
            right += predicted == label;
            printf(" label %d %s", label, predicted == label ? "ok" : "WRONG");
        }
        printf("\n");
    }
    printf("accuracy: %d/%d\n", right, labelled);
    /* Integer form of right/labelled >= 0.8, so no rounding questions. */
    rc = labelled > 0 && right * 5 >= labelled * 4 ? 0 : 1;
    if (rc) fprintf(stderr, "classify_digits: accuracy below 80 %%\n");

done:
    for (size_t i = 0; i < count; i++) free(names[i]);
    free(names);
    kiln_session_destroy(session);
    kiln_model_destroy(model);
    kiln_runtime_destroy(runtime);
    return rc;
}
