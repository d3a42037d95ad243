# Generated from capi/kiln_api.json by bindings/gen/emit_python.py: do not edit.
# Regenerate with: /usr/bin/python3 bindings/gen/generate.py
"""ctypes prototypes and constants of the Kiln C API (capi/kiln.h)."""
import ctypes
import enum
from typing import Dict, FrozenSet, List, Optional, Tuple

# ABI version this header describes; compare with kiln_abi_version() at load
ABI_VERSION = 1


class Status(enum.IntEnum):
    OK = 0  # KILN_OK: success
    INVALID_ARGUMENT = 1  # KILN_ERR_INVALID_ARGUMENT: NULL handle, bad index, bad value
    OUT_OF_MEMORY = 2  # KILN_ERR_OUT_OF_MEMORY: an allocation failed
    IO = 3  # KILN_ERR_IO: model or data file cannot be read
    INVALID_MODEL = 4  # KILN_ERR_INVALID_MODEL: corrupt, truncated or inconsistent model
    UNSUPPORTED = 5  # KILN_ERR_UNSUPPORTED: op, opset, dtype or feature not supported
    SHAPE = 6  # KILN_ERR_SHAPE: wrong shape (input or inferred)
    DTYPE = 7  # KILN_ERR_DTYPE: wrong element type
    NOT_FOUND = 8  # KILN_ERR_NOT_FOUND: no input/output with that name
    STATE = 9  # KILN_ERR_STATE: call made in the wrong order
    CANCELLED = 10  # KILN_ERR_CANCELLED: run stopped by kiln_session_cancel()
    INTERNAL = 11  # KILN_ERR_INTERNAL: internal error
    BUFFER_TOO_SMALL = 12  # KILN_ERR_BUFFER_TOO_SMALL: caller buffer too small; see *needed
    LIMIT = 13  # KILN_ERR_LIMIT: a configured resource limit was exceeded


class DType(enum.IntEnum):
    FLOAT = 1  # KILN_DTYPE_FLOAT: float32
    UINT8 = 2  # KILN_DTYPE_UINT8: uint8
    INT8 = 3  # KILN_DTYPE_INT8: int8
    UINT16 = 4  # KILN_DTYPE_UINT16: uint16
    INT16 = 5  # KILN_DTYPE_INT16: int16
    INT32 = 6  # KILN_DTYPE_INT32: int32
    INT64 = 7  # KILN_DTYPE_INT64: int64
    STRING = 8  # KILN_DTYPE_STRING: byte strings (kiln_tensor_string; not for set_input)
    BOOL = 9  # KILN_DTYPE_BOOL: bool, one byte per element
    FLOAT16 = 10  # KILN_DTYPE_FLOAT16: IEEE half, 2 bytes
    DOUBLE = 11  # KILN_DTYPE_DOUBLE: float64
    UINT32 = 12  # KILN_DTYPE_UINT32: uint32
    UINT64 = 13  # KILN_DTYPE_UINT64: uint64
    BFLOAT16 = 16  # KILN_DTYPE_BFLOAT16: bfloat16, 2 bytes
    FLOAT8E4M3FN = 17  # KILN_DTYPE_FLOAT8E4M3FN: float8 E4M3FN, 1 byte (max 448, no inf)
    FLOAT8E4M3FNUZ = 18  # KILN_DTYPE_FLOAT8E4M3FNUZ: float8 E4M3FNUZ, 1 byte (max 240)
    FLOAT8E5M2 = 19  # KILN_DTYPE_FLOAT8E5M2: float8 E5M2, 1 byte (IEEE-like, max 57344)
    FLOAT8E5M2FNUZ = 20  # KILN_DTYPE_FLOAT8E5M2FNUZ: float8 E5M2FNUZ, 1 byte (max 57344)
    FLOAT8E8M0 = 24  # KILN_DTYPE_FLOAT8E8M0: float8 E8M0, 1 byte (unsigned powers of two)
    UINT4 = 21  # KILN_DTYPE_UINT4: packed 4-bit unsigned, 2 per byte, element 0 in the low bits
    INT4 = 22  # KILN_DTYPE_INT4: packed 4-bit signed, 2 per byte, element 0 in the low bits
    FLOAT4E2M1 = 23  # KILN_DTYPE_FLOAT4E2M1: packed 4-bit float E2M1, 2 per byte
    UINT2 = 25  # KILN_DTYPE_UINT2: packed 2-bit unsigned, 4 per byte
    INT2 = 26  # KILN_DTYPE_INT2: packed 2-bit signed, 4 per byte


class Kind(enum.IntEnum):
    TENSOR = 0  # KILN_KIND_TENSOR: a tensor
    SEQUENCE = 1  # KILN_KIND_SEQUENCE: an ordered list of tensors (ONNX sequence)
    OPTIONAL = 2  # KILN_KIND_OPTIONAL: none, or one tensor or sequence (ONNX optional)


class Option(enum.IntEnum):
    THREADS = 1  # KILN_OPT_THREADS: runtime: worker threads including the caller (>= 1; default 1)
    ALLOW_UNSUPPORTED = 2  # KILN_OPT_ALLOW_UNSUPPORTED: model load: 1 = load models with unsupported ops for inspection (default 0)
    MAX_MODEL_MB = 3  # KILN_OPT_MAX_MODEL_MB: model load: maximum model size in MiB, external data included (0 = none)
    MAX_ARENA_MB = 4  # KILN_OPT_MAX_ARENA_MB: session: maximum arena size in MiB (0 = none)
    OPTIMIZE = 5  # KILN_OPT_OPTIMIZE: model load: graph optimization level 0 (none), 1 (basic), 2 (all; default)
    USE_DNNL = 6  # KILN_OPT_USE_DNNL: model load: 1 = let oneDNN serve conv/matmul/pool when built in (default 1)
    TUNE = 7  # KILN_OPT_TUNE: session: 1 = time candidate kernels at creation and keep the fastest (default 0)
    PROFILE = 8  # KILN_OPT_PROFILE: session: 1 = record per-step times for kiln_session_profile_* (default 0)
    PLAN_CACHE = 9  # KILN_OPT_PLAN_CACHE: session: plans kept, one per input signature, sharing one arena (1..1024, default 8)
    CALIB_METHOD = 10  # KILN_OPT_CALIB_METHOD: calibrator: how activation ranges are chosen (KILN_CALIB_*; default mse)
    CALIB_SYMMETRIC = 11  # KILN_OPT_CALIB_SYMMETRIC: calibrator: 1 = int8 symmetric activations, 0 = uint8 asymmetric (default)
    KEEP_VALUES = 12  # KILN_OPT_KEEP_VALUES: session: 1 = every run keeps a float32 copy of every tensor its nodes compute, read with kiln_session_value_* (default 0)
    PRECISION = 13  # KILN_OPT_PRECISION: session: float arithmetic kernels may use (KILN_PRECISION_*; default fp32)
    CALIB_WEIGHT_BITS = 15  # KILN_OPT_CALIB_WEIGHT_BITS: calibrator: weights' magnitude in bits, 8 ([-127, 127], default) or 7 ([-63, 63]: exact in ONNX Runtime on x86 without VNNI)
    DEVICE_GRAPH = 14  # KILN_OPT_DEVICE_GRAPH: session: 1 = capture a device-only plan as one device graph on its first run and replay it on later runs with the same shapes (default 0)


class StringOption(enum.IntEnum):
    TUNING_CACHE = 1  # KILN_SOPT_TUNING_CACHE: session: path of the kernel tuning cache file
    CALIB_PERCENTILE = 2  # KILN_SOPT_CALIB_PERCENTILE: calibrator: the percentile of KILN_CALIB_PERCENTILE, in (0, 100] (default "99.99")
    CALIB_KEEP_FLOAT = 3  # KILN_SOPT_CALIB_KEEP_FLOAT: calibrator: comma-separated node names or op types left in float
    DEVICE = 4  # KILN_SOPT_DEVICE: session: the device its nodes run on: "cpu" (default), "NAME" or "NAME:INDEX" of a device backend


class InputFlag(enum.IntFlag):
    COPY = 1  # KILN_INPUT_COPY: copy the input data now instead of borrowing the pointer until the run ends


class ImageFlag(enum.IntFlag):
    BGR = 1  # KILN_IMAGE_BGR: kiln_image_to_tensor: write channels in B, G, R order


class CalibMethod(enum.IntEnum):
    MINMAX = 1  # KILN_CALIB_MINMAX: the largest magnitude seen
    PERCENTILE = 2  # KILN_CALIB_PERCENTILE: the magnitude below which the given percent of values lie
    ENTROPY = 3  # KILN_CALIB_ENTROPY: least KL divergence (2048 bins folded to 128 levels)
    MSE = 4  # KILN_CALIB_MSE: least expected squared quantization error


class CalibTensor(enum.IntEnum):
    ACTIVATION = 0  # KILN_CALIB_TENSOR_ACTIVATION: a computed tensor (or graph input), quantized by its calibrated range
    WEIGHT = 1  # KILN_CALIB_TENSOR_WEIGHT: a constant weight, int8 symmetric per output channel
    BIAS = 2  # KILN_CALIB_TENSOR_BIAS: a constant bias, int32 at input scale x weight scale


class Precision(enum.IntEnum):
    FP32 = 0  # KILN_PRECISION_FP32: float32 throughout
    BF16 = 1  # KILN_PRECISION_BF16: bfloat16 products with float32 accumulation where the CPU has them (oneDNN convolutions and matrix products)
    FP16 = 2  # KILN_PRECISION_FP16: device backends: products and convolutions may round inputs to float16 for Tensor Cores, float32 accumulation and tensors (host: float32)
    TF32 = 3  # KILN_PRECISION_TF32: device backends: float32 tensors, TF32 Tensor Core products allowed (host: float32)


# ---- handles: opaque structs; a handle is a pointer to one ----


class kiln_options(ctypes.Structure):
    """a bag of settings keyed by KILN_OPT_* / KILN_SOPT_*"""


class kiln_runtime(ctypes.Structure):
    """owns the thread pool; shared by models and sessions; thread-safe"""


class kiln_model(ctypes.Structure):
    """an immutable, validated graph; thread-safe and shareable"""


class kiln_session(ctypes.Structure):
    """per-run state of a model (planned memory, bound inputs); one run at a time"""


class kiln_tensor(ctypes.Structure):
    """a decoded or copied value: a tensor, sequence or optional"""


class kiln_calibrator(ctypes.Structure):
    """runs calibration batches into per-tensor histograms and writes a QDQ model"""


# Each handle type's destroy function (it accepts NULL).
HANDLE_DESTROY: Dict[str, str] = {
    "kiln_options": "kiln_options_destroy",
    "kiln_runtime": "kiln_runtime_destroy",
    "kiln_model": "kiln_model_destroy",
    "kiln_session": "kiln_session_destroy",
    "kiln_tensor": "kiln_tensor_destroy",
    "kiln_calibrator": "kiln_calibrator_destroy",
}

# C function -> (restype, argtypes), in header order. bind() applies them.
SIGNATURES: Dict[str, Tuple[Optional[type], List[type]]] = {
    # kiln_abi_version(): KILN_ABI_VERSION of the built library
    "kiln_abi_version": (ctypes.c_int32, [
    ]),
    # kiln_version(): release version string, e.g. "0.1.0" (static; do not free)
    "kiln_version": (ctypes.c_char_p, [
    ]),
    # kiln_last_error(buf, cap): copies the calling thread's last error message; returns its full length without the NUL
    "kiln_last_error": (ctypes.c_int32, [
        ctypes.POINTER(ctypes.c_char),  # char * buf (strbuf)
        ctypes.c_int32,  # int32_t cap (strcap)
    ]),
    # kiln_status_name(status): short English name of a status code (static string)
    "kiln_status_name": (ctypes.c_char_p, [
        ctypes.c_int32,  # int32_t status (scalar)
    ]),
    # kiln_options_create(out): creates an empty options bag
    "kiln_options_create": (ctypes.c_int32, [
        ctypes.POINTER(ctypes.POINTER(kiln_options)),  # kiln_options ** out (handle_out)
    ]),
    # kiln_options_destroy(options): destroys an options bag (NULL is fine)
    "kiln_options_destroy": (None, [
        ctypes.POINTER(kiln_options),  # kiln_options * options (handle)
    ]),
    # kiln_options_set_int(options, key, value): sets integer option `key` (KILN_OPT_*)
    "kiln_options_set_int": (ctypes.c_int32, [
        ctypes.POINTER(kiln_options),  # kiln_options * options (handle)
        ctypes.c_int32,  # int32_t key (scalar)
        ctypes.c_int32,  # int32_t value (scalar)
    ]),
    # kiln_options_set_string(options, key, value): sets string option `key` (KILN_SOPT_*); value is copied, NULL clears it
    "kiln_options_set_string": (ctypes.c_int32, [
        ctypes.POINTER(kiln_options),  # kiln_options * options (handle)
        ctypes.c_int32,  # int32_t key (scalar)
        ctypes.c_char_p,  # const char * value (cstring)
    ]),
    # kiln_runtime_create(options, out): creates a runtime (thread pool); options may be NULL
    "kiln_runtime_create": (ctypes.c_int32, [
        ctypes.POINTER(kiln_options),  # const kiln_options * options (handle)
        ctypes.POINTER(ctypes.POINTER(kiln_runtime)),  # kiln_runtime ** out (handle_out)
    ]),
    # kiln_runtime_destroy(runtime): destroys a runtime after all its models and sessions
    "kiln_runtime_destroy": (None, [
        ctypes.POINTER(kiln_runtime),  # kiln_runtime * runtime (handle)
    ]),
    # kiln_model_load_file(runtime, path, options, out): loads an ONNX model file; options may be NULL
    "kiln_model_load_file": (ctypes.c_int32, [
        ctypes.POINTER(kiln_runtime),  # kiln_runtime * runtime (handle)
        ctypes.c_char_p,  # const char * path (cstring)
        ctypes.POINTER(kiln_options),  # const kiln_options * options (handle)
        ctypes.POINTER(ctypes.POINTER(kiln_model)),  # kiln_model ** out (handle_out)
    ]),
    # kiln_model_load_memory(runtime, data, size, options, out): loads an ONNX model from bytes (not used after the call); options may be NULL
    "kiln_model_load_memory": (ctypes.c_int32, [
        ctypes.POINTER(kiln_runtime),  # kiln_runtime * runtime (handle)
        ctypes.c_void_p,  # const void * data (bytes_in)
        ctypes.c_size_t,  # size_t size (nbytes)
        ctypes.POINTER(kiln_options),  # const kiln_options * options (handle)
        ctypes.POINTER(ctypes.POINTER(kiln_model)),  # kiln_model ** out (handle_out)
    ]),
    # kiln_model_destroy(model): destroys a model after all its sessions
    "kiln_model_destroy": (None, [
        ctypes.POINTER(kiln_model),  # kiln_model * model (handle)
    ]),
    # kiln_model_input_count(model, count): number of model inputs
    "kiln_model_input_count": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * count (scalar_out)
    ]),
    # kiln_model_output_count(model, count): number of model outputs
    "kiln_model_output_count": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * count (scalar_out)
    ]),
    # kiln_model_input_name(model, index, buf, cap, needed): name of input `index` (two-call pattern)
    "kiln_model_input_name": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_char),  # char * buf (strbuf)
        ctypes.c_int32,  # int32_t cap (strcap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * needed (needed)
    ]),
    # kiln_model_output_name(model, index, buf, cap, needed): name of output `index` (two-call pattern)
    "kiln_model_output_name": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_char),  # char * buf (strbuf)
        ctypes.c_int32,  # int32_t cap (strcap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * needed (needed)
    ]),
    # kiln_model_input_dtype(model, index, dtype): declared element type of input `index` (KILN_DTYPE_*, 0 if open)
    "kiln_model_input_dtype": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * dtype (scalar_out)
    ]),
    # kiln_model_output_dtype(model, index, dtype): declared element type of output `index` (KILN_DTYPE_*, 0 if open)
    "kiln_model_output_dtype": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * dtype (scalar_out)
    ]),
    # kiln_model_input_shape(model, index, dims, cap, rank): declared shape of input `index` (rank -1 if unknown, dim -1 if dynamic)
    "kiln_model_input_shape": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * dims (dims_out)
        ctypes.c_int32,  # int32_t cap (dims_cap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * rank (rank_out)
    ]),
    # kiln_model_output_shape(model, index, dims, cap, rank): declared shape of output `index` (rank -1 if unknown, dim -1 if dynamic)
    "kiln_model_output_shape": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * dims (dims_out)
        ctypes.c_int32,  # int32_t cap (dims_cap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * rank (rank_out)
    ]),
    # kiln_model_input_index(model, name, index): index of the input named `name` (NOT_FOUND if none)
    "kiln_model_input_index": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_char_p,  # const char * name (cstring)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * index (scalar_out)
    ]),
    # kiln_model_output_index(model, name, index): index of the output named `name` (NOT_FOUND if none)
    "kiln_model_output_index": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_char_p,  # const char * name (cstring)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * index (scalar_out)
    ]),
    # kiln_model_opset_count(model, count): number of opset imports
    "kiln_model_opset_count": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * count (scalar_out)
    ]),
    # kiln_model_opset(model, index, domain, cap, needed, version): domain ("" = ai.onnx; two-call pattern) and version of opset import `index`
    "kiln_model_opset": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_char),  # char * domain (strbuf)
        ctypes.c_int32,  # int32_t cap (strcap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * needed (needed)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * version (scalar_out)
    ]),
    # kiln_model_node_count(model, count): number of nodes in the main graph
    "kiln_model_node_count": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * count (scalar_out)
    ]),
    # kiln_model_node_op(model, index, op_type, op_cap, domain, domain_cap, needed): op type and domain of node `index`; *needed is the larger of the two sizes
    "kiln_model_node_op": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_char),  # char * op_type (strbuf)
        ctypes.c_int32,  # int32_t op_cap (strcap)
        ctypes.POINTER(ctypes.c_char),  # char * domain (strbuf)
        ctypes.c_int32,  # int32_t domain_cap (strcap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * needed (needed)
    ]),
    # kiln_model_node_name(model, index, buf, cap, needed): name of node `index` (two-call pattern)
    "kiln_model_node_name": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_char),  # char * buf (strbuf)
        ctypes.c_int32,  # int32_t cap (strcap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * needed (needed)
    ]),
    # kiln_model_node_supported(model, index, supported): 1 if a kernel exists for node `index`, else 0
    "kiln_model_node_supported": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * supported (scalar_out)
    ]),
    # kiln_model_input_kind(model, index, kind): kind of input `index` (KILN_KIND_*)
    "kiln_model_input_kind": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * kind (scalar_out)
    ]),
    # kiln_model_output_kind(model, index, kind): kind of output `index` (KILN_KIND_*)
    "kiln_model_output_kind": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * kind (scalar_out)
    ]),
    # kiln_model_memory_info(model, weight_bytes, shared_prepared_bytes, given_back_bytes): weight bytes, bytes of prepared weights all sessions share, raw weight bytes given back
    "kiln_model_memory_info": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * weight_bytes (scalar_out)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * shared_prepared_bytes (scalar_out)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * given_back_bytes (scalar_out)
    ]),
    # kiln_model_node_io_count(model, index, input_count, output_count): how many inputs and outputs node `index` has
    "kiln_model_node_io_count": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * input_count (scalar_out)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * output_count (scalar_out)
    ]),
    # kiln_model_node_input(model, index, slot, buf, cap, needed): name of the value input `slot` of node `index` reads ("" if omitted; two-call pattern)
    "kiln_model_node_input": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.c_int32,  # int32_t slot (scalar)
        ctypes.POINTER(ctypes.c_char),  # char * buf (strbuf)
        ctypes.c_int32,  # int32_t cap (strcap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * needed (needed)
    ]),
    # kiln_model_node_output(model, index, slot, buf, cap, needed): name of the value output `slot` of node `index` writes ("" if omitted; two-call pattern)
    "kiln_model_node_output": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # const kiln_model * model (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.c_int32,  # int32_t slot (scalar)
        ctypes.POINTER(ctypes.c_char),  # char * buf (strbuf)
        ctypes.c_int32,  # int32_t cap (strcap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * needed (needed)
    ]),
    # kiln_session_create(model, options, out): plans memory and prepares kernels for a model; options may be NULL
    "kiln_session_create": (ctypes.c_int32, [
        ctypes.POINTER(kiln_model),  # kiln_model * model (handle)
        ctypes.POINTER(kiln_options),  # const kiln_options * options (handle)
        ctypes.POINTER(ctypes.POINTER(kiln_session)),  # kiln_session ** out (handle_out)
    ]),
    # kiln_session_destroy(session): destroys a session, waiting for a run in flight
    "kiln_session_destroy": (None, [
        ctypes.POINTER(kiln_session),  # kiln_session * session (handle)
    ]),
    # kiln_session_set_input(session, name, dtype, dims, rank, data, nbytes, flags): binds input `name` to a tensor buffer (borrowed until the run returns unless KILN_INPUT_COPY)
    "kiln_session_set_input": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # kiln_session * session (handle)
        ctypes.c_char_p,  # const char * name (cstring)
        ctypes.c_int32,  # int32_t dtype (scalar)
        ctypes.POINTER(ctypes.c_int64),  # const int64_t * dims (dims_in)
        ctypes.c_int32,  # int32_t rank (rank)
        ctypes.c_void_p,  # const void * data (bytes_in)
        ctypes.c_size_t,  # size_t nbytes (nbytes)
        ctypes.c_int32,  # int32_t flags (scalar)
    ]),
    # kiln_session_set_input_at(session, index, dtype, dims, rank, data, nbytes, flags): binds input `index` to a tensor buffer (borrowed until the run returns unless KILN_INPUT_COPY)
    "kiln_session_set_input_at": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # kiln_session * session (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.c_int32,  # int32_t dtype (scalar)
        ctypes.POINTER(ctypes.c_int64),  # const int64_t * dims (dims_in)
        ctypes.c_int32,  # int32_t rank (rank)
        ctypes.c_void_p,  # const void * data (bytes_in)
        ctypes.c_size_t,  # size_t nbytes (nbytes)
        ctypes.c_int32,  # int32_t flags (scalar)
    ]),
    # kiln_session_run(session): runs the model on the bound inputs
    "kiln_session_run": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # kiln_session * session (handle)
    ]),
    # kiln_session_cancel(session): asks the run in flight to stop (thread-safe); it then returns KILN_ERR_CANCELLED
    "kiln_session_cancel": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # kiln_session * session (handle)
    ]),
    # kiln_session_output_info(session, index, dtype, dims, cap, rank): element type and shape of output `index` after a successful run
    "kiln_session_output_info": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * dtype (scalar_out)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * dims (dims_out)
        ctypes.c_int32,  # int32_t cap (dims_cap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * rank (rank_out)
    ]),
    # kiln_session_output_copy(session, index, buf, cap, needed): copies output `index` into a caller buffer (two-call pattern)
    "kiln_session_output_copy": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.c_void_p,  # void * buf (bytes_out)
        ctypes.c_size_t,  # size_t cap (bytes_cap)
        ctypes.POINTER(ctypes.c_size_t),  # size_t * needed (bytes_needed)
    ]),
    # kiln_session_output_view(session, index, data, nbytes): points at the library's copy of output `index`, valid until the next run or destroy
    "kiln_session_output_view": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_void_p),  # const void ** data (view_out)
        ctypes.POINTER(ctypes.c_size_t),  # size_t * nbytes (nbytes_out)
    ]),
    # kiln_session_plan_bytes(session, arena_bytes, intermediate_bytes): memory plan: arena bytes and the sum of all intermediate tensor sizes
    "kiln_session_plan_bytes": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * arena_bytes (scalar_out)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * intermediate_bytes (scalar_out)
    ]),
    # kiln_session_cache_info(session, plans_kept, plans_built, arena_bytes): plan cache: plans kept, plans built so far, bytes of the arena they share
    "kiln_session_cache_info": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * plans_kept (scalar_out)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * plans_built (scalar_out)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * arena_bytes (scalar_out)
    ]),
    # kiln_session_release_memory(session): gives back the kept plans and their arena; the next run plans again
    "kiln_session_release_memory": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # kiln_session * session (handle)
    ]),
    # kiln_session_set_input_value(session, index, value): binds input `index` to a copy of a tensor, sequence or optional handle
    "kiln_session_set_input_value": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # kiln_session * session (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(kiln_tensor),  # const kiln_tensor * value (handle)
    ]),
    # kiln_session_output_value(session, index, out): new handle holding a copy of output `index` (any kind)
    "kiln_session_output_value": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.POINTER(kiln_tensor)),  # kiln_tensor ** out (handle_out)
    ]),
    # kiln_session_set_input_device(session, name, dtype, dims, rank, device_data, nbytes): binds input `name` to memory on the session's device (borrowed until the run returns; no host-to-device copy)
    "kiln_session_set_input_device": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # kiln_session * session (handle)
        ctypes.c_char_p,  # const char * name (cstring)
        ctypes.c_int32,  # int32_t dtype (scalar)
        ctypes.POINTER(ctypes.c_int64),  # const int64_t * dims (dims_in)
        ctypes.c_int32,  # int32_t rank (rank)
        ctypes.c_void_p,  # const void * device_data (device_ptr)
        ctypes.c_size_t,  # size_t nbytes (scalar)
    ]),
    # kiln_session_bind_output_device(session, index, device_data, cap): each later run also writes output `index` into memory on the session's device (NULL unbinds)
    "kiln_session_bind_output_device": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # kiln_session * session (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.c_void_p,  # void * device_data (device_ptr)
        ctypes.c_size_t,  # size_t cap (scalar)
    ]),
    # kiln_session_device_stream(session, stream): the session's stream on its device (a cudaStream_t for cuda); runs have waited for it when they return
    "kiln_session_device_stream": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.POINTER(ctypes.c_void_p),  # void ** stream (device_ptr_out)
    ]),
    # kiln_session_value_count(session, count): number of values the last run kept (needs KILN_OPT_KEEP_VALUES = 1)
    "kiln_session_value_count": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * count (scalar_out)
    ]),
    # kiln_session_value_name(session, index, buf, cap, needed): name of kept value `index`, in the order the run computed them (two-call pattern)
    "kiln_session_value_name": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_char),  # char * buf (strbuf)
        ctypes.c_int32,  # int32_t cap (strcap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * needed (needed)
    ]),
    # kiln_session_value_info(session, name, dtype, dims, cap, rank): element type the kept value `name` had in the run, and its shape
    "kiln_session_value_info": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.c_char_p,  # const char * name (cstring)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * dtype (scalar_out)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * dims (dims_out)
        ctypes.c_int32,  # int32_t cap (dims_cap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * rank (rank_out)
    ]),
    # kiln_session_value_copy(session, name, buf, cap, needed): copies the float32 copy of kept value `name` into a caller buffer (two-call pattern)
    "kiln_session_value_copy": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.c_char_p,  # const char * name (cstring)
        ctypes.c_void_p,  # void * buf (bytes_out)
        ctypes.c_size_t,  # size_t cap (bytes_cap)
        ctypes.POINTER(ctypes.c_size_t),  # size_t * needed (bytes_needed)
    ]),
    # kiln_session_profile_count(session, count): number of executed steps in the plan (needs KILN_OPT_PROFILE = 1)
    "kiln_session_profile_count": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * count (scalar_out)
    ]),
    # kiln_session_profile_name(session, index, buf, cap, needed): node name of profiled step `index` (two-call pattern)
    "kiln_session_profile_name": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_char),  # char * buf (strbuf)
        ctypes.c_int32,  # int32_t cap (strcap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * needed (needed)
    ]),
    # kiln_session_profile_op(session, index, buf, cap, needed): op type of profiled step `index` (two-call pattern)
    "kiln_session_profile_op": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_char),  # char * buf (strbuf)
        ctypes.c_int32,  # int32_t cap (strcap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * needed (needed)
    ]),
    # kiln_session_profile_kernel(session, index, buf, cap, needed): kernel ("cpu", "dnnl", ...) of profiled step `index` (two-call pattern)
    "kiln_session_profile_kernel": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_char),  # char * buf (strbuf)
        ctypes.c_int32,  # int32_t cap (strcap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * needed (needed)
    ]),
    # kiln_session_profile_time(session, index, total_ns, runs): total nanoseconds spent in step `index` and the number of runs counted
    "kiln_session_profile_time": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # const kiln_session * session (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * total_ns (scalar_out)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * runs (scalar_out)
    ]),
    # kiln_session_profile_reset(session): zeroes the profile times and run counts
    "kiln_session_profile_reset": (ctypes.c_int32, [
        ctypes.POINTER(kiln_session),  # kiln_session * session (handle)
    ]),
    # kiln_image_to_tensor(pixels, width, height, stride, channels, out_width, out_height, out_channels, mean, std, flags, out, out_bytes): 8-bit pixels to a normalized float NCHW tensor [1, out_channels, out_height, out_width]
    "kiln_image_to_tensor": (ctypes.c_int32, [
        ctypes.c_void_p,  # const uint8_t * pixels (pixels_in)
        ctypes.c_int32,  # int32_t width (scalar)
        ctypes.c_int32,  # int32_t height (scalar)
        ctypes.c_int32,  # int32_t stride (scalar)
        ctypes.c_int32,  # int32_t channels (scalar)
        ctypes.c_int32,  # int32_t out_width (scalar)
        ctypes.c_int32,  # int32_t out_height (scalar)
        ctypes.c_int32,  # int32_t out_channels (scalar)
        ctypes.c_void_p,  # const float * mean (floats_in)
        ctypes.c_void_p,  # const float * std (floats_in)
        ctypes.c_int32,  # int32_t flags (scalar)
        ctypes.c_void_p,  # float * out (floats_out)
        ctypes.c_size_t,  # size_t out_bytes (nbytes)
    ]),
    # kiln_image_decode(data, size, channels, pixels, cap, needed, width, height): decodes a BMP, PNM, TIFF, PNG, JPEG, WebP or JPEG 2000 image to 8-bit HWC pixels (channels 3 = RGB, 1 = luma); pixels NULL and cap 0 only sets width, height and needed
    "kiln_image_decode": (ctypes.c_int32, [
        ctypes.c_void_p,  # const void * data (bytes_in)
        ctypes.c_size_t,  # size_t size (nbytes)
        ctypes.c_int32,  # int32_t channels (scalar)
        ctypes.c_void_p,  # void * pixels (bytes_out)
        ctypes.c_size_t,  # size_t cap (bytes_cap)
        ctypes.POINTER(ctypes.c_size_t),  # size_t * needed (bytes_needed)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * width (scalar_out)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * height (scalar_out)
    ]),
    # kiln_tensor_decode(data, size, out): decodes a serialized ONNX TensorProto
    "kiln_tensor_decode": (ctypes.c_int32, [
        ctypes.c_void_p,  # const void * data (bytes_in)
        ctypes.c_size_t,  # size_t size (nbytes)
        ctypes.POINTER(ctypes.POINTER(kiln_tensor)),  # kiln_tensor ** out (handle_out)
    ]),
    # kiln_tensor_destroy(tensor): destroys a tensor handle (NULL is fine)
    "kiln_tensor_destroy": (None, [
        ctypes.POINTER(kiln_tensor),  # kiln_tensor * tensor (handle)
    ]),
    # kiln_tensor_info(tensor, dtype, dims, cap, rank): element type and shape of a tensor
    "kiln_tensor_info": (ctypes.c_int32, [
        ctypes.POINTER(kiln_tensor),  # const kiln_tensor * tensor (handle)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * dtype (scalar_out)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * dims (dims_out)
        ctypes.c_int32,  # int32_t cap (dims_cap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * rank (rank_out)
    ]),
    # kiln_tensor_data(tensor, data, nbytes): points at the tensor's bytes, valid until destroy (DTYPE for strings)
    "kiln_tensor_data": (ctypes.c_int32, [
        ctypes.POINTER(kiln_tensor),  # const kiln_tensor * tensor (handle)
        ctypes.POINTER(ctypes.c_void_p),  # const void ** data (view_out)
        ctypes.POINTER(ctypes.c_size_t),  # size_t * nbytes (nbytes_out)
    ]),
    # kiln_tensor_name(tensor, buf, cap, needed): tensor name ("" if none; two-call pattern)
    "kiln_tensor_name": (ctypes.c_int32, [
        ctypes.POINTER(kiln_tensor),  # const kiln_tensor * tensor (handle)
        ctypes.POINTER(ctypes.c_char),  # char * buf (strbuf)
        ctypes.c_int32,  # int32_t cap (strcap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * needed (needed)
    ]),
    # kiln_tensor_encode(name, dtype, dims, rank, data, nbytes, buf, cap, needed): serializes a TensorProto (raw_data form) into a caller buffer (two-call pattern)
    "kiln_tensor_encode": (ctypes.c_int32, [
        ctypes.c_char_p,  # const char * name (cstring)
        ctypes.c_int32,  # int32_t dtype (scalar)
        ctypes.POINTER(ctypes.c_int64),  # const int64_t * dims (dims_in)
        ctypes.c_int32,  # int32_t rank (rank)
        ctypes.c_void_p,  # const void * data (bytes_in)
        ctypes.c_size_t,  # size_t nbytes (nbytes)
        ctypes.c_void_p,  # void * buf (bytes_out)
        ctypes.c_size_t,  # size_t cap (bytes_cap)
        ctypes.POINTER(ctypes.c_size_t),  # size_t * needed (bytes_needed)
    ]),
    # kiln_tensor_decode_value(data, size, kind, out): decodes a serialized TensorProto, SequenceProto or OptionalProto (by kind)
    "kiln_tensor_decode_value": (ctypes.c_int32, [
        ctypes.c_void_p,  # const void * data (bytes_in)
        ctypes.c_size_t,  # size_t size (nbytes)
        ctypes.c_int32,  # int32_t kind (scalar)
        ctypes.POINTER(ctypes.POINTER(kiln_tensor)),  # kiln_tensor ** out (handle_out)
    ]),
    # kiln_tensor_kind(tensor, kind): kind of the value a handle holds (KILN_KIND_*)
    "kiln_tensor_kind": (ctypes.c_int32, [
        ctypes.POINTER(kiln_tensor),  # const kiln_tensor * tensor (handle)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * kind (scalar_out)
    ]),
    # kiln_tensor_element_count(value, count): number of elements of a sequence, or 0/1 for an optional
    "kiln_tensor_element_count": (ctypes.c_int32, [
        ctypes.POINTER(kiln_tensor),  # const kiln_tensor * value (handle)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * count (scalar_out)
    ]),
    # kiln_tensor_element(value, index, out): new handle holding a copy of element `index` of a sequence or optional
    "kiln_tensor_element": (ctypes.c_int32, [
        ctypes.POINTER(kiln_tensor),  # const kiln_tensor * value (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.POINTER(kiln_tensor)),  # kiln_tensor ** out (handle_out)
    ]),
    # kiln_tensor_string(tensor, index, buf, cap, needed): bytes of element `index` of a string tensor (two-call pattern; may contain NULs)
    "kiln_tensor_string": (ctypes.c_int32, [
        ctypes.POINTER(kiln_tensor),  # const kiln_tensor * tensor (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_char),  # char * buf (strbuf)
        ctypes.c_int32,  # int32_t cap (strcap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * needed (needed)
    ]),
    # kiln_calibrator_create(runtime, path, options, out): loads a model file for calibration (no graph optimization)
    "kiln_calibrator_create": (ctypes.c_int32, [
        ctypes.POINTER(kiln_runtime),  # kiln_runtime * runtime (handle)
        ctypes.c_char_p,  # const char * path (cstring)
        ctypes.POINTER(kiln_options),  # const kiln_options * options (handle)
        ctypes.POINTER(ctypes.POINTER(kiln_calibrator)),  # kiln_calibrator ** out (handle_out)
    ]),
    # kiln_calibrator_create_memory(runtime, data, size, options, out): the same from the model's bytes
    "kiln_calibrator_create_memory": (ctypes.c_int32, [
        ctypes.POINTER(kiln_runtime),  # kiln_runtime * runtime (handle)
        ctypes.c_void_p,  # const void * data (bytes_in)
        ctypes.c_size_t,  # size_t size (nbytes)
        ctypes.POINTER(kiln_options),  # const kiln_options * options (handle)
        ctypes.POINTER(ctypes.POINTER(kiln_calibrator)),  # kiln_calibrator ** out (handle_out)
    ]),
    # kiln_calibrator_destroy(calibrator): frees the calibrator (NULL-safe)
    "kiln_calibrator_destroy": (None, [
        ctypes.POINTER(kiln_calibrator),  # kiln_calibrator * calibrator (handle)
    ]),
    # kiln_calibrator_configure(calibrator, options): changes method, symmetry, percentile and float-kept nodes for the next write
    "kiln_calibrator_configure": (ctypes.c_int32, [
        ctypes.POINTER(kiln_calibrator),  # kiln_calibrator * calibrator (handle)
        ctypes.POINTER(kiln_options),  # const kiln_options * options (handle)
    ]),
    # kiln_calibrator_set_input(calibrator, name, dtype, dims, rank, data, nbytes): sets input `name` of the next batch (copied)
    "kiln_calibrator_set_input": (ctypes.c_int32, [
        ctypes.POINTER(kiln_calibrator),  # kiln_calibrator * calibrator (handle)
        ctypes.c_char_p,  # const char * name (cstring)
        ctypes.c_int32,  # int32_t dtype (scalar)
        ctypes.POINTER(ctypes.c_int64),  # const int64_t * dims (dims_in)
        ctypes.c_int32,  # int32_t rank (rank)
        ctypes.c_void_p,  # const void * data (bytes_in)
        ctypes.c_size_t,  # size_t nbytes (nbytes)
    ]),
    # kiln_calibrator_add_batch(calibrator): runs the batch and adds every float tensor to its histogram
    "kiln_calibrator_add_batch": (ctypes.c_int32, [
        ctypes.POINTER(kiln_calibrator),  # kiln_calibrator * calibrator (handle)
    ]),
    # kiln_calibrator_batch_count(calibrator, count): batches added so far
    "kiln_calibrator_batch_count": (ctypes.c_int32, [
        ctypes.POINTER(kiln_calibrator),  # const kiln_calibrator * calibrator (handle)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * count (scalar_out)
    ]),
    # kiln_calibrator_write_file(calibrator, path): writes the QDQ model to a file
    "kiln_calibrator_write_file": (ctypes.c_int32, [
        ctypes.POINTER(kiln_calibrator),  # kiln_calibrator * calibrator (handle)
        ctypes.c_char_p,  # const char * path (cstring)
    ]),
    # kiln_calibrator_write_memory(calibrator, buf, cap, needed): the QDQ model's bytes (two-call pattern)
    "kiln_calibrator_write_memory": (ctypes.c_int32, [
        ctypes.POINTER(kiln_calibrator),  # kiln_calibrator * calibrator (handle)
        ctypes.c_void_p,  # void * buf (bytes_out)
        ctypes.c_size_t,  # size_t cap (bytes_cap)
        ctypes.POINTER(ctypes.c_size_t),  # size_t * needed (bytes_needed)
    ]),
    # kiln_calibrator_report_count(calibrator, count): lines in the last write's report
    "kiln_calibrator_report_count": (ctypes.c_int32, [
        ctypes.POINTER(kiln_calibrator),  # const kiln_calibrator * calibrator (handle)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * count (scalar_out)
    ]),
    # kiln_calibrator_report_name(calibrator, index, buf, cap, needed): tensor name of report line `index` (two-call pattern)
    "kiln_calibrator_report_name": (ctypes.c_int32, [
        ctypes.POINTER(kiln_calibrator),  # const kiln_calibrator * calibrator (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_char),  # char * buf (strbuf)
        ctypes.c_int32,  # int32_t cap (strcap)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * needed (needed)
    ]),
    # kiln_calibrator_report_stats(calibrator, index, kind, zero_point, nonfinite, stats, stats_bytes): kind, zero point, NaN/Inf count and min, max, threshold, scale, SQNR dB of report line `index`
    "kiln_calibrator_report_stats": (ctypes.c_int32, [
        ctypes.POINTER(kiln_calibrator),  # const kiln_calibrator * calibrator (handle)
        ctypes.c_int32,  # int32_t index (scalar)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * kind (scalar_out)
        ctypes.POINTER(ctypes.c_int32),  # int32_t * zero_point (scalar_out)
        ctypes.POINTER(ctypes.c_int64),  # int64_t * nonfinite (scalar_out)
        ctypes.c_void_p,  # float * stats (floats_out)
        ctypes.c_size_t,  # size_t stats_bytes (nbytes)
    ]),
}

# Functions whose int32_t result is a status code (KILN_OK or KILN_ERR_*).
STATUS_FUNCTIONS: FrozenSet[str] = frozenset([
    "kiln_options_create",
    "kiln_options_set_int",
    "kiln_options_set_string",
    "kiln_runtime_create",
    "kiln_model_load_file",
    "kiln_model_load_memory",
    "kiln_model_input_count",
    "kiln_model_output_count",
    "kiln_model_input_name",
    "kiln_model_output_name",
    "kiln_model_input_dtype",
    "kiln_model_output_dtype",
    "kiln_model_input_shape",
    "kiln_model_output_shape",
    "kiln_model_input_index",
    "kiln_model_output_index",
    "kiln_model_opset_count",
    "kiln_model_opset",
    "kiln_model_node_count",
    "kiln_model_node_op",
    "kiln_model_node_name",
    "kiln_model_node_supported",
    "kiln_model_input_kind",
    "kiln_model_output_kind",
    "kiln_model_memory_info",
    "kiln_model_node_io_count",
    "kiln_model_node_input",
    "kiln_model_node_output",
    "kiln_session_create",
    "kiln_session_set_input",
    "kiln_session_set_input_at",
    "kiln_session_run",
    "kiln_session_cancel",
    "kiln_session_output_info",
    "kiln_session_output_copy",
    "kiln_session_output_view",
    "kiln_session_plan_bytes",
    "kiln_session_cache_info",
    "kiln_session_release_memory",
    "kiln_session_set_input_value",
    "kiln_session_output_value",
    "kiln_session_set_input_device",
    "kiln_session_bind_output_device",
    "kiln_session_device_stream",
    "kiln_session_value_count",
    "kiln_session_value_name",
    "kiln_session_value_info",
    "kiln_session_value_copy",
    "kiln_session_profile_count",
    "kiln_session_profile_name",
    "kiln_session_profile_op",
    "kiln_session_profile_kernel",
    "kiln_session_profile_time",
    "kiln_session_profile_reset",
    "kiln_image_to_tensor",
    "kiln_image_decode",
    "kiln_tensor_decode",
    "kiln_tensor_info",
    "kiln_tensor_data",
    "kiln_tensor_name",
    "kiln_tensor_encode",
    "kiln_tensor_decode_value",
    "kiln_tensor_kind",
    "kiln_tensor_element_count",
    "kiln_tensor_element",
    "kiln_tensor_string",
    "kiln_calibrator_create",
    "kiln_calibrator_create_memory",
    "kiln_calibrator_configure",
    "kiln_calibrator_set_input",
    "kiln_calibrator_add_batch",
    "kiln_calibrator_batch_count",
    "kiln_calibrator_write_file",
    "kiln_calibrator_write_memory",
    "kiln_calibrator_report_count",
    "kiln_calibrator_report_name",
    "kiln_calibrator_report_stats",
])


def bind(lib: ctypes.CDLL) -> ctypes.CDLL:
    """Sets restype and argtypes of every Kiln function on lib; returns lib.

    Raises AttributeError naming a function the library lacks.
    """
    for name, (restype, argtypes) in SIGNATURES.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib
