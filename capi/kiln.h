/* Kiln — an ONNX inference runtime. Public C API.
 *
 * Conventions (all functions):
 *  - Every fallible call returns an int32_t status: KILN_OK (0) or one of the
 *    KILN_ERR_* codes below. The message for the last failure on the calling
 *    thread is copied out with kiln_last_error().
 *  - Handles are opaque. Destroy functions accept NULL and return nothing.
 *  - The library never returns heap memory for the caller to free, except
 *    handles (freed with their destroy function). Strings and shapes are
 *    copied into caller buffers with the two-call pattern: pass cap = 0 to
 *    learn the size needed (written to *needed), then call again.
 *  - A runtime and a model are thread-safe and may be shared. A session runs
 *    one run at a time: its functions must not be called concurrently, except
 *    kiln_session_cancel(), which any thread may call at any time.
 *  - Using a handle after destroying it is undefined behaviour (C cannot
 *    detect it); passing NULL is always detected (KILN_ERR_INVALID_ARGUMENT).
 *  - The library never prints and never aborts on bad input.
 */
#ifndef KILN_H
#define KILN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define KILN_API __declspec(dllexport)
#elif defined(__GNUC__)
#define KILN_API __attribute__((visibility("default")))
#else
#define KILN_API
#endif

/* Bumped when a function's signature or behaviour changes incompatibly.
 * Bindings compare it with kiln_abi_version() at load. */
#define KILN_ABI_VERSION 1

/* ---- status codes (values are fixed forever; never reused) ---- */
#define KILN_OK 0
#define KILN_ERR_INVALID_ARGUMENT 1 /* NULL handle, bad index, bad value */
#define KILN_ERR_OUT_OF_MEMORY 2
#define KILN_ERR_IO 3               /* model or data file cannot be read */
#define KILN_ERR_INVALID_MODEL 4    /* corrupt, truncated or inconsistent model */
#define KILN_ERR_UNSUPPORTED 5      /* op, opset, dtype or feature not supported */
#define KILN_ERR_SHAPE 6            /* wrong shape (input or inferred) */
#define KILN_ERR_DTYPE 7            /* wrong element type */
#define KILN_ERR_NOT_FOUND 8        /* no input/output with that name */
#define KILN_ERR_STATE 9            /* call made in the wrong order */
#define KILN_ERR_CANCELLED 10       /* run stopped by kiln_session_cancel() */
#define KILN_ERR_INTERNAL 11
#define KILN_ERR_BUFFER_TOO_SMALL 12 /* caller buffer too small; see *needed */
#define KILN_ERR_LIMIT 13           /* a configured resource limit was exceeded */

/* ---- element types (ONNX TensorProto.DataType numbers) ---- */
#define KILN_DTYPE_FLOAT 1
#define KILN_DTYPE_UINT8 2
#define KILN_DTYPE_INT8 3
#define KILN_DTYPE_UINT16 4
#define KILN_DTYPE_INT16 5
#define KILN_DTYPE_INT32 6
#define KILN_DTYPE_INT64 7
#define KILN_DTYPE_STRING 8 /* not supported for tensors yet */
#define KILN_DTYPE_BOOL 9
#define KILN_DTYPE_FLOAT16 10
#define KILN_DTYPE_DOUBLE 11
#define KILN_DTYPE_UINT32 12
#define KILN_DTYPE_UINT64 13
#define KILN_DTYPE_BFLOAT16 16
/* One-byte floats, one byte per element (see the ONNX float8 formats):
 * E4M3FN max 448, no inf; E4M3FNUZ max 240; E5M2 IEEE-like, max 57344;
 * E5M2FNUZ max 57344; E8M0 unsigned powers of two 2^-127..2^127, 0xFF NaN. */
#define KILN_DTYPE_FLOAT8E4M3FN 17
#define KILN_DTYPE_FLOAT8E4M3FNUZ 18
#define KILN_DTYPE_FLOAT8E5M2 19
#define KILN_DTYPE_FLOAT8E5M2FNUZ 20
#define KILN_DTYPE_FLOAT8E8M0 24
/* Packed sub-byte types: several elements per byte, element 0 in the low
 * bits, ceil(elements * bits / 8) bytes in all (the byte length every
 * buffer of such a tensor has). 4-bit: UINT4 0..15, INT4 -8..7 (two's
 * complement), FLOAT4E2M1 (1 sign, 2 exponent, 1 mantissa bits: +-0, 0.5,
 * 1, 1.5, 2, 3, 4, 6; no inf or NaN); 2-bit: UINT2 0..3, INT2 -2..1. */
#define KILN_DTYPE_UINT4 21
#define KILN_DTYPE_INT4 22
#define KILN_DTYPE_FLOAT4E2M1 23
#define KILN_DTYPE_UINT2 25
#define KILN_DTYPE_INT2 26

/* ---- value kinds: what a model input/output or a kiln_tensor holds ----
 * A tensor, a sequence (an ordered list of tensors, possibly empty; ONNX
 * sequence types) or an optional (none, or one tensor or sequence; ONNX
 * optional types). Sequences and optionals are bound with
 * kiln_session_set_input_value, read with kiln_session_output_value, and
 * taken apart with kiln_tensor_element_count / kiln_tensor_element. */
#define KILN_KIND_TENSOR 0
#define KILN_KIND_SEQUENCE 1
#define KILN_KIND_OPTIONAL 2

/* ---- option keys for kiln_options_set_int ---- */
/* Runtime: worker threads including the caller (>= 1; default 1). */
#define KILN_OPT_THREADS 1
/* Model load: 1 = keep loading when ops are unsupported, so the model can be
 * inspected (kiln_model_node_supported); sessions on it then fail. Default 0. */
#define KILN_OPT_ALLOW_UNSUPPORTED 2
/* Model load: maximum model size in MiB, external data included (0 = none). */
#define KILN_OPT_MAX_MODEL_MB 3
/* Session: maximum arena size in MiB (0 = none); with a device
 * (KILN_SOPT_DEVICE) its device arena has the same limit. */
#define KILN_OPT_MAX_ARENA_MB 4
/* Model load: graph optimization level. 0 = run the graph as written;
 * 1 = basic (drop identities and dead nodes, fold constants and
 * Conv+BatchNormalization); 2 = all (also operator fusion and layout
 * changes). Default 2. */
#define KILN_OPT_OPTIMIZE 5
/* Model load: 1 = let oneDNN serve convolution, matmul and pooling when the
 * library was built with it; 0 = only Kiln's own kernels. Default 1. */
#define KILN_OPT_USE_DNNL 6
/* Session: 1 = time the candidate kernels of each node at session creation
 * and keep the fastest; the choices are read from and written to the
 * tuning cache file when one is set (KILN_SOPT_TUNING_CACHE). Default 0. */
#define KILN_OPT_TUNE 7
/* Session: 1 = record the time each node takes, for kiln_session_profile_*.
 * Default 0 (no clock reads during runs). */
#define KILN_OPT_PROFILE 8
/* Session: how many plans (one per input signature: dtypes and shapes) the
 * session keeps, 1..1024; going back to a kept signature costs no planning.
 * The kept plans share one arena sized to the largest. Default 8. */
#define KILN_OPT_PLAN_CACHE 9
/* Calibrator: how each activation's range is chosen (KILN_CALIB_*).
 * Default KILN_CALIB_MSE (the least expected error per tensor; entropy
 * needs many batches before its search measures clipping, not noise). */
#define KILN_OPT_CALIB_METHOD 10
/* Calibrator: 1 = activations int8 symmetric (zero point 0); 0 = uint8
 * asymmetric over the range seen (a Relu's output spends all 256 levels on
 * [0, max]). Weights are always int8 symmetric per output channel. Default 0. */
#define KILN_OPT_CALIB_SYMMETRIC 11
/* Session: 1 = every run keeps a float32 copy of every tensor the graph's
 * nodes compute (numeric ones; not graph inputs, nor constants folded when
 * the session plans), read with kiln_session_value_* after the run. For
 * comparing intermediate tensors (kiln diff): they carry the names of the
 * graph as loaded, so load with KILN_OPT_OPTIMIZE 0 to see the file's own
 * tensors (fusion removes the ones inside a fused group). Costs a copy of
 * each tensor per run and memory for all of them. Default 0. */
#define KILN_OPT_KEEP_VALUES 12
/* Session: the float arithmetic kernels may use (KILN_PRECISION_*). BF16
 * lets the oneDNN convolutions and matrix products compute float32 tensors
 * in bfloat16 where the CPU has bf16 instructions (AVX512-BF16, AMX): about
 * 3 significant digits per product, tensors and results stay float32; a
 * CPU without them computes float32 as before. FP16 and TF32 are for device
 * backends (see their constants); the host computes them as float32.
 * Default KILN_PRECISION_FP32 (on CUDA: TF32 off). */
#define KILN_OPT_PRECISION 13
/* Session: 1 = on a device (KILN_SOPT_DEVICE) whose backend can capture
 * graphs, a plan made only of device work (no CPU node between device
 * nodes) is recorded as one device graph on its first run and replayed on
 * later runs with the same input shapes: one launch instead of one per
 * node. Inputs are staged through fixed host buffers; a new shape plans
 * and captures anew. Other plans run as usual; the profile names a replay
 * "graph replay (N steps)", or says on the last step why the plan was not
 * captured. Default 0. */
#define KILN_OPT_DEVICE_GRAPH 14
/* Calibrator: the weights' magnitude in bits, 8 (int8 symmetric over
 * [-127, 127], the default) or 7 (over [-63, 63]). On x86 CPUs without VNNI,
 * ONNX Runtime multiplies uint8 activations by int8 weights with
 * VPMADDUBSW, whose 16-bit sums of two products saturate unless
 * |w0| + |w1| <= 128: there, only 7-bit weights give the model's exact
 * result (its "reduce range"). Costs one bit of weight precision. */
#define KILN_OPT_CALIB_WEIGHT_BITS 15

/* ---- option keys for kiln_options_set_string ---- */
/* Session: path of the kernel tuning cache file, keyed inside by model and
 * machine. Read at session creation; written after tuning. */
#define KILN_SOPT_TUNING_CACHE 1
/* Calibrator: the percentile of KILN_CALIB_PERCENTILE, a decimal number in
 * (0, 100]. Default "99.99". */
#define KILN_SOPT_CALIB_PERCENTILE 2
/* Calibrator: comma-separated node names or op types left in float (their
 * inputs are not quantized for them). Default none. */
#define KILN_SOPT_CALIB_KEEP_FLOAT 3
/* Session: the device its nodes run on: "cpu" (the default), "NAME" or
 * "NAME:INDEX" of a device backend built in ("cuda", "cuda:1"). Nodes the
 * device's kernels accept run there, the others on the CPU, with copies
 * between them (they show in the profile); constants are uploaded once per
 * model and device. An unknown name fails at session creation with the
 * list of backends built in. */
#define KILN_SOPT_DEVICE 4

/* ---- float arithmetic (KILN_OPT_PRECISION) ---- */
/* float32 throughout. */
#define KILN_PRECISION_FP32 0
/* bfloat16 products with float32 accumulation where the CPU has them. */
#define KILN_PRECISION_BF16 1
/* Device backends (cuda): matrix products and convolutions may round their
 * inputs to float16 for Tensor Cores, accumulating in float32; tensors
 * between nodes stay float32. Host backends compute float32 as with FP32. */
#define KILN_PRECISION_FP16 2
/* Device backends (cuda): float32 tensors whose matrix products and
 * convolutions may use TF32 Tensor Cores (10-bit mantissa inputs, float32
 * accumulation). FP32 keeps TF32 off. Host backends compute float32. */
#define KILN_PRECISION_TF32 3

/* ---- calibration methods (KILN_OPT_CALIB_METHOD) ---- */
/* The largest magnitude seen. */
#define KILN_CALIB_MINMAX 1
/* The magnitude below which KILN_SOPT_CALIB_PERCENTILE % of the values lie. */
#define KILN_CALIB_PERCENTILE 2
/* TensorRT's: the clipping threshold that loses the least information (KL
 * divergence over 2048 histogram bins folded to 128 levels). */
#define KILN_CALIB_ENTROPY 3
/* The threshold of least expected squared quantization error. */
#define KILN_CALIB_MSE 4

/* ---- calibration report line kinds (kiln_calibrator_report_stats) ---- */
#define KILN_CALIB_TENSOR_ACTIVATION 0
#define KILN_CALIB_TENSOR_WEIGHT 1
#define KILN_CALIB_TENSOR_BIAS 2

/* ---- flags for kiln_session_set_input ---- */
/* Copy the data now instead of borrowing the pointer until the run ends. */
#define KILN_INPUT_COPY 1

typedef struct kiln_options kiln_options;
typedef struct kiln_runtime kiln_runtime;
typedef struct kiln_model kiln_model;
typedef struct kiln_session kiln_session;
typedef struct kiln_tensor kiln_tensor;
typedef struct kiln_calibrator kiln_calibrator;

/* ---- library ---- */

/* KILN_ABI_VERSION of the built library. Thread-safe. */
KILN_API int32_t kiln_abi_version(void);
/* Release version, e.g. "0.1.0"; a static string (do not free). */
KILN_API const char *kiln_version(void);
/* Copies the calling thread's last error message (NUL-terminated, truncated
 * to cap) into buf; returns the full message length without the NUL. buf may
 * be NULL when cap is 0. The message is kept until the next failing call on
 * this thread. */
KILN_API int32_t kiln_last_error(char *buf, int32_t cap);
/* Short English name of a status code ("shape mismatch"); static string. */
KILN_API const char *kiln_status_name(int32_t status);

/* ---- options: a bag of integer settings keyed by KILN_OPT_* ---- */

/* Errors: INVALID_ARGUMENT (out NULL), OUT_OF_MEMORY. */
KILN_API int32_t kiln_options_create(kiln_options **out);
KILN_API void kiln_options_destroy(kiln_options *options);
/* Errors: INVALID_ARGUMENT (NULL options, unknown key, value out of range). */
KILN_API int32_t kiln_options_set_int(kiln_options *options, int32_t key, int32_t value);

/* Copies value (NUL-terminated; NULL clears the setting). Errors:
 * INVALID_ARGUMENT (NULL options, unknown key), OUT_OF_MEMORY. */
KILN_API int32_t kiln_options_set_string(kiln_options *options, int32_t key, const char *value);

/* ---- runtime: owns the thread pool; shared by models and sessions ---- */

/* options may be NULL (defaults). The options are copied. Thread-safe.
 * Errors: INVALID_ARGUMENT, OUT_OF_MEMORY (threads could not start). */
KILN_API int32_t kiln_runtime_create(const kiln_options *options, kiln_runtime **out);
/* Destroy after every model and session created from it. */
KILN_API void kiln_runtime_destroy(kiln_runtime *runtime);

/* ---- model: an immutable, validated graph; thread-safe and shareable ---- */

/* Loads an ONNX model file; external data files are read relative to its
 * folder and may not escape it. options may be NULL. Errors: IO,
 * INVALID_MODEL (message names the problem and where), UNSUPPORTED (names
 * op, domain, opset and node), LIMIT, OUT_OF_MEMORY. */
KILN_API int32_t kiln_model_load_file(kiln_runtime *runtime, const char *path,
                                      const kiln_options *options, kiln_model **out);
/* Loads from bytes; the bytes are not used after the call returns. A model
 * with external data cannot be loaded this way (UNSUPPORTED). */
KILN_API int32_t kiln_model_load_memory(kiln_runtime *runtime, const void *data, size_t size,
                                        const kiln_options *options, kiln_model **out);
/* Destroy after every session created from it. */
KILN_API void kiln_model_destroy(kiln_model *model);

KILN_API int32_t kiln_model_input_count(const kiln_model *model, int32_t *count);
KILN_API int32_t kiln_model_output_count(const kiln_model *model, int32_t *count);
/* Name of input/output `index` (two-call pattern: *needed = bytes incl. NUL).
 * Errors: INVALID_ARGUMENT (bad index), BUFFER_TOO_SMALL. */
KILN_API int32_t kiln_model_input_name(const kiln_model *model, int32_t index, char *buf,
                                       int32_t cap, int32_t *needed);
KILN_API int32_t kiln_model_output_name(const kiln_model *model, int32_t index, char *buf,
                                        int32_t cap, int32_t *needed);
/* Declared element type (KILN_DTYPE_*, 0 if the model leaves it open). */
KILN_API int32_t kiln_model_input_dtype(const kiln_model *model, int32_t index, int32_t *dtype);
KILN_API int32_t kiln_model_output_dtype(const kiln_model *model, int32_t index, int32_t *dtype);
/* Declared shape: *rank is set (-1 if unknown); up to cap dims are written,
 * -1 for a dynamic dim. Errors: BUFFER_TOO_SMALL if cap < rank. */
KILN_API int32_t kiln_model_input_shape(const kiln_model *model, int32_t index, int64_t *dims,
                                        int32_t cap, int32_t *rank);
KILN_API int32_t kiln_model_output_shape(const kiln_model *model, int32_t index, int64_t *dims,
                                         int32_t cap, int32_t *rank);
/* Index of the input/output named `name`. Errors: NOT_FOUND. */
KILN_API int32_t kiln_model_input_index(const kiln_model *model, const char *name,
                                        int32_t *index);
KILN_API int32_t kiln_model_output_index(const kiln_model *model, const char *name,
                                         int32_t *index);

/* Opset imports: domain ("" = ai.onnx) and version of entry `index`. */
KILN_API int32_t kiln_model_opset_count(const kiln_model *model, int32_t *count);
KILN_API int32_t kiln_model_opset(const kiln_model *model, int32_t index, char *domain,
                                  int32_t cap, int32_t *needed, int32_t *version);
/* Nodes of the main graph, in execution order. */
KILN_API int32_t kiln_model_node_count(const kiln_model *model, int32_t *count);
/* Op type and domain of node `index` ("Conv", ""), two-call pattern;
 * *needed is the larger of the two sizes. */
KILN_API int32_t kiln_model_node_op(const kiln_model *model, int32_t index, char *op_type,
                                    int32_t op_cap, char *domain, int32_t domain_cap,
                                    int32_t *needed);
/* Node name (the reader names unnamed nodes "node<N>"). */
KILN_API int32_t kiln_model_node_name(const kiln_model *model, int32_t index, char *buf,
                                      int32_t cap, int32_t *needed);
/* *supported = 1 if a kernel exists for the node's op and opset. */
KILN_API int32_t kiln_model_node_supported(const kiln_model *model, int32_t index,
                                           int32_t *supported);
/* Kind of input/output `index` (KILN_KIND_*). For a sequence or optional,
 * kiln_model_*_dtype reports the element type of its tensors (0 if open)
 * and kiln_model_*_shape rank -1. Thread-safe. Errors: INVALID_ARGUMENT
 * (NULL model or kind, bad index). */
KILN_API int32_t kiln_model_input_kind(const kiln_model *model, int32_t index, int32_t *kind);
KILN_API int32_t kiln_model_output_kind(const kiln_model *model, int32_t index, int32_t *kind);
/* Memory the model holds for all its sessions: the bytes of its weights
 * (initializers, as loaded), the bytes of the prepared copies of them every
 * session shares (oneDNN's reordered and Winograd-transformed weights, made
 * by the first session that needs each), and the bytes of weights whose raw
 * pages were given back to the system because only a shared copy is read.
 * What a session adds on top is its arena (kiln_session_cache_info) and its
 * kernels' small state. Thread-safe. Any out pointer may be NULL. Errors:
 * INVALID_ARGUMENT (NULL model). */
KILN_API int32_t kiln_model_memory_info(const kiln_model *model, int64_t *weight_bytes,
                                        int64_t *shared_prepared_bytes,
                                        int64_t *given_back_bytes);
/* How many inputs and outputs node `index` has (omitted optional ones
 * included), so tools can draw the graph's edges. Thread-safe. Errors:
 * INVALID_ARGUMENT (NULL argument, bad index). */
KILN_API int32_t kiln_model_node_io_count(const kiln_model *model, int32_t index,
                                          int32_t *input_count, int32_t *output_count);
/* Name of the value that input (or output) `slot` of node `index` reads (or
 * writes); "" for an omitted optional one. Two-call pattern. Values with the
 * same name are the same tensor: an edge from the node writing it to each
 * node reading it. Errors: INVALID_ARGUMENT (bad index or slot),
 * BUFFER_TOO_SMALL. */
KILN_API int32_t kiln_model_node_input(const kiln_model *model, int32_t index, int32_t slot,
                                       char *buf, int32_t cap, int32_t *needed);
KILN_API int32_t kiln_model_node_output(const kiln_model *model, int32_t index, int32_t slot,
                                        char *buf, int32_t cap, int32_t *needed);

/* ---- session: per-run state (planned memory, bound inputs) ---- */

/* Plans memory for the model's declared shapes (when they are all static)
 * and prepares every kernel. options may be NULL. Thread-safe with respect
 * to other sessions of the same model. Errors: UNSUPPORTED (op or dtype,
 * named), SHAPE, LIMIT (arena above KILN_OPT_MAX_ARENA_MB), OUT_OF_MEMORY. */
KILN_API int32_t kiln_session_create(kiln_model *model, const kiln_options *options,
                                     kiln_session **out);
/* Waits for a run in flight on another thread to finish first. */
KILN_API void kiln_session_destroy(kiln_session *session);

/* Binds input `name`. dims/rank give the shape, nbytes the buffer size
 * (must equal the shape's byte size). Without KILN_INPUT_COPY the pointer is
 * borrowed and must stay valid and unchanged until the next run returns.
 * A binding stays in place for later runs until the input is bound again.
 * Errors: NOT_FOUND (name), DTYPE, SHAPE (rank or a static dim differs from
 * the model's), INVALID_ARGUMENT (NULL data, nbytes mismatch). */
KILN_API int32_t kiln_session_set_input(kiln_session *session, const char *name, int32_t dtype,
                                        const int64_t *dims, int32_t rank, const void *data,
                                        size_t nbytes, int32_t flags);
/* Same, by input index. */
KILN_API int32_t kiln_session_set_input_at(kiln_session *session, int32_t index, int32_t dtype,
                                           const int64_t *dims, int32_t rank, const void *data,
                                           size_t nbytes, int32_t flags);
/* Runs the model. With static shapes this allocates no memory. Errors:
 * STATE (an input is not bound), CANCELLED, SHAPE (a new input shape does not
 * fit the graph), LIMIT, and kernel errors naming the node. */
KILN_API int32_t kiln_session_run(kiln_session *session);
/* Asks the run in flight (if any) to stop at the next node; it then returns
 * KILN_ERR_CANCELLED. A run started later is not affected. Thread-safe. */
KILN_API int32_t kiln_session_cancel(kiln_session *session);

/* Output element type and shape after a successful run. Errors: STATE
 * (no successful run yet), INVALID_ARGUMENT, BUFFER_TOO_SMALL (cap < rank;
 * *rank is still set). */
KILN_API int32_t kiln_session_output_info(const kiln_session *session, int32_t index,
                                          int32_t *dtype, int64_t *dims, int32_t cap,
                                          int32_t *rank);
/* Copies output `index` into buf. *needed (may be NULL) gets the byte size.
 * Errors: STATE, BUFFER_TOO_SMALL. */
KILN_API int32_t kiln_session_output_copy(const kiln_session *session, int32_t index,
                                          void *buf, size_t cap, size_t *needed);
/* Points *data at the library's copy of output `index`, valid until the next
 * run or the session's destruction. Do not write through it. */
KILN_API int32_t kiln_session_output_view(const kiln_session *session, int32_t index,
                                          const void **data, size_t *nbytes);
/* Memory plan of the current shapes: arena bytes, and the sum of the sizes
 * of all intermediate tensors (what a plan without reuse would need). */
KILN_API int32_t kiln_session_plan_bytes(const kiln_session *session, int64_t *arena_bytes,
                                         int64_t *intermediate_bytes);
/* The session's plan cache (KILN_OPT_PLAN_CACHE): plans kept now, plans
 * built so far (one per new signature, and one per run for a model whose
 * shapes depend on input values), and the bytes of the arena the kept
 * plans share. Any out pointer may be NULL. */
KILN_API int32_t kiln_session_cache_info(const kiln_session *session, int32_t *plans_kept,
                                         int64_t *plans_built, int64_t *arena_bytes);
/* Gives back every kept plan and the arena (waiting for a run in flight);
 * the next run plans again. Outputs of the last run are gone (STATE until
 * the next run). */
KILN_API int32_t kiln_session_release_memory(kiln_session *session);
/* Binds input `index` to a copy of value (a tensor, sequence or optional
 * handle; the handle is not used after the call and may be destroyed). The
 * value's kind must be the input's kind, except that an optional input
 * also takes a tensor or sequence (bound as an optional holding it). The
 * binding stays until the input is bound again. kiln_session_set_input and
 * kiln_session_set_input_at refuse sequence and optional inputs and string
 * tensors (DTYPE); this call takes every kind (strings are deep-copied). Errors: INVALID_ARGUMENT (NULL argument, bad
 * index), DTYPE (kind or element type differs from the model's), SHAPE
 * (tensor shape differs), OUT_OF_MEMORY. */
KILN_API int32_t kiln_session_set_input_value(kiln_session *session, int32_t index,
                                              const kiln_tensor *value);
/* *out = a new handle holding a copy of output `index` after a successful
 * run, whatever its kind; it stays valid after later runs and must be
 * destroyed with kiln_tensor_destroy. Its name is the output's name. The
 * other output functions (info, copy, view) refuse sequence and optional
 * outputs, and copy and view refuse string tensors (DTYPE). Errors: INVALID_ARGUMENT, STATE (no successful run yet),
 * OUT_OF_MEMORY. */
KILN_API int32_t kiln_session_output_value(const kiln_session *session, int32_t index,
                                           kiln_tensor **out);

/* ---- device memory (sessions created with KILN_SOPT_DEVICE) ----
 * For callers that already hold their data on the session's device (a CUDA
 * pointer for "cuda"): inputs are read and outputs written there, with no
 * trip through host memory. The pointers are the device's own (for CUDA,
 * from cudaMalloc on the session's device); the library cannot check them,
 * only their sizes. A run returns once the bound outputs hold the results. */

/* Binds input `name` to device memory, as kiln_session_set_input does with
 * host memory: borrowed until the next run returns, kept for later runs
 * until the input is bound again (kiln_session_set_input binds it back to
 * host memory). Device steps read it where it is: no host-to-device copy;
 * a CPU step that reads it gets one device-to-host copy the engine makes.
 * Errors: NOT_FOUND (name), UNSUPPORTED (the session runs on cpu; a model
 * whose shapes depend on this input's values), DTYPE (not the model's
 * dtype, or not a numeric tensor), SHAPE, INVALID_ARGUMENT (NULL pointer,
 * nbytes not the shape's byte size). */
KILN_API int32_t kiln_session_set_input_device(kiln_session *session, const char *name,
                                               int32_t dtype, const int64_t *dims, int32_t rank,
                                               const void *device_data, size_t nbytes);
/* After each later successful run, output `index` is also in device_data
 * (cap bytes of device memory): the run copies it there on the device and
 * waits for the copy. device_data NULL unbinds. The output stays readable
 * with kiln_session_output_copy. Errors: INVALID_ARGUMENT (bad index),
 * UNSUPPORTED (the session runs on cpu), DTYPE (not a numeric tensor),
 * BUFFER_TOO_SMALL (here when the model fixes the output's shape, else
 * from kiln_session_run; the message gives both sizes). */
KILN_API int32_t kiln_session_bind_output_device(kiln_session *session, int32_t index,
                                                 void *device_data, size_t cap);
/* *stream = the session's stream on its device (a cudaStream_t for
 * "cuda"): every run's device work is queued on it. A run has waited for
 * it before returning, so work the caller queues after a run (on this
 * stream or another) sees the results. Errors: INVALID_ARGUMENT (NULL
 * argument), UNSUPPORTED (the session runs on cpu). */
KILN_API int32_t kiln_session_device_stream(const kiln_session *session, void **stream);

/* ---- kept values (sessions created with KILN_OPT_KEEP_VALUES = 1) ---- */

/* Number of values the last run kept. Errors: INVALID_ARGUMENT, STATE (the
 * session does not keep values, or has no successful run since it was
 * created, the last run failed, or kiln_session_release_memory). */
KILN_API int32_t kiln_session_value_count(const kiln_session *session, int32_t *count);
/* Name of kept value `index`, in the order the run computed them (the
 * graph's topological order), two-call pattern. Errors: STATE (as above),
 * INVALID_ARGUMENT (bad index), BUFFER_TOO_SMALL. */
KILN_API int32_t kiln_session_value_name(const kiln_session *session, int32_t index, char *buf,
                                         int32_t cap, int32_t *needed);
/* Element type the value had in the run (its copy is float32 whatever it
 * was) and its shape. Errors: STATE (as above), NOT_FOUND (the last run kept
 * no value of that name: not in the graph, a graph input, a folded constant,
 * or not numeric), BUFFER_TOO_SMALL (cap < rank; *rank is still set). */
KILN_API int32_t kiln_session_value_info(const kiln_session *session, const char *name,
                                         int32_t *dtype, int64_t *dims, int32_t cap,
                                         int32_t *rank);
/* Copies the float32 copy of value `name` (4 bytes per element, row-major)
 * into buf; *needed (may be NULL) gets the byte size. Errors: STATE,
 * NOT_FOUND (as kiln_session_value_info), BUFFER_TOO_SMALL. */
KILN_API int32_t kiln_session_value_copy(const kiln_session *session, const char *name,
                                         void *buf, size_t cap, size_t *needed);

/* ---- profiling (sessions created with KILN_OPT_PROFILE = 1) ---- */

/* Number of executed steps in the current plan (after fusion, a step may
 * stand for several nodes of the file). Errors: INVALID_ARGUMENT, STATE
 * (profiling is off or no plan exists yet). */
KILN_API int32_t kiln_session_profile_count(const kiln_session *session, int32_t *count);
/* Step `index`: its node name, op type (fused steps have their own, e.g.
 * "FusedConv") and kernel ("cpu", "dnnl", ...), each by the two-call
 * pattern. */
KILN_API int32_t kiln_session_profile_name(const kiln_session *session, int32_t index, char *buf,
                                           int32_t cap, int32_t *needed);
KILN_API int32_t kiln_session_profile_op(const kiln_session *session, int32_t index, char *buf,
                                         int32_t cap, int32_t *needed);
KILN_API int32_t kiln_session_profile_kernel(const kiln_session *session, int32_t index,
                                             char *buf, int32_t cap, int32_t *needed);
/* Total time spent in step `index` over all runs since the plan was built or
 * the profile reset, and the number of those runs. */
KILN_API int32_t kiln_session_profile_time(const kiln_session *session, int32_t index,
                                           int64_t *total_ns, int64_t *runs);
/* Zeroes the times and run counts. */
KILN_API int32_t kiln_session_profile_reset(kiln_session *session);

/* ---- image preprocessing: pixels to a model input ---- */

/* Flag for kiln_image_to_tensor: write channels in B, G, R order. */
#define KILN_IMAGE_BGR 1

/* Converts 8-bit pixels (channels: 1 = gray, 3 = RGB, 4 = RGBA; rows
 * `stride` bytes apart) into a float tensor of shape [1, out_channels,
 * out_height, out_width] (NCHW) written to out, which holds out_bytes =
 * 4 * out_channels * out_height * out_width bytes. Resizes bilinearly
 * (half-pixel centres, like ONNX Resize) and computes
 * (pixel / 255 - mean[c]) / std[c]; mean and std may be NULL (0 and 1).
 * out_channels 1 takes luma (0.299 R + 0.587 G + 0.114 B); 3 takes R, G, B
 * (a gray image repeated); alpha is ignored. Errors: INVALID_ARGUMENT
 * (NULL pointer, bad sizes or channel counts, out_bytes mismatch, std 0). */
KILN_API int32_t kiln_image_to_tensor(const uint8_t *pixels, int32_t width, int32_t height,
                                      int32_t stride, int32_t channels, int32_t out_width,
                                      int32_t out_height, int32_t out_channels, const float *mean,
                                      const float *std, int32_t flags, float *out,
                                      size_t out_bytes);
/* Decodes an encoded image (size bytes at data: BMP, binary PNM, baseline
 * TIFF, PNG, JPEG, WebP or JPEG 2000, told apart by their first bytes) into
 * 8-bit pixels, rows top to bottom, channels interleaved: channels 3 gives
 * R, G, B; 1 gives luma (ITU-R 601 weights, as PIL's convert("L")). Alpha is
 * dropped. Two-call pattern: with pixels NULL and cap 0 it sets *width,
 * *height and *needed (= width * height * channels) and returns KILN_OK;
 * then call again with a buffer of cap >= needed bytes. needed may be NULL.
 * Errors: INVALID_ARGUMENT (NULL data, width or height; channels not 1 or
 * 3; an unrecognised, truncated or corrupt image: the message names the
 * format and the defect), UNSUPPORTED (a format this build has no library
 * for, naming the library, e.g. "Kiln was built without libjpeg"; or a
 * variant such as CMYK JPEG or animated WebP), LIMIT (more than 2^28
 * pixels), BUFFER_TOO_SMALL (cap < needed; *needed is set),
 * OUT_OF_MEMORY. */
KILN_API int32_t kiln_image_decode(const void *data, size_t size, int32_t channels, void *pixels,
                                   size_t cap, size_t *needed, int32_t *width, int32_t *height);

/* ---- tensor files: ONNX TensorProto (the .pb files of ONNX test data) ---- */

/* Decodes a serialized TensorProto (string tensors included: read their
 * elements with kiln_tensor_string). Errors: INVALID_MODEL (malformed),
 * UNSUPPORTED (external data), OUT_OF_MEMORY. */
KILN_API int32_t kiln_tensor_decode(const void *data, size_t size, kiln_tensor **out);
KILN_API void kiln_tensor_destroy(kiln_tensor *tensor);
KILN_API int32_t kiln_tensor_info(const kiln_tensor *tensor, int32_t *dtype, int64_t *dims,
                                  int32_t cap, int32_t *rank);
/* Points at the tensor's bytes (little endian, row-major); valid until destroy.
 * Errors: DTYPE for a string tensor (use kiln_tensor_string). */
KILN_API int32_t kiln_tensor_data(const kiln_tensor *tensor, const void **data, size_t *nbytes);
/* Tensor name ("" if none), two-call pattern. */
KILN_API int32_t kiln_tensor_name(const kiln_tensor *tensor, char *buf, int32_t cap,
                                  int32_t *needed);
/* Serializes a TensorProto (raw_data form) into buf; *needed gets its size.
 * name may be NULL. Errors: INVALID_ARGUMENT, DTYPE (KILN_DTYPE_STRING has
 * no raw form), BUFFER_TOO_SMALL. */
KILN_API int32_t kiln_tensor_encode(const char *name, int32_t dtype, const int64_t *dims,
                                    int32_t rank, const void *data, size_t nbytes, void *buf,
                                    size_t cap, size_t *needed);
/* Decodes a serialized value of the given kind: KILN_KIND_TENSOR a
 * TensorProto (as kiln_tensor_decode), KILN_KIND_SEQUENCE a SequenceProto,
 * KILN_KIND_OPTIONAL an OptionalProto (the protobuf bytes do not say which
 * message they are, so the caller does, e.g. from kiln_model_input_kind).
 * Sequence elements may be tensors or nested sequences/optionals. For a
 * sequence or optional handle, kiln_tensor_info and kiln_tensor_data fail
 * (DTYPE): read it with kiln_tensor_element_count and kiln_tensor_element.
 * Errors: INVALID_ARGUMENT (bad kind), INVALID_MODEL (malformed; the
 * message names the problem), UNSUPPORTED (sequences of string tensors,
 * sparse tensors, maps, external data), OUT_OF_MEMORY. Thread-safe. */
KILN_API int32_t kiln_tensor_decode_value(const void *data, size_t size, int32_t kind,
                                          kiln_tensor **out);
/* KILN_KIND_* of the value the handle holds. */
KILN_API int32_t kiln_tensor_kind(const kiln_tensor *tensor, int32_t *kind);
/* Number of elements: a sequence's length, 0 or 1 for an optional (none or
 * present). Errors: INVALID_ARGUMENT (NULL, or the handle holds a plain
 * tensor). */
KILN_API int32_t kiln_tensor_element_count(const kiln_tensor *value, int32_t *count);
/* *out = a new handle holding a copy of element `index` of a sequence or
 * optional (a tensor, or a nested sequence/optional); independent of value
 * and destroyed with kiln_tensor_destroy. Errors: INVALID_ARGUMENT (NULL,
 * plain tensor, index out of range), OUT_OF_MEMORY. */
KILN_API int32_t kiln_tensor_element(const kiln_tensor *value, int32_t index,
                                     kiln_tensor **out);
/* Bytes of element `index` (row-major) of a string tensor, two-call
 * pattern: *needed = byte length + 1; a NUL is added (the bytes themselves
 * may contain NULs). Errors: INVALID_ARGUMENT (NULL, index out of range),
 * DTYPE (not a string tensor), BUFFER_TOO_SMALL, LIMIT (over 2 GiB). */
KILN_API int32_t kiln_tensor_string(const kiln_tensor *tensor, int32_t index, char *buf,
                                    int32_t cap, int32_t *needed);

/* ---- INT8 calibration: a standard QDQ model from calibration batches ---- */

/* A calibrator loads a model (from its file, or its bytes) without graph
 * optimization, runs it on calibration batches and keeps one fixed-size
 * histogram per float tensor, tapped inside the runtime: memory does not
 * grow with the number of batches. It then writes the model again with
 * QuantizeLinear/DequantizeLinear pairs (activations uint8 asymmetric or
 * int8 symmetric; weights int8 symmetric per output channel; biases int32),
 * which ONNX Runtime and other runtimes load too. Options:
 * KILN_OPT_CALIB_METHOD, KILN_OPT_CALIB_SYMMETRIC,
 * KILN_SOPT_CALIB_PERCENTILE, KILN_SOPT_CALIB_KEEP_FLOAT, plus the model
 * load options (KILN_OPT_MAX_MODEL_MB, KILN_OPT_USE_DNNL). Errors: those of
 * kiln_model_load_file; UNSUPPORTED for a model below opset 13 (per-channel
 * QuantizeLinear). One thread at a time per calibrator. */
KILN_API int32_t kiln_calibrator_create(kiln_runtime *runtime, const char *path,
                                        const kiln_options *options, kiln_calibrator **out);
KILN_API int32_t kiln_calibrator_create_memory(kiln_runtime *runtime, const void *data,
                                               size_t size, const kiln_options *options,
                                               kiln_calibrator **out);
KILN_API void kiln_calibrator_destroy(kiln_calibrator *calibrator);
/* Changes the calibration options (method, symmetry, percentile, nodes kept
 * in float) for the next write; the histograms stay, so one set of batches
 * can be written with every method. */
KILN_API int32_t kiln_calibrator_configure(kiln_calibrator *calibrator,
                                           const kiln_options *options);
/* Sets input `name` of the next batch, as kiln_session_set_input does (the
 * bytes are copied). Errors: NOT_FOUND (no such input, the message lists
 * the model's inputs), DTYPE, SHAPE, INVALID_ARGUMENT. */
KILN_API int32_t kiln_calibrator_set_input(kiln_calibrator *calibrator, const char *name,
                                           int32_t dtype, const int64_t *dims, int32_t rank,
                                           const void *data, size_t nbytes);
/* Runs the model on the inputs set and adds every float tensor it computes
 * to its histogram. NaN and infinite values are left out and counted (the
 * report shows them). Errors: those of kiln_session_run. */
KILN_API int32_t kiln_calibrator_add_batch(kiln_calibrator *calibrator);
/* Batches added so far. */
KILN_API int32_t kiln_calibrator_batch_count(const kiln_calibrator *calibrator, int32_t *count);
/* Writes the QDQ model to a file. Errors: STATE (no batch added yet), IO
 * (the file and the OS reason), OUT_OF_MEMORY. */
KILN_API int32_t kiln_calibrator_write_file(kiln_calibrator *calibrator, const char *path);
/* The QDQ model's bytes, two-call pattern (cap 0: BUFFER_TOO_SMALL with
 * *needed set; the model is built once and kept for the second call).
 * Errors: STATE, BUFFER_TOO_SMALL, OUT_OF_MEMORY. */
KILN_API int32_t kiln_calibrator_write_memory(kiln_calibrator *calibrator, void *buf, size_t cap,
                                              size_t *needed);
/* The report of the last write: one line per quantized tensor. */
KILN_API int32_t kiln_calibrator_report_count(const kiln_calibrator *calibrator, int32_t *count);
/* Name of the tensor on report line `index` (two-call pattern). */
KILN_API int32_t kiln_calibrator_report_name(const kiln_calibrator *calibrator, int32_t index,
                                             char *buf, int32_t cap, int32_t *needed);
/* Report line `index`: its kind (KILN_CALIB_TENSOR_*), zero point, the
 * count of NaN/Inf values left out, and up to five floats in stats: the
 * smallest and largest value seen (activations) or present (weights), the
 * chosen clipping magnitude, the scale (a per-channel weight's first
 * channel) and the signal-to-quantization-noise ratio in dB (estimated from
 * the histogram for activations, exact for weights; +inf when exact).
 * Errors: STATE (no write yet), INVALID_ARGUMENT (bad index). */
KILN_API int32_t kiln_calibrator_report_stats(const kiln_calibrator *calibrator, int32_t index,
                                              int32_t *kind, int32_t *zero_point,
                                              int64_t *nonfinite, float *stats,
                                              size_t stats_bytes);

#ifdef __cplusplus
}
#endif

#endif
