// Code generated from capi/kiln_api.json by bindings/gen/emit_go.py. DO NOT EDIT.
// Regenerate with: /usr/bin/python3 bindings/gen/generate.py

package kiln

// #include <stdlib.h>
// #include <kiln.h>
import "C"

import "unsafe"

// specABIVersion is the ABI version of the spec these wrappers were
// generated from; CheckABI compares it with kiln_abi_version().
const specABIVersion = 1

// Sentinels for errors.Is, one per status code.
var (
	// ErrInvalidArgument: NULL handle, bad index, bad value
	ErrInvalidArgument = sentinel(1)
	// ErrOutOfMemory: an allocation failed
	ErrOutOfMemory = sentinel(2)
	// ErrIO: model or data file cannot be read
	ErrIO = sentinel(3)
	// ErrInvalidModel: corrupt, truncated or inconsistent model
	ErrInvalidModel = sentinel(4)
	// ErrUnsupported: op, opset, dtype or feature not supported
	ErrUnsupported = sentinel(5)
	// ErrShape: wrong shape (input or inferred)
	ErrShape = sentinel(6)
	// ErrDType: wrong element type
	ErrDType = sentinel(7)
	// ErrNotFound: no input/output with that name
	ErrNotFound = sentinel(8)
	// ErrState: call made in the wrong order
	ErrState = sentinel(9)
	// ErrCancelled: run stopped by kiln_session_cancel()
	ErrCancelled = sentinel(10)
	// ErrInternal: internal error
	ErrInternal = sentinel(11)
	// ErrBufferTooSmall: caller buffer too small; see *needed
	ErrBufferTooSmall = sentinel(12)
	// ErrLimit: a configured resource limit was exceeded
	ErrLimit = sentinel(13)
)

// Deprecated element-type names, kept so that existing code compiles;
// use the constants of dtype.go (Float32, Int64, ...).
const (
	// Deprecated: use Float32 (float32).
	DTypeFloat = Float32
	// Deprecated: use Uint8 (uint8).
	DTypeUint8 = Uint8
	// Deprecated: use Int8 (int8).
	DTypeInt8 = Int8
	// Deprecated: use Uint16 (uint16).
	DTypeUint16 = Uint16
	// Deprecated: use Int16 (int16).
	DTypeInt16 = Int16
	// Deprecated: use Int32 (int32).
	DTypeInt32 = Int32
	// Deprecated: use Int64 (int64).
	DTypeInt64 = Int64
	// Deprecated: use String (byte strings (kiln_tensor_string; not for set_input)).
	DTypeString = String
	// Deprecated: use Bool (bool, one byte per element).
	DTypeBool = Bool
	// Deprecated: use Float16 (IEEE half, 2 bytes).
	DTypeFloat16 = Float16
	// Deprecated: use Float64 (float64).
	DTypeDouble = Float64
	// Deprecated: use Uint32 (uint32).
	DTypeUint32 = Uint32
	// Deprecated: use Uint64 (uint64).
	DTypeUint64 = Uint64
	// Deprecated: use BFloat16 (bfloat16, 2 bytes).
	DTypeBfloat16 = BFloat16
	// Deprecated: use Float8E4M3FN (float8 E4M3FN, 1 byte (max 448, no inf)).
	DTypeFloat8e4m3fn = Float8E4M3FN
	// Deprecated: use Float8E4M3FNUZ (float8 E4M3FNUZ, 1 byte (max 240)).
	DTypeFloat8e4m3fnuz = Float8E4M3FNUZ
	// Deprecated: use Float8E5M2 (float8 E5M2, 1 byte (IEEE-like, max 57344)).
	DTypeFloat8e5m2 = Float8E5M2
	// Deprecated: use Float8E5M2FNUZ (float8 E5M2FNUZ, 1 byte (max 57344)).
	DTypeFloat8e5m2fnuz = Float8E5M2FNUZ
	// Deprecated: use Float8E8M0 (float8 E8M0, 1 byte (unsigned powers of two)).
	DTypeFloat8e8m0 = Float8E8M0
	// Deprecated: use Uint4 (packed 4-bit unsigned, 2 per byte, element 0 in the low bits).
	DTypeUint4 = Uint4
	// Deprecated: use Int4 (packed 4-bit signed, 2 per byte, element 0 in the low bits).
	DTypeInt4 = Int4
	// Deprecated: use Float4E2M1 (packed 4-bit float E2M1, 2 per byte).
	DTypeFloat4e2m1 = Float4E2M1
	// Deprecated: use Uint2 (packed 2-bit unsigned, 4 per byte).
	DTypeUint2 = Uint2
	// Deprecated: use Int2 (packed 2-bit signed, 4 per byte).
	DTypeInt2 = Int2
)

// What a model input or output holds.
const (
	// KindTensor: a tensor
	KindTensor Kind = 0
	// KindSequence: an ordered list of tensors (ONNX sequence)
	KindSequence Kind = 1
	// KindOptional: none, or one tensor or sequence (ONNX optional)
	KindOptional Kind = 2
)

// Integer option keys (IntOption).
const (
	// OptThreads: runtime: worker threads including the caller (>= 1; default 1)
	OptThreads int32 = 1
	// OptAllowUnsupported: model load: 1 = load models with unsupported ops for inspection (default 0)
	OptAllowUnsupported int32 = 2
	// OptMaxModelMB: model load: maximum model size in MiB, external data included (0 = none)
	OptMaxModelMB int32 = 3
	// OptMaxArenaMB: session: maximum arena size in MiB (0 = none)
	OptMaxArenaMB int32 = 4
	// OptOptimize: model load: graph optimization level 0 (none), 1 (basic), 2 (all; default)
	OptOptimize int32 = 5
	// OptUseDNNL: model load: 1 = let oneDNN serve conv/matmul/pool when built in (default 1)
	OptUseDNNL int32 = 6
	// OptTune: session: 1 = time candidate kernels at creation and keep the fastest (default 0)
	OptTune int32 = 7
	// OptProfile: session: 1 = record per-step times for kiln_session_profile_* (default 0)
	OptProfile int32 = 8
	// OptPlanCache: session: plans kept, one per input signature, sharing one arena (1..1024, default 8)
	OptPlanCache int32 = 9
	// OptCalibMethod: calibrator: how activation ranges are chosen (KILN_CALIB_*; default mse)
	OptCalibMethod int32 = 10
	// OptCalibSymmetric: calibrator: 1 = int8 symmetric activations, 0 = uint8 asymmetric (default)
	OptCalibSymmetric int32 = 11
	// OptKeepValues: session: 1 = every run keeps a float32 copy of every tensor its nodes compute, read with kiln_session_value_* (default 0)
	OptKeepValues int32 = 12
	// OptPrecision: session: float arithmetic kernels may use (KILN_PRECISION_*; default fp32)
	OptPrecision int32 = 13
	// OptCalibWeightBits: calibrator: weights' magnitude in bits, 8 ([-127, 127], default) or 7 ([-63, 63]: exact in ONNX Runtime on x86 without VNNI)
	OptCalibWeightBits int32 = 15
	// OptDeviceGraph: session: 1 = capture a device-only plan as one device graph on its first run and replay it on later runs with the same shapes (default 0)
	OptDeviceGraph int32 = 14
)

// String option keys.
const (
	// StringOptTuningCache: session: path of the kernel tuning cache file
	StringOptTuningCache int32 = 1
	// StringOptCalibPercentile: calibrator: the percentile of KILN_CALIB_PERCENTILE, in (0, 100] (default "99.99")
	StringOptCalibPercentile int32 = 2
	// StringOptCalibKeepFloat: calibrator: comma-separated node names or op types left in float
	StringOptCalibKeepFloat int32 = 3
	// StringOptDevice: session: the device its nodes run on: "cpu" (default), "NAME" or "NAME:INDEX" of a device backend
	StringOptDevice int32 = 4
)

// Flags for binding inputs.
const (
	// InputCopy: copy the input data now instead of borrowing the pointer until the run ends
	InputCopy int32 = 1
)

// Flags for image conversion.
const (
	// ImageBGR: kiln_image_to_tensor: write channels in B, G, R order
	ImageBGR int32 = 1
)

// Calibration methods (OptCalibMethod).
const (
	// CalibMinmax: the largest magnitude seen
	CalibMinmax int32 = 1
	// CalibPercentile: the magnitude below which the given percent of values lie
	CalibPercentile int32 = 2
	// CalibEntropy: least KL divergence (2048 bins folded to 128 levels)
	CalibEntropy int32 = 3
	// CalibMse: least expected squared quantization error
	CalibMse int32 = 4
)

// Calibration report line kinds.
const (
	// CalibTensorActivation: a computed tensor (or graph input), quantized by its calibrated range
	CalibTensorActivation int32 = 0
	// CalibTensorWeight: a constant weight, int8 symmetric per output channel
	CalibTensorWeight int32 = 1
	// CalibTensorBias: a constant bias, int32 at input scale x weight scale
	CalibTensorBias int32 = 2
)

// Float arithmetic (OptPrecision).
const (
	// PrecisionFp32: float32 throughout
	PrecisionFp32 int32 = 0
	// PrecisionBf16: bfloat16 products with float32 accumulation where the CPU has them (oneDNN convolutions and matrix products)
	PrecisionBf16 int32 = 1
	// PrecisionFp16: device backends: products and convolutions may round inputs to float16 for Tensor Cores, float32 accumulation and tensors (host: float32)
	PrecisionFp16 int32 = 2
	// PrecisionTf32: device backends: float32 tensors, TF32 Tensor Core products allowed (host: float32)
	PrecisionTf32 int32 = 3
)

// InputCount wraps kiln_model_input_count: number of model inputs
func (m *Model) InputCount() (count int32, err error) {
	h, err := m.enter("kiln_model_input_count")
	if err != nil {
		return 0, err
	}
	defer m.leave()
	var outCount C.int32_t
	err = cModelInputCount(h, &outCount)
	return int32(outCount), err
}

// OutputCount wraps kiln_model_output_count: number of model outputs
func (m *Model) OutputCount() (count int32, err error) {
	h, err := m.enter("kiln_model_output_count")
	if err != nil {
		return 0, err
	}
	defer m.leave()
	var outCount C.int32_t
	err = cModelOutputCount(h, &outCount)
	return int32(outCount), err
}

// InputName wraps kiln_model_input_name: name of input `index` (two-call pattern)
func (m *Model) InputName(index int32) (buf string, err error) {
	h, err := m.enter("kiln_model_input_name")
	if err != nil {
		return "", err
	}
	defer m.leave()
	var outNeeded C.int32_t
	err = cModelInputName(h, C.int32_t(index), nil, 0, &outNeeded)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return "", err
	}
	bufBuf := make([]byte, maxInt(int(outNeeded), 1))
	err = cModelInputName(h, C.int32_t(index), (*C.char)(unsafe.Pointer(&bufBuf[0])), C.int32_t(len(bufBuf)), &outNeeded)
	return cBufString(bufBuf), err
}

// OutputName wraps kiln_model_output_name: name of output `index` (two-call pattern)
func (m *Model) OutputName(index int32) (buf string, err error) {
	h, err := m.enter("kiln_model_output_name")
	if err != nil {
		return "", err
	}
	defer m.leave()
	var outNeeded C.int32_t
	err = cModelOutputName(h, C.int32_t(index), nil, 0, &outNeeded)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return "", err
	}
	bufBuf := make([]byte, maxInt(int(outNeeded), 1))
	err = cModelOutputName(h, C.int32_t(index), (*C.char)(unsafe.Pointer(&bufBuf[0])), C.int32_t(len(bufBuf)), &outNeeded)
	return cBufString(bufBuf), err
}

// InputDType wraps kiln_model_input_dtype: declared element type of input `index` (KILN_DTYPE_*, 0 if open)
func (m *Model) InputDType(index int32) (dtype DType, err error) {
	h, err := m.enter("kiln_model_input_dtype")
	if err != nil {
		return 0, err
	}
	defer m.leave()
	var outDtype C.int32_t
	err = cModelInputDtype(h, C.int32_t(index), &outDtype)
	return DType(outDtype), err
}

// OutputDType wraps kiln_model_output_dtype: declared element type of output `index` (KILN_DTYPE_*, 0 if open)
func (m *Model) OutputDType(index int32) (dtype DType, err error) {
	h, err := m.enter("kiln_model_output_dtype")
	if err != nil {
		return 0, err
	}
	defer m.leave()
	var outDtype C.int32_t
	err = cModelOutputDtype(h, C.int32_t(index), &outDtype)
	return DType(outDtype), err
}

// InputShape wraps kiln_model_input_shape: declared shape of input `index` (rank -1 if unknown, dim -1 if dynamic)
func (m *Model) InputShape(index int32) (dims []int64, err error) {
	h, err := m.enter("kiln_model_input_shape")
	if err != nil {
		return nil, err
	}
	defer m.leave()
	var outRank C.int32_t
	err = cModelInputShape(h, C.int32_t(index), nil, 0, &outRank)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return nil, err
	}
	bufDims := make([]C.int64_t, maxInt(int(outRank), 1))
	err = cModelInputShape(h, C.int32_t(index), &bufDims[0], C.int32_t(len(bufDims)), &outRank)
	return dimsOrNil(bufDims, outRank), err
}

// OutputShape wraps kiln_model_output_shape: declared shape of output `index` (rank -1 if unknown, dim -1 if dynamic)
func (m *Model) OutputShape(index int32) (dims []int64, err error) {
	h, err := m.enter("kiln_model_output_shape")
	if err != nil {
		return nil, err
	}
	defer m.leave()
	var outRank C.int32_t
	err = cModelOutputShape(h, C.int32_t(index), nil, 0, &outRank)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return nil, err
	}
	bufDims := make([]C.int64_t, maxInt(int(outRank), 1))
	err = cModelOutputShape(h, C.int32_t(index), &bufDims[0], C.int32_t(len(bufDims)), &outRank)
	return dimsOrNil(bufDims, outRank), err
}

// InputIndex wraps kiln_model_input_index: index of the input named `name` (NOT_FOUND if none)
func (m *Model) InputIndex(name string) (index int32, err error) {
	h, err := m.enter("kiln_model_input_index")
	if err != nil {
		return 0, err
	}
	defer m.leave()
	cName := C.CString(name)
	defer C.free(unsafe.Pointer(cName))
	var outIndex C.int32_t
	err = cModelInputIndex(h, cName, &outIndex)
	return int32(outIndex), err
}

// OutputIndex wraps kiln_model_output_index: index of the output named `name` (NOT_FOUND if none)
func (m *Model) OutputIndex(name string) (index int32, err error) {
	h, err := m.enter("kiln_model_output_index")
	if err != nil {
		return 0, err
	}
	defer m.leave()
	cName := C.CString(name)
	defer C.free(unsafe.Pointer(cName))
	var outIndex C.int32_t
	err = cModelOutputIndex(h, cName, &outIndex)
	return int32(outIndex), err
}

// OpsetCount wraps kiln_model_opset_count: number of opset imports
func (m *Model) OpsetCount() (count int32, err error) {
	h, err := m.enter("kiln_model_opset_count")
	if err != nil {
		return 0, err
	}
	defer m.leave()
	var outCount C.int32_t
	err = cModelOpsetCount(h, &outCount)
	return int32(outCount), err
}

// Opset wraps kiln_model_opset: domain ("" = ai.onnx; two-call pattern) and version of opset import `index`
func (m *Model) Opset(index int32) (domain string, version int32, err error) {
	h, err := m.enter("kiln_model_opset")
	if err != nil {
		return "", 0, err
	}
	defer m.leave()
	var outNeeded C.int32_t
	var outVersion C.int32_t
	err = cModelOpset(h, C.int32_t(index), nil, 0, &outNeeded, &outVersion)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return "", 0, err
	}
	bufDomain := make([]byte, maxInt(int(outNeeded), 1))
	err = cModelOpset(h, C.int32_t(index), (*C.char)(unsafe.Pointer(&bufDomain[0])), C.int32_t(len(bufDomain)), &outNeeded, &outVersion)
	return cBufString(bufDomain), int32(outVersion), err
}

// NodeCount wraps kiln_model_node_count: number of nodes in the main graph
func (m *Model) NodeCount() (count int32, err error) {
	h, err := m.enter("kiln_model_node_count")
	if err != nil {
		return 0, err
	}
	defer m.leave()
	var outCount C.int32_t
	err = cModelNodeCount(h, &outCount)
	return int32(outCount), err
}

// NodeOp wraps kiln_model_node_op: op type and domain of node `index`; *needed is the larger of the two sizes
func (m *Model) NodeOp(index int32) (opType string, domain string, err error) {
	h, err := m.enter("kiln_model_node_op")
	if err != nil {
		return "", "", err
	}
	defer m.leave()
	var outNeeded C.int32_t
	err = cModelNodeOp(h, C.int32_t(index), nil, 0, nil, 0, &outNeeded)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return "", "", err
	}
	bufOpType := make([]byte, maxInt(int(outNeeded), 1))
	bufDomain := make([]byte, maxInt(int(outNeeded), 1))
	err = cModelNodeOp(h, C.int32_t(index), (*C.char)(unsafe.Pointer(&bufOpType[0])), C.int32_t(len(bufOpType)), (*C.char)(unsafe.Pointer(&bufDomain[0])), C.int32_t(len(bufDomain)), &outNeeded)
	return cBufString(bufOpType), cBufString(bufDomain), err
}

// NodeName wraps kiln_model_node_name: name of node `index` (two-call pattern)
func (m *Model) NodeName(index int32) (buf string, err error) {
	h, err := m.enter("kiln_model_node_name")
	if err != nil {
		return "", err
	}
	defer m.leave()
	var outNeeded C.int32_t
	err = cModelNodeName(h, C.int32_t(index), nil, 0, &outNeeded)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return "", err
	}
	bufBuf := make([]byte, maxInt(int(outNeeded), 1))
	err = cModelNodeName(h, C.int32_t(index), (*C.char)(unsafe.Pointer(&bufBuf[0])), C.int32_t(len(bufBuf)), &outNeeded)
	return cBufString(bufBuf), err
}

// NodeSupported wraps kiln_model_node_supported: 1 if a kernel exists for node `index`, else 0
func (m *Model) NodeSupported(index int32) (supported bool, err error) {
	h, err := m.enter("kiln_model_node_supported")
	if err != nil {
		return false, err
	}
	defer m.leave()
	var outSupported C.int32_t
	err = cModelNodeSupported(h, C.int32_t(index), &outSupported)
	return outSupported != 0, err
}

// InputKind wraps kiln_model_input_kind: kind of input `index` (KILN_KIND_*)
func (m *Model) InputKind(index int32) (kind Kind, err error) {
	h, err := m.enter("kiln_model_input_kind")
	if err != nil {
		return 0, err
	}
	defer m.leave()
	var outKind C.int32_t
	err = cModelInputKind(h, C.int32_t(index), &outKind)
	return Kind(outKind), err
}

// OutputKind wraps kiln_model_output_kind: kind of output `index` (KILN_KIND_*)
func (m *Model) OutputKind(index int32) (kind Kind, err error) {
	h, err := m.enter("kiln_model_output_kind")
	if err != nil {
		return 0, err
	}
	defer m.leave()
	var outKind C.int32_t
	err = cModelOutputKind(h, C.int32_t(index), &outKind)
	return Kind(outKind), err
}

// MemoryInfo wraps kiln_model_memory_info: weight bytes, bytes of prepared weights all sessions share, raw weight bytes given back
func (m *Model) MemoryInfo() (weightBytes int64, sharedPreparedBytes int64, givenBackBytes int64, err error) {
	h, err := m.enter("kiln_model_memory_info")
	if err != nil {
		return 0, 0, 0, err
	}
	defer m.leave()
	var outWeightBytes C.int64_t
	var outSharedPreparedBytes C.int64_t
	var outGivenBackBytes C.int64_t
	err = cModelMemoryInfo(h, &outWeightBytes, &outSharedPreparedBytes, &outGivenBackBytes)
	return int64(outWeightBytes), int64(outSharedPreparedBytes), int64(outGivenBackBytes), err
}

// NodeIOCount wraps kiln_model_node_io_count: how many inputs and outputs node `index` has
func (m *Model) NodeIOCount(index int32) (inputCount int32, outputCount int32, err error) {
	h, err := m.enter("kiln_model_node_io_count")
	if err != nil {
		return 0, 0, err
	}
	defer m.leave()
	var outInputCount C.int32_t
	var outOutputCount C.int32_t
	err = cModelNodeIoCount(h, C.int32_t(index), &outInputCount, &outOutputCount)
	return int32(outInputCount), int32(outOutputCount), err
}

// NodeInput wraps kiln_model_node_input: name of the value input `slot` of node `index` reads ("" if omitted; two-call pattern)
func (m *Model) NodeInput(index int32, slot int32) (buf string, err error) {
	h, err := m.enter("kiln_model_node_input")
	if err != nil {
		return "", err
	}
	defer m.leave()
	var outNeeded C.int32_t
	err = cModelNodeInput(h, C.int32_t(index), C.int32_t(slot), nil, 0, &outNeeded)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return "", err
	}
	bufBuf := make([]byte, maxInt(int(outNeeded), 1))
	err = cModelNodeInput(h, C.int32_t(index), C.int32_t(slot), (*C.char)(unsafe.Pointer(&bufBuf[0])), C.int32_t(len(bufBuf)), &outNeeded)
	return cBufString(bufBuf), err
}

// NodeOutput wraps kiln_model_node_output: name of the value output `slot` of node `index` writes ("" if omitted; two-call pattern)
func (m *Model) NodeOutput(index int32, slot int32) (buf string, err error) {
	h, err := m.enter("kiln_model_node_output")
	if err != nil {
		return "", err
	}
	defer m.leave()
	var outNeeded C.int32_t
	err = cModelNodeOutput(h, C.int32_t(index), C.int32_t(slot), nil, 0, &outNeeded)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return "", err
	}
	bufBuf := make([]byte, maxInt(int(outNeeded), 1))
	err = cModelNodeOutput(h, C.int32_t(index), C.int32_t(slot), (*C.char)(unsafe.Pointer(&bufBuf[0])), C.int32_t(len(bufBuf)), &outNeeded)
	return cBufString(bufBuf), err
}

// PlanBytes wraps kiln_session_plan_bytes: memory plan: arena bytes and the sum of all intermediate tensor sizes
func (s *Session) PlanBytes() (arenaBytes int64, intermediateBytes int64, err error) {
	h, err := s.enter("kiln_session_plan_bytes")
	if err != nil {
		return 0, 0, err
	}
	defer s.leave()
	var outArenaBytes C.int64_t
	var outIntermediateBytes C.int64_t
	err = cSessionPlanBytes(h, &outArenaBytes, &outIntermediateBytes)
	return int64(outArenaBytes), int64(outIntermediateBytes), err
}

// CacheInfo wraps kiln_session_cache_info: plan cache: plans kept, plans built so far, bytes of the arena they share
func (s *Session) CacheInfo() (plansKept int32, plansBuilt int64, arenaBytes int64, err error) {
	h, err := s.enter("kiln_session_cache_info")
	if err != nil {
		return 0, 0, 0, err
	}
	defer s.leave()
	var outPlansKept C.int32_t
	var outPlansBuilt C.int64_t
	var outArenaBytes C.int64_t
	err = cSessionCacheInfo(h, &outPlansKept, &outPlansBuilt, &outArenaBytes)
	return int32(outPlansKept), int64(outPlansBuilt), int64(outArenaBytes), err
}

// ReleaseMemory wraps kiln_session_release_memory: gives back the kept plans and their arena; the next run plans again
func (s *Session) ReleaseMemory() error {
	h, err := s.enter("kiln_session_release_memory")
	if err != nil {
		return err
	}
	defer s.leave()
	err = cSessionReleaseMemory(h)
	return err
}

// ValueCount wraps kiln_session_value_count: number of values the last run kept (needs KILN_OPT_KEEP_VALUES = 1)
func (s *Session) ValueCount() (count int32, err error) {
	h, err := s.enter("kiln_session_value_count")
	if err != nil {
		return 0, err
	}
	defer s.leave()
	var outCount C.int32_t
	err = cSessionValueCount(h, &outCount)
	return int32(outCount), err
}

// ValueName wraps kiln_session_value_name: name of kept value `index`, in the order the run computed them (two-call pattern)
func (s *Session) ValueName(index int32) (buf string, err error) {
	h, err := s.enter("kiln_session_value_name")
	if err != nil {
		return "", err
	}
	defer s.leave()
	var outNeeded C.int32_t
	err = cSessionValueName(h, C.int32_t(index), nil, 0, &outNeeded)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return "", err
	}
	bufBuf := make([]byte, maxInt(int(outNeeded), 1))
	err = cSessionValueName(h, C.int32_t(index), (*C.char)(unsafe.Pointer(&bufBuf[0])), C.int32_t(len(bufBuf)), &outNeeded)
	return cBufString(bufBuf), err
}

// ValueInfo wraps kiln_session_value_info: element type the kept value `name` had in the run, and its shape
func (s *Session) ValueInfo(name string) (dtype DType, dims []int64, err error) {
	h, err := s.enter("kiln_session_value_info")
	if err != nil {
		return 0, nil, err
	}
	defer s.leave()
	cName := C.CString(name)
	defer C.free(unsafe.Pointer(cName))
	var outDtype C.int32_t
	var outRank C.int32_t
	err = cSessionValueInfo(h, cName, &outDtype, nil, 0, &outRank)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return 0, nil, err
	}
	bufDims := make([]C.int64_t, maxInt(int(outRank), 1))
	err = cSessionValueInfo(h, cName, &outDtype, &bufDims[0], C.int32_t(len(bufDims)), &outRank)
	return DType(outDtype), dimsOrNil(bufDims, outRank), err
}

// ProfileCount wraps kiln_session_profile_count: number of executed steps in the plan (needs KILN_OPT_PROFILE = 1)
func (s *Session) ProfileCount() (count int32, err error) {
	h, err := s.enter("kiln_session_profile_count")
	if err != nil {
		return 0, err
	}
	defer s.leave()
	var outCount C.int32_t
	err = cSessionProfileCount(h, &outCount)
	return int32(outCount), err
}

// ProfileName wraps kiln_session_profile_name: node name of profiled step `index` (two-call pattern)
func (s *Session) ProfileName(index int32) (buf string, err error) {
	h, err := s.enter("kiln_session_profile_name")
	if err != nil {
		return "", err
	}
	defer s.leave()
	var outNeeded C.int32_t
	err = cSessionProfileName(h, C.int32_t(index), nil, 0, &outNeeded)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return "", err
	}
	bufBuf := make([]byte, maxInt(int(outNeeded), 1))
	err = cSessionProfileName(h, C.int32_t(index), (*C.char)(unsafe.Pointer(&bufBuf[0])), C.int32_t(len(bufBuf)), &outNeeded)
	return cBufString(bufBuf), err
}

// ProfileOp wraps kiln_session_profile_op: op type of profiled step `index` (two-call pattern)
func (s *Session) ProfileOp(index int32) (buf string, err error) {
	h, err := s.enter("kiln_session_profile_op")
	if err != nil {
		return "", err
	}
	defer s.leave()
	var outNeeded C.int32_t
	err = cSessionProfileOp(h, C.int32_t(index), nil, 0, &outNeeded)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return "", err
	}
	bufBuf := make([]byte, maxInt(int(outNeeded), 1))
	err = cSessionProfileOp(h, C.int32_t(index), (*C.char)(unsafe.Pointer(&bufBuf[0])), C.int32_t(len(bufBuf)), &outNeeded)
	return cBufString(bufBuf), err
}

// ProfileKernel wraps kiln_session_profile_kernel: kernel ("cpu", "dnnl", ...) of profiled step `index` (two-call pattern)
func (s *Session) ProfileKernel(index int32) (buf string, err error) {
	h, err := s.enter("kiln_session_profile_kernel")
	if err != nil {
		return "", err
	}
	defer s.leave()
	var outNeeded C.int32_t
	err = cSessionProfileKernel(h, C.int32_t(index), nil, 0, &outNeeded)
	if err != nil && !isCode(err, C.KILN_ERR_BUFFER_TOO_SMALL) {
		return "", err
	}
	bufBuf := make([]byte, maxInt(int(outNeeded), 1))
	err = cSessionProfileKernel(h, C.int32_t(index), (*C.char)(unsafe.Pointer(&bufBuf[0])), C.int32_t(len(bufBuf)), &outNeeded)
	return cBufString(bufBuf), err
}

// ProfileTime wraps kiln_session_profile_time: total nanoseconds spent in step `index` and the number of runs counted
func (s *Session) ProfileTime(index int32) (totalNs int64, runs int64, err error) {
	h, err := s.enter("kiln_session_profile_time")
	if err != nil {
		return 0, 0, err
	}
	defer s.leave()
	var outTotalNs C.int64_t
	var outRuns C.int64_t
	err = cSessionProfileTime(h, C.int32_t(index), &outTotalNs, &outRuns)
	return int64(outTotalNs), int64(outRuns), err
}

// ProfileReset wraps kiln_session_profile_reset: zeroes the profile times and run counts
func (s *Session) ProfileReset() error {
	h, err := s.enter("kiln_session_profile_reset")
	if err != nil {
		return err
	}
	defer s.leave()
	err = cSessionProfileReset(h)
	return err
}
