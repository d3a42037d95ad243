// Code generated from capi/kiln_api.json by bindings/gen/emit_go.py. DO NOT EDIT.
// Regenerate with: /usr/bin/python3 bindings/gen/generate.py

package kiln

// #cgo pkg-config: kiln
// #include <stdlib.h>
// #include <kiln.h>
//
// // A status and, on failure, the thread's error message (malloc'd; the Go
// // side frees it).
// typedef struct {
//     int32_t status;
//     char *message;
// } kilngo_status;
//
// static kilngo_status kilngo_capture(int32_t status) {
//     kilngo_status r = {status, NULL};
//     if (status != KILN_OK) {
//         int32_t length = kiln_last_error(NULL, 0);
//         r.message = malloc((size_t)length + 1);
//         if (r.message) kiln_last_error(r.message, length + 1);
//     }
//     return r;
// }
//
// static kilngo_status kilngo_options_create(kiln_options **out) {
//     return kilngo_capture(kiln_options_create(out));
// }
//
// static kilngo_status kilngo_options_set_int(kiln_options *options, int32_t key, int32_t value) {
//     return kilngo_capture(kiln_options_set_int(options, key, value));
// }
//
// static kilngo_status kilngo_options_set_string(kiln_options *options, int32_t key, const char *value) {
//     return kilngo_capture(kiln_options_set_string(options, key, value));
// }
//
// static kilngo_status kilngo_runtime_create(const kiln_options *options, kiln_runtime **out) {
//     return kilngo_capture(kiln_runtime_create(options, out));
// }
//
// static kilngo_status kilngo_model_load_file(kiln_runtime *runtime, const char *path, const kiln_options *options, kiln_model **out) {
//     return kilngo_capture(kiln_model_load_file(runtime, path, options, out));
// }
//
// static kilngo_status kilngo_model_load_memory(kiln_runtime *runtime, const void *data, size_t size, const kiln_options *options, kiln_model **out) {
//     return kilngo_capture(kiln_model_load_memory(runtime, data, size, options, out));
// }
//
// static kilngo_status kilngo_model_input_count(const kiln_model *model, int32_t *count) {
//     return kilngo_capture(kiln_model_input_count(model, count));
// }
//
// static kilngo_status kilngo_model_output_count(const kiln_model *model, int32_t *count) {
//     return kilngo_capture(kiln_model_output_count(model, count));
// }
//
// static kilngo_status kilngo_model_input_name(const kiln_model *model, int32_t index, char *buf, int32_t cap, int32_t *needed) {
//     return kilngo_capture(kiln_model_input_name(model, index, buf, cap, needed));
// }
//
// static kilngo_status kilngo_model_output_name(const kiln_model *model, int32_t index, char *buf, int32_t cap, int32_t *needed) {
//     return kilngo_capture(kiln_model_output_name(model, index, buf, cap, needed));
// }
//
// static kilngo_status kilngo_model_input_dtype(const kiln_model *model, int32_t index, int32_t *dtype) {
//     return kilngo_capture(kiln_model_input_dtype(model, index, dtype));
// }
//
// static kilngo_status kilngo_model_output_dtype(const kiln_model *model, int32_t index, int32_t *dtype) {
//     return kilngo_capture(kiln_model_output_dtype(model, index, dtype));
// }
//
// static kilngo_status kilngo_model_input_shape(const kiln_model *model, int32_t index, int64_t *dims, int32_t cap, int32_t *rank) {
//     return kilngo_capture(kiln_model_input_shape(model, index, dims, cap, rank));
// }
//
// static kilngo_status kilngo_model_output_shape(const kiln_model *model, int32_t index, int64_t *dims, int32_t cap, int32_t *rank) {
//     return kilngo_capture(kiln_model_output_shape(model, index, dims, cap, rank));
// }
//
// static kilngo_status kilngo_model_input_index(const kiln_model *model, const char *name, int32_t *index) {
//     return kilngo_capture(kiln_model_input_index(model, name, index));
// }
//
// static kilngo_status kilngo_model_output_index(const kiln_model *model, const char *name, int32_t *index) {
//     return kilngo_capture(kiln_model_output_index(model, name, index));
// }
//
// static kilngo_status kilngo_model_opset_count(const kiln_model *model, int32_t *count) {
//     return kilngo_capture(kiln_model_opset_count(model, count));
// }
//
// static kilngo_status kilngo_model_opset(const kiln_model *model, int32_t index, char *domain, int32_t cap, int32_t *needed, int32_t *version) {
//     return kilngo_capture(kiln_model_opset(model, index, domain, cap, needed, version));
// }
//
// static kilngo_status kilngo_model_node_count(const kiln_model *model, int32_t *count) {
//     return kilngo_capture(kiln_model_node_count(model, count));
// }
//
// static kilngo_status kilngo_model_node_op(const kiln_model *model, int32_t index, char *op_type, int32_t op_cap, char *domain, int32_t domain_cap, int32_t *needed) {
//     return kilngo_capture(kiln_model_node_op(model, index, op_type, op_cap, domain, domain_cap, needed));
// }
//
// static kilngo_status kilngo_model_node_name(const kiln_model *model, int32_t index, char *buf, int32_t cap, int32_t *needed) {
//     return kilngo_capture(kiln_model_node_name(model, index, buf, cap, needed));
// }
//
// static kilngo_status kilngo_model_node_supported(const kiln_model *model, int32_t index, int32_t *supported) {
//     return kilngo_capture(kiln_model_node_supported(model, index, supported));
// }
//
// static kilngo_status kilngo_model_input_kind(const kiln_model *model, int32_t index, int32_t *kind) {
//     return kilngo_capture(kiln_model_input_kind(model, index, kind));
// }
//
// static kilngo_status kilngo_model_output_kind(const kiln_model *model, int32_t index, int32_t *kind) {
//     return kilngo_capture(kiln_model_output_kind(model, index, kind));
// }
//
// static kilngo_status kilngo_model_memory_info(const kiln_model *model, int64_t *weight_bytes, int64_t *shared_prepared_bytes, int64_t *given_back_bytes) {
//     return kilngo_capture(kiln_model_memory_info(model, weight_bytes, shared_prepared_bytes, given_back_bytes));
// }
//
// static kilngo_status kilngo_model_node_io_count(const kiln_model *model, int32_t index, int32_t *input_count, int32_t *output_count) {
//     return kilngo_capture(kiln_model_node_io_count(model, index, input_count, output_count));
// }
//
// static kilngo_status kilngo_model_node_input(const kiln_model *model, int32_t index, int32_t slot, char *buf, int32_t cap, int32_t *needed) {
//     return kilngo_capture(kiln_model_node_input(model, index, slot, buf, cap, needed));
// }
//
// static kilngo_status kilngo_model_node_output(const kiln_model *model, int32_t index, int32_t slot, char *buf, int32_t cap, int32_t *needed) {
//     return kilngo_capture(kiln_model_node_output(model, index, slot, buf, cap, needed));
// }
//
// static kilngo_status kilngo_session_create(kiln_model *model, const kiln_options *options, kiln_session **out) {
//     return kilngo_capture(kiln_session_create(model, options, out));
// }
//
// static kilngo_status kilngo_session_set_input(kiln_session *session, const char *name, int32_t dtype, const int64_t *dims, int32_t rank, const void *data, size_t nbytes, int32_t flags) {
//     return kilngo_capture(kiln_session_set_input(session, name, dtype, dims, rank, data, nbytes, flags));
// }
//
// static kilngo_status kilngo_session_set_input_at(kiln_session *session, int32_t index, int32_t dtype, const int64_t *dims, int32_t rank, const void *data, size_t nbytes, int32_t flags) {
//     return kilngo_capture(kiln_session_set_input_at(session, index, dtype, dims, rank, data, nbytes, flags));
// }
//
// static kilngo_status kilngo_session_run(kiln_session *session) {
//     return kilngo_capture(kiln_session_run(session));
// }
//
// static kilngo_status kilngo_session_cancel(kiln_session *session) {
//     return kilngo_capture(kiln_session_cancel(session));
// }
//
// static kilngo_status kilngo_session_output_info(const kiln_session *session, int32_t index, int32_t *dtype, int64_t *dims, int32_t cap, int32_t *rank) {
//     return kilngo_capture(kiln_session_output_info(session, index, dtype, dims, cap, rank));
// }
//
// static kilngo_status kilngo_session_output_copy(const kiln_session *session, int32_t index, void *buf, size_t cap, size_t *needed) {
//     return kilngo_capture(kiln_session_output_copy(session, index, buf, cap, needed));
// }
//
// static kilngo_status kilngo_session_output_view(const kiln_session *session, int32_t index, const void **data, size_t *nbytes) {
//     return kilngo_capture(kiln_session_output_view(session, index, data, nbytes));
// }
//
// static kilngo_status kilngo_session_plan_bytes(const kiln_session *session, int64_t *arena_bytes, int64_t *intermediate_bytes) {
//     return kilngo_capture(kiln_session_plan_bytes(session, arena_bytes, intermediate_bytes));
// }
//
// static kilngo_status kilngo_session_cache_info(const kiln_session *session, int32_t *plans_kept, int64_t *plans_built, int64_t *arena_bytes) {
//     return kilngo_capture(kiln_session_cache_info(session, plans_kept, plans_built, arena_bytes));
// }
//
// static kilngo_status kilngo_session_release_memory(kiln_session *session) {
//     return kilngo_capture(kiln_session_release_memory(session));
// }
//
// static kilngo_status kilngo_session_set_input_value(kiln_session *session, int32_t index, const kiln_tensor *value) {
//     return kilngo_capture(kiln_session_set_input_value(session, index, value));
// }
//
// static kilngo_status kilngo_session_output_value(const kiln_session *session, int32_t index, kiln_tensor **out) {
//     return kilngo_capture(kiln_session_output_value(session, index, out));
// }
//
// static kilngo_status kilngo_session_set_input_device(kiln_session *session, const char *name, int32_t dtype, const int64_t *dims, int32_t rank, const void *device_data, size_t nbytes) {
//     return kilngo_capture(kiln_session_set_input_device(session, name, dtype, dims, rank, device_data, nbytes));
// }
//
// static kilngo_status kilngo_session_bind_output_device(kiln_session *session, int32_t index, void *device_data, size_t cap) {
//     return kilngo_capture(kiln_session_bind_output_device(session, index, device_data, cap));
// }
//
// static kilngo_status kilngo_session_device_stream(const kiln_session *session, void **stream) {
//     return kilngo_capture(kiln_session_device_stream(session, stream));
// }
//
// static kilngo_status kilngo_session_value_count(const kiln_session *session, int32_t *count) {
//     return kilngo_capture(kiln_session_value_count(session, count));
// }
//
// static kilngo_status kilngo_session_value_name(const kiln_session *session, int32_t index, char *buf, int32_t cap, int32_t *needed) {
//     return kilngo_capture(kiln_session_value_name(session, index, buf, cap, needed));
// }
//
// static kilngo_status kilngo_session_value_info(const kiln_session *session, const char *name, int32_t *dtype, int64_t *dims, int32_t cap, int32_t *rank) {
//     return kilngo_capture(kiln_session_value_info(session, name, dtype, dims, cap, rank));
// }
//
// static kilngo_status kilngo_session_value_copy(const kiln_session *session, const char *name, void *buf, size_t cap, size_t *needed) {
//     return kilngo_capture(kiln_session_value_copy(session, name, buf, cap, needed));
// }
//
// static kilngo_status kilngo_session_profile_count(const kiln_session *session, int32_t *count) {
//     return kilngo_capture(kiln_session_profile_count(session, count));
// }
//
// static kilngo_status kilngo_session_profile_name(const kiln_session *session, int32_t index, char *buf, int32_t cap, int32_t *needed) {
//     return kilngo_capture(kiln_session_profile_name(session, index, buf, cap, needed));
// }
//
// static kilngo_status kilngo_session_profile_op(const kiln_session *session, int32_t index, char *buf, int32_t cap, int32_t *needed) {
//     return kilngo_capture(kiln_session_profile_op(session, index, buf, cap, needed));
// }
//
// static kilngo_status kilngo_session_profile_kernel(const kiln_session *session, int32_t index, char *buf, int32_t cap, int32_t *needed) {
//     return kilngo_capture(kiln_session_profile_kernel(session, index, buf, cap, needed));
// }
//
// static kilngo_status kilngo_session_profile_time(const kiln_session *session, int32_t index, int64_t *total_ns, int64_t *runs) {
//     return kilngo_capture(kiln_session_profile_time(session, index, total_ns, runs));
// }
//
// static kilngo_status kilngo_session_profile_reset(kiln_session *session) {
//     return kilngo_capture(kiln_session_profile_reset(session));
// }
//
// static kilngo_status kilngo_image_to_tensor(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride, int32_t channels, int32_t out_width, int32_t out_height, int32_t out_channels, const float *mean, const float *std, int32_t flags, float *out, size_t out_bytes) {
//     return kilngo_capture(kiln_image_to_tensor(pixels, width, height, stride, channels, out_width, out_height, out_channels, mean, std, flags, out, out_bytes));
// }
//
// static kilngo_status kilngo_image_decode(const void *data, size_t size, int32_t channels, void *pixels, size_t cap, size_t *needed, int32_t *width, int32_t *height) {
//     return kilngo_capture(kiln_image_decode(data, size, channels, pixels, cap, needed, width, height));
// }
//
// static kilngo_status kilngo_tensor_decode(const void *data, size_t size, kiln_tensor **out) {
//     return kilngo_capture(kiln_tensor_decode(data, size, out));
// }
//
// static kilngo_status kilngo_tensor_info(const kiln_tensor *tensor, int32_t *dtype, int64_t *dims, int32_t cap, int32_t *rank) {
//     return kilngo_capture(kiln_tensor_info(tensor, dtype, dims, cap, rank));
// }
//
// static kilngo_status kilngo_tensor_data(const kiln_tensor *tensor, const void **data, size_t *nbytes) {
//     return kilngo_capture(kiln_tensor_data(tensor, data, nbytes));
// }
//
// static kilngo_status kilngo_tensor_name(const kiln_tensor *tensor, char *buf, int32_t cap, int32_t *needed) {
//     return kilngo_capture(kiln_tensor_name(tensor, buf, cap, needed));
// }
//
// static kilngo_status kilngo_tensor_encode(const char *name, int32_t dtype, const int64_t *dims, int32_t rank, const void *data, size_t nbytes, void *buf, size_t cap, size_t *needed) {
//     return kilngo_capture(kiln_tensor_encode(name, dtype, dims, rank, data, nbytes, buf, cap, needed));
// }
//
// static kilngo_status kilngo_tensor_decode_value(const void *data, size_t size, int32_t kind, kiln_tensor **out) {
//     return kilngo_capture(kiln_tensor_decode_value(data, size, kind, out));
// }
//
// static kilngo_status kilngo_tensor_kind(const kiln_tensor *tensor, int32_t *kind) {
//     return kilngo_capture(kiln_tensor_kind(tensor, kind));
// }
//
// static kilngo_status kilngo_tensor_element_count(const kiln_tensor *value, int32_t *count) {
//     return kilngo_capture(kiln_tensor_element_count(value, count));
// }
//
// static kilngo_status kilngo_tensor_element(const kiln_tensor *value, int32_t index, kiln_tensor **out) {
//     return kilngo_capture(kiln_tensor_element(value, index, out));
// }
//
// static kilngo_status kilngo_tensor_string(const kiln_tensor *tensor, int32_t index, char *buf, int32_t cap, int32_t *needed) {
//     return kilngo_capture(kiln_tensor_string(tensor, index, buf, cap, needed));
// }
//
// static kilngo_status kilngo_calibrator_create(kiln_runtime *runtime, const char *path, const kiln_options *options, kiln_calibrator **out) {
//     return kilngo_capture(kiln_calibrator_create(runtime, path, options, out));
// }
//
// static kilngo_status kilngo_calibrator_create_memory(kiln_runtime *runtime, const void *data, size_t size, const kiln_options *options, kiln_calibrator **out) {
//     return kilngo_capture(kiln_calibrator_create_memory(runtime, data, size, options, out));
// }
//
// static kilngo_status kilngo_calibrator_configure(kiln_calibrator *calibrator, const kiln_options *options) {
//     return kilngo_capture(kiln_calibrator_configure(calibrator, options));
// }
//
// static kilngo_status kilngo_calibrator_set_input(kiln_calibrator *calibrator, const char *name, int32_t dtype, const int64_t *dims, int32_t rank, const void *data, size_t nbytes) {
//     return kilngo_capture(kiln_calibrator_set_input(calibrator, name, dtype, dims, rank, data, nbytes));
// }
//
// static kilngo_status kilngo_calibrator_add_batch(kiln_calibrator *calibrator) {
//     return kilngo_capture(kiln_calibrator_add_batch(calibrator));
// }
//
// static kilngo_status kilngo_calibrator_batch_count(const kiln_calibrator *calibrator, int32_t *count) {
//     return kilngo_capture(kiln_calibrator_batch_count(calibrator, count));
// }
//
// static kilngo_status kilngo_calibrator_write_file(kiln_calibrator *calibrator, const char *path) {
//     return kilngo_capture(kiln_calibrator_write_file(calibrator, path));
// }
//
// static kilngo_status kilngo_calibrator_write_memory(kiln_calibrator *calibrator, void *buf, size_t cap, size_t *needed) {
//     return kilngo_capture(kiln_calibrator_write_memory(calibrator, buf, cap, needed));
// }
//
// static kilngo_status kilngo_calibrator_report_count(const kiln_calibrator *calibrator, int32_t *count) {
//     return kilngo_capture(kiln_calibrator_report_count(calibrator, count));
// }
//
// static kilngo_status kilngo_calibrator_report_name(const kiln_calibrator *calibrator, int32_t index, char *buf, int32_t cap, int32_t *needed) {
//     return kilngo_capture(kiln_calibrator_report_name(calibrator, index, buf, cap, needed));
// }
//
// static kilngo_status kilngo_calibrator_report_stats(const kiln_calibrator *calibrator, int32_t index, int32_t *kind, int32_t *zero_point, int64_t *nonfinite, float *stats, size_t stats_bytes) {
//     return kilngo_capture(kiln_calibrator_report_stats(calibrator, index, kind, zero_point, nonfinite, stats, stats_bytes));
// }
import "C"

import "unsafe"

// statusError turns a shim's result into nil or an *Error, freeing the
// message the shim copied.
func statusError(op string, r C.kilngo_status) error {
	if r.status == C.KILN_OK {
		return nil
	}
	message := ""
	if r.message != nil {
		message = C.GoString(r.message)
		C.free(unsafe.Pointer(r.message))
	}
	code := int32(r.status)
	return &Error{Code: code, Status: statusName(code), Message: message, Op: op}
}

// cAbiVersion wraps kiln_abi_version: KILN_ABI_VERSION of the built library
func cAbiVersion() C.int32_t {
	return C.kiln_abi_version()
}

// cVersion wraps kiln_version: release version string, e.g. "0.1.0" (static; do not free)
func cVersion() *C.char {
	return C.kiln_version()
}

// cLastError wraps kiln_last_error: copies the calling thread's last error message; returns its full length without the NUL
func cLastError(buf *C.char, cap C.int32_t) C.int32_t {
	return C.kiln_last_error(buf, cap)
}

// cStatusName wraps kiln_status_name: short English name of a status code (static string)
func cStatusName(status C.int32_t) *C.char {
	return C.kiln_status_name(status)
}

// cOptionsCreate wraps kiln_options_create: creates an empty options bag
func cOptionsCreate(out **C.kiln_options) error {
	return statusError("kiln_options_create", C.kilngo_options_create(out))
}

// cOptionsDestroy wraps kiln_options_destroy: destroys an options bag (NULL is fine)
func cOptionsDestroy(options *C.kiln_options) {
	C.kiln_options_destroy(options)
}

// cOptionsSetInt wraps kiln_options_set_int: sets integer option `key` (KILN_OPT_*)
func cOptionsSetInt(options *C.kiln_options, key C.int32_t, value C.int32_t) error {
	return statusError("kiln_options_set_int", C.kilngo_options_set_int(options, key, value))
}

// cOptionsSetString wraps kiln_options_set_string: sets string option `key` (KILN_SOPT_*); value is copied, NULL clears it
func cOptionsSetString(options *C.kiln_options, key C.int32_t, value *C.char) error {
	return statusError("kiln_options_set_string", C.kilngo_options_set_string(options, key, value))
}

// cRuntimeCreate wraps kiln_runtime_create: creates a runtime (thread pool); options may be NULL
func cRuntimeCreate(options *C.kiln_options, out **C.kiln_runtime) error {
	return statusError("kiln_runtime_create", C.kilngo_runtime_create(options, out))
}

// cRuntimeDestroy wraps kiln_runtime_destroy: destroys a runtime after all its models and sessions
func cRuntimeDestroy(runtime *C.kiln_runtime) {
	C.kiln_runtime_destroy(runtime)
}

// cModelLoadFile wraps kiln_model_load_file: loads an ONNX model file; options may be NULL
func cModelLoadFile(runtime *C.kiln_runtime, path *C.char, options *C.kiln_options, out **C.kiln_model) error {
	return statusError("kiln_model_load_file", C.kilngo_model_load_file(runtime, path, options, out))
}

// cModelLoadMemory wraps kiln_model_load_memory: loads an ONNX model from bytes (not used after the call); options may be NULL
func cModelLoadMemory(runtime *C.kiln_runtime, data unsafe.Pointer, size C.size_t, options *C.kiln_options, out **C.kiln_model) error {
	return statusError("kiln_model_load_memory", C.kilngo_model_load_memory(runtime, data, size, options, out))
}

// cModelDestroy wraps kiln_model_destroy: destroys a model after all its sessions
func cModelDestroy(model *C.kiln_model) {
	C.kiln_model_destroy(model)
}

// cModelInputCount wraps kiln_model_input_count: number of model inputs
func cModelInputCount(model *C.kiln_model, count *C.int32_t) error {
	return statusError("kiln_model_input_count", C.kilngo_model_input_count(model, count))
}

// cModelOutputCount wraps kiln_model_output_count: number of model outputs
func cModelOutputCount(model *C.kiln_model, count *C.int32_t) error {
	return statusError("kiln_model_output_count", C.kilngo_model_output_count(model, count))
}

// cModelInputName wraps kiln_model_input_name: name of input `index` (two-call pattern)
func cModelInputName(model *C.kiln_model, index C.int32_t, buf *C.char, cap C.int32_t, needed *C.int32_t) error {
	return statusError("kiln_model_input_name", C.kilngo_model_input_name(model, index, buf, cap, needed))
}

// cModelOutputName wraps kiln_model_output_name: name of output `index` (two-call pattern)
func cModelOutputName(model *C.kiln_model, index C.int32_t, buf *C.char, cap C.int32_t, needed *C.int32_t) error {
	return statusError("kiln_model_output_name", C.kilngo_model_output_name(model, index, buf, cap, needed))
}

// cModelInputDtype wraps kiln_model_input_dtype: declared element type of input `index` (KILN_DTYPE_*, 0 if open)
func cModelInputDtype(model *C.kiln_model, index C.int32_t, dtype *C.int32_t) error {
	return statusError("kiln_model_input_dtype", C.kilngo_model_input_dtype(model, index, dtype))
}

// cModelOutputDtype wraps kiln_model_output_dtype: declared element type of output `index` (KILN_DTYPE_*, 0 if open)
func cModelOutputDtype(model *C.kiln_model, index C.int32_t, dtype *C.int32_t) error {
	return statusError("kiln_model_output_dtype", C.kilngo_model_output_dtype(model, index, dtype))
}

// cModelInputShape wraps kiln_model_input_shape: declared shape of input `index` (rank -1 if unknown, dim -1 if dynamic)
func cModelInputShape(model *C.kiln_model, index C.int32_t, dims *C.int64_t, cap C.int32_t, rank *C.int32_t) error {
	return statusError("kiln_model_input_shape", C.kilngo_model_input_shape(model, index, dims, cap, rank))
}

// cModelOutputShape wraps kiln_model_output_shape: declared shape of output `index` (rank -1 if unknown, dim -1 if dynamic)
func cModelOutputShape(model *C.kiln_model, index C.int32_t, dims *C.int64_t, cap C.int32_t, rank *C.int32_t) error {
	return statusError("kiln_model_output_shape", C.kilngo_model_output_shape(model, index, dims, cap, rank))
}

// cModelInputIndex wraps kiln_model_input_index: index of the input named `name` (NOT_FOUND if none)
func cModelInputIndex(model *C.kiln_model, name *C.char, index *C.int32_t) error {
	return statusError("kiln_model_input_index", C.kilngo_model_input_index(model, name, index))
}

// cModelOutputIndex wraps kiln_model_output_index: index of the output named `name` (NOT_FOUND if none)
func cModelOutputIndex(model *C.kiln_model, name *C.char, index *C.int32_t) error {
	return statusError("kiln_model_output_index", C.kilngo_model_output_index(model, name, index))
}

// cModelOpsetCount wraps kiln_model_opset_count: number of opset imports
func cModelOpsetCount(model *C.kiln_model, count *C.int32_t) error {
	return statusError("kiln_model_opset_count", C.kilngo_model_opset_count(model, count))
}

// cModelOpset wraps kiln_model_opset: domain ("" = ai.onnx; two-call pattern) and version of opset import `index`
func cModelOpset(model *C.kiln_model, index C.int32_t, domain *C.char, cap C.int32_t, needed *C.int32_t, version *C.int32_t) error {
	return statusError("kiln_model_opset", C.kilngo_model_opset(model, index, domain, cap, needed, version))
}

// cModelNodeCount wraps kiln_model_node_count: number of nodes in the main graph
func cModelNodeCount(model *C.kiln_model, count *C.int32_t) error {
	return statusError("kiln_model_node_count", C.kilngo_model_node_count(model, count))
}

// cModelNodeOp wraps kiln_model_node_op: op type and domain of node `index`; *needed is the larger of the two sizes
func cModelNodeOp(model *C.kiln_model, index C.int32_t, op_type *C.char, op_cap C.int32_t, domain *C.char, domain_cap C.int32_t, needed *C.int32_t) error {
	return statusError("kiln_model_node_op", C.kilngo_model_node_op(model, index, op_type, op_cap, domain, domain_cap, needed))
}

// cModelNodeName wraps kiln_model_node_name: name of node `index` (two-call pattern)
func cModelNodeName(model *C.kiln_model, index C.int32_t, buf *C.char, cap C.int32_t, needed *C.int32_t) error {
	return statusError("kiln_model_node_name", C.kilngo_model_node_name(model, index, buf, cap, needed))
}

// cModelNodeSupported wraps kiln_model_node_supported: 1 if a kernel exists for node `index`, else 0
func cModelNodeSupported(model *C.kiln_model, index C.int32_t, supported *C.int32_t) error {
	return statusError("kiln_model_node_supported", C.kilngo_model_node_supported(model, index, supported))
}

// cModelInputKind wraps kiln_model_input_kind: kind of input `index` (KILN_KIND_*)
func cModelInputKind(model *C.kiln_model, index C.int32_t, kind *C.int32_t) error {
	return statusError("kiln_model_input_kind", C.kilngo_model_input_kind(model, index, kind))
}

// cModelOutputKind wraps kiln_model_output_kind: kind of output `index` (KILN_KIND_*)
func cModelOutputKind(model *C.kiln_model, index C.int32_t, kind *C.int32_t) error {
	return statusError("kiln_model_output_kind", C.kilngo_model_output_kind(model, index, kind))
}

// cModelMemoryInfo wraps kiln_model_memory_info: weight bytes, bytes of prepared weights all sessions share, raw weight bytes given back
func cModelMemoryInfo(model *C.kiln_model, weight_bytes *C.int64_t, shared_prepared_bytes *C.int64_t, given_back_bytes *C.int64_t) error {
	return statusError("kiln_model_memory_info", C.kilngo_model_memory_info(model, weight_bytes, shared_prepared_bytes, given_back_bytes))
}

// cModelNodeIoCount wraps kiln_model_node_io_count: how many inputs and outputs node `index` has
func cModelNodeIoCount(model *C.kiln_model, index C.int32_t, input_count *C.int32_t, output_count *C.int32_t) error {
	return statusError("kiln_model_node_io_count", C.kilngo_model_node_io_count(model, index, input_count, output_count))
}

// cModelNodeInput wraps kiln_model_node_input: name of the value input `slot` of node `index` reads ("" if omitted; two-call pattern)
func cModelNodeInput(model *C.kiln_model, index C.int32_t, slot C.int32_t, buf *C.char, cap C.int32_t, needed *C.int32_t) error {
	return statusError("kiln_model_node_input", C.kilngo_model_node_input(model, index, slot, buf, cap, needed))
}

// cModelNodeOutput wraps kiln_model_node_output: name of the value output `slot` of node `index` writes ("" if omitted; two-call pattern)
func cModelNodeOutput(model *C.kiln_model, index C.int32_t, slot C.int32_t, buf *C.char, cap C.int32_t, needed *C.int32_t) error {
	return statusError("kiln_model_node_output", C.kilngo_model_node_output(model, index, slot, buf, cap, needed))
}

// cSessionCreate wraps kiln_session_create: plans memory and prepares kernels for a model; options may be NULL
func cSessionCreate(model *C.kiln_model, options *C.kiln_options, out **C.kiln_session) error {
	return statusError("kiln_session_create", C.kilngo_session_create(model, options, out))
}

// cSessionDestroy wraps kiln_session_destroy: destroys a session, waiting for a run in flight
func cSessionDestroy(session *C.kiln_session) {
	C.kiln_session_destroy(session)
}

// cSessionSetInput wraps kiln_session_set_input: binds input `name` to a tensor buffer (borrowed until the run returns unless KILN_INPUT_COPY)
func cSessionSetInput(session *C.kiln_session, name *C.char, dtype C.int32_t, dims *C.int64_t, rank C.int32_t, data unsafe.Pointer, nbytes C.size_t, flags C.int32_t) error {
	return statusError("kiln_session_set_input", C.kilngo_session_set_input(session, name, dtype, dims, rank, data, nbytes, flags))
}

// cSessionSetInputAt wraps kiln_session_set_input_at: binds input `index` to a tensor buffer (borrowed until the run returns unless KILN_INPUT_COPY)
func cSessionSetInputAt(session *C.kiln_session, index C.int32_t, dtype C.int32_t, dims *C.int64_t, rank C.int32_t, data unsafe.Pointer, nbytes C.size_t, flags C.int32_t) error {
	return statusError("kiln_session_set_input_at", C.kilngo_session_set_input_at(session, index, dtype, dims, rank, data, nbytes, flags))
}

// cSessionRun wraps kiln_session_run: runs the model on the bound inputs
func cSessionRun(session *C.kiln_session) error {
	return statusError("kiln_session_run", C.kilngo_session_run(session))
}

// cSessionCancel wraps kiln_session_cancel: asks the run in flight to stop (thread-safe); it then returns KILN_ERR_CANCELLED
func cSessionCancel(session *C.kiln_session) error {
	return statusError("kiln_session_cancel", C.kilngo_session_cancel(session))
}

// cSessionOutputInfo wraps kiln_session_output_info: element type and shape of output `index` after a successful run
func cSessionOutputInfo(session *C.kiln_session, index C.int32_t, dtype *C.int32_t, dims *C.int64_t, cap C.int32_t, rank *C.int32_t) error {
	return statusError("kiln_session_output_info", C.kilngo_session_output_info(session, index, dtype, dims, cap, rank))
}

// cSessionOutputCopy wraps kiln_session_output_copy: copies output `index` into a caller buffer (two-call pattern)
func cSessionOutputCopy(session *C.kiln_session, index C.int32_t, buf unsafe.Pointer, cap C.size_t, needed *C.size_t) error {
	return statusError("kiln_session_output_copy", C.kilngo_session_output_copy(session, index, buf, cap, needed))
}

// cSessionOutputView wraps kiln_session_output_view: points at the library's copy of output `index`, valid until the next run or destroy
func cSessionOutputView(session *C.kiln_session, index C.int32_t, data *unsafe.Pointer, nbytes *C.size_t) error {
	return statusError("kiln_session_output_view", C.kilngo_session_output_view(session, index, data, nbytes))
}

// cSessionPlanBytes wraps kiln_session_plan_bytes: memory plan: arena bytes and the sum of all intermediate tensor sizes
func cSessionPlanBytes(session *C.kiln_session, arena_bytes *C.int64_t, intermediate_bytes *C.int64_t) error {
	return statusError("kiln_session_plan_bytes", C.kilngo_session_plan_bytes(session, arena_bytes, intermediate_bytes))
}

// cSessionCacheInfo wraps kiln_session_cache_info: plan cache: plans kept, plans built so far, bytes of the arena they share
func cSessionCacheInfo(session *C.kiln_session, plans_kept *C.int32_t, plans_built *C.int64_t, arena_bytes *C.int64_t) error {
	return statusError("kiln_session_cache_info", C.kilngo_session_cache_info(session, plans_kept, plans_built, arena_bytes))
}

// cSessionReleaseMemory wraps kiln_session_release_memory: gives back the kept plans and their arena; the next run plans again
func cSessionReleaseMemory(session *C.kiln_session) error {
	return statusError("kiln_session_release_memory", C.kilngo_session_release_memory(session))
}

// cSessionSetInputValue wraps kiln_session_set_input_value: binds input `index` to a copy of a tensor, sequence or optional handle
func cSessionSetInputValue(session *C.kiln_session, index C.int32_t, value *C.kiln_tensor) error {
	return statusError("kiln_session_set_input_value", C.kilngo_session_set_input_value(session, index, value))
}

// cSessionOutputValue wraps kiln_session_output_value: new handle holding a copy of output `index` (any kind)
func cSessionOutputValue(session *C.kiln_session, index C.int32_t, out **C.kiln_tensor) error {
	return statusError("kiln_session_output_value", C.kilngo_session_output_value(session, index, out))
}

// cSessionSetInputDevice wraps kiln_session_set_input_device: binds input `name` to memory on the session's device (borrowed until the run returns; no host-to-device copy)
func cSessionSetInputDevice(session *C.kiln_session, name *C.char, dtype C.int32_t, dims *C.int64_t, rank C.int32_t, device_data unsafe.Pointer, nbytes C.size_t) error {
	return statusError("kiln_session_set_input_device", C.kilngo_session_set_input_device(session, name, dtype, dims, rank, device_data, nbytes))
}

// cSessionBindOutputDevice wraps kiln_session_bind_output_device: each later run also writes output `index` into memory on the session's device (NULL unbinds)
func cSessionBindOutputDevice(session *C.kiln_session, index C.int32_t, device_data unsafe.Pointer, cap C.size_t) error {
	return statusError("kiln_session_bind_output_device", C.kilngo_session_bind_output_device(session, index, device_data, cap))
}

// cSessionDeviceStream wraps kiln_session_device_stream: the session's stream on its device (a cudaStream_t for cuda); runs have waited for it when they return
func cSessionDeviceStream(session *C.kiln_session, stream *unsafe.Pointer) error {
	return statusError("kiln_session_device_stream", C.kilngo_session_device_stream(session, stream))
}

// cSessionValueCount wraps kiln_session_value_count: number of values the last run kept (needs KILN_OPT_KEEP_VALUES = 1)
func cSessionValueCount(session *C.kiln_session, count *C.int32_t) error {
	return statusError("kiln_session_value_count", C.kilngo_session_value_count(session, count))
}

// cSessionValueName wraps kiln_session_value_name: name of kept value `index`, in the order the run computed them (two-call pattern)
func cSessionValueName(session *C.kiln_session, index C.int32_t, buf *C.char, cap C.int32_t, needed *C.int32_t) error {
	return statusError("kiln_session_value_name", C.kilngo_session_value_name(session, index, buf, cap, needed))
}

// cSessionValueInfo wraps kiln_session_value_info: element type the kept value `name` had in the run, and its shape
func cSessionValueInfo(session *C.kiln_session, name *C.char, dtype *C.int32_t, dims *C.int64_t, cap C.int32_t, rank *C.int32_t) error {
	return statusError("kiln_session_value_info", C.kilngo_session_value_info(session, name, dtype, dims, cap, rank))
}

// cSessionValueCopy wraps kiln_session_value_copy: copies the float32 copy of kept value `name` into a caller buffer (two-call pattern)
func cSessionValueCopy(session *C.kiln_session, name *C.char, buf unsafe.Pointer, cap C.size_t, needed *C.size_t) error {
	return statusError("kiln_session_value_copy", C.kilngo_session_value_copy(session, name, buf, cap, needed))
}

// cSessionProfileCount wraps kiln_session_profile_count: number of executed steps in the plan (needs KILN_OPT_PROFILE = 1)
func cSessionProfileCount(session *C.kiln_session, count *C.int32_t) error {
	return statusError("kiln_session_profile_count", C.kilngo_session_profile_count(session, count))
}

// cSessionProfileName wraps kiln_session_profile_name: node name of profiled step `index` (two-call pattern)
func cSessionProfileName(session *C.kiln_session, index C.int32_t, buf *C.char, cap C.int32_t, needed *C.int32_t) error {
	return statusError("kiln_session_profile_name", C.kilngo_session_profile_name(session, index, buf, cap, needed))
}

// cSessionProfileOp wraps kiln_session_profile_op: op type of profiled step `index` (two-call pattern)
func cSessionProfileOp(session *C.kiln_session, index C.int32_t, buf *C.char, cap C.int32_t, needed *C.int32_t) error {
	return statusError("kiln_session_profile_op", C.kilngo_session_profile_op(session, index, buf, cap, needed))
}

// cSessionProfileKernel wraps kiln_session_profile_kernel: kernel ("cpu", "dnnl", ...) of profiled step `index` (two-call pattern)
func cSessionProfileKernel(session *C.kiln_session, index C.int32_t, buf *C.char, cap C.int32_t, needed *C.int32_t) error {
	return statusError("kiln_session_profile_kernel", C.kilngo_session_profile_kernel(session, index, buf, cap, needed))
}

// cSessionProfileTime wraps kiln_session_profile_time: total nanoseconds spent in step `index` and the number of runs counted
func cSessionProfileTime(session *C.kiln_session, index C.int32_t, total_ns *C.int64_t, runs *C.int64_t) error {
	return statusError("kiln_session_profile_time", C.kilngo_session_profile_time(session, index, total_ns, runs))
}

// cSessionProfileReset wraps kiln_session_profile_reset: zeroes the profile times and run counts
func cSessionProfileReset(session *C.kiln_session) error {
	return statusError("kiln_session_profile_reset", C.kilngo_session_profile_reset(session))
}

// cImageToTensor wraps kiln_image_to_tensor: 8-bit pixels to a normalized float NCHW tensor [1, out_channels, out_height, out_width]
func cImageToTensor(pixels *C.uint8_t, width C.int32_t, height C.int32_t, stride C.int32_t, channels C.int32_t, out_width C.int32_t, out_height C.int32_t, out_channels C.int32_t, mean *C.float, std *C.float, flags C.int32_t, out *C.float, out_bytes C.size_t) error {
	return statusError("kiln_image_to_tensor", C.kilngo_image_to_tensor(pixels, width, height, stride, channels, out_width, out_height, out_channels, mean, std, flags, out, out_bytes))
}

// cImageDecode wraps kiln_image_decode: decodes a BMP, PNM, TIFF, PNG, JPEG, WebP or JPEG 2000 image to 8-bit HWC pixels (channels 3 = RGB, 1 = luma); pixels NULL and cap 0 only sets width, height and needed
func cImageDecode(data unsafe.Pointer, size C.size_t, channels C.int32_t, pixels unsafe.Pointer, cap C.size_t, needed *C.size_t, width *C.int32_t, height *C.int32_t) error {
	return statusError("kiln_image_decode", C.kilngo_image_decode(data, size, channels, pixels, cap, needed, width, height))
}

// cTensorDecode wraps kiln_tensor_decode: decodes a serialized ONNX TensorProto
func cTensorDecode(data unsafe.Pointer, size C.size_t, out **C.kiln_tensor) error {
	return statusError("kiln_tensor_decode", C.kilngo_tensor_decode(data, size, out))
}

// cTensorDestroy wraps kiln_tensor_destroy: destroys a tensor handle (NULL is fine)
func cTensorDestroy(tensor *C.kiln_tensor) {
	C.kiln_tensor_destroy(tensor)
}

// cTensorInfo wraps kiln_tensor_info: element type and shape of a tensor
func cTensorInfo(tensor *C.kiln_tensor, dtype *C.int32_t, dims *C.int64_t, cap C.int32_t, rank *C.int32_t) error {
	return statusError("kiln_tensor_info", C.kilngo_tensor_info(tensor, dtype, dims, cap, rank))
}

// cTensorData wraps kiln_tensor_data: points at the tensor's bytes, valid until destroy (DTYPE for strings)
func cTensorData(tensor *C.kiln_tensor, data *unsafe.Pointer, nbytes *C.size_t) error {
	return statusError("kiln_tensor_data", C.kilngo_tensor_data(tensor, data, nbytes))
}

// cTensorName wraps kiln_tensor_name: tensor name ("" if none; two-call pattern)
func cTensorName(tensor *C.kiln_tensor, buf *C.char, cap C.int32_t, needed *C.int32_t) error {
	return statusError("kiln_tensor_name", C.kilngo_tensor_name(tensor, buf, cap, needed))
}

// cTensorEncode wraps kiln_tensor_encode: serializes a TensorProto (raw_data form) into a caller buffer (two-call pattern)
func cTensorEncode(name *C.char, dtype C.int32_t, dims *C.int64_t, rank C.int32_t, data unsafe.Pointer, nbytes C.size_t, buf unsafe.Pointer, cap C.size_t, needed *C.size_t) error {
	return statusError("kiln_tensor_encode", C.kilngo_tensor_encode(name, dtype, dims, rank, data, nbytes, buf, cap, needed))
}

// cTensorDecodeValue wraps kiln_tensor_decode_value: decodes a serialized TensorProto, SequenceProto or OptionalProto (by kind)
func cTensorDecodeValue(data unsafe.Pointer, size C.size_t, kind C.int32_t, out **C.kiln_tensor) error {
	return statusError("kiln_tensor_decode_value", C.kilngo_tensor_decode_value(data, size, kind, out))
}

// cTensorKind wraps kiln_tensor_kind: kind of the value a handle holds (KILN_KIND_*)
func cTensorKind(tensor *C.kiln_tensor, kind *C.int32_t) error {
	return statusError("kiln_tensor_kind", C.kilngo_tensor_kind(tensor, kind))
}

// cTensorElementCount wraps kiln_tensor_element_count: number of elements of a sequence, or 0/1 for an optional
func cTensorElementCount(value *C.kiln_tensor, count *C.int32_t) error {
	return statusError("kiln_tensor_element_count", C.kilngo_tensor_element_count(value, count))
}

// cTensorElement wraps kiln_tensor_element: new handle holding a copy of element `index` of a sequence or optional
func cTensorElement(value *C.kiln_tensor, index C.int32_t, out **C.kiln_tensor) error {
	return statusError("kiln_tensor_element", C.kilngo_tensor_element(value, index, out))
}

// cTensorString wraps kiln_tensor_string: bytes of element `index` of a string tensor (two-call pattern; may contain NULs)
func cTensorString(tensor *C.kiln_tensor, index C.int32_t, buf *C.char, cap C.int32_t, needed *C.int32_t) error {
	return statusError("kiln_tensor_string", C.kilngo_tensor_string(tensor, index, buf, cap, needed))
}

// cCalibratorCreate wraps kiln_calibrator_create: loads a model file for calibration (no graph optimization)
func cCalibratorCreate(runtime *C.kiln_runtime, path *C.char, options *C.kiln_options, out **C.kiln_calibrator) error {
	return statusError("kiln_calibrator_create", C.kilngo_calibrator_create(runtime, path, options, out))
}

// cCalibratorCreateMemory wraps kiln_calibrator_create_memory: the same from the model's bytes
func cCalibratorCreateMemory(runtime *C.kiln_runtime, data unsafe.Pointer, size C.size_t, options *C.kiln_options, out **C.kiln_calibrator) error {
	return statusError("kiln_calibrator_create_memory", C.kilngo_calibrator_create_memory(runtime, data, size, options, out))
}

// cCalibratorDestroy wraps kiln_calibrator_destroy: frees the calibrator (NULL-safe)
func cCalibratorDestroy(calibrator *C.kiln_calibrator) {
	C.kiln_calibrator_destroy(calibrator)
}

// cCalibratorConfigure wraps kiln_calibrator_configure: changes method, symmetry, percentile and float-kept nodes for the next write
func cCalibratorConfigure(calibrator *C.kiln_calibrator, options *C.kiln_options) error {
	return statusError("kiln_calibrator_configure", C.kilngo_calibrator_configure(calibrator, options))
}

// cCalibratorSetInput wraps kiln_calibrator_set_input: sets input `name` of the next batch (copied)
func cCalibratorSetInput(calibrator *C.kiln_calibrator, name *C.char, dtype C.int32_t, dims *C.int64_t, rank C.int32_t, data unsafe.Pointer, nbytes C.size_t) error {
	return statusError("kiln_calibrator_set_input", C.kilngo_calibrator_set_input(calibrator, name, dtype, dims, rank, data, nbytes))
}

// cCalibratorAddBatch wraps kiln_calibrator_add_batch: runs the batch and adds every float tensor to its histogram
func cCalibratorAddBatch(calibrator *C.kiln_calibrator) error {
	return statusError("kiln_calibrator_add_batch", C.kilngo_calibrator_add_batch(calibrator))
}

// cCalibratorBatchCount wraps kiln_calibrator_batch_count: batches added so far
func cCalibratorBatchCount(calibrator *C.kiln_calibrator, count *C.int32_t) error {
	return statusError("kiln_calibrator_batch_count", C.kilngo_calibrator_batch_count(calibrator, count))
}

// cCalibratorWriteFile wraps kiln_calibrator_write_file: writes the QDQ model to a file
func cCalibratorWriteFile(calibrator *C.kiln_calibrator, path *C.char) error {
	return statusError("kiln_calibrator_write_file", C.kilngo_calibrator_write_file(calibrator, path))
}

// cCalibratorWriteMemory wraps kiln_calibrator_write_memory: the QDQ model's bytes (two-call pattern)
func cCalibratorWriteMemory(calibrator *C.kiln_calibrator, buf unsafe.Pointer, cap C.size_t, needed *C.size_t) error {
	return statusError("kiln_calibrator_write_memory", C.kilngo_calibrator_write_memory(calibrator, buf, cap, needed))
}

// cCalibratorReportCount wraps kiln_calibrator_report_count: lines in the last write's report
func cCalibratorReportCount(calibrator *C.kiln_calibrator, count *C.int32_t) error {
	return statusError("kiln_calibrator_report_count", C.kilngo_calibrator_report_count(calibrator, count))
}

// cCalibratorReportName wraps kiln_calibrator_report_name: tensor name of report line `index` (two-call pattern)
func cCalibratorReportName(calibrator *C.kiln_calibrator, index C.int32_t, buf *C.char, cap C.int32_t, needed *C.int32_t) error {
	return statusError("kiln_calibrator_report_name", C.kilngo_calibrator_report_name(calibrator, index, buf, cap, needed))
}

// cCalibratorReportStats wraps kiln_calibrator_report_stats: kind, zero point, NaN/Inf count and min, max, threshold, scale, SQNR dB of report line `index`
func cCalibratorReportStats(calibrator *C.kiln_calibrator, index C.int32_t, kind *C.int32_t, zero_point *C.int32_t, nonfinite *C.int64_t, stats *C.float, stats_bytes C.size_t) error {
	return statusError("kiln_calibrator_report_stats", C.kilngo_calibrator_report_stats(calibrator, index, kind, zero_point, nonfinite, stats, stats_bytes))
}
