// Generated from capi/kiln_api.json by bindings/gen/emit_java.py; do not edit.
// Regenerate: /usr/bin/python3 bindings/gen/generate.py
package dev.kiln;

/**
 * The Kiln C API one to one: one {@code static native} method per function
 * of {@code kiln.h}. Handles are {@code long} values (0 is NULL); a failing
 * status throws {@link KilnException}. Most code wants the classes built
 * on top ({@link KilnRuntime}, {@link Model}, {@link Session}, {@link Tensor});
 * this layer gives every C function, including ones those classes do not
 * use yet. Buffers are direct ByteBuffers, used over their whole capacity.
 */
public final class KilnNative {
    private KilnNative() {}

    static {
        NativeLibrary.ensureLoaded();
    }

    /** KILN_ABI_VERSION of the spec these methods were generated from. */
    public static final int ABI_VERSION = 1;

    /** kiln_abi_version: KILN_ABI_VERSION of the built library */
    public static native int abiVersion();

    /** kiln_version: release version string, e.g. "0.1.0" (static; do not free) */
    public static native String version();

    /** kiln_last_error: copies the calling thread's last error message; returns its full length without the NUL */
    public static native String lastError();

    /** kiln_status_name: short English name of a status code (static string) */
    public static native String statusName(int status);

    /** kiln_options_create: creates an empty options bag */
    public static native long optionsCreate();

    /** kiln_options_destroy: destroys an options bag (NULL is fine) */
    public static native void optionsDestroy(long options);

    /** kiln_options_set_int: sets integer option `key` (KILN_OPT_*) */
    public static native void optionsSetInt(long options, int key, int value);

    /** kiln_options_set_string: sets string option `key` (KILN_SOPT_*); value is copied, NULL clears it */
    public static native void optionsSetString(long options, int key, String value);

    /** kiln_runtime_create: creates a runtime (thread pool); options may be NULL */
    public static native long runtimeCreate(long options);

    /** kiln_runtime_destroy: destroys a runtime after all its models and sessions */
    public static native void runtimeDestroy(long runtime);

    /** kiln_model_load_file: loads an ONNX model file; options may be NULL */
    public static native long modelLoadFile(long runtime, String path, long options);

    /** kiln_model_load_memory: loads an ONNX model from bytes (not used after the call); options may be NULL */
    public static native long modelLoadMemory(long runtime, java.nio.ByteBuffer data, long options);

    /** kiln_model_destroy: destroys a model after all its sessions */
    public static native void modelDestroy(long model);

    /** kiln_model_input_count: number of model inputs */
    public static native int modelInputCount(long model);

    /** kiln_model_output_count: number of model outputs */
    public static native int modelOutputCount(long model);

    /** kiln_model_input_name: name of input `index` (two-call pattern) */
    public static native String modelInputName(long model, int index);

    /** kiln_model_output_name: name of output `index` (two-call pattern) */
    public static native String modelOutputName(long model, int index);

    /** kiln_model_input_dtype: declared element type of input `index` (KILN_DTYPE_*, 0 if open) */
    public static native int modelInputDtype(long model, int index);

    /** kiln_model_output_dtype: declared element type of output `index` (KILN_DTYPE_*, 0 if open) */
    public static native int modelOutputDtype(long model, int index);

    /** kiln_model_input_shape: declared shape of input `index` (rank -1 if unknown, dim -1 if dynamic) */
    public static native long[] modelInputShape(long model, int index);

    /** kiln_model_output_shape: declared shape of output `index` (rank -1 if unknown, dim -1 if dynamic) */
    public static native long[] modelOutputShape(long model, int index);

    /** kiln_model_input_index: index of the input named `name` (NOT_FOUND if none) */
    public static native int modelInputIndex(long model, String name);

    /** kiln_model_output_index: index of the output named `name` (NOT_FOUND if none) */
    public static native int modelOutputIndex(long model, String name);

    /** kiln_model_opset_count: number of opset imports */
    public static native int modelOpsetCount(long model);

    /** kiln_model_opset: domain ("" = ai.onnx; two-call pattern) and version of opset import `index` */
    public static native ModelOpset modelOpset(long model, int index);

    /** kiln_model_node_count: number of nodes in the main graph */
    public static native int modelNodeCount(long model);

    /** kiln_model_node_op: op type and domain of node `index`; *needed is the larger of the two sizes */
    public static native ModelNodeOp modelNodeOp(long model, int index);

    /** kiln_model_node_name: name of node `index` (two-call pattern) */
    public static native String modelNodeName(long model, int index);

    /** kiln_model_node_supported: 1 if a kernel exists for node `index`, else 0 */
    public static native boolean modelNodeSupported(long model, int index);

    /** kiln_model_input_kind: kind of input `index` (KILN_KIND_*) */
    public static native int modelInputKind(long model, int index);

    /** kiln_model_output_kind: kind of output `index` (KILN_KIND_*) */
    public static native int modelOutputKind(long model, int index);

    /** kiln_model_memory_info: weight bytes, bytes of prepared weights all sessions share, raw weight bytes given back */
    public static native ModelMemoryInfo modelMemoryInfo(long model);

    /** kiln_model_node_io_count: how many inputs and outputs node `index` has */
    public static native ModelNodeIoCount modelNodeIoCount(long model, int index);

    /** kiln_model_node_input: name of the value input `slot` of node `index` reads ("" if omitted; two-call pattern) */
    public static native String modelNodeInput(long model, int index, int slot);

    /** kiln_model_node_output: name of the value output `slot` of node `index` writes ("" if omitted; two-call pattern) */
    public static native String modelNodeOutput(long model, int index, int slot);

    /** kiln_session_create: plans memory and prepares kernels for a model; options may be NULL */
    public static native long sessionCreate(long model, long options);

    /** kiln_session_destroy: destroys a session, waiting for a run in flight */
    public static native void sessionDestroy(long session);

    /** kiln_session_set_input: binds input `name` to a tensor buffer (borrowed until the run returns unless KILN_INPUT_COPY) */
    public static native void sessionSetInput(long session, String name, int dtype, long[] dims, java.nio.ByteBuffer data, int flags);

    /** kiln_session_set_input_at: binds input `index` to a tensor buffer (borrowed until the run returns unless KILN_INPUT_COPY) */
    public static native void sessionSetInputAt(long session, int index, int dtype, long[] dims, java.nio.ByteBuffer data, int flags);

    /** kiln_session_run: runs the model on the bound inputs */
    public static native void sessionRun(long session);

    /** kiln_session_cancel: asks the run in flight to stop (thread-safe); it then returns KILN_ERR_CANCELLED */
    public static native void sessionCancel(long session);

    /** kiln_session_output_info: element type and shape of output `index` after a successful run */
    public static native SessionOutputInfo sessionOutputInfo(long session, int index);

    /** kiln_session_output_copy: copies output `index` into a caller buffer (two-call pattern) */
    public static native long sessionOutputCopy(long session, int index, java.nio.ByteBuffer buf);

    /** kiln_session_output_view: points at the library's copy of output `index`, valid until the next run or destroy */
    public static native java.nio.ByteBuffer sessionOutputView(long session, int index);

    /** kiln_session_plan_bytes: memory plan: arena bytes and the sum of all intermediate tensor sizes */
    public static native SessionPlanBytes sessionPlanBytes(long session);

    /** kiln_session_cache_info: plan cache: plans kept, plans built so far, bytes of the arena they share */
    public static native SessionCacheInfo sessionCacheInfo(long session);

    /** kiln_session_release_memory: gives back the kept plans and their arena; the next run plans again */
    public static native void sessionReleaseMemory(long session);

    /** kiln_session_set_input_value: binds input `index` to a copy of a tensor, sequence or optional handle */
    public static native void sessionSetInputValue(long session, int index, long value);

    /** kiln_session_output_value: new handle holding a copy of output `index` (any kind) */
    public static native long sessionOutputValue(long session, int index);

    /** kiln_session_set_input_device: binds input `name` to memory on the session's device (borrowed until the run returns; no host-to-device copy) */
    public static native void sessionSetInputDevice(long session, String name, int dtype, long[] dims, long deviceData, long nbytes);

    /** kiln_session_bind_output_device: each later run also writes output `index` into memory on the session's device (NULL unbinds) */
    public static native void sessionBindOutputDevice(long session, int index, long deviceData, long cap);

    /** kiln_session_device_stream: the session's stream on its device (a cudaStream_t for cuda); runs have waited for it when they return */
    public static native long sessionDeviceStream(long session);

    /** kiln_session_value_count: number of values the last run kept (needs KILN_OPT_KEEP_VALUES = 1) */
    public static native int sessionValueCount(long session);

    /** kiln_session_value_name: name of kept value `index`, in the order the run computed them (two-call pattern) */
    public static native String sessionValueName(long session, int index);

    /** kiln_session_value_info: element type the kept value `name` had in the run, and its shape */
    public static native SessionValueInfo sessionValueInfo(long session, String name);

    /** kiln_session_value_copy: copies the float32 copy of kept value `name` into a caller buffer (two-call pattern) */
    public static native long sessionValueCopy(long session, String name, java.nio.ByteBuffer buf);

    /** kiln_session_profile_count: number of executed steps in the plan (needs KILN_OPT_PROFILE = 1) */
    public static native int sessionProfileCount(long session);

    /** kiln_session_profile_name: node name of profiled step `index` (two-call pattern) */
    public static native String sessionProfileName(long session, int index);

    /** kiln_session_profile_op: op type of profiled step `index` (two-call pattern) */
    public static native String sessionProfileOp(long session, int index);

    /** kiln_session_profile_kernel: kernel ("cpu", "dnnl", ...) of profiled step `index` (two-call pattern) */
    public static native String sessionProfileKernel(long session, int index);

    /** kiln_session_profile_time: total nanoseconds spent in step `index` and the number of runs counted */
    public static native SessionProfileTime sessionProfileTime(long session, int index);

    /** kiln_session_profile_reset: zeroes the profile times and run counts */
    public static native void sessionProfileReset(long session);

    /** kiln_image_to_tensor: 8-bit pixels to a normalized float NCHW tensor [1, out_channels, out_height, out_width] */
    public static native void imageToTensor(byte[] pixels, int width, int height, int stride, int channels, int outWidth, int outHeight, int outChannels, float[] mean, float[] std, int flags, float[] out);

    /** kiln_image_decode: decodes a BMP, PNM, TIFF, PNG, JPEG, WebP or JPEG 2000 image to 8-bit HWC pixels (channels 3 = RGB, 1 = luma); pixels NULL and cap 0 only sets width, height and needed */
    public static native ImageDecode imageDecode(java.nio.ByteBuffer data, int channels, java.nio.ByteBuffer pixels);

    /** kiln_tensor_decode: decodes a serialized ONNX TensorProto */
    public static native long tensorDecode(java.nio.ByteBuffer data);

    /** kiln_tensor_destroy: destroys a tensor handle (NULL is fine) */
    public static native void tensorDestroy(long tensor);

    /** kiln_tensor_info: element type and shape of a tensor */
    public static native TensorInfo tensorInfo(long tensor);

    /** kiln_tensor_data: points at the tensor's bytes, valid until destroy (DTYPE for strings) */
    public static native java.nio.ByteBuffer tensorData(long tensor);

    /** kiln_tensor_name: tensor name ("" if none; two-call pattern) */
    public static native String tensorName(long tensor);

    /** kiln_tensor_encode: serializes a TensorProto (raw_data form) into a caller buffer (two-call pattern) */
    public static native long tensorEncode(String name, int dtype, long[] dims, java.nio.ByteBuffer data, java.nio.ByteBuffer buf);

    /** kiln_tensor_decode_value: decodes a serialized TensorProto, SequenceProto or OptionalProto (by kind) */
    public static native long tensorDecodeValue(java.nio.ByteBuffer data, int kind);

    /** kiln_tensor_kind: kind of the value a handle holds (KILN_KIND_*) */
    public static native int tensorKind(long tensor);

    /** kiln_tensor_element_count: number of elements of a sequence, or 0/1 for an optional */
    public static native int tensorElementCount(long value);

    /** kiln_tensor_element: new handle holding a copy of element `index` of a sequence or optional */
    public static native long tensorElement(long value, int index);

    /** kiln_tensor_string: bytes of element `index` of a string tensor (two-call pattern; may contain NULs) */
    public static native byte[] tensorString(long tensor, int index);

    /** kiln_calibrator_create: loads a model file for calibration (no graph optimization) */
    public static native long calibratorCreate(long runtime, String path, long options);

    /** kiln_calibrator_create_memory: the same from the model's bytes */
    public static native long calibratorCreateMemory(long runtime, java.nio.ByteBuffer data, long options);

    /** kiln_calibrator_destroy: frees the calibrator (NULL-safe) */
    public static native void calibratorDestroy(long calibrator);

    /** kiln_calibrator_configure: changes method, symmetry, percentile and float-kept nodes for the next write */
    public static native void calibratorConfigure(long calibrator, long options);

    /** kiln_calibrator_set_input: sets input `name` of the next batch (copied) */
    public static native void calibratorSetInput(long calibrator, String name, int dtype, long[] dims, java.nio.ByteBuffer data);

    /** kiln_calibrator_add_batch: runs the batch and adds every float tensor to its histogram */
    public static native void calibratorAddBatch(long calibrator);

    /** kiln_calibrator_batch_count: batches added so far */
    public static native int calibratorBatchCount(long calibrator);

    /** kiln_calibrator_write_file: writes the QDQ model to a file */
    public static native void calibratorWriteFile(long calibrator, String path);

    /** kiln_calibrator_write_memory: the QDQ model's bytes (two-call pattern) */
    public static native long calibratorWriteMemory(long calibrator, java.nio.ByteBuffer buf);

    /** kiln_calibrator_report_count: lines in the last write's report */
    public static native int calibratorReportCount(long calibrator);

    /** kiln_calibrator_report_name: tensor name of report line `index` (two-call pattern) */
    public static native String calibratorReportName(long calibrator, int index);

    /** kiln_calibrator_report_stats: kind, zero point, NaN/Inf count and min, max, threshold, scale, SQNR dB of report line `index` */
    public static native CalibratorReportStats calibratorReportStats(long calibrator, int index, float[] stats);

    /** Results of kiln_model_opset. */
    public static final class ModelOpset {
        public final String domain;
        public final int version;

        ModelOpset(String domain, int version) {
            this.domain = domain;
            this.version = version;
        }
    }

    /** Results of kiln_model_node_op. */
    public static final class ModelNodeOp {
        public final String opType;
        public final String domain;

        ModelNodeOp(String opType, String domain) {
            this.opType = opType;
            this.domain = domain;
        }
    }

    /** Results of kiln_model_memory_info. */
    public static final class ModelMemoryInfo {
        public final long weightBytes;
        public final long sharedPreparedBytes;
        public final long givenBackBytes;

        ModelMemoryInfo(long weightBytes, long sharedPreparedBytes, long givenBackBytes) {
            this.weightBytes = weightBytes;
            this.sharedPreparedBytes = sharedPreparedBytes;
            this.givenBackBytes = givenBackBytes;
        }
    }

    /** Results of kiln_model_node_io_count. */
    public static final class ModelNodeIoCount {
        public final int inputCount;
        public final int outputCount;

        ModelNodeIoCount(int inputCount, int outputCount) {
            this.inputCount = inputCount;
            this.outputCount = outputCount;
        }
    }

    /** Results of kiln_session_output_info. */
    public static final class SessionOutputInfo {
        public final int dtype;
        public final long[] dims;

        SessionOutputInfo(int dtype, long[] dims) {
            this.dtype = dtype;
            this.dims = dims;
        }
    }

    /** Results of kiln_session_plan_bytes. */
    public static final class SessionPlanBytes {
        public final long arenaBytes;
        public final long intermediateBytes;

        SessionPlanBytes(long arenaBytes, long intermediateBytes) {
            this.arenaBytes = arenaBytes;
            this.intermediateBytes = intermediateBytes;
        }
    }

    /** Results of kiln_session_cache_info. */
    public static final class SessionCacheInfo {
        public final int plansKept;
        public final long plansBuilt;
        public final long arenaBytes;

        SessionCacheInfo(int plansKept, long plansBuilt, long arenaBytes) {
            this.plansKept = plansKept;
            this.plansBuilt = plansBuilt;
            this.arenaBytes = arenaBytes;
        }
    }

    /** Results of kiln_session_value_info. */
    public static final class SessionValueInfo {
        public final int dtype;
        public final long[] dims;

        SessionValueInfo(int dtype, long[] dims) {
            this.dtype = dtype;
            this.dims = dims;
        }
    }

    /** Results of kiln_session_profile_time. */
    public static final class SessionProfileTime {
        public final long totalNs;
        public final long runs;

        SessionProfileTime(long totalNs, long runs) {
            this.totalNs = totalNs;
            this.runs = runs;
        }
    }

    /** Results of kiln_image_decode. */
    public static final class ImageDecode {
        public final long needed;
        public final int width;
        public final int height;

        ImageDecode(long needed, int width, int height) {
            this.needed = needed;
            this.width = width;
            this.height = height;
        }
    }

    /** Results of kiln_tensor_info. */
    public static final class TensorInfo {
        public final int dtype;
        public final long[] dims;

        TensorInfo(int dtype, long[] dims) {
            this.dtype = dtype;
            this.dims = dims;
        }
    }

    /** Results of kiln_calibrator_report_stats. */
    public static final class CalibratorReportStats {
        public final int kind;
        public final int zeroPoint;
        public final long nonfinite;

        CalibratorReportStats(int kind, int zeroPoint, long nonfinite) {
            this.kind = kind;
            this.zeroPoint = zeroPoint;
            this.nonfinite = nonfinite;
        }
    }
}
