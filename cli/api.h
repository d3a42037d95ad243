/* Helpers over the public API for the CLI commands: error messages, and the
 * two-call pattern (names, shapes) turned into malloc'd results so commands
 * read straight through. Only kiln.h is used, as a binding would. */
#ifndef KILN_CLI_API_H
#define KILN_CLI_API_H

#include "kiln.h"

#include <stddef.h>
#include <stdint.h>

/* "status name: last error message" for a status just returned on this
 * thread, into buf (truncated to cap). */
void format_error(int32_t status, char *buf, size_t cap);
/* Prints "kiln <command>: <what> <subject>: <status name>: <message>" to stderr;
 * subject may be NULL. */
void report_error(const char *what, const char *subject, int32_t status);

/* A session on device (NULL: the default, cpu), profiling when asked (a
 * device session's profile says which steps ran where). */
int32_t create_session_on(kiln_model *model, const char *device, int profile, kiln_session **out);

/* A shape with its own storage; free with shape_free. rank -1 = unknown. */
typedef struct shape {
    int32_t rank;
    int64_t *dims;
} shape;

void shape_free(shape *s);
/* Element count; -1 if the rank is unknown or a dim is dynamic. */
int64_t shape_elements(const shape *s);

/* Model inputs/outputs. Names are malloc'd (NULL on failure, with status in
 * *status when status is not NULL). */
char *model_input_name(const kiln_model *model, int32_t index, int32_t *status);
char *model_output_name(const kiln_model *model, int32_t index, int32_t *status);
int32_t model_input_shape(const kiln_model *model, int32_t index, shape *out);
int32_t model_output_shape(const kiln_model *model, int32_t index, shape *out);
/* Opset import `index`: malloc'd domain and version. */
int32_t model_opset(const kiln_model *model, int32_t index, char **domain, int32_t *version);
/* Node op type and domain, both malloc'd. */
int32_t model_node_op(const kiln_model *model, int32_t index, char **op, char **domain);
char *model_node_name(const kiln_model *model, int32_t index, int32_t *status);
/* Name of the value input (is_output 0) or output (1) `slot` of node
 * `index` reads or writes ("" when omitted), malloc'd. */
char *model_node_value(const kiln_model *model, int32_t index, int is_output, int32_t slot,
                       int32_t *status);

/* Output dtype and shape after a run. */
int32_t session_output_shape(const kiln_session *session, int32_t index, int32_t *dtype,
                             shape *out);

/* Decoded tensor: dtype, shape, name (malloc'd, "" if none). */
int32_t tensor_shape(const kiln_tensor *tensor, int32_t *dtype, shape *out);
char *tensor_name(const kiln_tensor *tensor, int32_t *status);

/* Runtime with `threads` workers; prints the error and returns NULL on
 * failure. */
kiln_runtime *open_runtime(int threads);
/* Options with one key set (or none when key is 0); prints and returns NULL
 * on failure. */
kiln_options *make_options(int32_t key, int32_t value);

/* Loads a model file with its own options; allow_unsupported sets
 * KILN_OPT_ALLOW_UNSUPPORTED. Returns the status and leaves the message for
 * report_error/format_error. */
int32_t load_model(kiln_runtime *runtime, const char *path, int allow_unsupported,
                   kiln_model **out);
/* The same at graph optimization level `optimize` (KILN_OPT_OPTIMIZE: 0 =
 * the graph as in the file; -1 = the library's default). */
int32_t load_model_optimized(kiln_runtime *runtime, const char *path, int allow_unsupported,
                             int optimize, kiln_model **out);

/* Prints the library's words for an input name the model lacks ("unknown
 * input 'x'; the model's inputs are: 'image'"). */
void report_unknown_input(const kiln_model *model, const char *name);
/* Which model input a tensor file given as [NAME=]FILE feeds: input NAME
 * when given, else the input named like the tensor, else the one at the
 * file's position among the files. Returns the index, or -1 after printing
 * why. */
int32_t resolve_input(const kiln_model *model, const char *given_name,
                      const kiln_tensor *tensor, int position, int32_t input_count);
/* Encodes a tensor as a TensorProto into a malloc'd buffer. */
int32_t encode_tensor(const char *name, int32_t dtype, const shape *s, const void *data,
                      size_t nbytes, void **out, size_t *out_size);

#endif
