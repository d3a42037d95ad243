/* The C consumer (tests/consumers/run_consumer.sh c): built outside the
 * repository against an installed Kiln, it prints "FILE CLASS" for every
 * *.pb digit sample in SAMPLES_DIR, in name order.
 *   usage: app MODEL SAMPLES_DIR */
#define _POSIX_C_SOURCE 200809L
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kiln.h>

static int fail(const char *what) {
    char msg[512];
    kiln_last_error(msg, (int32_t)sizeof msg);
    fprintf(stderr, "app: %s: %s\n", what, msg);
    return 1;
}

/* Reads a whole file; NULL on failure. The caller frees it. */
static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    void *bytes = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long length = ftell(f);
        if (length > 0 && fseek(f, 0, SEEK_SET) == 0 && (bytes = malloc((size_t)length)) &&
            fread(bytes, 1, (size_t)length, f) != (size_t)length) {
            free(bytes);
            bytes = NULL;
        }
        *size = (size_t)length;
    }
    fclose(f);
    return bytes;
}

/* Runs one sample file and prints its class; 0 on success. */
static int classify(kiln_session *session, const char *path) {
    size_t size = 0;
    void *bytes = read_file(path, &size);
    if (!bytes) {
        perror(path);
        return 1;
    }
    kiln_tensor *image = NULL;
    const void *pixels = NULL;
    size_t nbytes = 0;
    const int64_t dims[4] = {1, 1, 8, 8};
    float logits[10];
    int rc = 0;
    if (kiln_tensor_decode(bytes, size, &image) != KILN_OK ||
        kiln_tensor_data(image, &pixels, &nbytes) != KILN_OK ||
        kiln_session_set_input(session, "image", KILN_DTYPE_FLOAT, dims, 4, pixels, nbytes, 0) != KILN_OK ||
        kiln_session_run(session) != KILN_OK ||
        kiln_session_output_copy(session, 0, logits, sizeof logits, NULL) != KILN_OK) {
        rc = fail(path);
    } else {
        int best = 0;
        for (int i = 1; i < 10; i++)
            if (logits[i] > logits[best]) best = i;
        const char *name = strrchr(path, '/');
        printf("%s %d\n", name ? name + 1 : path, best);
    }
    kiln_tensor_destroy(image);
    free(bytes);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s MODEL SAMPLES_DIR\n", argv[0]);
        return 2;
    }
    char pattern[4096];
    snprintf(pattern, sizeof pattern, "%s/*.pb", argv[2]);
    glob_t samples; /* glob sorts the names */
    if (glob(pattern, 0, NULL, &samples) != 0) {
        fprintf(stderr, "app: no *.pb files in %s\n", argv[2]);
        return 1;
    }
    kiln_runtime *runtime = NULL;
    kiln_model *model = NULL;
    kiln_session *session = NULL;
    int rc = 0;
    if (kiln_runtime_create(NULL, &runtime) != KILN_OK ||
        kiln_model_load_file(runtime, argv[1], NULL, &model) != KILN_OK ||
        kiln_session_create(model, NULL, &session) != KILN_OK) {
        rc = fail(argv[1]);
    }
    for (size_t i = 0; rc == 0 && i < samples.gl_pathc; i++) rc = classify(session, samples.gl_pathv[i]);
    kiln_session_destroy(session);
    kiln_model_destroy(model);
    kiln_runtime_destroy(runtime);
    globfree(&samples);
    return rc;
}
