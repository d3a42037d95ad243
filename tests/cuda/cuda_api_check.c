/* Compiled (never run) wherever the CUDA toolkit's headers are installed:
 * every entry point Kiln declares in core/cuda/cuda_api.h must have the
 * type of the real function, and every constant and mirrored struct the
 * real value and layout. cuda_api.h is read here with KN_CUDA_API_CHECK,
 * which makes its KN_CU(ours, real) types the real ones, so a wrong
 * parameter (count, order, pointer level, width) fails the build; the
 * stand-ins themselves (int for an enum, the mirrored structs) are checked
 * against the real types below. */
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <stddef.h>

#define KN_CUDA_API_CHECK
#include "core/cuda/cuda_api.h"

#define SAME_TYPE(ret, name, params)                                                               \
    _Static_assert(                                                                                \
        __builtin_types_compatible_p(__typeof__(&name), __typeof__(((kn_cuda_api *)0)->name)),     \
        "core/cuda/cuda_api.h: " #name " is not declared as the library declares it");
KN_CUDA_RUNTIME_FNS(SAME_TYPE)
KN_CUBLASLT_FNS(SAME_TYPE)
KN_CUDNN_FNS(SAME_TYPE)

/* int stands for each enum in Kiln's build */
#define INT_SIZED(type) _Static_assert(sizeof(type) == sizeof(int), #type " is not int-sized")
INT_SIZED(cudaError_t);
INT_SIZED(enum cudaMemcpyKind);
INT_SIZED(enum cudaDeviceAttr);
INT_SIZED(enum cudaJitOption);
INT_SIZED(enum cudaLibraryOption);
INT_SIZED(enum cudaStreamCaptureMode);
INT_SIZED(cublasStatus_t);
INT_SIZED(cublasComputeType_t);
INT_SIZED(cudaDataType_t);
INT_SIZED(cublasLtMatmulDescAttributes_t);
INT_SIZED(cublasLtMatrixLayoutAttribute_t);
INT_SIZED(cublasLtMatmulPreferenceAttributes_t);
INT_SIZED(cublasLtMatmulAlgoConfigAttributes_t);
INT_SIZED(cudnnStatus_t);
INT_SIZED(cudnnDataType_t);
INT_SIZED(cudnnTensorFormat_t);
INT_SIZED(cudnnConvolutionMode_t);
INT_SIZED(cudnnConvolutionFwdAlgo_t);
INT_SIZED(cudnnMathType_t);
INT_SIZED(cudnnPoolingMode_t);
INT_SIZED(cudnnNanPropagation_t);
INT_SIZED(cudnnActivationMode_t);
INT_SIZED(cudnnDeterminism_t);

/* the mirrored structs */
#define SAME_LAYOUT(ours, real)                                                                    \
    _Static_assert(sizeof(ours) == sizeof(real) && _Alignof(ours) == _Alignof(real),               \
                   #ours " does not mirror " #real)
SAME_LAYOUT(kn_dim3_ours, dim3);
SAME_LAYOUT(kn_cublasLtMatmulAlgo_ours, cublasLtMatmulAlgo_t);
SAME_LAYOUT(kn_cublasLtHeuristic_ours, cublasLtMatmulHeuristicResult_t);
SAME_LAYOUT(kn_cudnnFwdAlgoPerf_ours, cudnnConvolutionFwdAlgoPerf_t);
#define SAME_OFFSET(ours, real, ours_field, real_field)                                            \
    _Static_assert(offsetof(ours, ours_field) == offsetof(real, real_field),                       \
                   #ours "." #ours_field " is not where " #real "." #real_field " is")
SAME_OFFSET(kn_dim3_ours, dim3, z, z);
SAME_OFFSET(kn_cublasLtHeuristic_ours, cublasLtMatmulHeuristicResult_t, workspaceSize,
            workspaceSize);
SAME_OFFSET(kn_cublasLtHeuristic_ours, cublasLtMatmulHeuristicResult_t, state, state);
SAME_OFFSET(kn_cudnnFwdAlgoPerf_ours, cudnnConvolutionFwdAlgoPerf_t, memory, memory);
SAME_OFFSET(kn_cudnnFwdAlgoPerf_ours, cudnnConvolutionFwdAlgoPerf_t, mathType, mathType);

/* the constants */
#define SAME_VALUE(ours, real) _Static_assert((long long)(ours) == (long long)(real), #ours)
SAME_VALUE(KN_cudaSuccess, cudaSuccess);
SAME_VALUE(KN_cudaMemcpyHostToDevice, cudaMemcpyHostToDevice);
SAME_VALUE(KN_cudaMemcpyDeviceToHost, cudaMemcpyDeviceToHost);
SAME_VALUE(KN_cudaMemcpyDeviceToDevice, cudaMemcpyDeviceToDevice);
SAME_VALUE(KN_cudaStreamNonBlocking, cudaStreamNonBlocking);
SAME_VALUE(KN_cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeThreadLocal);
SAME_VALUE(KN_cudaDevAttrMultiProcessorCount, cudaDevAttrMultiProcessorCount);
SAME_VALUE(KN_cudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMajor);
SAME_VALUE(KN_cudaDevAttrComputeCapabilityMinor, cudaDevAttrComputeCapabilityMinor);
SAME_VALUE(KN_CUBLAS_STATUS_SUCCESS, CUBLAS_STATUS_SUCCESS);
SAME_VALUE(KN_CUDA_R_32F, CUDA_R_32F);
SAME_VALUE(KN_CUDA_R_16F, CUDA_R_16F);
SAME_VALUE(KN_CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F);
SAME_VALUE(KN_CUBLAS_COMPUTE_32F_FAST_16F, CUBLAS_COMPUTE_32F_FAST_16F);
SAME_VALUE(KN_CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_COMPUTE_32F_FAST_TF32);
SAME_VALUE(KN_CUBLAS_OP_N, CUBLAS_OP_N);
SAME_VALUE(KN_CUBLAS_OP_T, CUBLAS_OP_T);
SAME_VALUE(KN_CUBLASLT_MATMUL_DESC_TRANSA, CUBLASLT_MATMUL_DESC_TRANSA);
SAME_VALUE(KN_CUBLASLT_MATMUL_DESC_TRANSB, CUBLASLT_MATMUL_DESC_TRANSB);
SAME_VALUE(KN_CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_MATMUL_DESC_EPILOGUE);
SAME_VALUE(KN_CUBLASLT_MATMUL_DESC_BIAS_POINTER, CUBLASLT_MATMUL_DESC_BIAS_POINTER);
SAME_VALUE(KN_CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_DEFAULT);
SAME_VALUE(KN_CUBLASLT_EPILOGUE_RELU, CUBLASLT_EPILOGUE_RELU);
SAME_VALUE(KN_CUBLASLT_EPILOGUE_BIAS, CUBLASLT_EPILOGUE_BIAS);
SAME_VALUE(KN_CUBLASLT_EPILOGUE_RELU_BIAS, CUBLASLT_EPILOGUE_RELU_BIAS);
SAME_VALUE(KN_CUBLASLT_EPILOGUE_GELU, CUBLASLT_EPILOGUE_GELU);
SAME_VALUE(KN_CUBLASLT_EPILOGUE_GELU_BIAS, CUBLASLT_EPILOGUE_GELU_BIAS);
SAME_VALUE(KN_CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
SAME_VALUE(KN_CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
           CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
SAME_VALUE(KN_CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
SAME_VALUE(KN_CUBLASLT_ALGO_CONFIG_ID, CUBLASLT_ALGO_CONFIG_ID);
SAME_VALUE(KN_CUBLASLT_ALGO_CONFIG_TILE_ID, CUBLASLT_ALGO_CONFIG_TILE_ID);
SAME_VALUE(KN_CUBLASLT_ALGO_CONFIG_SPLITK_NUM, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
SAME_VALUE(KN_CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
SAME_VALUE(KN_CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
SAME_VALUE(KN_CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
SAME_VALUE(KN_CUBLASLT_ALGO_CONFIG_STAGES_ID, CUBLASLT_ALGO_CONFIG_STAGES_ID);
SAME_VALUE(KN_CUDNN_STATUS_SUCCESS, CUDNN_STATUS_SUCCESS);
SAME_VALUE(KN_CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT);
SAME_VALUE(KN_CUDNN_DATA_HALF, CUDNN_DATA_HALF);
SAME_VALUE(KN_CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NCHW);
SAME_VALUE(KN_CUDNN_CROSS_CORRELATION, CUDNN_CROSS_CORRELATION);
SAME_VALUE(KN_CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
           CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
SAME_VALUE(KN_CUDNN_DEFAULT_MATH, CUDNN_DEFAULT_MATH);
SAME_VALUE(KN_CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION);
SAME_VALUE(KN_CUDNN_FMA_MATH, CUDNN_FMA_MATH);
SAME_VALUE(KN_CUDNN_POOLING_MAX, CUDNN_POOLING_MAX);
SAME_VALUE(KN_CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
           CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING);
SAME_VALUE(KN_CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
           CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING);
SAME_VALUE(KN_CUDNN_NOT_PROPAGATE_NAN, CUDNN_NOT_PROPAGATE_NAN);
SAME_VALUE(KN_CUDNN_PROPAGATE_NAN, CUDNN_PROPAGATE_NAN);
SAME_VALUE(KN_CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_RELU);
SAME_VALUE(KN_CUDNN_ACTIVATION_IDENTITY, CUDNN_ACTIVATION_IDENTITY);

/* an object file needs one definition */
int kn_cuda_api_check_compiled;
