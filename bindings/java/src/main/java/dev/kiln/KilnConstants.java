// Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
// Regenerate: /usr/bin/python3 bindings/gen/generate.py
package dev.kiln;

/** Every constant of kiln.h, named without the KILN_ prefix. */
public final class KilnConstants {
    private KilnConstants() {}

    /** ABI version this header describes; compare with kiln_abi_version() at load */
    public static final int ABI_VERSION = 1;

    /** success */
    public static final int OK = 0;

    /** NULL handle, bad index, bad value */
    public static final int ERR_INVALID_ARGUMENT = 1;

    /** an allocation failed */
    public static final int ERR_OUT_OF_MEMORY = 2;

    /** model or data file cannot be read */
    public static final int ERR_IO = 3;

    /** corrupt, truncated or inconsistent model */
    public static final int ERR_INVALID_MODEL = 4;

    /** op, opset, dtype or feature not supported */
    public static final int ERR_UNSUPPORTED = 5;

    /** wrong shape (input or inferred) */
    public static final int ERR_SHAPE = 6;

    /** wrong element type */
    public static final int ERR_DTYPE = 7;

    /** no input/output with that name */
    public static final int ERR_NOT_FOUND = 8;

    /** call made in the wrong order */
    public static final int ERR_STATE = 9;

    /** run stopped by kiln_session_cancel() */
    public static final int ERR_CANCELLED = 10;

    /** internal error */
    public static final int ERR_INTERNAL = 11;

    /** caller buffer too small; see *needed */
    public static final int ERR_BUFFER_TOO_SMALL = 12;

    /** a configured resource limit was exceeded */
    public static final int ERR_LIMIT = 13;

    /** float32 */
    public static final int DTYPE_FLOAT = 1;

    /** uint8 */
    public static final int DTYPE_UINT8 = 2;

    /** int8 */
    public static final int DTYPE_INT8 = 3;

    /** uint16 */
    public static final int DTYPE_UINT16 = 4;

    /** int16 */
    public static final int DTYPE_INT16 = 5;

    /** int32 */
    public static final int DTYPE_INT32 = 6;

    /** int64 */
    public static final int DTYPE_INT64 = 7;

    /** byte strings (kiln_tensor_string; not for set_input) */
    public static final int DTYPE_STRING = 8;

    /** bool, one byte per element */
    public static final int DTYPE_BOOL = 9;

    /** IEEE half, 2 bytes */
    public static final int DTYPE_FLOAT16 = 10;

    /** float64 */
    public static final int DTYPE_DOUBLE = 11;

    /** uint32 */
    public static final int DTYPE_UINT32 = 12;

    /** uint64 */
    public static final int DTYPE_UINT64 = 13;

    /** bfloat16, 2 bytes */
    public static final int DTYPE_BFLOAT16 = 16;

    /** float8 E4M3FN, 1 byte (max 448, no inf) */
    public static final int DTYPE_FLOAT8E4M3FN = 17;

    /** float8 E4M3FNUZ, 1 byte (max 240) */
    public static final int DTYPE_FLOAT8E4M3FNUZ = 18;

    /** float8 E5M2, 1 byte (IEEE-like, max 57344) */
    public static final int DTYPE_FLOAT8E5M2 = 19;

    /** float8 E5M2FNUZ, 1 byte (max 57344) */
    public static final int DTYPE_FLOAT8E5M2FNUZ = 20;

    /** float8 E8M0, 1 byte (unsigned powers of two) */
    public static final int DTYPE_FLOAT8E8M0 = 24;

    /** packed 4-bit unsigned, 2 per byte, element 0 in the low bits */
    public static final int DTYPE_UINT4 = 21;

    /** packed 4-bit signed, 2 per byte, element 0 in the low bits */
    public static final int DTYPE_INT4 = 22;

    /** packed 4-bit float E2M1, 2 per byte */
    public static final int DTYPE_FLOAT4E2M1 = 23;

    /** packed 2-bit unsigned, 4 per byte */
    public static final int DTYPE_UINT2 = 25;

    /** packed 2-bit signed, 4 per byte */
    public static final int DTYPE_INT2 = 26;

    /** a tensor */
    public static final int KIND_TENSOR = 0;

    /** an ordered list of tensors (ONNX sequence) */
    public static final int KIND_SEQUENCE = 1;

    /** none, or one tensor or sequence (ONNX optional) */
    public static final int KIND_OPTIONAL = 2;

    /** runtime: worker threads including the caller (&gt;= 1; default 1) */
    public static final int OPT_THREADS = 1;

    /** model load: 1 = load models with unsupported ops for inspection (default 0) */
    public static final int OPT_ALLOW_UNSUPPORTED = 2;

    /** model load: maximum model size in MiB, external data included (0 = none) */
    public static final int OPT_MAX_MODEL_MB = 3;

    /** session: maximum arena size in MiB (0 = none) */
    public static final int OPT_MAX_ARENA_MB = 4;

    /** model load: graph optimization level 0 (none), 1 (basic), 2 (all; default) */
    public static final int OPT_OPTIMIZE = 5;

    /** model load: 1 = let oneDNN serve conv/matmul/pool when built in (default 1) */
    public static final int OPT_USE_DNNL = 6;

    /** session: 1 = time candidate kernels at creation and keep the fastest (default 0) */
    public static final int OPT_TUNE = 7;

    /** session: 1 = record per-step times for kiln_session_profile_* (default 0) */
    public static final int OPT_PROFILE = 8;

    /** session: plans kept, one per input signature, sharing one arena (1..1024, default 8) */
    public static final int OPT_PLAN_CACHE = 9;

    /** calibrator: how activation ranges are chosen (KILN_CALIB_*; default mse) */
    public static final int OPT_CALIB_METHOD = 10;

    /** calibrator: 1 = int8 symmetric activations, 0 = uint8 asymmetric (default) */
    public static final int OPT_CALIB_SYMMETRIC = 11;

    /** session: 1 = every run keeps a float32 copy of every tensor its nodes compute, read with kiln_session_value_* (default 0) */
    public static final int OPT_KEEP_VALUES = 12;

    /** session: float arithmetic kernels may use (KILN_PRECISION_*; default fp32) */
    public static final int OPT_PRECISION = 13;

    /** calibrator: weights' magnitude in bits, 8 ([-127, 127], default) or 7 ([-63, 63]: exact in ONNX Runtime on x86 without VNNI) */
    public static final int OPT_CALIB_WEIGHT_BITS = 15;

    /** session: 1 = capture a device-only plan as one device graph on its first run and replay it on later runs with the same shapes (default 0) */
    public static final int OPT_DEVICE_GRAPH = 14;

    /** session: path of the kernel tuning cache file */
    public static final int SOPT_TUNING_CACHE = 1;

    /** calibrator: the percentile of KILN_CALIB_PERCENTILE, in (0, 100] (default "99.99") */
    public static final int SOPT_CALIB_PERCENTILE = 2;

    /** calibrator: comma-separated node names or op types left in float */
    public static final int SOPT_CALIB_KEEP_FLOAT = 3;

    /** session: the device its nodes run on: "cpu" (default), "NAME" or "NAME:INDEX" of a device backend */
    public static final int SOPT_DEVICE = 4;

    /** float32 throughout */
    public static final int PRECISION_FP32 = 0;

    /** bfloat16 products with float32 accumulation where the CPU has them (oneDNN convolutions and matrix products) */
    public static final int PRECISION_BF16 = 1;

    /** device backends: products and convolutions may round inputs to float16 for Tensor Cores, float32 accumulation and tensors (host: float32) */
    public static final int PRECISION_FP16 = 2;

    /** device backends: float32 tensors, TF32 Tensor Core products allowed (host: float32) */
    public static final int PRECISION_TF32 = 3;

    /** the largest magnitude seen */
    public static final int CALIB_MINMAX = 1;

    /** the magnitude below which the given percent of values lie */
    public static final int CALIB_PERCENTILE = 2;

    /** least KL divergence (2048 bins folded to 128 levels) */
    public static final int CALIB_ENTROPY = 3;

    /** least expected squared quantization error */
    public static final int CALIB_MSE = 4;

    /** a computed tensor (or graph input), quantized by its calibrated range */
    public static final int CALIB_TENSOR_ACTIVATION = 0;

    /** a constant weight, int8 symmetric per output channel */
    public static final int CALIB_TENSOR_WEIGHT = 1;

    /** a constant bias, int32 at input scale x weight scale */
    public static final int CALIB_TENSOR_BIAS = 2;

    /** copy the input data now instead of borrowing the pointer until the run ends */
    public static final int INPUT_COPY = 1;

    /** kiln_image_to_tensor: write channels in B, G, R order */
    public static final int IMAGE_BGR = 1;
}
