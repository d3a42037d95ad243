/* Kiln's own declarations of the CUDA runtime, cuBLASLt and cuDNN entry
 * points the CUDA backend calls, and the table they are resolved into from
 * the libraries kn_cuda_libs_open found (nothing is linked: cuda_libs.h
 * says why). Only what the kernels use is here, written from the libraries'
 * documented C interfaces so that the backend builds without the toolkit's
 * headers.
 *
 * Each type is written KN_CU(ours, real): ours in Kiln's build; the real
 * header's type in tests/cuda/cuda_api_check.c, which defines
 * KN_CUDA_API_CHECK, includes the toolkit's headers first and asserts that
 * every function pointer type here is the real function's type, and that
 * our stand-ins (int for an enum, mirrored structs) have the real sizes and
 * offsets. A mismatch there fails the build wherever the headers exist. */
#ifndef KN_CUDA_API_H
#define KN_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/status.h"
#include "core/cuda/cuda_libs.h"

#ifdef KN_CUDA_API_CHECK
#define KN_CU(ours, real) real
#else
#define KN_CU(ours, real) ours
#endif

/* --- CUDA runtime */
typedef KN_CU(int, cudaError_t) kn_cudaError;
typedef KN_CU(int, enum cudaMemcpyKind) kn_cudaMemcpyKind;
typedef KN_CU(int, enum cudaDeviceAttr) kn_cudaDeviceAttr;
typedef KN_CU(int, enum cudaJitOption) kn_cudaJitOption;
typedef KN_CU(int, enum cudaLibraryOption) kn_cudaLibraryOption;
typedef struct CUstream_st *kn_cudaStream;
typedef struct CUlib_st *kn_cudaLibrary;
typedef struct CUkern_st *kn_cudaKernel;
typedef struct CUgraph_st *kn_cudaGraph;
typedef struct CUgraphExec_st *kn_cudaGraphExec;
typedef struct CUevent_st *kn_cudaEvent;
typedef KN_CU(int, enum cudaStreamCaptureMode) kn_cudaStreamCaptureMode;
typedef struct kn_dim3 {
    unsigned int x, y, z;
} kn_dim3_ours;
typedef KN_CU(kn_dim3_ours, dim3) kn_dim3;
/* cudaDeviceProp changes size between CUDA versions; Kiln reads only its
 * first member, the device's name (char[256]), from a buffer this large. */
#define KN_CUDA_DEVICE_PROP_BYTES 4096
typedef KN_CU(struct kn_cudaDeviceProp, struct cudaDeviceProp) kn_cudaDeviceProp;

enum {
    KN_cudaSuccess = 0,
    KN_cudaMemcpyHostToDevice = 1,
    KN_cudaMemcpyDeviceToHost = 2,
    KN_cudaMemcpyDeviceToDevice = 3,
    KN_cudaStreamNonBlocking = 1,
    KN_cudaStreamCaptureModeThreadLocal = 1,
    KN_cudaDevAttrMultiProcessorCount = 16,
    KN_cudaDevAttrComputeCapabilityMajor = 75,
    KN_cudaDevAttrComputeCapabilityMinor = 76,
};

/* --- cuBLASLt */
typedef KN_CU(int, cublasStatus_t) kn_cublasStatus;
typedef KN_CU(int, cublasComputeType_t) kn_cublasComputeType;
typedef KN_CU(int, cudaDataType_t) kn_cudaDataType;
typedef KN_CU(int, cublasLtMatmulDescAttributes_t) kn_cublasLtMatmulDescAttr;
typedef KN_CU(int, cublasLtMatrixLayoutAttribute_t) kn_cublasLtMatrixLayoutAttr;
typedef KN_CU(int, cublasLtMatmulPreferenceAttributes_t) kn_cublasLtMatmulPreferenceAttr;
typedef KN_CU(int, cublasLtMatmulAlgoConfigAttributes_t) kn_cublasLtMatmulAlgoConfigAttr;
typedef struct cublasLtContext *kn_cublasLtHandle;
typedef KN_CU(struct kn_cublasLtMatmulDesc *, cublasLtMatmulDesc_t) kn_cublasLtMatmulDesc;
typedef KN_CU(struct kn_cublasLtMatrixLayout *, cublasLtMatrixLayout_t) kn_cublasLtMatrixLayout;
typedef KN_CU(struct kn_cublasLtMatmulPreference *,
              cublasLtMatmulPreference_t) kn_cublasLtMatmulPreference;
typedef struct kn_cublasLtMatmulAlgo {
    uint64_t data[8];
} kn_cublasLtMatmulAlgo_ours;
typedef KN_CU(kn_cublasLtMatmulAlgo_ours, cublasLtMatmulAlgo_t) kn_cublasLtMatmulAlgo;
typedef struct kn_cublasLtMatmulHeuristicResult {
    kn_cublasLtMatmulAlgo algo;
    size_t workspaceSize;
    kn_cublasStatus state;
    float wavesCount;
    int reserved[4];
} kn_cublasLtHeuristic_ours;
typedef KN_CU(kn_cublasLtHeuristic_ours,
              cublasLtMatmulHeuristicResult_t) kn_cublasLtMatmulHeuristicResult;

enum {
    KN_CUBLAS_STATUS_SUCCESS = 0,
    KN_CUDA_R_32F = 0,
    KN_CUDA_R_16F = 2,
    KN_CUBLAS_COMPUTE_32F = 68,
    KN_CUBLAS_COMPUTE_32F_FAST_16F = 74,
    KN_CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
    KN_CUBLAS_OP_N = 0,
    KN_CUBLAS_OP_T = 1,
    KN_CUBLASLT_MATMUL_DESC_TRANSA = 3,
    KN_CUBLASLT_MATMUL_DESC_TRANSB = 4,
    KN_CUBLASLT_MATMUL_DESC_EPILOGUE = 7,
    KN_CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,
    KN_CUBLASLT_EPILOGUE_DEFAULT = 1,
    KN_CUBLASLT_EPILOGUE_RELU = 2,
    KN_CUBLASLT_EPILOGUE_BIAS = 4,
    KN_CUBLASLT_EPILOGUE_RELU_BIAS = 6,
    /* GELU, tanh approximation (cuBLASLt computes no other) */
    KN_CUBLASLT_EPILOGUE_GELU = 32,
    KN_CUBLASLT_EPILOGUE_GELU_BIAS = 36,
    KN_CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,
    KN_CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6,
    KN_CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
    /* what tells one algorithm configuration from another (all 32-bit) */
    KN_CUBLASLT_ALGO_CONFIG_ID = 0,
    KN_CUBLASLT_ALGO_CONFIG_TILE_ID = 1,
    KN_CUBLASLT_ALGO_CONFIG_SPLITK_NUM = 2,
    KN_CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME = 3,
    KN_CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING = 4,
    KN_CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION = 5,
    KN_CUBLASLT_ALGO_CONFIG_STAGES_ID = 6,
};

/* --- cuDNN 9 (its legacy, descriptor-based API) */
typedef KN_CU(int, cudnnStatus_t) kn_cudnnStatus;
typedef KN_CU(int, cudnnDataType_t) kn_cudnnDataType;
typedef KN_CU(int, cudnnTensorFormat_t) kn_cudnnTensorFormat;
typedef KN_CU(int, cudnnConvolutionMode_t) kn_cudnnConvolutionMode;
typedef KN_CU(int, cudnnConvolutionFwdAlgo_t) kn_cudnnConvolutionFwdAlgo;
typedef KN_CU(int, cudnnMathType_t) kn_cudnnMathType;
typedef KN_CU(int, cudnnPoolingMode_t) kn_cudnnPoolingMode;
typedef KN_CU(int, cudnnNanPropagation_t) kn_cudnnNanPropagation;
typedef KN_CU(int, cudnnActivationMode_t) kn_cudnnActivationMode;
typedef KN_CU(int, cudnnDeterminism_t) kn_cudnnDeterminism;
typedef struct cudnnContext *kn_cudnnHandle;
typedef struct cudnnTensorStruct *kn_cudnnTensorDesc;
typedef struct cudnnFilterStruct *kn_cudnnFilterDesc;
typedef struct cudnnConvolutionStruct *kn_cudnnConvDesc;
typedef struct cudnnPoolingStruct *kn_cudnnPoolingDesc;
typedef struct cudnnActivationStruct *kn_cudnnActivationDesc;
typedef struct kn_cudnnConvolutionFwdAlgoPerf {
    kn_cudnnConvolutionFwdAlgo algo;
    kn_cudnnStatus status;
    float time;
    size_t memory;
    kn_cudnnDeterminism determinism;
    kn_cudnnMathType mathType;
    int reserved[3];
} kn_cudnnFwdAlgoPerf_ours;
typedef KN_CU(kn_cudnnFwdAlgoPerf_ours,
              cudnnConvolutionFwdAlgoPerf_t) kn_cudnnConvolutionFwdAlgoPerf;

enum {
    KN_CUDNN_STATUS_SUCCESS = 0,
    KN_CUDNN_DATA_FLOAT = 0,
    KN_CUDNN_DATA_HALF = 2,
    KN_CUDNN_TENSOR_NCHW = 0,
    KN_CUDNN_CROSS_CORRELATION = 1,
    KN_CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1,
    KN_CUDNN_DEFAULT_MATH = 0,
    KN_CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
    KN_CUDNN_FMA_MATH = 3,
    KN_CUDNN_POOLING_MAX = 0,
    KN_CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING = 1,
    KN_CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING = 2,
    KN_CUDNN_NOT_PROPAGATE_NAN = 0,
    KN_CUDNN_PROPAGATE_NAN = 1,
    KN_CUDNN_ACTIVATION_RELU = 1,
    KN_CUDNN_ACTIVATION_IDENTITY = 5,
};

/* The X-macro list of every entry point: library, return type, name,
 * parameters. kn_cuda_api gets one pointer per line, resolved by name. */
/* clang-format off */
#define KN_CUDA_RUNTIME_FNS(X)                                                                     \
    X(kn_cudaError, cudaSetDevice, (int device))                                                  \
    X(kn_cudaError, cudaGetDeviceProperties, (kn_cudaDeviceProp * prop, int device))              \
    X(kn_cudaError, cudaDeviceGetAttribute, (int *value, kn_cudaDeviceAttr attr, int device))     \
    X(kn_cudaError, cudaMalloc, (void **ptr, size_t size))                                        \
    X(kn_cudaError, cudaFree, (void *ptr))                                                        \
    X(kn_cudaError, cudaMemcpyAsync,                                                              \
      (void *dst, const void *src, size_t count, kn_cudaMemcpyKind kind, kn_cudaStream stream))   \
    X(kn_cudaError, cudaMemcpy2DAsync,                                                            \
      (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,     \
       kn_cudaMemcpyKind kind, kn_cudaStream stream))                                             \
    X(kn_cudaError, cudaStreamCreateWithFlags, (kn_cudaStream * stream, unsigned int flags))     \
    X(kn_cudaError, cudaStreamDestroy, (kn_cudaStream stream))                                    \
    X(kn_cudaError, cudaStreamSynchronize, (kn_cudaStream stream))                                \
    X(kn_cudaError, cudaStreamBeginCapture, (kn_cudaStream stream, kn_cudaStreamCaptureMode mode)) \
    X(kn_cudaError, cudaStreamEndCapture, (kn_cudaStream stream, kn_cudaGraph * graph))           \
    X(kn_cudaError, cudaGraphInstantiateWithFlags,                                                \
      (kn_cudaGraphExec * exec, kn_cudaGraph graph, unsigned long long flags))                    \
    X(kn_cudaError, cudaGraphLaunch, (kn_cudaGraphExec exec, kn_cudaStream stream))               \
    X(kn_cudaError, cudaGraphExecDestroy, (kn_cudaGraphExec exec))                                \
    X(kn_cudaError, cudaGraphDestroy, (kn_cudaGraph graph))                                       \
    X(kn_cudaError, cudaLibraryLoadData,                                                          \
      (kn_cudaLibrary * library, const void *code, kn_cudaJitOption *jit_options,                 \
       void **jit_values, unsigned int n_jit, kn_cudaLibraryOption *lib_options,                  \
       void **lib_values, unsigned int n_lib))                                                    \
    X(kn_cudaError, cudaLibraryUnload, (kn_cudaLibrary library))                                  \
    X(kn_cudaError, cudaLibraryGetKernel,                                                         \
      (kn_cudaKernel * kernel, kn_cudaLibrary library, const char *name))                         \
    X(kn_cudaError, cudaLaunchKernel,                                                             \
      (const void *func, kn_dim3 grid, kn_dim3 block, void **args, size_t shared_mem,             \
       kn_cudaStream stream))                                                                     \
    X(kn_cudaError, cudaGetLastError, (void))                                                     \
    X(kn_cudaError, cudaMemsetAsync, (void *ptr, int value, size_t count, kn_cudaStream stream))  \
    X(kn_cudaError, cudaEventCreate, (kn_cudaEvent * event))                                      \
    X(kn_cudaError, cudaEventDestroy, (kn_cudaEvent event))                                       \
    X(kn_cudaError, cudaEventRecord, (kn_cudaEvent event, kn_cudaStream stream))                  \
    X(kn_cudaError, cudaEventSynchronize, (kn_cudaEvent event))                                   \
    X(kn_cudaError, cudaEventElapsedTime, (float *ms, kn_cudaEvent start, kn_cudaEvent end))

#define KN_CUBLASLT_FNS(X)                                                                         \
    X(kn_cublasStatus, cublasLtCreate, (kn_cublasLtHandle * handle))                              \
    X(kn_cublasStatus, cublasLtDestroy, (kn_cublasLtHandle handle))                               \
    X(const char *, cublasLtGetStatusString, (kn_cublasStatus status))                            \
    X(kn_cublasStatus, cublasLtMatmulDescCreate,                                                  \
      (kn_cublasLtMatmulDesc * desc, kn_cublasComputeType compute, kn_cudaDataType scale))        \
    X(kn_cublasStatus, cublasLtMatmulDescDestroy, (kn_cublasLtMatmulDesc desc))                   \
    X(kn_cublasStatus, cublasLtMatmulDescSetAttribute,                                            \
      (kn_cublasLtMatmulDesc desc, kn_cublasLtMatmulDescAttr attr, const void *buf, size_t size)) \
    X(kn_cublasStatus, cublasLtMatrixLayoutCreate,                                                \
      (kn_cublasLtMatrixLayout * layout, kn_cudaDataType type, uint64_t rows, uint64_t cols,      \
       int64_t ld))                                                                               \
    X(kn_cublasStatus, cublasLtMatrixLayoutDestroy, (kn_cublasLtMatrixLayout layout))             \
    X(kn_cublasStatus, cublasLtMatrixLayoutSetAttribute,                                          \
      (kn_cublasLtMatrixLayout layout, kn_cublasLtMatrixLayoutAttr attr, const void *buf,         \
       size_t size))                                                                              \
    X(kn_cublasStatus, cublasLtMatmulPreferenceCreate, (kn_cublasLtMatmulPreference * pref))      \
    X(kn_cublasStatus, cublasLtMatmulPreferenceDestroy, (kn_cublasLtMatmulPreference pref))       \
    X(kn_cublasStatus, cublasLtMatmulPreferenceSetAttribute,                                      \
      (kn_cublasLtMatmulPreference pref, kn_cublasLtMatmulPreferenceAttr attr, const void *buf,   \
       size_t size))                                                                              \
    X(kn_cublasStatus, cublasLtMatmulAlgoGetHeuristic,                                            \
      (kn_cublasLtHandle handle, kn_cublasLtMatmulDesc desc, kn_cublasLtMatrixLayout a,           \
       kn_cublasLtMatrixLayout b, kn_cublasLtMatrixLayout c, kn_cublasLtMatrixLayout d,           \
       kn_cublasLtMatmulPreference pref, int requested,                                           \
       kn_cublasLtMatmulHeuristicResult *results, int *returned))                                 \
    X(kn_cublasStatus, cublasLtMatmulAlgoCheck,                                                   \
      (kn_cublasLtHandle handle, kn_cublasLtMatmulDesc desc, kn_cublasLtMatrixLayout a,           \
       kn_cublasLtMatrixLayout b, kn_cublasLtMatrixLayout c, kn_cublasLtMatrixLayout d,           \
       const kn_cublasLtMatmulAlgo *algo, kn_cublasLtMatmulHeuristicResult *result))              \
    X(kn_cublasStatus, cublasLtMatmulAlgoConfigGetAttribute,                                      \
      (const kn_cublasLtMatmulAlgo *algo, kn_cublasLtMatmulAlgoConfigAttr attr, void *buf,        \
       size_t size, size_t *written))                                                             \
    X(kn_cublasStatus, cublasLtMatmul,                                                            \
      (kn_cublasLtHandle handle, kn_cublasLtMatmulDesc desc, const void *alpha, const void *a,    \
       kn_cublasLtMatrixLayout a_desc, const void *b, kn_cublasLtMatrixLayout b_desc,             \
       const void *beta, const void *c, kn_cublasLtMatrixLayout c_desc, void *d,                  \
       kn_cublasLtMatrixLayout d_desc, const kn_cublasLtMatmulAlgo *algo, void *workspace,        \
       size_t workspace_bytes, kn_cudaStream stream))

#define KN_CUDNN_FNS(X)                                                                            \
    X(kn_cudnnStatus, cudnnCreate, (kn_cudnnHandle * handle))                                     \
    X(kn_cudnnStatus, cudnnDestroy, (kn_cudnnHandle handle))                                      \
    X(kn_cudnnStatus, cudnnSetStream, (kn_cudnnHandle handle, kn_cudaStream stream))              \
    X(const char *, cudnnGetErrorString, (kn_cudnnStatus status))                                 \
    X(kn_cudnnStatus, cudnnCreateTensorDescriptor, (kn_cudnnTensorDesc * desc))                   \
    X(kn_cudnnStatus, cudnnDestroyTensorDescriptor, (kn_cudnnTensorDesc desc))                    \
    X(kn_cudnnStatus, cudnnSetTensorNdDescriptor,                                                 \
      (kn_cudnnTensorDesc desc, kn_cudnnDataType type, int n_dims, const int dims[],              \
       const int strides[]))                                                                      \
    X(kn_cudnnStatus, cudnnCreateFilterDescriptor, (kn_cudnnFilterDesc * desc))                   \
    X(kn_cudnnStatus, cudnnDestroyFilterDescriptor, (kn_cudnnFilterDesc desc))                    \
    X(kn_cudnnStatus, cudnnSetFilterNdDescriptor,                                                 \
      (kn_cudnnFilterDesc desc, kn_cudnnDataType type, kn_cudnnTensorFormat format, int n_dims,   \
       const int dims[]))                                                                         \
    X(kn_cudnnStatus, cudnnCreateConvolutionDescriptor, (kn_cudnnConvDesc * desc))                \
    X(kn_cudnnStatus, cudnnDestroyConvolutionDescriptor, (kn_cudnnConvDesc desc))                 \
    X(kn_cudnnStatus, cudnnSetConvolutionNdDescriptor,                                            \
      (kn_cudnnConvDesc desc, int n, const int pads[], const int strides[], const int dilations[], \
       kn_cudnnConvolutionMode mode, kn_cudnnDataType compute))                                   \
    X(kn_cudnnStatus, cudnnSetConvolutionGroupCount, (kn_cudnnConvDesc desc, int groups))         \
    X(kn_cudnnStatus, cudnnSetConvolutionMathType, (kn_cudnnConvDesc desc, kn_cudnnMathType m))   \
    X(kn_cudnnStatus, cudnnGetConvolutionForwardAlgorithm_v7,                                     \
      (kn_cudnnHandle handle, kn_cudnnTensorDesc x, kn_cudnnFilterDesc w, kn_cudnnConvDesc conv,  \
       kn_cudnnTensorDesc y, int requested, int *returned,                                        \
       kn_cudnnConvolutionFwdAlgoPerf *results))                                                  \
    X(kn_cudnnStatus, cudnnGetConvolutionForwardWorkspaceSize,                                    \
      (kn_cudnnHandle handle, kn_cudnnTensorDesc x, kn_cudnnFilterDesc w, kn_cudnnConvDesc conv,  \
       kn_cudnnTensorDesc y, kn_cudnnConvolutionFwdAlgo algo, size_t *bytes))                     \
    X(kn_cudnnStatus, cudnnConvolutionForward,                                                    \
      (kn_cudnnHandle handle, const void *alpha, kn_cudnnTensorDesc x_desc, const void *x,        \
       kn_cudnnFilterDesc w_desc, const void *w, kn_cudnnConvDesc conv,                           \
       kn_cudnnConvolutionFwdAlgo algo, void *workspace, size_t workspace_bytes,                  \
       const void *beta, kn_cudnnTensorDesc y_desc, void *y))                                     \
    X(kn_cudnnStatus, cudnnConvolutionBiasActivationForward,                                      \
      (kn_cudnnHandle handle, const void *alpha1, kn_cudnnTensorDesc x_desc, const void *x,       \
       kn_cudnnFilterDesc w_desc, const void *w, kn_cudnnConvDesc conv,                           \
       kn_cudnnConvolutionFwdAlgo algo, void *workspace, size_t workspace_bytes,                  \
       const void *alpha2, kn_cudnnTensorDesc z_desc, const void *z, kn_cudnnTensorDesc b_desc,   \
       const void *bias, kn_cudnnActivationDesc act, kn_cudnnTensorDesc y_desc, void *y))         \
    X(kn_cudnnStatus, cudnnCreatePoolingDescriptor, (kn_cudnnPoolingDesc * desc))                 \
    X(kn_cudnnStatus, cudnnDestroyPoolingDescriptor, (kn_cudnnPoolingDesc desc))                  \
    X(kn_cudnnStatus, cudnnSetPoolingNdDescriptor,                                                \
      (kn_cudnnPoolingDesc desc, kn_cudnnPoolingMode mode, kn_cudnnNanPropagation nan, int n,     \
       const int window[], const int pads[], const int strides[]))                                \
    X(kn_cudnnStatus, cudnnPoolingForward,                                                        \
      (kn_cudnnHandle handle, kn_cudnnPoolingDesc pool, const void *alpha,                        \
       kn_cudnnTensorDesc x_desc, const void *x, const void *beta, kn_cudnnTensorDesc y_desc,     \
       void *y))                                                                                  \
    X(kn_cudnnStatus, cudnnCreateActivationDescriptor, (kn_cudnnActivationDesc * desc))           \
    X(kn_cudnnStatus, cudnnDestroyActivationDescriptor, (kn_cudnnActivationDesc desc))            \
    X(kn_cudnnStatus, cudnnSetActivationDescriptor,                                               \
      (kn_cudnnActivationDesc desc, kn_cudnnActivationMode mode, kn_cudnnNanPropagation nan,      \
       double coef))

/* clang-format on */

#define KN_CUDA_API_FIELD(ret, name, params) ret(*name) params;
typedef struct kn_cuda_api {
    kn_cuda_libs libs; /* the handles and the loader's own entry points */
    KN_CUDA_RUNTIME_FNS(KN_CUDA_API_FIELD)
    KN_CUBLASLT_FNS(KN_CUDA_API_FIELD)
    KN_CUDNN_FNS(KN_CUDA_API_FIELD)
} kn_cuda_api;
#undef KN_CUDA_API_FIELD

/* The process-wide table: the libraries opened by the default search
 * (cuda_libs.h) and every entry point above resolved, once, thread-safe.
 * NULL with err set (KN_ERR_UNSUPPORTED naming the library or the missing
 * symbol) when that failed; the failure is remembered. */
const kn_cuda_api *kn_cuda_api_get(kn_err *err);

#endif
