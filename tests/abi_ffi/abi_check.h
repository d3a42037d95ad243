/* Assertion and call helpers shared by the libffi ABI test's files. */
#ifndef KILN_ABI_CHECK_H
#define KILN_ABI_CHECK_H

#include <stdio.h>

#include "ffi_api.h"

extern int abi_failures;

#define CHECK(cond, ...)                                              \
    do {                                                              \
        if (!(cond)) {                                                \
            abi_failures++;                                           \
            fprintf(stderr, "%s:%d: FAILED: ", __FILE__, __LINE__);   \
            fprintf(stderr, __VA_ARGS__);                             \
            fputc('\n', stderr);                                      \
        }                                                             \
    } while (0)

#define N_VALUES(...) ((int)(sizeof((ffi_value[]){__VA_ARGS__}) / sizeof(ffi_value)))

/* Status of a call through libffi (ABI_CALL_FAILED if it could not be made). */
#define ABI_CALL_FAILED (-1000)
int32_t abi_status(ffi_api *api, const char *name, const ffi_value *values, int n);
#define CALL(api, name, ...) abi_status(api, name, (ffi_value[]){__VA_ARGS__}, N_VALUES(__VA_ARGS__))

/* Calls and checks the status is the named constant ("KILN_OK"); on a
 * mismatch prints both status names and the library's message. Returns
 * 1 when it matched. */
int abi_expect(ffi_api *api, int line, const char *expected, const char *name,
               const ffi_value *values, int n);
#define EXPECT(api, expected, name, ...)                                   \
    abi_expect(api, __LINE__, expected, name, (ffi_value[]){__VA_ARGS__}, \
               N_VALUES(__VA_ARGS__))

/* The live handles of the real sequence, for calls that need real ones. */
typedef struct {
    void *options, *runtime, *model, *session;
    void *tensor;        /* a float tensor */
    void *strings;       /* a string tensor, for kiln_tensor_string */
    void *sequence;      /* a sequence, for kiln_tensor_element */
    void *calibrator;    /* with a written report, for the report lines */
} abi_handles;

/* Every function with NULL pointers and zero scalars, then every function
 * that takes a handle with a NULL handle but valid other arguments. */
void abi_check_null_arguments(ffi_api *api);
/* Every method with an `index` argument, on live handles, with indices out
 * of range. */
void abi_check_bad_indices(ffi_api *api, const abi_handles *live);
/* The real digits run through every function (abi_sequence.c). */
void abi_run_sequence(ffi_api *api, const char *source_dir);

/* ---- shared by the sequence files ---- */
#define OK(name, ...) EXPECT(api, "KILN_OK", name, __VA_ARGS__)
#define K(name) ffi_api_constant(name)
#define MAX_RANK 8
#define CLASSES 10

void *read_file(const char *path, size_t *size);
char *two_call_string(ffi_api *api, const char *name, void *handle, int with_index,
                      int32_t index);
void check_string(ffi_api *api, const char *name, void *handle, int with_index, int32_t index,
                  const char *expected);
int argmax(const float *v, int n);
int run_and_classify(ffi_api *api, void *session);
void library_functions(ffi_api *api);
void model_queries(ffi_api *api, void *model);
void tensor_functions(ffi_api *api, abi_handles *live, const float *logits);
void image_functions(ffi_api *api, void *session, const float *sample, int label);
void calibrator_functions(ffi_api *api, abi_handles *live, const char *model_path,
                          const float *sample);

#endif
