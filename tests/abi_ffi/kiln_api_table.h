/* Generated from capi/kiln_api.json by bindings/gen/emit_c_table.py; do not edit.
 * Regenerate: /usr/bin/python3 bindings/gen/generate.py */
#ifndef KILN_API_TABLE_H
#define KILN_API_TABLE_H

#include <stdint.h>

#define KILN_API_TABLE_MAX_ARGS 13

typedef struct {
    const char *name;
    const char *type; /* exact C type text from the spec */
    const char *role; /* argument role (bindings/gen/README.md) */
    int nullable;
} kiln_api_arg;

typedef struct {
    const char *name;
    const char *returns;
    const char *result; /* status, value, length, static_string, none */
    const char *kind;   /* create, destroy, method, function */
    int n_args;
    kiln_api_arg args[KILN_API_TABLE_MAX_ARGS];
} kiln_api_function;

typedef struct {
    const char *name;
    const char *group;
    int64_t value;
} kiln_api_constant;

static const kiln_api_function kiln_api_functions[] = {
    {"kiln_abi_version", "int32_t", "value", "function", 0, {{0}}},
    {"kiln_version", "const char *", "static_string", "function", 0, {{0}}},
    {"kiln_last_error", "int32_t", "length", "function", 2, {{"buf", "char *", "strbuf", 0}, {"cap", "int32_t", "strcap", 0}}},
    {"kiln_status_name", "const char *", "static_string", "function", 1, {{"status", "int32_t", "scalar", 0}}},
    {"kiln_options_create", "int32_t", "status", "create", 1, {{"out", "kiln_options **", "handle_out", 0}}},
    {"kiln_options_destroy", "void", "none", "destroy", 1, {{"options", "kiln_options *", "handle", 0}}},
    {"kiln_options_set_int", "int32_t", "status", "method", 3, {{"options", "kiln_options *", "handle", 0}, {"key", "int32_t", "scalar", 0}, {"value", "int32_t", "scalar", 0}}},
    {"kiln_options_set_string", "int32_t", "status", "method", 3, {{"options", "kiln_options *", "handle", 0}, {"key", "int32_t", "scalar", 0}, {"value", "const char *", "cstring", 1}}},
    {"kiln_runtime_create", "int32_t", "status", "create", 2, {{"options", "const kiln_options *", "handle", 1}, {"out", "kiln_runtime **", "handle_out", 0}}},
    {"kiln_runtime_destroy", "void", "none", "destroy", 1, {{"runtime", "kiln_runtime *", "handle", 0}}},
    {"kiln_model_load_file", "int32_t", "status", "create", 4, {{"runtime", "kiln_runtime *", "handle", 0}, {"path", "const char *", "cstring", 0}, {"options", "const kiln_options *", "handle", 1}, {"out", "kiln_model **", "handle_out", 0}}},
    {"kiln_model_load_memory", "int32_t", "status", "create", 5, {{"runtime", "kiln_runtime *", "handle", 0}, {"data", "const void *", "bytes_in", 0}, {"size", "size_t", "nbytes", 0}, {"options", "const kiln_options *", "handle", 1}, {"out", "kiln_model **", "handle_out", 0}}},
    {"kiln_model_destroy", "void", "none", "destroy", 1, {{"model", "kiln_model *", "handle", 0}}},
    {"kiln_model_input_count", "int32_t", "status", "method", 2, {{"model", "const kiln_model *", "handle", 0}, {"count", "int32_t *", "scalar_out", 0}}},
    {"kiln_model_output_count", "int32_t", "status", "method", 2, {{"model", "const kiln_model *", "handle", 0}, {"count", "int32_t *", "scalar_out", 0}}},
    {"kiln_model_input_name", "int32_t", "status", "method", 5, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"buf", "char *", "strbuf", 0}, {"cap", "int32_t", "strcap", 0}, {"needed", "int32_t *", "needed", 0}}},
    {"kiln_model_output_name", "int32_t", "status", "method", 5, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"buf", "char *", "strbuf", 0}, {"cap", "int32_t", "strcap", 0}, {"needed", "int32_t *", "needed", 0}}},
    {"kiln_model_input_dtype", "int32_t", "status", "method", 3, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"dtype", "int32_t *", "scalar_out", 0}}},
    {"kiln_model_output_dtype", "int32_t", "status", "method", 3, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"dtype", "int32_t *", "scalar_out", 0}}},
    {"kiln_model_input_shape", "int32_t", "status", "method", 5, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"dims", "int64_t *", "dims_out", 0}, {"cap", "int32_t", "dims_cap", 0}, {"rank", "int32_t *", "rank_out", 0}}},
    {"kiln_model_output_shape", "int32_t", "status", "method", 5, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"dims", "int64_t *", "dims_out", 0}, {"cap", "int32_t", "dims_cap", 0}, {"rank", "int32_t *", "rank_out", 0}}},
    {"kiln_model_input_index", "int32_t", "status", "method", 3, {{"model", "const kiln_model *", "handle", 0}, {"name", "const char *", "cstring", 0}, {"index", "int32_t *", "scalar_out", 0}}},
    {"kiln_model_output_index", "int32_t", "status", "method", 3, {{"model", "const kiln_model *", "handle", 0}, {"name", "const char *", "cstring", 0}, {"index", "int32_t *", "scalar_out", 0}}},
    {"kiln_model_opset_count", "int32_t", "status", "method", 2, {{"model", "const kiln_model *", "handle", 0}, {"count", "int32_t *", "scalar_out", 0}}},
    {"kiln_model_opset", "int32_t", "status", "method", 6, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"domain", "char *", "strbuf", 0}, {"cap", "int32_t", "strcap", 0}, {"needed", "int32_t *", "needed", 0}, {"version", "int32_t *", "scalar_out", 0}}},
    {"kiln_model_node_count", "int32_t", "status", "method", 2, {{"model", "const kiln_model *", "handle", 0}, {"count", "int32_t *", "scalar_out", 0}}},
    {"kiln_model_node_op", "int32_t", "status", "method", 7, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"op_type", "char *", "strbuf", 0}, {"op_cap", "int32_t", "strcap", 0}, {"domain", "char *", "strbuf", 0}, {"domain_cap", "int32_t", "strcap", 0}, {"needed", "int32_t *", "needed", 0}}},
    {"kiln_model_node_name", "int32_t", "status", "method", 5, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"buf", "char *", "strbuf", 0}, {"cap", "int32_t", "strcap", 0}, {"needed", "int32_t *", "needed", 0}}},
    {"kiln_model_node_supported", "int32_t", "status", "method", 3, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"supported", "int32_t *", "scalar_out", 0}}},
    {"kiln_model_input_kind", "int32_t", "status", "method", 3, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"kind", "int32_t *", "scalar_out", 0}}},
    {"kiln_model_output_kind", "int32_t", "status", "method", 3, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"kind", "int32_t *", "scalar_out", 0}}},
    {"kiln_model_memory_info", "int32_t", "status", "method", 4, {{"model", "const kiln_model *", "handle", 0}, {"weight_bytes", "int64_t *", "scalar_out", 0}, {"shared_prepared_bytes", "int64_t *", "scalar_out", 0}, {"given_back_bytes", "int64_t *", "scalar_out", 0}}},
    {"kiln_model_node_io_count", "int32_t", "status", "method", 4, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"input_count", "int32_t *", "scalar_out", 0}, {"output_count", "int32_t *", "scalar_out", 0}}},
    {"kiln_model_node_input", "int32_t", "status", "method", 6, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"slot", "int32_t", "scalar", 0}, {"buf", "char *", "strbuf", 0}, {"cap", "int32_t", "strcap", 0}, {"needed", "int32_t *", "needed", 0}}},
    {"kiln_model_node_output", "int32_t", "status", "method", 6, {{"model", "const kiln_model *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"slot", "int32_t", "scalar", 0}, {"buf", "char *", "strbuf", 0}, {"cap", "int32_t", "strcap", 0}, {"needed", "int32_t *", "needed", 0}}},
    {"kiln_session_create", "int32_t", "status", "create", 3, {{"model", "kiln_model *", "handle", 0}, {"options", "const kiln_options *", "handle", 1}, {"out", "kiln_session **", "handle_out", 0}}},
    {"kiln_session_destroy", "void", "none", "destroy", 1, {{"session", "kiln_session *", "handle", 0}}},
    {"kiln_session_set_input", "int32_t", "status", "method", 8, {{"session", "kiln_session *", "handle", 0}, {"name", "const char *", "cstring", 0}, {"dtype", "int32_t", "scalar", 0}, {"dims", "const int64_t *", "dims_in", 0}, {"rank", "int32_t", "rank", 0}, {"data", "const void *", "bytes_in", 0}, {"nbytes", "size_t", "nbytes", 0}, {"flags", "int32_t", "scalar", 0}}},
    {"kiln_session_set_input_at", "int32_t", "status", "method", 8, {{"session", "kiln_session *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"dtype", "int32_t", "scalar", 0}, {"dims", "const int64_t *", "dims_in", 0}, {"rank", "int32_t", "rank", 0}, {"data", "const void *", "bytes_in", 0}, {"nbytes", "size_t", "nbytes", 0}, {"flags", "int32_t", "scalar", 0}}},
    {"kiln_session_run", "int32_t", "status", "method", 1, {{"session", "kiln_session *", "handle", 0}}},
    {"kiln_session_cancel", "int32_t", "status", "method", 1, {{"session", "kiln_session *", "handle", 0}}},
    {"kiln_session_output_info", "int32_t", "status", "method", 6, {{"session", "const kiln_session *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"dtype", "int32_t *", "scalar_out", 0}, {"dims", "int64_t *", "dims_out", 0}, {"cap", "int32_t", "dims_cap", 0}, {"rank", "int32_t *", "rank_out", 0}}},
    {"kiln_session_output_copy", "int32_t", "status", "method", 5, {{"session", "const kiln_session *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"buf", "void *", "bytes_out", 0}, {"cap", "size_t", "bytes_cap", 0}, {"needed", "size_t *", "bytes_needed", 1}}},
    {"kiln_session_output_view", "int32_t", "status", "method", 4, {{"session", "const kiln_session *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"data", "const void **", "view_out", 0}, {"nbytes", "size_t *", "nbytes_out", 0}}},
    {"kiln_session_plan_bytes", "int32_t", "status", "method", 3, {{"session", "const kiln_session *", "handle", 0}, {"arena_bytes", "int64_t *", "scalar_out", 0}, {"intermediate_bytes", "int64_t *", "scalar_out", 0}}},
    {"kiln_session_cache_info", "int32_t", "status", "method", 4, {{"session", "const kiln_session *", "handle", 0}, {"plans_kept", "int32_t *", "scalar_out", 0}, {"plans_built", "int64_t *", "scalar_out", 0}, {"arena_bytes", "int64_t *", "scalar_out", 0}}},
    {"kiln_session_release_memory", "int32_t", "status", "method", 1, {{"session", "kiln_session *", "handle", 0}}},
    {"kiln_session_set_input_value", "int32_t", "status", "method", 3, {{"session", "kiln_session *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"value", "const kiln_tensor *", "handle", 0}}},
    {"kiln_session_output_value", "int32_t", "status", "method", 3, {{"session", "const kiln_session *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"out", "kiln_tensor **", "handle_out", 0}}},
    {"kiln_session_value_count", "int32_t", "status", "method", 2, {{"session", "const kiln_session *", "handle", 0}, {"count", "int32_t *", "scalar_out", 0}}},
    {"kiln_session_value_name", "int32_t", "status", "method", 5, {{"session", "const kiln_session *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"buf", "char *", "strbuf", 0}, {"cap", "int32_t", "strcap", 0}, {"needed", "int32_t *", "needed", 0}}},
    {"kiln_session_value_info", "int32_t", "status", "method", 6, {{"session", "const kiln_session *", "handle", 0}, {"name", "const char *", "cstring", 0}, {"dtype", "int32_t *", "scalar_out", 0}, {"dims", "int64_t *", "dims_out", 0}, {"cap", "int32_t", "dims_cap", 0}, {"rank", "int32_t *", "rank_out", 0}}},
    {"kiln_session_value_copy", "int32_t", "status", "method", 5, {{"session", "const kiln_session *", "handle", 0}, {"name", "const char *", "cstring", 0}, {"buf", "void *", "bytes_out", 0}, {"cap", "size_t", "bytes_cap", 0}, {"needed", "size_t *", "bytes_needed", 1}}},
    {"kiln_session_profile_count", "int32_t", "status", "method", 2, {{"session", "const kiln_session *", "handle", 0}, {"count", "int32_t *", "scalar_out", 0}}},
    {"kiln_session_profile_name", "int32_t", "status", "method", 5, {{"session", "const kiln_session *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"buf", "char *", "strbuf", 0}, {"cap", "int32_t", "strcap", 0}, {"needed", "int32_t *", "needed", 0}}},
    {"kiln_session_profile_op", "int32_t", "status", "method", 5, {{"session", "const kiln_session *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"buf", "char *", "strbuf", 0}, {"cap", "int32_t", "strcap", 0}, {"needed", "int32_t *", "needed", 0}}},
    {"kiln_session_profile_kernel", "int32_t", "status", "method", 5, {{"session", "const kiln_session *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"buf", "char *", "strbuf", 0}, {"cap", "int32_t", "strcap", 0}, {"needed", "int32_t *", "needed", 0}}},
    {"kiln_session_profile_time", "int32_t", "status", "method", 4, {{"session", "const kiln_session *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"total_ns", "int64_t *", "scalar_out", 0}, {"runs", "int64_t *", "scalar_out", 0}}},
    {"kiln_session_profile_reset", "int32_t", "status", "method", 1, {{"session", "kiln_session *", "handle", 0}}},
    {"kiln_image_to_tensor", "int32_t", "status", "function", 13, {{"pixels", "const uint8_t *", "pixels_in", 0}, {"width", "int32_t", "scalar", 0}, {"height", "int32_t", "scalar", 0}, {"stride", "int32_t", "scalar", 0}, {"channels", "int32_t", "scalar", 0}, {"out_width", "int32_t", "scalar", 0}, {"out_height", "int32_t", "scalar", 0}, {"out_channels", "int32_t", "scalar", 0}, {"mean", "const float *", "floats_in", 1}, {"std", "const float *", "floats_in", 1}, {"flags", "int32_t", "scalar", 0}, {"out", "float *", "floats_out", 0}, {"out_bytes", "size_t", "nbytes", 0}}},
    {"kiln_image_decode", "int32_t", "status", "function", 8, {{"data", "const void *", "bytes_in", 0}, {"size", "size_t", "nbytes", 0}, {"channels", "int32_t", "scalar", 0}, {"pixels", "void *", "bytes_out", 0}, {"cap", "size_t", "bytes_cap", 0}, {"needed", "size_t *", "bytes_needed", 1}, {"width", "int32_t *", "scalar_out", 0}, {"height", "int32_t *", "scalar_out", 0}}},
    {"kiln_tensor_decode", "int32_t", "status", "create", 3, {{"data", "const void *", "bytes_in", 0}, {"size", "size_t", "nbytes", 0}, {"out", "kiln_tensor **", "handle_out", 0}}},
    {"kiln_tensor_destroy", "void", "none", "destroy", 1, {{"tensor", "kiln_tensor *", "handle", 0}}},
    {"kiln_tensor_info", "int32_t", "status", "method", 5, {{"tensor", "const kiln_tensor *", "handle", 0}, {"dtype", "int32_t *", "scalar_out", 0}, {"dims", "int64_t *", "dims_out", 0}, {"cap", "int32_t", "dims_cap", 0}, {"rank", "int32_t *", "rank_out", 0}}},
    {"kiln_tensor_data", "int32_t", "status", "method", 3, {{"tensor", "const kiln_tensor *", "handle", 0}, {"data", "const void **", "view_out", 0}, {"nbytes", "size_t *", "nbytes_out", 0}}},
    {"kiln_tensor_name", "int32_t", "status", "method", 4, {{"tensor", "const kiln_tensor *", "handle", 0}, {"buf", "char *", "strbuf", 0}, {"cap", "int32_t", "strcap", 0}, {"needed", "int32_t *", "needed", 0}}},
    {"kiln_tensor_encode", "int32_t", "status", "function", 9, {{"name", "const char *", "cstring", 1}, {"dtype", "int32_t", "scalar", 0}, {"dims", "const int64_t *", "dims_in", 0}, {"rank", "int32_t", "rank", 0}, {"data", "const void *", "bytes_in", 0}, {"nbytes", "size_t", "nbytes", 0}, {"buf", "void *", "bytes_out", 0}, {"cap", "size_t", "bytes_cap", 0}, {"needed", "size_t *", "bytes_needed", 0}}},
    {"kiln_tensor_decode_value", "int32_t", "status", "create", 4, {{"data", "const void *", "bytes_in", 0}, {"size", "size_t", "nbytes", 0}, {"kind", "int32_t", "scalar", 0}, {"out", "kiln_tensor **", "handle_out", 0}}},
    {"kiln_tensor_kind", "int32_t", "status", "method", 2, {{"tensor", "const kiln_tensor *", "handle", 0}, {"kind", "int32_t *", "scalar_out", 0}}},
    {"kiln_tensor_element_count", "int32_t", "status", "method", 2, {{"value", "const kiln_tensor *", "handle", 0}, {"count", "int32_t *", "scalar_out", 0}}},
    {"kiln_tensor_element", "int32_t", "status", "method", 3, {{"value", "const kiln_tensor *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"out", "kiln_tensor **", "handle_out", 0}}},
    {"kiln_tensor_string", "int32_t", "status", "method", 5, {{"tensor", "const kiln_tensor *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"buf", "char *", "strbuf", 0}, {"cap", "int32_t", "strcap", 0}, {"needed", "int32_t *", "needed", 0}}},
    {"kiln_calibrator_create", "int32_t", "status", "create", 4, {{"runtime", "kiln_runtime *", "handle", 0}, {"path", "const char *", "cstring", 0}, {"options", "const kiln_options *", "handle", 1}, {"out", "kiln_calibrator **", "handle_out", 0}}},
    {"kiln_calibrator_create_memory", "int32_t", "status", "create", 5, {{"runtime", "kiln_runtime *", "handle", 0}, {"data", "const void *", "bytes_in", 0}, {"size", "size_t", "nbytes", 0}, {"options", "const kiln_options *", "handle", 1}, {"out", "kiln_calibrator **", "handle_out", 0}}},
    {"kiln_calibrator_destroy", "void", "none", "destroy", 1, {{"calibrator", "kiln_calibrator *", "handle", 0}}},
    {"kiln_calibrator_configure", "int32_t", "status", "method", 2, {{"calibrator", "kiln_calibrator *", "handle", 0}, {"options", "const kiln_options *", "handle", 0}}},
    {"kiln_calibrator_set_input", "int32_t", "status", "method", 7, {{"calibrator", "kiln_calibrator *", "handle", 0}, {"name", "const char *", "cstring", 0}, {"dtype", "int32_t", "scalar", 0}, {"dims", "const int64_t *", "dims_in", 0}, {"rank", "int32_t", "rank", 0}, {"data", "const void *", "bytes_in", 0}, {"nbytes", "size_t", "nbytes", 0}}},
    {"kiln_calibrator_add_batch", "int32_t", "status", "method", 1, {{"calibrator", "kiln_calibrator *", "handle", 0}}},
    {"kiln_calibrator_batch_count", "int32_t", "status", "method", 2, {{"calibrator", "const kiln_calibrator *", "handle", 0}, {"count", "int32_t *", "scalar_out", 0}}},
    {"kiln_calibrator_write_file", "int32_t", "status", "method", 2, {{"calibrator", "kiln_calibrator *", "handle", 0}, {"path", "const char *", "cstring", 0}}},
    {"kiln_calibrator_write_memory", "int32_t", "status", "method", 4, {{"calibrator", "kiln_calibrator *", "handle", 0}, {"buf", "void *", "bytes_out", 0}, {"cap", "size_t", "bytes_cap", 0}, {"needed", "size_t *", "bytes_needed", 0}}},
    {"kiln_calibrator_report_count", "int32_t", "status", "method", 2, {{"calibrator", "const kiln_calibrator *", "handle", 0}, {"count", "int32_t *", "scalar_out", 0}}},
    {"kiln_calibrator_report_name", "int32_t", "status", "method", 5, {{"calibrator", "const kiln_calibrator *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"buf", "char *", "strbuf", 0}, {"cap", "int32_t", "strcap", 0}, {"needed", "int32_t *", "needed", 0}}},
    {"kiln_calibrator_report_stats", "int32_t", "status", "method", 7, {{"calibrator", "const kiln_calibrator *", "handle", 0}, {"index", "int32_t", "scalar", 0}, {"kind", "int32_t *", "scalar_out", 0}, {"zero_point", "int32_t *", "scalar_out", 0}, {"nonfinite", "int64_t *", "scalar_out", 0}, {"stats", "float *", "floats_out", 0}, {"stats_bytes", "size_t", "nbytes", 0}}},
};

static const kiln_api_constant kiln_api_constants[] = {
    {"KILN_ABI_VERSION", "abi", 1},
    {"KILN_OK", "status", 0},
    {"KILN_ERR_INVALID_ARGUMENT", "status", 1},
    {"KILN_ERR_OUT_OF_MEMORY", "status", 2},
    {"KILN_ERR_IO", "status", 3},
    {"KILN_ERR_INVALID_MODEL", "status", 4},
    {"KILN_ERR_UNSUPPORTED", "status", 5},
    {"KILN_ERR_SHAPE", "status", 6},
    {"KILN_ERR_DTYPE", "status", 7},
    {"KILN_ERR_NOT_FOUND", "status", 8},
    {"KILN_ERR_STATE", "status", 9},
    {"KILN_ERR_CANCELLED", "status", 10},
    {"KILN_ERR_INTERNAL", "status", 11},
    {"KILN_ERR_BUFFER_TOO_SMALL", "status", 12},
    {"KILN_ERR_LIMIT", "status", 13},
    {"KILN_DTYPE_FLOAT", "dtype", 1},
    {"KILN_DTYPE_UINT8", "dtype", 2},
    {"KILN_DTYPE_INT8", "dtype", 3},
    {"KILN_DTYPE_UINT16", "dtype", 4},
    {"KILN_DTYPE_INT16", "dtype", 5},
    {"KILN_DTYPE_INT32", "dtype", 6},
    {"KILN_DTYPE_INT64", "dtype", 7},
    {"KILN_DTYPE_STRING", "dtype", 8},
    {"KILN_DTYPE_BOOL", "dtype", 9},
    {"KILN_DTYPE_FLOAT16", "dtype", 10},
    {"KILN_DTYPE_DOUBLE", "dtype", 11},
    {"KILN_DTYPE_UINT32", "dtype", 12},
    {"KILN_DTYPE_UINT64", "dtype", 13},
    {"KILN_DTYPE_BFLOAT16", "dtype", 16},
    {"KILN_DTYPE_FLOAT8E4M3FN", "dtype", 17},
    {"KILN_DTYPE_FLOAT8E4M3FNUZ", "dtype", 18},
    {"KILN_DTYPE_FLOAT8E5M2", "dtype", 19},
    {"KILN_DTYPE_FLOAT8E5M2FNUZ", "dtype", 20},
    {"KILN_DTYPE_FLOAT8E8M0", "dtype", 24},
    {"KILN_DTYPE_UINT4", "dtype", 21},
    {"KILN_DTYPE_INT4", "dtype", 22},
    {"KILN_DTYPE_FLOAT4E2M1", "dtype", 23},
    {"KILN_DTYPE_UINT2", "dtype", 25},
    {"KILN_DTYPE_INT2", "dtype", 26},
    {"KILN_KIND_TENSOR", "kind", 0},
    {"KILN_KIND_SEQUENCE", "kind", 1},
    {"KILN_KIND_OPTIONAL", "kind", 2},
    {"KILN_OPT_THREADS", "option", 1},
    {"KILN_OPT_ALLOW_UNSUPPORTED", "option", 2},
    {"KILN_OPT_MAX_MODEL_MB", "option", 3},
    {"KILN_OPT_MAX_ARENA_MB", "option", 4},
    {"KILN_OPT_OPTIMIZE", "option", 5},
    {"KILN_OPT_USE_DNNL", "option", 6},
    {"KILN_OPT_TUNE", "option", 7},
    {"KILN_OPT_PROFILE", "option", 8},
    {"KILN_OPT_PLAN_CACHE", "option", 9},
    {"KILN_OPT_CALIB_METHOD", "option", 10},
    {"KILN_OPT_CALIB_SYMMETRIC", "option", 11},
    {"KILN_OPT_KEEP_VALUES", "option", 12},
    {"KILN_OPT_PRECISION", "option", 13},
    {"KILN_SOPT_TUNING_CACHE", "string_option", 1},
    {"KILN_SOPT_CALIB_PERCENTILE", "string_option", 2},
    {"KILN_SOPT_CALIB_KEEP_FLOAT", "string_option", 3},
    {"KILN_SOPT_DEVICE", "string_option", 4},
    {"KILN_PRECISION_FP32", "precision", 0},
    {"KILN_PRECISION_BF16", "precision", 1},
    {"KILN_CALIB_MINMAX", "calib_method", 1},
    {"KILN_CALIB_PERCENTILE", "calib_method", 2},
    {"KILN_CALIB_ENTROPY", "calib_method", 3},
    {"KILN_CALIB_MSE", "calib_method", 4},
    {"KILN_CALIB_TENSOR_ACTIVATION", "calib_tensor", 0},
    {"KILN_CALIB_TENSOR_WEIGHT", "calib_tensor", 1},
    {"KILN_CALIB_TENSOR_BIAS", "calib_tensor", 2},
    {"KILN_INPUT_COPY", "input_flag", 1},
    {"KILN_IMAGE_BGR", "image_flag", 1},
};

#endif
